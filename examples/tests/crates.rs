//! The crates example: the changed render's work follows the 100 crates that moved, on every
//! backend (crates drawn are counted, not timed, so the check does not depend on the machine).

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/crates.rs"]
mod crates;

use examples::story::{measured_lines, shared_lines, Size};

#[test]
fn the_changed_render_draws_what_moved() {
    let text = crates::run(Size::Small, false);
    assert_eq!(
        shared_lines(&text),
        [
            "10,000 static crates and 100 moving ones; each frame the 100 move, then:",
            "  changed render: Query<(&CratePos, &Animation), Or<(Changed<CratePos>, Changed<Animation>)>>",
            "  full scan:      Query<(&CratePos, &Animation)>, every crate",
            "work per frame (20 frames): the changed render drew 100 crates, the full scan 10,100",
            "the changed render does 1/101 of the scan's work: its cost follows what moved",
            "where the memory went (the change logs are what tracking costs):",
        ]
    );
    let measured = measured_lines(&text);
    assert_eq!(measured.len(), 1, "{text}");
    assert!(measured[0].starts_with("time per frame (median): changed render "));
    let layout = format!("[{}] ", ecs::BACKEND);
    assert!(
        text.lines()
            .any(|l| l.starts_with(&layout) && l.contains("change logs of CratePos: 100 entries")),
        "the 100 moves of the last frame are in CratePos's change logs:\n{text}"
    );
}
