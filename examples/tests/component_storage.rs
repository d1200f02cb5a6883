//! The component_storage example: the per-type API's answers and the values each removal
//! policy moves are exact on every backend; the measured memory shows the seed's trade-off
//! (a sparse set wins for large, rare components and loses for small, common ones).

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/component_storage.rs"]
mod component_storage;

use examples::story::{measured_lines, shared_lines, Size};

#[test]
fn crud_removals_and_memory() {
    let text = component_storage::run(Size::Small, false);
    assert_eq!(
        shared_lines(&text),
        [
            "one component type in one sparse set (ecs_sparse::ComponentSet<Health>):",
            "  add e100..e500      count 5, all [e100: 10, e200: 20, e300: 30, e400: 40, e500: 50]",
            "  has e300 true, has e301 false, get e300 Some(Health(30))",
            "  get_mut e300 += 5   all [e100: 10, e200: 20, e300: 35, e400: 40, e500: 50]",
            "  remove e200         Some(Health(20)); the last value moved into its place: [e100: 10, e500: 50, e300: 35, e400: 40]",
            "  remove_ordered e500 Some(Health(50)); the values after it shifted down: [e100: 10, e300: 35, e400: 40]",
            "  3 values, room for 64, 1 sparse page(s) of 1,024 indices",
            "removing all 2,000 values, closing each hole by swapping (O(1)) or by shifting (O(n)):",
            "  linear   swap moved     1,000 values, shift moved     1,999,000",
            "  reverse  swap moved         0 values, shift moved             0",
            "  random   swap moved     1,991 values, shift moved       976,775",
            "the same removals through World::remove on this build's backend (2,000 entities):",
            "memory of one component in a sparse set / in an array indexed by entity, 2,000 entities:",
            "  the seed's formula (8N + C·N·U against C·N + N/8): below 1 the sparse set is smaller",
            "    8 B:  10% 1.08    50% 1.48   100% 1.97",
            "   32 B:  10% 0.35    50% 0.75   100% 1.25",
            "  128 B:  10% 0.16    50% 0.56   100% 1.06",
        ]
    );
    let measured = measured_lines(&text);
    // The sparse backend's rows come first: 128-byte values at 10 % cost less than the
    // array's holes; 8-byte values on every entity cost more than the array.
    let ratio = |row: &str, column: usize| -> f64 {
        let line = measured
            .iter()
            .find(|l| l.trim_start().starts_with(row))
            .unwrap_or_else(|| panic!("no {row} row:\n{text}"));
        let cell = line.split('%').nth(column + 1).expect("a cell");
        cell.split_whitespace()
            .next()
            .unwrap()
            .parse()
            .expect("a ratio")
    };
    assert!(ratio("128 B", 0) < 1.0, "{text}");
    assert!(ratio("8 B", 2) > 1.0, "{text}");
    let removal_times = measured
        .iter()
        .filter(|l| l.contains("swap") && l.contains("shift"))
        .count();
    assert_eq!(removal_times, 3, "{text}");
}
