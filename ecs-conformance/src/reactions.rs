//! Lifecycle hooks and observers: each runs at its moment on every path that adds or
//! removes, sees the world whole, defers structural changes to the end of the operation,
//! and leaves the world consistent when it panics.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::commands::{CommandQueue, Commands};
use ecs_core::component::{HookContext, Lifecycle};
use ecs_core::observer::{Add, Despawn, Event, Insert, On, Remove, Replace};
use ecs_core::prelude::*;
use ecs_core::world::HookWorld;
use ecs_core::Storage;

/// What the hooks saw: the moment, the entity, and the watched value then (`None` when it
/// was not there to read).
#[derive(Default, Debug)]
pub struct Log(pub Vec<(Lifecycle, Entity, Option<u32>)>);

/// A component with every hook, each logging what it sees.
#[derive(Component, Debug, PartialEq, Clone)]
#[component(
    clone,
    on_add = log_hook,
    on_insert = log_hook,
    on_replace = log_hook,
    on_remove = log_hook,
    on_despawn = log_hook
)]
pub struct Watched(pub u32);

/// A sparse component (on the hybrid) that requires a `Watched`.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse", requires(Watched = Watched(7)))]
pub struct Needy;

fn log_hook(mut world: HookWorld<'_>, ctx: HookContext) {
    let value = world.get::<Watched>(ctx.entity).map(|w| w.0);
    if let Some(log) = world.resource_mut::<Log>() {
        log.0.push((ctx.event, ctx.entity, value));
    }
}

fn world_with_log<S: Storage>() -> World<S> {
    let mut world = World::<S>::new();
    world.insert_resource(Log::default());
    world
}

fn take_log<S: Storage>(world: &mut World<S>) -> Vec<(Lifecycle, Entity, Option<u32>)> {
    std::mem::take(&mut world.resource_mut::<Log>().unwrap().0)
}

use Lifecycle::{Add as A, Despawn as D, Insert as I, Remove as R, Replace as P};

/// Every structural path runs the hooks at their moments: spawn, spawn_batch, insert (new
/// and replacing), remove, take, despawn, despawn_recursive, commands, named instances,
/// clone, required components and `clear`; `on_replace`/`on_remove`/`on_despawn` see the
/// value still stored, `on_add`/`on_insert` the new one.
pub fn hooks_run_on_every_path<S: Storage>() {
    let mut world = world_with_log::<S>();
    let e = world.spawn((Watched(1),));
    assert_eq!(take_log(&mut world), [(A, e, Some(1)), (I, e, Some(1))]);
    world.insert(e, Watched(2)).unwrap();
    assert_eq!(take_log(&mut world), [(P, e, Some(1)), (I, e, Some(2))]);
    assert_eq!(world.remove::<Watched>(e), Ok(Watched(2)));
    assert_eq!(take_log(&mut world), [(P, e, Some(2)), (R, e, Some(2))]);
    world.insert(e, (Watched(3),)).unwrap();
    assert_eq!(take_log(&mut world), [(A, e, Some(3)), (I, e, Some(3))]);
    world.despawn(e).unwrap();
    assert_eq!(
        take_log(&mut world),
        [(D, e, Some(3)), (P, e, Some(3)), (R, e, Some(3))]
    );

    let batch = world.spawn_batch((0..3).map(|i| (Watched(i),))).to_vec();
    let log = take_log(&mut world);
    assert_eq!(log.len(), 6);
    for (i, &b) in batch.iter().enumerate() {
        assert_eq!(
            log[2 * i..2 * i + 2],
            [(A, b, Some(i as u32)), (I, b, Some(i as u32))]
        );
    }
    assert_eq!(world.take::<(Watched,)>(batch[0]), Ok((Watched(0),)));
    assert_eq!(
        take_log(&mut world),
        [
            (D, batch[0], Some(0)),
            (P, batch[0], Some(0)),
            (R, batch[0], Some(0))
        ]
    );

    // Required: the required value's hooks run after the whole bundle is stored.
    let needy = world.spawn(Needy);
    assert_eq!(
        take_log(&mut world),
        [(A, needy, Some(7)), (I, needy, Some(7))]
    );

    // Clone: the copy gets its values as a spawn would.
    let copy = world.clone_entity(needy).unwrap();
    assert_eq!(
        take_log(&mut world),
        [(A, copy, Some(7)), (I, copy, Some(7))]
    );

    // Commands: the same hooks when the queue is applied.
    let mut queue = CommandQueue::new();
    let mut commands = Commands::new(&mut queue, &world);
    let queued = commands.spawn((Watched(9),));
    commands.insert(queued, Watched(10));
    commands.remove::<Watched>(queued);
    commands.despawn(copy);
    world.apply(&mut queue);
    assert_eq!(
        take_log(&mut world),
        [
            (A, queued, Some(9)),
            (I, queued, Some(9)),
            (P, queued, Some(9)),
            (I, queued, Some(10)),
            (P, queued, Some(10)),
            (R, queued, Some(10)),
            (D, copy, Some(7)),
            (P, copy, Some(7)),
            (R, copy, Some(7)),
        ]
    );

    // Recursive despawn: every entity's hooks, descendants first, all before any goes.
    let root = world.spawn((Watched(20),));
    let child = world.spawn_child(root, (Watched(21),)).unwrap();
    take_log(&mut world);
    world.despawn_recursive(root).unwrap();
    let log = take_log(&mut world);
    let despawned: Vec<(Lifecycle, Entity)> = log.iter().map(|&(l, e, _)| (l, e)).collect();
    assert_eq!(
        despawned,
        [
            (D, child),
            (P, child),
            (R, child),
            (D, root),
            (P, root),
            (R, root)
        ]
    );
    assert!(
        log.iter().all(|(_, _, v)| v.is_some()),
        "each saw its value"
    );

    // Named instances run their type's hooks.
    let n = world.spawn(());
    world.insert_named(n, "left", Watched(30)).unwrap();
    world.remove_named::<Watched>(n, "left").unwrap();
    let moments: Vec<Lifecycle> = take_log(&mut world).iter().map(|x| x.0).collect();
    assert_eq!(moments, [A, I, P, R]);

    // Clear: every entity's despawn hooks, with the world whole.
    world.clear();
    let log = take_log(&mut world);
    let mut holders: Vec<Entity> = log.iter().map(|x| x.1).collect();
    holders.dedup();
    holders.sort();
    let mut expected = vec![needy, batch[1], batch[2]];
    expected.sort();
    assert_eq!(holders, expected, "each holder of a Watched");
    assert_eq!(log.len(), 3 * 3, "despawn, replace, remove each");
    assert!(log.iter().all(|(_, _, v)| v.is_some()), "seen whole");
}

