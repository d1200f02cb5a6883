//! Change tracking (seed 002) on every backend: `Added<T>`, `Changed<T>`, `Mut<T>`, and the
//! rule that each system sees exactly the changes made since *it* last ran.
//!
//! Each test is a generic `fn name<S: Storage>()`; [`suite!`](crate::suite) runs it on a
//! backend.

use ecs_core::prelude::*;
use ecs_core::storage::Storage;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pos(f32);
impl Component for Pos {
    type Mutability = ecs_core::Tracked;
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Anim(u32);
impl Component for Anim {
    type Mutability = ecs_core::Tracked;
}

/// Untracked: plain `&mut` access.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Vel(f32);
impl Component for Vel {
    type Mutability = ecs_core::Mutable;
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Frozen;
impl Component for Frozen {
    type Mutability = ecs_core::Mutable;
}

/// What a watching system saw in its last run.
#[derive(Default)]
struct Seen(Vec<Entity>);

/// Entities a moving system must write this frame.
#[derive(Default)]
struct ToMove(Vec<Entity>);

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort();
    v
}

/// Takes what the watcher saw since the last call, sorted.
fn take_seen<S: Storage>(world: &mut World<S>) -> Vec<Entity> {
    sorted(std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0))
}

fn watcher<S: Storage>(q: Query<'_, '_, Entity, Changed<Pos>, S>, mut seen: ResMut<Seen>) {
    seen.0.extend(q.iter());
}

fn mover<S: Storage>(mut q: Query<'_, '_, Mut<Pos>, (), S>, mut to_move: ResMut<ToMove>) {
    for e in to_move.0.drain(..) {
        if let Some(mut p) = q.get_mut(e) {
            p.0 += 1.0;
        }
    }
}

fn world_with<S: Storage>(n: usize) -> (World<S>, Vec<Entity>) {
    let mut world = World::<S>::new();
    world.insert_resource(Seen::default());
    world.insert_resource(ToMove::default());
    let entities = world
        .spawn_batch((0..n).map(|i| (Pos(i as f32), Anim(0))))
        .to_vec();
    (world, entities)
}

fn move_next_frame<S: Storage>(world: &mut World<S>, entities: &[Entity]) {
    world.resource_mut::<ToMove>().unwrap().0.extend(entities);
}

/// Seed 002: System A (watches Position) runs before System B (changes it). A must learn
/// about B's change on the next frame, and only once.
pub fn system_a_before_system_b<S: Storage>() {
    let (mut world, e) = world_with::<S>(3);
    let mut schedule = Schedule::<S>::new();
    schedule.add_system(watcher::<S>);
    schedule.add_system(mover::<S>);

    schedule.run(&mut world);
    assert_eq!(
        take_seen(&mut world),
        sorted(e.clone()),
        "first run: everything is new"
    );

    move_next_frame(&mut world, &[e[1]]);
    schedule.run(&mut world); // A runs before B's write
    assert_eq!(take_seen(&mut world), vec![]);
    schedule.run(&mut world);
    assert_eq!(
        take_seen(&mut world),
        vec![e[1]],
        "frame i+1: A sees B's change"
    );
    schedule.run(&mut world);
    assert_eq!(take_seen(&mut world), vec![], "and only once");
    assert_eq!(world.get::<Pos>(e[1]), Some(&Pos(2.0)));
}

/// A system disabled for several frames sees, when enabled again, every change made while it
/// was off, each entity once: disabling a system must not make it miss changes.
pub fn disabled_system_sees_everything_when_reenabled<S: Storage>() {
    let (mut world, e) = world_with::<S>(5);
    let mut schedule = Schedule::<S>::new();
    schedule.add_system(mover::<S>);
    let watcher_id = schedule.add_system(watcher::<S>);
    schedule.run(&mut world);
    take_seen(&mut world);

    schedule.disable(watcher_id);
    for frame in [&[e[0]][..], &[e[1], e[0]], &[], &[e[3]]] {
        move_next_frame(&mut world, frame);
        schedule.run(&mut world);
        assert_eq!(take_seen(&mut world), vec![], "disabled: does not run");
    }
    schedule.enable(watcher_id);
    schedule.run(&mut world);
    assert_eq!(
        take_seen(&mut world),
        sorted(vec![e[0], e[1], e[3]]),
        "every change while disabled, each entity once"
    );
    schedule.run(&mut world);
    assert_eq!(take_seen(&mut world), vec![]);
}

