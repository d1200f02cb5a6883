//! The `replay` and `trace-workload` commands.

use std::path::{Path, PathBuf};

use clap::Args;
use ecs_core::trace::{self, Trace};
use indicatif::{ProgressBar, ProgressStyle};

use super::output::{self, ReplayReport};
use super::{replay, summary, Target};
use crate::backend::Backend;
use crate::report::Suite;

/// `ecs-bench replay FILE`.
#[derive(Args)]
pub struct ReplayArgs {
    /// The trace file (written by `World::finish_trace` and `Trace::to_bytes`, an example's
    /// `--trace`, or `trace-workload`).
    pub file: PathBuf,
    /// Also replay on the hybrid backend with these components (comma-separated trace
    /// names) in sparse sets and every other in tables; repeatable, one layout each. An
    /// empty list (`--sparse ""`) is the hybrid with every component in tables.
    #[arg(long, value_name = "A,B,...")]
    pub sparse: Vec<String>,
    /// Only these backends (repeatable; default: every reported backend).
    #[arg(long, value_name = "NAME")]
    pub backend: Vec<String>,
    /// Replays per target; the times reported are the median run's.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Output folder for replay.md, replay.json and replay.svg (default:
    /// target/ecs-bench/replay).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

/// `ecs-bench trace-workload NAME FILE`.
#[derive(Args)]
pub struct TraceWorkloadArgs {
    /// The workload (`family/name`, or a name that is unique).
    pub workload: String,
    /// Where to write the trace.
    pub file: PathBuf,
    /// The size to run at (default: the workload's quick size).
    #[arg(long)]
    pub size: Option<usize>,
    /// Runs after the set-up, one frame each.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

/// Replays a trace file on every target; false when a replay diverged.
///
/// # Errors
/// An unreadable or invalid trace, an unknown backend or `--sparse` name, an unwritable
/// output folder.
pub fn run_replay(args: ReplayArgs) -> Result<bool, String> {
    let bytes =
        std::fs::read(&args.file).map_err(|e| format!("reading {}: {e}", args.file.display()))?;
    let trace = Trace::from_bytes(&bytes).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let targets = targets(&args)?;
    let mut outcomes = Vec::with_capacity(targets.len());
    for target in &targets {
        let bar = progress(args.no_progress, trace.op_count() * args.runs.max(1) as u64);
        bar.set_message(target.label());
        let mut base = 0u64;
        let mut last = 0u64;
        let outcome = replay(&trace, target, args.runs, &mut |done| {
            if done < last {
                base += last;
            }
            last = done;
            bar.set_position(base + done);
        })?;
        bar.finish_and_clear();
        eprintln!(
            "{:<28} {:>12}  {}",
            outcome.target,
            crate::report::markdown::format_time(outcome.total_ns as f64),
            if outcome.faithful() {
                "faithful".to_owned()
            } else {
                format!("DIVERGED ({} ops)", outcome.divergence_count)
            }
        );
        outcomes.push(outcome);
    }
    let report = ReplayReport {
        trace: args.file.display().to_string(),
        runs: args.runs.max(1),
        summary: summary::summarize(&trace),
        outcomes,
    };
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("target/ecs-bench/replay"));
    write_report(&out, &report)?;
    let markdown = output::markdown(&report);
    println!("{markdown}");
    eprintln!(
        "wrote {}/replay.md, replay.json and replay.svg",
        out.display()
    );
    Ok(report.outcomes.iter().all(|o| o.faithful()))
}

fn targets(args: &ReplayArgs) -> Result<Vec<Target>, String> {
    let backends: Vec<Backend> = if args.backend.is_empty() {
        Backend::reported_backends().collect()
    } else {
        args.backend
            .iter()
            .map(|name| {
                Backend::from_name(name).ok_or_else(|| format!("--backend {name}: no such backend"))
            })
            .collect::<Result<_, _>>()?
    };
    let mut targets: Vec<Target> = backends
        .iter()
        .map(|&backend| Target {
            backend,
            sparse: None,
        })
        .collect();
    for list in &args.sparse {
        let names = list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        targets.push(Target {
            backend: Backend::Hybrid,
            sparse: Some(names),
        });
    }
    Ok(targets)
}

fn write_report(out: &Path, report: &ReplayReport) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    let write = |name: &str, text: String| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))
    };
    write("replay.md", output::markdown(report))?;
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    write("replay.json", json)?;
    let svg = out.join("replay.svg");
    output::chart(&svg, report).map_err(|e| format!("drawing {}: {e}", svg.display()))
}

