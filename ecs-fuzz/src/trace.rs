//! Fuzzing the trace reader: mutated trace files must be read or refused with an error,
//! never a panic, and a trace that reads must replay without panicking (a replay of a
//! damaged trace may diverge; that is what its divergences are for).

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_conformance::kit::Rng;
use ecs_core::testing::VecStorage;
use ecs_core::trace::{Op, Replay, Trace, Traced};
use ecs_core::World;

use crate::snapshot::mutate::{mutate, Failure};

/// The most entities a mutated trace may spawn and still be replayed (a damaged count can
/// ask for billions, which is work, not a bug).
const REPLAY_ENTITIES: u64 = 4096;

/// The widest component a mutated trace may name and still be replayed.
const REPLAY_BYTES: u32 = 4096;

/// A trace of `steps` random world calls (spawns, inserts, removes, despawns, queries,
/// look-ups, frames) recorded on the reference storage.
pub fn seed_trace(rng: &mut Rng, steps: usize) -> Vec<u8> {
    use ecs_conformance::trace::{Frozen, Pos, Vel};
    let mut world = World::<Traced<VecStorage>>::new();
    world.start_trace().expect("a traced storage records");
    let mut live = Vec::new();
    for _ in 0..steps {
        match rng.below(9) {
            0 => live.push(world.spawn((Pos(1.0),))),
            1 => live.extend_from_slice(
                world.spawn_batch((0..rng.index(4)).map(|_| (Pos(0.0), Vel(1.0)))),
            ),
            2 if !live.is_empty() => {
                let e = live[rng.index(live.len())];
                let _ = world.insert(e, Frozen);
            }
            3 if !live.is_empty() => {
                let e = live[rng.index(live.len())];
                let _ = world.remove::<Vel>(e);
            }
            4 if !live.is_empty() => {
                let e = live.swap_remove(rng.index(live.len()));
                let _ = world.despawn(e);
            }
            5 => {
                world
                    .query::<(&mut Pos, &Vel)>()
                    .for_each(|(mut p, v)| p.0 += v.0);
            }
            6 if !live.is_empty() => {
                let e = live[rng.index(live.len())];
                let _ = world.get::<Vel>(e);
            }
            7 => world.trace_frame(),
            _ => {
                let _ = world.query::<&Frozen>().next();
            }
        }
    }
    world.finish_trace().expect("recording").to_bytes()
}

/// Reads `data` as a trace file and, when it reads and is small enough, replays it on two
/// backends. `Ok(true)`: a trace that read; `Ok(false)`: refused with an error; `Err`: a
/// promise broken (a trace that does not read back after writing it again).
pub fn check_input(data: &[u8]) -> Result<bool, String> {
    let Ok(trace) = Trace::from_bytes(data) else {
        return Ok(false);
    };
    let again = Trace::from_bytes(&trace.to_bytes())
        .map_err(|e| format!("a trace that read does not read after writing: {e}"))?;
    if again != trace {
        return Err("a trace that read reads back different after writing".into());
    }
    let spawned: u64 = trace
        .ops()
        .map(|op| match op {
            Op::Spawn { count, .. } | Op::SpawnColumns { count, .. } => u64::from(count),
            _ => 0,
        })
        .sum();
    let narrow = trace.components().iter().all(|c| c.size <= REPLAY_BYTES);
    if spawned <= REPLAY_ENTITIES && narrow && trace.op_count() <= 100_000 {
        replay::<VecStorage>(&trace)?;
        replay::<ecs_archetype::ArchetypeStorage>(&trace)?;
    }
    Ok(true)
}

fn replay<S: ecs_core::Storage>(trace: &Trace) -> Result<(), String> {
    let kinds = Replay::<S>::declared_kinds(trace);
    let mut replay = Replay::<S>::new(trace, &kinds).map_err(|e| format!("replay set-up: {e}"))?;
    replay.run(&mut |_| {});
    Ok(())
}

/// Runs `inputs` mutated traces from the seed `seed` (each through [`check_input`], panics
/// caught); calls `progress` with the number done every 10,000. Returns how many read, or
/// the first failure.
pub fn run(seed: u64, inputs: u64, mut progress: impl FnMut(u64)) -> Result<u64, Failure> {
    let mut rng = Rng::new(seed);
    let pool: Vec<Vec<u8>> = [0, 5, 20, 60, 200, 5, 20, 60]
        .iter()
        .map(|&steps| seed_trace(&mut rng, steps))
        .collect();
    let mut read = 0;
    for n in 0..inputs {
        if n % 10_000 == 0 {
            progress(n);
        }
        let a = rng.index(pool.len());
        let b = rng.index(pool.len());
        let input = if rng.below(20) == 0 {
            pool[a].clone()
        } else {
            mutate(&mut rng, &pool[a], &pool[b])
        };
        match catch_unwind(AssertUnwindSafe(|| check_input(&input))) {
            Ok(Ok(true)) => read += 1,
            Ok(Ok(false)) => {}
            Ok(Err(message)) => return Err(Failure { input, message }),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "a panic".into());
                return Err(Failure {
                    input,
                    message: format!("panicked: {message}"),
                });
            }
        }
    }
    Ok(read)
}
