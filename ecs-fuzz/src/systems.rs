//! The schedule every fuzzed world runs, its systems, and the model of one run.
//!
//! Seven function systems that write, watch changes and queue commands, then one exclusive
//! system (`&mut World`) that changes the world directly. Only one function system reserves
//! entities (`Commands::spawn`), at most once per run, so the handles a run hands out are the
//! same on every backend even when systems run in parallel. `sum_a0` has a run condition.
//! What the watchers saw is kept in resources that the runner compares after the run.
//!
//! The model replays a run in insertion order (conflicting systems run in that order, and
//! the others commute), applies the queued commands system by system, as the sync point
//! before the exclusive system does, then replays the exclusive system.

use ecs_core::{
    Added, BatchSize, Changed, Commands, Entity, Mut, Query, ResMut, Schedule, Storage, SystemId,
    With, Without, World,
};

use crate::components::{written, PoolComponent, A0, A1, B1, D0, D1, G1, H0, H1, T0, T1};
use crate::model::{Kind, Model};

/// Number of systems in the schedule.
pub const SYSTEMS: usize = 8;

/// Entities `watch_changed_h0` saw, in its latest run.
#[derive(Default)]
pub struct SeenChanged(pub Vec<Entity>);

/// Entities and values `watch_added_h1` saw, in its latest run.
#[derive(Default)]
pub struct SeenAdded(pub Vec<(Entity, u32)>);

/// What `sum_a0` computed in its latest run.
#[derive(Default)]
pub struct Total(pub u64);

/// Entities `tag_d1` reserved in its latest run.
#[derive(Default)]
pub struct Spawned(pub Vec<Entity>);

/// The entity `edit_exclusively` spawned in its latest run, if any.
#[derive(Default)]
pub struct ExclusiveSpawned(pub Option<Entity>);

/// System 0: writes `H0` (through `Mut`) of entities whose `A0` is a multiple of 3, in
/// parallel batches (change marks from several threads).
fn write_h0<S: Storage>(mut q: Query<'_, '_, (Mut<H0>, &A0), (), S>) {
    q.par_for_each_batched(BatchSize::Rows(4), |(mut h, a)| {
        if a.0 % 3 == 0 {
            h.write();
        }
    });
}

/// System 1: records the entities whose `H0` changed since its previous run.
fn watch_changed_h0<S: Storage>(
    q: Query<'_, '_, Entity, Changed<H0>, S>,
    mut seen: ResMut<SeenChanged>,
) {
    seen.0.clear();
    seen.0.extend(q.iter());
}

/// System 2: tags `D1` entities, despawns some, and spawns one entity per run at most.
fn tag_d1<S: Storage>(
    q: Query<'_, '_, (Entity, &D1), Without<T1>, S>,
    mut spawned: ResMut<Spawned>,
    mut commands: Commands,
) {
    spawned.0.clear();
    // Entity order, not iteration order (which is the backend's): the order of despawns
    // decides which freed index the allocator hands out next.
    let mut found: Vec<(Entity, u32)> = q.iter().map(|(e, d)| (e, d.value())).collect();
    found.sort_unstable();
    let count = found.len() as u32;
    for (entity, v) in found {
        if v % 4 == 0 {
            commands.insert(entity, (T1::make(0),));
        }
        if v % 7 == 1 {
            commands.despawn(entity);
        }
    }
    if count % 5 == 2 {
        spawned
            .0
            .push(commands.spawn((D1::make(count), A0::make(count))));
    }
}

/// System 3: writes every `B1`; queues removing `A1` where the new `B1` is a multiple of 3.
fn write_b1<S: Storage>(
    mut q: Query<'_, '_, (Entity, &mut B1, Option<&A1>), (), S>,
    mut commands: Commands,
) {
    q.for_each(|(entity, b, a)| {
        b.write();
        if a.is_some() && b.value() % 3 == 0 {
            commands.remove::<A1>(entity);
        }
    });
}

/// System 4: records the entities that gained `H1` since its previous run.
fn watch_added_h1<S: Storage>(
    q: Query<'_, '_, (Entity, &H1), Added<H1>, S>,
    mut seen: ResMut<SeenAdded>,
) {
    seen.0.clear();
    seen.0.extend(q.iter().map(|(e, h)| (e, h.value())));
}

