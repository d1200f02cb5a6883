//! `ecs-bench`: runs every workload on every storage backend and writes the comparison.
//!
//! ```text
//! cargo run --release -p ecs-bench -- report            # full sizes, a few minutes
//! cargo run --release -p ecs-bench -- report --quick    # well under a minute (CI)
//! cargo run --release -p ecs-bench -- report --filter seed000 --backend sparse
//! cargo run --release -p ecs-bench -- compare --baseline ecs-bench/baseline.json DIR/report.json
//! cargo run --release -p ecs-bench -- list
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use ecs_bench::alloc_counter::CountingAllocator;
use ecs_bench::report::compare::{self, Baseline, Options};
use ecs_bench::report::{self, markdown, model::Report, Config};
use ecs_bench::{workloads, Runner, Scale};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[derive(Parser)]
#[command(
    name = "ecs-bench",
    version,
    about = "Identical ECS workloads on every storage backend"
)]
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
    /// List workloads, pending slots and runners.
    List,
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
    /// After the report, compare with this baseline and fail if a ratio moved too far.
    #[arg(long, value_name = "BASELINE_JSON")]
    check_baseline: Option<PathBuf>,
    /// After the report, write its ratios as the new baseline to this file.
    #[arg(long, value_name = "BASELINE_JSON")]
    write_baseline: Option<PathBuf>,
    /// Threshold for --check-baseline (a ratio may move by this factor either way).
    #[arg(long, default_value_t = compare::DEFAULT_THRESHOLD)]
    threshold: f64,
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

fn main() -> ExitCode {
    ecs_bench::alloc_counter::keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Report(args) => run_report(args),
        Command::Compare(args) => run_compare(args),
        Command::List => {
            list();
            Ok(true)
        }
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

fn default_out_dir(scale: Scale) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
        });
    target.join("ecs-bench").join(format!("report-{scale}"))
}

fn parse_runners(names: &[String]) -> Result<Vec<Runner>, String> {
    if names.is_empty() {
        return Ok(Runner::reported());
    }
    names
        .iter()
        .map(|name| {
            Runner::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = Runner::all().iter().map(|r| r.name()).collect();
                format!("unknown backend `{name}` (known: {})", known.join(", "))
            })
        })
        .collect()
}

fn run_report(args: ReportArgs) -> Result<bool, String> {
    let scale = if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    };
    let config = Config {
        scale,
        filters: args.filter,
        runners: parse_runners(&args.backend)?,
        progress: !args.no_progress,
    };
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build; times are meaningless (use --release)");
    }
    let report = report::run(&config);
    let out = args.out.unwrap_or_else(|| default_out_dir(scale));
    report::write(&report, &out).map_err(|e| format!("writing {}: {e}", out.display()))?;
    println!("{}", markdown::render(&report));
    let out = out.canonicalize().unwrap_or(out);
    println!("Report written to {}", out.display());

    let mut ok = report.checksums_agree();
    if !ok {
        eprintln!("error: runners disagree on a checksum (rows marked ✗)");
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

fn list() {
    println!("runners (default report): {}", names(&Runner::reported()));
    println!("runners (all):            {}", names(&Runner::all()));
    println!();
    for w in workloads::registry() {
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
    println!("{:<34} seed 004 memory table", report::MEMORY_TABLE_PATH);
    println!();
    for p in workloads::pending() {
        println!("{}/{}: {}", p.family.key(), p.name, p.reason);
    }
}

fn names(runners: &[Runner]) -> String {
    runners
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(", ")
}
