//! The storage advisor: which storage each of a program's components should use, from a
//! trace of the program (see `ecs_core::trace`), predicted by a cost model calibrated on
//! this machine and then measured by replaying the candidates.
//!
//! ```text
//!  trace ──► profile (what the trace does to each component, folded by held set)
//!        ──► for every layout of the components it touches (or a greedy descent past
//!            12 of them): predicted time = Σ count × price   (prices: the calibration)
//!        ──► replay the declared layout, the advised one and the two next-best on the
//!            hybrid backend, and the archetype and sparse backends: predicted beside
//!            measured
//!        ──► the attributes to paste, and the facade feature to pick
//! ```
//!
//! The model prices what a layout changes: a table row move per added or removed table
//! component (per column and per byte of the row), a sparse push or swap-remove, rows
//! walked and tables visited by query runs, sparse look-ups per walked row when a query
//! joins a sparse component, look-ups of one value. What it cannot see is what a replay
//! cannot either: the program's own work between world calls.

pub mod accuracy;
pub mod calibrate;
pub mod command;
pub mod model;
pub mod output;
pub mod profile;
pub mod search;
pub mod suite;

use ecs_core::component::StorageKind;
use ecs_core::trace::Trace;
use serde::Serialize;

use crate::backend::Backend;
use crate::replay::{replay_kinds, summary, Outcome};
use model::CostModel;
use profile::{Features, Profile};
use search::Scored;

/// One component's advice.
#[derive(Clone, Debug, Serialize)]
pub struct ComponentAdvice {
    /// The trace's name.
    pub name: String,
    /// What the trace did with it.
    pub usage: summary::ComponentUse,
    /// The storage the program declared (`table` or `sparse`).
    pub declared: &'static str,
    /// The storage advised.
    pub advised: &'static str,
    /// Predicted time saved by the advised kind over the other one, the rest of the
    /// advised layout unchanged (nanoseconds; zero for a component the layout may not
    /// move, and at most a rounding below zero for the cheapest layout scored).
    pub saving_ns: f64,
    /// Why, in one line.
    pub reason: String,
}

/// One layout the advisor replayed.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    /// What it is (declared, advised, next best, or a backend).
    pub role: String,
    /// The backend it ran on.
    pub backend: String,
    /// The components kept sparse (on the hybrid).
    pub sparse: Vec<String>,
    /// What the layout makes the storage do (the model's counts).
    pub features: Features,
    /// Predicted replay time (nanoseconds); none for the archetype and sparse backends,
    /// which the model, calibrated on the hybrid, does not price.
    pub predicted_ns: Option<f64>,
    /// Measured replay time (nanoseconds): the median run's frames, the world's work
    /// without the reading of the trace.
    pub measured_ns: u64,
    /// Whether the replay did exactly what the program did.
    pub faithful: bool,
}

impl Candidate {
    /// Predicted over measured, when predicted.
    pub fn accuracy(&self) -> Option<f64> {
        Some(self.predicted_ns? / self.measured_ns.max(1) as f64)
    }
}

/// What the advisor found (see the module docs).
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    /// Ops in the trace.
    pub ops: u64,
    /// Frames in the trace.
    pub frames: u64,
    /// Each component, in the trace's order.
    pub components: Vec<ComponentAdvice>,
    /// Layouts the search scored.
    pub layouts_scored: usize,
    /// Whether every layout of the free components was scored.
    pub exhaustive: bool,
    /// The declared, advised and next-best layouts, then the archetype and sparse
    /// backends, each predicted and measured.
    pub candidates: Vec<Candidate>,
    /// The model's prices.
    pub model: CostModel,
    /// Every layout replayed, when asked for (`--exhaustive`).
    pub accuracy: Option<accuracy::Accuracy>,
}

impl Advice {
    /// The declared layout's candidate.
    pub fn declared(&self) -> &Candidate {
        &self.candidates[0]
    }

    /// The advised layout's candidate.
    pub fn advised(&self) -> &Candidate {
        &self.candidates[1]
    }

    /// The components the advice turns sparse or back to tables, and their new kind.
    pub fn changes(&self) -> impl Iterator<Item = &ComponentAdvice> {
        self.components.iter().filter(|c| c.declared != c.advised)
    }
}

/// Each component's storage kind for a layout (`layout[c]`: whether `c` is sparse).
pub(crate) fn kinds_of(layout: &[bool]) -> Vec<StorageKind> {
    layout
        .iter()
        .map(|&sparse| match sparse {
            true => StorageKind::Sparse,
            false => StorageKind::Table,
        })
        .collect()
}

fn kind_name(sparse: bool) -> &'static str {
    match sparse {
        true => "sparse",
        false => "table",
    }
}

