//! Hierarchy: a small scene graph. Each node has a local offset from its parent; a pass down
//! the tree computes global positions (parents before children), a parent moves and its
//! subtree follows, a moon is moved to another planet, a would-be cycle is refused, and a
//! branch is despawned recursively — printing the same lines on every backend.
//!
//! ```text
//! cargo run -p examples --example hierarchy                    # archetype tables
//! cargo run -p examples --example hierarchy --features sparse  # sparse sets
//! cargo run -p examples --example hierarchy --features hybrid  # links in both
//! ```

use std::fmt::Write;

use ecs::prelude::*;

/// Offset from the parent (from the origin for a root).
#[derive(Component, Clone, Copy)]
struct Local(i32, i32);

/// Where the node is in the world: its parent's `Global` plus its `Local`.
#[derive(Component, Clone, Copy, Default)]
struct Global(i32, i32);

#[derive(Component)]
struct Name(&'static str);

/// Computes every `Global`: each root from its `Local`, then its descendants depth-first,
/// so a parent is always done before its children.
fn propagate(world: &mut World) {
    let roots: Vec<Entity> = world
        .query_filtered::<Entity, (With<Local>, Without<ChildOf>)>()
        .collect();
    for root in roots {
        let Local(x, y) = *world.get::<Local>(root).unwrap();
        *world.get_mut::<Global>(root).unwrap() = Global(x, y);
        let subtree: Vec<Entity> = world.descendants(root).unwrap().collect();
        for node in subtree {
            let parent = world
                .parent(node)
                .unwrap()
                .expect("a descendant has a parent");
            let Global(px, py) = *world.get::<Global>(parent).unwrap();
            let Local(x, y) = *world.get::<Local>(node).unwrap();
            *world.get_mut::<Global>(node).unwrap() = Global(px + x, py + y);
        }
    }
}

/// The tree under `root`, indented by depth, with each node's global position.
fn print_tree(world: &World, root: Entity, out: &mut String) {
    let line = |node: Entity, out: &mut String| {
        let depth = world.ancestors(node).unwrap().count();
        let Global(x, y) = *world.get::<Global>(node).unwrap();
        let name = world.get::<Name>(node).unwrap().0;
        writeln!(
            out,
            "{:indent$}{name} at ({x}, {y})",
            "",
            indent = 2 * depth
        )
        .unwrap();
    };
    line(root, out);
    for node in world.descendants(root).unwrap() {
        line(node, out);
    }
}

/// Each child with its parent's name, through a query over `ChildOf` (sorted: the order
/// of a query depends on the backend).
fn print_links(world: &mut World, out: &mut String) {
    let pairs: Vec<(&'static str, Entity)> = world
        .query::<(&Name, &ChildOf)>()
        .map(|(name, link)| (name.0, link.parent()))
        .collect();
    let mut lines: Vec<String> = pairs
        .into_iter()
        .map(|(child, parent)| format!("{child} orbits {}", world.get::<Name>(parent).unwrap().0))
        .collect();
    lines.sort();
    writeln!(out, "links: {}", lines.join(", ")).unwrap();
}

/// Spawns a node as the last child of `parent`.
fn node(world: &mut World, parent: Entity, name: &'static str, x: i32, y: i32) -> Entity {
    world
        .spawn_child(parent, (Name(name), Local(x, y), Global::default()))
        .unwrap()
}

/// Plays the scene and returns what it printed.
pub fn run() -> String {
    let mut out = String::new();
    let mut world = World::new();
    examples::trace::start(&mut world);
    let mut moved = world.query_state::<&Name, Changed<ChildOf>>().unwrap();

    let sun = world.spawn((Name("sun"), Local(0, 0), Global::default()));
    let earth = node(&mut world, sun, "earth", 10, 0);
    let moon = node(&mut world, earth, "moon", 0, 2);
    let mars = node(&mut world, sun, "mars", 0, 15);
    node(&mut world, mars, "phobos", 1, 0);
    node(&mut world, mars, "deimos", 0, -2);
    propagate(&mut world);
    print_tree(&world, sun, &mut out);
    print_links(&mut world, &mut out);
    moved.iter(&world).for_each(drop); // the first run sees every new link

    writeln!(out, "-- the sun moves to (5, 5): everything follows").unwrap();
    *world.get_mut::<Local>(sun).unwrap() = Local(5, 5);
    propagate(&mut world);
    print_tree(&world, sun, &mut out);

    writeln!(out, "-- the moon moves to mars").unwrap();
    world.set_parent(moon, mars).unwrap();
    propagate(&mut world);
    print_tree(&world, sun, &mut out);
    let names: Vec<&str> = moved.iter(&world).map(|n| n.0).collect();
    writeln!(out, "reparented: {}", names.join(", ")).unwrap();

    writeln!(out, "-- the sun cannot orbit the moon").unwrap();
    match world.set_parent(sun, moon) {
        Err(EcsError::HierarchyCycle { .. }) => writeln!(out, "refused: a cycle").unwrap(),
        other => writeln!(out, "unexpected: {other:?}").unwrap(),
    }

    writeln!(out, "-- mars and its moons are despawned").unwrap();
    world.despawn_recursive(mars).unwrap();
    print_tree(&world, sun, &mut out);
    let children: Vec<&str> = world
        .children(sun)
        .unwrap()
        .map(|c| world.get::<Name>(c).unwrap().0)
        .collect();
    writeln!(out, "children of the sun: {}", children.join(", ")).unwrap();
    writeln!(out, "{} entities", world.len()).unwrap();
    examples::trace::finish(&mut world);
    out
}

fn main() {
    print!("{}", run());
    // On stderr, so the printed scene is byte-identical on every backend.
    eprintln!("(backend: {BACKEND})");
}