/// A changed entity despawned before the watcher runs is not reported, and a new entity reusing
/// its index is reported under its own handle, never the old one.
pub fn despawned_while_dirty<S: Storage>() {
    let (mut world, e) = world_with::<S>(3);
    let mut schedule = Schedule::<S>::new();
    schedule.add_system(watcher::<S>);
    schedule.run(&mut world);
    take_seen(&mut world);

    world.get_mut_tracked::<Pos>(e[0]).unwrap().0 = 9.0;
    world.get_mut_tracked::<Pos>(e[1]).unwrap().0 = 9.0;
    world.despawn(e[0]).unwrap();
    schedule.run(&mut world);
    assert_eq!(
        take_seen(&mut world),
        vec![e[1]],
        "the despawned entity is not yielded"
    );

    // Its index is reused by a new entity: the new one is reported, the old handle never.
    world.get_mut_tracked::<Pos>(e[2]).unwrap().0 = 1.0;
    world.despawn(e[2]).unwrap();
    let reused = world.spawn((Pos(0.0),));
    schedule.run(&mut world);
    let seen = take_seen(&mut world);
    assert!(seen.contains(&reused) && !seen.contains(&e[2]), "{seen:?}");
    assert_eq!(seen.len(), 1);
}

/// A removal is not an addition, but inserting the component again is, and `Changed` includes
/// it; a component changed and then removed is not reported, as the entity no longer matches.
pub fn removed_and_readded_is_added<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((Pos(0.0), Vel(0.0)));
    let other = world.spawn((Pos(1.0),));
    let mut added = world.query_state::<Entity, Added<Pos>>().unwrap();
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    assert_eq!(added.iter(&world).count(), 2, "first run");
    assert_eq!(changed.iter(&world).count(), 2, "first run");

    world.remove::<Pos>(e).unwrap();
    assert_eq!(
        added.iter(&world).count(),
        0,
        "a removal is not an addition"
    );
    world.insert(e, Pos(5.0)).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e]);
    assert_eq!(
        changed.iter(&world).collect::<Vec<_>>(),
        vec![e],
        "Changed includes Added"
    );

    // Removed after being marked: matched no more, so not reported.
    world.get_mut_tracked::<Pos>(other).unwrap().0 = 2.0;
    world.remove::<Pos>(other).unwrap();
    assert_eq!(changed.iter(&world).count(), 0);
    assert!(added.is_log_driven() && changed.is_log_driven());
}

/// Seed 002's `dirtyComponents`: react to changes of components the query does not fetch.
pub fn changes_beyond_the_fetched_components<S: Storage>() {
    let mut world = World::<S>::new();
    let both: Vec<_> = (0..4)
        .map(|i| world.spawn((Pos(i as f32), Anim(0))))
        .collect();
    let anim_only = world.spawn((Anim(0),));
    let mut render = world
        .query_state::<(Entity, &Pos), Or<(Changed<Pos>, Changed<Anim>)>>()
        .unwrap();
    assert_eq!(render.iter(&world).count(), 4, "first run: all that match");

    world.get_mut_tracked::<Anim>(both[0]).unwrap().0 = 1; // not fetched, still a change
    world.get_mut_tracked::<Pos>(both[2]).unwrap().0 = 7.0;
    world.get_mut_tracked::<Anim>(both[2]).unwrap().0 = 1; // both changed: reported once
    world.get_mut_tracked::<Anim>(anim_only).unwrap().0 = 1; // has no Pos: never matches
    let seen: Vec<Entity> = render.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(sorted(seen), sorted(vec![both[0], both[2]]));
    assert!(render.is_log_driven());
    assert_eq!(render.iter(&world).count(), 0);

    // With an exclusion in the conjunction, still driven by the logs.
    let mut not_frozen = world
        .query_state::<Entity, (Changed<Pos>, Without<Frozen>)>()
        .unwrap();
    not_frozen.iter(&world).for_each(drop);
    world.insert(both[1], Frozen).unwrap();
    world.get_mut_tracked::<Pos>(both[1]).unwrap().0 = 0.5;
    world.get_mut_tracked::<Pos>(both[3]).unwrap().0 = 0.5;
    assert_eq!(not_frozen.iter(&world).collect::<Vec<_>>(), vec![both[3]]);
    assert!(not_frozen.is_log_driven());
}

