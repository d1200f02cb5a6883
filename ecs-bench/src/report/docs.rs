//! The documentation's numbers, regenerated from one report: the README's headline table,
//! the guide's table per trade-off (docs/guide.md) and ecs-bench/README.md's latest full
//! report.
//!
//! Each generated part of a document sits between two markers,
//!
//! ```text
//! <!-- ecs-bench:headline -->
//! ...generated...
//! <!-- /ecs-bench:headline -->
//! ```
//!
//! and [`update`] rewrites every marked part of every file it is given from one
//! [`Report`]. `ecs-bench docs` runs it on the committed `docs/report.json` (`--check` fails
//! when a file differs, which CI runs); `ecs-bench report --update-docs` runs it on the
//! report just measured and commits that report as the new `docs/report.json`.

use std::fmt::Write;

use super::markdown::{self, format_bytes, format_time};
use super::model::{Report, RunnerResult, WorkloadReport};
use super::targets::{self, Status};
use crate::workloads::{seed002, Builtin};

/// The files whose marked regions are regenerated, relative to the workspace root.
pub const FILES: [&str; 3] = ["README.md", "docs/guide.md", "ecs-bench/README.md"];

/// Where the report the documentation's numbers come from is kept, relative to the root.
pub const REPORT: &str = "docs/report.json";

/// Where the advice on the `status_effects` example's trace is kept, relative to the root:
/// written by `advise --out docs`, pasted into the guide's `advice-example` region.
pub const ADVICE: &str = "docs/advice.md";

