//! The `ecs-bench` command line, for ecs-bench's own workloads and for a program's own.
//!
//! ```text
//! ecs-bench report            # full sizes, a few minutes
//! ecs-bench report --quick    # well under a minute (CI)
//! ecs-bench report --filter seed000 --backend sparse
//! ecs-bench compare --baseline ecs-bench/baseline.json DIR/report.json
//! ecs-bench counts --check ecs-bench/counts-baseline.json   # instruction counts (valgrind)
//! ecs-bench report --update-docs  # full report, then README/guide numbers regenerated from it
//! ecs-bench docs --check          # the docs' numbers match docs/report.json (CI)
//! ecs-bench list
//! ecs-bench replay game.trace --sparse Poisoned,Stunned   # a program's own trace
//! ecs-bench trace-workload community/add_remove add_remove.trace
//! ecs-bench advise game.trace                # which storage each component should use
//! ecs-bench advise-accuracy arena.trace      # the advice's predictions against replays
//! ```
//!
//! A program that defines its own workloads (generic over the storage, see
//! [`Workload`](crate::Workload)) gets the same commands with [`main`] and
//! [`Suite::custom`]; it must install the counting allocator for the heap columns:
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: ecs_bench::alloc_counter::CountingAllocator =
//!     ecs_bench::alloc_counter::CountingAllocator;
//!
//! fn main() -> std::process::ExitCode {
//!     ecs_bench::cli::main(ecs_bench::Suite::custom("my game", my_workloads))
//! }
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::counts::{self, check, Counts};
use crate::report::compare::{self, Baseline, Options};
use crate::report::{self, docs, markdown, model::Report, Config, Suite};
use crate::{Runner, Scale};

#[derive(Parser)]
#[command(version, about = "Identical ECS workloads on every storage backend")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the workloads and write report.md, report.json and SVG charts.
    Report(ReportArgs),
    /// Compare a report's backend ratios with a baseline; exits 1 when a ratio moved too far.
    Compare(CompareArgs),
    /// Count instructions, cache misses, allocations and peak heap of every workload on
    /// every runner under valgrind's callgrind (deterministic; for CI).
    Counts(CountsArgs),
    /// Run one workload once for `counts` (what the counted child process does).
    #[command(hide = true)]
    CountOne(CountOneArgs),
    /// Regenerate the documentation's numbers (README tables, docs/guide.md, ecs-bench's
    /// README) from a report, or check that they match it.
    Docs(DocsArgs),
    /// List workloads and runners.
    List,
    /// Replay a recorded trace on every backend and layout, checking that each replay does
    /// what the program did; writes replay.md, replay.json and replay.svg.
    #[cfg(feature = "replay")]
    Replay(crate::replay::command::ReplayArgs),
    /// Record one of the workloads as a trace file (its set-up and a few runs), to replay
    /// with `replay`.
    #[cfg(feature = "replay")]
    TraceWorkload(crate::replay::command::TraceWorkloadArgs),
    /// Advise which storage each component of a traced program should use: predicted by
    /// a cost model calibrated on this machine, then measured by replaying the candidates;
    /// writes advice.md and advice.json.
    #[cfg(feature = "replay")]
    Advise(crate::advise::command::AdviseArgs),
    /// Measure how good the advice is: every layout of each of a set of traces (workloads,
    /// two programs with a build phase and a play phase, and the files given) replayed,
    /// predictions beside measurements; writes accuracy.md and accuracy.json.
    #[cfg(feature = "replay")]
    AdviseAccuracy(crate::advise::suite::AccuracyArgs),
}

