//! Save and load: a small simulation (ships chasing targets, a convoy of escorts following
//! its leader, damage, deaths, new targets) is saved to a JSON file mid-run, loaded into a
//! fresh world, and continued. What it prints after the load matches a run that never
//! saved, line for line, on every backend.
//!
//! Two rules make that hold. A handle must not outlive its entity (a snapshot refuses
//! handles of entities it does not list), so a dying ship's chasers drop their `Target`.
//! And a tick must not depend on the order queries visit entities: a loaded world keeps
//! its entities in its own storage order, which need not be the saved world's, so every
//! chaser aims at where its target was before any chaser moved.
//!
//! ```text
//! cargo run -p examples --example save_load                       # both runs, compared
//! cargo run -p examples --example save_load -- save world.json    # run to tick 10, save
//! cargo run -p examples --example save_load -- load world.json    # a fresh process: load, go on
//! cargo run -p examples --example save_load --features sparse     # any backend
//! ```

use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs::prelude::*;
use ecs::snapshot::{Entries, SnapshotRegistry};
use serde::{Deserialize, Serialize};

#[derive(Component, Serialize, Deserialize, Clone, Copy, PartialEq, Debug)]
struct Position {
    x: i32,
    y: i32,
}

#[derive(Component, Serialize, Deserialize, Clone, Copy)]
struct Velocity {
    x: i32,
    y: i32,
}

#[derive(Component, Serialize, Deserialize)]
struct Health(u32);

#[derive(Component, Serialize, Deserialize)]
struct Name(String);

/// The ship this one chases (a handle: rewritten when a snapshot is loaded).
#[derive(Component, Serialize, Deserialize, MapEntities)]
struct Target(Entity);

/// How many steps a chaser takes towards its target per tick, on each axis.
#[derive(Component, Serialize, Deserialize, Clone, Copy)]
struct Speed(i32);

/// Where an escort keeps station, relative to its parent.
#[derive(Component, Serialize, Deserialize, Clone, Copy)]
struct Station {
    dx: i32,
    dy: i32,
}

/// The simulation clock (a resource).
#[derive(Serialize, Deserialize)]
struct Tick(u32);

/// What a snapshot of this simulation holds, under stable names.
fn registry() -> SnapshotRegistry<impl Entries> {
    SnapshotRegistry::new()
        .component::<Position>("Position")
        .component::<Velocity>("Velocity")
        .component::<Health>("Health")
        .component::<Name>("Name")
        .component_with_entities::<Target>("Target")
        .component::<Speed>("Speed")
        .component::<Station>("Station")
        .resource::<Tick>("Tick")
}

/// The opening scene: a convoy (a leader and two escorts), a raider chasing the leader, a
/// corsair chasing an escort, a hunter chasing the raider, a drifting rock.
fn setup() -> World {
    let mut world = World::new();
    world.insert_resource(Tick(0));
    let ship = |name: &str, x, y, vx, vy, hp| {
        (
            Name(name.to_owned()),
            Position { x, y },
            Velocity { x: vx, y: vy },
            Health(hp),
        )
    };
    let leader = world.spawn(ship("leader", 0, 0, 1, 0, 9));
    let mut escorts = Vec::new();
    for (name, dx, dy) in [("port escort", -1, 1), ("starboard escort", -1, -1)] {
        let escort = world
            .spawn_child(leader, ship(name, dx, dy, 0, 0, 3))
            .unwrap();
        world.insert(escort, Station { dx, dy }).unwrap();
        escorts.push(escort);
    }
    let raider = world.spawn(ship("raider", 12, 6, 0, 0, 2));
    world.insert(raider, (Target(leader), Speed(1))).unwrap();
    let hunter = world.spawn(ship("hunter", -6, -8, 0, 0, 2));
    world.insert(hunter, (Target(raider), Speed(2))).unwrap();
    let corsair = world.spawn(ship("corsair", 24, 8, 0, 0, 2));
    world
        .insert(corsair, (Target(escorts[0]), Speed(1)))
        .unwrap();
    world.spawn((
        Name("rock".into()),
        Position { x: 5, y: 5 },
        Velocity { x: 0, y: -1 },
    ));
    world
}