/// The guide's copy of the advice: its title left out (the guide names the trace), its
/// sections one level down (they sit under a `##`).
pub fn advice_region(advice: &str) -> String {
    let mut out = String::new();
    for line in advice.lines().skip_while(|l| l.starts_with("# ")) {
        if line.starts_with("## ") {
            out.push('#');
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_matches('\n').to_owned() + "\n"
}

/// One row of a generated table: a workload, how the row is labelled, and what it teaches.
struct Row {
    workload: Builtin,
    label: &'static str,
    teaches: &'static str,
    /// Show the peak heap beside the time (seed 000's memory rows).
    heap: bool,
}

const fn row(workload: Builtin, label: &'static str, teaches: &'static str) -> Row {
    Row {
        workload,
        label,
        teaches,
        heap: false,
    }
}

const fn heap_row(workload: Builtin, label: &'static str, teaches: &'static str) -> Row {
    Row {
        workload,
        label,
        teaches,
        heap: true,
    }
}

/// The README's headline table.
const HEADLINE: &[Row] = &[
    row(
        Builtin::SimpleIter,
        "simple_iter (10k, pos += vel)",
        "dense columns side by side: tables iterate like plain arrays",
    ),
    row(
        Builtin::SimpleIterGrouped,
        "simple_iter, owning group (sparse)",
        "an owning group keeps a sparse-set join packed like a table",
    ),
    row(
        Builtin::FragmentedIter,
        "fragmented_iter (26 × 20)",
        "many small tables cost a little each; one dense set does not care about the mix",
    ),
    row(
        Builtin::SimpleInsert,
        "simple_insert (10k × 4 comps)",
        "a batch reserves once and writes rows without moving them",
    ),
    row(
        Builtin::AddRemove,
        "add_remove (10k, add/remove B)",
        "adding a component moves a table row; a sparse set pushes one value",
    ),
    row(
        Builtin::HeavyCompute,
        "heavy_compute (1k, parallel)",
        "compute-bound work does not care about the layout",
    ),
    row(
        Builtin::Schedule,
        "schedule (3 systems)",
        "systems whose data do not overlap run side by side",
    ),
    row(
        Builtin::RandomAccess,
        "random_access (100k, get of 3 comps)",
        "by handle: one record then columns on tables, two loads per component on sets",
    ),
    row(
        Builtin::Query1,
        "query_1 (100k in 256 tables, A)",
        "the ABC problem: one component spread over 256 tables",
    ),
    row(
        Builtin::Query2,
        "query_2 (A, B)",
        "hybrid: B aligned with the tables once (`align_with_tables`), read like a column",
    ),
    row(
        Builtin::Query2Unaligned,
        "query_2, B not aligned",
        "hybrid: a sparse set no table follows is looked up row by row",
    ),
    row(
        Builtin::Query3,
        "query_3 (A, B, C)",
        "each extra looked-up component adds a look-up per row",
    ),
    row(
        Builtin::Query4,
        "query_4 (A, B, C, D)",
        "tables keep every joined column dense; sets look the others up",
    ),
    heap_row(
        Builtin::Create,
        "create (1M entities)",
        "an entity with no component costs only its allocator slot",
    ),
    heap_row(
        Builtin::Add,
        "add (500k × 4 inserts)",
        "one insert at a time: a set pushes, a table moves the row every time",
    ),
    heap_row(
        Builtin::AddWriteDelete,
        "add_write_delete (300 × 2k)",
        "despawned slots are reused: the heap stays at one round's size",
    ),
    row(
        Builtin::Distributed,
        "distributed (300 × 2k)",
        "swapping one component for another is a row move on tables, two set operations on sets",
    ),
    row(
        Builtin::Random,
        "random (seeded, ×10)",
        "a mix of everything: no layout wins by much",
    ),
    row(
        Builtin::CratesRenderChanged,
        "crates render, changed only",
        "change tracking costs what changed: 100 of 100,100 crates",
    ),
    row(
        Builtin::CratesRenderScan,
        "crates render, full scan",
        "without it, every crate every frame",
    ),
];

/// The guide's tables, one per trade-off: region name and rows.
const GUIDE: &[(&str, &[Row])] = &[
    (
        "guide-iteration",
        &[
            row(Builtin::SimpleIter, "simple_iter (10k)", ""),
            row(Builtin::SimpleIterGrouped, "simple_iter, owning group", ""),
            row(Builtin::Query2, "query_2 (A, B over 256 tables)", ""),
            row(Builtin::Query4, "query_4 (A, B, C, D)", ""),
        ],
    ),
    (
        "hybrid-joins",
        &[
            row(Builtin::Query2Unaligned, "query_2, B not aligned", ""),
            row(Builtin::Query2, "query_2, B aligned", ""),
            row(Builtin::Query3, "query_3 (A, B, C), B aligned", ""),
            row(Builtin::Query4, "query_4 (A, B, C, D), B aligned", ""),
        ],
    ),
    (
        "guide-structural",
        &[
            row(Builtin::AddRemove, "add_remove (10k, add/remove B)", ""),
            heap_row(Builtin::Add, "add (500k × 4 inserts)", ""),
            row(Builtin::Insertion, "insertion (10k × 8 components)", ""),
            row(Builtin::RemoveRandom100k, "remove_random_100k (swap)", ""),
            row(
                Builtin::RemoveShiftRandom10k,
                "remove_shift_random_10k (shift)",
                "",
            ),
        ],
    ),
    (
        "guide-random-access",
        &[row(
            Builtin::RandomAccess,
            "random_access (100k, 3 comps)",
            "",
        )],
    ),
    (
        "guide-memory",
        &[
            heap_row(Builtin::Create, "create (1M entities)", ""),
            heap_row(Builtin::AddWriteDelete, "add_write_delete (300 × 2k)", ""),
            heap_row(Builtin::Relationship, "relationship (500 × 2,110)", ""),
        ],
    ),
    (
        "guide-fragmentation",
        &[
            row(Builtin::FragmentedIter, "fragmented_iter (26 × 20)", ""),
            row(Builtin::Query1, "query_1 (A over 256 tables)", ""),
        ],
    ),
    (
        "guide-change-tracking",
        &[
            row(
                Builtin::CratesRenderChanged,
                "crates render, changed only",
                "",
            ),
            row(Builtin::CratesRenderScan, "crates render, full scan", ""),
        ],
    ),
];

fn find(report: &Report, workload: Builtin) -> Option<&WorkloadReport> {
    report.workloads.iter().find(|w| w.name == workload.name())
}

/// A cell: `**7.90 µs**` for the fastest, `11.71 µs (1.48×)` otherwise, with the peak heap
/// after the time for memory rows.
fn cell(result: &RunnerResult, heap: bool) -> String {
    let mut text = format_time(result.median_ns);
    if heap {
        let _ = write!(text, ", {}", format_bytes(result.peak_bytes));
    }
    if result.ratio_to_fastest <= 1.0 {
        format!("**{text}**")
    } else {
        format!("{text} ({:.2}×)", result.ratio_to_fastest)
    }
}

/// The column title of a runner.
fn title(runner: &str) -> &str {
    match runner {
        "baseline" => "Vec baseline",
        other => other,
    }
}

/// A table of `rows` over the report's runners; `teaches` adds the "what this row teaches"
/// column. Rows whose workload did not run are left out, and so are runners that ran none
/// of the rows.
fn table(report: &Report, rows: &[Row], teaches: bool) -> String {
    let ran = |runner: &String| {
        rows.iter()
            .filter_map(|row| find(report, row.workload))
            .any(|w| w.results.iter().any(|x| &x.runner == runner))
    };
    let runners: Vec<&String> = report.meta.runners.iter().filter(|r| ran(r)).collect();
    let mut out = String::from("| workload |");
    if teaches {
        out.push_str(" what this row teaches |");
    }
    for r in &runners {
        let _ = write!(out, " {} |", title(r));
    }
    out.push_str("\n|---|");
    if teaches {
        out.push_str("---|");
    }
    out.push_str(&"---:|".repeat(runners.len()));
    out.push('\n');
    for row in rows {
        let Some(w) = find(report, row.workload) else {
            continue;
        };
        let _ = write!(out, "| {} |", row.label);
        if teaches {
            let _ = write!(out, " {} |", row.teaches);
        }
        for r in &runners {
            match w.results.iter().find(|x| &x.runner == *r) {
                Some(result) => {
                    let _ = write!(out, " {} |", cell(result, row.heap));
                }
                None => out.push_str(" — |"),
            }
        }
        out.push('\n');
    }
    out
}

/// When and where the report was measured, and how long it took (saying so when seed 001's
/// scaling table ran past the default 320k, which is then most of the time).
fn provenance(report: &Report) -> String {
    let meta = &report.meta;
    let largest = report
        .entity_index_table
        .iter()
        .flat_map(|table| &table.rows)
        .map(|row| row.new.entities)
        .max()
        .unwrap_or(0);
    let scaling = if largest > 320_000 {
        format!(
            " Seed 001's scaling table ran to {} entities (`--full-scaling`); without it the \
             table stops at 320k.",
            super::markdown::format_count(largest as u64)
        )
    } else {
        String::new()
    };
    format!(
        "Measured {} on {} ({} scale, runners: {}). {}.{scaling}",
        meta.date_utc,
        meta.machine,
        meta.scale,
        meta.runners.join(", "),
        report.time_line()
    )
}

/// `34 of 40 performance targets met`, and how many verdicts are within the spread of their
/// rounds ([`targets::Evaluation::close`]).
fn targets_line(report: &Report) -> String {
    let evals = targets::evaluate(report);
    let met = evals.iter().filter(|e| e.status == Status::Met).count();
    let measured = evals
        .iter()
        .filter(|e| !matches!(e.status, Status::NotMeasured(_)))
        .count();
    let unmeasured = evals.len() - measured;
    let note = if unmeasured > 0 {
        format!(" ({unmeasured} not measured: a reference runner did not run)")
    } else {
        String::new()
    };
    let close = match evals.iter().filter(|e| e.close()).count() {
        0 => String::new(),
        1 => "; 1 verdict lies within the spread of its rounds, so another run may turn it \
              over (≈ in the targets table)"
            .to_owned(),
        n => format!(
            "; {n} verdicts lie within the spread of their rounds, so another run may turn \
             them over (≈ in the targets table)"
        ),
    };
    format!(
        "In that run **{met} of {measured}** measured performance targets were met{note}{close}."
    )
}

/// The generated text of region `name`, or `None` for a name this module does not know.
pub fn region(report: &Report, name: &str) -> Option<String> {
    if let Some((_, rows)) = GUIDE.iter().find(|(n, _)| *n == name) {
        let mut text = table(report, rows, false);
        if name == "guide-change-tracking" {
            if let Some(line) = seed002::ratio_line(&report.workloads) {
                let _ = write!(text, "\n{line}\n");
            }
        }
        if name == "guide-memory" {
            text.push_str(&memory_cells(report));
        }
        return Some(text);
    }
    Some(match name {
        "headline" => format!(
            "{}\n\n{}",
            provenance(report),
            table(report, HEADLINE, true)
        ),
        "provenance" => format!("{}\n", provenance(report)),
        "targets" => format!("{}\n", targets_line(report)),
        "latest-report" => latest_report(report),
        _ => return None,
    })
}

/// A few cells of seed 004's memory table, as a sentence.
fn memory_cells(report: &Report) -> String {
    let Some(table) = &report.memory_table else {
        return String::new();
    };
    let cells: Vec<String> = [(8, 10), (8, 100), (128, 10), (128, 100)]
        .iter()
        .filter_map(|&(size, u)| table.cell(size, u))
        .map(|c| format!("{} B at {} %: {:.2}×", c.size, c.utilisation, c.ratio))
        .collect();
    format!(
        "\nOne component in a sparse set against an entity-indexed array (bytes measured, N = \
         {}): {}.\n",
        markdown::format_count(table.entities as u64),
        cells.join(", ")
    )
}

/// `report.md` without its title, headings one level down (it sits under a `##`).
fn latest_report(report: &Report) -> String {
    let full = markdown::render(report);
    let mut out = String::new();
    for line in full.lines().skip_while(|l| l.starts_with("# ")) {
        if line.starts_with('#') {
            out.push('#');
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_start_matches('\n').to_owned()
}

/// `text` with every known marked region rewritten from `report`.
///
/// # Errors
/// A region that is opened and not closed, or a region name this module does not know.
pub fn update(text: &str, report: &Report) -> Result<String, String> {
    update_with(text, report, None)
}

/// [`update`], with the advice of [`ADVICE`] for the `advice-example` region.
///
/// # Errors
/// As [`update`]; the `advice-example` region without an advice.
pub fn update_with(text: &str, report: &Report, advice: Option<&str>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!-- ecs-bench:") {
        let (before, marker) = rest.split_at(start);
        out.push_str(before);
        let name_end = marker
            .find(" -->")
            .ok_or("an unterminated ecs-bench marker")?;
        let name = &marker["<!-- ecs-bench:".len()..name_end];
        let close = format!("<!-- /ecs-bench:{name} -->");
        let end = marker
            .find(&close)
            .ok_or_else(|| format!("region `{name}` is not closed with `{close}`"))?;
        let generated = match name {
            "advice-example" => advice_region(advice.ok_or_else(|| {
                format!("region `{name}` needs {ADVICE}: write it with `advise --out docs`")
            })?),
            _ => region(report, name).ok_or_else(|| format!("unknown region `{name}`"))?,
        };
        let _ = write!(out, "<!-- ecs-bench:{name} -->\n\n{generated}\n{close}");
        rest = &marker[end + close.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{run, Config};
    use crate::workload::Scale;

    fn tiny_report() -> Report {
        let mut config = Config::new(Scale::Test);
        config.filters = vec!["simple_iter".into(), "crates".into()];
        run(&config)
    }

    #[test]
    fn the_advice_is_pasted_one_level_down_without_its_title() {
        let advice = "# Storage advice: x.trace\n\nintro\n\n## Components\n\n| a |\n\n";
        let text = "<!-- ecs-bench:advice-example -->\n<!-- /ecs-bench:advice-example -->\n";
        let report = tiny_report();
        assert_eq!(
            update_with(text, &report, Some(advice)).unwrap(),
            "<!-- ecs-bench:advice-example -->\n\nintro\n\n### Components\n\n| a |\n\n\
             <!-- /ecs-bench:advice-example -->\n"
        );
        assert!(update(text, &report).unwrap_err().contains(ADVICE));
    }

    #[test]
    fn regions_are_rewritten_and_the_rest_kept() {
        let report = tiny_report();
        let text =
            "intro\n<!-- ecs-bench:headline -->\nstale\n<!-- /ecs-bench:headline -->\noutro\n";
        let updated = update(text, &report).unwrap();
        assert!(updated.starts_with("intro\n<!-- ecs-bench:headline -->\n\nMeasured "));
        assert!(updated.ends_with("|\n\n<!-- /ecs-bench:headline -->\noutro\n"));
        assert!(updated.contains("| simple_iter (10k, pos += vel) | dense columns"));
        assert!(!updated.contains("stale"));
        assert_eq!(update(&updated, &report).unwrap(), updated, "idempotent");
    }

    #[test]
    fn every_region_of_the_guide_and_readmes_is_known() {
        let report = tiny_report();
        for name in ["headline", "provenance", "targets", "latest-report"]
            .into_iter()
            .chain(GUIDE.iter().map(|(n, _)| *n))
        {
            assert!(region(&report, name).is_some(), "{name}");
        }
        assert!(update("<!-- ecs-bench:nope -->x<!-- /ecs-bench:nope -->", &report).is_err());
        assert!(update("<!-- ecs-bench:headline -->", &report).is_err());
    }
}