/// `set_changed` reports an entity as changed without a write, and a write through
/// `bypass_change_detection` is stored but not reported.
pub fn marking_by_hand<S: Storage>() {
    let (mut world, e) = world_with::<S>(3);
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    changed.iter(&world).for_each(drop);
    world
        .query::<(Entity, Mut<Pos>)>()
        .filter(|(entity, _)| *entity == e[2])
        .for_each(|(_, mut p)| p.set_changed());
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e[2]]);
    // A write that bypasses detection is not reported.
    world
        .get_mut_tracked::<Pos>(e[0])
        .unwrap()
        .bypass_change_detection()
        .0 = 3.0;
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(world.get::<Pos>(e[0]), Some(&Pos(3.0)));
}

/// Reading through `Mut<T>` is not a change; only writing through it is, so systems that read
/// before deciding to write do not flood `Changed` filters.
pub fn reading_through_mut_is_not_a_change<S: Storage>() {
    let (mut world, e) = world_with::<S>(4);
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    changed.iter(&world).for_each(drop);
    let total: f32 = world.query::<Mut<Pos>>().map(|p| p.0).sum();
    assert_eq!(total, 6.0);
    assert_eq!(changed.iter(&world).count(), 0, "Deref without DerefMut");
    for mut p in world.query::<Mut<Pos>>() {
        if p.0 > 2.0 {
            p.0 = 0.0;
        }
    }
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e[3]]);
}

/// A `Changed` query reports an entity once per run however often it was written, and the
/// writes it makes during a run are reported on its next run, not the current one.
pub fn each_entity_once_per_run_and_own_writes_next_run<S: Storage>() {
    let (mut world, e) = world_with::<S>(3);
    let mut bounce = world.query_state::<Mut<Pos>, Changed<Pos>>().unwrap();
    assert_eq!(bounce.iter_mut(&mut world).count(), 3);
    for _ in 0..5 {
        world.get_mut_tracked::<Pos>(e[0]).unwrap().0 += 1.0;
    }
    // This run writes every entity it sees: those writes are for the next run.
    let mut n = 0;
    bounce.iter_mut(&mut world).for_each(|mut p| {
        p.0 += 1.0;
        n += 1;
    });
    assert_eq!(n, 1, "five writes, one report");
    let again: Vec<f32> = bounce.iter_mut(&mut world).map(|p| p.0).collect();
    assert_eq!(again, vec![6.0], "its own write, seen on its next run");
    assert_eq!(bounce.iter_mut(&mut world).count(), 0);
}

/// The crates workload in miniature: many static entities, a few moving. The render query
/// visits the moving ones only (log-driven; the bench measures the time).
pub fn cost_follows_change<S: Storage>() {
    let statics = if cfg!(miri) { 50 } else { 5_000 };
    let mut world = World::<S>::new();
    world.spawn_batch((0..statics).map(|i| (Pos(i as f32), Anim(0))));
    let moving = world
        .spawn_batch((0..10).map(|i| (Pos(i as f32), Anim(0), Vel(1.0))))
        .to_vec();
    let mut render = world
        .query_state::<(&Pos, &Anim), Or<(Changed<Pos>, Changed<Anim>)>>()
        .unwrap();
    let mut movers = world.query_state::<(Mut<Pos>, &Vel), ()>().unwrap();
    assert_eq!(render.iter(&world).count(), statics + 10);
    for _ in 0..3 {
        movers
            .iter_mut(&mut world)
            .for_each(|(mut p, v)| p.0 += v.0);
        assert_eq!(render.iter(&world).count(), moving.len());
        assert!(render.is_log_driven());
    }
    let retained = world.changes().log(
        world.component_id::<Pos>().unwrap(),
        ecs_core::change::ChangeKind::Changed,
    );
    assert!(
        retained.unwrap().retained() <= 2 * moving.len(),
        "the log stays small"
    );
}

/// Inserting over an existing value is a change but not an addition, while spawned entities,
/// including batch spawns, are additions.
pub fn insert_replacing_is_changed_not_added<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((Pos(0.0),));
    let mut added = world.query_state::<Entity, Added<Pos>>().unwrap();
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    added.iter(&world).for_each(drop);
    changed.iter(&world).for_each(drop);
    assert_eq!(world.insert(e, Pos(1.0)).unwrap(), Some(Pos(0.0)));
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e]);
    let spawned = world.spawn_batch([(Pos(1.0),), (Pos(2.0),)]).to_vec();
    assert_eq!(sorted(added.iter(&world).collect()), sorted(spawned));
}

