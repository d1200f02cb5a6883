//! hecs on the seed 000 and seed 003 workloads (create, add, add_write_delete,
//! random_access): one call per operation, as the seeds' tests do.

use hecs::{Entity, World};

use crate::components::Digest;
use crate::components::{Health, Position, Rotation, Velocity};
use crate::workload::{prepared, Prepared};
use crate::workloads::seed000::{entity_hash, outcome_checksum, ENTITIES_PER_REP};
use crate::workloads::seed003::{access_checksum, access_term, shuffled_order, spawn_by_archetype};

fn insert_nth(world: &mut World, e: Entity, k: usize, x: f32) {
    let result = match k {
        0 => world.insert_one(e, Position([x, 0.0, 0.0])),
        1 => world.insert_one(e, Rotation([0.0, x, 0.0])),
        2 => world.insert_one(e, Velocity([0.0, 0.0, x])),
        _ => world.insert_one(e, Health(x as u32)),
    };
    result.expect("live entity");
}

fn write_nth(world: &mut World, e: Entity, k: usize) -> bool {
    match k {
        0 => world.get::<&mut Position>(e).map(|mut c| c.0[0] += 1.0),
        1 => world.get::<&mut Rotation>(e).map(|mut c| c.0[1] += 1.0),
        2 => world.get::<&mut Velocity>(e).map(|mut c| c.0[2] += 1.0),
        _ => world.get::<&mut Health>(e).map(|mut c| c.0 += 1),
    }
    .is_ok()
}

fn world_checksum(world: &mut World, events: u64) -> u64 {
    type All<'a> = (
        Option<&'a Position>,
        Option<&'a Rotation>,
        Option<&'a Velocity>,
        Option<&'a Health>,
    );
    let mut digest = Digest::default();
    let mut count = 0;
    for (p, r, v, h) in world.query_mut::<All>() {
        digest.add(entity_hash(p, r, v, h));
        count += 1;
    }
    outcome_checksum(digest.finish(count), events)
}

/// What a timed body leaves for the checksum.
type Outcome = (Option<World>, u64);

fn outcome(run: impl FnMut(&mut Outcome) + 'static) -> Box<dyn Prepared> {
    prepared((None, 0), run, |(world, events)| {
        world.as_mut().map_or(0, |w| world_checksum(w, *events))
    })
}

pub(super) fn prepare(workload: &str, n: usize) -> Option<Box<dyn Prepared>> {
    Some(match workload {
        "create" => outcome(move |out| {
            let mut world = World::new();
            for _ in 0..n {
                world.spawn(());
            }
            out.1 = world.len() as u64;
            out.0 = Some(world);
        }),
        "add" => outcome(move |out| {
            let mut world = World::new();
            for i in 0..n {
                let e = world.spawn(());
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
                    let e = world.spawn(());
                    for k in 0..4 {
                        insert_nth(&mut world, e, k, i as f32);
                    }
                    entities.push(e);
                }
                for &e in &entities {
                    for k in 0..4 {
                        writes += u64::from(write_nth(&mut world, e, k));
                    }
                }
                for e in entities.drain(..) {
                    world.despawn(e).expect("live entity");
                }
            }
            out.1 = writes;
            out.0 = Some(world);
        }),
        "random_access" => {
            let mut world = World::new();
            let entities: Vec<Entity> = (0..n)
                .map(|i| spawn_by_archetype!(i, |bundle| world.spawn(bundle)))
                .collect();
            let handles: Vec<Entity> = shuffled_order(n).into_iter().map(|i| entities[i]).collect();
            prepared(
                (world, handles, 0.0f64),
                |(world, handles, sum)| {
                    let mut total = 0.0f64;
                    for &e in handles.iter() {
                        let p = world.get::<&Position>(e).expect("has Position");
                        let v = world.get::<&Velocity>(e).expect("has Velocity");
                        let r = world.get::<&Rotation>(e).expect("has Rotation");
                        total += access_term(&p, &v, &r);
                    }
                    *sum = total;
                },
                |(_, handles, sum)| access_checksum(*sum, handles.len()),
            )
        }
        _ => return None,
    })
}
