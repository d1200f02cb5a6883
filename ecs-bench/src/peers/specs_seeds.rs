//! specs on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access, query_1..4), with the storages of each pass fetched once (what a system
//! receives) and one call per entity and component: entities made with `Entities::create`
//! (`World::create_entity` fetches the entity allocator on every call: 15-17 ms for the
//! million empty entities of create, against 13-14 ms), given one `insert` per component
//! into the fetched storages, deleted with `Entities::delete`, each pass ended by
//! `World::maintain` (how specs applies creations and deletions, once per frame in a
//! dispatcher-driven game; deletion drops the entities' components from every storage
//! there); writes and random reads as one `lend_join().get` per entity over the fetched
//! storages (one liveness check for all the components); the query_1..4 passes as joins
//! iterated with `for_each`.

use specs::prelude::*;
use specs::World;

use super::specs::{world_with, SpecsPeer};
use super::SeedPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{four_components, seed_digest, write_four, SeedWorld};
use crate::workloads::seed003::{
    access_checksum, access_term, insert_extras, query_base, query_checksum, query_step,
    shuffled_order, spawn_by_archetype, QUERY_MASKS,
};

/// The four storages of a seed 000 entity, fetched once for a pass.
type Four<'a> = (
    WriteStorage<'a, Position>,
    WriteStorage<'a, Rotation>,
    WriteStorage<'a, Velocity>,
    WriteStorage<'a, Health>,
);

/// A specs world for the seed 000 bodies.
pub(super) struct SpecsSeed(World);

impl SeedWorld for SpecsSeed {
    type Entity = Entity;

    fn new_world() -> Self {
        SpecsSeed(world_with!(Position, Rotation, Velocity, Health))
    }

    fn create_empty(&mut self, n: usize) {
        {
            let entities = self.0.entities();
            for _ in 0..n {
                entities.create();
            }
        }
        self.0.maintain();
    }

    fn spawn_four_each(&mut self, n: usize, mut spawned: impl FnMut(Entity)) {
        self.0.exec(
            |(entities, (mut ps, mut rs, mut vs, mut hs)): (Entities, Four)| {
                for i in 0..n {
                    let (p, r, v, h) = four_components(i as f32);
                    let e = entities.create();
                    ps.insert(e, p).expect("live entity");
                    rs.insert(e, r).expect("live entity");
                    vs.insert(e, v).expect("live entity");
                    hs.insert(e, h).expect("live entity");
                    spawned(e);
                }
            },
        );
        self.0.maintain();
    }

    fn write_all(&mut self, entities: &[Entity]) -> u64 {
        let (all, (mut p, mut r, mut v, mut h)) = self.0.system_data::<(Entities, Four)>();
        let mut four = (
            (&mut p).maybe(),
            (&mut r).maybe(),
            (&mut v).maybe(),
            (&mut h).maybe(),
        )
            .lend_join();
        let mut writes = 0;
        for &e in entities {
            let (p, r, v, h) = four.get(e, &all).expect("live entity");
            writes += write_four(p, r, v, h);
        }
        writes
    }

    fn despawn_all(&mut self, entities: &mut Vec<Entity>) {
        {
            let all = self.0.entities();
            for e in entities.drain(..) {
                all.delete(e).expect("live entity");
            }
        }
        self.0.maintain();
    }

    fn live(&mut self) -> u64 {
        self.0.entities().join().count() as u64
    }

    fn digest(&mut self) -> u64 {
        let (all, (p, r, v, h)) = self.0.system_data::<(Entities, Four)>();
        let items = (&all, p.maybe(), r.maybe(), v.maybe(), h.maybe()).join();
        seed_digest(items.map(|(_, p, r, v, h)| (p, r, v, h)))
    }
}

impl SeedPeer for SpecsPeer {
    type World = SpecsSeed;

    fn random_access(self, n: usize) -> Box<dyn Prepared> {
        let mut world = world_with!(Position, Velocity, Rotation, A, B, C, D, E, F, G, H);
        let entities: Vec<Entity> = (0..n)
            .map(|i| {
                spawn_by_archetype!(i, |bundle| {
                    let (p, v, r, letter) = bundle;
                    let e = world.create_entity().with(p).with(v).with(r);
                    e.with(letter).build()
                })
            })
            .collect();
        let handles: Vec<Entity> = shuffled_order(n).into_iter().map(|i| entities[i]).collect();
        prepared(
            (world, handles, 0.0f64),
            |(world, handles, sum)| {
                type Three<'a> = (
                    Entities<'a>,
                    ReadStorage<'a, Position>,
                    ReadStorage<'a, Velocity>,
                    ReadStorage<'a, Rotation>,
                );
                let (all, p, v, r) = world.system_data::<Three>();
                let mut three = (&p, &v, &r).lend_join();
                let mut total = 0.0f64;
                for &e in handles.iter() {
                    let (p, v, r) = three.get(e, &all).expect("has all three");
                    total += access_term(p, v, r);
                }
                *sum = total;
            },
            |(_, handles, sum)| access_checksum(*sum, handles.len()),
        )
    }

    fn queries(self, arity: usize, n: usize) -> Box<dyn Prepared> {
        let mut world = world_with!(A, B, C, D, E, F, G, H, I, J, K, L);
        for i in 0..n {
            let (a, b, c, d) = query_base(i);
            let mut entity = world.create_entity().with(a).with(b).with(c).with(d);
            insert_extras!(i % QUERY_MASKS, |letter| entity = entity.with(letter));
            entity.build();
        }
        prepared(
            world,
            move |world| {
                use query_step::*;
                let (mut a, b, c, d) = world.system_data::<(
                    WriteStorage<A>,
                    ReadStorage<B>,
                    ReadStorage<C>,
                    ReadStorage<D>,
                )>();
                match arity {
                    1 => (&mut a).join().for_each(|a| one(&mut a.0)),
                    2 => (&mut a, &b).join().for_each(|(a, b)| two(&mut a.0, b.0)),
                    3 => (&mut a, &b, &c)
                        .join()
                        .for_each(|(a, b, c)| three(&mut a.0, b.0, c.0)),
                    _ => (&mut a, &b, &c, &d)
                        .join()
                        .for_each(|(a, b, c, d)| four(&mut a.0, b.0, c.0, d.0)),
                }
            },
            |world| query_checksum(world.read_storage::<A>().join().map(|a| a.0)),
        )
    }
}