/// System 5: gives `H1` to `A1` entities without one.
fn give_h1<S: Storage>(
    q: Query<'_, '_, Entity, (With<A1>, Without<H1>), S>,
    mut commands: Commands,
) {
    for entity in q.iter() {
        commands.insert(entity, (H1::make(entity.index()),));
    }
}

/// System 6: sums the `A0` of tagged entities and counts the (never present) `G1`s.
fn sum_a0<S: Storage>(q: Query<'_, '_, (&A0, Option<&G1>), With<T0>, S>, mut total: ResMut<Total>) {
    total.0 = q
        .iter()
        .map(|(a, g)| u64::from(a.0) + u64::from(g.is_some()) * 1_000_000_007)
        .sum();
}

/// The condition `sum_a0` runs under: an even number of live entities at the start of the
/// run.
fn even_population<S: Storage>(world: &World<S>) -> bool {
    world.len() % 2 == 0
}

/// System 7, exclusive: for each `(D0, T1)` entity in entity order, removes `T1` where `D0`
/// is a multiple of 3, else despawns it where `D0 % 5 == 1`; spawns `(H0, B1)` when it found
/// an odd number.
fn edit_exclusively<S: Storage>(world: &mut World<S>) {
    let mut found: Vec<(Entity, u32)> = world
        .query_filtered::<(Entity, &D0), With<T1>>()
        .map(|(e, d)| (e, d.value()))
        .collect();
    found.sort_unstable();
    for &(entity, v) in &found {
        if v % 3 == 0 {
            world.remove::<T1>(entity).expect("found with T1");
        } else if v % 5 == 1 {
            world.despawn(entity).expect("found live");
        }
    }
    let spawned =
        (found.len() % 2 == 1).then(|| world.spawn((H0::make(found.len() as u32), B1::make(7))));
    world
        .resource_mut::<ExclusiveSpawned>()
        .expect("resource")
        .0 = spawned;
}

/// The schedule (systems in the order above) and its resources, added to `world`; with
/// the systems' ids in that order.
pub fn schedule<S: Storage>(world: &mut World<S>) -> (Schedule<S>, Vec<SystemId>) {
    world.insert_resource(SeenChanged::default());
    world.insert_resource(SeenAdded::default());
    world.insert_resource(Total::default());
    world.insert_resource(Spawned::default());
    world.insert_resource(ExclusiveSpawned::default());
    let mut schedule = Schedule::new();
    let ids = vec![
        schedule.add_system(write_h0::<S>),
        schedule.add_system(watch_changed_h0::<S>),
        schedule.add_system(tag_d1::<S>),
        schedule.add_system(write_b1::<S>),
        schedule.add_system(watch_added_h1::<S>),
        schedule.add_system(give_h1::<S>),
        schedule.add_system(sum_a0::<S>),
        schedule.add_system(edit_exclusively::<S>),
    ];
    schedule.configure(ids[6]).run_if(even_population::<S>);
    (schedule, ids)
}

/// What one schedule run leaves in the resources.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    /// `SeenChanged`, sorted.
    pub changed_h0: Vec<Entity>,
    /// `SeenAdded`, sorted.
    pub added_h1: Vec<(Entity, u32)>,
    /// `Total`.
    pub total: u64,
    /// `Spawned`.
    pub spawned: Vec<Entity>,
    /// `ExclusiveSpawned`.
    pub exclusive_spawned: Option<Entity>,
}

impl RunReport {
    /// Reads (and sorts) the resources of `world` after a run.
    pub fn read<S: Storage>(world: &World<S>) -> RunReport {
        let mut changed_h0 = world.resource::<SeenChanged>().expect("resource").0.clone();
        changed_h0.sort_unstable();
        let mut added_h1 = world.resource::<SeenAdded>().expect("resource").0.clone();
        added_h1.sort_unstable();
        RunReport {
            changed_h0,
            added_h1,
            total: world.resource::<Total>().expect("resource").0,
            spawned: world.resource::<Spawned>().expect("resource").0.clone(),
            exclusive_spawned: world.resource::<ExclusiveSpawned>().expect("resource").0,
        }
    }
}

