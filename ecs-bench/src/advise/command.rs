//! The `advise` command.

use std::path::PathBuf;

use clap::Args;
use ecs_core::trace::Trace;
use indicatif::{ProgressBar, ProgressStyle};

use super::model::{self, CostModel};
use super::{accuracy, advise, output, Advice};
use crate::cli::default_out_dir;

/// `ecs-bench advise FILE`.
#[derive(Args)]
pub struct AdviseArgs {
    /// The trace file (see `replay`).
    pub file: PathBuf,
    /// Exit with 1 when the declared layout's measured time is more than `--tolerance`
    /// percent above the advised one's: a CI step that keeps a program's storage choice
    /// right as it changes.
    #[arg(long)]
    pub check: bool,
    /// Percent the declared layout may be slower than the advised one under `--check`.
    #[arg(long, default_value_t = 10.0)]
    pub tolerance: f64,
    /// Replays per measured layout; the times are the median run's.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Also replay every layout of the components the trace uses (at most 10 of them) and
    /// report how far each prediction was from its measurement, and how the advised
    /// layout's time compares with the fastest found.
    #[arg(long)]
    pub exhaustive: bool,
    /// Calibrate again even when this machine's prices are cached.
    #[arg(long)]
    pub recalibrate: bool,
    /// Where the calibrated prices are cached (default:
    /// target/ecs-bench/advise-calibration.json).
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,
    /// Output folder for advice.md and advice.json (default: target/ecs-bench/advise).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// Advises on a trace file; false when `--check` fails or a replay diverged.
///
/// # Errors
/// An unreadable or invalid trace, a failed calibration, an unwritable output folder.
pub fn run_advise(args: AdviseArgs) -> Result<bool, String> {
    let bytes =
        std::fs::read(&args.file).map_err(|e| format!("reading {}: {e}", args.file.display()))?;
    let trace = Trace::from_bytes(&bytes).map_err(|e| format!("{}: {e}", args.file.display()))?;
    if args.exhaustive {
        let free = super::profile::Profile::of(&trace).touched().len();
        if free > accuracy::EXHAUSTIVE_REPLAYS_UP_TO {
            return Err(format!(
                "--exhaustive replays every layout of at most {} components; the trace uses {free}",
                accuracy::EXHAUSTIVE_REPLAYS_UP_TO
            ));
        }
    }
    let bar = spinner(args.no_progress);
    let cache = args
        .cache
        .clone()
        .unwrap_or_else(|| model::cache_path(&default_out_dir("")));
    bar.set_message("calibrating");
    let (model, cached) = CostModel::load_or_calibrate(&cache, args.recalibrate, &mut |label| {
        bar.set_message(format!("calibrating: {label}"));
        bar.tick();
    })?;
    if !args.no_progress {
        match cached {
            true => bar.println(format!("prices: cached in {}", cache.display())),
            false => bar.println(format!(
                "prices: calibrated in {:.1} s, cached in {}",
                model.seconds,
                cache.display()
            )),
        }
    }
    let mut advice = advise(&trace, model, args.runs, &mut |label| {
        bar.set_message(format!("replaying {label}"));
        bar.tick();
    })?;
    if args.exhaustive {
        let every = accuracy::every_layout(&trace, &advice.model, args.runs, &mut |label| {
            bar.set_message(format!("replaying {label}"));
            bar.tick();
        })?;
        advice.accuracy = Some(every);
    }
    bar.finish_and_clear();
    let title = args.file.display().to_string();
    let markdown = output::markdown(&advice, &title);
    let out = args.out.unwrap_or_else(|| default_out_dir("advise"));
    std::fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    let write = |name: &str, text: &str| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))
    };
    write("advice.md", &markdown)?;
    let json = serde_json::to_string_pretty(&advice).map_err(|e| e.to_string())?;
    write("advice.json", &json)?;
    println!("{markdown}");
    eprintln!("wrote {}/advice.md and advice.json", out.display());
    let faithful = advice.candidates.iter().all(|c| c.faithful);
    if !faithful {
        eprintln!("a replay diverged from the trace: its times do not show the program");
    }
    if !args.check {
        return Ok(faithful);
    }
    let (passed, verdict) = check(&advice, args.tolerance);
    eprintln!("{verdict}");
    Ok(passed && faithful)
}

/// Whether the declared layout is within `tolerance` percent of the advised one
/// (measured), and a line saying so.
pub fn check(advice: &Advice, tolerance: f64) -> (bool, String) {
    let (declared, advised) = (advice.declared(), advice.advised());
    let ratio = declared.measured_ns as f64 / advised.measured_ns.max(1) as f64;
    let over = (ratio - 1.0) * 100.0;
    // Compared as ratios, so a layout exactly at the tolerance passes.
    match ratio > 1.0 + tolerance / 100.0 {
        true => (
            false,
            format!(
                "check failed: the declared layout takes {ratio:.2}× the advised one's time \
                 ({over:.1} % slower, more than the {tolerance} % allowed)"
            ),
        ),
        false => (
            true,
            format!(
                "check passed: the declared layout takes {ratio:.2}× the advised one's time \
                 (within {tolerance} %)"
            ),
        ),
    }
}

fn spinner(hidden: bool) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advise::profile::Features;
    use crate::advise::Candidate;

    fn advice(declared_ns: u64, advised_ns: u64) -> Advice {
        let candidate = |role: &str, measured_ns| Candidate {
            role: role.to_owned(),
            backend: "hybrid".into(),
            sparse: Vec::new(),
            features: Features::default(),
            predicted_ns: Some(1.0),
            measured_ns,
            faithful: true,
        };
        Advice {
            ops: 0,
            frames: 0,
            components: Vec::new(),
            layouts_scored: 1,
            exhaustive: true,
            candidates: vec![
                candidate("declared", declared_ns),
                candidate("advised", advised_ns),
            ],
            model: CostModel::fit(Vec::new(), 0.0),
            accuracy: None,
        }
    }

    /// The verdict compares the measured times against the tolerance, at its edge too.
    #[test]
    fn check_fails_past_the_tolerance_only() {
        assert!(!check(&advice(1_200, 1_000), 10.0).0, "20 % slower");
        assert!(check(&advice(1_100, 1_000), 10.0).0, "exactly 10 % slower");
        assert!(check(&advice(1_050, 1_000), 10.0).0);
        assert!(
            check(&advice(900, 1_000), 10.0).0,
            "the declared one faster"
        );
        assert!(check(&advice(1_200, 1_000), 25.0).0);
        let (_, line) = check(&advice(1_200, 1_000), 10.0);
        assert!(line.contains("1.20×") && line.contains("20.0 %"), "{line}");
    }
}
