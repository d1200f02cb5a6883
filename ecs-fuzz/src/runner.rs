//! [`run`]: applies a sequence of [`Op`]s to every backend and the model, comparing every
//! answer, and reports the first disagreement (or panic) as a [`Mismatch`].
//!
//! This file holds the runner's state and the entity-level operations (spawn, despawn,
//! insert, remove, get, commands); queries, readers, the schedule and whole-world
//! comparisons are in `checks.rs`.

use std::borrow::Cow;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::{Commands, EcsError, Entity, StorageKind};

use crate::bundles::{FuzzBundle, GroupModel, GROUPS};
use crate::components::{
    canonical, dynamic_bytes, ghost, tracked, PoolComponent, D, DYNAMIC, D_TABLE, POOL, POOL_NAMES,
};
use crate::lanes::{dynamic_descriptor, Lanes, BACKENDS};
use crate::model::Model;
use crate::op::{Command, Op};
use crate::readers::{visit_reader_types, READERS};
use crate::systems::ScheduleModel;
use crate::{on_lanes, with_bundle, with_group, with_pool_type, with_untracked_type};

/// Most live (or reserved) entities; spawning operations do nothing beyond it, so worlds
/// stay small and operations fast.
pub const MAX_LIVE: usize = 256;

/// Most live entities in a [`Config::wide`] run: past one sparse-array page (1,024 indices).
pub const MAX_LIVE_WIDE: usize = 2_048;

/// Handles kept as targets; past this the oldest half is forgotten.
const MAX_HANDLES: usize = 2048;

/// A disagreement between a backend and the model (or a panic), at one operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the operation in the sequence.
    pub index: usize,
    /// The operation.
    pub op: Op,
    /// The backend that disagreed or panicked (`"model"` for a check outside any backend).
    pub backend: &'static str,
    /// What was expected and what was seen, or the panic message.
    pub detail: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "op #{} {:?} on backend {}: {}",
            self.index, self.op, self.backend, self.detail
        )
    }
}

impl std::error::Error for Mismatch {}

/// What one operation found wrong: the backend and the detail.
pub(crate) type Failure = (&'static str, String);

/// How the runner runs a sequence.
///
/// A known bug that every backend shares but that is not fixed yet would fail every long run;
/// the place for a switch tolerating it (documented, with its regression test named) is
/// here, so fixing the bug means deleting the switch. There is none at the moment: the one
/// the fuzzer needed (change logs trimming a reader's latest window under `get`) was fixed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Lets worlds grow to [`MAX_LIVE_WIDE`] entities and makes batches 16 times larger, so
    /// entity indices cross storage page boundaries (slower: queries visit more entities).
    pub wide: bool,
    /// Gives the pool's `D0` and `D1` counting lifecycle hooks (see [`crate::hooks`]), so
    /// every structural operation takes the world's reacting path.
    pub hooks: bool,
}

impl Config {
    /// The configuration of a seeded episode: `base`, made wide for one seed in eight, with
    /// hooks for one in four.
    pub fn for_episode(base: Config, episode_seed: u64) -> Config {
        Config {
            wide: base.wide || episode_seed % 8 == 0,
            hooks: base.hooks || episode_seed / 8 % 4 == 1,
        }
    }
}

/// Runs `ops` on a fresh world of every backend and on the model, comparing every answer,
/// then compares the whole worlds (small worlds: [`Config::default`]).
///
/// # Errors
/// The first [`Mismatch`]: a backend answering differently from the model, or a panic
/// inside an operation (reported with the backend that was running).
pub fn run(ops: &[Op]) -> Result<(), Mismatch> {
    run_with(ops, Config::default())
}

/// [`run`] with the settings of `config`.
///
/// # Errors
/// As for [`run`].
pub fn run_with(ops: &[Op], config: Config) -> Result<(), Mismatch> {
    let mut runner = Runner::new(config);
    let mut index = 0;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        for (i, op) in ops.iter().enumerate() {
            index = i;
            runner.step(op)?;
        }
        index = ops.len();
        runner.compare_worlds()?;
        runner.replay_trace()
    }));
    let op = |index: usize| ops.get(index).cloned().unwrap_or(Op::Compare);
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err((backend, detail))) => Err(Mismatch {
            index,
            op: op(index),
            backend,
            detail,
        }),
        Err(payload) => {
            let backend = runner.current;
            // A panic may have left a world half-changed: do not run its destructors.
            std::mem::forget(runner);
            Err(Mismatch {
                index,
                op: op(index),
                backend,
                detail: format!("panicked: {}", panic_message(payload.as_ref())),
            })
        }
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a non-string panic payload)".to_owned()
    }
}

