//! Entity access: several entities at once, one entity through a handle, a query's only
//! item, read-only queries through `&World`, and mutable views.

use std::sync::atomic::{AtomicU64, Ordering};

use ecs_core::{
    Added, Changed, Component, ComponentId, EcsError, Entity, Or, Query, Res, ResMut, Schedule,
    Storage, StorageKind, With, Without, World,
};

use crate::components::{size, Ledger, Tag, Tracked, A, B, D};

/// A change-tracked component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos(i32);
impl Component for Pos {
    type Mutability = ecs_core::Tracked;
}

/// `n` entities with `A(i)`, spread over four layouts (with `B`, with `Tag`, with both, or
/// alone), so requests cross tables and sparse sets.
fn spread<S: Storage>(n: u32) -> (World<S>, Vec<Entity>) {
    let mut world = World::<S>::new();
    let entities = (0..n)
        .map(|i| match i % 4 {
            0 => world.spawn((A(i),)),
            1 => world.spawn((A(i), B(i.to_string()))),
            2 => world.spawn((Tag, A(i))),
            _ => world.spawn((A(i), Tag, B(i.to_string()))),
        })
        .collect();
    (world, entities)
}

fn missing_a(entity: Entity) -> impl Fn(&EcsError) -> bool {
    move |err| {
        matches!(err, EcsError::MissingComponent { entity: e, component }
            if *e == entity && component.ends_with("::A"))
    }
}

/// `get_many_mut` hands out one mutable reference per requested entity, in request order and
/// across tables and sets, and each write lands on its own entity: users rely on it to update
/// several entities at once without aliasing.
pub fn get_many_mut_hands_out_disjoint_references<S: Storage>() {
    let n = size(64, 12) as u32;
    let (mut world, e) = spread::<S>(n);
    let picks = [e[n as usize - 1], e[0], e[5], e[2]];
    let refs = world.get_many_mut::<A, 4>(picks).unwrap();
    assert_eq!(
        refs.iter().map(|a| a.0).collect::<Vec<_>>(),
        [n - 1, 0, 5, 2]
    );
    for (k, a) in refs.into_iter().enumerate() {
        a.0 += 1000 * (k as u32 + 1);
    }
    assert_eq!(world.get::<A>(picks[0]), Some(&A(n - 1 + 1000)));
    assert_eq!(world.get::<A>(picks[3]), Some(&A(2 + 4000)));
    assert_eq!(world.get::<A>(e[1]), Some(&A(1)), "untouched");
    // Mixed with `get_mut` afterwards; an empty request is fine.
    let [] = world.get_many_mut::<A, 0>([]).unwrap();
    let [x, y] = world.get_many_mut::<A, 2>([e[3], e[4]]).unwrap();
    std::mem::swap(x, y);
    assert_eq!(
        (world.get::<A>(e[3]), world.get::<A>(e[4])),
        (Some(&A(4)), Some(&A(3)))
    );
    // Zero-sized values: distinct entities, references that may share an address.
    let [t2, t3] = world.get_many_mut::<Tag, 2>([e[2], e[3]]).unwrap();
    assert_eq!((*t2, *t3), (Tag, Tag));
    // More handles than the pairwise repeat check takes: the hash set path.
    let many: [Entity; 20] = std::array::from_fn(|i| e[i % e.len()]);
    if e.len() >= 20 {
        let refs = world.get_many_mut::<A, 20>(many).unwrap();
        assert_eq!(refs.len(), 20);
    } else {
        assert_eq!(
            world.get_many_mut::<A, 20>(many).unwrap_err(),
            EcsError::DuplicateEntity(e[0])
        );
    }
}

