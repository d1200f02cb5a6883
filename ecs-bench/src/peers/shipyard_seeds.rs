//! shipyard on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access): entities and components added one call at a time, as the seeds' tests do;
//! reads and writes through views, shipyard's way of reaching components.

use shipyard::{EntitiesView, EntityId, Get, View, ViewMut, World};

use crate::components::{Digest, Health, Position, Rotation, Velocity};
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{entity_hash, outcome_checksum, ENTITIES_PER_REP};
use crate::workloads::seed003::{access_checksum, access_term, shuffled_order, spawn_by_archetype};

fn insert_nth(world: &mut World, e: EntityId, k: usize, x: f32) {
    match k {
        0 => world.add_component(e, Position([x, 0.0, 0.0])),
        1 => world.add_component(e, Rotation([0.0, x, 0.0])),
        2 => world.add_component(e, Velocity([0.0, 0.0, x])),
        _ => world.add_component(e, Health(x as u32)),
    }
}

/// The four storages, borrowed once for a pass of writes.
type Writes<'v> = (
    ViewMut<'v, Position>,
    ViewMut<'v, Rotation>,
    ViewMut<'v, Velocity>,
    ViewMut<'v, Health>,
);

fn write_nth(views: &mut Writes<'_>, e: EntityId, k: usize) -> bool {
    match k {
        0 => (&mut views.0).get(e).map(|mut c| c.0[0] += 1.0),
        1 => (&mut views.1).get(e).map(|mut c| c.0[1] += 1.0),
        2 => (&mut views.2).get(e).map(|mut c| c.0[2] += 1.0),
        _ => (&mut views.3).get(e).map(|mut c| c.0 += 1),
    }
    .is_ok()
}

fn world_checksum(world: &World, events: u64) -> u64 {
    world.run(
        |entities: EntitiesView,
         p: View<Position>,
         r: View<Rotation>,
         v: View<Velocity>,
         h: View<Health>| {
            let mut digest = Digest::default();
            let mut count = 0;
            for e in entities.iter() {
                digest.add(entity_hash(
                    (&p).get(e).ok(),
                    (&r).get(e).ok(),
                    (&v).get(e).ok(),
                    (&h).get(e).ok(),
                ));
                count += 1;
            }
            outcome_checksum(digest.finish(count), events)
        },
    )
}

/// What a timed body leaves for the checksum.
type Outcome = (Option<World>, u64);

fn outcome(run: impl FnMut(&mut Outcome) + 'static) -> Box<dyn Prepared> {
    prepared((None, 0), run, |(world, events)| {
        world.as_ref().map_or(0, |w| world_checksum(w, *events))
    })
}

pub(super) fn prepare(workload: &str, n: usize) -> Option<Box<dyn Prepared>> {
    Some(match workload {
        "create" => outcome(move |out| {
            let mut world = World::new();
            for _ in 0..n {
                world.add_entity(());
            }
            out.1 = world.run(|entities: EntitiesView| entities.iter().count()) as u64;
            out.0 = Some(world);
        }),
        "add" => outcome(move |out| {
            let mut world = World::new();
            for i in 0..n {
                let e = world.add_entity(());
                for k in 0..4 {
                    insert_nth(&mut world, e, k, i as f32);
                }
            }
            out.0 = Some(world);
        }),
        "add_write_delete" => outcome(move |out| {
            let mut world = World::new();
            let mut entities = Vec::with_capacity(ENTITIES_PER_REP);
            let mut writes = 0u64;
            for _ in 0..n {
                for i in 0..ENTITIES_PER_REP {
                    let e = world.add_entity(());
                    for k in 0..4 {
                        insert_nth(&mut world, e, k, i as f32);
                    }
                    entities.push(e);
                }
                writes += world.run(|mut views: Writes<'_>| {
                    let mut writes = 0u64;
                    for &e in &entities {
                        for k in 0..4 {
                            writes += u64::from(write_nth(&mut views, e, k));
                        }
                    }
                    writes
                });
                for e in entities.drain(..) {
                    assert!(world.delete_entity(e), "live entity");
                }
            }
            out.1 = writes;
            out.0 = Some(world);
        }),
        "random_access" => {
            let mut world = World::new();
            let entities: Vec<EntityId> = (0..n)
                .map(|i| spawn_by_archetype!(i, |bundle| world.add_entity(bundle)))
                .collect();
            let handles: Vec<EntityId> =
                shuffled_order(n).into_iter().map(|i| entities[i]).collect();
            prepared(
                (world, handles, 0.0f64),
                |(world, handles, sum)| {
                    *sum = world.run(|p: View<Position>, v: View<Velocity>, r: View<Rotation>| {
                        let mut total = 0.0f64;
                        for &e in handles.iter() {
                            let p = (&p).get(e).expect("has Position");
                            let v = (&v).get(e).expect("has Velocity");
                            let r = (&r).get(e).expect("has Rotation");
                            total += access_term(p, v, r);
                        }
                        total
                    });
                },
                |(_, handles, sum)| access_checksum(*sum, handles.len()),
            )
        }
        _ => return None,
    })
}