/// Run-time components take hooks by id: `insert_bytes`, `insert_zeroed`, `spawn_zeroed`
/// and `remove_by_id` run them.
pub fn runtime_components_take_hooks_by_id<S: Storage>() {
    fn raw_hook(mut world: HookWorld<'_>, ctx: HookContext) {
        let log = world.resource_mut::<Log>().unwrap();
        log.0.push((ctx.event, ctx.entity, None));
    }
    let mut world = world_with_log::<S>();
    let raw = world.register_dynamic(ComponentDescriptor {
        name: "Raw".into(),
        layout: std::alloc::Layout::new::<u32>(),
        drop: None,
        storage: StorageKind::Sparse,
    });
    for moment in Lifecycle::ALL {
        world.set_hook_by_id(raw, moment, raw_hook).unwrap();
    }
    assert!(matches!(
        world.set_hook_by_id(raw, Lifecycle::Add, raw_hook),
        Err(EcsError::Hook { .. })
    ));
    let e = world.spawn(());
    world.insert_bytes(e, raw, &[1, 0, 0, 0]).unwrap();
    world.insert_bytes(e, raw, &[2, 0, 0, 0]).unwrap();
    world.insert_zeroed(e, &[raw]).unwrap(); // has it: nothing happens
    world.remove_by_id(e, raw).unwrap();
    world.insert_zeroed(e, &[raw]).unwrap();
    let moments: Vec<Lifecycle> = take_log(&mut world).iter().map(|x| x.0).collect();
    assert_eq!(moments, [A, I, P, I, P, R, A, I]);
    let mut spawned = Vec::new();
    world.spawn_zeroed(&[raw], 2, &mut spawned).unwrap();
    let log = take_log(&mut world);
    assert_eq!(
        log.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(),
        [
            (A, spawned[0]),
            (I, spawned[0]),
            (A, spawned[1]),
            (I, spawned[1])
        ]
    );
    assert!(matches!(
        world.set_hook::<ChildOf>(Lifecycle::Add, raw_hook),
        Err(EcsError::Hook { .. })
    ));
}

