//! Derived components and bundles, and bundles onto and off entities: `insert` hands back
//! what it replaced, `remove` and `take` are all or nothing.
//!
//! The derives are `ecs_core`'s (code naming `::ecs_core`); the facade's flavour (code
//! naming `::ecs::ecs_core`) is the facade's own test.

use std::any::type_name;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::commands::{CommandQueue, Commands};
use ecs_core::component::tracks_changes;
use ecs_core::{Added, Bundle, Changed, Component, EcsError, Entity, Storage, StorageKind, World};

use crate::components::{size, Ledger, Tag, Tracked, Tracked2, A, B};

/// Asks for a sparse set.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(storage = "sparse")]
pub struct Poison(pub u32);

/// Tracks changes.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(track_changes)]
pub struct Hp(pub u32);

/// Generic: each instantiation is its own component.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Label<T: Clone + Send + Sync + 'static>(pub T);

/// Never stored anywhere.
#[derive(Component, Debug, PartialEq, Eq)]
pub struct Never;

/// Named fields.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// The plain-data part.
    pub a: A,
    /// The heap-owning part.
    pub b: B,
}

/// Tuple fields, a nested bundle in the middle, a sparse component last.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Unit(pub Hp, #[bundle] pub Body, pub Poison);

/// Generic, with a where-clause, and a nested tuple bundle.
#[derive(Bundle, Debug, PartialEq, Eq)]
pub struct Labelled<T: Clone + Send + Sync + 'static>
where
    T: PartialEq,
{
    /// The generic component.
    pub label: Label<T>,
    /// A nested tuple bundle.
    #[bundle]
    pub rest: (Tag,),
}

/// No components at all.
#[derive(Bundle, Debug, PartialEq, Eq)]
pub struct Nothing;

/// Names `A` twice (once nested): refused when first resolved.
#[derive(Bundle)]
pub struct Twice {
    /// The first `A`.
    pub a: A,
    /// A nested tuple that names `A` a second time.
    #[bundle]
    pub again: (B, A),
}

fn unit(i: u32) -> Unit {
    Unit(
        Hp(i),
        Body {
            a: A(i + 1),
            b: B(format!("b{i}")),
        },
        Poison(i + 2),
    )
}

fn missing(entity: Entity, component: &'static str) -> EcsError {
    EcsError::MissingComponent {
        entity,
        component: component.into(),
    }
}

/// Every component of `unit(i)` is on `e`.
fn assert_unit<S: Storage>(world: &World<S>, e: Entity, i: u32) {
    assert_eq!(world.get::<Hp>(e), Some(&Hp(i)));
    assert_eq!(world.get::<A>(e), Some(&A(i + 1)));
    assert_eq!(world.get::<B>(e), Some(&B(format!("b{i}"))));
    assert_eq!(world.get::<Poison>(e), Some(&Poison(i + 2)));
}

/// `#[derive(Component)]` keeps its `storage` and `track_changes` attributes, which reach the
/// world's component info and the change filters, and each instantiation of a generic component
/// is a component of its own.
pub fn derived_components_keep_their_attributes<S: Storage>() {
    assert_eq!(Poison::STORAGE, StorageKind::Sparse);
    assert_eq!(Hp::STORAGE, StorageKind::Table);
    assert_eq!(<Label<u8>>::STORAGE, StorageKind::Table);
    const { assert!(!tracks_changes::<Poison>() && tracks_changes::<Hp>()) };

    let mut world = World::<S>::new();
    let e = world.spawn((A(1), Poison(2), Hp(3), Label("x")));
    let (a, poison, hp) = (
        world.component_id::<A>().unwrap(),
        world.component_id::<Poison>().unwrap(),
        world.component_id::<Hp>().unwrap(),
    );
    let info = |id| world.component_info(id).unwrap();
    assert_eq!(info(poison).storage(), StorageKind::Sparse);
    assert_eq!(info(hp).storage(), StorageKind::Table);
    assert!(info(hp).tracks_changes() && !info(poison).tracks_changes());
    // Where each type lives is the hybrid backend's own test (ecs-hybrid's
    // `the_derive_attribute_decides_which_half_keeps_a_type`).
    let _ = (a, e);
    // `track_changes` reaches the change filters.
    let mut changed = world.query_state::<Entity, Changed<Hp>>().unwrap();
    changed.iter(&world).for_each(drop);
    world.get_mut_tracked::<Hp>(e).unwrap().0 = 4;
    assert_eq!(
        changed.iter(&world).collect::<Vec<_>>(),
        vec![e],
        "the write"
    );
    assert_eq!(changed.iter(&world).count(), 0);
    // Each instantiation of a generic component is a component of its own.
    world.insert(e, Label(5u8)).unwrap();
    assert_eq!(world.get::<Label<&str>>(e), Some(&Label("x")));
    assert_eq!(world.get::<Label<u8>>(e), Some(&Label(5)));
}

