//! `ecs-bench report`: run every selected workload on every selected runner, then write
//! `report.md`, `report.json` and the SVG charts into one folder.

pub mod compare;
pub mod docs;
pub mod markdown;
pub mod measure;
pub mod model;
pub mod scaling;
pub mod svg;
pub mod targets;

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use indicatif::{ProgressBar, ProgressStyle};

use crate::alloc_counter;
use crate::backend::{Backend, Runner};
use crate::workload::{DynWorkload, Family, Scale};
use crate::workloads::{self, seed001, seed004_memory};
use measure::{measure_workload, Measured, Settings};
use model::{AnchorReport, Machine, Meta, Report, RunnerResult, WorkloadReport, SCHEMA};

/// The name `--filter` matches for seed 004's memory table.
pub const MEMORY_TABLE_PATH: &str = "seed004/memory_table";

/// A set of workloads a report or a counts run chooses from: ecs-bench's own
/// ([`Suite::builtin`]), or a program's own workloads ([`Suite::custom`]), which get the same
/// report, counts and baseline checks (see [`crate::cli`]).
#[derive(Clone, Copy, Debug)]
pub struct Suite {
    /// What the suite is called in reports.
    pub name: &'static str,
    /// Every workload, in report order.
    pub workloads: fn() -> Vec<Box<dyn DynWorkload>>,
    /// Whether the suite includes the built-in tables (seed 004's memory table, seed 001's
    /// scaling table).
    pub memory_table: bool,
}

impl Suite {
    /// ecs-bench's workloads ([`workloads::registry`]) and memory table.
    pub fn builtin() -> Suite {
        Suite {
            name: "ecs-bench",
            workloads: workloads::registry,
            memory_table: true,
        }
    }

    /// A program's own workloads, under `name`: no memory table.
    pub fn custom(name: &'static str, workloads: fn() -> Vec<Box<dyn DynWorkload>>) -> Suite {
        Suite {
            name,
            workloads,
            memory_table: false,
        }
    }
}

/// The name `--filter` matches for seed 001's scaling table.
pub const SCALING_TABLE_PATH: &str = "seed001/scaling_table";

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The workloads to choose from.
    pub suite: Suite,
    /// Workload sizes.
    pub scale: Scale,
    /// Case-insensitive substrings of `family/workload`; empty selects everything.
    pub filters: Vec<String>,
    /// Runners, in column order.
    pub runners: Vec<Runner>,
    /// Whether to show progress on stderr: a bar on a terminal, otherwise one line per
    /// finished workload (so a piped or logged run shows where it is).
    pub progress: bool,
    /// Whether seed 001's scaling table goes to the seed's 10.24M entities (see
    /// [`seed001::ladder`]).
    pub full_scaling: bool,
}