#[derive(Args)]
struct DocsArgs {
    /// The report the numbers come from (default: docs/report.json in the workspace).
    #[arg(long, value_name = "REPORT_JSON")]
    report: Option<PathBuf>,
    /// Fail when a file's generated parts differ from the report's, instead of rewriting.
    #[arg(long)]
    check: bool,
    /// The workspace root (default: the one this program was built in).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

#[derive(Args)]
struct CountsArgs {
    /// Only workloads whose `family/name` contains this (repeatable, case-insensitive).
    #[arg(long, value_name = "SUBSTRING")]
    filter: Vec<String>,
    /// Only these runners (repeatable; default: the backends and the baseline, not the
    /// peer crates: the counts guard this workspace's code).
    #[arg(long, value_name = "NAME")]
    backend: Vec<String>,
    /// Output folder for counts.json and counts.md (default: target/ecs-bench/counts).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Counted children run at once (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Compare with this baseline and fail if a row grew beyond the tolerance.
    #[arg(long, value_name = "BASELINE_JSON")]
    check: Option<PathBuf>,
    /// Write the counts as the new baseline to this file.
    #[arg(long, value_name = "BASELINE_JSON")]
    write_baseline: Option<PathBuf>,
    /// Growth of instructions or estimated cycles that fails `--check` (0.02 = 2 %).
    #[arg(long, default_value_t = check::DEFAULT_TOLERANCE)]
    tolerance: f64,
    /// No line per finished row on stderr.
    #[arg(long)]
    no_progress: bool,
}

#[derive(Args)]
struct CountOneArgs {
    /// The workload's `family/name`.
    workload: String,
    /// The runner's name.
    runner: String,
    /// The size to run at.
    size: usize,
}

#[derive(Args)]
struct ReportArgs {
    /// Shrunk sizes and fewer samples: the whole report in well under a minute.
    #[arg(long)]
    quick: bool,
    /// Only workloads whose `family/name` contains this (repeatable, case-insensitive);
    /// `memory` selects seed 004's memory table, `scaling` seed 001's scaling table.
    #[arg(long, value_name = "SUBSTRING")]
    filter: Vec<String>,
    /// Only these runners (repeatable): a backend name, `baseline`, or `vec` (the reference
    /// backend, not in reports by default).
    #[arg(long, value_name = "NAME")]
    backend: Vec<String>,
    /// Output folder (default: target/ecs-bench/report-full or report-quick).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    no_progress: bool,
    /// Leave the peer ECS crates (hecs, bevy_ecs, shipyard, specs) out: only this workspace's
    /// backends and the baseline run. Building with `--no-default-features` leaves them out
    /// of the binary too.
    #[arg(long)]
    no_peers: bool,
    /// After the report, compare with this baseline and fail if a ratio moved too far.
    #[arg(long, value_name = "BASELINE_JSON")]
    check_baseline: Option<PathBuf>,
    /// After the report, write its ratios as the new baseline to this file.
    #[arg(long, value_name = "BASELINE_JSON")]
    write_baseline: Option<PathBuf>,
    /// Threshold for --check-baseline (a ratio may move by this factor either way).
    #[arg(long, default_value_t = compare::DEFAULT_THRESHOLD)]
    threshold: f64,
    /// Seed 001's scaling table to the seed's 10.24 million entities (about 8 minutes more);
    /// the default stops at 320,000.
    #[arg(long)]
    full_scaling: bool,
    /// After a full report of every workload, keep it as docs/report.json and regenerate
    /// the documentation's numbers from it (see the `docs` command).
    #[arg(long)]
    update_docs: bool,
}

#[derive(Args)]
struct CompareArgs {
    /// The committed baseline (ecs-bench/baseline.json).
    #[arg(long, value_name = "BASELINE_JSON")]
    baseline: PathBuf,
    /// A report.json written by `ecs-bench report`.
    report: PathBuf,
    /// A ratio may move by this factor either way before the comparison fails.
    #[arg(long, default_value_t = compare::DEFAULT_THRESHOLD)]
    threshold: f64,
    /// Workloads whose fastest run is below this many nanoseconds are not compared.
    #[arg(long, default_value_t = compare::NOISE_FLOOR_NS)]
    noise_floor_ns: f64,
}

/// Runs the command line on `suite`: what a program's `main` returns (see the module docs).
pub fn main(suite: Suite) -> ExitCode {
    crate::alloc_counter::keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Report(args) => run_report(suite, args),
        Command::Compare(args) => run_compare(args),
        Command::Counts(args) => run_counts(suite, args),
        Command::CountOne(args) => count_one(suite, args),
        Command::Docs(args) => run_docs(args),
        Command::List => {
            list(suite);
            Ok(true)
        }
        #[cfg(feature = "replay")]
        Command::Replay(args) => crate::replay::command::run_replay(args),
        #[cfg(feature = "replay")]
        Command::TraceWorkload(args) => crate::replay::command::run_trace_workload(suite, args),
        #[cfg(feature = "replay")]
        Command::Advise(args) => crate::advise::command::run_advise(args),
        #[cfg(feature = "replay")]
        Command::AdviseAccuracy(args) => crate::advise::suite::run(suite, args),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

pub(crate) fn default_out_dir(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
        });
    target.join("ecs-bench").join(name)
}