/// A component whose hooks touch other entities.
#[derive(Component)]
#[component(on_add = adopt, on_remove = orphan)]
pub struct Pet(pub Entity);

/// How many pets an owner has.
#[derive(Component, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pets(pub u32);

/// A marker the hooks' commands add.
#[derive(Component, Debug, PartialEq)]
pub struct Adopted;

fn adopt(mut world: HookWorld<'_>, ctx: HookContext) {
    let owner = world.get::<Pet>(ctx.entity).unwrap().0;
    if let Some(pets) = world.get_mut::<Pets>(owner) {
        pets.0 += 1;
    }
    // Structural changes wait for the end of the operation.
    world.commands().insert(ctx.entity, Adopted);
    assert!(world.get::<Adopted>(ctx.entity).is_none(), "not yet");
}

fn orphan(mut world: HookWorld<'_>, ctx: HookContext) {
    let owner = world.get::<Pet>(ctx.entity).unwrap().0;
    world.get_mut::<Pets>(owner).unwrap().0 -= 1;
    world.commands().spawn((Pets(0),));
}

/// A hook reads and writes other entities' components at once and queues structural
/// changes, applied when the operation that ran it is over.
pub fn hooks_write_other_entities_and_queue_commands<S: Storage>() {
    let mut world = World::<S>::new();
    let owner = world.spawn(Pets(0));
    let a = world.spawn(Pet(owner));
    let b = world.spawn_batch([Pet(owner), Pet(owner)]).to_vec();
    assert_eq!(world.get::<Pets>(owner), Some(&Pets(3)));
    assert!(world.has::<Adopted>(a) && b.iter().all(|&e| world.has::<Adopted>(e)));
    let before = world.len();
    world.despawn(a).unwrap();
    assert_eq!(world.get::<Pets>(owner), Some(&Pets(2)));
    assert_eq!(
        world.len(),
        before,
        "one despawned, one spawned by the hook"
    );
}

/// Flags that make the hooks of `Fragile` panic.
#[derive(Default)]
pub struct Break(pub Option<Lifecycle>);

/// A component whose hooks panic when asked.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = maybe_break, on_replace = maybe_break, on_remove = maybe_break, on_despawn = maybe_break)]
pub struct Fragile(pub u32);

fn maybe_break(world: HookWorld<'_>, ctx: HookContext) {
    if world.resource::<Break>().unwrap().0 == Some(ctx.event) {
        panic!("hook {:?} breaks", ctx.event);
    }
}

/// A panicking hook leaves the world consistent: before a removal nothing is removed,
/// after a store everything is stored, a despawn that panics leaves the entity whole.
pub fn panicking_hooks_leave_the_world_consistent<S: Storage>() {
    let mut world = World::<S>::new();
    world.insert_resource(Break(Some(Lifecycle::Add)));
    let panicked = catch_unwind(AssertUnwindSafe(|| world.spawn((Fragile(1), Pets(1)))));
    assert!(panicked.is_err());
    let mut q = world
        .query_state::<(Entity, &Fragile, &Pets), ()>()
        .unwrap();
    let rows: Vec<(Entity, u32, u32)> = q.iter(&world).map(|(e, f, p)| (e, f.0, p.0)).collect();
    assert_eq!(rows.len(), 1, "the spawn is done: the hook ran after it");
    let e = rows[0].0;

    for moment in [Lifecycle::Replace, Lifecycle::Remove] {
        world.resource_mut::<Break>().unwrap().0 = Some(moment);
        let removed = catch_unwind(AssertUnwindSafe(|| world.remove::<Fragile>(e)));
        assert!(removed.is_err());
        assert_eq!(
            world.get::<Fragile>(e),
            Some(&Fragile(1)),
            "nothing removed"
        );
    }
    world.resource_mut::<Break>().unwrap().0 = Some(Lifecycle::Despawn);
    assert!(catch_unwind(AssertUnwindSafe(|| world.despawn(e))).is_err());
    assert!(
        world.contains(e) && world.has::<Pets>(e),
        "the entity is whole"
    );
    assert!(catch_unwind(AssertUnwindSafe(|| world.clear())).is_err());
    assert_eq!(world.len(), 1, "clear ran no removal");
    world.resource_mut::<Break>().unwrap().0 = None;
    world.despawn(e).unwrap();
    assert!(world.is_empty());
}

