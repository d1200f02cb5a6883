//! Comparing a report's backend ratios with a committed baseline (what CI runs).
//!
//! Absolute times move with the machine; *ratios between backends measured in one run* mostly
//! do not. For every workload the baseline keeps each backend's time over the fastest
//! backend's (the hand-written `baseline` runner is left out: its small, cache-resident data
//! makes it the noisiest denominator on a shared machine; the peer crates are left out too,
//! so the check is the same with or without them). A new report fails the comparison
//! when, for a runner present in both,
//!
//! ```text
//!   ratio_now / ratio_baseline  >  threshold     or     <  1 / threshold
//! ```
//!
//! with [`DEFAULT_THRESHOLD`] = 3: a backend got three times slower (or faster) *relative to
//! the others*. Real regressions in storage code (a lost chunked loop, an O(1) path turned
//! O(n), a per-entity allocation) move a ratio by 5–100×; repeated runs of `report --quick`
//! on a shared, busy 2-core machine moved these ratios by at most 1.4×, so 3× leaves a wide
//! margin for another host. Both directions fail on purpose: a big improvement means the
//! baseline is stale, and refreshing it in the same change keeps the next regression
//! visible.
//!
//! Both sides' ratios are taken over the fastest runner *present in both files*, so a new
//! backend that is faster than the rest does not move the others' ratios: it is a note until
//! the baseline is refreshed, as the last paragraph says.
//!
//! Workloads whose fastest runner takes less than [`NOISE_FLOOR_NS`] per run (in either
//! file) are skipped: at that scale timer resolution, cache state and the dynamic call into
//! the workload dominate. A checksum disagreement always fails. Workloads or runners that
//! exist on one side only are reported as notes, not failures (a new backend is not a
//! regression; refresh the baseline to start tracking it).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::Report;
use crate::backend::Runner;
use crate::workload::Scale;

/// A ratio may move by this factor either way before the comparison fails.
pub const DEFAULT_THRESHOLD: f64 = 3.0;
/// Workloads whose fastest runner is quicker than this (ns per run) are not compared.
pub const NOISE_FLOOR_NS: f64 = 2_000.0;

/// One runner's ratio for one workload.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct RatioEntry {
    /// Median over the fastest runner's median.
    pub ratio: f64,
    /// The median itself (ns), kept to apply the noise floor.
    pub median_ns: f64,
}

/// The committed baseline: ratios per workload and runner from one `report --quick`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Baseline {
    /// Layout version.
    pub schema: u32,
    /// Scale of the report the ratios come from (compare like with like).
    pub scale: Scale,
    /// Machine of that report, for the record.
    pub machine: String,
    /// How to refresh this file.
    pub refresh: String,
    /// `family/workload` → runner → ratio.
    pub ratios: BTreeMap<String, BTreeMap<String, RatioEntry>>,
}

/// The command that rewrites the committed baseline (documented in the README and the file).
/// The `counts` profile (release code in one unit) is the build CI already has from the
/// instruction counts, so the check costs no second optimised build.
pub const REFRESH_COMMAND: &str =
    "cargo run --profile counts -p ecs-bench --no-default-features -- \
     report --quick --write-baseline ecs-bench/baseline.json";

impl Baseline {
    /// The ratios of `report` between this workspace's backends (see the module docs): the
    /// hand-written baseline and the peer crates are left out (so a report with or without
    /// peers gives the same ratios), and so are workloads with fewer than two backends.
    pub fn from_report(report: &Report) -> Baseline {
        let ratios = report
            .workloads
            .iter()
            .filter_map(|w| {
                let ecs: Vec<_> = w
                    .results
                    .iter()
                    .filter(|r| matches!(Runner::from_name(&r.runner), Some(Runner::Backend(_))))
                    .collect();
                if ecs.len() < 2 {
                    return None;
                }
                let fastest = ecs
                    .iter()
                    .map(|r| r.median_ns)
                    .fold(f64::INFINITY, f64::min);
                let runners = ecs
                    .iter()
                    .map(|r| {
                        let entry = RatioEntry {
                            ratio: r.median_ns / fastest,
                            median_ns: r.median_ns,
                        };
                        (r.runner.clone(), entry)
                    })
                    .collect();
                Some((w.path(), runners))
            })
            .collect();
        Baseline {
            schema: 1,
            scale: report.meta.scale,
            machine: report.meta.machine.to_string(),
            refresh: REFRESH_COMMAND.to_owned(),
            ratios,
        }
    }
}