/// One tick: pick targets, move, chase, keep station, fight, and remove the dead.
fn step(world: &mut World) {
    world.resource_mut::<Tick>().unwrap().0 += 1;
    let tick = world.resource::<Tick>().unwrap().0;
    retarget(world);
    world
        .query_filtered::<(&mut Position, &Velocity), Without<Target>>()
        .for_each(|(p, v)| {
            p.x += v.x;
            p.y += v.y;
        });
    let chasers: Vec<(Entity, Entity)> = world
        .query::<(Entity, &Target)>()
        .map(|(e, t)| (e, t.0))
        .collect();
    // Every chaser aims at where its target is now, before any chaser moves: a loaded
    // world may visit entities in another order than the world it was saved from, so
    // each step must not depend on that order.
    let goals: Vec<Position> = chasers
        .iter()
        .map(|&(_, target)| *world.get::<Position>(target).unwrap())
        .collect();
    for (&(chaser, _), goal) in chasers.iter().zip(goals) {
        let Speed(speed) = *world.get::<Speed>(chaser).unwrap();
        let p = world.get_mut::<Position>(chaser).unwrap();
        p.x += (goal.x - p.x).clamp(-speed, speed);
        p.y += (goal.y - p.y).clamp(-speed, speed);
    }
    let escorts: Vec<Entity> = world.query_filtered::<Entity, With<Station>>().collect();
    for escort in escorts {
        let parent = world.parent(escort).unwrap().unwrap();
        let at = *world.get::<Position>(parent).unwrap();
        let station = *world.get::<Station>(escort).unwrap();
        *world.get_mut::<Position>(escort).unwrap() = Position {
            x: at.x + station.dx,
            y: at.y + station.dy,
        };
    }
    if tick % 3 == 0 {
        for &(chaser, target) in &chasers {
            let (a, b) = (
                *world.get::<Position>(chaser).unwrap(),
                *world.get::<Position>(target).unwrap(),
            );
            if (a.x - b.x).abs() + (a.y - b.y).abs() <= 2 {
                world.get_mut::<Health>(target).unwrap().0 -= 1;
            }
        }
    }
    let dead: Vec<Entity> = world
        .query::<(Entity, &Health)>()
        .filter(|(_, h)| h.0 == 0)
        .map(|(e, _)| e)
        .collect();
    for gone in dead {
        // No handle may outlive its entity: a snapshot refuses dangling handles.
        let orphans: Vec<Entity> = world
            .query::<(Entity, &Target)>()
            .filter(|(_, t)| t.0 == gone)
            .map(|(e, _)| e)
            .collect();
        for chaser in orphans {
            world.remove::<Target>(chaser).unwrap();
        }
        world.despawn_recursive(gone).unwrap();
    }
}

/// A chaser without a target hunts the nearest ship that chases another (its first, if two
/// are as near).
fn retarget(world: &mut World) {
    // The prey are the ships chasing before this step (not those given a target here).
    let prey: Vec<(Entity, Position, String)> = world
        .query_filtered::<(Entity, &Position, &Name), With<Target>>()
        .map(|(e, p, n)| (e, *p, n.0.clone()))
        .collect();
    let idle: Vec<Entity> = world
        .query_filtered::<Entity, (With<Speed>, Without<Target>)>()
        .collect();
    for chaser in idle {
        let at = *world.get::<Position>(chaser).unwrap();
        let nearest = prey
            .iter()
            .min_by_key(|(_, p, name)| ((p.x - at.x).abs() + (p.y - at.y).abs(), name.clone()));
        if let Some(&(target, _, _)) = nearest {
            world.insert(chaser, Target(target)).unwrap();
        }
    }
}