/// The runners named on the command line (default: the reported ones), without the peers
/// when `no_peers`.
fn parse_runners(names: &[String], no_peers: bool) -> Result<Vec<Runner>, String> {
    let runners = if names.is_empty() {
        Runner::reported()
    } else {
        names
            .iter()
            .map(|name| {
                Runner::from_name(name).ok_or_else(|| {
                    let known: Vec<&str> = Runner::all().iter().map(|r| r.name()).collect();
                    format!("unknown backend `{name}` (known: {})", known.join(", "))
                })
            })
            .collect::<Result<_, _>>()?
    };
    Ok(runners
        .into_iter()
        .filter(|r| !(no_peers && matches!(r, Runner::Peer(_))))
        .collect())
}

fn run_report(suite: Suite, args: ReportArgs) -> Result<bool, String> {
    let scale = if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    };
    let config = Config {
        suite,
        scale,
        filters: args.filter,
        runners: parse_runners(&args.backend, args.no_peers)?,
        progress: !args.no_progress,
        full_scaling: args.full_scaling,
    };
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build; times are meaningless (use --release)");
    }
    let report = report::run(&config);
    let out = args
        .out
        .unwrap_or_else(|| default_out_dir(&format!("report-{scale}")));
    report::write(&report, &out).map_err(|e| format!("writing {}: {e}", out.display()))?;
    println!("{}", markdown::render(&report));
    let out = out.canonicalize().unwrap_or(out);
    println!("Report written to {}", out.display());
    eprintln!("{}", report.time_line());

    let mut ok = report.checksums_agree();
    if !ok {
        eprintln!("error: runners disagree on a checksum (rows marked ✗)");
    }
    if args.update_docs {
        if scale != Scale::Full || !report.meta.filters.is_empty() {
            return Err(
                "--update-docs needs a full report of every workload (no --quick, \
                        no --filter)"
                    .into(),
            );
        }
        let root = workspace_root();
        write_file(&root.join(docs::REPORT), &to_json(&report)?)?;
        ok &= update_docs(&report, &root, false)?;
    }
    if let Some(path) = args.write_baseline {
        let baseline = Baseline::from_report(&report);
        let text = serde_json::to_string_pretty(&baseline).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        println!("Baseline written to {}", path.display());
    }
    if let Some(path) = args.check_baseline {
        let baseline = read_baseline(&path)?;
        let options = Options {
            threshold: args.threshold,
            ..Options::default()
        };
        ok &= print_comparison(&compare::compare_report(&baseline, &report, options));
    }
    Ok(ok)
}

/// The workspace this program was built in.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run_docs(args: DocsArgs) -> Result<bool, String> {
    let root = args.root.unwrap_or_else(workspace_root);
    let path = args.report.unwrap_or_else(|| root.join(docs::REPORT));
    let report: Report = read_json(&path)?;
    update_docs(&report, &root, args.check)
}

/// Rewrites (or, with `check`, compares) the generated parts of every file of
/// [`docs::FILES`] under `root`; false when a check found a difference.
fn update_docs(report: &Report, root: &Path, check: bool) -> Result<bool, String> {
    let mut ok = true;
    let advice = std::fs::read_to_string(root.join(docs::ADVICE)).ok();
    for file in docs::FILES {
        let path = root.join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let updated = docs::update_with(&text, report, advice.as_deref())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if updated == text {
            println!("{file}: up to date");
        } else if check {
            println!(
                "{file}: its generated numbers differ from the report's; regenerate with\n  \
                 cargo run -p ecs-bench -- docs"
            );
            ok = false;
        } else {
            write_file(&path, &updated)?;
            println!("{file}: regenerated");
        }
    }
    Ok(ok)
}

fn read_baseline(path: &Path) -> Result<Baseline, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn run_compare(args: CompareArgs) -> Result<bool, String> {
    let baseline = read_baseline(&args.baseline)?;
    let path = &args.report;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let report: Report =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let options = Options {
        threshold: args.threshold,
        noise_floor_ns: args.noise_floor_ns,
    };
    Ok(print_comparison(&compare::compare_report(
        &baseline, &report, options,
    )))
}

fn print_comparison(comparison: &compare::Comparison) -> bool {
    for note in &comparison.notes {
        println!("note: {note}");
    }
    for failure in &comparison.failures {
        println!("FAIL: {failure}");
    }
    if comparison.passed() {
        println!(
            "baseline comparison passed: {} (workload, runner) ratios within threshold",
            comparison.compared
        );
    } else {
        println!(
            "baseline comparison FAILED: {} of {} ratios moved; if the change is intended, \
             refresh the baseline with:\n  {}",
            comparison.failures.len(),
            comparison.compared,
            compare::REFRESH_COMMAND
        );
    }
    comparison.passed()
}

