//! The advisor's accuracy benchmark (`ecs-bench advise-accuracy`): for each of a set of
//! traces, every layout of the components it uses replayed on the hybrid backend, each
//! prediction beside its measurement, and the model's first choice beside the fastest
//! layout found.
//!
//! The traces: some of the benchmark's own workloads (recorded as `trace-workload` records
//! them), two programs whose phases want different layouts (a build phase heavy in adds
//! and removes, then a play phase heavy in joins), and any trace files given (an example's
//! `--trace`).

use std::path::PathBuf;

use clap::Args;
use ecs_archetype::ArchetypeStorage;
use ecs_core::trace::{Trace, Traced};
use ecs_core::{Entity, World};
use serde::Serialize;

use super::accuracy::{every_layout, Accuracy, EXHAUSTIVE_REPLAYS_UP_TO};
use super::calibrate::{A16, B16, C64, D4};
use super::model::{self, CostModel};
use super::profile::Profile;
use crate::cli::default_out_dir;
use crate::replay::command::record_workload;
use crate::report::markdown::format_count;
use crate::report::Suite;

/// The benchmark's workloads the accuracy benchmark records, each at its quick size.
pub const WORKLOADS: [&str; 7] = [
    "community/add_remove",
    "community/simple_iter",
    "seed000/random",
    "seed000/add_write_delete",
    "seed000/relationship",
    "seed002/crates_render_changed",
    "seed000/distributed",
];

/// A prediction this close to its measurement (a share of it) counts as right.
pub const WITHIN: f64 = 0.20;