/// Derived bundles, nested and generic, spawn every component they hold by `spawn` and
/// `spawn_batch`; a single component is a bundle, nested tuples are stored as the flat tuple
/// would be, and an empty bundle spawns an empty entity.
pub fn derived_bundles_spawn_and_spawn_batch<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn(unit(0));
    assert_unit(&world, e, 0);
    let n = size(300, 12) as u32;
    let batch = world.spawn_batch((1..=n).map(unit)).to_vec();
    for (i, &e) in (1..).zip(&batch) {
        assert_unit(&world, e, i);
    }
    assert_eq!(
        world.query::<(&Hp, &A, &B, &Poison)>().count(),
        n as usize + 1
    );
    let labelled = world.spawn(Labelled {
        label: Label(7i64),
        rest: (Tag,),
    });
    assert_eq!(world.get::<Label<i64>>(labelled), Some(&Label(7)));
    assert!(world.has::<Tag>(labelled));
    // A component is a bundle; nested tuples flatten; an empty struct spawns an empty entity.
    let single = world.spawn(A(9));
    assert_eq!(world.get::<A>(single), Some(&A(9)));
    let nested = world.spawn((A(1), (B("x".into()), (Tag,)), ()));
    assert!(world.has::<A>(nested) && world.has::<B>(nested) && world.has::<Tag>(nested));
    let empty = world.spawn(Nothing);
    assert!(world.contains(empty) && !world.has::<A>(empty));
    // The nested tuple and the flat one are stored alike.
    let flat = world.spawn((A(1), B("x".into()), Tag));
    let both: Vec<Entity> = world
        .query_filtered::<Entity, ecs_core::With<Tag>>()
        .filter(|&x| x == nested || x == flat)
        .collect();
    assert_eq!(both.len(), 2);
    assert_eq!(world.len(), n as usize + 6);
}

/// Inserting a bundle hands back the values it replaced, shaped like the bundle, tells `Added`
/// about new components and `Changed` about every write, and on a stale handle stores nothing.
pub fn insert_bundles_hand_back_what_they_replaced<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn(A(1));
    assert_eq!(
        world.insert(e, (A(2), B("b".into()))),
        Ok((Some(A(1)), None))
    );
    let body = Body {
        a: A(3),
        b: B("c".into()),
    };
    assert_eq!(world.insert(e, body), Ok((Some(A(2)), Some(B("b".into())))));
    let replaced = world.insert(e, unit(4)).unwrap();
    assert_eq!(replaced, (None, (Some(A(3)), Some(B("c".into()))), None));
    assert_unit(&world, e, 4);
    // One component as before: the previous value, if any.
    assert_eq!(world.insert(e, Poison(9)), Ok(Some(Poison(6))));
    assert_eq!(world.insert(e, Tag), Ok(None));
    // A nested tuple's replaced values are nested the same way.
    assert_eq!(
        world.insert(e, (Tag, (Poison(1),))),
        Ok((Some(Tag), (Some(Poison(9)),)))
    );

    // Change tracking sees components inserted through a bundle.
    let mut added = world.query_state::<Entity, Added<Hp>>().unwrap();
    let mut changed = world.query_state::<Entity, Changed<Hp>>().unwrap();
    added.iter(&world).for_each(drop);
    changed.iter(&world).for_each(drop);
    let f = world.spawn(A(0));
    world.insert(f, (A(1), Hp(1))).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![f]);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![f]);
    world.insert(f, (Hp(2), B("f".into()))).unwrap();
    assert_eq!(
        added.iter(&world).count(),
        0,
        "a replaced value is not added"
    );
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![f]);

    // A stale handle is an error, and nothing is stored anywhere.
    world.despawn(f).unwrap();
    let stale = world.insert(f, (A(5), B("stale".into())));
    assert_eq!(stale, Err(EcsError::NoSuchEntity(f)));
    assert_eq!(
        world.insert(f, unit(5)).err(),
        Some(EcsError::NoSuchEntity(f))
    );
    assert_eq!(world.query::<&B>().filter(|b| b.0 == "stale").count(), 0);
    assert_eq!(world.len(), 1);
}

