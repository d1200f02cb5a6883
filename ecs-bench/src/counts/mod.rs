//! `ecs-bench counts`: deterministic counts of every workload on every runner, for CI.
//!
//! Wall-clock times on a shared two-core machine move by tens of percent between runs, so the
//! timed report can only catch a regression that multiplies a ratio. This module counts
//! instead: each (workload, runner) pair runs once in a child process under valgrind's
//! callgrind, which counts the instructions the timed body executes (and, with its cache
//! simulator, the cache misses) whatever else the machine is doing. The child's own counting
//! allocator adds the allocations and the peak heap of the same body.
//!
//! ```text
//!  ecs-bench counts ──┬─ valgrind --tool=callgrind ecs-bench count-one W R N ─► instructions, misses
//!  (driver, 2 jobs)   │      └─ prepare, step (not counted) ─► counted_run (counted) ─► heap, checksum
//!                     └─ … one child per (workload, runner) … ─► counts.json, counts.md, --check
//! ```
//!
//! Only [`counted_run`] is counted: callgrind starts with collection off and toggles it on
//! entry to and exit from that function. A repeatable workload runs once uncounted first, so
//! the counted run is the steady state the timed report measures. Rayon's pool is built with one thread that is the
//! child's own, so parallel bodies run in a fixed order and no worker spins while waiting.
//!
//! The committed baseline (`ecs-bench/counts-baseline.json`) is compared row by row
//! ([`check`]): CI fails when a row's instructions or estimated cycles grow by more than
//! [`check::DEFAULT_TOLERANCE`], or its allocations or peak heap grow at all.

pub mod callgrind;
pub mod check;
pub mod markdown;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::alloc_counter::Region;
use crate::backend::Runner;
use crate::workload::{DynWorkload, Prepared, Sizes};

/// The version of the counts file format.
pub const SCHEMA: u32 = 1;

/// The size a workload is counted at: a tenth of its quick size, never below its test size.
/// Small enough that the whole set runs under callgrind in a few minutes, large enough that
/// the per-entity work dominates each run's fixed costs (a 2 % slowdown of a per-entity path
/// shows as about that much in the count).
pub fn counted_size(sizes: &Sizes) -> usize {
    (sizes.quick / 10).max(sizes.test)
}

/// The counts of one workload on one runner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountRow {
    /// `family/name` of the workload.
    pub workload: String,
    /// The runner's name (`archetype`, `sparse`, `hybrid`, `baseline`, ...).
    pub runner: String,
    /// The size the workload ran at ([`counted_size`]).
    pub size: usize,
    /// Instructions executed by the timed body (callgrind's `Ir`).
    pub instructions: u64,
    /// First-level cache misses (instruction and data, reads and writes).
    pub l1_misses: u64,
    /// Last-level cache misses (instruction and data, reads and writes).
    pub ll_misses: u64,
    /// `L1 hits + 5 × LL hits + 35 × RAM accesses`, the usual estimate of cycles from the
    /// cache simulation's counts.
    pub estimated_cycles: u64,
    /// Heap allocations (reallocations included) made by the timed body.
    pub allocations: u64,
    /// The highest live heap bytes the timed body reached above its starting level.
    pub peak_heap_bytes: usize,
    /// The workload's checksum after the run; every runner of a workload must agree.
    pub checksum: u64,
}

/// A whole counts run: what counted it and every row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// [`SCHEMA`].
    pub schema: u32,
    /// The counting tool's version line (`valgrind-3.19.0`).
    pub tool: String,
    /// Rows in workload order, runners in column order within a workload.
    pub rows: Vec<CountRow>,
}

impl Counts {
    /// Workloads whose runners disagree on the checksum.
    pub fn checksum_disagreements(&self) -> Vec<String> {
        let mut out = Vec::new();
        for row in &self.rows {
            let first = self.rows.iter().find(|r| r.workload == row.workload);
            if first.is_some_and(|first| first.checksum != row.checksum)
                && !out.contains(&row.workload)
            {
                out.push(row.workload.clone());
            }
        }
        out
    }
}

