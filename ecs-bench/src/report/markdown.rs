//! `report.md`: the Markdown tables, one section per workload family.

use std::fmt::Write;

use super::model::{Report, WorkloadReport};
use super::targets::{self, Status};
use crate::workload::Family;
use crate::workloads::seed002;
use crate::workloads::seed004_memory::{MemoryTable, SIZES, UTILISATIONS};

/// `1.23 ms`, `45.6 µs`, `789 ns`, `1.234 s`.
pub fn format_time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// `1.5 MiB`, `330.7 KiB`, `12 B` (the layout's format, so reports and layouts agree).
pub fn format_bytes(bytes: usize) -> String {
    ecs_core::layout::format_bytes(bytes)
}

/// `1,234,567`.
pub fn format_count(n: u64) -> String {
    ecs_core::layout::format_count(n as usize)
}

/// The whole `report.md`.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let meta = &report.meta;
    let _ = writeln!(out, "# ecs-bench report\n");
    let _ = writeln!(
        out,
        "Measured on **{}** · scale **{}** · {} · ecs-bench {}\n",
        meta.machine, meta.scale, meta.date_utc, meta.version
    );
    if meta.debug_build {
        let _ = writeln!(
            out,
            "> **Debug build**: times are not meaningful; run with `--release`.\n"
        );
    }
    if !meta.counting_allocator {
        let _ = writeln!(
            out,
            "> The counting allocator is not installed: heap columns read 0.\n"
        );
    }
    if !report.checksums_agree() {
        let _ = writeln!(
            out,
            "> **Checksum mismatch**: some runners disagree (rows marked ✗). The numbers of \
             those rows are not comparable.\n"
        );
    }
    out.push_str(HOW_TO_READ);
    for family in Family::ALL {
        render_family(&mut out, report, family);
    }
    if let Some(table) = &report.entity_index_table {
        super::scaling::render(&mut out, table);
    }
    if let Some(table) = &report.memory_table {
        render_memory_table(&mut out, table);
    }
    render_targets(&mut out, report);
    if report.total_seconds() > 0.0 {
        let _ = writeln!(out, "{}.", report.time_line());
    }
    out
}

/// The performance targets beside this run's ratios (see [`targets`]).
fn render_targets(out: &mut String, report: &Report) {
    let evals = targets::evaluate(report);
    if evals.is_empty() {
        return;
    }
    let met = evals.iter().filter(|e| e.status == Status::Met).count();
    let measured = evals
        .iter()
        .filter(|e| !matches!(e.status, Status::NotMeasured(_)))
        .count();
    let _ = writeln!(
        out,
        "## Performance targets
"
    );
    let close = evals.iter().filter(|e| e.close()).count();
    let _ = writeln!(
        out,
        "Ratios from this run only (same machine, interleaved samples). **{met} of \
         {measured}** measured targets met{}. *rounds*: the middle half (25th to 75th \
         percentile) of a time target's ratio taken round by round. A round times every \
         runner once in turn, so a slow spell of a shared machine tends to fall on both \
         sides of a round's ratio. ≈ marks a verdict whose limit lies within that spread \
         ({close} in this run): another run may turn it over.\n",
        if report.meta.scale == crate::workload::Scale::Full {
            ""
        } else {
            "; the targets are set for the full sizes, so shrunk sizes are indicative only"
        }
    );
    let _ = writeln!(
        out,
        "| workload | backend | target | measured | rounds | status |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---|");
    let mut reasons = Vec::new();
    for e in &evals {
        let measured = match (e.value, &e.reference) {
            (Some(v), Some(r)) => format!("{v:.2}× ({r})"),
            (Some(v), None) => format!("{v:.1} B"),
            (None, _) => "—".to_owned(),
        };
        let rounds = match e.rounds {
            Some((low, high)) => format!("{low:.2}–{high:.2}×"),
            None => "—".to_owned(),
        };
        let status = match &e.status {
            Status::Met => "✓ met".to_owned(),
            Status::Missed => match e.target.why {
                // One note per target, however many backends miss it.
                Some(why) => match reasons.iter().position(|&(_, w)| w == why) {
                    Some(i) => format!("✗ missed ({})", i + 1),
                    None => {
                        reasons.push((e.target.workload, why));
                        format!("✗ missed ({})", reasons.len())
                    }
                },
                None => "✗ missed".to_owned(),
            },
            Status::NotMeasured(why) => format!("not measured: {why}"),
        };
        let mark = if e.close() { " ≈" } else { "" };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {measured} | {rounds} | {status}{mark} |",
            e.target.workload.name(),
            e.backend,
            e.target.describe()
        );
    }
    out.push('\n');
    for (i, (workload, why)) in reasons.iter().enumerate() {
        let _ = writeln!(out, "{}. *{workload}*: {why}", i + 1);
    }
    if !reasons.is_empty() {
        out.push('\n');
    }
}

