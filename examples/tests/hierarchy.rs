//! The hierarchy example prints the same scene on every backend (CI compares its output
//! across backends); here, exactly what it prints.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/hierarchy.rs"]
mod hierarchy;

#[test]
fn the_scene_graph_follows_its_parents() {
    let expected = concat!(
        "sun at (0, 0)\n",
        "  earth at (10, 0)\n",
        "    moon at (10, 2)\n",
        "  mars at (0, 15)\n",
        "    phobos at (1, 15)\n",
        "    deimos at (0, 13)\n",
        "links: deimos orbits mars, earth orbits sun, mars orbits sun, moon orbits earth, phobos orbits mars\n",
        "-- the sun moves to (5, 5): everything follows\n",
        "sun at (5, 5)\n",
        "  earth at (15, 5)\n",
        "    moon at (15, 7)\n",
        "  mars at (5, 20)\n",
        "    phobos at (6, 20)\n",
        "    deimos at (5, 18)\n",
        "-- the moon moves to mars\n",
        "sun at (5, 5)\n",
        "  earth at (15, 5)\n",
        "  mars at (5, 20)\n",
        "    phobos at (6, 20)\n",
        "    deimos at (5, 18)\n",
        "    moon at (5, 22)\n",
        "reparented: moon\n",
        "-- the sun cannot orbit the moon\n",
        "refused: a cycle\n",
        "-- mars and its moons are despawned\n",
        "sun at (5, 5)\n",
        "  earth at (15, 5)\n",
        "children of the sun: earth\n",
        "2 entities\n",
    );
    assert_eq!(hierarchy::run(), expected);
}
