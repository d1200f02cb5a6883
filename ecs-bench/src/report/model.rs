//! The report's data, as written to `report.json` (and read back by `ecs-bench compare`).

use serde::{Deserialize, Serialize};

use crate::workload::{Family, Scale};
use crate::workloads::seed001::ScalingTable;
use crate::workloads::seed004_memory::MemoryTable;

/// Version of the JSON layout; bump when a field changes meaning.
pub const SCHEMA: u32 = 1;

/// A whole report.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// [`SCHEMA`] at the time of writing.
    pub schema: u32,
    /// Where and how it was measured.
    pub meta: Meta,
    /// One entry per workload run.
    pub workloads: Vec<WorkloadReport>,
    /// Seed 004's memory table, when selected.
    pub memory_table: Option<MemoryTable>,
    /// Seed 001's scaling table (prototype chain vs legacy index), when selected.
    #[serde(default)]
    pub entity_index_table: Option<ScalingTable>,
    /// Wall-clock seconds spent on each table (`seed004/memory_table`,
    /// `seed001/scaling_table`), set-up included.
    #[serde(default)]
    pub table_seconds: Vec<(String, f64)>,
}

impl Report {
    /// Whether every workload's runners agreed on the checksum.
    pub fn checksums_agree(&self) -> bool {
        self.workloads.iter().all(|w| w.checksums_agree)
    }

    /// Wall-clock seconds spent per family (its workloads and its tables), in family
    /// order, families that ran only.
    pub fn family_seconds(&self) -> Vec<(Family, f64)> {
        Family::ALL
            .iter()
            .map(|&family| {
                let workloads: f64 = self
                    .workloads
                    .iter()
                    .filter(|w| w.family == family)
                    .map(|w| w.seconds)
                    .sum();
                let tables: f64 = self
                    .table_seconds
                    .iter()
                    .filter(|(path, _)| path.starts_with(family.key()))
                    .map(|(_, s)| s)
                    .sum();
                (family, workloads + tables)
            })
            .filter(|&(_, seconds)| seconds > 0.0)
            .collect()
    }

    /// Wall-clock seconds spent measuring, in all.
    pub fn total_seconds(&self) -> f64 {
        self.family_seconds().iter().map(|(_, s)| s).sum()
    }

    /// `Measuring took 171 s: community 40 s (23 %), …`: where a run's time went.
    pub fn time_line(&self) -> String {
        let total = self.total_seconds();
        let parts: Vec<String> = self
            .family_seconds()
            .iter()
            .map(|&(family, s)| {
                format!(
                    "{} {s:.0} s ({:.0} %)",
                    family.key(),
                    100.0 * s / total.max(f64::MIN_POSITIVE)
                )
            })
            .collect();
        format!("Measuring took {total:.0} s: {}", parts.join(", "))
    }
}

/// The machine a report was measured on.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Machine {
    /// CPU model name (`/proc/cpuinfo`, as `lscpu` shows it).
    pub cpu: String,
    /// Logical cores available to the process.
    pub logical_cores: usize,
    /// Operating system and architecture.
    pub os: String,
}

impl Machine {
    /// Describes this machine.
    pub fn current() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown CPU".to_owned());
        Machine {
            cpu,
            logical_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        }
    }
}

impl std::fmt::Display for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}, {} logical cores, {}",
            self.cpu, self.logical_cores, self.os
        )
    }
}

/// How a report was made.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    /// The ecs-bench version.
    pub version: String,
    /// Workload sizes used.
    pub scale: Scale,
    /// The machine.
    pub machine: Machine,
    /// When, as `YYYY-MM-DD HH:MM UTC`.
    pub date_utc: String,
    /// Runners in the report, in column order.
    pub runners: Vec<String>,
    /// `--filter` values (empty: everything).
    pub filters: Vec<String>,
    /// Whether the counting allocator was installed (otherwise heap columns are 0).
    pub counting_allocator: bool,
    /// Whether this was an unoptimised build (times are then meaningless).
    pub debug_build: bool,
}

/// The seed's number for a workload.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct AnchorReport {
    /// The seed's numbers.
    pub value: String,
    /// Where they were measured.
    pub source: String,
}

/// One workload's results.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WorkloadReport {
    /// Workload name.
    pub name: String,
    /// Report section.
    pub family: Family,
    /// What is timed.
    pub description: String,
    /// Size parameter used.
    pub size: usize,
    /// What the size counts.
    pub unit: String,
    /// The seed's numbers (for the full size).
    pub anchor: Option<AnchorReport>,
    /// Caveat.
    pub note: Option<String>,
    /// One entry per runner, in runner order.
    pub results: Vec<RunnerResult>,
    /// Whether every runner (and every run) produced the same checksum.
    pub checksums_agree: bool,
    /// Wall-clock seconds the report spent on the workload: set-ups, calibration runs and
    /// samples on every runner.
    #[serde(default)]
    pub seconds: f64,
}

impl WorkloadReport {
    /// `family/name`.
    pub fn path(&self) -> String {
        format!("{}/{}", self.family.key(), self.name)
    }

    /// The fastest runner's median, in nanoseconds.
    pub fn fastest_ns(&self) -> f64 {
        self.results
            .iter()
            .map(|r| r.median_ns)
            .fold(f64::INFINITY, f64::min)
    }
}

/// One runner's result for one workload.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunnerResult {
    /// Runner name.
    pub runner: String,
    /// Median time per run.
    pub median_ns: f64,
    /// Fastest sample.
    pub min_ns: f64,
    /// Slowest sample.
    pub max_ns: f64,
    /// Samples taken.
    pub samples: usize,
    /// Runs per sample.
    pub batch: usize,
    /// Peak live heap bytes above the starting level during one run.
    pub peak_bytes: usize,
    /// Allocations (reallocations included) during one run.
    pub allocations: u64,
    /// The run's checksum, hex.
    pub checksum: String,
    /// Whether this runner repeated its own checksum on every run.
    pub checksum_stable: bool,
    /// `median_ns` over the fastest runner's median.
    pub ratio_to_fastest: f64,
    /// Bytes one run wrote or read, for throughput workloads (the snapshot ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Time per run of every sample, in nanoseconds to a tenth, in the order taken. Sample
    /// `k` of every runner of a workload was taken in round `k`, which times each runner
    /// once in turn, so two runners' samples pair up by position, each pair taken within
    /// one round (see [`super::targets::Evaluation::rounds`]). Empty when a round gave this
    /// runner no sample, and in a report written before the samples were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ns: Vec<f64>,
}

impl RunnerResult {
    /// Throughput in megabytes (10^6 bytes) per second, for throughput workloads.
    pub fn mb_per_s(&self) -> Option<f64> {
        self.bytes
            .map(|b| b as f64 / 1e6 / (self.median_ns.max(1e-9) / 1e9))
    }
}