/// `get_many_mut` reports a repeated entity first, then the first stale handle or missing
/// component in request order, and a failed request changes nothing, so a caller learns what
/// was wrong without the world being touched.
pub fn get_many_mut_reports_each_error<S: Storage>() {
    let (mut world, e) = spread::<S>(8);
    let bare = world.spawn((B("no A".into()),));
    let stale = world.spawn((A(99),));
    world.despawn(stale).unwrap();
    // A repeated entity first, whatever else is wrong.
    assert_eq!(
        world.get_many_mut::<A, 3>([e[1], e[2], e[1]]).unwrap_err(),
        EcsError::DuplicateEntity(e[1])
    );
    assert_eq!(
        world
            .get_many_mut::<A, 3>([stale, bare, stale])
            .unwrap_err(),
        EcsError::DuplicateEntity(stale)
    );
    // Then the first entity without a value, in order.
    assert_eq!(
        world.get_many_mut::<A, 3>([e[0], stale, bare]).unwrap_err(),
        EcsError::NoSuchEntity(stale)
    );
    let err = world.get_many_mut::<A, 3>([e[0], bare, stale]).unwrap_err();
    assert!(missing_a(bare)(&err), "{err}");
    assert!(err.to_string().contains("has no component"), "{err}");
    let dup = world.get_many_mut::<A, 2>([e[0], e[0]]).unwrap_err();
    assert!(dup.to_string().contains("more than once"), "{dup}");
    // A type the world never registered: every live entity lacks it.
    let err = world.get_many_mut::<D, 1>([e[0]]).unwrap_err();
    assert!(matches!(err, EcsError::MissingComponent { entity, .. } if entity == e[0]));
    assert_eq!(
        world.get_many_mut_tracked::<Pos, 1>([stale]).unwrap_err(),
        EcsError::NoSuchEntity(stale)
    );
    // Nothing was changed by the failed requests.
    assert_eq!(
        world.query::<&A>().map(|a| a.0).sum::<u32>(),
        (0..8u32).sum::<u32>()
    );
}

/// `get_many_mut_tracked` marks as changed only the entities written through or marked by hand,
/// not those only read, so `Changed` filters never report a read as a write.
pub fn get_many_mut_tracked_records_writes_only<S: Storage>() {
    let mut world = World::<S>::new();
    let e: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i), A(i as u32)))).collect();
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    assert_eq!(changed.iter(&world).count(), 4, "first run: every spawn");
    let [mut p3, p1, mut p0] = world
        .get_many_mut_tracked::<Pos, 3>([e[3], e[1], e[0]])
        .unwrap();
    p3.0 += p1.0; // a write to e3, a read of e1
    p0.set_changed();
    let mut seen: Vec<Entity> = changed.iter(&world).collect();
    seen.sort();
    assert_eq!(seen, vec![e[0], e[3]]);
    assert_eq!(world.get::<Pos>(e[3]), Some(&Pos(4)));
    // Untracked types go through it too, as plain references.
    let [a2, a0] = world.get_many_mut_tracked::<A, 2>([e[2], e[0]]).unwrap();
    assert_eq!((a2.0, a0.0), (2, 0));
    assert_eq!(
        world
            .get_many_mut_tracked::<Pos, 2>([e[2], e[2]])
            .unwrap_err(),
        EcsError::DuplicateEntity(e[2])
    );
    assert_eq!(changed.iter(&world).count(), 0);
}

/// A query state's `get_many_mut` refuses repeated, stale and non-matching entities (naming the
/// query), while the read-only `get_many` allows repeats: an entity the filter excludes must
/// never hand out its components through the query.
pub fn query_get_many_checks_matches_and_repeats<S: Storage>() {
    let n = size(40, 12) as u32;
    let (mut world, e) = spread::<S>(n);
    let stale = world.spawn((A(7),));
    world.despawn(stale).unwrap();
    // e[1] and e[5] have B and no Tag; e[0] has no B; e[3] has a Tag.
    let state = world
        .query_state::<(Entity, &mut A, Option<&B>), Without<Tag>>()
        .unwrap();
    let [(e5, a5, b5), (e1, a1, b1)] = state.get_many_mut(&mut world, [e[5], e[1]]).unwrap();
    assert_eq!((e5, e1), (e[5], e[1]));
    assert_eq!(
        (b5.map(|b| b.0.as_str()), b1.map(|b| b.0.as_str())),
        (Some("5"), Some("1"))
    );
    std::mem::swap(&mut a5.0, &mut a1.0);
    assert_eq!(world.get::<A>(e[1]), Some(&A(5)));
    assert_eq!(
        state
            .get_many_mut(&mut world, [e[0], e[4], e[0]])
            .unwrap_err(),
        EcsError::DuplicateEntity(e[0])
    );
    assert_eq!(
        state.get_many_mut(&mut world, [e[0], stale]).unwrap_err(),
        EcsError::NoSuchEntity(stale)
    );
    let err = state
        .get_many_mut(&mut world, [e[0], e[3], stale])
        .unwrap_err();
    assert!(
        matches!(&err, EcsError::QueryMismatch { entity, query }
            if *entity == e[3] && query.contains("Without<") && query.contains("Tag")),
        "{err}"
    );
    assert!(err.to_string().contains("does not match query"), "{err}");
    // Read-only: a repeated entity is fine.
    let read = world.query_state::<&A, With<B>>().unwrap();
    let [x, y, z] = read.get_many(&world, [e[1], e[5], e[1]]).unwrap();
    assert_eq!((x.0, y.0, z.0), (5, 1, 5));
    let err = read.get_many(&world, [e[1], e[0]]).unwrap_err();
    assert!(matches!(err, EcsError::QueryMismatch { entity, .. } if entity == e[0]));
    assert_eq!(
        read.get_many(&world, [stale]).unwrap_err(),
        EcsError::NoSuchEntity(stale)
    );
    // A query requiring nothing matches every live entity, and still rejects stale ones.
    let everyone = world.query_state::<(Entity, Option<&mut A>), ()>().unwrap();
    let bare = world.spawn(());
    let [(x, none), (y, some)] = everyone.get_many_mut(&mut world, [bare, e[2]]).unwrap();
    assert_eq!(
        (x, y, none.is_none(), some.map(|a| a.0)),
        (bare, e[2], true, Some(2))
    );
    assert_eq!(
        everyone
            .get_many_mut(&mut world, [bare, stale])
            .unwrap_err(),
        EcsError::NoSuchEntity(stale)
    );
}

