//! Traces: what a program does to a `World<Traced<S>>` is recorded the same way on every
//! backend, every kind of op is there, the file reads back, a replay on the backend does
//! what the program did, and recording changes nothing the program sees.

use std::collections::BTreeSet;

use ecs_core::prelude::*;
use ecs_core::testing::VecStorage;
use ecs_core::trace::{Op, Replay, Trace, TraceErrorKind, TraceFilter, Traced};
use ecs_core::{Component, Storage};
use serde::{Deserialize, Serialize};

/// A component the script moves.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[component(track_changes)]
pub struct Pos(pub f32);

/// A component the script reads (tracked, for its `Added` filter).
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[component(track_changes)]
pub struct Vel(pub f32);

/// A tag in sparse sets on the hybrid backend.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
pub struct Frozen;

/// A bundle the script queues through commands (one multi-insert).
#[derive(Bundle)]
pub struct Boost {
    vel: Vel,
    frozen: Frozen,
}

/// A program touching every kind of op: batches, single spawns, a snapshot load,
/// inserts, queued bundles, removes, despawns (recursive too), look-ups that find and
/// miss, queries with filters and an `Or` of change filters, a schedule of systems, frames,
/// and a clear. Answers what the program saw, to compare with an untraced run.
pub fn script<S: Storage>(world: &mut World<S>) -> Vec<String> {
    let mut seen = Vec::new();
    let batch: Vec<Entity> = world
        .spawn_batch((0..6).map(|i| (Pos(i as f32), Vel(1.0))))
        .to_vec();
    let lone = world.spawn((Pos(10.0),));
    world.insert(lone, Vel(2.0)).unwrap();
    world.insert(batch[1], Frozen).unwrap();
    world.remove::<Frozen>(batch[1]).unwrap();
    world.insert(batch[2], Frozen).unwrap();
    let mut commands = CommandQueue::new();
    Commands::new(&mut commands, world)
        .entity(batch[3])
        .insert(Boost {
            vel: Vel(5.0),
            frozen: Frozen,
        });
    world.apply(&mut commands);
    let parent = world.spawn((Pos(0.5),));
    let child = world.spawn_child(parent, (Vel(0.5),)).unwrap();
    seen.push(format!("child {:?}", world.parent(child)));
    // Look-ups that find and miss, read and write.
    seen.push(format!("{:?}", world.get::<Pos>(lone)));
    seen.push(format!("{:?}", world.get::<Frozen>(lone)));
    world.get_mut::<Pos>(batch[0]).unwrap().0 = 100.0;
    let mut moved = world
        .query_state::<(Entity, &Pos), Or<(Changed<Pos>, Added<Vel>)>>()
        .unwrap();
    let mut late = world
        .query_state::<(Entity, &Pos), Or<(Changed<Pos>, Added<Vel>)>>()
        .unwrap();
    seen.push(format!("{}", moved.iter(world).count()));
    world.get_mut::<Pos>(batch[4]).unwrap().0 += 1.0;
    seen.push(format!(
        "{:?}",
        moved.iter(world).map(|(e, _)| e).collect::<Vec<_>>()
    ));
    seen.push(format!(
        "{:?}",
        moved.get(world, batch[4]).map(|(_, p)| p.0)
    ));
    // A second state of the same query: its change filter answers for its own runs.
    seen.push(format!("{}", late.iter(world).count()));
    seen.push(format!("{}", late.iter(world).count()));
    // An `Or` of a change filter and a presence filter.
    seen.push(format!(
        "{}",
        world
            .query_filtered::<&Vel, Or<(Added<Vel>, With<Frozen>)>>()
            .count()
    ));
    // A run left early.
    seen.push(format!("{:?}", world.query::<&Vel>().next().map(|v| v.0)));
    // A presence test beside the values (no access: a slot the replay only matches).
    seen.push(format!(
        "{}",
        world
            .query::<(&Pos, ecs_core::query::Has<Frozen>)>()
            .filter(|(_, frozen)| *frozen)
            .count()
    ));
    // At least one of two parts (a condition the replay must apply too), and values read
    // with their change flags.
    seen.push(format!(
        "{}",
        world
            .query::<ecs_core::query::AnyOf<(&Vel, &Frozen)>>()
            .count()
    ));
    seen.push(format!(
        "{}",
        world
            .query::<ecs_core::query::Ref<Pos>>()
            .filter(|p| p.is_changed())
            .count()
    ));
    let mut schedule = Schedule::<S>::new();
    schedule.add_system(mover_of::<S>);
    schedule.set_error_handler(ecs_core::schedule::errors::ignore_error);
    for _ in 0..3 {
        schedule.run(world);
    }
    // In the backend's order: sorted, to compare across backends.
    let mut unfrozen: Vec<f32> = world
        .query_filtered::<&Pos, Without<Frozen>>()
        .map(|p| p.0)
        .collect();
    unfrozen.sort_by(f32::total_cmp);
    seen.push(format!("{unfrozen:?}"));
    world.despawn(batch[5]).unwrap();
    world.despawn_recursive(parent).unwrap();
    seen.push(format!("{}", world.query::<&Pos>().count()));
    world.align_with_tables::<Vel>();
    // A snapshot of the world loaded beside it: entities stored column by column.
    let registry = SnapshotRegistry::new()
        .component::<Pos>("Pos")
        .component::<Vel>("Vel");
    let json = serde_json::to_string(&registry.save(world)).unwrap();
    registry
        .load(world, &mut serde_json::Deserializer::from_str(&json))
        .unwrap();
    seen.push(format!("{} entities", world.len()));
    world.trace_frame();
    world.clear();
    seen
}

