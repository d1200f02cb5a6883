//! bevy_ecs on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access, query_1..4), through its fastest documented paths: entities made with
//! `spawn_empty` and given their components through the returned `EntityWorldMut` (located
//! once, each `insert` then moves it without a look-up), writes and random reads through a
//! `Query` taken once per pass from a `QueryState` made once (`Query::get_mut` / `get`: one
//! look-up per entity for all its components), `World::despawn` per entity, and the
//! query_1..4 passes through `QueryState`s made once, iterated with `for_each`. (bevy keeps
//! its resources in entities of their own, marked `IsResource`: the checksums leave them out.)

use bevy_ecs::entity::Entity;
use bevy_ecs::query::{QueryData, QueryState, Without};
use bevy_ecs::resource::IsResource;
use bevy_ecs::world::World;

use super::bevy::BevyPeer;
use super::bevy_b::{stored, BevyB};
use super::SeedPeer;
use crate::components::*;
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{four_components, seed_digest, write_four, SeedItem, SeedWorld};
use crate::workloads::seed003::{
    access_checksum, access_term, insert_extras, query_base, query_checksum, query_step,
    shuffled_order, spawn_by_archetype, QUERY_MASKS,
};

/// The four components of a seed 000 entity, each optional, written in place.
type Writes = (
    Option<&'static mut Position>,
    Option<&'static mut Rotation>,
    Option<&'static mut Velocity>,
    Option<&'static mut Health>,
);

/// A bevy world with the query state of the write pass, made once.
pub(super) struct BevySeed {
    world: World,
    writes: QueryState<Writes>,
}

impl SeedWorld for BevySeed {
    type Entity = Entity;

    fn new_world() -> Self {
        let mut world = World::new();
        BevySeed {
            writes: world.query(),
            world,
        }
    }

    fn create_empty(&mut self, n: usize) {
        for _ in 0..n {
            self.world.spawn_empty();
        }
    }

    fn spawn_four_each(&mut self, n: usize, mut spawned: impl FnMut(Entity)) {
        for i in 0..n {
            let (p, r, v, h) = four_components(i as f32);
            let mut entity = self.world.spawn_empty();
            entity.insert(p);
            entity.insert(r);
            entity.insert(v);
            entity.insert(h);
            spawned(entity.id());
        }
    }

    fn write_all(&mut self, entities: &[Entity]) -> u64 {
        let mut query = self.writes.query_mut(&mut self.world);
        let mut writes = 0;
        for &e in entities {
            let (p, r, v, h) = query.get_mut(e).expect("live entity");
            writes += write_four(p, r, v, h);
        }
        writes
    }

    fn despawn_all(&mut self, entities: &mut Vec<Entity>) {
        for e in entities.drain(..) {
            assert!(self.world.despawn(e), "live entity");
        }
    }

    fn live(&mut self) -> u64 {
        let mut spawned = self.world.query_filtered::<(), Without<IsResource>>();
        spawned.iter(&self.world).count() as u64
    }

    fn digest(&mut self) -> u64 {
        let mut all = self.world.query_filtered::<SeedItem, Without<IsResource>>();
        seed_digest(all.iter(&self.world))
    }
}

impl<Bb: BevyB> SeedPeer for BevyPeer<Bb> {
    type World = BevySeed;

    fn random_access(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let entities: Vec<Entity> = (0..n)
            .map(|i| {
                spawn_by_archetype!(i, |bundle| {
                    let (p, v, r, letter) = bundle;
                    world.spawn((p, v, r, stored::<Bb, _>(letter))).id()
                })
            })
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

    fn queries(self, arity: usize, n: usize) -> Box<dyn Prepared> {
        use query_step::*;
        let mut world = World::new();
        for i in 0..n {
            let (a, b, c, d) = query_base(i);
            let mut entity = world.spawn((a, Bb::new(b.0), c, d));
            insert_extras!(i % QUERY_MASKS, |letter| entity.insert(letter));
        }
        match arity {
            1 => query_pass(world, |w, q: &mut QueryState<&mut A>| {
                q.iter_mut(w).for_each(|mut a| one(&mut a.0))
            }),
            2 => query_pass(world, |w, q: &mut QueryState<(&mut A, &Bb)>| {
                q.iter_mut(w)
                    .for_each(|(mut a, b)| two(&mut a.0, b.value()))
            }),
            3 => query_pass(world, |w, q: &mut QueryState<(&mut A, &Bb, &C)>| {
                q.iter_mut(w)
                    .for_each(|(mut a, b, c)| three(&mut a.0, b.value(), c.0))
            }),
            _ => query_pass(world, |w, q: &mut QueryState<(&mut A, &Bb, &C, &D)>| {
                q.iter_mut(w)
                    .for_each(|(mut a, b, c, d)| four(&mut a.0, b.value(), c.0, d.0))
            }),
        }
    }
}

/// A query_1..4 body: `pass` over a `QueryState` made once; the checksum reads every `A`.
fn query_pass<D: QueryData + 'static>(
    mut world: World,
    pass: impl Fn(&mut World, &mut QueryState<D>) + 'static,
) -> Box<dyn Prepared> {
    let state = world.query::<D>();
    prepared(
        (world, state),
        move |(world, state)| pass(world, state),
        |(world, _)| query_checksum(world.query::<&A>().iter(world).map(|a| a.0)),
    )
}
