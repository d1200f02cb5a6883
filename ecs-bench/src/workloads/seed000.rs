//! Seed 000 (Varkor, "Refactoring an Old ECS"): Create, Add, AddWriteDelete,
//! DistributedAddWriteRemoveAddDelete and Random, each reported as time, peak memory and
//! allocations beside the seed's best revision (new_1, Ryzen 5 2600X). Relationship (and a
//! traversal workload beside it) is in the `relationship` module.
//!
//! The four components are `Position`, `Rotation`, `Velocity` and `Health`; "component k"
//! below means the k-th of them. Every world is created inside the timed body, as in the
//! seed's tests; it is dropped untimed, so no workload here is repeatable (a second run on
//! the same state would time the first run's world being dropped).

use std::ops::DerefMut;

use ecs_conformance::kit::Rng;
use ecs_core::{Entity, Storage, World};

use super::{info, sizes, Builtin, InfoExt};
use crate::components::{hash_f32s, mix, Digest, Health, Position, Rotation, Velocity};
use crate::workload::{prepared, DynWorkload, Prepared, Workload, WorkloadInfo};

const SOURCE: &str = "seed 000, revision new_1, Ryzen 5 2600X, mean of 50 (Tracy)";

/// Entities per repetition in add_write_delete and distributed.
pub const ENTITIES_PER_REP: usize = 2_000;

/// The seed 000 workloads.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    vec![
        Box::new(Create(
            info(
                Builtin::Create,
                "create entities",
                sizes(1_000_000, 100_000, 1_000),
                "entities",
            )
            .anchor("13.21 ms, 22.5 MB, 18 allocs", SOURCE),
        )),
        Box::new(Add(info(
            Builtin::Add,
            "create entities, add the same 4 components to each, one insert per component",
            sizes(500_000, 50_000, 500),
            "entities",
        )
        .anchor("315.83 ms, 81.5 MB, 161 allocs", SOURCE))),
        Box::new(AddWriteDelete(
            info(
                Builtin::AddWriteDelete,
                "2,000 entities × 4 components, write each, delete all; repeated on one world",
                sizes(300, 30, 2),
                "reps of 2,000 entities",
            )
            .anchor("651.25 ms, 330.74 KB, 89 allocs", SOURCE),
        )),
        Box::new(Distributed(
            info(
                Builtin::Distributed,
                "2,000 entities get one of 4 components; write, remove, add another, delete; \
                 repeated on one world",
                sizes(300, 30, 2),
                "reps of 2,000 entities",
            )
            .anchor("654.50 ms, 244.62 KB, 82 allocs", SOURCE),
        )),
        Box::new(Random(
            info(
                Builtin::Random,
                "seeded: create attempts (falling probability), 2× random write / ensure / \
                 remove ops, delete attempts (rising probability); ×10 on one world",
                sizes(50_000, 5_000, 200),
                "create attempts per rep",
            )
            .anchor("616.26 ms, 4178.84 KB, 133 allocs", SOURCE),
        )),
    ]
}

/// Inserts component `k` (0..4) on `entity`.
fn insert_nth<S: Storage>(world: &mut World<S>, entity: Entity, k: usize, x: f32) {
    let result = match k {
        0 => world.insert(entity, Position([x, 0.0, 0.0])).map(drop),
        1 => world.insert(entity, Rotation([0.0, x, 0.0])).map(drop),
        2 => world.insert(entity, Velocity([0.0, 0.0, x])).map(drop),
        _ => world.insert(entity, Health(x as u32)).map(drop),
    };
    result.expect("live entity");
}

/// The four components of a seed 000 entity spawned with value `x`, in insert order (what
/// [`insert_nth`] inserts for k = 0..4): every runner's `spawn_four_each` inserts these one
/// at a time.
pub(crate) fn four_components(x: f32) -> (Position, Rotation, Velocity, Health) {
    (
        Position([x, 0.0, 0.0]),
        Rotation([0.0, x, 0.0]),
        Velocity([0.0, 0.0, x]),
        Health(x as u32),
    )
}

/// The writes of [`write_nth`] for k = 0..4 on one entity's components, each where it has
/// it (any mutable handle: `&mut`, or a peer's change-tracking guard); how many it wrote. The
/// peers' write passes use it.
#[cfg_attr(not(feature = "peers"), allow(dead_code))]
pub(crate) fn write_four(
    p: Option<impl DerefMut<Target = Position>>,
    r: Option<impl DerefMut<Target = Rotation>>,
    v: Option<impl DerefMut<Target = Velocity>>,
    h: Option<impl DerefMut<Target = Health>>,
) -> u64 {
    u64::from(p.map(|mut c| c.0[0] += 1.0).is_some())
        + u64::from(r.map(|mut c| c.0[1] += 1.0).is_some())
        + u64::from(v.map(|mut c| c.0[2] += 1.0).is_some())
        + u64::from(h.map(|mut c| c.0 += 1).is_some())
}

