//! bevy_ecs on the community-standard workloads, through its fastest documented paths:
//! every query is a `QueryState` made once in set-up (bevy caches the matched tables in it;
//! `World::query` per run would rebuild that), iterated with `iter_mut(..).for_each` (bevy's
//! query iterator folds table by table, its dense fast path), `par_iter_mut` for
//! heavy_compute, `spawn_batch` for batch spawns, `EntityWorldMut::insert` / `take` for
//! per-entity structural change (one entity look-up each; there is no cheaper per-entity
//! call) and its multi-threaded executor for `schedule`. Generic over where `B` lives
//! ([`BevyB`]): `bevy_ecs` and `bevy_ecs (sparse B)` run this same code.

use bevy_ecs::entity::Entity;
use bevy_ecs::query::{QueryState, With, Without};
use bevy_ecs::schedule::Schedule;
use bevy_ecs::system::Query;
use bevy_ecs::world::World;
use bevy_tasks::{ComputeTaskPool, TaskPool};

use std::marker::PhantomData;

use super::bevy_b::{stored, BevyB};
use super::CommunityPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::community::{
    add_remove_checksum, data_digest, heavy_body, heavy_digest, insert_bundle, letters,
    position_digest, schedule_digest, value,
};

/// bevy_ecs as a runner, with `Bb` as its `B` component: its community bodies here, its
/// seed bodies in `bevy_seeds`, its hierarchy bodies in `bevy_relationship`.
pub(super) struct BevyPeer<Bb>(PhantomData<Bb>);

impl<Bb> BevyPeer<Bb> {
    /// The runner, with bevy's compute task pool started (its parallel query iteration and
    /// multi-threaded executor run there): made before every bevy_ecs workload is set up.
    pub(super) fn new() -> Self {
        ComputeTaskPool::get_or_init(TaskPool::default);
        BevyPeer(PhantomData)
    }
}

fn positions(world: &mut World) -> u64 {
    let all: Vec<[f32; 3]> = world
        .query::<&Position>()
        .iter(world)
        .map(|p| p.0)
        .collect();
    position_digest(all.into_iter())
}

fn ab<Bb: BevyB>(mut query: Query<(&mut A, &mut Bb)>) {
    query
        .iter_mut()
        .for_each(|(mut a, mut b)| std::mem::swap(&mut a.0, b.value_mut()));
}

fn cd(mut query: Query<(&mut C, &mut D)>) {
    query
        .iter_mut()
        .for_each(|(mut c, mut d)| std::mem::swap(&mut c.0, &mut d.0));
}

fn ce(mut query: Query<(&mut C, &mut E)>) {
    query
        .iter_mut()
        .for_each(|(mut c, mut e)| std::mem::swap(&mut c.0, &mut e.0));
}

impl<Bb: BevyB> CommunityPeer for BevyPeer<Bb> {
    fn simple_insert(self, n: usize) -> Box<dyn Prepared> {
        prepared(
            None::<World>,
            move |slot| {
                let mut world = World::new();
                world.spawn_batch((0..n).map(insert_bundle));
                *slot = Some(world);
            },
            |slot| slot.as_mut().map_or(0, positions),
        )
    }

    fn simple_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(insert_bundle));
        let query = world.query::<(&Velocity, &mut Position)>();
        prepared(
            (world, query),
            |(world, query)| {
                query.iter_mut(world).for_each(|(v, mut p)| {
                    p.0[0] += v.0[0];
                    p.0[1] += v.0[1];
                    p.0[2] += v.0[2];
                });
            },
            |(world, _)| positions(world),
        )
    }

    fn fragmented_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        macro_rules! spawn {
            ($($letter:ident),*) => {$(
                world.spawn_batch((0..n).map(|_| (stored::<Bb, _>($letter(0.0)), Data(1.0))));
            )*};
        }
        spawn!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        let query = world.query::<&mut Data>();
        prepared(
            (world, query),
            |(world, query)| query.iter_mut(world).for_each(|mut d| d.0 *= 2.0),
            |(world, _)| {
                let values: Vec<f32> = world.query::<&Data>().iter(world).map(|d| d.0).collect();
                data_digest(values.into_iter())
            },
        )
    }

    fn heavy_compute(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(insert_bundle));
        let query = world.query::<(&mut Position, &mut Transform)>();
        prepared(
            (world, query),
            |(world, query)| {
                query
                    .par_iter_mut(world)
                    .for_each(|(mut p, mut t)| heavy_body(&mut p, &mut t));
            },
            |(world, _)| {
                let items: Vec<(Position, Transform)> = world
                    .query::<(&Position, &Transform)>()
                    .iter(world)
                    .map(|(p, t)| (*p, *t))
                    .collect();
                heavy_digest(items.iter().map(|(p, t)| (p, t)))
            },
        )
    }

    fn add_remove(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let entities: Vec<Entity> = world.spawn_batch((0..n).map(|i| (A(i as f32),))).collect();
        prepared(
            (world, entities, Digest::default(), 0usize),
            |(world, entities, removed, runs)| {
                for &e in entities.iter() {
                    world.entity_mut(e).insert(Bb::new(1.0));
                }
                for &e in entities.iter() {
                    let b = world.entity_mut(e).take::<Bb>().expect("B was just added");
                    removed.add(u64::from(b.value().to_bits()));
                }
                *runs += 1;
            },
            |(world, _, removed, runs)| {
                let mut query: QueryState<&A, (With<A>, Without<Bb>)> = world.query_filtered();
                let without_b = query.iter(world).count();
                add_remove_checksum(*removed, *runs, without_b)
            },
        )
    }

    fn schedule(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let b = |i| Bb::new(value(i, 1));
        world.spawn_batch((0..n).map(|i| (A(value(i, 0)), b(i))));
        world.spawn_batch((0..n).map(|i| (A(value(i, 0)), b(i), C(value(i, 2)))));
        world.spawn_batch((0..n).map(|i| (A(value(i, 0)), b(i), C(value(i, 2)), D(value(i, 3)))));
        world.spawn_batch((0..n).map(|i| (A(value(i, 0)), b(i), C(value(i, 2)), E(value(i, 3)))));
        let mut schedule = Schedule::default();
        schedule.add_systems((ab::<Bb>, cd, ce));
        prepared(
            (world, schedule),
            |(world, schedule)| schedule.run(world),
            |(world, _)| {
                type Letters<'a, Bb> = (&'a A, &'a Bb, Option<&'a C>, Option<&'a D>, Option<&'a E>);
                let mut all = world.query::<Letters<Bb>>();
                schedule_digest(
                    all.iter(world)
                        .map(|(a, b, c, d, e)| letters(a.0, b.value(), c, d, e)),
                )
            },
        )
    }
}