impl Config {
    /// Everything, on the default runners, at `scale`.
    pub fn new(scale: Scale) -> Config {
        Config {
            suite: Suite::builtin(),
            scale,
            filters: Vec::new(),
            runners: Runner::reported(),
            progress: false,
            full_scaling: false,
        }
    }

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

/// The selected workloads, in registry order.
pub fn selected_workloads(config: &Config) -> Vec<Box<dyn DynWorkload>> {
    (config.suite.workloads)()
        .into_iter()
        .filter(|w| config.selects(&w.info().path()))
        .collect()
}

fn progress_bar(config: &Config, len: u64) -> ProgressBar {
    if !config.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template(
        "[{elapsed_precise}] {bar:32.cyan/blue} {pos}/{len} workloads · {wide_msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar
}

/// Runs the report (see the module docs); nothing is written.
pub fn run(config: &Config) -> Report {
    // Start rayon's pool now so its threads are not counted against the first workload.
    rayon::join(|| (), || ());
    let selected = selected_workloads(config);
    let with_memory = config.suite.memory_table && config.selects(MEMORY_TABLE_PATH);
    let with_scaling = config.suite.memory_table && config.selects(SCALING_TABLE_PATH);
    let extra = u64::from(with_memory) + u64::from(with_scaling);
    let bar = progress_bar(config, selected.len() as u64 + extra);
    let settings = Settings::for_scale(config.scale);

    let mut reports = Vec::with_capacity(selected.len());
    for workload in &selected {
        let info = workload.info();
        let size = info.sizes.get(config.scale);
        let started = Instant::now();
        let measured = measure_workload(
            workload.as_ref(),
            &config.runners,
            size,
            &settings,
            &mut |message| bar.set_message(message.to_owned()),
        );
        if !measured.is_empty() {
            let mut report = workload_report(workload.as_ref(), size, &measured);
            report.seconds = started.elapsed().as_secs_f64();
            reports.push(report);
        }
        bar.inc(1);
        if config.progress && bar.is_hidden() {
            // Not a terminal (piped, CI log): one line per workload instead of the bar.
            eprintln!(
                "[{:>4.0} s] {}/{} {}",
                bar.elapsed().as_secs_f64(),
                bar.position(),
                bar.length().unwrap_or_default(),
                info.path()
            );
        }
    }
    let mut table_seconds = Vec::new();
    let mut timed = |path: &str, started: Instant| {
        table_seconds.push((path.to_owned(), started.elapsed().as_secs_f64()));
        table_line(config, &bar, path);
    };
    let memory_table = with_memory.then(|| {
        bar.set_message("seed 004 memory table");
        let started = Instant::now();
        let table = seed004_memory::memory_table(
            Backend::sparse_set(),
            seed004_memory::entities_for(config.scale),
        );
        bar.inc(1);
        timed(MEMORY_TABLE_PATH, started);
        table
    });
    let entity_index_table = with_scaling.then(|| {
        let started = Instant::now();
        let backends: Vec<Backend> = config
            .runners
            .iter()
            .filter_map(|r| match r {
                Runner::Backend(b) => Some(*b),
                _ => None,
            })
            .collect();
        let table = seed001::scaling_table(
            &backends,
            config.scale,
            config.full_scaling,
            &mut |message| bar.set_message(message.to_owned()),
        );
        bar.inc(1);
        timed(SCALING_TABLE_PATH, started);
        table
    });
    bar.finish_and_clear();

    Report {
        schema: SCHEMA,
        meta: Meta {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            scale: config.scale,
            machine: Machine::current(),
            date_utc: utc_now(),
            runners: config.runners.iter().map(|r| r.name().to_owned()).collect(),
            filters: config.filters.clone(),
            counting_allocator: alloc_counter::is_installed(),
            debug_build: cfg!(debug_assertions),
        },
        workloads: reports,
        memory_table,
        entity_index_table,
        table_seconds,
    }
}

/// One progress line per finished table when the bar is hidden (piped output).
fn table_line(config: &Config, bar: &ProgressBar, path: &str) {
    if config.progress && bar.is_hidden() {
        eprintln!(
            "[{:>4.0} s] {}/{} {path}",
            bar.elapsed().as_secs_f64(),
            bar.position(),
            bar.length().unwrap_or_default()
        );
    }
}

fn workload_report(
    workload: &dyn DynWorkload,
    size: usize,
    measured: &[Measured],
) -> WorkloadReport {
    let info = workload.info();
    let fastest = measured
        .iter()
        .map(Measured::median_ns)
        .fold(f64::INFINITY, f64::min);
    let first_checksum = measured.first().map(|m| m.checksum);
    let checksums_agree = measured
        .iter()
        .all(|m| Some(m.checksum) == first_checksum && m.checksum_stable);
    let results = measured
        .iter()
        .map(|m| {
            let median = m.median_ns();
            RunnerResult {
                runner: m.runner.name().to_owned(),
                median_ns: median,
                min_ns: m.samples_ns.iter().copied().fold(f64::INFINITY, f64::min),
                max_ns: m.samples_ns.iter().copied().fold(0.0, f64::max),
                samples: m.samples_ns.len(),
                batch: m.batch,
                peak_bytes: m.heap.peak_bytes,
                allocations: m.heap.allocations,
                checksum: format!("{:016x}", m.checksum),
                checksum_stable: m.checksum_stable,
                ratio_to_fastest: if fastest > 0.0 { median / fastest } else { 1.0 },
                bytes: m.bytes,
                // In round order, so only when no round is missing (they pair up by
                // position); to a tenth of a nanosecond, finer than any sample resolves, to
                // keep the committed report's numbers short.
                samples_ns: if m.every_round {
                    m.samples_ns
                        .iter()
                        .map(|ns| (ns * 10.0).round() / 10.0)
                        .collect()
                } else {
                    Vec::new()
                },
            }
        })
        .collect();
    WorkloadReport {
        name: info.name.clone(),
        family: info.family,
        description: info.description.clone(),
        size,
        unit: info.unit.to_owned(),
        anchor: info.anchor.map(|a| AnchorReport {
            value: a.value.to_owned(),
            source: a.source.to_owned(),
        }),
        note: info.note.map(str::to_owned),
        results,
        checksums_agree,
        seconds: 0.0,
    }
}

/// Writes `report.md`, `report.json`, `chart-<family>.svg` and `memory-heatmap.svg` into
/// `dir` (created if needed) and returns the paths written.
///
/// # Errors
/// Any I/O error; a chart that fails to draw is reported as an I/O error too.
pub fn write(report: &Report, dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let md = dir.join("report.md");
    std::fs::write(&md, markdown::render(report))?;
    written.push(md);
    let json = dir.join("report.json");
    let text = serde_json::to_string_pretty(report).map_err(io::Error::other)?;
    std::fs::write(&json, text + "\n")?;
    written.push(json);
    for family in Family::ALL {
        let members: Vec<&WorkloadReport> = report
            .workloads
            .iter()
            .filter(|w| w.family == family)
            .collect();
        if members.is_empty() {
            continue;
        }
        let path = dir.join(format!("chart-{}.svg", family.key()));
        svg::family_chart(&path, family.title(), &members, &report.meta.runners)
            .map_err(|e| io::Error::other(e.to_string()))?;
        written.push(path);
    }
    if let Some(table) = &report.memory_table {
        let path = dir.join("memory-heatmap.svg");
        svg::memory_heatmap(&path, table).map_err(|e| io::Error::other(e.to_string()))?;
        written.push(path);
    }
    Ok(written)
}

/// The current time as `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// Days since 1970-01-01 to (year, month, day), after Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn filters_are_case_insensitive_substrings() {
        let mut config = Config::new(Scale::Test);
        assert!(config.selects("community/simple_iter"));
        config.filters = vec!["SEED004".into()];
        assert!(config.selects(MEMORY_TABLE_PATH));
        assert!(!config.selects("community/simple_iter"));
    }
}
