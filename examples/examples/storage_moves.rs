//! Storage moves: one component changes storage while the world runs.
//!
//! A level is built: every entity gains and loses `Heat` over and over (a component that
//! comes and goes is cheapest in a sparse set, where adding it moves no row). Then the play
//! phase joins `Heat` with position and velocity every frame (a join is cheapest when `Heat`
//! is one more column of the entities' table). On the hybrid backend the program moves
//! `Heat` between the two with `World::set_storage` at the phase change, and times each
//! phase and each move. `Heat` is declared `#[component(movable)]`, which is what allows
//! the move. The archetype and sparse backends keep every component in one kind of
//! storage: they refuse the move and the program runs on as it is.
//!
//! ```text
//! cargo run --release -p examples --example storage_moves --features hybrid
//! cargo run --release -p examples --example storage_moves --features hybrid -- --entities 1000000
//! ```

use std::time::{Duration, Instant};

use ecs::prelude::*;
use examples::story::{median_time, number_arg, Out, Size};

#[derive(Component, Clone, Copy)]
struct Position(f32, f32);

#[derive(Component, Clone, Copy)]
struct Velocity(f32, f32);

/// Comes and goes while the level is built; joined every frame in play.
#[derive(Component, Clone, Copy)]
#[component(movable)]
struct Heat(f32);

/// The build phase: `rounds` times, every entity of `entities` gains `Heat` and loses it
/// again.
fn build(world: &mut World, entities: &[Entity], rounds: usize) -> Duration {
    let start = Instant::now();
    for _ in 0..rounds {
        for &e in entities {
            world.insert(e, Heat(1.0)).unwrap();
        }
        for &e in entities {
            world.remove::<Heat>(e).unwrap();
        }
    }
    start.elapsed()
}

/// One frame of play: the join of position, velocity and heat.
fn frame(world: &mut World) -> f64 {
    let mut sum = 0.0;
    world
        .query::<(&mut Position, &Velocity, &Heat)>()
        .for_each(|(p, v, h)| {
            p.0 += v.0 * h.0;
            p.1 += v.1 * h.0;
            sum += f64::from(p.0);
        });
    sum
}

/// Moves `Heat` to `kind`, saying what happened and how long it took.
fn move_heat(world: &mut World, kind: StorageKind, out: &mut Out) {
    if world.storage_kind::<Heat>() == Some(kind) {
        return out.backend(format!("Heat is already in {kind:?} storage"));
    }
    let start = Instant::now();
    match world.set_storage::<Heat>(kind) {
        Ok(()) => {
            let took = start.elapsed();
            let values = world.query::<&Heat>().count();
            out.backend(format!("Heat moved to {kind:?} storage, {values} values"));
            out.measured(format!(
                "moving {values} values of Heat to {kind:?} storage: {:.2} ms",
                took.as_secs_f64() * 1e3
            ));
        }
        Err(err) => out.backend(format!("Heat stays: {err}")),
    }
}

/// Gives every entity of `entities` a `Heat`, in an order unrelated to their rows (a
/// stride through the list), so that a sparse set of them does not follow the table.
fn heat_scattered(world: &mut World, entities: &[Entity]) {
    let len = entities.len();
    let stride = if len % 7919 == 0 { 7907 } else { 7919 };
    for i in 0..len {
        world.insert(entities[i * stride % len], Heat(1.0)).unwrap();
    }
}

/// Runs the story at `size` and returns its output (printed as it goes when `echo`).
pub fn run(size: Size, echo: bool) -> String {
    let n = number_arg("--entities", "entities")
        .unwrap_or(size.pick(100_000, 2_000))
        .max(2);
    let mut out = Out::new(BACKEND, echo);
    let mut world = World::new();
    let entities = world
        .spawn_batch((0..n).map(|i| (Position(i as f32, 0.0), Velocity(1.0, 0.5))))
        .to_vec();
    let (builders, settled) = entities.split_at(n / 2);
    for &e in settled {
        world.insert(e, Heat(0.5)).unwrap();
    }
    out.line(format!(
        "{n} entities, half with Heat; the build adds and removes Heat on the other half"
    ));
    let rounds = 5;
    let in_tables = build(&mut world, builders, rounds);
    move_heat(&mut world, StorageKind::Sparse, &mut out);
    let in_set = build(&mut world, builders, rounds);
    out.measured(format!(
        "build, {rounds} rounds: {:.2} ms before the move, {:.2} ms after",
        in_tables.as_secs_f64() * 1e3,
        in_set.as_secs_f64() * 1e3
    ));

    heat_scattered(&mut world, builders);
    let runs = size.pick(21, 3);
    let before = median_time(runs, || {
        frame(&mut world);
    });
    move_heat(&mut world, StorageKind::Table, &mut out);
    let after = median_time(runs, || {
        frame(&mut world);
    });
    out.measured(format!(
        "a frame's join of position, velocity and heat: {:.1} us before the move, {:.1} us \
         after",
        before.as_secs_f64() * 1e6,
        after.as_secs_f64() * 1e6
    ));
    let checksum = frame(&mut world);
    out.line(format!(
        "after {} frames, positions sum to {checksum:.1}",
        2 * runs + 1
    ));
    out.finish()
}

fn main() {
    run(Size::from_env_and_args(), true);
}
