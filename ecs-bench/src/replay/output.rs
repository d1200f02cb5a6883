//! A replay's report: Markdown tables, JSON and an SVG chart, in the report's formats.

use std::fmt::Write as _;
use std::path::Path;

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use serde::Serialize;

use super::summary::Summary;
use super::Outcome;
use crate::report::markdown::{format_bytes, format_time};

/// Everything a replay measured.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    /// The trace file replayed.
    pub trace: String,
    /// Runs per target (the times are the median run's).
    pub runs: usize,
    /// What the trace did, per component.
    pub summary: Summary,
    /// One entry per target, in the order replayed.
    pub outcomes: Vec<Outcome>,
}

/// The report as Markdown: the targets, the divergences, then each component's use.
pub fn markdown(report: &ReplayReport) -> String {
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(out, "# Trace replay: {}\n", report.trace);
    let per_op = if s.ops == 0 {
        0.0
    } else {
        s.op_bytes as f64 / s.ops as f64
    };
    let _ = writeln!(
        out,
        "{} ops ({} of op stream, {per_op:.2} bytes an op), {} frames, {} entities spawned, \
         {} query runs, {} components. Median of {} run(s) per target.\n",
        s.ops,
        format_bytes(s.op_bytes),
        s.frames,
        s.spawned,
        s.query_runs,
        s.components.len(),
        report.runs,
    );
    let fastest = report
        .outcomes
        .iter()
        .map(|o| o.total_ns)
        .min()
        .unwrap_or(0)
        .max(1);
    out.push_str(
        "| target | total | frame median | frame p99 | peak heap | allocations | world bytes | faithful |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for o in &report.outcomes {
        let total = format_time(o.total_ns as f64);
        let total = if o.total_ns == fastest {
            format!("**{total}**")
        } else {
            format!("{total} ({:.2}×)", o.total_ns as f64 / fastest as f64)
        };
        let faithful = match o.divergence_count {
            0 => "yes".to_owned(),
            n => format!("**no** ({n} ops diverged)"),
        };
        let _ = writeln!(
            out,
            "| {} | {total} | {} | {} | {} | {} | {} | {faithful} |",
            o.target,
            format_time(o.frame_median_ns as f64),
            format_time(o.frame_p99_ns as f64),
            format_bytes(o.peak_heap_bytes),
            o.allocations,
            format_bytes(o.world_bytes),
        );
    }
    for o in report.outcomes.iter().filter(|o| !o.faithful()) {
        let _ = writeln!(out, "\n**{}** diverged from the recording:\n", o.target);
        for (op, what) in &o.divergences {
            let _ = writeln!(out, "- op {op}: {what}");
        }
        if o.divergence_count > o.divergences.len() as u64 {
            let _ = writeln!(
                out,
                "- and {} more",
                o.divergence_count - o.divergences.len() as u64
            );
        }
    }
    out.push_str(
        "\n## What the trace did with each component\n\n\
         Counted from the trace alone, the same on every backend. Adds and removes are what \
         a table pays for in row moves and a sparse set in a push or a swap; rows joined are \
         what a sparse set pays for in look-ups and a table gets for free; changes are \
         writes to a tracked component that change filters then see.\n\n\
         | component | bytes | declared | adds | removes | rows read | rows written | gets | changes | rows joined with |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in &s.components {
        let joined: Vec<String> = c
            .joined_with
            .iter()
            .map(|(name, rows)| format!("{name} {rows}"))
            .collect();
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            if c.tracked { " (tracked)" } else { "" },
            c.size,
            c.declared,
            c.adds,
            c.removes,
            c.rows_read,
            c.rows_written,
            c.gets,
            c.changes,
            if joined.is_empty() {
                "-".to_owned()
            } else {
                joined.join(", ")
            },
        );
    }
    out
}

/// A chart that could not be drawn.
pub type ChartError = Box<dyn std::error::Error>;

/// Draws each target's total time as a horizontal bar, labelled with its ratio to the
/// fastest; a diverged replay's label says so.
pub fn chart(path: &Path, report: &ReplayReport) -> Result<(), ChartError> {
    let bars = &report.outcomes;
    if bars.is_empty() {
        return Ok(());
    }
    let fastest = bars.iter().map(|o| o.total_ns).min().unwrap_or(1).max(1) as f64;
    let hi = bars.iter().map(|o| o.total_ns).max().unwrap_or(1) as f64 * 1.6;
    let height = 90 + 30 * bars.len() as u32;
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Replay of {}", report.trace), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(220)
        .build_cartesian_2d(0.0..hi, (0..bars.len() - 1).into_segmented())?;
    let row = |k: usize| bars.len() - 1 - k;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(bars.len())
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if *i < bars.len() => bars[row(*i)].target.clone(),
            _ => String::new(),
        })
        .x_label_formatter(&|ns| format_time(*ns))
        .x_desc("total replay time (median run)")
        .draw()?;
    let colour = RGBColor(31, 119, 180);
    chart.draw_series(bars.iter().enumerate().map(|(i, o)| {
        let mut bar = Rectangle::new(
            [
                (0.0, SegmentValue::Exact(row(i))),
                (o.total_ns as f64, SegmentValue::Exact(row(i) + 1)),
            ],
            colour.filled(),
        );
        bar.set_margin(4, 4, 0, 0);
        bar
    }))?;
    chart.draw_series(bars.iter().enumerate().map(|(i, o)| {
        let mark = if o.faithful() { "" } else { ", diverged" };
        Text::new(
            format!(
                "  {} ({:.2}×{mark})",
                format_time(o.total_ns as f64),
                o.total_ns as f64 / fastest
            ),
            (o.total_ns as f64, SegmentValue::CenterOf(row(i))),
            ("sans-serif", 12).into_font(),
        )
    }))?;
    root.present()?;
    Ok(())
}
