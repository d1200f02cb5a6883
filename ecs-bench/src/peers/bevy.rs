//! bevy_ecs on the community-standard workloads.

use bevy_ecs::entity::Entity;
use bevy_ecs::query::{QueryState, With, Without};
use bevy_ecs::schedule::Schedule;
use bevy_ecs::system::Query;
use bevy_ecs::world::World;
use bevy_tasks::{ComputeTaskPool, TaskPool};

use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::community::{
    add_remove_checksum, data_digest, heavy_body, heavy_digest, insert_bundle, position_digest,
    schedule_item_hash, value,
};

fn positions(world: &mut World) -> u64 {
    let all: Vec<[f32; 3]> = world
        .query::<&Position>()
        .iter(world)
        .map(|p| p.0)
        .collect();
    position_digest(all.into_iter())
}

fn ab(mut query: Query<(&mut A, &mut B)>) {
    for (mut a, mut b) in &mut query {
        std::mem::swap(&mut a.0, &mut b.0);
    }
}

fn cd(mut query: Query<(&mut C, &mut D)>) {
    for (mut c, mut d) in &mut query {
        std::mem::swap(&mut c.0, &mut d.0);
    }
}

fn ce(mut query: Query<(&mut C, &mut E)>) {
    for (mut c, mut e) in &mut query {
        std::mem::swap(&mut c.0, &mut e.0);
    }
}

pub(super) fn prepare(workload: &str, n: usize) -> Option<Box<dyn Prepared>> {
    ComputeTaskPool::get_or_init(TaskPool::default);
    Some(match workload {
        "simple_insert" => prepared(
            None::<World>,
            move |slot| {
                let mut world = World::new();
                world.spawn_batch((0..n).map(insert_bundle));
                *slot = Some(world);
            },
            |slot| slot.as_mut().map_or(0, positions),
        ),
        "simple_iter" => {
            let mut world = World::new();
            world.spawn_batch((0..n).map(insert_bundle));
            let query = world.query::<(&Velocity, &mut Position)>();
            prepared(
                (world, query),
                |(world, query)| {
                    for (v, mut p) in query.iter_mut(world) {
                        p.0[0] += v.0[0];
                        p.0[1] += v.0[1];
                        p.0[2] += v.0[2];
                    }
                },
                |(world, _)| positions(world),
            )
        }
        "fragmented_iter" => {
            let mut world = World::new();
            macro_rules! spawn {
                ($($letter:ident),*) => {$(
                    world.spawn_batch((0..n).map(|_| ($letter(0.0), Data(1.0))));
                )*};
            }
            spawn!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
            let query = world.query::<&mut Data>();
            prepared(
                (world, query),
                |(world, query)| {
                    for mut d in query.iter_mut(world) {
                        d.0 *= 2.0;
                    }
                },
                |(world, _)| {
                    let values: Vec<f32> =
                        world.query::<&Data>().iter(world).map(|d| d.0).collect();
                    data_digest(values.into_iter())
                },
            )
        }
        "heavy_compute" => {
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
        "add_remove" => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..n).map(|i| (A(i as f32),))).collect();
            prepared(
                (world, entities, Digest::default(), 0usize),
                |(world, entities, removed, runs)| {
                    for &e in entities.iter() {
                        world.entity_mut(e).insert(B(1.0));
                    }
                    for &e in entities.iter() {
                        let b = world.entity_mut(e).take::<B>().expect("B was just added");
                        removed.add(u64::from(b.0.to_bits()));
                    }
                    *runs += 1;
                },
                |(world, _, removed, runs)| {
                    let mut query: QueryState<&A, (With<A>, Without<B>)> = world.query_filtered();
                    let without_b = query.iter(world).count();
                    add_remove_checksum(*removed, *runs, without_b)
                },
            )
        }
        "schedule" => {
            let mut world = World::new();
            world.spawn_batch((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)))));
            world.spawn_batch((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)), C(value(i, 2)))));
            world.spawn_batch((0..n).map(|i| {
                (
                    A(value(i, 0)),
                    B(value(i, 1)),
                    C(value(i, 2)),
                    D(value(i, 3)),
                )
            }));
            world.spawn_batch((0..n).map(|i| {
                (
                    A(value(i, 0)),
                    B(value(i, 1)),
                    C(value(i, 2)),
                    E(value(i, 3)),
                )
            }));
            let mut schedule = Schedule::default();
            schedule.add_systems((ab, cd, ce));
            prepared(
                (world, schedule),
                |(world, schedule)| schedule.run(world),
                |(world, _)| {
                    let mut digest = Digest::default();
                    let mut count = 0;
                    type Letters<'a> = (&'a A, &'a B, Option<&'a C>, Option<&'a D>, Option<&'a E>);
                    for (a, b, c, d, e) in world.query::<Letters>().iter(world) {
                        digest.add(schedule_item_hash([
                            Some(a.0),
                            Some(b.0),
                            c.map(|c| c.0),
                            d.map(|d| d.0),
                            e.map(|e| e.0),
                        ]));
                        count += 1;
                    }
                    digest.finish(count)
                },
            )
        }
        _ => return None,
    })
}
