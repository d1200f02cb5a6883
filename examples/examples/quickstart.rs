//! Quickstart: spawn, query, change, despawn — the same program on every backend.
//!
//! ```text
//! cargo run -p examples --example quickstart                    # archetype tables
//! cargo run -p examples --example quickstart --features sparse  # sparse sets
//! cargo run -p examples --example quickstart --features hybrid  # Docked in a sparse set
//! ```
//! Both print the same lines (results are sorted, since backends iterate in different orders).

use ecs::prelude::*;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Debug)]
struct Name(&'static str);

/// A tag: ships that are docked do not move. Docking comes and goes, so in a hybrid world it
/// lives in a sparse set and docking moves no table row.
#[derive(Component)]
#[component(storage = "sparse")]
struct Docked;

/// What every ship is spawned with.
#[derive(Bundle)]
struct Ship {
    name: Name,
    position: Position,
    velocity: Velocity,
}

fn main() {
    let mut world = World::new();
    let ships = [
        ("Aurora", 0.0, 1.0),
        ("Borealis", 2.0, -1.0),
        ("Comet", -3.0, 0.5),
    ];
    for (name, x, vx) in ships {
        world.spawn(Ship {
            name: Name(name),
            position: Position { x, y: 0.0 },
            velocity: Velocity { x: vx, y: 1.0 },
        });
    }
    let station = world.spawn((Name("Station"), Position { x: 10.0, y: 10.0 }));
    let comet = world
        .query::<(Entity, &Name)>()
        .find(|(_, n)| n.0 == "Comet")
        .map(|(e, _)| e)
        .expect("comet was spawned");
    world.insert(comet, Docked).expect("comet is alive");

    for _ in 0..3 {
        world
            .query_filtered::<(&mut Position, &Velocity), Without<Docked>>()
            .for_each(|(p, v)| {
                p.x += v.x;
                p.y += v.y;
            });
    }

    let mut lines: Vec<String> = world
        .query::<(&Name, &Position, Option<&Velocity>)>()
        .map(|(n, p, v)| {
            format!(
                "{:<9} at ({:>5.1}, {:>5.1}) moving: {}",
                n.0,
                p.x,
                p.y,
                v.is_some()
            )
        })
        .collect();
    lines.sort();
    for line in &lines {
        println!("{line}");
    }

    world.despawn(station).expect("station is alive");
    println!(
        "after despawn: {} entities, station alive: {}",
        world.len(),
        world.contains(station)
    );
    println!(
        "docked ships: {}",
        world.query_filtered::<&Name, With<Docked>>().count()
    );
    match world.get::<Position>(station) {
        Some(_) => println!("stale handle answered!"),
        None => println!("stale handle: no position (as expected)"),
    }
}