/// Who saw what, in order.
#[derive(Default, Debug)]
pub struct Seen(pub Vec<String>);

/// A user event.
pub struct Ping(pub u32);
impl Event for Ping {}

/// Observers run for lifecycle events (the world's first, then the entity's, each in
/// registration order) and for user events; named instances reach their type's observers;
/// an entity's observers never run once it is despawned; `unobserve` removes one.
pub fn observers_run_in_documented_order<S: Storage>() {
    let mut world = World::<S>::new();
    world.insert_resource(Seen::default());
    let e = world.spawn(());
    let other = world.spawn(());
    world
        .entity_mut(e)
        .unwrap()
        .observe(|t: On<Add, Pets>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("entity add {:?}", t.entity()))
        })
        .unwrap();
    let first = world
        .observe(|t: On<Add, Pets>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("first add {:?}", t.entity()))
        })
        .unwrap();
    world
        .observe(|t: On<Add, Pets>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("second add {:?}", t.entity()))
        })
        .unwrap();
    world
        .observe(
            |t: On<Remove, Pets>, q: Query<&Pets, (), S>, mut seen: ResMut<Seen>| {
                let value = q.get(t.entity()).map(|p| p.0);
                seen.0.push(format!("remove {value:?}"))
            },
        )
        .unwrap();
    world
        .observe(|t: On<Ping>, mut seen: ResMut<Seen>| {
            seen.0
                .push(format!("ping {} {:?}", t.event().0, t.target()))
        })
        .unwrap();
    world.insert(e, Pets(1)).unwrap();
    world.insert(other, Pets(2)).unwrap();
    world.insert_named(other, "spare", Pets(3)).unwrap();
    world.remove::<Pets>(other).unwrap();
    world.trigger(Ping(5)).unwrap();
    world.trigger_for(e, Ping(6)).unwrap();
    assert!(world.unobserve(first));
    world.despawn(e).unwrap();
    let e2 = world.spawn(Pets(4));
    let seen = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    assert_eq!(
        seen,
        [
            format!("first add {e:?}"),
            format!("second add {e:?}"),
            format!("entity add {e:?}"),
            format!("first add {other:?}"),
            format!("second add {other:?}"),
            format!("first add {other:?}"),
            format!("second add {other:?}"),
            "remove Some(2)".to_owned(),
            "ping 5 None".to_owned(),
            format!("ping 6 Some({e:?})"),
            "remove Some(1)".to_owned(),
            format!("second add {e2:?}"),
        ]
    );
}

/// An observer's commands (and events it triggers) are applied after the operation; a
/// user event can bubble up the hierarchy; endless chains stop at the depth limit with an
/// error; an observer's error is reported, not lost.
pub fn observer_chains_propagation_and_errors<S: Storage>() {
    struct Bounce(u32);
    impl Event for Bounce {}
    let mut world = World::<S>::new();
    world.insert_resource(Seen::default());
    world
        .observe(|t: On<Insert, Pets>, mut commands: Commands| {
            commands.insert(t.entity(), Adopted);
        })
        .unwrap();
    let e = world.spawn(Pets(0));
    assert!(world.has::<Adopted>(e), "the observer's insert was applied");

    let root = world.spawn(());
    let mid = world.spawn_child(root, ()).unwrap();
    let leaf = world.spawn_child(mid, ()).unwrap();
    world
        .observe(move |t: On<Ping>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("{:?}", t.entity()));
            t.propagate(t.event().0 > seen.0.len() as u32);
            assert_eq!(t.original_target(), Some(leaf));
        })
        .unwrap();
    world.trigger_for(leaf, Ping(2)).unwrap();
    let seen = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    assert_eq!(
        seen,
        [format!("{leaf:?}"), format!("{mid:?}")],
        "stops when asked"
    );

    world
        .observe(|t: On<Bounce>, mut commands: Commands| {
            commands.trigger(Bounce(t.event().0 + 1));
        })
        .unwrap();
    assert!(matches!(
        world.trigger(Bounce(0)),
        Err(EcsError::EventDepth { limit, .. }) if limit == ecs_core::world::MAX_EVENT_DEPTH
    ));
    assert!(
        world.apply(&mut CommandQueue::new()).is_empty(),
        "nothing left over"
    );

    world
        .observe(|_: On<Despawn, Pets>| -> Result<(), String> { Err("no".into()) })
        .unwrap();
    world.despawn(e).unwrap();
    let skipped = world.apply(&mut CommandQueue::new());
    assert!(matches!(&skipped[..], [s] if s.command == "observer"
        && matches!(&s.error, EcsError::Observer { reason, .. } if reason == "no")));
    assert!(matches!(
        world.observe(|| {}),
        Err(EcsError::Observer { .. })
    ));
    assert!(matches!(world.trigger(Add), Err(EcsError::Observer { .. })));
}