/// Advises on `trace` with `model`, replaying each candidate `runs` times; `progress` hears
/// each replay's label before it runs.
///
/// # Errors
/// A replay that cannot be set up.
pub fn advise(
    trace: &Trace,
    model: CostModel,
    runs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Advice, String> {
    let profile = Profile::of(trace);
    let declared = profile.declared();
    let free = profile.touched();
    let cost = |layout: &[bool]| model.predict(&profile.features(layout));
    let scored = search::search(&free, &declared, &cost);
    let advised = scored
        .first()
        .map_or(declared.clone(), |s| s.sparse.clone());
    let usage = summary::summarize(trace).components;
    let mut layouts: Vec<(String, Vec<bool>)> = vec![
        ("declared".into(), declared.clone()),
        ("advised".into(), advised.clone()),
    ];
    let next: Vec<&Scored> = scored
        .iter()
        .filter(|s| s.sparse != declared && s.sparse != advised)
        .take(2)
        .collect();
    for (i, s) in next.iter().enumerate() {
        layouts.push((format!("next best {}", i + 2), s.sparse.clone()));
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    for (role, layout) in layouts {
        // The advice is often the declared layout: measured once, so a check compares
        // the layout with itself exactly.
        if role == "advised" && layout == declared {
            let mut same = candidates[0].clone();
            same.role = role;
            candidates.push(same);
            continue;
        }
        progress(&format!("hybrid, {role}"));
        candidates.push(measure(
            trace,
            &profile,
            &model,
            Backend::Hybrid,
            role,
            &layout,
            runs,
        )?);
    }
    let advised = overrule(&profile, &mut candidates, &advised);
    let components = profile
        .components
        .iter()
        .enumerate()
        .map(|(c, info)| {
            let mut flipped = advised.clone();
            flipped[c] ^= true;
            let saving_ns = match free.contains(&(c as u32)) {
                true => cost(&flipped) - cost(&advised),
                false => 0.0,
            };
            ComponentAdvice {
                name: info.name.clone(),
                usage: usage[c].clone(),
                declared: kind_name(declared[c]),
                advised: kind_name(advised[c]),
                saving_ns,
                reason: reason(&profile, &model, c, &advised, &flipped, &usage[c], &free),
            }
        })
        .collect();
    for (backend, uniform) in [(Backend::Archetype, false), (Backend::Sparse, true)] {
        progress(backend.name());
        let mut layout = declared.clone();
        free.iter().for_each(|&c| layout[c as usize] = uniform);
        let role = format!("{} backend", backend.name());
        let mut candidate = measure(trace, &profile, &model, backend, role, &layout, runs)?;
        candidate.sparse.clear();
        candidates.push(candidate);
    }
    Ok(Advice {
        ops: trace.op_count(),
        frames: trace.frames(),
        components,
        layouts_scored: scored.len(),
        exhaustive: free.len() <= search::EXHAUSTIVE_UP_TO,
        candidates,
        model,
        accuracy: None,
    })
}

/// A next-best layout must measure at least this much faster than the model's first
/// choice (a share of its time) to be advised instead: less is within a replay's noise.
pub const MEASURED_MARGIN: f64 = 0.05;

/// The layout to advise once the hybrid candidates (the declared layout, the model's first
/// choice and the next best, `candidates[0..]`) are measured: the first choice, unless
/// another measured more than [`MEASURED_MARGIN`] faster. The fastest of those then takes
/// the role `advised` at index 1 (the declared layout's copy, when it is the declared one)
/// and the first choice follows it as `model's first choice`. The model ranks; the replays
/// decide.
fn overrule(profile: &Profile, candidates: &mut Vec<Candidate>, first: &[bool]) -> Vec<bool> {
    let limit = candidates[1].measured_ns as f64 * (1.0 - MEASURED_MARGIN);
    let fastest = (0..candidates.len())
        .filter(|&i| i != 1 && (candidates[i].measured_ns as f64) < limit)
        .min_by_key(|&i| candidates[i].measured_ns);
    let Some(i) = fastest else {
        return first.to_vec();
    };
    let mut winner = candidates[i].clone();
    winner.role = "advised".into();
    let mut model_choice = std::mem::replace(&mut candidates[1], winner);
    model_choice.role = "model's first choice".into();
    match i {
        0 => candidates.insert(2, model_choice),
        _ => candidates[i] = model_choice,
    }
    profile
        .components
        .iter()
        .map(|c| candidates[1].sparse.contains(&c.name))
        .collect()
}

/// Replays `layout` on `backend` and pairs the time with the model's prediction (on the
/// hybrid backend).
pub(crate) fn measure(
    trace: &Trace,
    profile: &Profile,
    model: &CostModel,
    backend: Backend,
    role: String,
    layout: &[bool],
    runs: usize,
) -> Result<Candidate, String> {
    let outcome: Outcome =
        replay_kinds(trace, backend, &kinds_of(layout), &role, runs, &mut |_| {})?;
    Ok(Candidate {
        role,
        backend: backend.name().to_owned(),
        sparse: profile
            .components
            .iter()
            .zip(layout)
            .filter(|(_, &s)| s)
            .map(|(c, _)| c.name.clone())
            .collect(),
        features: profile.features(layout),
        predicted_ns: (backend == Backend::Hybrid)
            .then(|| model.predict(&profile.features(layout))),
        measured_ns: outcome.world_ns(),
        faithful: outcome.faithful(),
    })
}

/// One line on why component `c` is advised as it is: what the trace does with it, and
/// the counts whose prices differ most between its two kinds.
fn reason(
    profile: &Profile,
    model: &CostModel,
    c: usize,
    advised: &[bool],
    flipped: &[bool],
    usage: &summary::ComponentUse,
    free: &[u32],
) -> String {
    let did = what_it_did(usage);
    if !free.contains(&(c as u32)) {
        return match profile.components[c].movable {
            true => format!("{did}: unused, left as declared"),
            false => format!("{did}: the disabling marker keeps its own storage"),
        };
    }
    let (here, there) = (profile.features(advised), profile.features(flipped));
    let mut deltas: Vec<(&str, f64)> = Features::NAMES
        .iter()
        .zip(there.to_array().iter().zip(here.to_array()))
        .zip(&model.prices)
        .map(|((name, (t, h)), price)| (*name, (t - h) * price))
        .filter(|(_, d)| d.abs() >= 1.0)
        .collect();
    deltas.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let other = kind_name(!advised[c]);
    if deltas.is_empty() {
        return format!("{did}: {other} would cost the same here");
    }
    let parts: Vec<String> = deltas
        .iter()
        .take(3)
        .map(|(name, d)| {
            let sign = if *d > 0.0 { "+" } else { "-" };
            format!(
                "{name} {sign}{}",
                crate::report::markdown::format_time(d.abs())
            )
        })
        .collect();
    format!("{did}: as {other}, {}", parts.join(", "))
}

fn what_it_did(u: &summary::ComponentUse) -> String {
    let mut parts = Vec::new();
    let count = crate::report::markdown::format_count;
    if u.adds + u.removes > 0 {
        parts.push(format!(
            "{} adds, {} removes",
            count(u.adds),
            count(u.removes)
        ));
    }
    if u.rows_read + u.rows_written > 0 {
        parts.push(format!(
            "{} rows iterated",
            count(u.rows_read + u.rows_written)
        ));
    }
    if u.gets > 0 {
        parts.push(format!("{} gets", count(u.gets)));
    }
    match parts.is_empty() {
        true => "never used".to_owned(),
        false => parts.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecs_core::component::StorageKind;

    fn candidate(role: &str, sparse: &[&str], measured_ns: u64) -> Candidate {
        Candidate {
            role: role.into(),
            backend: "hybrid".into(),
            sparse: sparse.iter().map(|s| (*s).to_owned()).collect(),
            features: Features::default(),
            predicted_ns: Some(1.0),
            measured_ns,
            faithful: true,
        }
    }

    fn profile() -> Profile {
        let component = |name: &str| profile::Component {
            name: name.into(),
            size: 4,
            declared: StorageKind::Table,
            movable: true,
        };
        Profile {
            components: vec![component("A"), component("B")],
            ..Profile::default()
        }
    }

    #[test]
    fn a_next_best_layout_measured_faster_is_advised_instead() {
        let mut candidates = vec![
            candidate("declared", &[], 100),
            candidate("advised", &["A"], 90),
            candidate("next best 2", &["B"], 80),
            candidate("next best 3", &["A", "B"], 86),
        ];
        let advised = overrule(&profile(), &mut candidates, &[true, false]);
        assert_eq!(advised, [false, true]);
        let roles: Vec<&str> = candidates.iter().map(|c| c.role.as_str()).collect();
        assert_eq!(
            roles,
            ["declared", "advised", "model's first choice", "next best 3"]
        );
        assert_eq!(candidates[1].measured_ns, 80);
    }

    #[test]
    fn within_the_margin_the_models_choice_stands() {
        let mut candidates = vec![
            candidate("declared", &[], 100),
            candidate("advised", &["A"], 90),
            candidate("next best 2", &["B"], 86),
        ];
        let advised = overrule(&profile(), &mut candidates, &[true, false]);
        assert_eq!(advised, [true, false], "86 is within 5 % of 90");
        assert_eq!(candidates[1].role, "advised");
        assert_eq!(candidates[1].measured_ns, 90);
    }

    #[test]
    fn a_declared_layout_measured_faster_is_kept() {
        let mut candidates = vec![
            candidate("declared", &[], 70),
            candidate("advised", &["A"], 90),
            candidate("next best 2", &["B"], 95),
        ];
        let advised = overrule(&profile(), &mut candidates, &[true, false]);
        assert_eq!(advised, [false, false]);
        let roles: Vec<&str> = candidates.iter().map(|c| c.role.as_str()).collect();
        assert_eq!(
            roles,
            ["declared", "advised", "model's first choice", "next best 2"]
        );
    }
}
