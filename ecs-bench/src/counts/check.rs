//! Comparing a counts run with the committed baseline.
//!
//! The baseline is a [`Counts`] file of the same shape. A row fails when its instructions or
//! estimated cycles grew by more than the tolerance, or its allocations or peak heap grew at
//! all (both are exact: the same code allocates the same). Rows only in one of the two are
//! listed as notes (a new workload, a renamed one); they never fail the check.

use super::{CountRow, Counts};

/// Growth of instructions or estimated cycles that fails a row: 2 %.
pub const DEFAULT_TOLERANCE: f64 = 0.02;

/// The command that refreshes the committed baseline.
pub const REFRESH_COMMAND: &str =
    "cargo run --profile counts -p ecs-bench -- counts --write-baseline ecs-bench/counts-baseline.json";

/// A current row next to its baseline row, if there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct RowDelta {
    /// The current row.
    pub current: CountRow,
    /// The baseline's row for the same workload and runner.
    pub baseline: Option<CountRow>,
    /// Why the row fails (empty: it passes).
    pub failures: Vec<String>,
}

/// The comparison of a whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Every current row, in run order.
    pub rows: Vec<RowDelta>,
    /// Baseline rows the run did not produce, and other remarks.
    pub notes: Vec<String>,
    /// The tolerance used.
    pub tolerance: f64,
}

impl Comparison {
    /// Whether no row failed.
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|r| r.failures.is_empty())
    }

    /// Every failure, prefixed with its row.
    pub fn failures(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|r| {
                r.failures
                    .iter()
                    .map(move |f| format!("{} on {}: {f}", r.current.workload, r.current.runner))
            })
            .collect()
    }
}

/// The relative change from `before` to `after` (0.05 = 5 % more).
pub fn change(before: u64, after: u64) -> f64 {
    if before == 0 {
        if after == 0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        after as f64 / before as f64 - 1.0
    }
}

/// Compares `current` with `baseline` (see the module docs).
pub fn compare(baseline: &Counts, current: &Counts, tolerance: f64) -> Comparison {
    let find = |row: &CountRow| {
        baseline
            .rows
            .iter()
            .find(|b| b.workload == row.workload && b.runner == row.runner)
            .cloned()
    };
    let rows: Vec<RowDelta> = current
        .rows
        .iter()
        .map(|row| {
            let base = find(row);
            let failures = base
                .as_ref()
                .map(|b| row_failures(b, row, tolerance))
                .unwrap_or_default();
            RowDelta {
                current: row.clone(),
                baseline: base,
                failures,
            }
        })
        .collect();
    let mut notes = Vec::new();
    if baseline.tool != current.tool {
        notes.push(format!(
            "counted with {} but the baseline with {}: instruction counts may differ",
            current.tool, baseline.tool
        ));
    }
    for row in rows.iter().filter(|r| r.baseline.is_none()) {
        notes.push(format!(
            "{} on {}: not in the baseline (new)",
            row.current.workload, row.current.runner
        ));
    }
    notes.extend(
        baseline
            .rows
            .iter()
            .filter(|b| {
                !current
                    .rows
                    .iter()
                    .any(|r| r.workload == b.workload && r.runner == b.runner)
            })
            .map(|b| {
                format!(
                    "{} on {}: in the baseline, not counted",
                    b.workload, b.runner
                )
            }),
    );
    Comparison {
        rows,
        notes,
        tolerance,
    }
}

fn row_failures(base: &CountRow, row: &CountRow, tolerance: f64) -> Vec<String> {
    let mut failures = Vec::new();
    if base.size != row.size {
        failures.push(format!(
            "counted at size {} but the baseline at {}: refresh the baseline",
            row.size, base.size
        ));
        return failures;
    }
    let grew = |name: &str, before: u64, after: u64, failures: &mut Vec<String>| {
        let delta = change(before, after);
        if delta > tolerance {
            failures.push(format!(
                "{name} {before} → {after} (+{:.2} %, tolerance {:.1} %)",
                delta * 100.0,
                tolerance * 100.0
            ));
        }
    };
    grew(
        "instructions",
        base.instructions,
        row.instructions,
        &mut failures,
    );
    grew(
        "estimated cycles",
        base.estimated_cycles,
        row.estimated_cycles,
        &mut failures,
    );
    if row.allocations > base.allocations {
        failures.push(format!(
            "allocations {} → {}",
            base.allocations, row.allocations
        ));
    }
    if row.peak_heap_bytes > base.peak_heap_bytes {
        failures.push(format!(
            "peak heap {} → {} bytes",
            base.peak_heap_bytes, row.peak_heap_bytes
        ));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(runner: &str, instructions: u64, allocations: u64, peak: usize) -> CountRow {
        CountRow {
            workload: "community/simple_iter".to_owned(),
            runner: runner.to_owned(),
            size: 100,
            instructions,
            l1_misses: 0,
            ll_misses: 0,
            estimated_cycles: instructions,
            allocations,
            peak_heap_bytes: peak,
            checksum: 7,
        }
    }

    fn counts(rows: Vec<CountRow>) -> Counts {
        Counts {
            schema: super::super::SCHEMA,
            tool: "valgrind-3.19.0".to_owned(),
            rows,
        }
    }

    #[test]
    fn growth_within_tolerance_passes_and_beyond_fails() {
        let base = counts(vec![row("sparse", 10_000, 2, 64)]);
        let ok = compare(&base, &counts(vec![row("sparse", 10_199, 2, 64)]), 0.02);
        assert!(ok.passed(), "{:?}", ok.failures());
        let slower = compare(&base, &counts(vec![row("sparse", 10_201, 2, 64)]), 0.02);
        assert!(!slower.passed());
        let failures = slower.failures();
        assert!(failures[0].starts_with("community/simple_iter on sparse: instructions"));
        // Getting faster never fails.
        assert!(compare(&base, &counts(vec![row("sparse", 5_000, 1, 8)]), 0.02).passed());
    }

    #[test]
    fn any_allocation_or_peak_growth_fails() {
        let base = counts(vec![row("sparse", 10_000, 2, 64)]);
        let more_allocs = compare(&base, &counts(vec![row("sparse", 10_000, 3, 64)]), 0.02);
        assert_eq!(more_allocs.failures().len(), 1);
        assert!(more_allocs.failures()[0].contains("allocations 2 → 3"));
        let more_heap = compare(&base, &counts(vec![row("sparse", 10_000, 2, 65)]), 0.02);
        assert!(more_heap.failures()[0].contains("peak heap 64 → 65"));
    }

    #[test]
    fn new_and_missing_rows_are_notes() {
        let base = counts(vec![row("sparse", 10_000, 2, 64)]);
        let current = counts(vec![row("hybrid", 10_000, 2, 64)]);
        let comparison = compare(&base, &current, 0.02);
        assert!(comparison.passed());
        assert_eq!(comparison.notes.len(), 2, "{:?}", comparison.notes);
    }

    #[test]
    fn a_different_size_asks_for_a_refresh() {
        let base = counts(vec![row("sparse", 10_000, 2, 64)]);
        let mut bigger = row("sparse", 10_000, 2, 64);
        bigger.size = 200;
        let comparison = compare(&base, &counts(vec![bigger]), 0.02);
        assert!(comparison.failures()[0].contains("refresh"));
    }
}