/// What the child process reports on its standard output (one JSON line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildReport {
    /// Heap allocations made by the counted body.
    pub allocations: u64,
    /// Peak heap bytes above the starting level.
    pub peak_heap_bytes: usize,
    /// The workload's checksum.
    pub checksum: u64,
}

/// The body callgrind counts: one run of a prepared workload. Never inlined, so callgrind
/// finds it by name (`--toggle-collect`); see the module docs.
#[inline(never)]
pub fn counted_run(prepared: &mut dyn Prepared) {
    prepared.run();
}

/// The name callgrind's `--toggle-collect` matches (wildcards allowed): [`counted_run`].
pub const COUNTED_SYMBOL: &str = "*ecs_bench::counts::counted_run*";

/// The child's side: prepares `workload` on `runner` at `size`, runs it once through
/// [`counted_run`] and returns its heap usage and checksum.
///
/// A repeatable workload (one whose state can run again) runs once untimed first, as the
/// timed report's batches do: the counted run is then a steady-state run, without the
/// one-time work of a first run (building and caching query states, growing buffers).
///
/// # Errors
/// When `runner` does not run `workload`.
pub fn run_child(
    workload: &dyn DynWorkload,
    runner: Runner,
    size: usize,
) -> Result<ChildReport, String> {
    single_threaded_rayon();
    let mut prepared = workload.prepare_on(runner, size).ok_or_else(|| {
        format!(
            "runner `{}` does not run `{}`",
            runner.name(),
            workload.info().path()
        )
    })?;
    if workload.info().repeatable {
        prepared.step();
        prepared.run();
    }
    prepared.step();
    let region = Region::start();
    counted_run(prepared.as_mut());
    let heap = region.finish();
    Ok(ChildReport {
        allocations: heap.allocations,
        peak_heap_bytes: heap.peak_bytes,
        checksum: prepared.checksum(),
    })
}

/// Makes rayon's global pool one thread, the caller's own: parallel bodies then run in one
/// fixed order, and no worker burns counted instructions spinning for work.
fn single_threaded_rayon() {
    // An error means the pool exists already (a second call in one process): keep it.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global();
}

/// What to count.
#[derive(Clone, Debug)]
pub struct Config {
    /// Case-insensitive substrings of `family/workload`; empty selects everything.
    pub filters: Vec<String>,
    /// Runners, in column order.
    pub runners: Vec<Runner>,
    /// Children run at once.
    pub jobs: usize,
    /// Where callgrind's output files go.
    pub scratch: PathBuf,
    /// Whether to print one line per finished row on stderr.
    pub progress: bool,
}

impl Config {
    /// Whether `path` (`family/name`) is selected by the filters.
    pub fn selects(&self, path: &str) -> bool {
        let path = path.to_ascii_lowercase();
        self.filters.is_empty()
            || self
                .filters
                .iter()
                .any(|f| path.contains(&f.to_ascii_lowercase()))
    }
}

/// One child to run: a workload on a runner.
#[derive(Clone, Debug)]
struct Job {
    index: usize,
    workload: String,
    runner: String,
    size: usize,
}

