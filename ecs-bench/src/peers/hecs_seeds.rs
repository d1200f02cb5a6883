//! hecs on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access, query_1..4), through its fastest documented calls: `spawn` and
//! `insert_one` / `despawn` per entity (hecs's only per-entity structural calls;
//! `insert_one` skips the bundle machinery of `insert`), writes and random reads through a
//! `View` taken once per pass with `World::view_mut` (the view resolves each archetype's
//! columns once, and on a uniquely borrowed world it skips the dynamic borrow checks that
//! `World::get` and `World::view` pay; one look-up per entity for all its components), and
//! the query_1..4 passes with `query_mut` (no dynamic borrow checks either).

use hecs::{Entity, World};

use super::hecs::HecsPeer;
use super::SeedPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{four_components, seed_digest, write_four, SeedItem, SeedWorld};
use crate::workloads::seed003::{
    access_checksum, access_term, insert_extras, query_base, query_checksum, query_step,
    shuffled_order, spawn_by_archetype, QUERY_MASKS,
};

/// The four components of a seed 000 entity, each optional, written in place.
type Writes<'a> = (
    Option<&'a mut Position>,
    Option<&'a mut Rotation>,
    Option<&'a mut Velocity>,
    Option<&'a mut Health>,
);

impl SeedWorld for World {
    type Entity = Entity;

    fn new_world() -> Self {
        World::new()
    }

    fn create_empty(&mut self, n: usize) {
        for _ in 0..n {
            self.spawn(());
        }
    }

    fn spawn_four_each(&mut self, n: usize, mut spawned: impl FnMut(Entity)) {
        for i in 0..n {
            let (p, r, v, h) = four_components(i as f32);
            let e = self.spawn(());
            self.insert_one(e, p).expect("live entity");
            self.insert_one(e, r).expect("live entity");
            self.insert_one(e, v).expect("live entity");
            self.insert_one(e, h).expect("live entity");
            spawned(e);
        }
    }

    fn write_all(&mut self, entities: &[Entity]) -> u64 {
        let mut view = self.view_mut::<Writes>();
        let mut writes = 0;
        for &e in entities {
            let (p, r, v, h) = view.get_mut(e).expect("live entity");
            writes += write_four(p, r, v, h);
        }
        writes
    }

    fn despawn_all(&mut self, entities: &mut Vec<Entity>) {
        for e in entities.drain(..) {
            self.despawn(e).expect("live entity");
        }
    }

    fn live(&mut self) -> u64 {
        u64::from(self.len())
    }

    fn digest(&mut self) -> u64 {
        seed_digest(self.query_mut::<SeedItem>().into_iter())
    }
}

impl SeedPeer for HecsPeer {
    type World = World;

    fn random_access(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let entities: Vec<Entity> = (0..n)
            .map(|i| spawn_by_archetype!(i, |bundle| world.spawn(bundle)))
            .collect();
        let handles: Vec<Entity> = shuffled_order(n).into_iter().map(|i| entities[i]).collect();
        prepared(
            (world, handles, 0.0f64),
            |(world, handles, sum)| {
                let mut total = 0.0f64;
                let view = world.view_mut::<(&Position, &Velocity, &Rotation)>();
                for &e in handles.iter() {
                    let (p, v, r) = view.get(e).expect("has all three");
                    total += access_term(p, v, r);
                }
                *sum = total;
            },
            |(_, handles, sum)| access_checksum(*sum, handles.len()),
        )
    }

    fn queries(self, arity: usize, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        for i in 0..n {
            let e = world.spawn(query_base(i));
            insert_extras!(i % QUERY_MASKS, |letter| world
                .insert_one(e, letter)
                .expect("live entity"));
        }
        prepared(
            world,
            move |world| {
                use query_step::*;
                match arity {
                    1 => world
                        .query_mut::<&mut A>()
                        .into_iter()
                        .for_each(|a| one(&mut a.0)),
                    2 => world
                        .query_mut::<(&mut A, &B)>()
                        .into_iter()
                        .for_each(|(a, b)| two(&mut a.0, b.0)),
                    3 => world
                        .query_mut::<(&mut A, &B, &C)>()
                        .into_iter()
                        .for_each(|(a, b, c)| three(&mut a.0, b.0, c.0)),
                    _ => world
                        .query_mut::<(&mut A, &B, &C, &D)>()
                        .into_iter()
                        .for_each(|(a, b, c, d)| four(&mut a.0, b.0, c.0, d.0)),
                }
            },
            |world| query_checksum(world.query_mut::<&A>().into_iter().map(|a| a.0)),
        )
    }
}