fn mover_of<S: Storage>(mut q: Query<(&mut Pos, &Vel), Without<Frozen>, S>) {
    q.for_each(|(mut p, v)| p.0 += v.0);
}

/// The trace of [`script`] on `S`.
fn recorded<S: Storage>() -> (Trace, Vec<String>) {
    let mut world = World::<Traced<S>>::new();
    world.start_trace().unwrap();
    let seen = script(&mut world);
    (world.finish_trace().unwrap(), seen)
}

/// Every kind of op is recorded, each as the storage call or program call it was.
pub fn every_op_kind_is_recorded<S: Storage>() {
    let (trace, _) = recorded::<S>();
    let kinds: BTreeSet<&str> = trace
        .ops()
        .map(|op| match op {
            Op::Frame => "frame",
            Op::System(Some(_)) => "system",
            Op::System(None) => "outside systems",
            Op::Spawn { count: 1, .. } => "spawn",
            Op::Spawn { .. } => "spawn batch",
            Op::SpawnColumns { .. } => "spawn columns",
            Op::Insert { .. } => "insert",
            Op::InsertMany { .. } => "insert many",
            Op::Remove { .. } => "remove",
            Op::Despawn { .. } => "despawn",
            Op::Clear => "clear",
            Op::Align { .. } => "align",
            Op::Changed { .. } => "changed",
            Op::Query { complete: true, .. } => "query",
            Op::Query { .. } => "query left early",
            Op::Get {
                write: false,
                found: true,
                ..
            } => "get",
            Op::Get {
                write: false,
                found: false,
                ..
            } => "get missing",
            Op::Get { write: true, .. } => "get mut",
        })
        .collect();
    let all = [
        "frame",
        "system",
        "outside systems",
        "spawn",
        "spawn batch",
        "spawn columns",
        "insert",
        "insert many",
        "remove",
        "despawn",
        "clear",
        "align",
        "changed",
        "query",
        "query left early",
        "get",
        "get missing",
        "get mut",
    ];
    let missing: Vec<&str> = all.iter().copied().filter(|k| !kinds.contains(k)).collect();
    assert!(missing.is_empty(), "not recorded: {missing:?}");
    assert_eq!(trace.frames(), 4, "three schedule runs and one mark");
    assert!(
        trace
            .shapes()
            .iter()
            .any(|s| matches!(s.filter[..], [TraceFilter::Any(_)])),
        "the Or of change filters"
    );
}

/// A program's world calls do not depend on the backend, so neither does its trace: the
/// same bytes on every backend, and the same as untraced.
pub fn traces_are_the_same_on_every_backend<S: Storage>() {
    let (trace, seen) = recorded::<S>();
    let (reference, reference_seen) = recorded::<VecStorage>();
    assert_eq!(seen, reference_seen);
    assert_eq!(trace.to_bytes(), reference.to_bytes());
    let mut plain = World::<S>::new();
    assert_eq!(
        script(&mut plain),
        seen,
        "recording changes nothing the program sees"
    );
}