/// A command the model replays at the next `ApplyCommands`.
pub(crate) enum ModelCommand {
    /// A reserved entity's bundle, or a bundle inserted by `Commands::insert`: each
    /// component inserted (or replaced) if the entity is live.
    Spawn(Entity, crate::components::Row),
    Insert(Entity, usize, u32),
    Remove(Entity, usize),
    Despawn(Entity),
}

/// The state of one fuzzed run: the five lanes, the model and the bookkeeping between them.
pub(crate) struct Runner {
    pub(crate) config: Config,
    pub(crate) lanes: Lanes,
    pub(crate) model: Model,
    /// Every handle handed out (live, stale or reserved), the targets of operations.
    pub(crate) handles: Vec<Entity>,
    /// The backend running right now (for panics).
    pub(crate) current: &'static str,
    sparse_groups: GroupModel,
    hybrid_groups: GroupModel,
    /// Which pool slots the hybrid keeps in sparse sets now (declared, or moved there).
    hybrid_sparse: [bool; POOL],
    /// Which run-time components the hybrid keeps in sparse sets now.
    hybrid_dynamic_sparse: [bool; DYNAMIC],
    pending: Vec<ModelCommand>,
    /// Model reader of each persistent reader.
    pub(crate) readers: Vec<usize>,
    /// Model reader of each query shape with change filters (`World::query` keeps a state
    /// per query type), made on first use.
    pub(crate) shape_readers: std::collections::HashMap<usize, usize>,
    pub(crate) schedule: ScheduleModel,
}

impl Runner {
    pub(crate) fn new(config: Config) -> Runner {
        let mut model = Model::default();
        let readers = (0..READERS)
            .map(|i| {
                let watches = visit_reader_types(i, crate::checks::Watches);
                model.add_reader(&watches)
            })
            .collect();
        let schedule = ScheduleModel::new(&mut model);
        let mut lanes = Lanes::default();
        if config.hooks {
            crate::hooks::install(&mut lanes.reference.world);
            crate::hooks::install(&mut lanes.sparse.world);
            crate::hooks::install(&mut lanes.archetype.world);
            crate::hooks::install(&mut lanes.hybrid.world);
            crate::hooks::install(&mut lanes.array.world);
        }
        lanes
            .reference
            .world
            .start_trace()
            .expect("the reference lane's storage records");
        Runner {
            config,
            lanes,
            model,
            handles: Vec::new(),
            current: "model",
            sparse_groups: GroupModel::default(),
            hybrid_groups: GroupModel::default(),
            hybrid_sparse: std::array::from_fn(|slot| slot % 2 == 1),
            hybrid_dynamic_sparse: [false, true],
            pending: Vec::new(),
            readers,
            shape_readers: std::collections::HashMap::new(),
            schedule,
        }
    }

    /// Replays the reference lane's trace of the run on two other backends: each replay must
    /// do what the run did (every query the rows it took, every look-up what it found).
    pub(crate) fn replay_trace(&mut self) -> Result<(), Failure> {
        use ecs_core::trace::Replay;
        let trace = self
            .lanes
            .reference
            .world
            .finish_trace()
            .map_err(|e| (crate::lanes::BACKENDS[0], format!("trace: {e}")))?;
        fn check<S: ecs_core::Storage>(
            trace: &ecs_core::trace::Trace,
            name: &'static str,
        ) -> Result<(), Failure> {
            let kinds = Replay::<S>::declared_kinds(trace);
            let mut replay = Replay::<S>::new(trace, &kinds).map_err(|e| (name, e))?;
            replay.run(&mut |_| {});
            match replay.divergences().first() {
                None => Ok(()),
                Some(d) => Err((
                    name,
                    format!(
                        "the run's trace replays unfaithfully ({} ops diverged; op {}: {})",
                        replay.divergence_count(),
                        d.op,
                        d.what
                    ),
                )),
            }
        }
        check::<ecs_sparse::SparseStorage>(&trace, crate::lanes::BACKENDS[1])?;
        check::<ecs_archetype::ArchetypeStorage>(&trace, crate::lanes::BACKENDS[2])
    }

