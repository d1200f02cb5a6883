//! `report` at test scale writes report.md, report.json and the SVG charts, and the JSON
//! round-trips into the baseline comparison.

use ecs_bench::alloc_counter::CountingAllocator;
use ecs_bench::report::compare::{compare_report, Baseline, Options};
use ecs_bench::report::{self, model::Report, Config};
use ecs_bench::Scale;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn writes_every_output_file() {
    let dir = std::env::temp_dir().join(format!("ecs-bench-report-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);

    // Every runner, the reference backend included, so the test does not depend on which
    // backends a default report lists.
    let mut config = Config::new(Scale::Test);
    config.runners = ecs_bench::Runner::all();
    let report = report::run(&config);
    assert!(report.checksums_agree(), "{:#?}", report.workloads);
    assert!(report.meta.counting_allocator);
    let written = report::write(&report, &dir).expect("report written");

    for name in [
        "report.md",
        "report.json",
        "chart-community.svg",
        "chart-seed000.svg",
        "chart-seed002.svg",
        "chart-seed003.svg",
        "chart-seed004.svg",
        "memory-heatmap.svg",
    ] {
        let path = dir.join(name);
        assert!(written.contains(&path), "{name} not reported as written");
        let text = std::fs::read_to_string(&path).expect(name);
        assert!(!text.is_empty(), "{name} is empty");
        if name.ends_with(".svg") {
            assert!(text.contains("<svg"), "{name} is not an SVG");
        }
    }

    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for expected in [
        "simple_iter",
        "measured elsewhere",
        "`ecs_core::Schedule` (ab beside cd, ce once cd is done)",
        "crates_render_changed",
        "**crates: changed/scan**",
        "serialize",
        "MB/s)",
        "memory, sparse set vs linear array",
        "entity_index_legacy",
        "entity index scaling (prototype chain vs legacy index)",
        "prototype registry ≤ 32 KiB",
    ] {
        assert!(md.contains(expected), "report.md lacks {expected:?}");
    }

    let json = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let parsed: Report = serde_json::from_str(&json).expect("report.json parses");
    assert_eq!(parsed.workloads.len(), report.workloads.len());
    let scaling = parsed.entity_index_table.as_ref().expect("scaling table");
    assert!(scaling
        .rows
        .iter()
        .all(|r| r.new.checksum == r.legacy.checksum && r.new.entities > 0));
    let table = parsed.memory_table.as_ref().expect("memory table");
    assert_eq!(table.cells.len(), 160);
    assert!(table
        .cells
        .iter()
        .all(|c| c.linear_bytes > 0 && c.sparse_bytes > 0));

    // Where the time went: every workload and both tables are timed, per family in the
    // report's last line.
    assert!(parsed.workloads.iter().all(|w| w.seconds > 0.0));
    let tables: Vec<&str> = parsed
        .table_seconds
        .iter()
        .map(|(t, _)| t.as_str())
        .collect();
    assert_eq!(tables, ["seed004/memory_table", "seed001/scaling_table"]);
    let families = parsed.family_seconds();
    assert!((families.iter().map(|(_, s)| s).sum::<f64>() - parsed.total_seconds()).abs() < 1e-9);
    assert!(
        md.contains("Measuring took "),
        "report.md ends with the time per family"
    );

    // The baseline keeps ratios between this workspace's backends only: no `baseline`
    // runner, no peer crate, and no workload that only the hand-written baseline runs.
    let baseline = Baseline::from_report(&parsed);
    assert!(baseline.ratios.values().all(|runners| runners.len() >= 2
        && runners
            .keys()
            .all(|r| ["archetype", "sparse", "hybrid", "array", "vec"].contains(&r.as_str()))));
    assert!(!baseline
        .ratios
        .contains_key("seed004/remove_shift_linear_10k"));
    assert!(baseline.ratios.contains_key("community/simple_iter"));

    // A report compared with its own ratios passes.
    let comparison = compare_report(&baseline, &parsed, Options::default());
    assert!(comparison.passed(), "{comparison:?}");

    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn filters_and_backends_select() {
    let mut config = Config::new(Scale::Test);
    config.filters = vec!["simple_iter".into()];
    config.runners = vec![ecs_bench::Runner::Baseline];
    let report = report::run(&config);
    let names: Vec<&str> = report.workloads.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["simple_iter", "simple_iter_grouped"]);
    config.filters = vec!["community/simple_iter_g".into()];
    let report = report::run(&config);
    assert_eq!(report.workloads.len(), 1);
    assert_eq!(report.workloads[0].results.len(), 1);
    assert_eq!(report.workloads[0].results[0].runner, "baseline");
    assert!(report.memory_table.is_none());
}

#[test]
fn the_committed_report_still_loads() {
    // docs/report.json predates the removal of the report's `pending` list (it still has
    // `"pending": []`): an unknown field is ignored, so older reports load.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/report.json");
    let text = std::fs::read_to_string(&path).expect("docs/report.json is committed");
    let report: Report = serde_json::from_str(&text).expect("docs/report.json parses");
    assert!(!report.workloads.is_empty());
}
