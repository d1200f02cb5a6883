//! The baseline comparison passes and fails as documented in `report::compare`.

use std::collections::BTreeMap;

use ecs_bench::report::compare::{compare, Baseline, Options, RatioEntry, DEFAULT_THRESHOLD};
use ecs_bench::Scale;

/// (runner, ratio to fastest, median ns).
type Entry<'a> = (&'a str, f64, f64);

fn baseline(rows: &[(&str, &[Entry])]) -> Baseline {
    let ratios = rows
        .iter()
        .map(|(workload, runners)| {
            let runners: BTreeMap<String, RatioEntry> = runners
                .iter()
                .map(|&(runner, ratio, median_ns)| {
                    (runner.to_owned(), RatioEntry { ratio, median_ns })
                })
                .collect();
            (workload.to_string(), runners)
        })
        .collect();
    Baseline {
        schema: 1,
        scale: Scale::Quick,
        machine: "test".into(),
        refresh: String::new(),
        ratios,
    }
}

const MS: f64 = 1e6;

#[test]
fn unchanged_and_noisy_ratios_pass() {
    let base = baseline(&[("f/w", &[("archetype", 1.0, MS), ("sparse", 2.0, 2.0 * MS)])]);
    // Every machine twice as slow, ratios a bit noisy: passes.
    let now = baseline(&[(
        "f/w",
        &[("archetype", 1.0, 2.0 * MS), ("sparse", 2.9, 5.8 * MS)],
    )]);
    let result = compare(&base, &now, Options::default());
    assert!(result.passed(), "{result:?}");
    assert_eq!(result.compared, 2);
}

#[test]
fn a_ratio_moving_past_the_threshold_fails_either_way() {
    let base = baseline(&[("f/w", &[("archetype", 1.0, MS), ("sparse", 2.0, 2.0 * MS)])]);
    let slower = baseline(&[("f/w", &[("archetype", 1.0, MS), ("sparse", 6.5, 6.5 * MS)])]);
    let result = compare(&base, &slower, Options::default());
    assert_eq!(result.failures.len(), 1, "{result:?}");
    assert!(result.failures[0].contains("sparse"));

    // Sparse becomes the fastest by far: archetype's ratio rises 1 → 4, sparse's falls 2 → 1.
    let faster = baseline(&[("f/w", &[("archetype", 4.0, 4.0 * MS), ("sparse", 1.0, MS)])]);
    let result = compare(&base, &faster, Options::default());
    assert_eq!(result.failures.len(), 1, "{result:?}");
    assert!(result.failures[0].contains("archetype"));
}

#[test]
fn the_threshold_is_configurable() {
    let base = baseline(&[("f/w", &[("a", 1.0, MS), ("b", 2.0, 2.0 * MS)])]);
    let now = baseline(&[("f/w", &[("a", 1.0, MS), ("b", 5.0, 5.0 * MS)])]);
    assert!(compare(&base, &now, Options::default()).passed());
    let strict = Options {
        threshold: 2.0,
        ..Options::default()
    };
    assert!(!compare(&base, &now, strict).passed());
    assert_eq!(DEFAULT_THRESHOLD, 3.0);
}

#[test]
fn tiny_workloads_are_skipped() {
    let base = baseline(&[("f/tiny", &[("a", 1.0, 500.0), ("b", 1.2, 600.0)])]);
    let now = baseline(&[("f/tiny", &[("a", 1.0, 500.0), ("b", 9.0, 4500.0)])]);
    let result = compare(&base, &now, Options::default());
    assert!(result.passed(), "{result:?}");
    assert_eq!(result.compared, 0);
    assert!(result.notes.iter().any(|n| n.contains("noise floor")));
}

#[test]
fn new_and_missing_entries_are_notes() {
    let base = baseline(&[("f/old", &[("a", 1.0, MS)]), ("f/w", &[("a", 1.0, MS)])]);
    let now = baseline(&[
        ("f/new", &[("a", 1.0, MS)]),
        ("f/w", &[("a", 1.0, MS), ("hybrid", 1.5, 1.5 * MS)]),
    ]);
    let result = compare(&base, &now, Options::default());
    assert!(result.passed(), "{result:?}");
    assert!(result.notes.iter().any(|n| n.contains("f/old")));
    assert!(result.notes.iter().any(|n| n.contains("f/new")));
    assert!(result.notes.iter().any(|n| n.contains("hybrid")));
}

#[test]
fn scale_mismatch_fails() {
    let base = baseline(&[("f/w", &[("a", 1.0, MS)])]);
    let mut now = base.clone();
    now.scale = Scale::Full;
    assert!(!compare(&base, &now, Options::default()).passed());
}

#[test]
fn a_new_faster_runner_does_not_move_the_others() {
    let base = baseline(&[("f/w", &[("archetype", 1.2, 1.2 * MS), ("sparse", 1.0, MS)])]);
    // A new backend four times faster than the rest: the others' ratios are still taken
    // over the fastest runner the baseline knows, so nothing moved; the newcomer is a note.
    let now = baseline(&[(
        "f/w",
        &[
            ("archetype", 4.8, 1.2 * MS),
            ("sparse", 4.0, MS),
            ("array", 1.0, 0.25 * MS),
        ],
    )]);
    let result = compare(&base, &now, Options::default());
    assert!(result.passed(), "{result:?}");
    assert_eq!(result.compared, 2);
    assert!(result.notes.iter().any(|n| n.contains("array: new")));

    // A real move among the common runners still fails with the newcomer present.
    let moved = baseline(&[(
        "f/w",
        &[
            ("archetype", 16.0, 4.0 * MS),
            ("sparse", 4.0, MS),
            ("array", 1.0, 0.25 * MS),
        ],
    )]);
    let result = compare(&base, &moved, Options::default());
    assert_eq!(result.failures.len(), 1, "{result:?}");
    assert!(result.failures[0].contains("archetype"), "{result:?}");
}
