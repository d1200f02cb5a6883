//! Drop accounting: every value dropped exactly once, also when a `Drop` panics.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::{Storage, World};

use crate::components::{size, Bomb, Ledger, Tracked, Tracked2, A};

/// Across spawns, replacing inserts, removals, structural moves, despawns, `clear` and dropping
/// the world, every component value is dropped exactly once: no leaks and no double drops.
pub fn every_value_dropped_exactly_once<S: Storage>() {
    let ledger = Ledger::new();
    let n = size(2_000, 40);
    {
        let mut world = World::<S>::new();
        let entities: Vec<_> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    world.spawn((ledger.make(), A(i as u32)))
                } else {
                    world.spawn((A(i as u32), ledger.make(), Tracked2(ledger.make())))
                }
            })
            .collect();
        // Overwrite: the old value comes back to us and is dropped here, once.
        for e in entities.iter().step_by(3) {
            let old = world
                .insert(*e, ledger.make())
                .unwrap()
                .expect("had a Tracked");
            let id = old.id;
            drop(old);
            assert!(ledger.is_dropped(id));
        }
        // Remove: returned to us.
        for e in entities.iter().skip(1).step_by(5) {
            let t = world.remove::<Tracked>(*e).unwrap();
            assert!(!ledger.is_dropped(t.id));
        }
        // Remove by id: dropped by the world.
        let id2 = world.component_id::<Tracked2>().unwrap();
        for e in entities.iter().skip(3).step_by(10) {
            world.remove_by_id(*e, id2).unwrap();
        }
        // Structural moves (add a component to tracked entities) must not drop anything.
        let before = ledger.dropped();
        for e in entities.iter().skip(2).step_by(7) {
            world.insert(*e, crate::components::Tag).unwrap();
        }
        assert_eq!(ledger.dropped(), before, "moving rows dropped values");
        // Despawn a quarter, clear, then refill and let the world drop.
        for e in entities.iter().step_by(4) {
            world.despawn(*e).unwrap();
        }
        world.clear();
        assert_eq!(ledger.dropped() as u64, ledger.made(), "clear leaked");
        for i in 0..n / 4 {
            world.spawn((ledger.make(), A(i as u32)));
        }
    }
    ledger.assert_all_dropped();
}

/// An entity with a bomb and two tracked values, among harmless neighbours.
fn world_with_bomb<S: Storage>(
    ledger: &std::sync::Arc<Ledger>,
) -> (World<S>, ecs_core::Entity, Vec<ecs_core::Entity>) {
    let mut world = World::<S>::new();
    let mut others = Vec::new();
    for i in 0..size(50, 8) {
        others.push(world.spawn((ledger.make(), A(i as u32), Bomb { armed: false })));
    }
    let bomb = world.spawn((
        ledger.make(),
        Bomb { armed: true },
        Tracked2(ledger.make()),
        A(99),
    ));
    for i in 0..size(50, 8) {
        others.push(world.spawn((ledger.make(), A(i as u32), Bomb { armed: false })));
    }
    (world, bomb, others)
}

fn assert_usable<S: Storage>(
    world: &mut World<S>,
    ledger: &std::sync::Arc<Ledger>,
    others: &[ecs_core::Entity],
) {
    for e in others {
        assert!(world.get::<Tracked>(*e).is_some());
    }
    assert_eq!(world.query::<&Tracked>().count(), others.len());
    let fresh = world.spawn((ledger.make(), A(7)));
    assert_eq!(world.get::<A>(fresh), Some(&A(7)));
    world.despawn(fresh).unwrap();
}

/// A component whose `Drop` panics during `despawn` still leaves the entity gone, its other
/// values dropped and the world usable, so one bad destructor cannot corrupt the world.
pub fn panicking_drop_on_despawn<S: Storage>() {
    let ledger = Ledger::new();
    let (mut world, bomb, others) = world_with_bomb::<S>(&ledger);
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(bomb)));
    assert!(result.is_err(), "the bomb's drop panics");
    assert!(!world.contains(bomb));
    assert_eq!(world.len(), others.len());
    // The bomb entity's other values were still dropped.
    assert_eq!(ledger.dropped(), 2);
    assert_usable(&mut world, &ledger, &others);
    drop(world);
    ledger.assert_all_dropped();
}

/// A panicking `Drop` during `clear` still empties the world and drops every other value, and
/// the world can be used afterwards.
pub fn panicking_drop_on_clear<S: Storage>() {
    let ledger = Ledger::new();
    let (mut world, _bomb, others) = world_with_bomb::<S>(&ledger);
    assert!(catch_unwind(AssertUnwindSafe(|| world.clear())).is_err());
    assert!(world.is_empty());
    assert!(others.iter().all(|e| !world.contains(*e)));
    ledger.assert_all_dropped();
    assert_usable(&mut world, &ledger, &[]);
    drop(world);
    ledger.assert_all_dropped();
}

/// A panicking `Drop` while the world itself is dropped still drops every other value it held.
pub fn panicking_drop_on_world_drop<S: Storage>() {
    let ledger = Ledger::new();
    let (world, _bomb, _others) = world_with_bomb::<S>(&ledger);
    assert!(catch_unwind(AssertUnwindSafe(|| drop(world))).is_err());
    ledger.assert_all_dropped();
}

/// A panicking `Drop` of the component removed by `remove_by_id` still removes it, keeps the
/// entity's other components and leaves the world usable.
pub fn panicking_drop_on_remove_by_id<S: Storage>() {
    let ledger = Ledger::new();
    let (mut world, bomb, others) = world_with_bomb::<S>(&ledger);
    let id = world.component_id::<Bomb>().unwrap();
    assert!(catch_unwind(AssertUnwindSafe(|| world.remove_by_id(bomb, id))).is_err());
    assert!(world.contains(bomb) && !world.has::<Bomb>(bomb));
    assert_eq!(world.get::<A>(bomb), Some(&A(99)));
    assert_eq!(ledger.dropped(), 0);
    let mut all = others.clone();
    all.push(bomb);
    assert_usable(&mut world, &ledger, &all);
    drop(world);
    ledger.assert_all_dropped();
}

/// A panicking `Drop` among the components `take` discards still despawns the entity, drops the
/// other values, including the taken ones while unwinding, and leaves the world usable.
pub fn panicking_drop_on_take<S: Storage>() {
    let ledger = Ledger::new();
    let (mut world, bomb, others) = world_with_bomb::<S>(&ledger);
    // Taking (Tracked, A) despawns the rest: the bomb's drop panics there.
    let result = catch_unwind(AssertUnwindSafe(|| world.take::<(Tracked, A)>(bomb)));
    assert!(result.is_err(), "the bomb's drop panics");
    assert!(!world.contains(bomb));
    assert_eq!(world.len(), others.len());
    // The Tracked2 left on the entity and the taken Tracked (dropped while unwinding).
    assert_eq!(ledger.dropped(), 2);
    assert_usable(&mut world, &ledger, &others);
    drop(world);
    ledger.assert_all_dropped();
}
