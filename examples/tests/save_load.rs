//! The save_load example prints the same lines on every backend (CI compares its output
//! across backends); here, exactly what it prints, and that a world saved to a file and
//! loaded in a second step goes on as the one that never saved.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/save_load.rs"]
mod save_load;

#[test]
fn a_loaded_world_goes_on_as_the_saved_one() {
    let expected = concat!(
        "-- a run that never saves\n",
        "tick 5: 7 ships\n",
        "  corsair at (19, 3), hp 2, chasing port escort\n",
        "  hunter at (4, 2), hp 2, chasing raider\n",
        "  leader at (5, 0), hp 9\n",
        "  port escort at (4, 1), hp 3, escorting leader\n",
        "  raider at (7, 1), hp 2, chasing leader\n",
        "  rock at (5, 0)\n",
        "  starboard escort at (4, -1), hp 3, escorting leader\n",
        "tick 10: 6 ships\n",
        "  corsair at (14, 1), hp 2, chasing port escort\n",
        "  hunter at (10, 1), hp 2, chasing corsair\n",
        "  leader at (10, 0), hp 7\n",
        "  port escort at (9, 1), hp 3, escorting leader\n",
        "  rock at (5, -5)\n",
        "  starboard escort at (9, -1), hp 3, escorting leader\n",
        "tick 15: 5 ships\n",
        "  hunter at (12, 1), hp 2\n",
        "  leader at (15, 0), hp 7\n",
        "  port escort at (14, 1), hp 1, escorting leader\n",
        "  rock at (5, -10)\n",
        "  starboard escort at (14, -1), hp 3, escorting leader\n",
        "tick 20: 5 ships\n",
        "  hunter at (12, 1), hp 2\n",
        "  leader at (20, 0), hp 7\n",
        "  port escort at (19, 1), hp 1, escorting leader\n",
        "  rock at (5, -15)\n",
        "  starboard escort at (19, -1), hp 3, escorting leader\n",
        "-- the same run, saved at tick 10 and loaded into a fresh world\n",
        "saved 6 entities at tick 10 (2446 bytes of JSON)\n",
        "tick 15: 5 ships\n",
        "  hunter at (12, 1), hp 2\n",
        "  leader at (15, 0), hp 7\n",
        "  port escort at (14, 1), hp 1, escorting leader\n",
        "  rock at (5, -10)\n",
        "  starboard escort at (14, -1), hp 3, escorting leader\n",
        "tick 20: 5 ships\n",
        "  hunter at (12, 1), hp 2\n",
        "  leader at (20, 0), hp 7\n",
        "  port escort at (19, 1), hp 1, escorting leader\n",
        "  rock at (5, -15)\n",
        "  starboard escort at (19, -1), hp 3, escorting leader\n",
        "the loaded run matches the run that never saved\n",
    );
    assert_eq!(save_load::run(), expected);
}

#[test]
fn save_then_load_in_two_steps_prints_the_second_half() {
    let path = std::env::temp_dir().join(format!("save_load-test-{}.json", std::process::id()));
    let (saved, resumed) = save_load::save_then_load(&path);
    let _ = std::fs::remove_file(&path);
    let whole = save_load::run();
    assert!(whole.contains(&saved), "{saved}");
    assert!(whole.ends_with(&(resumed + "the loaded run matches the run that never saved\n")));
}
