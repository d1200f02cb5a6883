//! specs on the community-standard workloads, through its fastest documented paths: every
//! pass fetches its storages once (`World::system_data`, what a system's `run` receives) and
//! joins them (`(&a, &mut b).join()`, a bitset intersection over `VecStorage`s, iterated
//! with `for_each`), `par_join` for heavy_compute, batch spawns as `Entities::build_entity`
//! into fetched storages, add_remove as `insert` / `remove` on the fetched `B` storage (one
//! call per entity), and `schedule` on a `Dispatcher` (which runs non-conflicting systems in
//! parallel on its thread pool).

use specs::prelude::*;
use specs::World;

use super::CommunityPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::community::{
    add_remove_checksum, data_digest, heavy_body, heavy_digest, insert_bundle, letters,
    position_digest, schedule_digest, value,
};

/// A world with storages for `$component`s (specs needs each registered before a fetch).
macro_rules! world_with {
    ($($component:ty),*) => {{
        let mut world = World::new();
        $(world.register::<$component>();)*
        world
    }};
}
pub(super) use world_with;

/// specs as a runner: its community bodies here, its seed bodies in `specs_seeds`.
pub(super) struct SpecsPeer;

fn positions(world: &World) -> u64 {
    position_digest(world.read_storage::<Position>().join().map(|p| p.0))
}

/// Spawns `n` entities with [`insert_bundle`] into storages fetched once.
fn spawn_bundles(world: &mut World, n: usize) -> Vec<Entity> {
    type Bundle<'a> = (
        Entities<'a>,
        WriteStorage<'a, Transform>,
        WriteStorage<'a, Position>,
        WriteStorage<'a, Rotation>,
        WriteStorage<'a, Velocity>,
    );
    let entities = world.exec(|(entities, mut t, mut p, mut r, mut v): Bundle| {
        (0..n)
            .map(|i| {
                let (tc, pc, rc, vc) = insert_bundle(i);
                entities
                    .build_entity()
                    .with(tc, &mut t)
                    .with(pc, &mut p)
                    .with(rc, &mut r)
                    .with(vc, &mut v)
                    .build()
            })
            .collect()
    });
    world.maintain();
    entities
}

/// The schedule's systems: `$system` swaps the values of its two letters on every entity
/// holding both.
macro_rules! swap_systems {
    ($($system:ident: $x:ident, $y:ident;)*) => {$(
        struct $system;
        impl<'a> System<'a> for $system {
            type SystemData = (WriteStorage<'a, $x>, WriteStorage<'a, $y>);
            fn run(&mut self, (mut x, mut y): Self::SystemData) {
                (&mut x, &mut y)
                    .join()
                    .for_each(|(x, y)| std::mem::swap(&mut x.0, &mut y.0));
            }
        }
    )*};
}
swap_systems! {
    Ab: A, B;
    Cd: C, D;
    Ce: C, E;
}

impl CommunityPeer for SpecsPeer {
    fn simple_insert(self, n: usize) -> Box<dyn Prepared> {
        prepared(
            None::<World>,
            move |slot| {
                let mut world = world_with!(Transform, Position, Rotation, Velocity);
                spawn_bundles(&mut world, n);
                *slot = Some(world);
            },
            |slot| slot.as_ref().map_or(0, positions),
        )
    }

    fn simple_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = world_with!(Transform, Position, Rotation, Velocity);
        spawn_bundles(&mut world, n);
        prepared(
            world,
            |world| {
                let (v, mut p) =
                    world.system_data::<(ReadStorage<Velocity>, WriteStorage<Position>)>();
                (&v, &mut p).join().for_each(|(v, p)| {
                    p.0[0] += v.0[0];
                    p.0[1] += v.0[1];
                    p.0[2] += v.0[2];
                });
            },
            |world| positions(world),
        )
    }

    fn fragmented_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = world_with!(
            Data, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z
        );
        macro_rules! spawn {
            ($($letter:ident),*) => {$(
                for _ in 0..n {
                    world.create_entity().with($letter(0.0)).with(Data(1.0)).build();
                }
            )*};
        }
        spawn!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        prepared(
            world,
            |world| {
                (&mut world.write_storage::<Data>())
                    .join()
                    .for_each(|d| d.0 *= 2.0)
            },
            |world| data_digest(world.read_storage::<Data>().join().map(|d| d.0)),
        )
    }

    fn heavy_compute(self, n: usize) -> Box<dyn Prepared> {
        let mut world = world_with!(Transform, Position, Rotation, Velocity);
        spawn_bundles(&mut world, n);
        prepared(
            world,
            |world| {
                let (mut p, mut t) =
                    world.system_data::<(WriteStorage<Position>, WriteStorage<Transform>)>();
                (&mut p, &mut t)
                    .par_join()
                    .for_each(|(p, t)| heavy_body(p, t));
            },
            |world| {
                let (p, t) = world.system_data::<(ReadStorage<Position>, ReadStorage<Transform>)>();
                heavy_digest((&p, &t).join())
            },
        )
    }

    fn add_remove(self, n: usize) -> Box<dyn Prepared> {
        let mut world = world_with!(A, B);
        let entities: Vec<Entity> = (0..n)
            .map(|i| world.create_entity().with(A(i as f32)).build())
            .collect();
        prepared(
            (world, entities, Digest::default(), 0usize),
            |(world, entities, removed, runs)| {
                let mut bs = world.write_storage::<B>();
                for &e in entities.iter() {
                    bs.insert(e, B(1.0)).expect("live entity");
                }
                for &e in entities.iter() {
                    let b = bs.remove(e).expect("B was just added");
                    removed.add(u64::from(b.0.to_bits()));
                }
                *runs += 1;
            },
            |(world, _, removed, runs)| {
                let (a, b) = world.system_data::<(ReadStorage<A>, ReadStorage<B>)>();
                let without_b = (&a, !&b).join().count();
                add_remove_checksum(*removed, *runs, without_b)
            },
        )
    }

    fn schedule(self, n: usize) -> Box<dyn Prepared> {
        let mut world = world_with!(A, B, C, D, E);
        // The four groups: (A, B), (A, B, C), (A, B, C, D), (A, B, C, E).
        for group in 0..4 {
            for i in 0..n {
                let (a, b) = (A(value(i, 0)), B(value(i, 1)));
                let mut entity = world.create_entity().with(a).with(b);
                if group > 0 {
                    entity = entity.with(C(value(i, 2)));
                }
                match group {
                    2 => entity = entity.with(D(value(i, 3))),
                    3 => entity = entity.with(E(value(i, 3))),
                    _ => {}
                }
                entity.build();
            }
        }
        let mut dispatcher = DispatcherBuilder::new()
            .with(Ab, "ab", &[])
            .with(Cd, "cd", &[])
            .with(Ce, "ce", &[])
            .build();
        dispatcher.setup(&mut world);
        prepared(
            (world, dispatcher),
            |(world, dispatcher)| dispatcher.dispatch(world),
            |(world, _)| {
                type Letters<'a> = (
                    ReadStorage<'a, A>,
                    ReadStorage<'a, B>,
                    ReadStorage<'a, C>,
                    ReadStorage<'a, D>,
                    ReadStorage<'a, E>,
                );
                let (a, b, c, d, e) = world.system_data::<Letters>();
                schedule_digest(
                    (&a, &b, c.maybe(), d.maybe(), e.maybe())
                        .join()
                        .map(|(a, b, c, d, e)| letters(a.0, b.0, c, d, e)),
                )
            },
        )
    }
}
