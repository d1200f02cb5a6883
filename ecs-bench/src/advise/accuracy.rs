//! How good the advice is, measured: every layout of a trace's components replayed, each
//! prediction set beside its measurement, and the advised layout beside the fastest one
//! found (`advise --exhaustive`).

use ecs_core::trace::Trace;
use serde::Serialize;

use super::model::CostModel;
use super::profile::Profile;
use super::{measure, Candidate};
use crate::backend::Backend;

/// The most free components `--exhaustive` replays every layout of (2^10 = 1,024 replays).
pub const EXHAUSTIVE_REPLAYS_UP_TO: usize = 10;

/// Every layout of a trace, predicted and measured.
#[derive(Clone, Debug, Serialize)]
pub struct Accuracy {
    /// Each layout, in the order of its mask over the free components.
    pub layouts: Vec<Candidate>,
    /// The largest |predicted / measured − 1| over the layouts.
    pub worst_error: f64,
    /// The median |predicted / measured − 1|.
    pub median_error: f64,
    /// The index (into `layouts`) of the fastest layout measured.
    pub fastest: usize,
    /// The index of the layout the model ranks first.
    pub predicted_best: usize,
    /// The predicted-best layout's measured time over the fastest one's.
    pub advised_over_fastest: f64,
}

/// Replays every layout of the components `trace` uses on the hybrid backend.
///
/// # Errors
/// More than [`EXHAUSTIVE_REPLAYS_UP_TO`] free components, or a replay that cannot be set
/// up.
pub fn every_layout(
    trace: &Trace,
    model: &CostModel,
    runs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Accuracy, String> {
    let profile = Profile::of(trace);
    let free = profile.touched();
    if free.len() > EXHAUSTIVE_REPLAYS_UP_TO {
        return Err(format!(
            "--exhaustive replays every layout of at most {EXHAUSTIVE_REPLAYS_UP_TO} components; \
             the trace uses {}",
            free.len()
        ));
    }
    let declared = profile.declared();
    let mut layouts = Vec::with_capacity(1 << free.len());
    for mask in 0u32..1 << free.len() {
        let mut layout = declared.clone();
        for (bit, &c) in free.iter().enumerate() {
            layout[c as usize] = mask & (1 << bit) != 0;
        }
        let role = format!("layout {mask}");
        progress(&format!("{role} of {}", 1u32 << free.len()));
        layouts.push(measure(
            trace,
            &profile,
            model,
            Backend::Hybrid,
            role,
            &layout,
            runs,
        )?);
    }
    Ok(summarize(layouts))
}

fn summarize(layouts: Vec<Candidate>) -> Accuracy {
    let mut errors: Vec<f64> = layouts
        .iter()
        .filter_map(|c| c.accuracy())
        .map(|a| (a - 1.0).abs())
        .collect();
    errors.sort_by(f64::total_cmp);
    let index_of_min = |key: &dyn Fn(&Candidate) -> f64| {
        (0..layouts.len())
            .min_by(|&a, &b| key(&layouts[a]).total_cmp(&key(&layouts[b])))
            .unwrap_or(0)
    };
    let fastest = index_of_min(&|c| c.measured_ns as f64);
    let predicted_best = index_of_min(&|c| c.predicted_ns.unwrap_or(f64::INFINITY));
    Accuracy {
        worst_error: errors.last().copied().unwrap_or(0.0),
        median_error: errors.get(errors.len() / 2).copied().unwrap_or(0.0),
        fastest,
        predicted_best,
        advised_over_fastest: layouts[predicted_best].measured_ns as f64
            / layouts[fastest].measured_ns.max(1) as f64,
        layouts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advise::profile::Features;

    fn candidate(predicted: f64, measured: u64) -> Candidate {
        Candidate {
            role: String::new(),
            backend: "hybrid".into(),
            sparse: Vec::new(),
            features: Features::default(),
            predicted_ns: Some(predicted),
            measured_ns: measured,
            faithful: true,
        }
    }

    #[test]
    fn errors_and_the_advised_layouts_rank_are_summarised() {
        let accuracy = summarize(vec![
            candidate(100.0, 110),
            candidate(90.0, 120),
            candidate(130.0, 100),
        ]);
        assert_eq!((accuracy.fastest, accuracy.predicted_best), (2, 1));
        assert!((accuracy.advised_over_fastest - 1.2).abs() < 1e-9);
        assert!((accuracy.worst_error - 0.3).abs() < 1e-9);
        assert!((accuracy.median_error - 0.25).abs() < 1e-9);
    }
}
