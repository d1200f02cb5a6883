//! Status effects: let the world choose. An army of units with wide rows (position,
//! velocity, health, stats, sprite, brain) in which, every frame, hundreds catch fire or are
//! poisoned for one to four frames, and as many recover.
//!
//! Declared the default way (every component in a table), each ignition and each recovery
//! moves the unit's whole row, about 170 bytes in six columns, to another table. Given a
//! trace of this program, the storage advisor turns the two statuses sparse, and with them
//! the health and stats their systems read: those systems then join four sparse sets down
//! the small status set, no row moves at all, and the walk and the sprite and brain stay
//! in dense rows. The `advised` feature is that advice applied: four
//! `#[component(storage = "sparse")]` lines.
//!
//! ```text
//! # the game on the hybrid backend, as declared, recording a trace:
//! cargo run --release -p examples --example status_effects --features hybrid -- --trace status.trace
//! # what the advisor makes of it:
//! cargo run --release -p ecs-bench -- advise status.trace
//! # the advice applied, timed again:
//! cargo run --release -p examples --example status_effects --features hybrid,advised
//! ```
//!
//! Every backend prints the same lines (the bracketed ones aside); only the hybrid reads
//! the storage attributes.

use ecs::prelude::*;
use examples::story::{Out, Size};

#[derive(Component, Clone, Copy)]
struct Position(i32, i32);

#[derive(Component, Clone, Copy)]
struct Velocity(i32, i32);

#[derive(Component, Clone, Copy)]
#[cfg_attr(feature = "advised", component(storage = "sparse"))]
struct Health(i32);

/// What a unit is made of: 64 bytes nobody changes in this game, carried along by every
/// move of its row.
#[derive(Component, Clone, Copy)]
#[cfg_attr(feature = "advised", component(storage = "sparse"))]
struct Stats {
    regen: i32,
    max_health: i32,
    resist: [i32; 14],
}

/// How a unit is drawn.
#[derive(Component, Clone, Copy)]
#[allow(dead_code)] // carried, not read: the bytes each move of a row copies
struct Sprite {
    atlas: u32,
    frame: u32,
    tint: [f32; 4],
}

/// What a unit has in mind: 48 bytes of plans.
#[derive(Component, Clone, Copy)]
#[allow(dead_code)] // carried, not read: the bytes each move of a row copies
struct Brain {
    goal: (i32, i32),
    memory: [u32; 10],
}

/// On fire: `damage` health a frame for `frames` more frames.
#[derive(Component, Clone, Copy)]
#[cfg_attr(feature = "advised", component(storage = "sparse"))]
struct Burning {
    damage: i32,
    frames: u16,
}

/// Poisoned: `damage` health a frame for `frames` more frames.
#[derive(Component, Clone, Copy)]
#[cfg_attr(feature = "advised", component(storage = "sparse"))]
struct Poisoned {
    damage: i32,
    frames: u16,
}

/// Every unit, for picking the ones that catch fire.
struct Units(Vec<Entity>);

/// A small, seeded generator: the same units catch fire on every backend.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

/// One unit in this many catches fire, and one is poisoned, each frame.
const AFFLICTED_ONE_IN: usize = 20;

fn unit(i: i32) -> (Position, Velocity, Health, Stats, Sprite, Brain) {
    (
        Position(i % 1000, i / 1000),
        Velocity(1 - i % 3, 1 - i % 5 % 3),
        Health(100),
        Stats {
            regen: 1 + i % 3,
            max_health: 100,
            resist: [i % 7; 14],
        },
        Sprite {
            atlas: 1,
            frame: 0,
            tint: [1.0; 4],
        },
        Brain {
            goal: (0, 0),
            memory: [0; 10],
        },
    )
}

fn walk(mut q: Query<(&mut Position, &Velocity)>) {
    q.for_each(|(p, v)| {
        p.0 += v.0;
        p.1 += v.1;
    });
}