    /// Applies one operation everywhere and checks every answer.
    pub(crate) fn step(&mut self, op: &Op) -> Result<(), Failure> {
        match *op {
            Op::Spawn { bundle, seed } => self.spawn(bundle, seed),
            Op::SpawnBatch {
                bundle,
                count,
                seed,
            } => self.spawn_batch(bundle, count, seed),
            Op::Despawn { target } => self.despawn(target),
            Op::Insert {
                target,
                component,
                value,
            } => self.insert(target, component, value),
            Op::Remove { target, component } => self.remove(target, component),
            Op::Get { target, component } => self.get(target, component),
            Op::GetMut {
                target,
                component,
                how,
            } => self.get_mut(target, component, how),
            Op::Query { shape, style } => self.query(shape, style),
            Op::QueryGet {
                shape,
                target,
                style,
            } => self.query_get(shape, target, style),
            Op::Hidden {
                targets,
                shape,
                style,
            } => self.hidden(targets, shape, style),
            Op::Purge { component } => self.purge(component),
            Op::Clear => self.clear(),
            Op::Group { group } => self.group(group),
            Op::Queue(ref command) => self.queue(command),
            Op::ApplyCommands => self.apply_commands(),
            Op::RunReader { reader } => self.run_reader(reader),
            Op::ReaderGet { reader, target } => self.reader_get(reader, target),
            Op::RunSchedule { parallel, toggle } => self.run_schedule(parallel, toggle),
            Op::Compare => self.compare_worlds(),
            Op::Dynamic {
                target,
                which,
                action,
                value,
            } => self.dynamic(target, which, action, value),
            Op::Link { child, parent, how } => self.link(child, parent, how),
            Op::TamperLinks { target, how } => self.tamper(target, how),
            Op::Require { target, how, value } => self.require(target, how, value),
        }
    }

    /// Checks that every backend answered `want`.
    pub(crate) fn agree<T: PartialEq + fmt::Debug>(
        &self,
        what: &str,
        want: &T,
        got: [T; 5],
    ) -> Result<(), Failure> {
        for (backend, got) in BACKENDS.iter().zip(got) {
            if got != *want {
                return Err((backend, format!("{what}: expected {want:?}, got {got:?}")));
            }
        }
        Ok(())
    }

    /// The handle operation target `t` names: one handed out before (live, stale or
    /// reserved), or a never-allocated one while there is none.
    pub(crate) fn target(&self, t: u16) -> Entity {
        if self.handles.is_empty() {
            return Entity::new(4_096 + u32::from(t), 1).expect("a valid handle");
        }
        self.handles[usize::from(t) % self.handles.len()]
    }

    pub(crate) fn remember_handle(&mut self, entity: Entity) {
        if self.handles.len() >= MAX_HANDLES {
            self.handles.drain(..MAX_HANDLES / 2);
        }
        self.handles.push(entity);
    }

    pub(crate) fn full(&self, extra: usize) -> bool {
        let cap = if self.config.wide {
            MAX_LIVE_WIDE
        } else {
            MAX_LIVE
        };
        self.model.rows.len() + self.model.reserved.len() + extra > cap
    }

    // Bundle 0 is the empty bundle: `make` returns `()` there.
    #[allow(clippy::unit_arg)]
    fn spawn(&mut self, bundle: u8, seed: u32) -> Result<(), Failure> {
        if self.full(1) {
            return Ok(());
        }
        self.model.flush();
        let (got, row) = with_bundle!(bundle, Bn => {
            let got = on_lanes!(self.lanes, self.current, lane => {
                lane.world.spawn(<Bn as FuzzBundle>::make(seed))
            });
            (got, <Bn as FuzzBundle>::row(seed))
        });
        let entity = got[0];
        self.agree("spawned handle", &entity, got)?;
        self.model.spawn(entity, row);
        self.remember_handle(entity);
        Ok(())
    }