/// What a system saw, for the test to check after the schedule ran.
#[derive(Default, Debug)]
struct Seen {
    pairs: Vec<(u32, u32)>,
    errors: Vec<EcsError>,
}

fn swap_pair<S: Storage>(
    mut q: Query<'_, '_, &mut A, (), S>,
    pair: Res<[Entity; 2]>,
    mut seen: ResMut<Seen>,
) {
    let [x, y] = *pair;
    match q.get_many_mut([x, y]) {
        Ok([a, b]) => std::mem::swap(a, b),
        Err(err) => seen.errors.push(err),
    }
    if let Err(err) = q.get_many_mut([x, x]) {
        seen.errors.push(err);
    }
    if let Ok([a, b]) = q.get_many_mut([y, x]) {
        seen.pairs.push((a.0, b.0));
    }
}

fn read_pair<S: Storage>(
    q: Query<'_, '_, &A, With<B>, S>,
    pair: Res<[Entity; 2]>,
    mut seen: ResMut<Seen>,
) {
    let [x, y] = *pair;
    match q.get_many([x, y, x]) {
        Ok([a, b, c]) => seen.pairs.push((a.0 + c.0, b.0)),
        Err(err) => seen.errors.push(err),
    }
}

/// `get_many_mut` and `get_many` on a system's `Query` behave as on a query state: disjoint
/// entities can be swapped, and repeats or entities outside the filter come back as errors.
pub fn system_query_get_many<S: Storage>() {
    let (mut world, e) = spread::<S>(8);
    world.insert_resource([e[1], e[2]]);
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::<S>::new();
    schedule.add_system(swap_pair::<S>);
    schedule.run(&mut world);
    let seen = world.resource::<Seen>().unwrap();
    assert_eq!(seen.errors, vec![EcsError::DuplicateEntity(e[1])]);
    assert_eq!(
        seen.pairs,
        vec![(1, 2)],
        "swapped, then read back as [y, x]"
    );
    world.insert_resource(Seen::default());
    let mut reads = Schedule::<S>::new();
    reads.add_system(read_pair::<S>);
    reads.run(&mut world);
    // e[2] has no B: the read-only request fails on it.
    let seen = world.resource::<Seen>().unwrap();
    assert!(matches!(seen.errors[..], [EcsError::QueryMismatch { entity, .. }] if entity == e[2]));
    world.insert_resource([e[1], e[5]]);
    world.insert_resource(Seen::default());
    reads.run(&mut world);
    assert_eq!(world.resource::<Seen>().unwrap().pairs, vec![(4, 5)]);
}

fn single_error(found: usize) -> impl Fn(&EcsError) -> bool {
    move |err| matches!(err, EcsError::QuerySingle { found: f, .. } if *f == found)
}