/// Writes component `k` of `entity`; false if it has none.
fn write_nth<S: Storage>(world: &mut World<S>, entity: Entity, k: usize) -> bool {
    match k {
        0 => world.get_mut::<Position>(entity).map(|c| c.0[0] += 1.0),
        1 => world.get_mut::<Rotation>(entity).map(|c| c.0[1] += 1.0),
        2 => world.get_mut::<Velocity>(entity).map(|c| c.0[2] += 1.0),
        _ => world.get_mut::<Health>(entity).map(|c| c.0 += 1),
    }
    .is_some()
}

/// Removes component `k` of `entity`; false if it had none.
fn remove_nth<S: Storage>(world: &mut World<S>, entity: Entity, k: usize) -> bool {
    match k {
        0 => world.remove::<Position>(entity).is_ok(),
        1 => world.remove::<Rotation>(entity).is_ok(),
        2 => world.remove::<Velocity>(entity).is_ok(),
        _ => world.remove::<Health>(entity).is_ok(),
    }
}

/// Whether `entity` has component `k`.
fn has_nth<S: Storage>(world: &World<S>, entity: Entity, k: usize) -> bool {
    match k {
        0 => world.has::<Position>(entity),
        1 => world.has::<Rotation>(entity),
        2 => world.has::<Velocity>(entity),
        _ => world.has::<Health>(entity),
    }
}

/// Digest of every entity's four components (absent ones count as absent).
fn world_digest<S: Storage>(world: &mut World<S>) -> u64 {
    // `Entity` makes the query match every entity, whatever it holds.
    seed_digest(world.query::<(Entity, SeedItem)>().map(|(_, item)| item))
}

/// One entity's four components, each where it has it: what a world digest hashes.
pub(crate) type SeedItem<'a> = (
    Option<&'a Position>,
    Option<&'a Rotation>,
    Option<&'a Velocity>,
    Option<&'a Health>,
);

/// The digest of a world: every entity's [`entity_hash`], with their count. Peers digest
/// their worlds with it too, so their checksums match ours.
pub(crate) fn seed_digest<'a>(entities: impl Iterator<Item = SeedItem<'a>>) -> u64 {
    let mut digest = Digest::default();
    let count = entities.fold(0, |count, (p, r, v, h)| {
        digest.add(entity_hash(p, r, v, h));
        count + 1
    });
    digest.finish(count)
}

/// One entity's hash in a world digest: its four components, absent ones counting as absent.
fn entity_hash(
    p: Option<&Position>,
    r: Option<&Rotation>,
    v: Option<&Velocity>,
    h: Option<&Health>,
) -> u64 {
    let hashes = [
        p.map_or(1, |c| hash_f32s(&c.0)),
        r.map_or(2, |c| hash_f32s(&c.0)),
        v.map_or(3, |c| hash_f32s(&c.0)),
        h.map_or(4, |c| mix(u64::from(c.0))),
    ];
    hashes.iter().fold(0, |h, x| mix(h ^ x))
}

/// The checksum a seed 000 body leaves: the world's digest (see [`entity_hash`]) and a digest
/// of events.
fn outcome_checksum(world_digest: u64, events: u64) -> u64 {
    mix(world_digest ^ mix(events))
}

/// One ECS as the create, add and add_write_delete bodies drive it: our `World<S>` here and,
/// with the `peers` feature, each peer, so each body is written once for every runner.
///
/// The operations come a pass at a time (create n entities, spawn n entities with their
/// components, write, despawn), so a peer whose fastest path borrows its storages once and
/// then makes one call per entity (shipyard's views, specs' storages, bevy's cached query
/// states) takes that path; every pass still makes one call per entity and component.
pub(crate) trait SeedWorld: 'static {
    /// The ECS's entity handle.
    type Entity: Copy + 'static;
    /// An empty world.
    fn new_world() -> Self;
    /// Creates `n` entities with no component, one call each.
    fn create_empty(&mut self, n: usize);
    /// Spawns `n` entities: entity `i` is created with no component, then given components
    /// 0..4 (see [`insert_nth`], value `i`) one insert at a time. `spawned` sees each handle.
    fn spawn_four_each(&mut self, n: usize, spawned: impl FnMut(Self::Entity));
    /// Writes the four components of every entity (see [`write_nth`]); returns how many
    /// writes found their component.
    fn write_all(&mut self, entities: &[Self::Entity]) -> u64;
    /// Despawns every entity of `entities` (live ones), one call each, and empties it.
    fn despawn_all(&mut self, entities: &mut Vec<Self::Entity>);
    /// Live entities (counted for the checksum, untimed).
    fn live(&mut self) -> u64;
    /// Digest of every entity's four components, over [`entity_hash`].
    fn digest(&mut self) -> u64;
}