/// Removing a bundle takes all of its components or, if the entity lacks one, none, naming the
/// first missing one in field order; users rely on a refused removal leaving the entity intact.
pub fn remove_bundles_all_or_nothing<S: Storage>() {
    let mut world = World::<S>::new();
    let neighbour = world.spawn(unit(10));
    let e = world.spawn(unit(0));
    // Lacking `Tag`: nothing is removed, and the error names it.
    assert_eq!(
        world.remove::<(A, Tag)>(e),
        Err(missing(e, type_name::<Tag>()))
    );
    assert_unit(&world, e, 0);
    // The first missing one in field order is named; a never-stored type too.
    assert_eq!(
        world.remove::<(Hp, Never, Tag)>(e),
        Err(missing(e, type_name::<Never>()))
    );
    assert_eq!(
        world.remove::<(Hp, (Poison, Tag))>(e),
        Err(missing(e, type_name::<Tag>()))
    );
    assert_unit(&world, e, 0);
    // A derived bundle comes back whole; the rest stays.
    let body = world.remove::<Body>(e).unwrap();
    assert_eq!(body, unit(0).1);
    assert!(!world.has::<A>(e) && !world.has::<B>(e));
    assert_eq!(world.get::<Hp>(e), Some(&Hp(0)));
    // `Unit` nests `Body`, which is gone: nothing of `Unit` is removed.
    assert_eq!(world.remove::<Unit>(e), Err(missing(e, type_name::<A>())));
    assert_eq!(world.get::<Poison>(e), Some(&Poison(2)));
    world.insert(e, body).unwrap();
    assert_eq!(world.remove::<Unit>(e), Ok(unit(0)));
    assert!(
        world.contains(e),
        "removing every component keeps the entity"
    );
    assert_eq!(world.query::<&Hp>().count(), 1);
    assert_unit(&world, neighbour, 10);
    // One component, as before.
    assert_eq!(world.remove::<A>(e), Err(missing(e, type_name::<A>())));
    world.insert(e, A(3)).unwrap();
    assert_eq!(world.remove::<A>(e), Ok(A(3)));
    assert_eq!(world.remove::<(A,)>(neighbour), Ok((A(11),)));
    assert_eq!(world.remove::<()>(e), Ok(()));
    assert_eq!(world.remove::<Nothing>(e), Ok(Nothing));
    // Stale handles.
    world.despawn(e).unwrap();
    assert_eq!(world.remove::<(A, B)>(e), Err(EcsError::NoSuchEntity(e)));
    assert_eq!(world.remove::<Unit>(e), Err(EcsError::NoSuchEntity(e)));
}

