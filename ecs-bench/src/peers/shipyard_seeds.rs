//! shipyard on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access): entities and components added one call at a time, as the seeds' tests do;
//! reads and writes through views, shipyard's way of reaching components (random_access: one
//! `get` on the tuple of three views per entity).

use shipyard::{EntitiesView, EntityId, Get, View, ViewMut, World};

use crate::components::{Digest, Health, Position, Rotation, Velocity};
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{self, entity_hash, SeedWorld};
use crate::workloads::seed003::{access_checksum, access_term, shuffled_order, spawn_by_archetype};

/// The four storages, borrowed once for a pass of writes.
type Writes<'v> = (
    ViewMut<'v, Position>,
    ViewMut<'v, Rotation>,
    ViewMut<'v, Velocity>,
    ViewMut<'v, Health>,
);

impl SeedWorld for World {
    type Entity = EntityId;

    fn new_world() -> Self {
        World::new()
    }

    fn spawn_empty(&mut self) -> EntityId {
        self.add_entity(())
    }

    fn insert_nth(&mut self, e: EntityId, k: usize, x: f32) {
        match k {
            0 => self.add_component(e, Position([x, 0.0, 0.0])),
            1 => self.add_component(e, Rotation([0.0, x, 0.0])),
            2 => self.add_component(e, Velocity([0.0, 0.0, x])),
            _ => self.add_component(e, Health(x as u32)),
        }
    }

    fn write_all(&mut self, entities: &[EntityId]) -> u64 {
        self.run(|(mut p, mut r, mut v, mut h): Writes<'_>| {
            let mut writes = 0;
            for &e in entities {
                writes += u64::from((&mut p).get(e).map(|mut c| c.0[0] += 1.0).is_ok());
                writes += u64::from((&mut r).get(e).map(|mut c| c.0[1] += 1.0).is_ok());
                writes += u64::from((&mut v).get(e).map(|mut c| c.0[2] += 1.0).is_ok());
                writes += u64::from((&mut h).get(e).map(|mut c| c.0 += 1).is_ok());
            }
            writes
        })
    }

    fn despawn(&mut self, e: EntityId) {
        assert!(self.delete_entity(e), "live entity");
    }

    fn live(&self) -> u64 {
        self.run(|entities: EntitiesView| entities.iter().count()) as u64
    }

    fn digest(&mut self) -> u64 {
        self.run(
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
                digest.finish(count)
            },
        )
    }
}

pub(super) fn prepare(workload: &str, n: usize) -> Option<Box<dyn Prepared>> {
    Some(match workload {
        "create" => seed000::create::<World>(n),
        "add" => seed000::add::<World>(n),
        "add_write_delete" => seed000::add_write_delete::<World>(n),
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
                            let (p, v, r) = (&p, &v, &r).get(e).expect("has all three");
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
