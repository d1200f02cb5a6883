//! Seed 001's scaling table in the report: the seed's table shape (run time, index memory,
//! µs per entity) for the prototype chain and the legacy index, per backend, with the seed's
//! numbers beside ours and the targets checked on this run's rows.

use std::fmt::Write;

use crate::workloads::seed001::{self, ScalingRow, ScalingTable, SEED_LEGACY, SEED_NEW};

/// Appends the table (one per backend) and its targets to `out`.
pub fn render(out: &mut String, table: &ScalingTable) {
    let _ = writeln!(
        out,
        "\n## Seed 001: entity index scaling (prototype chain vs legacy index)\n\n\
         Totals of entities created (live entities stay under ~60,000: part are deleted as \
         the test runs). Time: the whole stream (create with 1–11 named instances from 75 \
         templates, look-ups by name, deletes, garbage collection). Memory: the index's \
         peak heap (prototype chain: its per-slot array and prototype registry; legacy: \
         its entity → list map). Look-up: one find by name. Each row is the faster of two \
         runs per index (run alternately), as one run of this cache-bound stream on a \
         shared machine can come out half again slower. In parentheses: the seed's \
         numbers (its machine, its engine).\n"
    );
    let mut backends: Vec<&str> = table.rows.iter().map(|r| r.backend.as_str()).collect();
    backends.dedup();
    for backend in backends {
        let rows: Vec<&ScalingRow> = table.rows.iter().filter(|r| r.backend == backend).collect();
        let _ = writeln!(out, "### `{backend}`\n");
        let _ = writeln!(
            out,
            "| entities | time new (s) | time legacy (s) | memory new (MB) | memory legacy (MB) \
             | µs/entity new | µs/entity legacy | look-up new (ns) | look-up legacy (ns) |"
        );
        let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (i, row) in rows.iter().enumerate() {
            let (label, seed_new, seed_legacy) = match (SEED_NEW.get(i), SEED_LEGACY.get(i)) {
                (Some(n), Some(l)) => (n.0.to_owned(), Some(*n), Some(*l)),
                _ => (row.new.entities.to_string(), None, None),
            };
            let seed = |v: Option<f64>, digits: usize| {
                v.map_or(String::new(), |v| format!(" ({v:.digits$})"))
            };
            let _ = writeln!(
                out,
                "| {label} | {:.3}{} | {:.3}{} | {:.3}{} | {:.3}{} | {:.3}{} | {:.3}{} | {:.1} | {:.1} |",
                row.new.seconds,
                seed(seed_new.map(|s| s.1), 2),
                row.legacy.seconds,
                seed(seed_legacy.map(|s| s.1), 2),
                row.new.index_bytes as f64 / 1e6,
                seed(seed_new.map(|s| s.2), 2),
                row.legacy.index_bytes as f64 / 1e6,
                seed(seed_legacy.map(|s| s.2), 2),
                row.new.micros_per_entity(),
                seed(seed_new.map(|s| s.3), 3),
                row.legacy.micros_per_entity(),
                seed(seed_legacy.map(|s| s.3), 3),
                row.new.nanos_per_lookup(),
                row.legacy.nanos_per_lookup(),
            );
        }
        let registry = rows.iter().map(|r| r.new.registry_bytes).max().unwrap_or(0);
        let _ = writeln!(
            out,
            "\nPrototype registry at most {:.1} KiB (the seed: < 30 KB).\n",
            registry as f64 / 1024.0
        );
        for (what, value, met) in seed001::targets(&rows) {
            let verdict = match value {
                None => "not measured at this scale".to_owned(),
                Some(v) => format!("{v:.2} {}", if met { "✓ met" } else { "✗ missed" }),
            };
            let _ = writeln!(out, "- {what}: {verdict}");
        }
        out.push('\n');
    }
}