/// `take` hands back the bundle and despawns the entity, dropping its other components, or, if
/// the entity lacks a component of the bundle, leaves the entity as it was.
pub fn take_despawns_and_hands_back_the_bundle<S: Storage>() {
    let mut world = World::<S>::new();
    let neighbour = world.spawn(unit(10));
    let e = world.spawn((A(1), B("b".into()), Poison(2), Tag));
    // Lacking `Hp`: the entity is left as it was.
    assert_eq!(world.take::<(A, Hp)>(e), Err(missing(e, type_name::<Hp>())));
    assert!(world.contains(e) && world.has::<A>(e) && world.has::<Tag>(e));
    // Extra components (`B`, `Tag`) are dropped with the entity.
    assert_eq!(world.take::<(A, Poison)>(e), Ok((A(1), Poison(2))));
    assert!(!world.contains(e));
    assert_eq!(world.query::<&B>().count(), 1, "only the neighbour's");
    assert_eq!(world.take::<A>(e), Err(EcsError::NoSuchEntity(e)));
    // A derived bundle, exactly the entity's components.
    let f = world.spawn(unit(3));
    assert_eq!(world.take::<Unit>(f), Ok(unit(3)));
    assert!(!world.contains(f));
    // One component; missing, it leaves the entity alone.
    let g = world.spawn((A(5), Tag));
    assert_eq!(world.take::<A>(g), Ok(A(5)));
    assert!(!world.contains(g));
    let h = world.spawn(Tag);
    assert_eq!(world.take::<A>(h), Err(missing(h, type_name::<A>())));
    assert!(world.contains(h) && world.has::<Tag>(h));
    // The empty bundle: a despawn.
    assert_eq!(world.take::<()>(h), Ok(()));
    assert!(!world.contains(h));
    assert_eq!(world.len(), 1);
    assert_unit(&world, neighbour, 10);
    // The freed slots are reused cleanly.
    let fresh = world.spawn(unit(20));
    assert_unit(&world, fresh, 20);
    assert!(!world.has::<Tag>(fresh));
}

/// Bundle inserts, removals and takes, refused or not, drop each value exactly once: replaced
/// and removed values go back to the caller, values the entity keeps or the world discards are
/// dropped by the world.
pub fn bundle_operations_drop_each_value_once<S: Storage>() {
    let ledger = Ledger::new();
    let n = size(300, 12);
    let mut kept = Vec::new();
    {
        let mut world = World::<S>::new();
        let entities: Vec<Entity> = (0..n)
            .map(|i| world.spawn((ledger.make(), Tracked2(ledger.make()), A(i as u32))))
            .collect();
        // A bundle insert hands the replaced values back; they are ours to drop.
        for &e in entities.iter().step_by(3) {
            let (old, old2) = world
                .insert(e, (ledger.make(), Tracked2(ledger.make())))
                .unwrap();
            let (old, old2) = (old.unwrap(), old2.unwrap());
            let ids = (old.id, old2.0.id);
            assert!(!ledger.is_dropped(ids.0) && !ledger.is_dropped(ids.1));
            drop((old, old2));
            assert!(ledger.is_dropped(ids.0) && ledger.is_dropped(ids.1));
        }
        // Refused removals and takes drop nothing.
        let before = ledger.dropped();
        for &e in &entities {
            assert!(world.remove::<(Tracked, Tag)>(e).is_err());
            assert!(world.take::<(Tracked2, Tag)>(e).is_err());
        }
        assert_eq!(ledger.dropped(), before);
        // Removed bundles are handed back, not dropped.
        for &e in entities.iter().skip(1).step_by(5) {
            let (t, t2) = world.remove::<(Tracked, Tracked2)>(e).unwrap();
            assert!(!ledger.is_dropped(t.id) && !ledger.is_dropped(t2.0.id));
            kept.push((t, t2));
        }
        // Take: the bundle comes back, the extra component is dropped by the world.
        for &e in entities.iter().skip(2).step_by(5) {
            let extra = world.get::<Tracked2>(e).unwrap().0.id;
            let (t, a) = world.take::<(Tracked, A)>(e).unwrap();
            assert!(ledger.is_dropped(extra));
            assert!(!ledger.is_dropped(t.id));
            assert_eq!(a.0 as usize % 5, 2);
            kept.push((t, Tracked2(ledger.make())));
        }
        // Inserting into a stale entity drops the values, once each.
        let gone = entities[0];
        world.despawn(gone).unwrap();
        let (x, y) = (ledger.make(), Tracked2(ledger.make()));
        let ids = (x.id, y.0.id);
        let r = world.insert(gone, (x, y));
        assert_eq!(r.err(), Some(EcsError::NoSuchEntity(gone)));
        assert!(ledger.is_dropped(ids.0) && ledger.is_dropped(ids.1));
    }
    assert_eq!(
        ledger.dropped() as u64 + 2 * kept.len() as u64,
        ledger.made(),
        "the world dropped all it held, and no value we hold"
    );
    drop(kept);
    ledger.assert_all_dropped();
}

