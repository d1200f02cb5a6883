//! bevy_ecs on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access): one call per operation, as the seeds' tests do; random_access reads its
//! three components with one `Query::get` from a `QueryState` made once.

use bevy_ecs::entity::Entity;
use bevy_ecs::world::World;

use crate::components::{Digest, Health, Position, Rotation, Velocity};
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{self, entity_hash, SeedWorld};
use crate::workloads::seed003::{access_checksum, access_term, shuffled_order, spawn_by_archetype};

impl SeedWorld for World {
    type Entity = Entity;

    fn new_world() -> Self {
        World::new()
    }

    fn spawn_empty(&mut self) -> Entity {
        World::spawn_empty(self).id()
    }

    fn insert_nth(&mut self, e: Entity, k: usize, x: f32) {
        let mut entity = self.entity_mut(e);
        match k {
            0 => entity.insert(Position([x, 0.0, 0.0])),
            1 => entity.insert(Rotation([0.0, x, 0.0])),
            2 => entity.insert(Velocity([0.0, 0.0, x])),
            _ => entity.insert(Health(x as u32)),
        };
    }

    fn write_all(&mut self, entities: &[Entity]) -> u64 {
        let mut writes = 0;
        for &e in entities {
            writes += u64::from(
                self.get_mut::<Position>(e)
                    .map(|mut c| c.0[0] += 1.0)
                    .is_some(),
            );
            writes += u64::from(
                self.get_mut::<Rotation>(e)
                    .map(|mut c| c.0[1] += 1.0)
                    .is_some(),
            );
            writes += u64::from(
                self.get_mut::<Velocity>(e)
                    .map(|mut c| c.0[2] += 1.0)
                    .is_some(),
            );
            writes += u64::from(self.get_mut::<Health>(e).map(|mut c| c.0 += 1).is_some());
        }
        writes
    }

    fn despawn(&mut self, e: Entity) {
        assert!(World::despawn(self, e), "live entity");
    }

    fn live(&self) -> u64 {
        u64::from(self.entities().len())
    }

    fn digest(&mut self) -> u64 {
        type All<'a> = (
            Option<&'a Position>,
            Option<&'a Rotation>,
            Option<&'a Velocity>,
            Option<&'a Health>,
        );
        let mut digest = Digest::default();
        let mut count = 0;
        for (p, r, v, h) in self.query::<All>().iter(self) {
            digest.add(entity_hash(p, r, v, h));
            count += 1;
        }
        digest.finish(count)
    }
}

pub(super) fn prepare(workload: &str, n: usize) -> Option<Box<dyn Prepared>> {
    Some(match workload {
        "create" => seed000::create::<World>(n),
        "add" => seed000::add::<World>(n),
        "add_write_delete" => seed000::add_write_delete::<World>(n),
        "random_access" => {
            let mut world = World::new();
            let entities: Vec<Entity> = (0..n)
                .map(|i| spawn_by_archetype!(i, |bundle| world.spawn(bundle).id()))
                .collect();
            let handles: Vec<Entity> = shuffled_order(n).into_iter().map(|i| entities[i]).collect();
            let state = world.query::<(&Position, &Velocity, &Rotation)>();
            prepared(
                (world, state, handles, 0.0f64),
                |(world, state, handles, sum)| {
                    let mut total = 0.0f64;
                    let query = state.query(world);
                    for &e in handles.iter() {
                        let (p, v, r) = query.get(e).expect("has all three");
                        total += access_term(p, v, r);
                    }
                    *sum = total;
                },
                |(_, _, handles, sum)| access_checksum(*sum, handles.len()),
            )
        }
        _ => return None,
    })
}
