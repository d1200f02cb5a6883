//! The counts as one Markdown table: the storage comparison (each runner's instructions
//! relative to the fewest of its workload) and, against a baseline, each row's change.

use std::fmt::Write;

use super::check::{change, Comparison, RowDelta};
use super::Counts;

/// Renders `counts`, with each row's change against the baseline when `comparison` is given
/// (it must come from the same `counts`).
pub fn render(counts: &Counts, comparison: Option<&Comparison>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Instruction counts ({})\n", counts.tool);
    let _ = writeln!(
        out,
        "One run of each workload's timed body at its counted size, under callgrind with its \
         cache simulator. `× fewest` compares a runner's instructions with the fewest of any \
         runner on that workload. `Δ` columns compare with the baseline; ✗ marks a row that \
         grew beyond the tolerance ({}).\n",
        comparison
            .map(|c| format!(
                "{:.1} % for instructions and cycles, any growth for heap",
                c.tolerance * 100.0
            ))
            .unwrap_or_else(|| "no baseline given".to_owned())
    );
    out.push_str(
        "| workload | runner | size | instructions | × fewest | Δ instr. | est. cycles | Δ cycles \
         | L1 misses | LL misses | allocs | Δ allocs | peak heap | Δ heap | |\n",
    );
    out.push_str("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|\n");
    for (i, row) in counts.rows.iter().enumerate() {
        let fewest = counts
            .rows
            .iter()
            .filter(|r| r.workload == row.workload)
            .map(|r| r.instructions)
            .min()
            .unwrap_or(row.instructions)
            .max(1);
        let delta = comparison.and_then(|c| c.rows.get(i));
        let base = delta.and_then(|d| d.baseline.as_ref());
        let pct = |get: fn(&super::CountRow) -> u64| match base {
            Some(b) => percent(change(get(b), get(row))),
            None => "–".to_owned(),
        };
        let status = match delta {
            Some(RowDelta { failures, .. }) if !failures.is_empty() => "✗",
            Some(RowDelta {
                baseline: Some(_), ..
            }) => "✓",
            Some(_) => "new",
            None => "",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.workload,
            row.runner,
            row.size,
            row.instructions,
            row.instructions as f64 / fewest as f64,
            pct(|r| r.instructions),
            row.estimated_cycles,
            pct(|r| r.estimated_cycles),
            row.l1_misses,
            row.ll_misses,
            row.allocations,
            pct(|r| r.allocations),
            row.peak_heap_bytes,
            pct(|r| r.peak_heap_bytes as u64),
            status,
        );
    }
    if let Some(comparison) = comparison {
        out.push('\n');
        for note in &comparison.notes {
            let _ = writeln!(out, "- note: {note}");
        }
        for failure in comparison.failures() {
            let _ = writeln!(out, "- **FAIL**: {failure}");
        }
    }
    out
}

fn percent(delta: f64) -> String {
    if delta.is_infinite() {
        "new".to_owned()
    } else if delta == 0.0 {
        "0".to_owned()
    } else {
        format!("{:+.2} %", delta * 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::compare;
    use super::super::{CountRow, Counts, SCHEMA};
    use super::*;

    fn row(runner: &str, instructions: u64) -> CountRow {
        CountRow {
            workload: "community/simple_iter".to_owned(),
            runner: runner.to_owned(),
            size: 1000,
            instructions,
            l1_misses: 3,
            ll_misses: 1,
            estimated_cycles: instructions + 50,
            allocations: 0,
            peak_heap_bytes: 0,
            checksum: 1,
        }
    }

    #[test]
    fn table_shows_ratio_change_and_status() {
        let base = Counts {
            schema: SCHEMA,
            tool: "valgrind-3.19.0".to_owned(),
            rows: vec![row("archetype", 1000), row("sparse", 2000)],
        };
        let mut current = base.clone();
        current.rows[1].instructions = 2100;
        current.rows[1].estimated_cycles = 2150;
        let comparison = compare(&base, &current, 0.02);
        let text = render(&current, Some(&comparison));
        assert!(
            text.contains("| community/simple_iter | sparse | 1000 | 2100 | 2.10 | +5.00 % |"),
            "{text}"
        );
        assert!(text.contains("| community/simple_iter | archetype | 1000 | 1000 | 1.00 | 0 |"));
        assert!(text.contains("✗"));
        assert!(
            text.contains("**FAIL**: community/simple_iter on sparse: instructions 2000 → 2100")
        );
    }
}
