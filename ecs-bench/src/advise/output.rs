//! The advice as Markdown: each component's use and advised kind with its reason, the
//! layouts predicted beside measured, the attributes to paste, and the model's prices.

use std::fmt::Write as _;

use super::accuracy::Accuracy;
use super::{Advice, Candidate};
use crate::report::markdown::{format_count, format_time};

/// The whole advice as Markdown, headed by `title` (the trace file).
pub fn markdown(advice: &Advice, title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Storage advice: {title}\n");
    let _ = writeln!(
        out,
        "{} ops, {} frames. {} layouts scored ({}); predictions from prices calibrated on \
         this machine, measured by replaying each candidate.\n",
        format_count(advice.ops),
        advice.frames,
        format_count(advice.layouts_scored as u64),
        match advice.exhaustive {
            true => "every layout of the components the trace uses",
            false => "a greedy descent from three starts",
        },
    );
    components(&mut out, advice);
    layouts(&mut out, advice);
    apply(&mut out, advice);
    if let Some(accuracy) = &advice.accuracy {
        every_layout(&mut out, accuracy);
    }
    prices(&mut out, advice);
    out
}

fn components(out: &mut String, advice: &Advice) {
    out.push_str(
        "## Components\n\n\
         | component | bytes | declared | advised | adds | removes | rows iterated | gets | \
         saving | why |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in &advice.components {
        let u = &c.usage;
        let advised = match c.declared == c.advised {
            true => c.advised.to_owned(),
            false => format!("**{}**", c.advised),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {advised} | {} | {} | {} | {} | {} | {} |",
            c.name,
            u.size,
            c.declared,
            format_count(u.adds),
            format_count(u.removes),
            format_count(u.rows_read + u.rows_written),
            format_count(u.gets),
            format_time(c.saving_ns.max(0.0)),
            c.reason,
        );
    }
    out.push_str(
        "\n*saving*: the predicted time the advised kind saves over the other kind, the rest \
         of the advised layout unchanged.\n\n",
    );
}

fn layouts(out: &mut String, advice: &Advice) {
    out.push_str(
        "## Layouts, predicted and measured\n\n\
         | layout | backend | sparse components | predicted | measured | predicted / measured | faithful |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for c in &advice.candidates {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.role,
            c.backend,
            sparse_list(c),
            c.predicted_ns.map_or("—".to_owned(), format_time),
            format_time(c.measured_ns as f64),
            c.accuracy().map_or("—".to_owned(), |a| format!("{a:.2}")),
            if c.faithful { "yes" } else { "**no**" },
        );
    }
    let best = advice
        .candidates
        .iter()
        .min_by_key(|c| c.measured_ns)
        .expect("the declared layout is always measured");
    let declared = advice.declared();
    let _ = writeln!(
        out,
        "\nFastest measured: **{} ({})**, {:.2}× the declared layout's time.\n",
        best.role,
        best.backend,
        best.measured_ns as f64 / declared.measured_ns.max(1) as f64,
    );
}

fn sparse_list(c: &Candidate) -> String {
    match (c.backend.as_str(), c.sparse.is_empty()) {
        ("hybrid", true) => "none".to_owned(),
        ("hybrid", false) => c.sparse.join(", "),
        _ => "(one storage for all)".to_owned(),
    }
}

fn apply(out: &mut String, advice: &Advice) {
    out.push_str("## Apply it\n\n");
    let advised = advice.advised();
    let fastest = advice
        .candidates
        .iter()
        .filter(|c| c.role == "advised" || c.role.ends_with(" backend"))
        .min_by_key(|c| c.measured_ns)
        .unwrap_or(advised);
    let feature = fastest.backend.as_str();
    let _ = writeln!(
        out,
        "Facade feature: `ecs = {{ features = [\"{feature}\"] }}`, measured fastest of the \
         advised hybrid layout ({}) and the archetype and sparse backends.\n",
        format_time(advised.measured_ns as f64)
    );
    let changes: Vec<_> = advice.changes().collect();
    if changes.is_empty() {
        out.push_str("The declared layout is the advised one: nothing to change.\n\n");
        return;
    }
    if feature != "hybrid" {
        out.push_str(
            "With the `hybrid` feature instead, the advised layout is these attributes:\n\n",
        );
    }
    out.push_str("```rust\n");
    for c in &changes {
        let _ = writeln!(
            out,
            "#[component(storage = \"{}\")] // on {}",
            c.advised, c.name
        );
    }
    out.push_str("```\n\n");
}

fn every_layout(out: &mut String, accuracy: &Accuracy) {
    let best = &accuracy.layouts[accuracy.fastest];
    let ranked_first = &accuracy.layouts[accuracy.predicted_best];
    let _ = writeln!(
        out,
        "## Every layout, measured\n\n{} layouts replayed. Prediction error (|predicted / \
         measured − 1|): median {:.1} %, worst {:.1} %. The model's first choice ({}) \
         measured {:.3}× the fastest layout found ({}).\n",
        accuracy.layouts.len(),
        accuracy.median_error * 100.0,
        accuracy.worst_error * 100.0,
        sparse_list(ranked_first),
        accuracy.advised_over_fastest,
        sparse_list(best),
    );
    out.push_str(
        "| sparse components | predicted | measured | predicted / measured |\n|---|---|---|---|\n",
    );
    let mut order: Vec<&Candidate> = accuracy.layouts.iter().collect();
    order.sort_by_key(|c| c.measured_ns);
    for c in order {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            sparse_list(c),
            c.predicted_ns.map_or("—".to_owned(), format_time),
            format_time(c.measured_ns as f64),
            c.accuracy().map_or("—".to_owned(), |a| format!("{a:.2}")),
        );
    }
    out.push('\n');
}

fn prices(out: &mut String, advice: &Advice) {
    let m = &advice.model;
    // The model's key ends with this build's file, a path on this machine: left out.
    let name = super::model::machine_name();
    let machine = match m.machine.starts_with(&name) {
        true => name,
        false => m.machine.clone(),
    };
    let _ = writeln!(
        out,
        "## The model's prices\n\nCalibrated on {} in {:.1} s ({} samples); predicted time = \
         Σ count × price.\n\n| count | price, each |\n|---|---|",
        machine,
        m.seconds,
        m.samples.len()
    );
    for (name, price) in m.named_prices() {
        let _ = writeln!(out, "| {name} | {price:.3} ns |");
    }
    out.push('\n');
}