fn progress(hidden: bool, len: u64) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{msg:>28} [{bar:30}] {pos}/{len} ops") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Records one of the suite's workloads as a trace (see [`run_trace_workload`]): the
/// trace, the workload's `family/name` and the size it ran at (`size`, or its quick size).
///
/// # Errors
/// An unknown or ambiguous name, or a workload that does not run on the backends.
pub fn record_workload(
    suite: &Suite,
    name: &str,
    size: Option<usize>,
    runs: usize,
) -> Result<(Trace, String, usize), String> {
    let workloads = (suite.workloads)();
    let wanted = name.to_lowercase();
    let matches: Vec<_> = workloads
        .iter()
        .filter(|w| {
            let info = w.info();
            info.path().to_lowercase() == wanted || info.name.to_lowercase() == wanted
        })
        .collect();
    let workload = match matches.as_slice() {
        [one] => *one,
        [] => return Err(format!("no workload named {name}")),
        _ => return Err(format!("{name} names several workloads: give family/name")),
    };
    let size = size.unwrap_or_else(|| workload.info().sizes.get(crate::Scale::Quick));
    let repeatable = workload.info().repeatable;
    let (recorded, traces) = trace::capture(|| {
        let mut prepared = workload.prepare_traced(size)?;
        trace::frame();
        for run in 0..runs.max(1) {
            // A workload that cannot run twice on one state gets a fresh one per run, as
            // the report gives it: its world's trace is its set-up frame, then one run.
            if !repeatable && run > 0 {
                prepared = workload.prepare_traced(size)?;
                trace::frame();
            }
            prepared.step();
            prepared.run();
            trace::frame();
        }
        Some(())
    });
    let path = workload.info().path();
    if recorded.is_none() {
        return Err(format!("{path} does not run on the storage backends"));
    }
    // A workload that builds its world in each run, or gets a fresh state per run, leaves
    // one trace per world: the last is a steady-state run.
    let trace = traces
        .into_iter()
        .last()
        .ok_or_else(|| format!("{path} built no world"))?;
    Ok((trace, path, size))
}

/// Records one of the suite's workloads (ecs-bench's, or a program's own) as a trace: its
/// set-up, then `runs` runs, one frame each, on the archetype backend.
///
/// # Errors
/// An unknown workload, one that does not run on the backends, or an unwritable file.
pub fn run_trace_workload(suite: Suite, args: TraceWorkloadArgs) -> Result<bool, String> {
    let (trace, path, size) = record_workload(&suite, &args.workload, args.size, args.runs)?;
    std::fs::write(&args.file, trace.to_bytes())
        .map_err(|e| format!("writing {}: {e}", args.file.display()))?;
    eprintln!(
        "{path} at size {size}: {} ops ({} bytes), {} frames -> {}",
        trace.op_count(),
        trace.op_bytes(),
        trace.frames(),
        args.file.display()
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload that cannot run twice on one state (each removal run empties its world)
    /// is traced with a fresh state per run, as the report runs it, and replays faithfully.
    #[test]
    fn a_one_shot_workload_is_traced_with_a_fresh_state_per_run() {
        let dir = std::env::temp_dir().join(format!("ecs-bench-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("remove.trace");
        let args = TraceWorkloadArgs {
            workload: "seed004/remove_linear_10k".into(),
            file: file.clone(),
            size: Some(64),
            runs: 3,
        };
        assert!(run_trace_workload(Suite::builtin(), args).unwrap());
        let trace = Trace::from_bytes(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(trace.frames(), 2, "its set-up, then one run");
        for target in Target::defaults() {
            let outcome = replay(&trace, &target, 1, &mut |_| {}).unwrap();
            assert!(
                outcome.faithful(),
                "{}: {:?}",
                outcome.target,
                outcome.divergences
            );
            assert_eq!(outcome.frame_ns.len(), 2);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