/// A bundle naming a component twice, even inside a nested bundle, panics on insert, remove,
/// take and spawn, before anything is changed, so the world stays usable.
pub fn duplicate_components_in_bundles_panic<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((A(1), B("b".into())));
    let expect_panic = |world: &mut World<S>, what: &str, f: &dyn Fn(&mut World<S>)| {
        let err = catch_unwind(AssertUnwindSafe(|| f(world))).expect_err(what);
        let message = err
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or_default();
        assert!(
            message.contains("names component") && message.contains(type_name::<A>()),
            "{what}: {message}"
        );
        // Nothing changed.
        assert_eq!(world.get::<A>(e), Some(&A(1)));
        assert_eq!(world.get::<B>(e), Some(&B("b".into())));
        assert_eq!(world.len(), 1);
    };
    expect_panic(&mut world, "insert", &|w| drop(w.insert(e, (A(2), A(3)))));
    expect_panic(&mut world, "remove", &|w| drop(w.remove::<(A, A)>(e)));
    expect_panic(&mut world, "take", &|w| drop(w.take::<(B, (A, A))>(e)));
    let twice = |w: &mut World<S>| {
        w.spawn(Twice {
            a: A(1),
            again: (B("x".into()), A(2)),
        });
    };
    expect_panic(&mut world, "spawn", &twice);
    assert!(world.remove::<(A, B)>(e).is_ok(), "the world is usable");
}

/// Queued bundle inserts, removals and spawns apply as the direct calls would, and a queued
/// removal of a bundle the entity does not fully hold removes nothing.
pub fn commands_insert_and_remove_bundles<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn(A(1));
    let f = world.spawn((A(2), B("f".into())));
    let mut queue = CommandQueue::new();
    let mut commands = Commands::new(&mut queue, &world);
    let s = commands.spawn(unit(3));
    commands.insert(
        e,
        Body {
            a: A(4),
            b: B("e".into()),
        },
    );
    commands.remove::<(A, B)>(f);
    commands.remove::<(A, Hp)>(e); // `e` has no `Hp`: nothing is removed
    commands.remove::<Body>(s);
    commands.insert(s, Tag);
    world.apply(&mut queue);
    assert_eq!(world.get::<A>(e), Some(&A(4)));
    assert_eq!(world.get::<B>(e), Some(&B("e".into())));
    assert!(world.contains(f) && !world.has::<A>(f) && !world.has::<B>(f));
    assert!(!world.has::<A>(s) && !world.has::<B>(s));
    assert_eq!(world.get::<Hp>(s), Some(&Hp(3)));
    assert_eq!(world.get::<Poison>(s), Some(&Poison(5)));
    assert!(world.has::<Tag>(s));
}

/// The tables (or sets) a world holds, with their components' names and rows, sorted: what
/// a sequence of structural changes left behind.
fn units<S: Storage>(world: &World<S>) -> Vec<(Vec<String>, usize)> {
    let mut units: Vec<(Vec<String>, usize)> = world
        .layout()
        .storage
        .units
        .iter()
        .map(|u| {
            let mut names: Vec<String> = u.components.iter().map(|c| c.name.clone()).collect();
            names.sort();
            (names, u.rows)
        })
        .collect();
    units.sort();
    units
}