/// The state of every ship, by name.
fn report(world: &mut World, out: &mut String) {
    let tick = world.resource::<Tick>().unwrap().0;
    let mut lines: Vec<(String, String)> = Vec::new();
    let ships: Vec<Entity> = world.query_filtered::<Entity, With<Name>>().collect();
    for ship in ships {
        let name = &world.get::<Name>(ship).unwrap().0;
        let p = world.get::<Position>(ship).unwrap();
        let mut line = format!("{name} at ({}, {})", p.x, p.y);
        if let Some(hp) = world.get::<Health>(ship) {
            let _ = write!(line, ", hp {}", hp.0);
        }
        if let Some(target) = world.get::<Target>(ship) {
            let _ = write!(line, ", chasing {}", world.get::<Name>(target.0).unwrap().0);
        }
        if let Ok(Some(parent)) = world.parent(ship) {
            let _ = write!(line, ", escorting {}", world.get::<Name>(parent).unwrap().0);
        }
        lines.push((name.clone(), line));
    }
    lines.sort();
    let _ = writeln!(out, "tick {tick}: {} ships", lines.len());
    for (_, line) in lines {
        let _ = writeln!(out, "  {line}");
    }
}

/// Runs `ticks` ticks, reporting every fifth.
fn simulate(world: &mut World, ticks: u32, out: &mut String) {
    for _ in 0..ticks {
        step(world);
        world.trace_frame();
        if world.resource::<Tick>().unwrap().0 % 5 == 0 {
            report(world, out);
        }
    }
}

/// Saves `world` to `path` as pretty JSON; returns the line to print.
fn save(world: &World, path: &Path) -> String {
    let json = serde_json::to_string_pretty(&registry().save(world)).expect("the world saves");
    std::fs::write(path, &json).expect("the file is written");
    format!(
        "saved {} entities at tick {} ({} bytes of JSON)\n",
        world.len(),
        world.resource::<Tick>().unwrap().0,
        json.len()
    )
}

/// Loads the world saved at `path` into a fresh world.
fn load(path: &Path) -> World {
    let json = std::fs::read_to_string(path).expect("the file is read");
    let mut world = World::new();
    registry()
        .load(&mut world, &mut serde_json::Deserializer::from_str(&json))
        .expect("the snapshot loads");
    world
}

/// Both runs: one that never saves, one saved at tick 10 and loaded into a fresh world;
/// returns what it prints.
pub fn run() -> String {
    let mut out = String::new();
    let mut straight = String::new();
    let mut world = setup();
    examples::trace::start(&mut world);
    simulate(&mut world, 20, &mut straight);
    examples::trace::finish(&mut world);
    out.push_str("-- a run that never saves\n");
    out.push_str(&straight);

    out.push_str("-- the same run, saved at tick 10 and loaded into a fresh world\n");
    // One file per call: two runs in one process (tests run in parallel) must not share it.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let name = format!("save_load-{BACKEND}-{}-{run}.json", std::process::id());
    let path = std::env::temp_dir().join(name);
    let mut first = String::new();
    let mut world = setup();
    simulate(&mut world, 10, &mut first);
    out.push_str(&save(&world, &path));
    drop(world);
    let mut world = load(&path);
    let _ = std::fs::remove_file(&path);
    let mut second = String::new();
    simulate(&mut world, 10, &mut second);
    out.push_str(&second);
    let resumed = first + &second;
    let verdict = if resumed == straight {
        "matches"
    } else {
        "DIFFERS FROM"
    };
    let _ = writeln!(out, "the loaded run {verdict} the run that never saved");
    out
}

/// The two halves as two steps would run them (`save FILE`, then `load FILE`, possibly in
/// two processes): what each prints.
pub fn save_then_load(path: &Path) -> (String, String) {
    let mut world = setup();
    let mut first = String::new();
    simulate(&mut world, 10, &mut first);
    let saved = save(&world, path);
    drop(world);
    let mut world = load(path);
    let mut second = String::new();
    simulate(&mut world, 10, &mut second);
    (saved, second)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["save", path] => {
            let mut world = setup();
            let mut out = String::new();
            simulate(&mut world, 10, &mut out);
            print!("{out}{}", save(&world, Path::new(path)));
        }
        ["load", path] => {
            let mut world = load(Path::new(path));
            let mut out = String::new();
            simulate(&mut world, 10, &mut out);
            print!("{out}");
        }
        [] => print!("{}", run()),
        _ => eprintln!("usage: save_load [save FILE | load FILE]"),
    }
}