fn list(suite: Suite) {
    println!("runners (default report): {}", names(&Runner::reported()));
    println!("runners (all):            {}", names(&Runner::all()));
    println!();
    for w in (suite.workloads)() {
        let info = w.info();
        let sizes = info.sizes;
        println!(
            "{:<34} full {:>9} / quick {:>7} {:<24} {}",
            info.path(),
            sizes.full,
            sizes.quick,
            info.unit,
            info.description
        );
    }
    if suite.memory_table {
        println!("{:<34} seed 004 memory table", report::MEMORY_TABLE_PATH);
    }
}

fn names(runners: &[Runner]) -> String {
    runners
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn run_counts(suite: Suite, args: CountsArgs) -> Result<bool, String> {
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build; counts differ from a release build's baseline");
    }
    let out = args.out.unwrap_or_else(|| default_out_dir("counts"));
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let config = counts::Config {
        filters: args.filter,
        runners: parse_runners(&args.backend, args.backend.is_empty())?,
        jobs,
        scratch: out.join("callgrind"),
        progress: !args.no_progress,
    };
    let exe = std::env::current_exe().map_err(|e| format!("finding this program: {e}"))?;
    let workloads = (suite.workloads)();
    let counts = counts::run(&exe, &workloads, &config)?;
    let comparison = match &args.check {
        Some(path) => Some(check::compare(
            &read_json::<Counts>(path)?,
            &counts,
            args.tolerance,
        )),
        None => None,
    };
    let table = counts::markdown::render(&counts, comparison.as_ref());
    write_file(&out.join("counts.md"), &table)?;
    write_file(&out.join("counts.json"), &to_json(&counts)?)?;
    println!("{table}");
    println!("Counts written to {}", out.display());

    let disagreements = counts.checksum_disagreements();
    for workload in &disagreements {
        eprintln!("error: runners disagree on the checksum of {workload}");
    }
    if let Some(path) = args.write_baseline {
        write_file(&path, &to_json(&counts)?)?;
        println!("Baseline written to {}", path.display());
    }
    let passed = comparison.as_ref().is_none_or(check::Comparison::passed);
    if !passed {
        println!(
            "counts check FAILED; if the change is intended, refresh the baseline with:\n  {}",
            refresh_command(&suite, args.check.as_deref())
        );
    } else if comparison.is_some() {
        println!(
            "counts check passed: {} rows within {:.1} %",
            counts.rows.len(),
            args.tolerance * 100.0
        );
    }
    Ok(passed && disagreements.is_empty())
}

/// How to refresh the counts baseline that `checked` names: ecs-bench's own command for its
/// suite; for a program's own suite (which ecs-bench cannot know how to build), the same
/// counts command with `--write-baseline` in place of `--check`.
fn refresh_command(suite: &Suite, checked: Option<&Path>) -> String {
    match checked {
        Some(path) if suite.name != Suite::builtin().name => format!(
            "this program's `counts` command again, with `--write-baseline {0}` in place of \
             `--check {0}`",
            path.display()
        ),
        _ => check::REFRESH_COMMAND.to_owned(),
    }
}

fn count_one(suite: Suite, args: CountOneArgs) -> Result<bool, String> {
    let workloads = (suite.workloads)();
    let workload = workloads
        .iter()
        .find(|w| w.info().path() == args.workload)
        .ok_or_else(|| format!("unknown workload `{}`", args.workload))?;
    let runner = Runner::from_name(&args.runner)
        .ok_or_else(|| format!("unknown runner `{}`", args.runner))?;
    let report = counts::run_child(workload.as_ref(), runner, args.size)?;
    println!(
        "{}",
        serde_json::to_string(&report).map_err(|e| e.to_string())?
    );
    Ok(true)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_peers_leaves_the_peer_crates_out() {
        let without = parse_runners(&[], true).unwrap();
        assert!(without.iter().all(|r| !matches!(r, Runner::Peer(_))));
        assert!(without.contains(&Runner::Baseline));
        let with = parse_runners(&[], false).unwrap();
        assert_eq!(with, Runner::reported());
        let named = parse_runners(&["sparse".into(), "baseline".into()], true).unwrap();
        assert_eq!(named.len(), 2);
        assert!(parse_runners(&["nope".into()], false).is_err());
    }

    #[test]
    fn a_custom_suite_is_told_to_refresh_its_own_baseline() {
        let own = refresh_command(&Suite::builtin(), Some(Path::new("base.json")));
        assert_eq!(own, check::REFRESH_COMMAND);
        let custom = Suite::custom("my game", Vec::new);
        let told = refresh_command(&custom, Some(Path::new("game-counts.json")));
        assert!(told.contains("--write-baseline game-counts.json"), "{told}");
        assert!(!told.contains("ecs-bench"), "{told}");
    }
}