/// A panicking observer unwinds out of the operation with the world consistent and its
/// observers still registered.
pub fn panicking_observers_keep_the_world_consistent<S: Storage>() {
    let mut world = World::<S>::new();
    world
        .observe(|t: On<Replace, Pets>, q: Query<&Pets, (), S>| {
            assert!(q.get(t.entity()).unwrap().0 != 13, "unlucky");
        })
        .unwrap();
    let e = world.spawn(Pets(13));
    let replaced = catch_unwind(AssertUnwindSafe(|| world.insert(e, Pets(1))));
    assert!(replaced.is_err());
    assert_eq!(world.get::<Pets>(e), Some(&Pets(13)), "nothing replaced");
    assert_eq!(world.observer_count(), 1);
    world.get_mut::<Pets>(e).unwrap().0 = 2;
    world.insert(e, Pets(3)).unwrap();
    assert_eq!(world.get::<Pets>(e), Some(&Pets(3)));
}

/// A system taking `On<..>` is an observer: a schedule refuses it by name and never runs it.
pub fn schedules_refuse_observers<S: Storage>() {
    let mut world = World::<S>::new();
    let mut schedule = Schedule::<S>::new();
    schedule.add_system(|_: On<Ping>| -> () { unreachable!("never run") });
    let refused = schedule.try_run(&mut world);
    assert!(
        matches!(&refused, Err(EcsError::SystemConflict { reason, .. }) if reason.contains("observer")),
        "{refused:?}"
    );
    schedule.run(&mut world);
}

/// How many times each hook of [`Counted`] ran (indexed by [`Lifecycle::bit`]'s shift).
#[derive(Default, Debug, PartialEq, Clone, Copy)]
pub struct Calls(pub [u32; 5]);

/// A component whose every hook counts its calls, and checks it sees the value it should.
#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(
    on_add = count_call,
    on_insert = count_call,
    on_replace = count_call,
    on_remove = count_call,
    on_despawn = count_call
)]
pub struct Counted(pub u32);

fn count_call(mut world: HookWorld<'_>, ctx: HookContext) {
    assert!(
        world.get::<Counted>(ctx.entity).is_some(),
        "every hook sees the value stored ({:?})",
        ctx.event
    );
    world.resource_mut::<Calls>().unwrap().0[ctx.event as usize] += 1;
}