/// `query_single` and a state's `single` and `single_mut` succeed only when exactly one entity
/// matches, and otherwise report whether none or several did, naming the query; with a change
/// filter they look only at the entities changed since the state's last run.
pub fn single_finds_exactly_one<S: Storage>() {
    let (mut world, _) = spread::<S>(size(20, 8) as u32);
    // No match, one match, several: through the world, a kept state and a filter.
    let none = world.query_single::<&D>().err().unwrap();
    assert!(single_error(0)(&none), "{none}");
    let text = none.to_string();
    assert!(
        text.contains("exactly one") && text.contains("found none"),
        "{text}"
    );
    assert!(text.contains("::D"), "names the query: {text}");
    let several = world.query_single::<&A>().err().unwrap();
    assert!(single_error(2)(&several), "{several}");
    assert!(several.to_string().contains("at least two"), "{several}");
    let special = world.spawn((A(500), D([1, 2, 3])));
    assert_eq!(world.query_single::<(Entity, &A, &D)>().unwrap().0, special);
    world.query_single::<&mut A>().err().unwrap();
    world.query_single_filtered::<&mut A, With<D>>().unwrap().0 += 1;
    assert_eq!(world.get::<A>(special), Some(&A(501)));
    let filtered = world
        .query_single_filtered::<&A, (With<B>, With<Tag>)>()
        .err()
        .unwrap();
    assert!(filtered.to_string().contains("filtered by"), "{filtered}");
    let conflict = world.query_single::<(&mut A, &A)>().err().unwrap();
    assert!(
        matches!(conflict, EcsError::QueryConflict { .. }),
        "{conflict}"
    );
    let mut state = world.query_state::<&D, ()>().unwrap();
    assert_eq!(state.single(&world).unwrap(), &D([1, 2, 3]));
    let mut writer = world.query_state::<&mut D, Without<Tag>>().unwrap();
    writer.single_mut(&mut world).unwrap().0[0] = 9;
    world.despawn(special).unwrap();
    assert!(single_error(0)(&state.single(&world).unwrap_err()));
    assert!(single_error(0)(&writer.single_mut(&mut world).unwrap_err()));
    // Change filters: the single changed entity of this run.
    let tracked: Vec<Entity> = (0..3).map(|i| world.spawn((Pos(i),))).collect();
    let mut changed = world.query_state::<&Pos, Changed<Pos>>().unwrap();
    assert!(
        single_error(2)(&changed.single(&world).unwrap_err()),
        "first run: all"
    );
    world.get_mut_tracked::<Pos>(tracked[1]).unwrap().0 = 10;
    assert_eq!(changed.single(&world).unwrap(), &Pos(10));
    assert!(single_error(0)(&changed.single(&world).unwrap_err()));
}

fn count_players<S: Storage>(
    players: Query<'_, '_, &A, With<D>, S>,
    mut names: Query<'_, '_, &mut B, Without<A>, S>,
    mut seen: ResMut<Seen>,
) {
    match players.single() {
        Ok(a) => seen.pairs.push((a.0, 0)),
        Err(err) => seen.errors.push(err),
    }
    match names.single_mut() {
        Ok(b) => b.0.push('!'),
        Err(err) => seen.errors.push(err),
    }
}

/// `single` and `single_mut` on a system's queries return the one match and report none or
/// several as errors, so a system can depend on a unique entity without panicking.
pub fn system_query_single<S: Storage>() {
    let (mut world, _) = spread::<S>(8);
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::<S>::new();
    schedule.add_system(count_players::<S>);
    schedule.run(&mut world);
    let seen = world.resource::<Seen>().unwrap();
    assert!(single_error(0)(&seen.errors[0]) && single_error(0)(&seen.errors[1]));
    world.spawn((A(3), D([0; 3])));
    let named = world.spawn((B("x".into()),));
    world.spawn((A(4), B("y".into())));
    world.insert_resource(Seen::default());
    schedule.run(&mut world);
    let seen = world.resource::<Seen>().unwrap();
    assert_eq!(
        (seen.pairs.as_slice(), seen.errors.len()),
        (&[(3, 0)][..], 0)
    );
    assert_eq!(world.get::<B>(named).unwrap().0, "x!");
    world.spawn((D([1; 3]), A(5)));
    world.spawn((B("z".into()),));
    world.insert_resource(Seen::default());
    schedule.run(&mut world);
    let seen = world.resource::<Seen>().unwrap();
    assert!(single_error(2)(&seen.errors[0]) && single_error(2)(&seen.errors[1]));
}

