//! hecs on the community-standard workloads, through its fastest documented calls:
//! `query_mut` for every pass (on a uniquely borrowed world it skips the dynamic borrow checks
//! `query` pays), `spawn_batch` for batch spawns, `insert_one` / `remove_one` per entity for
//! add_remove (hecs's only per-entity structural calls; the `_one` forms skip the bundle
//! machinery), and, having no parallel iteration of its own, rayon over the items of one
//! `query_mut` for heavy_compute.

use hecs::{Entity, Without, World};
use rayon::prelude::*;

use super::CommunityPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::community::{
    add_remove_checksum, data_digest, heavy_body, heavy_digest, insert_bundle, letters,
    position_digest, schedule_digest, value,
};

/// hecs as a runner: its community bodies here, its seed bodies in `hecs_seeds`, its
/// snapshot bodies in `hecs_serialize`.
pub(super) struct HecsPeer;

fn positions(world: &mut World) -> u64 {
    let all: Vec<[f32; 3]> = world
        .query_mut::<&Position>()
        .into_iter()
        .map(|p| p.0)
        .collect();
    position_digest(all.into_iter())
}

impl CommunityPeer for HecsPeer {
    fn simple_insert(self, n: usize) -> Box<dyn Prepared> {
        prepared(
            None::<World>,
            move |slot| {
                let mut world = World::new();
                world.spawn_batch((0..n).map(insert_bundle)).for_each(drop);
                *slot = Some(world);
            },
            |slot| slot.as_mut().map_or(0, positions),
        )
    }

    fn simple_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(insert_bundle)).for_each(drop);
        prepared(
            world,
            |world| {
                for (v, p) in world.query_mut::<(&Velocity, &mut Position)>() {
                    p.0[0] += v.0[0];
                    p.0[1] += v.0[1];
                    p.0[2] += v.0[2];
                }
            },
            positions,
        )
    }

    fn fragmented_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        macro_rules! spawn {
            ($($letter:ident),*) => {$(
                world.spawn_batch((0..n).map(|_| ($letter(0.0), Data(1.0)))).for_each(drop);
            )*};
        }
        spawn!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        prepared(
            world,
            |world| {
                for d in world.query_mut::<&mut Data>() {
                    d.0 *= 2.0;
                }
            },
            |world| {
                let values: Vec<f32> = world
                    .query_mut::<&Data>()
                    .into_iter()
                    .map(|d| d.0)
                    .collect();
                data_digest(values.into_iter())
            },
        )
    }

    fn heavy_compute(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(insert_bundle)).for_each(drop);
        prepared(
            world,
            |world| {
                let mut items: Vec<(&mut Position, &mut Transform)> = world
                    .query_mut::<(&mut Position, &mut Transform)>()
                    .into_iter()
                    .collect();
                items.par_iter_mut().for_each(|(p, t)| heavy_body(p, t));
            },
            |world| {
                let items: Vec<(Position, Transform)> = world
                    .query_mut::<(&Position, &Transform)>()
                    .into_iter()
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
                    world.insert_one(e, B(1.0)).expect("live entity");
                }
                for &e in entities.iter() {
                    let b = world.remove_one::<B>(e).expect("B was just added");
                    removed.add(u64::from(b.0.to_bits()));
                }
                *runs += 1;
            },
            |(world, _, removed, runs)| {
                let without_b = world.query_mut::<Without<&A, &B>>().into_iter().count();
                add_remove_checksum(*removed, *runs, without_b)
            },
        )
    }

    fn schedule(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let spawn = |world: &mut World| {
            world
                .spawn_batch((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)))))
                .for_each(drop);
            world
                .spawn_batch((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)), C(value(i, 2)))))
                .for_each(drop);
            world
                .spawn_batch((0..n).map(|i| {
                    (
                        A(value(i, 0)),
                        B(value(i, 1)),
                        C(value(i, 2)),
                        D(value(i, 3)),
                    )
                }))
                .for_each(drop);
            world
                .spawn_batch((0..n).map(|i| {
                    (
                        A(value(i, 0)),
                        B(value(i, 1)),
                        C(value(i, 2)),
                        E(value(i, 3)),
                    )
                }))
                .for_each(drop);
        };
        spawn(&mut world);
        prepared(
            world,
            |world| {
                for (a, b) in world.query_mut::<(&mut A, &mut B)>() {
                    std::mem::swap(&mut a.0, &mut b.0);
                }
                for (c, d) in world.query_mut::<(&mut C, &mut D)>() {
                    std::mem::swap(&mut c.0, &mut d.0);
                }
                for (c, e) in world.query_mut::<(&mut C, &mut E)>() {
                    std::mem::swap(&mut c.0, &mut e.0);
                }
            },
            |world| {
                type Letters<'a> = (&'a A, &'a B, Option<&'a C>, Option<&'a D>, Option<&'a E>);
                schedule_digest(
                    world
                        .query_mut::<Letters>()
                        .into_iter()
                        .map(|(a, b, c, d, e)| letters(a.0, b.0, c, d, e)),
                )
            },
        )
    }
}