/// A command the model replays at the sync point.
enum Deferred {
    Insert(Entity, usize, u32),
    Remove(Entity, usize),
    Despawn(Entity),
    /// The spawn of `tag_d1`, whose handle the backends report.
    Spawn(u32),
}

/// The model of the schedule: which systems are enabled and their change readers.
#[derive(Clone, Debug)]
pub struct ScheduleModel {
    /// Whether each system runs.
    pub enabled: [bool; SYSTEMS],
    changed_reader: usize,
    added_reader: usize,
    /// The resources as the model expects them.
    report: RunReport,
}

impl ScheduleModel {
    /// The model of a new schedule; registers its two change readers with `model`.
    pub fn new(model: &mut Model) -> ScheduleModel {
        ScheduleModel {
            enabled: [true; SYSTEMS],
            changed_reader: model.add_reader(&[(H0::SLOT, Kind::Changed)]),
            added_reader: model.add_reader(&[(H1::SLOT, Kind::Added)]),
            report: RunReport::default(),
        }
    }

    /// Runs the systems on the model; returns what the resources should hold, except the
    /// reserved handles, which `finish` takes from the backends.
    pub fn run(&mut self, model: &mut Model) -> PendingRun {
        model.flush();
        let mut deferred: Vec<Vec<Deferred>> = (0..SYSTEMS).map(|_| Vec::new()).collect();
        let entities: Vec<Entity> = model.rows.keys().copied().collect();
        let even_population = model.rows.len() % 2 == 0;
        for (system, queue) in deferred.iter_mut().enumerate() {
            if !self.enabled[system] || (system == 6 && !even_population) {
                continue;
            }
            match system {
                0 => run_write_h0(model, &entities),
                1 => {
                    let reader = &mut model.readers[self.changed_reader];
                    reader.begin_run();
                    let reader = &model.readers[self.changed_reader];
                    self.report.changed_h0 = entities
                        .iter()
                        .copied()
                        .filter(|&e| {
                            model.rows[&e][H0::SLOT].is_some()
                                && reader.passes(H0::SLOT, Kind::Changed, e)
                        })
                        .collect();
                    self.report.changed_h0.sort_unstable();
                }
                2 => self.run_tag_d1(model, &entities, queue),
                3 => run_write_b1(model, &entities, queue),
                4 => {
                    model.readers[self.added_reader].begin_run();
                    let reader = &model.readers[self.added_reader];
                    self.report.added_h1 = entities
                        .iter()
                        .filter_map(|&e| {
                            let h = model.rows[&e][H1::SLOT]?;
                            reader.passes(H1::SLOT, Kind::Added, e).then_some((e, h))
                        })
                        .collect();
                    self.report.added_h1.sort_unstable();
                }
                7 => {} // Exclusive: replayed by `finish`, after the sync point.
                5 => {
                    for &e in &entities {
                        let row = &model.rows[&e];
                        if row[A1::SLOT].is_some() && row[H1::SLOT].is_none() {
                            queue.push(Deferred::Insert(e, H1::SLOT, e.index()));
                        }
                    }
                }
                _ => {
                    self.report.total = entities
                        .iter()
                        .filter_map(|e| {
                            let row = &model.rows[e];
                            row[T0::SLOT].and(row[A0::SLOT])
                        })
                        .map(u64::from)
                        .sum();
                }
            }
        }
        PendingRun { deferred }
    }

    fn run_tag_d1(&mut self, model: &Model, entities: &[Entity], queue: &mut Vec<Deferred>) {
        self.report.spawned.clear();
        let mut count = 0u32;
        let mut sorted = entities.to_vec();
        sorted.sort_unstable();
        for &e in &sorted {
            let row = &model.rows[&e];
            let (Some(v), None) = (row[D1::SLOT], row[T1::SLOT]) else {
                continue;
            };
            count += 1;
            if v % 4 == 0 {
                queue.push(Deferred::Insert(e, T1::SLOT, 0));
            }
            if v % 7 == 1 {
                queue.push(Deferred::Despawn(e));
            }
        }
        if count % 5 == 2 {
            queue.push(Deferred::Spawn(count));
        }
    }