/// `Or<(Changed<A>, With<B>)>` accepts entities that never changed, so it scans; the
/// answers must still be right.
pub fn filters_that_cannot_be_driven_still_answer<S: Storage>() {
    let (mut world, e) = world_with::<S>(4);
    world.insert(e[3], Frozen).unwrap();
    let mut q = world
        .query_state::<Entity, Or<(Changed<Pos>, With<Frozen>)>>()
        .unwrap();
    assert_eq!(q.iter(&world).count(), 4);
    world.get_mut_tracked::<Pos>(e[1]).unwrap().0 = 5.0;
    assert_eq!(sorted(q.iter(&world).collect()), vec![e[1], e[3]]);
    assert!(!q.is_log_driven());
    assert_eq!(q.iter(&world).collect::<Vec<_>>(), vec![e[3]]);
}

/// Writes through `Mut<T>` from a parallel query are all recorded, none lost to races, and a
/// change-filtered query can itself run in parallel.
pub fn parallel_writes_are_all_recorded<S: Storage>() {
    let n = if cfg!(miri) { 40 } else { 3_000 };
    let (mut world, e) = world_with::<S>(n);
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    changed.iter(&world).for_each(drop);
    world.query::<(Entity, Mut<Pos>)>().par_for_each_batched(
        BatchSize::Rows(7),
        |(entity, mut p)| {
            if entity.index() % 3 == 0 {
                p.0 = -1.0;
            }
        },
    );
    let expected: Vec<_> = e.iter().copied().filter(|x| x.index() % 3 == 0).collect();
    assert_eq!(
        sorted(changed.iter(&world).collect()),
        sorted(expected.clone())
    );
    // And a driven run can be parallel too.
    world
        .query::<(Entity, Mut<Pos>)>()
        .par_for_each_batched(BatchSize::Rows(5), |(_, mut p)| p.0 = 2.0);
    let sum = std::sync::atomic::AtomicUsize::new(0);
    changed
        .iter(&world)
        .par_for_each_batched(BatchSize::Rows(3), |_| {
            sum.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
    assert_eq!(sum.into_inner(), n);
}

/// A change-filtered state's `get` answers for the window of its latest run: everything passes
/// before the first run, and afterwards only the entities changed in that window.
pub fn get_answers_for_the_current_run<S: Storage>() {
    let (mut world, e) = world_with::<S>(3);
    let mut changed = world.query_state::<&Pos, Changed<Pos>>().unwrap();
    assert!(
        changed.get(&world, e[0]).is_some(),
        "before any run everything passes"
    );
    changed.iter(&world).for_each(drop);
    world.get_mut_tracked::<Pos>(e[2]).unwrap().0 = 8.0;
    changed.iter(&world).for_each(drop);
    assert_eq!(changed.get(&world, e[2]), Some(&Pos(8.0)));
    assert_eq!(changed.get(&world, e[0]), None);
}

/// Found by the differential fuzzer: a state's `get` answers for its latest run's window
/// even after every other reader of the log has moved past it (the log used to trim that
/// window away, and `get` then forgot the entities it had just reported).
pub fn get_keeps_its_window_when_other_readers_move_on<S: Storage>() {
    let (mut world, e) = world_with::<S>(3);
    let mut slow = world.query_state::<&Pos, Changed<Pos>>().unwrap();
    let mut fast = world.query_state::<Entity, Changed<Pos>>().unwrap();
    slow.iter(&world).for_each(drop);
    fast.iter(&world).for_each(drop);
    world.get_mut_tracked::<Pos>(e[1]).unwrap().0 = 5.0;
    assert_eq!(slow.iter(&world).count(), 1);
    // The other reader runs twice: nobody but `slow` still needs the entry for e[1].
    assert_eq!(fast.iter(&world).collect::<Vec<_>>(), vec![e[1]]);
    world.get_mut_tracked::<Pos>(e[2]).unwrap().0 = 6.0;
    assert_eq!(fast.iter(&world).collect::<Vec<_>>(), vec![e[2]]);
    assert_eq!(
        slow.get(&world, e[1]),
        Some(&Pos(5.0)),
        "slow's window forgot e[1]"
    );
    assert_eq!(slow.get(&world, e[0]), None);
    // Its next run moves its window on, and the old entry goes.
    assert_eq!(slow.iter(&world).count(), 1);
    assert_eq!(slow.get(&world, e[1]), None);
}

/// Writes to an untracked component, by `get_mut`, `&mut` queries, `Mut<T>` or
/// `get_mut_tracked`, all land, and the world keeps no change log for the type.
pub fn untracked_types_keep_plain_references<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((Vel(1.0), Pos(0.0)));
    world.get_mut::<Vel>(e).unwrap().0 = 2.0;
    world.query::<&mut Vel>().for_each(|v: &mut Vel| v.0 += 1.0);
    // `Mut<T>` works for untracked types too, as a plain reference.
    world.query::<Mut<Vel>>().for_each(|mut v| v.0 += 1.0);
    world.get_mut_tracked::<Vel>(e).unwrap().0 += 1.0;
    assert_eq!(world.get::<Vel>(e), Some(&Vel(5.0)));
    assert!(world
        .changes()
        .logs(world.component_id::<Vel>().unwrap())
        .is_none());
}

/// The added and changed flags of each `Ref<Pos>` item, by entity, sorted.
fn flags<S: Storage>(
    state: &mut QueryState<(Entity, ecs_core::query::Ref<'static, Pos>), (), S>,
    world: &World<S>,
) -> Vec<(Entity, bool, bool)> {
    let mut out: Vec<(Entity, bool, bool)> = state
        .iter(world)
        .map(|(e, pos)| (e, pos.is_added(), pos.is_changed()))
        .collect();
    out.sort();
    out
}

/// `Ref<T>` answers per item what `Added<T>` and `Changed<T>` filter on: everything on the
/// first run, then only what was added (spawned with it, or inserted when missing) or
/// written since the query's last run; through a run a filter drives, and through `get`.
pub fn ref_answers_added_and_changed_per_item<S: Storage>() {
    use ecs_core::query::Ref;
    let mut world = World::<S>::new();
    let a = world.spawn((Pos(0.0), Anim(0)));
    let b = world.spawn((Pos(1.0),));
    let c = world.spawn((Anim(2),));
    let mut refs = world
        .query_state::<(Entity, Ref<'static, Pos>), ()>()
        .unwrap();
    assert_eq!(flags(&mut refs, &world), [(a, true, true), (b, true, true)]);
    assert_eq!(
        flags(&mut refs, &world),
        [(a, false, false), (b, false, false)]
    );
    world.get_mut_tracked::<Pos>(b).unwrap().0 += 1.0;
    world.insert(c, Pos(5.0)).unwrap();
    assert_eq!(
        flags(&mut refs, &world),
        [(a, false, false), (b, false, true), (c, true, true)]
    );
    // A run driven by another component's log still answers for the item's.
    let mut driven = world
        .query_state::<(Entity, Ref<'static, Pos>), Changed<Anim>>()
        .unwrap();
    assert_eq!(driven.iter(&world).count(), 2, "first run: every Anim");
    world.get_mut_tracked::<Anim>(a).unwrap().0 += 1;
    world.get_mut_tracked::<Anim>(c).unwrap().0 += 1;
    world.get_mut_tracked::<Pos>(c).unwrap().0 += 1.0;
    let mut seen: Vec<(Entity, bool)> = driven
        .iter(&world)
        .map(|(e, pos)| (e, pos.is_changed()))
        .collect();
    seen.sort();
    assert_eq!(seen, [(a, false), (c, true)]);
    assert!(driven.is_log_driven(), "the Anim log drove the run");
    // A look-up answers as `Changed<T>` does for one entity: changed since the window of
    // the state's last run began.
    let looked = refs
        .get(&world, a)
        .map(|(_, p)| (p.is_added(), p.is_changed()));
    assert_eq!(looked, Some((false, false)));
    world.get_mut_tracked::<Pos>(a).unwrap().0 += 1.0;
    let looked = refs
        .get(&world, a)
        .map(|(_, p)| (p.is_added(), p.is_changed(), p.0));
    assert_eq!(looked, Some((false, true, 1.0)));
    assert_eq!(flags(&mut refs, &world)[0], (a, false, true));
}
