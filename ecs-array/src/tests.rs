//! What is particular to slot arrays: runs, stable slots, memory by highest index. The
//! behaviour every backend shares is the conformance suite's (tests/conformance.rs).

use ecs_core::layout::UnitKind;
use ecs_core::{Component, Entity, Without, World};

use crate::ArrayStorage;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Vel(u64);
#[derive(Component)]
struct Frozen;

fn chunk_lengths(world: &mut World<ArrayStorage>) -> Vec<usize> {
    let mut lengths = Vec::new();
    let mut last: Option<u32> = None;
    world
        .query_filtered::<(Entity, &Pos, &Vel), Without<Frozen>>()
        .for_each(|(e, _, _)| {
            match last {
                Some(index) if index + 1 == e.index() => *lengths.last_mut().unwrap() += 1,
                _ => lengths.push(1),
            }
            last = Some(e.index());
        });
    lengths
}

#[test]
fn queries_walk_runs_of_matching_indices() {
    let mut world = World::<ArrayStorage>::new();
    let all: Vec<Entity> = (0..200).map(|i| world.spawn((Pos(i), Vel(1)))).collect();
    assert_eq!(
        chunk_lengths(&mut world),
        [200],
        "one run across four bit words"
    );
    world.insert(all[70], Frozen).unwrap();
    world.remove::<Vel>(all[150]).unwrap();
    world.despawn(all[199]).unwrap();
    assert_eq!(chunk_lengths(&mut world), [70, 79, 48]);
    let mut sum = 0;
    world
        .query_filtered::<(&Pos, &Vel), Without<Frozen>>()
        .for_each(|(p, _)| sum += p.0);
    let expected: u64 = (0..199).filter(|&i| i != 70 && i != 150).sum();
    assert_eq!(sum, expected);
}

#[test]
fn adding_and_removing_components_moves_no_value() {
    let mut world = World::<ArrayStorage>::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn((Pos(i),))).collect();
    let before = addresses_except(&world, &es, usize::MAX);
    assert_eq!(before.len(), 10);
    world.insert(es[3], Vel(1)).unwrap();
    world.insert(es[7], Frozen).unwrap();
    world.remove::<Vel>(es[3]).unwrap();
    world.despawn(es[5]).unwrap();
    let after: Vec<*const Pos> = addresses_except(&world, &es, 5);
    let expected: Vec<*const Pos> = before
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 5)
        .map(|(_, &p)| p)
        .collect();
    assert_eq!(after, expected);
}

fn addresses_except(world: &World<ArrayStorage>, es: &[Entity], skip: usize) -> Vec<*const Pos> {
    es.iter()
        .enumerate()
        .filter(|&(i, _)| i != skip)
        .map(|(_, &e)| world.get::<Pos>(e).unwrap() as *const Pos)
        .collect()
}

#[test]
fn a_stale_handle_finds_nothing_in_a_reused_slot() {
    let mut world = World::<ArrayStorage>::new();
    let old = world.spawn((Pos(1),));
    world.despawn(old).unwrap();
    let new = world.spawn((Pos(2),));
    assert_eq!(old.index(), new.index(), "the index is reused");
    assert_eq!(world.get::<Pos>(old), None);
    assert_eq!(world.get::<Pos>(new), Some(&Pos(2)));
}

#[test]
fn a_component_costs_slots_up_to_the_highest_index_that_held_it() {
    let mut world = World::<ArrayStorage>::new();
    let es: Vec<Entity> = (0..1000).map(|_| world.spawn(())).collect();
    world.insert(es[999], Vel(1)).unwrap();
    let layout = world.layout();
    let units = &layout.storage.units;
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].kind, UnitKind::Other);
    assert_eq!(units[0].rows, 1, "one entity holds Vel");
    assert!(units[0].capacity >= 1000, "but its array spans index 999");
    assert!(units[0].components[0].bytes >= 1000 * std::mem::size_of::<Vel>());
    assert_eq!(
        layout.storage.bytes(),
        ecs_core::Storage::memory_usage(world.storage())
    );
}

#[test]
fn zero_sized_components_need_no_allocation() {
    let mut world = World::<ArrayStorage>::new();
    let es: Vec<Entity> = (0..100).map(|_| world.spawn((Frozen,))).collect();
    let layout = world.layout();
    assert_eq!(layout.storage.units[0].components[0].bytes, 0);
    assert_eq!(world.query::<&Frozen>().count(), 100);
    world.despawn(es[0]).unwrap();
    assert_eq!(world.query::<&Frozen>().count(), 99);
}
