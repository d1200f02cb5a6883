//! SVG charts (plotters, SVG backend only): a horizontal bar chart of median times per
//! workload family, and seed 004's memory table as a heat map.

use std::path::Path;

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::markdown::format_time;
use super::model::WorkloadReport;
use crate::workloads::seed004_memory::{MemoryTable, SIZES, UTILISATIONS};

/// A chart that could not be drawn.
pub type ChartError = Box<dyn std::error::Error>;

/// Colours of the runners, by position in the report's runner list.
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn runner_colour(runners: &[String], runner: &str) -> RGBColor {
    let index = runners.iter().position(|r| r == runner).unwrap_or(0);
    PALETTE[index % PALETTE.len()]
}

fn label_style(h: HPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(h, VPos::Center))
}

/// One bar: a (workload, runner) pair.
struct Bar<'a> {
    label: String,
    runner: &'a str,
    median_ns: f64,
    ratio: f64,
}

/// Draws the median time of every (workload, runner) of a family as horizontal bars on a
/// logarithmic time axis, each labelled with its time and its ratio to the fastest.
pub fn family_chart(
    path: &Path,
    title: &str,
    workloads: &[&WorkloadReport],
    runners: &[String],
) -> Result<(), ChartError> {
    let bars: Vec<Bar> = workloads
        .iter()
        .flat_map(|w| {
            w.results.iter().enumerate().map(move |(i, r)| Bar {
                label: if i == 0 {
                    format!("{} · {}", w.name, r.runner)
                } else {
                    r.runner.clone()
                },
                runner: &r.runner,
                median_ns: r.median_ns.max(1.0),
                ratio: r.ratio_to_fastest,
            })
        })
        .collect();
    if bars.is_empty() {
        return Ok(());
    }
    let lo = bars
        .iter()
        .map(|b| b.median_ns)
        .fold(f64::INFINITY, f64::min);
    let hi = bars.iter().map(|b| b.median_ns).fold(0.0, f64::max);
    let (lo, hi) = (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil() + 0.6),
    );
    let height = 90 + 22 * bars.len() as u32;

    let root = SVGBackend::new(path, (960, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(260)
        // A segmented `0..n` has n + 1 segments; `0..n - 1` has one per bar.
        .build_cartesian_2d((lo..hi).log_scale(), (0..bars.len() - 1).into_segmented())?;
    // Bar k is drawn at row n - 1 - k so the first workload is at the top.
    let row = |k: usize| bars.len() - 1 - k;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(bars.len())
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if *i < bars.len() => bars[row(*i)].label.clone(),
            _ => String::new(),
        })
        .x_label_formatter(&|ns| format_time(*ns))
        .x_desc("median time per run (log scale)")
        .draw()?;

    for runner in runners {
        let colour = runner_colour(runners, runner);
        let mine: Vec<(usize, &Bar)> = bars
            .iter()
            .enumerate()
            .filter(|(_, b)| b.runner == runner)
            .collect();
        if mine.is_empty() {
            continue;
        }
        chart
            .draw_series(mine.iter().map(|&(i, b)| {
                let mut bar = Rectangle::new(
                    [
                        (lo, SegmentValue::Exact(row(i))),
                        (b.median_ns, SegmentValue::Exact(row(i) + 1)),
                    ],
                    colour.filled(),
                );
                bar.set_margin(3, 3, 0, 0);
                bar
            }))?
            .label(runner.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        chart.draw_series(mine.iter().map(|&(i, b)| {
            Text::new(
                format!("  {} ({:.2}×)", format_time(b.median_ns), b.ratio),
                (b.median_ns, SegmentValue::CenterOf(row(i))),
                label_style(HPos::Left),
            )
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// Green below 1 (the sparse set is smaller), white at 1, red above; log-scaled, saturating
/// at 8× either way.
pub fn ratio_colour(ratio: f64) -> RGBColor {
    let t = (ratio.max(1e-9).log2() / 3.0).clamp(-1.0, 1.0);
    let fade = |full: u8| (255.0 - (255.0 - f64::from(full)) * t.abs()).round() as u8;
    if t < 0.0 {
        RGBColor(fade(26), fade(150), fade(65))
    } else {
        RGBColor(fade(215), fade(48), fade(39))
    }
}

/// Draws seed 004's memory table: component size (rows) × utilisation (columns), each cell
/// coloured and labelled by the measured sparse/linear byte ratio.
pub fn memory_heatmap(path: &Path, table: &MemoryTable) -> Result<(), ChartError> {
    let root = SVGBackend::new(path, (900, 720)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "Seed 004: sparse set ({}) / linear array heap bytes, N = {} (measured)",
        table.sparse_backend, table.entities
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (0..UTILISATIONS.len() - 1).into_segmented(),
            (0..SIZES.len() - 1).into_segmented(),
        )?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(UTILISATIONS.len())
        .y_labels(SIZES.len())
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => format!("{}%", UTILISATIONS.get(*i).map_or(0, |u| u * 10)),
            _ => String::new(),
        })
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => format!("{} B", SIZES.get(*i).copied().unwrap_or(0)),
            _ => String::new(),
        })
        .x_desc("utilisation (share of entities holding the component)")
        .y_desc("component size")
        .draw()?;

    let cells: Vec<(usize, usize, f64)> = SIZES
        .iter()
        .enumerate()
        .flat_map(|(row, &size)| {
            UTILISATIONS
                .iter()
                .enumerate()
                .filter_map(move |(col, &u)| table.cell(size, u * 10).map(|c| (col, row, c.ratio)))
        })
        .collect();
    chart.draw_series(cells.iter().map(|&(col, row, ratio)| {
        Rectangle::new(
            [
                (SegmentValue::Exact(col), SegmentValue::Exact(row)),
                (SegmentValue::Exact(col + 1), SegmentValue::Exact(row + 1)),
            ],
            ratio_colour(ratio).filled(),
        )
    }))?;
    chart.draw_series(cells.iter().map(|&(col, row, ratio)| {
        Text::new(
            format!("{ratio:.2}"),
            (SegmentValue::CenterOf(col), SegmentValue::CenterOf(row)),
            label_style(HPos::Center),
        )
    }))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ratio_colour;
    use plotters::style::RGBColor;

    #[test]
    fn colours_diverge_around_one() {
        assert_eq!(ratio_colour(1.0), RGBColor(255, 255, 255));
        assert_eq!(ratio_colour(1.0 / 8.0), RGBColor(26, 150, 65));
        assert_eq!(ratio_colour(64.0), RGBColor(215, 48, 39));
    }
}