/// A queued bundle goes in at once: `Commands::spawn` leaves exactly the tables
/// `World::spawn` does (no table per prefix of the bundle), `Commands::insert` of a bundle
/// moves the row once (no table for a part of it), and the values land as given, with
/// replaced ones dropped once and the change filters told.
pub fn commands_move_a_bundle_once<S: Storage>() {
    let ledger = Ledger::new();
    let mut queued = World::<S>::new();
    let mut added = queued.query_state::<Entity, Added<Hp>>().unwrap();
    added.iter(&queued).for_each(drop);
    let mut queue = CommandQueue::new();
    let mut commands = Commands::new(&mut queue, &queued);
    let spawned = commands.spawn((A(1), B("b".into()), Poison(2), Hp(3)));
    let tagged = commands.spawn(Tag);
    commands.insert(tagged, (A(5), B("x".into())));
    queued.apply(&mut queue);
    // `tagged` got {A, B} on top of {Tag} in one move: no table for {A, Tag} on the way,
    // only the (now empty) one it came from.
    let mut expected = World::<S>::new();
    expected.spawn((A(1), B("b".into()), Poison(2), Hp(3)));
    let left = expected.spawn(Tag);
    expected.spawn((A(5), B("x".into()), Tag));
    expected.despawn(left).unwrap();
    assert_eq!(units(&queued), units(&expected));
    assert_eq!(queued.get::<B>(spawned), Some(&B("b".into())));
    assert_eq!(queued.get::<Poison>(spawned), Some(&Poison(2)));
    assert_eq!(queued.get::<A>(tagged), Some(&A(5)));
    assert!(queued.has::<Tag>(tagged));
    assert_eq!(added.iter(&queued).collect::<Vec<_>>(), [spawned]);

    // Replacing through a queued bundle: the old values dropped once, the new ones kept,
    // `Changed` told; a bundle for a despawned entity is dropped, once.
    let mut changed = queued.query_state::<Entity, Changed<Hp>>().unwrap();
    changed.iter(&queued).for_each(drop);
    let gone = queued.spawn(());
    queued.despawn(gone).unwrap();
    let mut commands = Commands::new(&mut queue, &queued);
    commands.insert(spawned, (Hp(30), ledger.make(), A(10)));
    commands.insert(spawned, (ledger.make(), Tag));
    commands.insert(gone, (ledger.make(), A(0)));
    queued.apply(&mut queue);
    assert_eq!(queued.get::<Hp>(spawned), Some(&Hp(30)));
    assert_eq!(queued.get::<A>(spawned), Some(&A(10)));
    assert!(queued.has::<Tag>(spawned));
    assert_eq!(changed.iter(&queued).collect::<Vec<_>>(), [spawned]);
    assert_eq!(
        ledger.dropped(),
        2,
        "the replaced ledger entry and the stale one"
    );
    drop(queued);
    ledger.assert_all_dropped();
}

/// A replaced value whose `Drop` panics while a queued bundle is applied: every new value is
/// in place first, the other replaced values are still dropped, and the world stays usable.
pub fn commands_replacing_with_a_panicking_drop<S: Storage>() {
    use crate::components::Bomb;
    let ledger = Ledger::new();
    let mut world = World::<S>::new();
    let e = world.spawn((Bomb { armed: true }, ledger.make(), A(1)));
    let mut queue = CommandQueue::new();
    Commands::new(&mut queue, &world).insert(e, (Bomb { armed: false }, ledger.make(), A(2)));
    let result = catch_unwind(AssertUnwindSafe(|| world.apply(&mut queue)));
    assert!(result.is_err(), "the armed bomb's drop panicked");
    assert_eq!(world.get::<A>(e), Some(&A(2)), "every new value is in");
    assert_eq!(
        ledger.dropped(),
        1,
        "the replaced ledger entry was dropped all the same"
    );
    world.despawn(e).unwrap();
    drop(world);
    ledger.assert_all_dropped();
}
