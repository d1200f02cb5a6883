//! What is the same on every backend and what is not (the guide's "Determinism across
//! backends"): handles are the allocator's, shared code, so the same sequence of world
//! calls hands out the same handles everywhere; a query visits the same entities on every
//! backend but in each backend's own order, so a program that changes the world in query
//! order must sort first to stay the same everywhere. Each backend is checked against the
//! reference `VecStorage`.

use ecs_core::commands::{CommandQueue, Commands};
use ecs_core::snapshot::SnapshotRegistry;
use ecs_core::testing::VecStorage;
use ecs_core::{Component, Entity, Storage, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct Pos(i32);

#[derive(Component, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[component(storage = "sparse")]
struct Hot(u8);

/// A history of spawns, despawns, inserts, removes and commands whose calls do not depend
/// on iteration order (the world's own steps); returns the handles it got and the world's
/// (binary) save.
fn order_free_history<S: Storage>() -> (Vec<Entity>, Vec<u8>) {
    let mut world = World::<S>::new();
    let mut handles = Vec::new();
    for i in 0..40 {
        let e = match i % 3 {
            0 => world.spawn(Pos(i)),
            1 => world.spawn((Pos(i), Hot(i as u8))),
            _ => world.spawn(()),
        };
        handles.push(e);
    }
    for e in handles.iter().step_by(4).copied().collect::<Vec<_>>() {
        world.despawn(e).unwrap();
    }
    for i in 0..10 {
        handles.push(world.spawn(Hot(i)));
    }
    let mut queue = CommandQueue::new();
    let mut commands = Commands::new(&mut queue, &world);
    for i in 0..5 {
        handles.push(commands.spawn(Pos(100 + i)));
    }
    commands.despawn(handles[1]);
    world.apply(&mut queue);
    world.insert(handles[2], Hot(7)).unwrap();
    world.remove::<Hot>(handles[7]).unwrap();
    let registry = SnapshotRegistry::new()
        .component::<Pos>("Pos")
        .component::<Hot>("Hot");
    let bytes = postcard::to_allocvec(&registry.save(&world)).unwrap();
    (handles, bytes)
}

/// Despawns every `Pos` entity with an even value and spawns one per despawn, in the order
/// `visit` gives; returns the spawned handles (freed slots are reused last-freed first, so
/// they follow the despawn order).
fn respawn_in_order<S: Storage>(sorted: bool) -> Vec<Entity> {
    let mut world = World::<S>::new();
    for i in 0..30 {
        if i % 2 == 0 {
            world.spawn((Pos(i), Hot(0)));
        } else {
            world.spawn(Pos(i));
        }
    }
    let mut even: Vec<Entity> = world
        .query::<(Entity, &Pos)>()
        .filter(|(_, p)| p.0 % 4 < 2)
        .map(|(e, _)| e)
        .collect();
    if sorted {
        even.sort();
    }
    for &e in &even {
        world.despawn(e).unwrap();
    }
    even.iter().map(|_| world.spawn(())).collect()
}

/// The same world calls give the same handles and the same binary save as on the reference
/// storage, and changing the world in sorted query order gives the same handles too: a program
/// can switch backends without its handles or saves changing.
pub fn same_calls_give_the_same_handles_and_bytes<S: Storage>() {
    assert_eq!(
        order_free_history::<S>(),
        order_free_history::<VecStorage>(),
        "{} and the reference differ",
        S::NAME
    );
    // Changing the world in query order: sorted first, the same handles everywhere.
    assert_eq!(
        respawn_in_order::<S>(true),
        respawn_in_order::<VecStorage>(true)
    );
    // Unsorted, each backend follows its own order; only the set of handles is shared.
    let mut mine = respawn_in_order::<S>(false);
    let mut reference = respawn_in_order::<VecStorage>(false);
    mine.sort();
    reference.sort();
    assert_eq!(mine, reference);
}