fn regenerate(mut q: Query<(&mut Health, &Stats)>) {
    q.for_each(|(h, s)| h.0 = (h.0 + s.regen).min(s.max_health));
}

/// Random units catch fire or are poisoned (again, when they already are: the value is
/// replaced and the unit does not move).
fn afflict(units: Res<Units>, mut dice: ResMut<Dice>, mut commands: Commands) {
    for _ in 0..units.0.len() / AFFLICTED_ONE_IN {
        let unit = units.0[dice.roll(units.0.len() as u64) as usize];
        let frames = 1 + dice.roll(3) as u16;
        commands.entity(unit).insert(Burning { damage: 2, frames });
        let unit = units.0[dice.roll(units.0.len() as u64) as usize];
        let frames = 1 + dice.roll(4) as u16;
        commands.entity(unit).insert(Poisoned { damage: 1, frames });
    }
}

/// Fire hurts less through resistance.
fn burn(mut q: Query<(Entity, &mut Health, &Stats, &mut Burning)>, mut commands: Commands) {
    q.for_each(|(e, h, s, b)| {
        h.0 -= b.damage * 10 / (10 + s.resist[0]);
        b.frames -= 1;
        if b.frames == 0 {
            commands.entity(e).remove::<Burning>();
        }
    });
}

/// So does poison.
fn poison(mut q: Query<(Entity, &mut Health, &Stats, &mut Poisoned)>, mut commands: Commands) {
    q.for_each(|(e, h, s, p)| {
        h.0 -= p.damage * 10 / (10 + s.resist[1]);
        p.frames -= 1;
        if p.frames == 0 {
            commands.entity(e).remove::<Poisoned>();
        }
    });
}

/// Plays `frames` frames with `units` units: the lines it printed and the frames' time
/// (building the world and writing a trace left out).
fn play(units: i32, frames: u32, echo: bool) -> (String, std::time::Duration) {
    let mut out = Out::new(BACKEND, echo);
    let mut world = World::new();
    examples::trace::start(&mut world);
    let spawned = world.spawn_batch((0..units).map(unit)).to_vec();
    world.insert_resource(Units(spawned));
    world.insert_resource(Dice(0x2545_f491_4f6c_dd1d));
    let mut schedule = Schedule::new();
    schedule.add_systems((walk, regenerate, afflict, burn, poison).chain());
    if let Err(err) = schedule.build(&mut world) {
        panic!("the schedule cannot run: {err}");
    }
    let afflicted = units as usize / AFFLICTED_ONE_IN;
    out.line(format!(
        "{units} units; each frame {afflicted} catch fire and {afflicted} are poisoned, for 1 \
         to 4 frames"
    ));
    let mut took = std::time::Duration::ZERO;
    for frame in 1..=frames {
        let begun = std::time::Instant::now();
        schedule.run(&mut world); // a frame of the trace, when recording
        took += begun.elapsed();
        if frame % (frames / 4).max(1) == 0 {
            let burning = world.query::<&Burning>().count();
            let poisoned = world.query::<&Poisoned>().count();
            let health: i64 = world.query::<&Health>().map(|h| i64::from(h.0)).sum();
            out.line(format!(
                "frame {frame:>5}: {burning:>5} burning, {poisoned:>5} poisoned, \
                 health {health} in all"
            ));
        }
    }
    examples::trace::finish(&mut world);
    out.backend(world.layout().summary());
    out.measured(format!(
        "{frames} frames in {:.3} ms ({:.1} us a frame)",
        took.as_secs_f64() * 1e3,
        took.as_secs_f64() * 1e6 / f64::from(frames.max(1))
    ));
    (out.finish(), took)
}

/// Runs the story at `size` and returns its output (printed as it goes when `echo`).
pub fn run(size: Size, echo: bool) -> String {
    let frames = examples::story::frames_arg().unwrap_or(size.pick(400, 40));
    play(size.pick(10_000, 2_000), frames, echo).0
}

fn main() {
    run(Size::from_env_and_args(), true);
}