/// `ecs-bench advise-accuracy [FILE...]`.
#[derive(Args)]
pub struct AccuracyArgs {
    /// Trace files to measure besides the built-in ones (an example's `--trace FILE`).
    pub files: Vec<PathBuf>,
    /// Replays per layout; the times are the median run's.
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Calibrate again even when this machine's prices are cached.
    #[arg(long)]
    pub recalibrate: bool,
    /// Output folder for accuracy.md and accuracy.json (default:
    /// target/ecs-bench/advise-accuracy).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// One trace's accuracy.
#[derive(Clone, Debug, Serialize)]
pub struct TraceAccuracy {
    /// Where the trace came from.
    pub name: String,
    /// Ops in the trace.
    pub ops: u64,
    /// Components whose storage the layouts vary.
    pub components: usize,
    /// Every layout, predicted and measured.
    pub accuracy: Accuracy,
    /// Layouts predicted within [`WITHIN`] of their measured time.
    pub within: usize,
    /// Whether every replay did what the program did.
    pub faithful: bool,
}

/// A recorded program of the benchmark: its name and what it does to its world.
type Program = (&'static str, fn(&mut Recording));

type Recording = World<Traced<ArchetypeStorage>>;

/// The two phase-shifting programs.
pub const PROGRAMS: [Program; 2] = [
    ("phases/build_then_play", build_then_play),
    ("phases/waves_then_siege", waves_then_siege),
];

/// A level of 8,000 entities: 30 frames of building (a scattered eighth of them gains or
/// loses a `D4` marker each frame), then 120 frames of play joining over the markers.
fn build_then_play(world: &mut Recording) {
    let n = 8_000;
    let es: Vec<Entity> = world
        .spawn_batch((0..n).map(|_| (A16::default(), B16::default(), C64::default())))
        .to_vec();
    world.trace_frame();
    for frame in 0..30 {
        for i in 0..n / 8 {
            let e = es[(frame * n / 8 + i) * 7919 % n];
            match world.has::<D4>(e) {
                true => {
                    world.remove::<D4>(e).unwrap();
                }
                false => {
                    world.insert(e, D4::default()).unwrap();
                }
            }
        }
        world.trace_frame();
    }
    for _ in 0..120 {
        world
            .query::<(&mut A16, &B16)>()
            .for_each(|(a, b)| a.0[0] += b.0[0]);
        world
            .query::<(&mut A16, &D4)>()
            .for_each(|(a, d)| a.0[1] += d.0[0]);
        world.query::<(&C64, &D4)>().for_each(|(c, d)| {
            std::hint::black_box((c, d));
        });
        world.trace_frame();
    }
}

/// 40 frames of waves (400 entities spawned a frame, one in three with a `D4`, the oldest
/// despawned past 4,000, a `C64` given to a few), then 150 frames of a siege joining the
/// survivors.
fn waves_then_siege(world: &mut Recording) {
    let mut alive = std::collections::VecDeque::new();
    for frame in 0..40 {
        for i in 0..400 {
            let e = match i % 3 {
                0 => world.spawn((A16::default(), B16::default(), D4::default())),
                _ => world.spawn((A16::default(), B16::default())),
            };
            alive.push_back(e);
        }
        while alive.len() > 4_000 {
            let e = alive.pop_front().expect("more than 4,000");
            world.despawn(e).unwrap();
        }
        for k in 0..40 {
            let e = alive[(frame * 131 + k * 97) % alive.len()];
            world.insert(e, C64::default()).unwrap();
        }
        world.trace_frame();
    }
    for _ in 0..150 {
        world
            .query::<(&mut A16, &B16)>()
            .for_each(|(a, b)| a.0[0] += b.0[0]);
        world
            .query::<(&mut B16, &D4)>()
            .for_each(|(b, d)| b.0[1] += d.0[0]);
        world
            .query::<(&mut C64, &A16)>()
            .for_each(|(c, a)| c.0[0] += a.0[0]);
        world.trace_frame();
    }
}

/// Records `program`.
pub fn record(program: fn(&mut Recording)) -> Trace {
    let mut world = Recording::new();
    world.start_trace().expect("a traced storage records");
    program(&mut world);
    world.finish_trace().expect("recording")
}

/// Measures every trace (see the module docs), with `model`'s prices.
///
/// # Errors
/// A workload or file that cannot be recorded or read, or a replay that cannot be set up.
pub fn measure(
    suite: &Suite,
    files: &[PathBuf],
    model: &CostModel,
    runs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<TraceAccuracy>, String> {
    let mut traces: Vec<(String, Trace)> = Vec::new();
    for name in WORKLOADS {
        let (trace, path, size) = record_workload(suite, name, None, 5)?;
        traces.push((format!("{path} ({size})"), trace));
    }
    for (name, program) in PROGRAMS {
        traces.push((name.to_owned(), record(program)));
    }
    for file in files {
        let bytes = std::fs::read(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
        let trace = Trace::from_bytes(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        traces.push((file.display().to_string(), trace));
    }
    let mut rows = Vec::new();
    for (name, trace) in traces {
        let components = Profile::of(&trace).touched().len();
        if components > EXHAUSTIVE_REPLAYS_UP_TO {
            progress(&format!(
                "{name}: {components} components, more than {EXHAUSTIVE_REPLAYS_UP_TO}: left out"
            ));
            continue;
        }
        progress(&format!("{name}: {} layouts", 1u32 << components));
        let accuracy = every_layout(&trace, model, runs, &mut |_| {})?;
        let within = accuracy
            .layouts
            .iter()
            .filter_map(|c| c.accuracy())
            .filter(|a| (a - 1.0).abs() <= WITHIN)
            .count();
        rows.push(TraceAccuracy {
            name,
            ops: trace.op_count(),
            components,
            faithful: accuracy.layouts.iter().all(|c| c.faithful),
            within,
            accuracy,
        });
    }
    Ok(rows)
}

/// The benchmark as Markdown: a row per trace, then the totals.
pub fn markdown(rows: &[TraceAccuracy]) -> String {
    use std::fmt::Write as _;
    let mut out = String::from(
        "# The advisor's accuracy\n\nEvery layout of each trace's components replayed on the \
         hybrid backend. Error: |predicted / measured − 1|. First choice: the model's best \
         layout's measured time over the fastest layout's.\n\n| trace | ops | components | \
         layouts | median error | worst error | within ±20 % | first choice / fastest |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let a = &r.accuracy;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.0} % | {:.0} % | {} of {} | {:.3}×{} |",
            r.name,
            format_count(r.ops),
            r.components,
            a.layouts.len(),
            a.median_error * 100.0,
            a.worst_error * 100.0,
            r.within,
            a.layouts.len(),
            a.advised_over_fastest,
            if r.faithful { "" } else { " (diverged)" }
        );
    }
    let layouts: usize = rows.iter().map(|r| r.accuracy.layouts.len()).sum();
    let within: usize = rows.iter().map(|r| r.within).sum();
    let close = rows
        .iter()
        .filter(|r| r.accuracy.advised_over_fastest <= 1.05)
        .count();
    let _ = writeln!(
        out,
        "\n{} traces, {layouts} layouts: {within} predicted within ±20 % of their measured \
         time; the first choice within 5 % of the fastest layout on {close} of {} traces.",
        rows.len(),
        rows.len()
    );
    out
}

/// `ecs-bench advise-accuracy`: measures, prints and writes accuracy.md and accuracy.json.
///
/// # Errors
/// As [`measure`]; a failed calibration or an unwritable output folder.
pub fn run(suite: Suite, args: AccuracyArgs) -> Result<bool, String> {
    let mut say = |line: &str| {
        if !args.no_progress {
            eprintln!("{line}");
        }
    };
    let cache = model::cache_path(&default_out_dir(""));
    let (model, _) = CostModel::load_or_calibrate(&cache, args.recalibrate, &mut |_| {})?;
    let rows = measure(&suite, &args.files, &model, args.runs, &mut say)?;
    let text = markdown(&rows);
    let out = args
        .out
        .unwrap_or_else(|| default_out_dir("advise-accuracy"));
    std::fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    let json = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
    for (name, body) in [("accuracy.md", &text), ("accuracy.json", &json)] {
        let path = out.join(name);
        std::fs::write(&path, body).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    println!("{text}");
    eprintln!("wrote {}/accuracy.md and accuracy.json", out.display());
    Ok(rows.iter().all(|r| r.faithful))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each phase-shifting program's trace has its two phases: structural ops first, then
    /// query runs, over at most the exhaustive limit of components.
    #[test]
    fn the_phase_programs_build_then_join() {
        for (name, program) in PROGRAMS {
            let trace = record(program);
            let profile = Profile::of(&trace);
            assert!(
                profile.touched().len() <= EXHAUSTIVE_REPLAYS_UP_TO,
                "{name}"
            );
            assert!(
                profile.inserts + profile.removes > 0,
                "{name}: a build phase"
            );
            let runs: u64 = profile.shapes.iter().map(|s| s.runs).sum();
            assert!(runs >= 360, "{name}: a play phase of joins ({runs} runs)");
        }
    }
}