/// Comparison options.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// See [`DEFAULT_THRESHOLD`].
    pub threshold: f64,
    /// See [`NOISE_FLOOR_NS`].
    pub noise_floor_ns: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: DEFAULT_THRESHOLD,
            noise_floor_ns: NOISE_FLOOR_NS,
        }
    }
}

/// The outcome of a comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Why it failed (empty: passed).
    pub failures: Vec<String>,
    /// Things worth knowing that do not fail it.
    pub notes: Vec<String>,
    /// (workload, runner) pairs compared.
    pub compared: usize,
}

impl Comparison {
    /// Whether nothing failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

fn fastest(runners: &BTreeMap<String, RatioEntry>) -> f64 {
    runners
        .values()
        .map(|r| r.median_ns)
        .fold(f64::INFINITY, f64::min)
}

/// The fastest median of each side among the runners both sides have (see the module docs).
fn common_fastest(
    base: &BTreeMap<String, RatioEntry>,
    now: &BTreeMap<String, RatioEntry>,
) -> (f64, f64) {
    base.iter()
        .filter_map(|(runner, b)| now.get(runner).map(|n| (b.median_ns, n.median_ns)))
        .fold((f64::INFINITY, f64::INFINITY), |(b, n), (x, y)| {
            (b.min(x), n.min(y))
        })
}

/// Compares `current` ratios with `baseline` ratios (see the module docs).
pub fn compare(baseline: &Baseline, current: &Baseline, options: Options) -> Comparison {
    let mut out = Comparison::default();
    if baseline.scale != current.scale {
        out.failures.push(format!(
            "scale mismatch: baseline is `{}`, report is `{}` (compare like with like)",
            baseline.scale, current.scale
        ));
        return out;
    }
    for (workload, base) in &baseline.ratios {
        let Some(now) = current.ratios.get(workload) else {
            out.notes
                .push(format!("{workload}: in the baseline, not in this report"));
            continue;
        };
        let floor = fastest(base).min(fastest(now));
        if floor < options.noise_floor_ns {
            out.notes.push(format!(
                "{workload}: skipped, fastest run {floor:.0} ns is under the noise floor"
            ));
            continue;
        }
        let (base_fastest, now_fastest) = common_fastest(base, now);
        for (runner, b) in base {
            let Some(n) = now.get(runner) else {
                out.notes
                    .push(format!("{workload} · {runner}: not in this report"));
                continue;
            };
            out.compared += 1;
            let (was, is) = (b.median_ns / base_fastest, n.median_ns / now_fastest);
            let factor = is / was;
            if factor > options.threshold || factor < 1.0 / options.threshold {
                out.failures.push(format!(
                    "{workload} · {runner}: ratio to fastest {was:.2}× → {is:.2}× (moved \
                     {factor:.2}×, threshold {}×)",
                    options.threshold
                ));
            }
        }
    }
    for (workload, now) in &current.ratios {
        let base = baseline.ratios.get(workload);
        for runner in now.keys() {
            if base.is_some_and(|b| !b.contains_key(runner)) {
                out.notes
                    .push(format!("{workload} · {runner}: new, not in the baseline"));
            }
        }
        if base.is_none() {
            out.notes
                .push(format!("{workload}: new, not in the baseline"));
        }
    }
    out
}

/// Compares a full report with a baseline: its checksums must agree, then [`compare`].
pub fn compare_report(baseline: &Baseline, report: &Report, options: Options) -> Comparison {
    let mut out = compare(baseline, &Baseline::from_report(report), options);
    for w in report.workloads.iter().filter(|w| !w.checksums_agree) {
        out.failures
            .push(format!("{}: runners disagree on the checksum", w.path()));
    }
    out
}
