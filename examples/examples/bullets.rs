//! Bullets (seed 000): a bullet-hell loop that spawns and despawns hundreds of entities every
//! frame, for 10,000 frames, and prints `memory_usage()` every 1,000 frames. On every
//! backend the number stays flat once the first wave has passed: a despawned bullet's slot
//! in the entity allocator, its row or its place in each sparse set is the next one reused.
//!
//! Seed 000 is the story of an engine whose per-type component arrays left a gap at every
//! removal and never reused it: memory grew with every bullet ever fired, not with the
//! bullets on screen. Here the flat line is what a swap-remove (the last value moves into the
//! hole) and a pre-linked free list of entity ids buy.
//!
//! ```text
//! cargo run --release -p examples --example bullets                    # archetype tables
//! cargo run --release -p examples --example bullets --features sparse  # sparse sets
//! cargo run -p examples --example bullets -- --small                   # 1,000 frames
//! ```

use std::time::Instant;

use ecs::prelude::*;
use ecs_bench::report::markdown::format_time;
use examples::story::{Out, Size};

#[derive(Component, Clone, Copy)]
struct Position(f32, f32);

#[derive(Component, Clone, Copy)]
struct Velocity(f32, f32);

/// Frames left before the bullet leaves the screen.
#[derive(Component, Clone, Copy)]
struct Lifetime(u16);

/// Bullets fired in frame `frame`: a wave of 150 to 500, repeating every 8 frames.
fn fired(frame: u64) -> u64 {
    150 + 50 * (frame % 8)
}

/// Bullet number `serial`: where it starts, how it flies, how long it lives (20 to 59
/// frames).
fn bullet(serial: u64) -> (Position, Velocity, Lifetime) {
    let angle = (serial % 360) as f32 * std::f32::consts::PI / 180.0;
    (
        Position(0.0, 0.0),
        Velocity(angle.cos() * 4.0, angle.sin() * 4.0),
        Lifetime(20 + (serial % 40) as u16),
    )
}

/// What the loop has done so far.
#[derive(Default)]
struct Tally {
    fired: u64,
    despawned: u64,
}

/// One frame: fire a wave, move every bullet, age it, despawn the expired ones.
fn frame(world: &mut World, number: u64, tally: &mut Tally, expired: &mut Vec<Entity>) {
    for _ in 0..fired(number) {
        world.spawn(bullet(tally.fired));
        tally.fired += 1;
    }
    world
        .query::<(&mut Position, &Velocity)>()
        .for_each(|(p, v)| {
            p.0 += v.0;
            p.1 += v.1;
        });
    expired.clear();
    world
        .query::<(Entity, &mut Lifetime)>()
        .for_each(|(e, life)| match life.0 {
            0 => expired.push(e),
            _ => life.0 -= 1,
        });
    for &e in expired.iter() {
        world.despawn(e).expect("a live bullet");
    }
    tally.despawned += expired.len() as u64;
}

/// Runs the story at `size` and returns its output (printed as it goes when `echo`).
pub fn run(size: Size, echo: bool) -> String {
    let frames: u64 = size.pick(10_000, 1_000);
    let every = frames / 10;
    let mut out = Out::new(BACKEND, echo);
    out.line(format!(
        "{} frames of 150 to 500 bullets fired and 20 to 59 frames of flight; every {} frames:",
        count(frames),
        count(every)
    ));
    let mut world = World::new();
    examples::trace::start(&mut world);
    let (mut tally, mut expired) = (Tally::default(), Vec::new());
    let mut clock = Instant::now();
    for number in 1..=frames {
        frame(&mut world, number, &mut tally, &mut expired);
        world.trace_frame();
        if number % every == 0 {
            out.line(format!(
                "frame {:>6}: {:>6} bullets alive, {:>9} fired, {:>9} despawned",
                count(number),
                count(world.len() as u64),
                count(tally.fired),
                count(tally.despawned)
            ));
            out.measured(format!(
                "frame {:>6}: memory_usage {:>9} bytes, {} per frame",
                count(number),
                count(world.memory_usage() as u64),
                format_time(clock.elapsed().as_nanos() as f64 / every as f64)
            ));
            clock = Instant::now();
        }
    }
    let bytes_per_bullet = size_of::<(Position, Velocity, Lifetime)>() + size_of::<Entity>();
    out.line(format!(
        "an engine that never reused a removed slot would hold {} slots of {} bytes by now, \
         for {} live bullets",
        count(tally.fired),
        bytes_per_bullet,
        count(world.len() as u64)
    ));
    examples::trace::finish(&mut world);
    out.line("where the memory went at the last frame:");
    out.backend(world.layout());
    out.finish()
}

/// `1,234,567`.
fn count(n: u64) -> String {
    ecs::ecs_core::layout::format_count(n as usize)
}

fn main() {
    run(Size::from_env_and_args(), true);
}