/// `World::entity` gives a shared handle that reads the same values as `World::get` and can be
/// held beside other handles and references; stale and unflushed reserved handles are refused.
pub fn entity_ref_reads_one_entity<S: Storage>() {
    let n = size(24, 8) as u32;
    let (mut world, e) = spread::<S>(n);
    let bare = world.spawn(());
    let stale = world.spawn((A(1),));
    world.despawn(stale).unwrap();
    let reused = world.spawn((A(77),));
    for &entity in &e {
        let view = world.entity(entity).unwrap();
        assert_eq!(view.id(), entity);
        assert_eq!(view.get::<A>(), world.get::<A>(entity));
        assert_eq!(view.get::<B>(), world.get::<B>(entity));
        assert_eq!(view.contains::<Tag>(), world.has::<Tag>(entity));
        assert!(view.contains::<A>() && !view.contains::<D>());
        assert_eq!(view.get::<D>(), None, "a type the world never registered");
    }
    // Several at once, beside `get`, and their references outlive the handles.
    let (x, y) = (world.entity(e[1]).unwrap(), world.entity(e[2]).unwrap());
    let copy = x;
    let refs = (
        x.get::<A>().unwrap(),
        copy.get::<B>().unwrap(),
        y.get::<A>().unwrap(),
    );
    let plain = world.get::<A>(e[1]).unwrap();
    assert_eq!(
        (refs.0, refs.1 .0.as_str(), refs.2, plain),
        (&A(1), "1", &A(2), &A(1))
    );
    assert_eq!(format!("{x:?}"), format!("EntityRef({:?})", e[1]));
    assert_eq!(x.world().len(), world.len());
    // No components (rowless in the table backends).
    let nothing = world.entity(bare).unwrap();
    assert!(nothing.get::<A>().is_none() && !nothing.contains::<Tag>());
    // Stale, reused and reserved handles.
    assert_eq!(
        world.entity(stale).unwrap_err(),
        EcsError::NoSuchEntity(stale)
    );
    if reused.index() == stale.index() {
        assert_ne!(reused, stale);
    }
    assert_eq!(world.entity(reused).unwrap().get::<A>(), Some(&A(77)));
    let reserved = world.reserve_entity();
    assert_eq!(
        world.entity(reserved).unwrap_err(),
        EcsError::NoSuchEntity(reserved)
    );
    world.flush();
    assert!(world.entity(reserved).unwrap().get::<A>().is_none());
}

/// `World::entity_mut` writes, inserts and removes on one entity and reads it back from wherever
/// those moves put it, with inserts counted as additions and only tracked writes as changes;
/// despawning through it drops each remaining value once.
pub fn entity_mut_writes_and_restructures<S: Storage>() {
    let (mut world, e) = spread::<S>(8);
    let ledger = Ledger::new();
    let stale = world.spawn((A(1),));
    world.despawn(stale).unwrap();
    assert_eq!(
        world.entity_mut(stale).unwrap_err(),
        EcsError::NoSuchEntity(stale)
    );
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    let mut added = world.query_state::<Entity, Added<Pos>>().unwrap();
    changed.iter(&world).for_each(drop);
    added.iter(&world).for_each(drop);

    let mut handle = world.entity_mut(e[1]).unwrap();
    assert_eq!(handle.id(), e[1]);
    assert_eq!(format!("{handle:?}"), format!("EntityMut({:?})", e[1]));
    handle.get_mut::<A>().unwrap().0 += 10;
    handle.get_mut::<B>().unwrap().0.push('!');
    assert!(handle.get_mut::<D>().is_none() && handle.get::<Tag>().is_none());
    // Inserting moves the entity between tables; reads after it find the new place.
    assert_eq!(handle.insert(D([1, 2, 3])), None);
    assert_eq!(handle.insert(D([4, 5, 6])), Some(D([1, 2, 3])));
    assert_eq!(handle.insert(ledger.make()).map(|t| t.id), None);
    let old = handle.insert(ledger.make()).expect("replaced");
    assert!(!ledger.is_dropped(old.id), "handed back, not dropped");
    drop(old);
    assert!(handle.contains::<D>() && handle.contains::<Tracked>());
    assert_eq!(handle.remove::<B>().map(|b| b.0), Some("1!".to_string()));
    assert_eq!(handle.remove::<B>().map(|b| b.0), None);
    assert_eq!(handle.remove::<Pos>(), None, "never had one");
    {
        let read = handle.as_readonly();
        assert_eq!(
            (read.get::<A>(), read.get::<D>()),
            (Some(&A(11)), Some(&D([4, 5, 6])))
        );
        assert!(read.get::<B>().is_none());
    }
    assert_eq!(handle.world().get::<A>(e[0]), Some(&A(0)));
    // Change tracking: an insert is an addition, a write through the guard a change, a read
    // through it nothing.
    assert_eq!(handle.insert(Pos(1)), None);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e[1]]);
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![e[1]]);
    let mut handle = world.entity_mut(e[1]).unwrap();
    assert_eq!(handle.get_mut_tracked::<Pos>().unwrap().0, 1);
    assert_eq!(changed.iter(&world).count(), 0);
    let mut handle = world.entity_mut(e[1]).unwrap();
    handle.get_mut_tracked::<Pos>().unwrap().0 = 2;
    handle.get_mut_tracked::<A>().unwrap().0 = 12; // untracked: a plain reference
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e[1]]);
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(world.get::<A>(e[1]), Some(&A(12)));
    // Despawn drops what is left, once.
    let kept = world.get::<Tracked>(e[1]).unwrap().id;
    world.entity_mut(e[1]).unwrap().despawn();
    assert!(!world.contains(e[1]) && ledger.is_dropped(kept));
    ledger.assert_all_dropped();
    assert_eq!(
        world.entity_mut(e[1]).unwrap_err(),
        EcsError::NoSuchEntity(e[1])
    );
    // A reserved entity is flushed first, so it can be given components at once.
    let reserved = world.reserve_entity();
    world.entity_mut(reserved).unwrap().insert(A(5));
    assert_eq!(world.get::<A>(reserved), Some(&A(5)));
    assert_eq!(world.query::<&A>().count(), 8);
}