    fn spawn_batch(&mut self, bundle: u8, count: u8, seed: u32) -> Result<(), Failure> {
        let n = (u32::from(count % 16) + 1) * if self.config.wide { 16 } else { 1 };
        if self.full(n as usize) {
            return Ok(());
        }
        self.model.flush();
        let (got, rows) = with_bundle!(bundle, Bn => {
            let got = on_lanes!(self.lanes, self.current, lane => {
                let batch = (0..n).map(|i| <Bn as FuzzBundle>::make(seed.wrapping_add(i)));
                lane.world.spawn_batch(batch).to_vec()
            });
            let rows: Vec<_> =
                (0..n).map(|i| <Bn as FuzzBundle>::row(seed.wrapping_add(i))).collect();
            (got, rows)
        });
        let entities = got[0].clone();
        self.agree("spawned batch", &entities, got)?;
        if entities.len() != rows.len() {
            return Err(("model", format!("batch of {n} spawned {entities:?}")));
        }
        for (entity, row) in entities.into_iter().zip(rows) {
            self.model.spawn(entity, row);
            self.remember_handle(entity);
        }
        Ok(())
    }

    fn despawn(&mut self, target: u16) -> Result<(), Failure> {
        let entity = self.target(target);
        self.model.flush();
        let want = match self.model.despawn(entity) {
            true => Ok(()),
            false => Err(EcsError::NoSuchEntity(entity)),
        };
        let got = on_lanes!(self.lanes, self.current, lane => lane.world.despawn(entity));
        self.agree("despawn", &want, got)
    }

    fn insert(&mut self, target: u16, component: u8, value: u32) -> Result<(), Failure> {
        let entity = self.target(target);
        let slot = stored_slot(component);
        self.model.flush();
        with_pool_type!(slot, T => {
            let want = self
                .model
                .insert(entity, slot, canonical::<T>(value))
                .map_err(|()| EcsError::NoSuchEntity(entity));
            let got = on_lanes!(self.lanes, self.current, lane => {
                lane.world.insert(entity, T::make(value)).map(|old| old.map(|t| t.value()))
            });
            self.agree("insert", &want, got)
        })
    }

    /// [`Op::Hidden`]: disable, query, enable; the model leaves the disabled entities out
    /// of its answers meanwhile.
    fn hidden(&mut self, targets: [u16; 2], shape: u16, style: u8) -> Result<(), Failure> {
        let entities = targets.map(|t| self.target(t));
        self.model.flush();
        let want: Vec<bool> = entities
            .iter()
            .map(|e| self.model.rows.contains_key(e))
            .collect();
        let got = on_lanes!(self.lanes, self.current, lane => {
            entities
                .iter()
                .map(|&e| lane.world.disable(e).is_ok() && lane.world.is_disabled(e))
                .collect::<Vec<bool>>()
        });
        self.agree("disable", &want, got)?;
        self.model.hidden = entities
            .into_iter()
            .filter(|e| self.model.rows.contains_key(e))
            .collect();
        let run = if style < 16 {
            self.query(shape, style)
        } else {
            self.query_get(shape, targets[0], style - 16)
        };
        self.model.hidden.clear();
        run?;
        let got = on_lanes!(self.lanes, self.current, lane => {
            entities
                .iter()
                .map(|&e| lane.world.enable(e).is_ok() && !lane.world.is_disabled(e))
                .collect::<Vec<bool>>()
        });
        self.agree("enable", &want, got)
    }

    fn remove(&mut self, target: u16, component: u8) -> Result<(), Failure> {
        let entity = self.target(target);
        let slot = usize::from(component) % POOL;
        self.model.flush();
        with_pool_type!(slot, T => {
            let want = self.model.remove(entity, slot).map_err(|stale| match stale {
                true => EcsError::NoSuchEntity(entity),
                false => EcsError::MissingComponent {
                    entity,
                    component: Cow::Borrowed(std::any::type_name::<T>()),
                },
            });
            let got = on_lanes!(self.lanes, self.current, lane => {
                lane.world.remove::<T>(entity).map(|t| t.value())
            });
            self.agree("remove", &want, got)
        })
    }

    fn get(&mut self, target: u16, component: u8) -> Result<(), Failure> {
        let entity = self.target(target);
        let slot = usize::from(component) % POOL;
        let alive = self.model.rows.contains_key(&entity);
        let value = self.model.get(entity, slot);
        let want = (value, value.is_some(), alive, self.model.rows.len());
        with_pool_type!(slot, T => {
            let got = on_lanes!(self.lanes, self.current, lane => {
                let w = &lane.world;
                (w.get::<T>(entity).map(T::value), w.has::<T>(entity), w.contains(entity), w.len())
            });
            self.agree("(get, has, contains, len)", &want, got)
        })
    }