/// Counts every selected (workload, runner) pair of `workloads` by running `exe count-one`
/// under callgrind, `config.jobs` at a time (see the module docs). `exe` is a program whose
/// command line accepts `count-one` as the `ecs-bench` binary does
/// ([`crate::cli`] gives any program that command line).
///
/// # Errors
/// When valgrind is missing or a child fails; the message names the pair.
pub fn run(
    exe: &Path,
    workloads: &[Box<dyn DynWorkload>],
    config: &Config,
) -> Result<Counts, String> {
    let tool = callgrind::version()?;
    std::fs::create_dir_all(&config.scratch)
        .map_err(|e| format!("{}: {e}", config.scratch.display()))?;
    let valgrind = callgrind::program()?;
    stage_program(exe, &config.scratch)?;
    let jobs = jobs(workloads, config);
    let results: Mutex<Vec<Option<Result<CountRow, String>>>> = Mutex::new(vec![None; jobs.len()]);
    let next = Mutex::new(0usize);
    let total = jobs.len();
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.max(1) {
            scope.spawn(|| loop {
                let job = {
                    let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
                    let Some(job) = jobs.get(*next) else { break };
                    *next += 1;
                    job.clone()
                };
                let result = count_job(&valgrind, &job, &config.scratch);
                let mut results = results.lock().unwrap_or_else(|e| e.into_inner());
                if config.progress {
                    let done = results.iter().filter(|r| r.is_some()).count() + 1;
                    match &result {
                        Ok(row) => eprintln!(
                            "[{done}/{total}] {} on {}: {} instructions",
                            row.workload, row.runner, row.instructions
                        ),
                        Err(e) => eprintln!("[{done}/{total}] {e}"),
                    }
                }
                results[job.index] = Some(result);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let rows = results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("a job was not run".to_owned())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Counts {
        schema: SCHEMA,
        tool,
        rows,
    })
}

fn jobs(workloads: &[Box<dyn DynWorkload>], config: &Config) -> Vec<Job> {
    let mut jobs = Vec::new();
    for workload in workloads {
        let info = workload.info();
        if !config.selects(&info.path()) {
            continue;
        }
        for &runner in &config.runners {
            if info.runs_on(runner) {
                jobs.push(Job {
                    index: jobs.len(),
                    workload: info.path(),
                    runner: runner.name().to_owned(),
                    size: counted_size(&info.sizes),
                });
            }
        }
    }
    jobs
}

/// The name the counted program is copied to inside the scratch folder (see [`count_job`]).
const COUNTED_PROGRAM: &str = "counted-program";

/// Copies `exe` into `scratch` under a fixed name, for [`count_job`].
fn stage_program(exe: &Path, scratch: &Path) -> Result<(), String> {
    let staged = scratch.join(COUNTED_PROGRAM);
    let _ = std::fs::remove_file(&staged);
    std::fs::copy(exe, &staged)
        .map(|_| ())
        .map_err(|e| format!("copying {} to {}: {e}", exe.display(), staged.display()))
}

/// Runs one child under callgrind and reads its counts.
///
/// The child sees the same process image wherever and by whomever it is run: the program is
/// the staged copy `./counted-program` run from the scratch folder, with an empty environment
/// and an output file name of fixed length. Where the program lives, the caller's
/// environment variables and the output path would otherwise change the bytes on the child's
/// initial stack, and with them the alignment of buffers that `memcpy` and friends handle in
/// a few instructions more or less (a dozen instructions in 150,000 were seen to move).
fn count_job(valgrind: &Path, job: &Job, scratch: &Path) -> Result<CountRow, String> {
    let out_name = format!("callgrind.{:06}.out", job.index);
    let out_file = scratch.join(&out_name);
    let mut command = Command::new(valgrind);
    command
        .current_dir(scratch)
        .env_clear()
        .args(callgrind::arguments(Path::new(&out_name)))
        .arg(format!("./{COUNTED_PROGRAM}"))
        .args([
            "count-one",
            &job.workload,
            &job.runner,
            &job.size.to_string(),
        ]);
    let output = command
        .output()
        .map_err(|e| format!("{} on {}: running valgrind: {e}", job.workload, job.runner))?;
    if !output.status.success() {
        return Err(format!(
            "{} on {}: the counted child failed ({}):\n{}",
            job.workload,
            job.runner,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let child: ChildReport = serde_json::from_str(line).map_err(|e| {
        format!(
            "{} on {}: unreadable child report `{line}`: {e}",
            job.workload, job.runner
        )
    })?;
    let text =
        std::fs::read_to_string(&out_file).map_err(|e| format!("{}: {e}", out_file.display()))?;
    let events =
        callgrind::parse_totals(&text).map_err(|e| format!("{}: {e}", out_file.display()))?;
    let _ = std::fs::remove_file(&out_file);
    Ok(CountRow {
        workload: job.workload.clone(),
        runner: job.runner.clone(),
        size: job.size,
        instructions: events.instructions,
        l1_misses: events.l1_misses(),
        ll_misses: events.ll_misses(),
        estimated_cycles: events.estimated_cycles(),
        allocations: child.allocations,
        peak_heap_bytes: child.peak_heap_bytes,
        checksum: child.checksum,
    })
}
