//! shipyard on the community-standard workloads, through views borrowed once per pass
//! (shipyard's documented way to reach storages; the `World` methods that add or remove one
//! component borrow the storage on every call): view-tuple iteration with `for_each`
//! (shipyard's iterators fold over the dense run of the smallest storage), `par_iter` for
//! heavy_compute, `bulk_add_entity` for batch spawns, `EntitiesView::add_component` and
//! `Remove::remove` on a `ViewMut` for add_remove, and a workload for `schedule`.

use rayon::prelude::*;
use shipyard::{
    EntitiesView, EntityId, Get, IntoIter, IntoWorkload, Remove, View, ViewMut, Workload, World,
};

use super::CommunityPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::community::{
    add_remove_checksum, data_digest, heavy_body, heavy_digest, insert_bundle, letters,
    position_digest, schedule_digest, value,
};

/// shipyard as a runner: its community bodies here, its seed bodies in `shipyard_seeds`.
pub(super) struct ShipyardPeer;

fn positions(world: &mut World) -> u64 {
    world.run(|p: View<Position>| position_digest(p.iter().map(|p| p.0)))
}

fn ab(mut a: ViewMut<A>, mut b: ViewMut<B>) {
    (&mut a, &mut b)
        .iter()
        .for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}

fn cd(mut c: ViewMut<C>, mut d: ViewMut<D>) {
    (&mut c, &mut d)
        .iter()
        .for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
}

fn ce(mut c: ViewMut<C>, mut e: ViewMut<E>) {
    (&mut c, &mut e)
        .iter()
        .for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
}

fn systems() -> Workload {
    (ab, cd, ce).into_workload()
}

impl CommunityPeer for ShipyardPeer {
    fn simple_insert(self, n: usize) -> Box<dyn Prepared> {
        prepared(
            None::<World>,
            move |slot| {
                let mut world = World::new();
                world.bulk_add_entity((0..n).map(insert_bundle));
                *slot = Some(world);
            },
            |slot| slot.as_mut().map_or(0, positions),
        )
    }

    fn simple_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.bulk_add_entity((0..n).map(insert_bundle));
        prepared(
            world,
            |world| {
                world.run(|v: View<Velocity>, mut p: ViewMut<Position>| {
                    (&v, &mut p).iter().for_each(|(v, p)| {
                        p.0[0] += v.0[0];
                        p.0[1] += v.0[1];
                        p.0[2] += v.0[2];
                    })
                })
            },
            positions,
        )
    }

    fn fragmented_iter(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        macro_rules! spawn {
            ($($letter:ident),*) => {$(
                world.bulk_add_entity((0..n).map(|_| ($letter(0.0), Data(1.0))));
            )*};
        }
        spawn!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
        prepared(
            world,
            |world| {
                world.run(|mut data: ViewMut<Data>| (&mut data).iter().for_each(|d| d.0 *= 2.0))
            },
            |world| world.run(|data: View<Data>| data_digest(data.iter().map(|d| d.0))),
        )
    }

    fn heavy_compute(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.bulk_add_entity((0..n).map(insert_bundle));
        prepared(
            world,
            |world| {
                world.run(|mut p: ViewMut<Position>, mut t: ViewMut<Transform>| {
                    (&mut p, &mut t)
                        .par_iter()
                        .for_each(|(p, t)| heavy_body(p, t));
                })
            },
            |world| {
                world.run(|p: View<Position>, t: View<Transform>| heavy_digest((&p, &t).iter()))
            },
        )
    }

    fn add_remove(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let entities: Vec<EntityId> = world
            .bulk_add_entity((0..n).map(|i| (A(i as f32),)))
            .collect();
        prepared(
            (world, entities, Digest::default(), 0usize),
            |(world, entities, removed, runs)| {
                world.run(|all: EntitiesView, mut bs: ViewMut<B>| {
                    for &e in entities.iter() {
                        all.add_component(e, &mut bs, B(1.0));
                    }
                    for &e in entities.iter() {
                        let b = bs.remove(e).expect("B was just added");
                        removed.add(u64::from(b.0.to_bits()));
                    }
                });
                *runs += 1;
            },
            |(world, _, removed, runs)| {
                let without_b = world.run(|a: View<A>, b: View<B>| (&a, !&b).iter().count());
                add_remove_checksum(*removed, *runs, without_b)
            },
        )
    }

    fn schedule(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.bulk_add_entity((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)))));
        world.bulk_add_entity((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)), C(value(i, 2)))));
        world.bulk_add_entity((0..n).map(|i| {
            (
                A(value(i, 0)),
                B(value(i, 1)),
                C(value(i, 2)),
                D(value(i, 3)),
            )
        }));
        world.bulk_add_entity((0..n).map(|i| {
            (
                A(value(i, 0)),
                B(value(i, 1)),
                C(value(i, 2)),
                E(value(i, 3)),
            )
        }));
        world.add_workload(systems);
        prepared(
            world,
            |world| world.run_workload(systems).expect("workload runs"),
            |world| {
                world.run(
                    |a: View<A>, b: View<B>, c: View<C>, d: View<D>, e: View<E>| {
                        schedule_digest((&a, &b).iter().with_id().map(|(id, (a, b))| {
                            let (c, d, e) = ((&c).get(id), (&d).get(id), (&e).get(id));
                            letters(a.0, b.0, c.ok(), d.ok(), e.ok())
                        }))
                    },
                )
            },
        )
    }
}