impl<S: Storage> SeedWorld for World<S> {
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
        // The four inserts written out, as the peers write them (and as a user does): a
        // loop over `insert_nth` cost a call and a jump-table dispatch per insert.
        for i in 0..n {
            let (p, r, v, h) = four_components(i as f32);
            let e = self.spawn(());
            self.insert(e, p).expect("live entity");
            self.insert(e, r).expect("live entity");
            self.insert(e, v).expect("live entity");
            self.insert(e, h).expect("live entity");
            spawned(e);
        }
    }

    fn write_all(&mut self, entities: &[Entity]) -> u64 {
        let mut writes = 0;
        for &e in entities {
            for k in 0..4 {
                writes += u64::from(write_nth(self, e, k));
            }
        }
        writes
    }

    fn despawn_all(&mut self, entities: &mut Vec<Entity>) {
        for e in entities.drain(..) {
            World::despawn(self, e).expect("live entity");
        }
    }

    fn live(&mut self) -> u64 {
        self.len() as u64
    }

    fn digest(&mut self) -> u64 {
        world_digest(self)
    }
}

/// What a timed body leaves for the checksum: the world and a digest of events.
pub(crate) struct Outcome<W> {
    world: Option<W>,
    events: u64,
    /// Whether the checksum's events are the world's live entities (counted untimed), not
    /// `events`.
    count_live: bool,
}

impl<W: SeedWorld> Outcome<W> {
    fn new() -> Self {
        Outcome {
            world: None,
            events: 0,
            count_live: false,
        }
    }

    fn checksum(&mut self) -> u64 {
        let (world, events) = match self.world.as_mut() {
            Some(w) if self.count_live => (w.digest(), w.live()),
            Some(w) => (w.digest(), self.events),
            None => (0, self.events),
        };
        outcome_checksum(world, events)
    }
}

/// A body that builds a world in the timed run and leaves it (and its events) for the
/// checksum.
fn outcome<W: SeedWorld>(run: impl FnMut(&mut Outcome<W>) + 'static) -> Box<dyn Prepared> {
    prepared(Outcome::<W>::new(), run, Outcome::checksum)
}

/// The create body on any [`SeedWorld`].
pub(crate) fn create<W: SeedWorld>(n: usize) -> Box<dyn Prepared> {
    outcome(move |out: &mut Outcome<W>| {
        let mut world = W::new_world();
        world.create_empty(n);
        out.count_live = true;
        out.world = Some(world);
    })
}

/// The add body on any [`SeedWorld`].
pub(crate) fn add<W: SeedWorld>(n: usize) -> Box<dyn Prepared> {
    outcome(move |out: &mut Outcome<W>| {
        let mut world = W::new_world();
        world.spawn_four_each(n, drop);
        out.world = Some(world);
    })
}

/// The add_write_delete body on any [`SeedWorld`].
pub(crate) fn add_write_delete<W: SeedWorld>(reps: usize) -> Box<dyn Prepared> {
    outcome(move |out: &mut Outcome<W>| {
        let mut world = W::new_world();
        let mut entities = Vec::with_capacity(ENTITIES_PER_REP);
        let mut writes = 0u64;
        for _ in 0..reps {
            world.spawn_four_each(ENTITIES_PER_REP, |e| entities.push(e));
            writes += world.write_all(&entities);
            world.despawn_all(&mut entities);
        }
        out.events = writes;
        out.world = Some(world);
    })
}

/// `create`.
pub struct Create(WorkloadInfo);

impl Workload for Create {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        create::<World<S>>(n)
    }
}

/// `add`.
pub struct Add(WorkloadInfo);

impl Workload for Add {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        add::<World<S>>(n)
    }
}

/// `add_write_delete` (the seed's AddWriteDelete).
pub struct AddWriteDelete(WorkloadInfo);

impl Workload for AddWriteDelete {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, reps: usize) -> Box<dyn Prepared> {
        add_write_delete::<World<S>>(reps)
    }
}