/// Random spawns, inserts (new and replacing), removes, takes, despawns, queued commands
/// and clears: each hook runs exactly as often as a model of who holds a [`Counted`] says.
pub fn hook_calls_match_a_model<S: Storage>() {
    use std::collections::HashMap;
    let mut world = World::<S>::new();
    world.insert_resource(Calls::default());
    let mut model: HashMap<Entity, bool> = HashMap::new();
    let mut expected = Calls::default();
    let mut rng = crate::kit::Rng::new(0x5EED_0043_400C);
    let (add, ins, rep, rem, des) = (0, 1, 2, 3, 4);
    let drop_holder = |expected: &mut Calls, held: bool| {
        if held {
            for k in [des, rep, rem] {
                expected.0[k] += 1;
            }
        }
    };
    for _ in 0..crate::components::size(3_000, 300) {
        let live: Vec<Entity> = model.keys().copied().collect();
        let pick = (!live.is_empty()).then(|| live[rng.index(live.len())]);
        let v = rng.below(100) as u32;
        match (rng.index(9), pick) {
            (0, _) | (_, None) => {
                let with = rng.below(2) == 0;
                let e = if with {
                    expected.0[add] += 1;
                    expected.0[ins] += 1;
                    world.spawn((Counted(v), Pets(v)))
                } else {
                    world.spawn((Pets(v),))
                };
                model.insert(e, with);
            }
            (1, Some(e)) => {
                let held = model[&e];
                if held {
                    expected.0[rep] += 1;
                } else {
                    expected.0[add] += 1;
                }
                expected.0[ins] += 1;
                world.insert(e, Counted(v)).unwrap();
                model.insert(e, true);
            }
            (2, Some(e)) => {
                let removed = world.remove::<Counted>(e);
                assert_eq!(removed.is_ok(), model[&e]);
                if model[&e] {
                    expected.0[rep] += 1;
                    expected.0[rem] += 1;
                }
                model.insert(e, false);
            }
            (3, Some(e)) => {
                drop_holder(&mut expected, model[&e]);
                world.despawn(e).unwrap();
                model.remove(&e);
            }
            (4, Some(e)) => {
                let taken = world.take::<(Pets,)>(e);
                assert!(taken.is_ok());
                drop_holder(&mut expected, model[&e]);
                model.remove(&e);
            }
            (5, Some(e)) => {
                // Queued: the same hooks when applied.
                let mut queue = CommandQueue::new();
                let mut commands = Commands::new(&mut queue, &world);
                let spawned = commands.spawn((Counted(v), Pets(v)));
                commands.insert(e, Counted(v + 1));
                world.apply(&mut queue);
                expected.0[add] += 1;
                expected.0[ins] += 1;
                if model[&e] {
                    expected.0[rep] += 1;
                } else {
                    expected.0[add] += 1;
                }
                expected.0[ins] += 1;
                model.insert(spawned, true);
                model.insert(e, true);
            }
            (6, Some(e)) => {
                // A value written in place runs no hook.
                if let Some(c) = world.get_mut::<Counted>(e) {
                    c.0 += 1;
                }
            }
            (7, _) if rng.below(40) == 0 => {
                for held in model.values() {
                    drop_holder(&mut expected, *held);
                }
                world.clear();
                model.clear();
            }
            _ => {}
        }
        assert_eq!(*world.resource::<Calls>().unwrap(), expected);
    }
    let holders = world.query::<&Counted>().count();
    assert_eq!(holders, model.values().filter(|&&h| h).count());
}

/// Loading a snapshot runs `on_add` and `on_insert` for each loaded value, once the load
/// is whole (its parent links in place).
pub fn snapshot_loads_run_the_hooks<S: Storage>() {
    fn check_parent(mut world: HookWorld<'_>, ctx: HookContext) {
        let parent = world.parent(ctx.entity);
        world
            .resource_mut::<Seen>()
            .unwrap()
            .0
            .push(format!("{}", parent.is_some()));
    }
    let registry = ecs_core::snapshot::SnapshotRegistry::new().component::<Pets>("Pets");
    let mut saved = World::<S>::new();
    let root = saved.spawn(Pets(1));
    saved.spawn_child(root, Pets(2)).unwrap();
    let json = serde_json::to_string(&registry.save(&saved)).unwrap();
    let mut world = World::<S>::new();
    world.insert_resource(Seen::default());
    world
        .set_hook::<Pets>(Lifecycle::Insert, check_parent)
        .unwrap();
    registry
        .load(&mut world, &mut serde_json::Deserializer::from_str(&json))
        .unwrap();
    let mut seen = world.resource::<Seen>().unwrap().0.clone();
    seen.sort();
    assert_eq!(seen, ["false", "true"], "the child saw its parent link");
}

/// A component whose `on_add` spawns an entity and, when asked, despawns its own.
#[derive(Component, Debug, PartialEq)]
#[component(on_add = churn)]
pub struct Churn(pub bool);

fn churn(mut world: HookWorld<'_>, ctx: HookContext) {
    let parent = world.parent(ctx.entity);
    let despawn_self = world.get::<Churn>(ctx.entity).unwrap().0;
    let mut commands = world.commands();
    commands.spawn((Pets(0),));
    if despawn_self {
        commands.despawn(ctx.entity);
    }
    if let Some(seen) = world.resource_mut::<Seen>() {
        seen.0.push(format!("parent {}", parent.is_some()));
    }
}