/// A mutable query view lends the item of any matching entity, one at a time, and nothing for
/// stale or non-matching ones; writes land on the right entity and tracked writes are recorded.
pub fn mutable_view_lends_one_item_at_a_time<S: Storage>() {
    let n = size(40, 12) as u32;
    let (mut world, e) = spread::<S>(n);
    let stale = e[6];
    world.despawn(stale).unwrap();
    let bare = world.spawn(());
    let mut state = world
        .query_state::<(Entity, &mut A, Option<&mut B>), Without<Tag>>()
        .unwrap();
    let mut view = state.view_mut(&mut world);
    let mut lent = Vec::new();
    for &entity in e.iter().chain([&bare]) {
        if let Some((id, a, b)) = view.get_mut(entity) {
            assert_eq!(id, entity);
            a.0 += 100;
            if let Some(b) = b {
                b.0.push('+');
            }
            lent.push(entity);
        }
        // What `with` answers agrees, and sees the write.
        let again = view.with(entity, |(_, a, _)| a.0);
        assert_eq!(again.is_some(), lent.last() == Some(&entity));
    }
    assert_eq!(view.get_mut(stale).map(|(id, ..)| id), None);
    let expected: Vec<Entity> = e
        .iter()
        .copied()
        .filter(|&x| x != stale && !world.has::<Tag>(x))
        .collect();
    assert_eq!(lent, expected);
    for (i, &entity) in e.iter().enumerate().filter(|&(_, &x)| x != stale) {
        let bumped = lent.contains(&entity);
        assert_eq!(
            world.get::<A>(entity).unwrap().0,
            i as u32 + if bumped { 100 } else { 0 }
        );
        if let Some(b) = world.get::<B>(entity) {
            assert_eq!(b.0.ends_with('+'), bumped);
        }
    }
    // Tracked writes through a lent `Mut` are recorded; a read-only view lends too.
    let tracked: Vec<Entity> = (0..3).map(|i| world.spawn((Pos(i),))).collect();
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    changed.iter(&world).for_each(drop);
    let mut writer = world.query_state::<ecs_core::Mut<Pos>, ()>().unwrap();
    let mut view = writer.view_mut(&mut world);
    view.get_mut(tracked[2]).unwrap().0 = 20;
    assert_eq!(view.get_mut(tracked[0]).unwrap().0, 0, "read only");
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![tracked[2]]);
    let mut reader = world.query_state::<&Pos, ()>().unwrap();
    let mut view = reader.view(&world);
    let kept = view.get(tracked[2]).unwrap();
    assert_eq!((view.get_mut(tracked[2]), kept), (Some(&Pos(20)), &Pos(20)));
}

