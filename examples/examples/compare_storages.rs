//! Compare storages for your own game: write a workload once, generic over the storage, and
//! get the comparison ecs-bench makes for its own workloads, on every backend.
//!
//! ```text
//! cargo run --release -p examples --example compare_storages -- report --quick
//! cargo run --profile counts -p examples --example compare_storages -- counts \
//!     --check examples/compare_storages-counts.json   # deterministic CI check (valgrind)
//! ```
//!
//! `report` times the workload on every backend and writes a Markdown table, JSON and SVG
//! charts (time, peak heap, allocations; every backend's checksum must agree). `counts` runs
//! it under callgrind and compares instructions, allocations and peak heap with a baseline
//! file kept in your repository (`--write-baseline` refreshes it).
//!
//! The workload here is a small skirmish: units move every frame, some catch fire (a sparse
//! `Burning` component added and removed as fires start and go out), burning units lose
//! health, and the dead are replaced by new units.

use std::process::ExitCode;

use ecs::ecs_core::{Entity, Storage, World};
use ecs::{Component, Without};
use ecs_bench::alloc_counter::CountingAllocator;
use ecs_bench::workload::{prepared, DynWorkload, Prepared, Sizes, Workload, WorkloadInfo};
use ecs_bench::Suite;

// The heap columns (allocations, peak heap) come from this allocator.
#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[derive(Component, Clone, Copy)]
struct Position(f32, f32);

#[derive(Component, Clone, Copy)]
struct Velocity(f32, f32);

#[derive(Component)]
struct Health(u32);

/// Turns left to burn. Sparse in a hybrid world: fires start and go out all the time.
#[derive(Component)]
#[component(storage = "sparse")]
struct Burning(u8);

/// Frames per timed run.
const FRAMES: u32 = 10;

/// The skirmish (see the module docs), `size` units, [`FRAMES`] frames per run.
struct Skirmish(WorkloadInfo);

impl Workload for Skirmish {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, size: usize) -> Box<dyn Prepared> {
        let mut world = World::<S>::new();
        for i in 0..size {
            world.spawn(unit(i as u32));
        }
        let state = (world, 0u32);
        prepared(
            state,
            |(world, frame)| {
                for _ in 0..FRAMES {
                    *frame += 1;
                    play_frame(world, *frame);
                }
            },
            |(world, _)| checksum(world),
        )
    }
}

fn unit(seed: u32) -> (Position, Velocity, Health) {
    let x = (seed % 1000) as f32;
    (
        Position(x, 0.0),
        Velocity(1.0, (seed % 7) as f32 * 0.25),
        Health(20 + seed % 30),
    )
}

fn play_frame<S: Storage>(world: &mut World<S>, frame: u32) {
    world
        .query::<(&mut Position, &Velocity)>()
        .for_each(|(p, v)| {
            p.0 += v.0;
            p.1 += v.1;
        });
    // Units whose position crosses a "hot" line catch fire.
    let igniting: Vec<Entity> = world
        .query_filtered::<(Entity, &Position), Without<Burning>>()
        .filter(|(_, p)| (p.0 as u32 + frame) % 13 == 0)
        .map(|(e, _)| e)
        .collect();
    for e in igniting {
        world.insert(e, Burning(3)).expect("live unit");
    }
    let mut dead = Vec::new();
    let mut out = Vec::new();
    world
        .query::<(Entity, &mut Health, &mut Burning)>()
        .for_each(|(e, health, burning)| {
            health.0 = health.0.saturating_sub(4);
            burning.0 -= 1;
            if health.0 == 0 {
                dead.push(e);
            } else if burning.0 == 0 {
                out.push(e);
            }
        });
    for e in out {
        world.remove::<Burning>(e).expect("burning unit");
    }
    for (i, e) in dead.into_iter().enumerate() {
        world.despawn(e).expect("live unit");
        world.spawn(unit(frame * 31 + i as u32));
    }
}

fn checksum<S: Storage>(world: &mut World<S>) -> u64 {
    world
        .query::<(&Position, &Health, Option<&Burning>)>()
        .map(|(p, h, b)| {
            let burning = b.map_or(0, |b| u64::from(b.0));
            (p.0 as u64) ^ ((p.1 as u64) << 20) ^ (u64::from(h.0) << 40) ^ (burning << 60)
        })
        .fold(0u64, u64::wrapping_add)
}

/// Every workload of this program.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    vec![Box::new(Skirmish(WorkloadInfo::custom(
        "skirmish",
        "10 frames: move every unit, set fires, burn, replace the dead",
        Sizes::new(20_000, 5_000, 300),
        "units",
    )))]
}

fn main() -> ExitCode {
    ecs_bench::cli::main(Suite::custom("skirmish", workloads))
}