    /// Applies the run's commands (the sync point), with the handles the backends reserved,
    /// then replays the exclusive system, which spawned `exclusive` on the backends; returns
    /// the resources the model expects, or what the backends did that the model did not
    /// expect.
    pub fn finish(
        &mut self,
        model: &mut Model,
        run: PendingRun,
        spawned: &[Entity],
        exclusive: Option<Entity>,
    ) -> Result<RunReport, String> {
        let mut spawned_iter = spawned.iter();
        for queue in run.deferred {
            model.flush();
            for command in queue {
                match command {
                    Deferred::Insert(e, slot, v) => {
                        let _ = model.insert(e, slot, v);
                    }
                    Deferred::Remove(e, slot) => {
                        let _ = model.remove(e, slot);
                    }
                    Deferred::Despawn(e) => {
                        model.despawn(e);
                    }
                    Deferred::Spawn(count) => {
                        let Some(&e) = spawned_iter.next() else {
                            continue;
                        };
                        // Reserved during the run, live (empty) since the flush above.
                        model.reserved.push(e);
                        model.flush();
                        let _ = model.insert(e, D1::SLOT, D1::make(count).value());
                        let _ = model.insert(e, A0::SLOT, A0::make(count).value());
                    }
                }
            }
        }
        if self.enabled[7] {
            self.report.exclusive_spawned = run_edit_exclusively(model, exclusive)?;
        }
        let mut report = self.report.clone();
        if self.enabled[2] {
            report.spawned = spawned.to_vec();
        }
        self.report.spawned = report.spawned.clone();
        Ok(report)
    }
}

/// A model run waiting for its sync point.
pub struct PendingRun {
    deferred: Vec<Vec<Deferred>>,
}

impl PendingRun {
    /// How many entities the run reserved (what the backends' `Spawned` must hold).
    pub fn spawns(&self) -> usize {
        self.deferred
            .iter()
            .flatten()
            .filter(|c| matches!(c, Deferred::Spawn(_)))
            .count()
    }
}

/// The model of `edit_exclusively`; `spawned` is the handle the backends' run spawned.
fn run_edit_exclusively(
    model: &mut Model,
    spawned: Option<Entity>,
) -> Result<Option<Entity>, String> {
    let mut found: Vec<(Entity, u32)> = model
        .rows
        .iter()
        .filter_map(|(e, row)| Some((*e, row[D0::SLOT]?)).filter(|_| row[T1::SLOT].is_some()))
        .collect();
    found.sort_unstable();
    for &(entity, v) in &found {
        if v % 3 == 0 {
            model.remove(entity, T1::SLOT).expect("found with T1");
        } else if v % 5 == 1 {
            model.despawn(entity);
        }
    }
    let expected = found.len() % 2 == 1;
    match (expected, spawned) {
        (false, None) => Ok(None),
        (true, Some(entity)) => {
            let mut row = [None; crate::components::ROW_LEN];
            row[H0::SLOT] = Some(H0::make(found.len() as u32).value());
            row[B1::SLOT] = Some(B1::make(7).value());
            model.spawn(entity, row);
            Ok(Some(entity))
        }
        (expected, got) => Err(format!(
            "edit_exclusively: expected a spawn: {expected}, the backend spawned {got:?}"
        )),
    }
}

fn run_write_h0(model: &mut Model, entities: &[Entity]) {
    for &e in entities {
        let row = model.rows.get_mut(&e).expect("live");
        if let (Some(h), Some(a)) = (row[H0::SLOT], row[A0::SLOT]) {
            if a % 3 == 0 {
                row[H0::SLOT] = Some(written::<H0>(h));
                model.changed(H0::SLOT, e);
            }
        }
    }
}

fn run_write_b1(model: &mut Model, entities: &[Entity], queue: &mut Vec<Deferred>) {
    for &e in entities {
        let row = model.rows.get_mut(&e).expect("live");
        if let Some(b) = row[B1::SLOT] {
            let b = written::<B1>(b);
            row[B1::SLOT] = Some(b);
            if row[A1::SLOT].is_some() && b % 3 == 0 {
                queue.push(Deferred::Remove(e, A1::SLOT));
            }
        }
    }
}