/// The file reads back into the same trace; every shorter prefix and a wrong version are
/// errors, never panics.
pub fn trace_files_round_trip_and_refuse_damage<S: Storage>() {
    let (trace, _) = recorded::<S>();
    let bytes = trace.to_bytes();
    assert_eq!(Trace::from_bytes(&bytes).unwrap(), trace);
    for len in 0..bytes.len() {
        assert!(
            Trace::from_bytes(&bytes[..len]).is_err(),
            "a prefix of {len} bytes"
        );
    }
    // Version 1 (before `Op::Align`) still reads; a version from the future does not.
    let mut first = bytes.clone();
    first[8] = 1;
    assert!(Trace::from_bytes(&first).is_ok(), "version 1 reads");
    let mut other = bytes.clone();
    other[8] = 9;
    let err = Trace::from_bytes(&other).unwrap_err();
    assert_eq!(err.kind, TraceErrorKind::Version { found: 9 });
    let mut longer = bytes;
    longer.push(0);
    assert_eq!(
        Trace::from_bytes(&longer).unwrap_err().kind,
        TraceErrorKind::TrailingBytes
    );
}

/// A trace recorded anywhere replays on this backend doing exactly what the program did:
/// every query yields the rows it took, every look-up finds what it found.
pub fn traces_replay_faithfully<S: Storage>() {
    let (trace, _) = recorded::<VecStorage>();
    let kinds = Replay::<S>::declared_kinds(&trace);
    let mut replay = Replay::<S>::new(&trace, &kinds).unwrap();
    replay.run(&mut |_| {});
    assert_eq!(replay.divergence_count(), 0, "{:?}", replay.divergences());
    assert_eq!(
        replay.frame_times().len(),
        5,
        "four frames and the ops after the last"
    );
}

/// Recording started mid-run takes the world as it is first: its entities enter the trace
/// as spawns, so the trace replays on its own.
pub fn a_trace_started_mid_run_replays_on_its_own<S: Storage>() {
    let mut world = World::<Traced<S>>::new();
    let kept: Vec<Entity> = (0..5).map(|i| world.spawn((Pos(i as f32),))).collect();
    world.spawn((Pos(9.0), Vel(1.0)));
    world.despawn(kept[2]).unwrap();
    world.start_trace().unwrap();
    world.insert(kept[4], Vel(2.0)).unwrap();
    world
        .query::<(&mut Pos, &Vel)>()
        .for_each(|(mut p, v)| p.0 += v.0);
    world.remove::<Pos>(kept[0]).unwrap();
    let trace = world.finish_trace().unwrap();
    // The live entities in the allocator's order, runs of one component set as one op.
    let spawned: u32 = trace
        .ops()
        .take_while(|op| matches!(op, Op::Spawn { .. }))
        .map(|op| match op {
            Op::Spawn { count, .. } => count,
            _ => 0,
        })
        .sum();
    assert_eq!(spawned, 5);
    let kinds = Replay::<S>::declared_kinds(&trace);
    let mut replay = Replay::<S>::new(&trace, &kinds).unwrap();
    replay.run(&mut |_| {});
    assert_eq!(replay.divergence_count(), 0, "{:?}", replay.divergences());
    assert_eq!(replay.world().len(), 5);
}

/// A world whose storage cannot record says so instead of recording nothing.
pub fn a_plain_storage_refuses_to_record<S: Storage>() {
    let mut world = World::<S>::new();
    assert!(!world.is_tracing());
    assert!(matches!(world.start_trace(), Err(EcsError::Trace { .. })));
    assert!(matches!(world.finish_trace(), Err(EcsError::Trace { .. })));
    world.trace_frame(); // nothing to mark, nothing happens
    let mut traced = World::<Traced<S>>::new();
    assert!(
        matches!(traced.finish_trace(), Err(EcsError::Trace { .. })),
        "not started"
    );
}

/// The model test's random operations (every world call it makes, checked against its
/// model), recorded on `Traced<S>`, replay on `S` doing what they did.
pub fn the_model_tests_operations_replay_faithfully<S: Storage>() {
    for mix in [0, 5, 10, 15] {
        let ((), traces) = ecs_core::trace::capture(|| {
            crate::model::run_mix::<Traced<S>>(
                mix,
                0x7ACE + mix as u64,
                crate::components::size(3_000, 150),
            );
        });
        assert!(!traces.is_empty(), "mix {mix}: a world was recorded");
        for trace in &traces {
            let kinds = Replay::<S>::declared_kinds(trace);
            let mut replay = Replay::<S>::new(trace, &kinds).unwrap();
            replay.run(&mut |_| {});
            assert_eq!(
                replay.divergence_count(),
                0,
                "mix {mix}: {:?}",
                replay.divergences()
            );
        }
    }
}