    fn get_mut(&mut self, target: u16, component: u8, how: u8) -> Result<(), Failure> {
        let entity = self.target(target);
        let slot = usize::from(component) % POOL;
        let value = self.model.get(entity, slot);
        if tracked(slot) {
            return match slot % 2 {
                0 => self.get_mut_tracked::<crate::components::H0>(entity, value, how),
                _ => self.get_mut_tracked::<crate::components::H1>(entity, value, how),
            };
        }
        with_untracked_type!(slot, T => {
            if how % 2 == 1 {
                return self.get_mut_tracked::<T>(entity, value, how);
            }
            let want = value.map(crate::components::written::<T>);
            let got = on_lanes!(self.lanes, self.current, lane => {
                lane.world.get_mut::<T>(entity).map(|t| {
                    t.write();
                    t.value()
                })
            });
            if let Some(v) = want {
                self.model.rows.get_mut(&entity).expect("live")[slot] = Some(v);
            }
            self.agree("get_mut", &want, got)
        })
    }

    /// `get_mut_tracked`, then by `how / 2 % 4`: a write, `set_changed`, a write that
    /// bypasses detection, or a read through the guard.
    fn get_mut_tracked<T: PoolComponent>(
        &mut self,
        entity: Entity,
        value: Option<u32>,
        how: u8,
    ) -> Result<(), Failure> {
        let how = how / 2 % 4;
        let got = on_lanes!(self.lanes, self.current, lane => {
            lane.world.get_mut_tracked::<T>(entity).map(|mut t| {
                match how {
                    0 => t.write(),
                    1 => t.set_changed(),
                    2 => t.bypass_change_detection().write(),
                    _ => {}
                }
                t.value()
            })
        });
        let want = value.map(|v| match how {
            0 | 2 => crate::components::written::<T>(v),
            _ => v,
        });
        if let Some(v) = want {
            self.model.rows.get_mut(&entity).expect("live")[T::SLOT] = Some(v);
            if how <= 1 {
                self.model.changed(T::SLOT, entity);
            }
        }
        self.agree("get_mut_tracked", &want, got)
    }

    fn purge(&mut self, component: u8) -> Result<(), Failure> {
        let slot = usize::from(component) % POOL;
        let mut want: Vec<Entity> = self
            .model
            .rows
            .iter()
            .filter(|(_, row)| row[slot].is_some())
            .map(|(e, _)| *e)
            .collect();
        want.sort_unstable();
        if !want.is_empty() {
            self.model.flush();
        }
        for e in &want {
            self.model.remove(*e, slot).expect("has it");
        }
        with_pool_type!(slot, T => {
            let got = on_lanes!(self.lanes, self.current, lane => {
                let mut victims: Vec<Entity> = lane
                    .world
                    .query_filtered::<Entity, ecs_core::With<T>>()
                    .collect();
                victims.sort_unstable();
                for &e in &victims {
                    let _ = lane.world.remove::<T>(e);
                }
                victims
            });
            self.agree("purge", &want, got)
        })
    }

    fn clear(&mut self) -> Result<(), Failure> {
        self.model.clear();
        let got = on_lanes!(self.lanes, self.current, lane => {
            lane.world.clear();
            lane.world.len()
        });
        self.agree("len after clear", &0, got)
    }

    fn group(&mut self, group: u8) -> Result<(), Failure> {
        let slots = GROUPS[usize::from(group) % GROUPS.len()];
        self.model.flush();
        let want = [
            false,
            self.sparse_groups.request(slots, |_| false),
            false,
            self.hybrid_groups.request(slots, |s| {
                !self.hybrid_sparse.get(s).copied().unwrap_or(false)
            }),
        ];
        let got = with_group!(group, G => {
            on_lanes!(self.lanes, self.current, lane => match lane.world.group::<G>() {
                Ok(()) => Ok(true),
                Err(EcsError::Group { .. }) => Ok(false),
                Err(other) => Err(other),
            })
        });
        for ((backend, want), got) in BACKENDS.iter().zip(want).zip(got) {
            if got != Ok(want) {
                return Err((
                    backend,
                    format!(
                        "group {:?}: expected accepted={want}, got {got:?}",
                        slots.iter().map(|&s| POOL_NAMES[s]).collect::<Vec<_>>()
                    ),
                ));
            }
        }
        Ok(())
    }

