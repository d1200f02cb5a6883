//! The arena example plays the same game on every backend (CI compares its output across
//! backends); here, what the game must show on any of them.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/arena.rs"]
mod arena;

#[test]
fn the_battle_plays_out() {
    let log = arena::run(40);
    // Fighters shoot on frames 3, 6, 9, ...: carriers' health drops and is reported once per
    // change; drones launch every fifth frame; a carrier falls and the shooting stops.
    assert!(log.contains("frame 3: blue-carrier at "), "{log}");
    assert!(log.contains("destroyed"), "{log}");
    assert!(log.contains("blue-carrier-drone1"), "{log}");
    assert!(log.ends_with(" entities\n"), "{log}");
    // Repairs (a parameter set) raise a carrier's health between hits: a reported value
    // above the previous one.
    assert!(log.contains("frame 4: blue-carrier at 20"), "{log}");
    // The dead are taken out with their values (the log prints the health they had).
    assert!(log.contains("blue-carrier destroyed at -2"), "{log}");
    // Regrouping swapped two positions at once; landing removed a bundle and inserted a
    // marker through `entity_mut`; the summary reads through `&World` and `entity`.
    assert!(
        log.contains("red-fighter0: health 10 at (-1, 2), landed at speed 1"),
        "{log}"
    );
    assert!(
        log.contains("red-fighter2: health 10 at (-1, 0), landed at speed 1"),
        "{log}"
    );
    // The observer of `Landed` logged each landing as it happened.
    assert!(log.contains("red-fighter0 landed"), "{log}");
    assert!(
        log.contains("the last carrier standing: red-carrier"),
        "{log}"
    );
    // Change detection: no frame reports an entity twice.
    let mut lines: Vec<&str> = log.lines().filter(|l| l.contains(" at ")).collect();
    let total = lines.len();
    lines.dedup();
    assert_eq!(lines.len(), total);
    assert_eq!(arena::run(40), log, "deterministic");
}