/// Component types the test worlds never register (one per storage kind, one tracked).
struct Never(#[allow(dead_code)] u64);
impl Component for Never {
    type Mutability = ecs_core::Mutable;
}
struct NeverSparse(#[allow(dead_code)] u64);
impl Component for NeverSparse {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}
struct NeverTracked;
impl Component for NeverTracked {
    type Mutability = ecs_core::Tracked;
}

/// The entities a query yields, sorted (backends order them differently).
fn sorted(mut entities: Vec<Entity>) -> Vec<Entity> {
    entities.sort();
    entities
}

/// `query_ref` and `query_filtered_ref` through `&World` yield the same items as `query` and
/// `query_filtered`, by `next`, `for_each` and `par_for_each`, and the items outlive the iterator.
pub fn query_ref_agrees_with_query<S: Storage>() {
    let n = size(40, 12) as u32;
    let (mut world, e) = spread::<S>(n);
    world.despawn(e[2]).unwrap();
    let bare = world.spawn(());
    let shared = &world;
    let rows: Vec<(Entity, u32, Option<String>)> = shared
        .query_ref::<(Entity, &A, Option<&B>)>()
        .map(|(id, a, b)| (id, a.0, b.map(|b| b.0.clone())))
        .collect();
    let with_b = sorted(shared.query_filtered_ref::<Entity, With<B>>().collect());
    let without_tag = sorted(
        shared
            .query_filtered_ref::<Entity, Without<Tag>>()
            .collect(),
    );
    let either = sorted(
        shared
            .query_filtered_ref::<Entity, (Or<(With<B>, With<Tag>)>, With<A>)>()
            .collect(),
    );
    let everyone = sorted(shared.query_ref::<Entity>().collect());
    let mut expected: Vec<(Entity, u32, Option<String>)> = world
        .query::<(Entity, &A, Option<&B>)>()
        .map(|(id, a, b)| (id, a.0, b.map(|b| b.0.clone())))
        .collect();
    let mut rows = rows;
    rows.sort();
    expected.sort();
    assert_eq!(rows, expected);
    assert_eq!(
        with_b,
        sorted(world.query_filtered::<Entity, With<B>>().collect())
    );
    assert_eq!(
        without_tag,
        sorted(world.query_filtered::<Entity, Without<Tag>>().collect())
    );
    let or = sorted(
        world
            .query_filtered::<Entity, Or<(With<B>, With<Tag>)>>()
            .collect(),
    );
    assert_eq!(either, or);
    assert!(everyone.contains(&bare) && !everyone.contains(&e[2]));
    assert_eq!(everyone.len(), world.len());
    // `for_each` (the fold path) and `next` agree; a partly consumed run is dropped.
    let mut folded = 0;
    world.query_ref::<&A>().for_each(|a| folded += a.0);
    let stepped: u32 = world.query_ref::<&A>().by_ref().map(|a| a.0).sum();
    assert_eq!(folded, stepped);
    let mut partial = world.query_ref::<(Entity, &A)>();
    assert!(partial.next().is_some());
    drop(partial);
    // Items outlive the iterator that yielded them (they borrow the world, not the state).
    let kept: Vec<&A> = world.query_ref::<&A>().collect();
    assert_eq!(kept.iter().map(|a| a.0).sum::<u32>(), folded);
    // In parallel.
    let sum = AtomicU64::new(0);
    world.query_ref::<&A>().par_for_each(|a| {
        sum.fetch_add(u64::from(a.0), Ordering::Relaxed);
    });
    assert_eq!(sum.load(Ordering::Relaxed), u64::from(folded));
    let empty = World::<S>::new();
    assert_eq!(empty.query_ref::<(Entity, Option<&A>)>().count(), 0);
}

/// Read-only queries through `&World` can be nested and run beside `get` and an entity handle,
/// as all of them only share the world.
pub fn query_ref_beside_other_reads<S: Storage>() {
    let n = size(16, 6) as u32;
    let (world, e) = spread::<S>(n);
    let world = &world;
    let view = world.entity(e[1]).unwrap();
    let mut pairs = 0;
    for (x, a) in world.query_ref::<(Entity, &A)>() {
        // Nested runs of the same query, look-ups and an entity handle, all shared.
        for (y, b) in world.query_ref::<(Entity, &A)>() {
            if x < y {
                pairs += 1;
                assert_ne!(a.0, b.0);
            }
        }
        assert_eq!(world.get::<A>(x), Some(a));
        assert_eq!(view.get::<A>(), Some(&A(1)));
    }
    assert_eq!(pairs, n * (n - 1) / 2);
}

/// A read-only query naming component types the world never registered matches nothing where
/// they are required and treats them as absent elsewhere, without registering them: a `&World`
/// must not change the component registry.
pub fn query_ref_registers_nothing<S: Storage>() {
    let (world, e) = spread::<S>(size(12, 6) as u32);
    let registered = world.components().len();
    let all = sorted(world.query_ref::<Entity>().collect());
    // Required: nothing matches, wherever the type would be stored.
    assert_eq!(world.query_ref::<&Never>().count(), 0);
    assert_eq!(world.query_ref::<(Entity, &NeverSparse)>().count(), 0);
    assert_eq!(world.query_filtered_ref::<&A, With<Never>>().count(), 0);
    assert_eq!(
        world
            .query_filtered_ref::<&A, Changed<NeverTracked>>()
            .count(),
        0
    );
    assert_eq!(
        world
            .query_filtered_ref::<&A, Added<NeverTracked>>()
            .count(),
        0
    );
    // Optional, excluded, or one alternative of an `Or`: absent everywhere.
    let options: Vec<(Entity, bool, bool)> = world
        .query_ref::<(Entity, Option<&Never>, Option<&NeverSparse>)>()
        .map(|(id, x, y)| (id, x.is_some(), y.is_some()))
        .collect();
    assert_eq!(options.len(), all.len());
    assert!(options.iter().all(|&(_, x, y)| !x && !y));
    assert_eq!(
        sorted(
            world
                .query_filtered_ref::<Entity, (Without<Never>, Without<NeverSparse>)>()
                .collect()
        ),
        all
    );
    let b_or_never = world.query_filtered_ref::<Entity, Or<(With<Never>, With<B>)>>();
    let with_b = sorted(world.query_filtered_ref::<Entity, With<B>>().collect());
    assert_eq!(sorted(b_or_never.collect()), with_b);
    let changed_or_b = world.query_filtered_ref::<Entity, Or<(Changed<NeverTracked>, With<B>)>>();
    assert_eq!(sorted(changed_or_b.collect()), with_b);
    // Nothing was registered, and the stand-in for the unknown types is no value's type.
    assert_eq!(world.components().len(), registered);
    assert_eq!(world.component_id::<Never>(), None);
    assert_eq!(world.component_id::<NeverTracked>(), None);
    let stand_in = world.component_info(ComponentId::new(0)).unwrap();
    assert!(stand_in.type_id().is_some() && stand_in.layout().size() == 0);
    let mut world = world;
    assert!(matches!(
        world.insert_bytes(e[0], ComponentId::new(0), &[]),
        Err(EcsError::NotPlainData(_))
    ));
    // Registered (by a kept state) but never stored: the same answers.
    let mut state = world.query_state::<(&Never, &NeverSparse), ()>().unwrap();
    assert_eq!(state.iter(&world).count(), 0);
    assert_eq!(world.query_ref::<&Never>().count(), 0);
    assert_eq!(
        world.query_ref::<(Entity, Option<&NeverSparse>)>().count(),
        all.len()
    );
    assert_eq!(
        world.query_filtered_ref::<Entity, Without<Never>>().count(),
        all.len()
    );
}

/// A change filter in `query_filtered_ref` behaves as on a first run every time, passing every
/// entity with the component, and does not move the window of a kept query state.
pub fn query_ref_change_filters_see_a_first_run<S: Storage>() {
    let mut world = World::<S>::new();
    let e: Vec<Entity> = (0..4).map(|i| world.spawn((Pos(i), A(i as u32)))).collect();
    world.spawn((A(9),));
    let mut changed = world.query_state::<Entity, Changed<Pos>>().unwrap();
    changed.iter(&world).for_each(drop);
    world.get_mut_tracked::<Pos>(e[1]).unwrap().0 = 10;
    // A state made for the call has no earlier run: every entity with a Pos passes, every
    // time, and the kept state's window is not disturbed.
    for _ in 0..2 {
        let seen = sorted(world.query_filtered_ref::<Entity, Changed<Pos>>().collect());
        assert_eq!(seen, e);
        let added = world
            .query_filtered_ref::<&Pos, (Added<Pos>, With<A>)>()
            .count();
        assert_eq!(added, e.len());
    }
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e[1]]);
    assert_eq!(
        world.query_filtered_ref::<Entity, Changed<Pos>>().count(),
        e.len()
    );
}