const HOW_TO_READ: &str = "\
**How to read it.** *median*: median time of one run over the samples (runners are \
interleaved sample by sample so machine drift does not favour one; a repeatable workload's \
sample first runs once untimed, so lazily built query state is not timed). *ratio*: median \
over the fastest runner's median for that workload (1.00× is the fastest). *peak heap*: \
highest live heap above the level at the start of one run; *allocs*: allocations and \
reallocations during that run (both from the first timed run, as seed 000 takes them). \
*ok*: ✓ when the runner's \
checksum matches every other runner's. `baseline` is hand-written `Vec`s with no ECS, the \
floor. *Seed anchor* numbers were **measured elsewhere** (the seed author's machine, language \
and code), for the full size only: compare their shape, not their digits.\n";

fn render_family(out: &mut String, report: &Report, family: Family) {
    let workloads: Vec<&WorkloadReport> = report
        .workloads
        .iter()
        .filter(|w| w.family == family)
        .collect();
    if workloads.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## {}", family.title());
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "| workload | size | runner | median | ratio | peak heap | allocs | ok | \
         seed anchor (measured elsewhere) |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---:|---:|:-:|---|");
    for w in &workloads {
        render_workload(out, w);
    }
    let notes: Vec<String> = workloads
        .iter()
        .filter_map(|w| w.note.as_ref().map(|n| format!("- `{}`: {n}.", w.name)))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\n{}", notes.join("\n"));
    }
    if family == Family::Seed002 {
        if let Some(line) = seed002::ratio_line(workloads.iter().copied()) {
            let _ = writeln!(out, "\n{line}");
        }
    }
}

fn render_workload(out: &mut String, w: &WorkloadReport) {
    let size = format!("{} {}", format_count(w.size as u64), w.unit);
    let anchor = w.anchor.as_ref().map_or_else(String::new, |a| {
        format!("{} <sub>({})</sub>", a.value, a.source)
    });
    for (i, r) in w.results.iter().enumerate() {
        let first = i == 0;
        let runner = if r.ratio_to_fastest <= 1.0 {
            format!("**{}**", r.runner)
        } else {
            r.runner.clone()
        };
        let ok = if w.checksums_agree && r.checksum_stable {
            "✓"
        } else {
            "✗"
        };
        let median = match r.mb_per_s() {
            Some(rate) => format!("{} ({rate:.0} MB/s)", format_time(r.median_ns)),
            None => format_time(r.median_ns),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.2}× | {} | {} | {} | {} |",
            if first { w.name.as_str() } else { "" },
            if first { size.as_str() } else { "" },
            runner,
            median,
            r.ratio_to_fastest,
            format_bytes(r.peak_bytes),
            format_count(r.allocations),
            ok,
            if first { anchor.as_str() } else { "" },
        );
    }
}

fn render_memory_table(out: &mut String, table: &MemoryTable) {
    let _ = writeln!(
        out,
        "\n## Seed 004: memory, sparse set vs linear array (measured)\n\n\
         Heap bytes of one component type in the `{}` backend divided by the bytes of a \
         linear entity-indexed array with a presence bitmap, N = {} entities, both measured \
         by the counting allocator. Below 1.00 the sparse set is smaller. In parentheses: \
         the seed's formula (`8N + C·N·U` vs `C·N + N/8`).\n",
        table.sparse_backend,
        format_count(table.entities as u64)
    );
    let _ = write!(out, "| size \\ utilisation |");
    for u in UTILISATIONS {
        let _ = write!(out, " {}% |", u * 10);
    }
    let _ = write!(out, "\n|---|");
    for _ in UTILISATIONS {
        let _ = write!(out, "---:|");
    }
    out.push('\n');
    for size in SIZES {
        let _ = write!(out, "| {size} B |");
        for u in UTILISATIONS {
            match table.cell(size, u * 10) {
                Some(c) => {
                    let _ = write!(out, " {:.2} ({:.2}) |", c.ratio, c.seed_ratio);
                }
                None => out.push_str(" — |"),
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_time(1_500.0), "1.50 µs");
        assert_eq!(format_time(13_210_000.0), "13.21 ms");
        assert_eq!(format_bytes(2048), "2.0 KiB");
        assert_eq!(format_count(1_234_567), "1,234,567");
        assert_eq!(format_count(12), "12");
    }
}