/// Operations of several steps run their hooks once whole: `spawn_batch` returns its own
/// entities though hooks' commands spawn more; a child's hooks see it linked, and a
/// command despawning it leaves the hierarchy exact; an observer of a relationship
/// component is refused; commands queued before a hook panicked are dropped.
pub fn multi_step_operations_run_hooks_once_whole<S: Storage>() {
    let mut world = World::<S>::new();
    world.insert_resource(Seen::default());
    let batch = world.spawn_batch((0..4).map(|_| (Churn(false),))).to_vec();
    assert_eq!(batch.len(), 4);
    assert!(
        batch.iter().all(|&e| world.has::<Churn>(e)),
        "the batch's own entities"
    );
    assert_eq!(world.len(), 8, "four spawned by the hooks' commands");

    let parent = world.spawn(());
    let child = world.spawn_child(parent, (Churn(true),)).unwrap();
    assert!(
        !world.contains(child),
        "despawned by its own hook's command"
    );
    assert_eq!(world.children(parent).unwrap().count(), 0, "and unlinked");
    let kept = world.spawn_child(parent, (Churn(false),)).unwrap();
    assert_eq!(world.children(parent).unwrap().collect::<Vec<_>>(), [kept]);
    let seen = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    assert_eq!(
        seen.iter().filter(|s| *s == "parent true").count(),
        2,
        "{seen:?}"
    );
    let copy = world.clone_entity(kept);
    assert!(copy.is_ok());

    assert!(matches!(
        world.observe(|_: On<Add, ChildOf>| {}),
        Err(EcsError::Observer { .. })
    ));

    world.insert_resource(Break(Some(Lifecycle::Add)));
    let before = world.len();
    let panicked = catch_unwind(AssertUnwindSafe(|| world.spawn((Churn(false), Fragile(0)))));
    assert!(panicked.is_err());
    world.resource_mut::<Break>().unwrap().0 = None;
    world.spawn(());
    assert_eq!(
        world.len(),
        before + 2,
        "the panicked spawn's entity and the plain one"
    );
}

/// A component with no hook of its own: a test gives it one at run time.
#[derive(Component, Debug, PartialEq)]
pub struct Later(pub u32);

fn count_later(mut world: HookWorld<'_>, ctx: HookContext) {
    world.resource_mut::<Calls>().unwrap().0[ctx.event as usize] += 1;
}

/// Reactions that begin after a bundle was used reach its next operation on every path
/// (spawn, spawn_batch, insert, remove, a named instance), bundles of other types keep
/// working beside them, and a reaction that ends stops reaching them: a world remembers
/// per bundle whether it reacts, and that answer follows every change.
pub fn reactions_set_later_reach_bundles_used_before<S: Storage>() {
    let mut world = World::<S>::new();
    world.insert_resource(Calls::default());
    world.insert_resource(Seen::default());
    // Every path once while nothing reacts: the bundles are resolved, and quiet.
    let a = world.spawn((Later(1),));
    let b = world.spawn((Later(2), Pets(2)));
    world.insert(a, Pets(1)).unwrap();
    world.remove::<Later>(b).unwrap();
    world.insert(b, Later(3)).unwrap();
    world.spawn_batch([(Later(4),)]);
    world.insert_named(a, "spare", Pets(0)).unwrap();

    world
        .set_hook::<Later>(Lifecycle::Add, count_later)
        .unwrap();
    world
        .set_hook::<Later>(Lifecycle::Remove, count_later)
        .unwrap();
    let c = world.spawn((Later(6),));
    world.spawn((Later(7), Pets(7)));
    world.spawn_batch([(Later(8),), (Later(9),)]);
    world.remove::<Later>(c).unwrap();
    world.insert(c, Later(10)).unwrap();
    // Other types' operations: no call.
    world.spawn((Pets(0),));
    world.insert(c, Pets(3)).unwrap();
    let calls = world.resource::<Calls>().unwrap().0;
    assert_eq!(
        (
            calls[Lifecycle::Add as usize],
            calls[Lifecycle::Remove as usize]
        ),
        (5, 1),
        "{calls:?}"
    );

    let observer = world
        .observe(|t: On<Insert, Pets>, mut seen: ResMut<Seen>| {
            seen.0.push(format!("{:?}", t.entity()))
        })
        .unwrap();
    world.insert(a, Pets(4)).unwrap();
    let d = world.spawn((Pets(5),));
    world.insert_named(a, "spare", Pets(6)).unwrap();
    assert!(world.unobserve(observer));
    world.insert(a, Pets(8)).unwrap();
    world.spawn((Pets(9),));
    world.insert_named(a, "spare", Pets(10)).unwrap();
    let seen = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    assert_eq!(seen, [format!("{a:?}"), format!("{d:?}"), format!("{a:?}")]);
    assert_eq!(world.get::<Pets>(a), Some(&Pets(8)));
}