/// `distributed` (the seed's DistributedAddWriteRemoveAddDelete).
pub struct Distributed(WorkloadInfo);

impl Workload for Distributed {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, reps: usize) -> Box<dyn Prepared> {
        prepared(
            Outcome::<World<S>>::new(),
            move |out| {
                let mut world = World::<S>::new();
                let mut entities = Vec::with_capacity(ENTITIES_PER_REP);
                let mut events = 0u64;
                for _ in 0..reps {
                    for i in 0..ENTITIES_PER_REP {
                        let e = world.spawn(());
                        insert_nth(&mut world, e, i % 4, i as f32);
                        entities.push(e);
                    }
                    for (i, &e) in entities.iter().enumerate() {
                        events += u64::from(write_nth(&mut world, e, i % 4));
                    }
                    for (i, &e) in entities.iter().enumerate() {
                        events += u64::from(remove_nth(&mut world, e, i % 4));
                    }
                    for (i, &e) in entities.iter().enumerate() {
                        insert_nth(&mut world, e, (i + 1) % 4, i as f32);
                    }
                    for e in entities.drain(..) {
                        world.despawn(e).expect("live entity");
                    }
                }
                out.events = events;
                out.world = Some(world);
            },
            Outcome::checksum,
        )
    }
}

/// `random`: the seed's Random test, driven by a fixed-seed generator (the workspace's
/// shared SplitMix64, `kit::Rng`) so every backend performs the same operations.
pub struct Random(WorkloadInfo);

/// The random test's generator seed.
pub const RANDOM_SEED: u64 = 0x5EED_0000;
const RANDOM_REPS: usize = 10;

/// The state the random test threads through its steps.
struct RandomRun<'w, S: Storage> {
    world: &'w mut World<S>,
    rng: Rng,
    live: Vec<Entity>,
    events: u64,
}

impl<S: Storage> RandomRun<'_, S> {
    fn pick(&mut self) -> Option<Entity> {
        if self.live.is_empty() {
            return None;
        }
        let index = self.rng.index(self.live.len());
        Some(self.live[index])
    }

    /// Writes every component of a random entity (what every failed attempt does).
    fn write_random(&mut self) {
        if let Some(e) = self.pick() {
            for k in 0..4 {
                self.events += u64::from(write_nth(self.world, e, k));
            }
        }
    }

    fn create_attempts(&mut self, attempts: usize) {
        for i in 0..attempts {
            let probability = 1.0 - i as f64 / attempts as f64;
            if self.rng.unit_f64() < probability {
                let e = self.world.spawn(());
                let mask = self.rng.next_u64() as u8;
                for k in (0..4).filter(|k| mask & (1 << k) != 0) {
                    insert_nth(self.world, e, k, i as f32);
                }
                self.live.push(e);
            } else {
                self.write_random();
            }
        }
    }

    fn random_ops(&mut self, ops: usize) {
        for _ in 0..ops {
            match self.rng.below(3) {
                0 => self.write_random(),
                1 => {
                    let k = self.rng.index(4);
                    if let Some(e) = self.pick() {
                        if !has_nth(self.world, e, k) {
                            insert_nth(self.world, e, k, 0.5);
                            self.events += 1 << 20;
                        }
                    }
                }
                _ => {
                    let k = self.rng.index(4);
                    if let Some(e) = self.pick() {
                        self.events += u64::from(remove_nth(self.world, e, k)) << 40;
                    }
                }
            }
        }
    }

    fn delete_attempts(&mut self, attempts: usize) {
        for i in 0..attempts {
            let probability = i as f64 / attempts as f64;
            if !self.live.is_empty() && self.rng.unit_f64() < probability {
                let index = self.rng.index(self.live.len());
                let e = self.live.swap_remove(index);
                self.world.despawn(e).expect("live entity");
            } else {
                self.write_random();
            }
        }
    }
}

impl Workload for Random {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, attempts: usize) -> Box<dyn Prepared> {
        prepared(
            Outcome::<World<S>>::new(),
            move |out| {
                let mut world = World::<S>::new();
                let mut run = RandomRun {
                    world: &mut world,
                    rng: Rng::new(RANDOM_SEED),
                    live: Vec::new(),
                    events: 0,
                };
                for _ in 0..RANDOM_REPS {
                    run.create_attempts(attempts);
                    run.random_ops(2 * attempts);
                    run.delete_attempts(attempts);
                }
                out.events = run.events ^ mix(run.live.len() as u64);
                out.world = Some(world);
            },
            Outcome::checksum,
        )
    }
}
