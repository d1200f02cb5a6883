//! shipyard on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access, query_1..4), through views borrowed once per pass, shipyard's documented
//! way to reach storages (`World::add_entity`, `add_component` and `delete_entity` borrow the
//! storages they touch on every call): entities made with `EntitiesViewMut::add_entity` and
//! given their components with `EntitiesViewMut::add_component` into `ViewMut`s, one call
//! per component; writes and random reads with `get` on the views; deletes with
//! `AllStoragesViewMut::delete_entity` (the one call that removes an entity from every
//! storage); the query_1..4 passes as view-tuple iteration with `for_each` (shipyard's
//! iterators fold over the dense run of the smallest storage).

use shipyard::{
    AllStoragesViewMut, EntitiesView, EntitiesViewMut, EntityId, Get, IntoIter, View, ViewMut,
    World,
};

use super::shipyard::ShipyardPeer;
use super::SeedPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{four_components, seed_digest, write_four, SeedWorld};
use crate::workloads::seed003::{
    access_checksum, access_term, insert_extras, query_base, query_checksum, query_step,
    shuffled_order, spawn_by_archetype, QUERY_MASKS,
};

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

    fn create_empty(&mut self, n: usize) {
        self.run(|mut entities: EntitiesViewMut| {
            for _ in 0..n {
                entities.add_entity((), ());
            }
        });
    }

    fn spawn_four_each(&mut self, n: usize, mut spawned: impl FnMut(EntityId)) {
        self.run(
            |mut entities: EntitiesViewMut, (mut ps, mut rs, mut vs, mut hs): Writes<'_>| {
                for i in 0..n {
                    let (p, r, v, h) = four_components(i as f32);
                    let e = entities.add_entity((), ());
                    entities.add_component(e, &mut ps, p);
                    entities.add_component(e, &mut rs, r);
                    entities.add_component(e, &mut vs, v);
                    entities.add_component(e, &mut hs, h);
                    spawned(e);
                }
            },
        );
    }

    fn write_all(&mut self, entities: &[EntityId]) -> u64 {
        self.run(|(mut p, mut r, mut v, mut h): Writes<'_>| {
            let mut writes = 0;
            for &e in entities {
                let (pc, rc) = ((&mut p).get(e).ok(), (&mut r).get(e).ok());
                let (vc, hc) = ((&mut v).get(e).ok(), (&mut h).get(e).ok());
                writes += write_four(pc, rc, vc, hc);
            }
            writes
        })
    }

    fn despawn_all(&mut self, entities: &mut Vec<EntityId>) {
        self.run(|mut all: AllStoragesViewMut| {
            for e in entities.drain(..) {
                assert!(all.delete_entity(e), "live entity");
            }
        });
    }

    fn live(&mut self) -> u64 {
        self.run(|entities: EntitiesView| entities.iter().count()) as u64
    }

    fn digest(&mut self) -> u64 {
        self.run(
            |entities: EntitiesView,
             p: View<Position>,
             r: View<Rotation>,
             v: View<Velocity>,
             h: View<Health>| {
                seed_digest(entities.iter().map(|e| {
                    let (p, r, v, h) = ((&p).get(e), (&r).get(e), (&v).get(e), (&h).get(e));
                    (p.ok(), r.ok(), v.ok(), h.ok())
                }))
            },
        )
    }
}

impl SeedPeer for ShipyardPeer {
    type World = World;

    fn random_access(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let entities: Vec<EntityId> = (0..n)
            .map(|i| spawn_by_archetype!(i, |bundle| world.add_entity(bundle)))
            .collect();
        let handles: Vec<EntityId> = shuffled_order(n).into_iter().map(|i| entities[i]).collect();
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

    fn queries(self, arity: usize, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        for i in 0..n {
            let e = world.add_entity(query_base(i));
            insert_extras!(i % QUERY_MASKS, |letter| world.add_component(e, letter));
        }
        prepared(
            world,
            move |world| {
                use query_step::*;
                match arity {
                    1 => world.run(|mut a: ViewMut<A>| (&mut a).iter().for_each(|a| one(&mut a.0))),
                    2 => world.run(|mut a: ViewMut<A>, b: View<B>| {
                        (&mut a, &b).iter().for_each(|(a, b)| two(&mut a.0, b.0))
                    }),
                    3 => world.run(|mut a: ViewMut<A>, b: View<B>, c: View<C>| {
                        (&mut a, &b, &c)
                            .iter()
                            .for_each(|(a, b, c)| three(&mut a.0, b.0, c.0))
                    }),
                    _ => world.run(|mut a: ViewMut<A>, b: View<B>, c: View<C>, d: View<D>| {
                        (&mut a, &b, &c, &d)
                            .iter()
                            .for_each(|(a, b, c, d)| four(&mut a.0, b.0, c.0, d.0))
                    }),
                }
            },
            |world| world.run(|a: View<A>| query_checksum(a.iter().map(|a| a.0))),
        )
    }
}