/// A query's look-ups keep their place in the trace whichever way they are recorded: the
/// ones that found the entity on the thread running the program are buffered without a
/// lock, the others (a miss, an optional component, another thread) go through it; the
/// trace's order is the program's, a run that ended before a look-up comes before it, and
/// a look-up made on another thread is not lost.
pub fn query_look_ups_keep_their_place<S: Storage>() {
    let mut world = World::<Traced<S>>::new();
    let e: Vec<Entity> = (0..6)
        .map(|i| world.spawn((Pos(i as f32), Vel(1.0))))
        .collect();
    let bare = world.spawn((Vel(2.0),));
    world.start_trace().unwrap();
    let mut q = world.query_state::<&Pos, ()>().unwrap();
    let maybe = world.query_state::<(&Vel, Option<&Pos>), ()>().unwrap();
    assert_eq!(q.iter(&world).count(), 6);
    assert!(q.get(&world, e[0]).is_some()); // through the lock: the state's first
    assert!(q.get(&world, e[1]).is_some()); // buffered
    assert!(q.get(&world, bare).is_none()); // a miss: through the lock
    assert!(q.get(&world, e[2]).is_some()); // buffered
    assert!(maybe.get(&world, bare).is_some()); // an optional component: the lock
    assert_eq!(q.iter(&world).count(), 6);
    assert!(q.get(&world, e[3]).is_some()); // after a run that ended: the lock
    world.insert(e[0], Frozen).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| assert!(q.get(&world, e[4]).is_some()));
    });
    assert!(q.get(&world, e[5]).is_some()); // buffered, written at the despawn
    world.despawn(e[1]).unwrap();
    let trace = world.finish_trace().unwrap();
    let [pos, vel, frozen] = ["Pos", "Vel", "Frozen"].map(|name| {
        trace
            .components()
            .iter()
            .position(|c| c.name.ends_with(name))
            .unwrap_or_else(|| panic!("{name} is in the trace")) as u32
    });
    // The trace found the entities at its start (its first ops spawn them): ordinals in
    // spawn order, from 1.
    let ord =
        |entity: Entity| 1 + e.iter().chain([&bare]).position(|&x| x == entity).unwrap() as u32;
    let get = |entity, component, found| Op::Get {
        entity: ord(entity),
        component,
        write: false,
        found,
    };
    let ops: Vec<Op> = trace
        .ops()
        .skip_while(|op| matches!(op, Op::Spawn { .. }))
        .filter(|op| !matches!(op, Op::System(_) | Op::Frame))
        .map(|op| match op {
            Op::Query { shape, .. } => Op::Query {
                shape,
                rows: 0,
                complete: true,
                state: 0,
                repeat: false,
            },
            other => other,
        })
        .collect();
    let run = |shape| Op::Query {
        shape,
        rows: 0,
        complete: true,
        state: 0,
        repeat: false,
    };
    let shape_of_q = match ops[0] {
        Op::Query { shape, .. } => shape,
        other => panic!("the first op is the first run, not {other:?}"),
    };
    let expected = vec![
        run(shape_of_q),
        get(e[0], pos, true),
        get(e[1], pos, true),
        get(bare, pos, false),
        get(e[2], pos, true),
        get(bare, vel, true),
        get(bare, pos, false),
        run(shape_of_q),
        get(e[3], pos, true),
        Op::Insert {
            entity: ord(e[0]),
            component: frozen,
        },
        get(e[4], pos, true),
        get(e[5], pos, true),
        Op::Despawn { entity: ord(e[1]) },
    ];
    assert_eq!(ops, expected);
}

/// A state whose look-ups were buffered, then caught up when `Disabled` was first
/// registered (its descriptor gained the slot leaving disabled entities out) in a run left
/// early, keeps every look-up in the trace: the first after the catch-up works out its
/// fetched components again, through the lock, and none is written without them.
pub fn look_ups_stay_recorded_when_a_state_catches_up<S: Storage>() {
    let mut world = World::<Traced<S>>::new();
    let e: Vec<Entity> = (0..3).map(|i| world.spawn((Pos(i as f32),))).collect();
    world.start_trace().unwrap();
    let mut q = world.query_state::<&Pos, ()>().unwrap();
    assert_eq!(q.iter(&world).count(), 3);
    assert!(q.get(&world, e[0]).is_some()); // through the lock: the state's first
    assert!(q.get(&world, e[1]).is_some()); // buffered
    world.disable(e[2]).unwrap();
    // Caught up at the run's start; left early, so the look-ups that follow are not sent
    // through the lock by a run that ended.
    assert!(q.iter(&world).next().is_some());
    assert!(q.get(&world, e[0]).is_some());
    assert!(q.get(&world, e[1]).is_some());
    let trace = world.finish_trace().unwrap();
    let found = trace
        .ops()
        .filter(|op| matches!(op, Op::Get { found: true, .. }))
        .count();
    assert_eq!(found, 4, "every look-up recorded");
}