    // Bundle 0 is the empty bundle: `make` returns `()` there.
    #[allow(clippy::unit_arg)]
    fn dynamic(&mut self, target: u16, which: u8, action: u8, value: u32) -> Result<(), Failure> {
        let entity = self.target(target);
        let which = usize::from(which % 2);
        let slot = POOL + which;
        let name = dynamic_descriptor(which).name;
        if action % 4 == 3 {
            return self.move_storage(target, value);
        }
        match action % 4 {
            0 => {
                self.model.flush();
                let want = self
                    .model
                    .insert(entity, slot, value)
                    .map(|_| ())
                    .map_err(|()| EcsError::NoSuchEntity(entity));
                let bytes = dynamic_bytes(which, value);
                let got = on_lanes!(self.lanes, self.current, lane => {
                    lane.world.insert_bytes(entity, lane.dynamic[which], &bytes)
                });
                self.agree("insert_bytes", &want, got)
            }
            1 => {
                self.model.flush();
                let want =
                    self.model
                        .remove(entity, slot)
                        .map(|_| ())
                        .map_err(|stale| match stale {
                            true => EcsError::NoSuchEntity(entity),
                            false => EcsError::MissingComponent {
                                entity,
                                component: name.clone(),
                            },
                        });
                let got = on_lanes!(self.lanes, self.current, lane => {
                    lane.world.remove_by_id(entity, lane.dynamic[which])
                });
                self.agree("remove_by_id", &want, got)
            }
            _ => {
                let want = self
                    .model
                    .get(entity, slot)
                    .map(|v| dynamic_bytes(which, v));
                let got = on_lanes!(self.lanes, self.current, lane => {
                    lane.world.get_bytes(entity, lane.dynamic[which]).map(<[u8]>::to_vec)
                });
                self.agree("get_bytes", &want, got)
            }
        }
    }

    /// `World::set_storage_by_id` of a run-time component or a `D` (the pool's movable
    /// type; `pick % 4` chooses) to the kind `to % 2` names. The hybrid moves it (unless a
    /// group owns it and the move is to the tables); the other backends keep it in their
    /// one kind of storage and refuse any other. No answer changes: the worlds are compared
    /// with the model as always by the operations that follow.
    fn move_storage(&mut self, pick: u16, to: u32) -> Result<(), Failure> {
        self.model.flush();
        let kind = match to % 2 {
            0 => StorageKind::Table,
            _ => StorageKind::Sparse,
        };
        let pick = usize::from(pick % 4);
        let slot = D_TABLE + (pick & 1);
        let hybrid_was = match pick {
            0 | 1 => self.hybrid_dynamic_sparse[pick],
            _ => self.hybrid_sparse[slot],
        };
        let hybrid_was = if hybrid_was {
            StorageKind::Sparse
        } else {
            StorageKind::Table
        };
        let grouped = pick >= 2 && self.hybrid_groups.owns(slot);
        let hybrid_moves = hybrid_was != kind && !(grouped && kind == StorageKind::Table);
        let outcome = |native: StorageKind, moves: bool| -> (bool, Option<StorageKind>) {
            match native == kind || moves {
                true => (true, Some(kind)),
                false => (false, Some(native)),
            }
        };
        let want = [
            outcome(StorageKind::Table, false),
            outcome(StorageKind::Sparse, false),
            outcome(StorageKind::Table, false),
            outcome(hybrid_was, hybrid_moves),
            outcome(StorageKind::Sparse, false),
        ];
        let got = on_lanes!(self.lanes, self.current, lane => {
            let id = match pick {
                0 | 1 => lane.dynamic[pick],
                2 => lane.world.register_component::<D<false>>(),
                _ => lane.world.register_component::<D<true>>(),
            };
            let result = match lane.world.set_storage_by_id(id, kind) {
                Ok(()) => Ok(true),
                Err(EcsError::Storage { .. }) => Ok(false),
                Err(other) => Err(other),
            };
            (result, lane.world.storage_kind_by_id(id))
        });
        for ((backend, (ok, kind_after)), got) in BACKENDS.iter().zip(want).zip(got) {
            if got != (Ok(ok), kind_after) {
                return Err((
                    backend,
                    format!(
                        "set_storage (pick {pick}) to {kind:?}: expected moved/kept={ok} and \
                         {kind_after:?}, got {got:?}"
                    ),
                ));
            }
        }
        if hybrid_moves {
            match pick {
                0 | 1 => self.hybrid_dynamic_sparse[pick] = kind == StorageKind::Sparse,
                _ => self.hybrid_sparse[slot] = kind == StorageKind::Sparse,
            }
        }
        Ok(())
    }

    // Bundle 0 is the empty bundle: `make` returns `()` there.
    #[allow(clippy::unit_arg)]
    fn queue(&mut self, command: &Command) -> Result<(), Failure> {
        match *command {
            Command::Spawn { bundle, seed } => {
                if self.full(1) {
                    return Ok(());
                }
                let (got, row) = with_bundle!(bundle, Bn => {
                    let got = on_lanes!(self.lanes, self.current, lane => {
                        let mut commands = Commands::new(&mut lane.queue, &lane.world);
                        commands.spawn(<Bn as FuzzBundle>::make(seed))
                    });
                    (got, <Bn as FuzzBundle>::row(seed))
                });
                let entity = got[0];
                self.agree("reserved handle", &entity, got)?;
                self.model.reserved.push(entity);
                self.pending.push(ModelCommand::Spawn(entity, row));
                self.remember_handle(entity);
            }
            Command::Insert {
                target,
                component,
                value,
            } => {
                let entity = self.target(target);
                let slot = stored_slot(component);
                with_pool_type!(slot, T => {
                    on_lanes!(self.lanes, self.current, lane => {
                        Commands::new(&mut lane.queue, &lane.world).insert(entity, (T::make(value),))
                    });
                    self.pending.push(ModelCommand::Insert(entity, slot, canonical::<T>(value)));
                });
            }
            Command::Remove { target, component } => {
                let entity = self.target(target);
                let slot = usize::from(component) % POOL;
                with_pool_type!(slot, T => {
                    on_lanes!(self.lanes, self.current, lane => {
                        Commands::new(&mut lane.queue, &lane.world).remove::<T>(entity)
                    });
                });
                self.pending.push(ModelCommand::Remove(entity, slot));
            }
            Command::InsertBundle {
                target,
                bundle,
                seed,
            } => {
                let entity = self.target(target);
                let row = with_bundle!(bundle, Bn => {
                    on_lanes!(self.lanes, self.current, lane => {
                        Commands::new(&mut lane.queue, &lane.world)
                            .insert(entity, <Bn as FuzzBundle>::make(seed))
                    });
                    <Bn as FuzzBundle>::row(seed)
                });
                // Applied as the spawn's values are: each component inserted or replaced.
                self.pending.push(ModelCommand::Spawn(entity, row));
            }
            Command::Despawn { target } => {
                let entity = self.target(target);
                on_lanes!(self.lanes, self.current, lane => {
                    Commands::new(&mut lane.queue, &lane.world).despawn(entity)
                });
                self.pending.push(ModelCommand::Despawn(entity));
            }
        }
        let want = self.pending.len();
        let got = on_lanes!(self.lanes, self.current, lane => lane.queue.len());
        self.agree("queued commands", &want, got)
    }

    fn apply_commands(&mut self) -> Result<(), Failure> {
        self.model.flush();
        for command in std::mem::take(&mut self.pending) {
            match command {
                ModelCommand::Spawn(entity, row) => {
                    for (slot, value) in row.iter().enumerate() {
                        if let Some(v) = value {
                            let _ = self.model.insert(entity, slot, *v);
                        }
                    }
                }
                ModelCommand::Insert(entity, slot, v) => {
                    let _ = self.model.insert(entity, slot, v);
                }
                ModelCommand::Remove(entity, slot) => {
                    let _ = self.model.remove(entity, slot);
                }
                ModelCommand::Despawn(entity) => {
                    self.model.despawn(entity);
                }
            }
        }
        let want = self.model.rows.len();
        let got = on_lanes!(self.lanes, self.current, lane => {
            lane.world.apply(&mut lane.queue);
            lane.world.len()
        });
        self.agree("len after apply", &want, got)
    }
}

/// The pool slot operation component `c` names among the stored types (a ghost number is
/// mapped onto a stored type: ghosts are never stored).
fn stored_slot(c: u8) -> usize {
    let slot = usize::from(c) % POOL;
    if ghost(slot) {
        slot - 10
    } else {
        slot
    }
}
