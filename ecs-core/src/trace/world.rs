//! The world's side of recording: starting and finishing a trace, frames, and what only
//! the world sees (the program's look-ups and query runs).
//!
//! Every hook is `if S::TRACED { .. }`: for a plain storage the constant is false and the
//! hook compiles to nothing.

use super::format::{Op, QueryShape, SlotAccess, Trace, TraceChange, TraceFilter, TraceSlot};
use super::recorder::{GetSlot, Recorder, State};
use crate::change::ChangeRun;
use crate::component::{ComponentId, Components};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::query::Access;
use crate::query::DynFilter;
use crate::storage::{QueryDescriptor, SlotRole, Storage};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::world::{World, WorldView};

impl<S: Storage> World<S> {
    /// Starts recording a trace of what the program does to this world (see
    /// [`crate::trace`]). The entities already in the world enter the trace first, as
    /// spawns of their current component sets, so the trace replays on its own.
    /// Recording again starts a fresh trace.
    ///
    /// # Errors
    /// [`EcsError::Trace`] when the world's storage cannot record: use
    /// [`Traced<S>`](super::Traced) (the `ecs` facade's `trace` feature).
    pub fn start_trace(&mut self) -> Result<(), EcsError> {
        if self.storage().recorder().is_none() {
            return Err(not_traced::<S>());
        }
        let sets = self.current_sets();
        let (storage, components) = self.storage_and_components();
        let recorder = storage.recorder_mut().expect("checked above");
        recorder.start();
        recorder.with_mut(|state| {
            let mut run: Option<(Vec<ComponentId>, u32)> = None;
            let flush = |state: &mut State, run: &mut Option<(Vec<ComponentId>, u32)>| {
                if let Some((ids, count)) = run.take() {
                    let set = state.set(&ids, components);
                    state.push(Op::Spawn { set, count });
                }
            };
            for (entity, ids) in sets {
                state.spawned(entity);
                match &mut run {
                    Some((same, count)) if *same == ids => *count += 1,
                    _ => {
                        flush(state, &mut run);
                        run = Some((ids, 1));
                    }
                }
            }
            flush(state, &mut run);
        });
        // Read the change logs from now on: marks before this are not the trace's.
        let storage = self.storage();
        if let Some(recorder) = storage.recorder() {
            recorder.with(|state| {
                state.record_changes(self.changes(), self.components(), |_, _| false)
            });
        }
        Ok(())
    }

    /// Stops recording and returns the trace.
    ///
    /// # Errors
    /// [`EcsError::Trace`] when no trace is being recorded.
    pub fn finish_trace(&mut self) -> Result<Trace, EcsError> {
        match self
            .storage_mut_for_trace()
            .and_then(|r| r.is_active().then_some(r))
        {
            Some(recorder) => Ok(recorder.finish()),
            None => Err(EcsError::Trace {
                reason: "no trace is being recorded (call `start_trace` first)".into(),
            }),
        }
    }

    /// Whether a trace is being recorded.
    #[inline]
    pub fn is_tracing(&self) -> bool {
        S::TRACED && self.storage().recorder().is_some_and(Recorder::is_active)
    }

    /// Marks the end of a frame in the trace being recorded (a schedule run marks its own;
    /// a program without a schedule calls this once per frame). Does nothing when not
    /// recording.
    pub fn trace_frame(&mut self) {
        if S::TRACED {
            if let Some(recorder) = self.storage_mut_for_trace() {
                recorder.with_mut(|state| state.push(Op::Frame));
            }
        }
    }

    /// Records the program's request to align component `id` with the tables.
    #[inline(never)]
    pub(crate) fn trace_align(&mut self, id: ComponentId) {
        let (storage, components) = self.storage_and_components();
        if let Some(recorder) = storage.recorder_mut() {
            recorder.with_mut(|state| {
                let component = state.component(id, components);
                state.push(Op::Align { component });
            });
        }
    }

    /// Records that the ops that follow come from system `name` (`None`: from outside any
    /// system), `slot` keeping its index for the next time (see
    /// [`State::enter_system`](super::recorder::State::enter_system)). What the schedule
    /// calls around each system while recording: through `&mut`, so without a lock.
    #[cfg(feature = "schedule")]
    pub(crate) fn trace_system(&mut self, name: Option<(&str, &mut u64)>) {
        if S::TRACED {
            if let Some(recorder) = self.storage_mut_for_trace() {
                recorder.with_mut(|state| state.enter_system(name));
            }
        }
    }

    /// Records a look-up of `entity`'s `T` by the program. Out of line, so the look-ups
    /// that call it (under `if S::TRACED`) keep their size for the inliner.
    #[inline(never)]
    pub(crate) fn trace_get_of<T: crate::component::Component>(&self, entity: Entity, write: bool) {
        let id = self.components().id::<T>();
        let found = id.is_some_and(|id| self.storage().contains(entity, id));
        trace_get(self.view(), entity, id, write, found);
    }

    /// Records a look-up of `entity`'s component `id` by the program.
    #[inline(never)]
    pub(crate) fn trace_get_by_id(&self, entity: Entity, id: ComponentId, write: bool) {
        let found = self.storage().contains(entity, id);
        trace_get(self.view(), entity, Some(id), write, found);
    }

    /// Records a look-up of `entity`'s instance `name` of `T` by the program.
    #[inline(never)]
    pub(crate) fn trace_get_named<T: crate::component::Component>(
        &self,
        entity: Entity,
        name: &str,
        write: bool,
    ) {
        let components = self.components();
        let id = components
            .id::<T>()
            .and_then(|of| components.instance(of, name));
        let found = id.is_some_and(|id| self.storage().contains(entity, id));
        trace_get(self.view(), entity, id, write, found);
    }

    /// Every live entity with the components it holds, in the allocator's order.
    fn current_sets(&self) -> Vec<(Entity, Vec<ComponentId>)> {
        let ids: Vec<ComponentId> = self.components().iter().map(|info| info.id()).collect();
        self.entities()
            .alive()
            .iter()
            .map(|&e| {
                let held = ids
                    .iter()
                    .copied()
                    .filter(|&id| self.storage().contains(e, id))
                    .collect();
                (e, held)
            })
            .collect()
    }

    fn storage_mut_for_trace(&mut self) -> Option<&mut Recorder> {
        self.storage_and_components().0.recorder_mut()
    }
}

fn not_traced<S: Storage>() -> EcsError {
    EcsError::Trace {
        reason: format!(
            "the {} storage does not record traces: build the world on `Traced<{}>` (the `ecs` \
             facade's `trace` feature)",
            S::NAME,
            std::any::type_name::<S>()
        ),
    }
}

/// [`World::trace_get`] on the parts of a world (what queries' and entity references'
/// look-ups hold).
#[inline(never)]
pub(crate) fn trace_get<S: Storage>(
    world: WorldView<'_, S>,
    entity: Entity,
    id: Option<ComponentId>,
    write: bool,
    found: bool,
) {
    let Some(recorder) = world.storage().recorder() else {
        return;
    };
    // A type no entity ever held is not in the registry: nothing of it can be found.
    let Some(id) = id else { return };
    recorder.with(|state| {
        let op = Op::Get {
            entity: state.ordinal(entity),
            component: state.component(id, world.components()),
            write,
            found,
        };
        state.push(op);
    });
}

/// Records a query's look-up of one entity (`QueryState::get`, a view's `get`) that could
/// not be buffered (see
/// [`Recorder::buffer_query_get`]): a look-up of each component it fetches. The state's
/// `run` keeps where the recording remembers which components those are.
#[inline(never)]
pub(crate) fn trace_query_get<S: Storage>(
    world: WorldView<'_, S>,
    descriptor: &QueryDescriptor,
    access: &Access,
    run: &ChangeRun,
    entity: Entity,
) {
    let Some(recorder) = world.storage().recorder() else {
        return;
    };
    // One lock for every component it fetches.
    recorder.with(|state| {
        let memo = state.memo(run.trace_memo());
        let slots = |state: &mut State| {
            descriptor
                .slots()
                .iter()
                .filter_map(|slot| {
                    let write = access.writes().contains(&slot.component);
                    let read = write || access.reads().contains(&slot.component);
                    read.then(|| GetSlot {
                        id: slot.component,
                        component: state.component(slot.component, world.components()),
                        write,
                        required: slot.role == SlotRole::Required,
                    })
                })
                .collect()
        };
        state.query_get(memo, entity, slots, |id| {
            world.storage().contains(entity, id)
        });
        let buffered = state.memo_gets_required(memo);
        state.set_buffered(run.trace_memo(), buffered);
    });
}

/// The items a program takes from one query run, counted as it takes them. The recorder
/// keeps it (boxed, so it stays put) and writes the run's op once the world is next
/// borrowed mutably, by which time the run is over.
pub(crate) struct Tally {
    pub(crate) shape: u32,
    state: u32,
    repeat: bool,
    rows: AtomicU64,
    complete: AtomicBool,
}

impl Tally {
    pub(crate) fn new(shape: u32, state: u32, repeat: bool) -> Tally {
        Tally {
            shape,
            state,
            repeat,
            rows: AtomicU64::new(0),
            complete: AtomicBool::new(false),
        }
    }

    /// Counts one `next`: an item taken, or the end of the run reached.
    #[inline]
    pub(crate) fn took(&self, item: bool) {
        // One iterator counts into a tally, on one thread (a recorded `par_for_each` runs
        // sequentially): a plain load and store, not a locked add.
        match item {
            true => self
                .rows
                .store(self.rows.load(Ordering::Relaxed) + 1, Ordering::Relaxed),
            false => self.complete.store(true, Ordering::Relaxed),
        }
    }

    /// Counts `rows` items and the end of the run (a whole fold).
    #[inline]
    pub(crate) fn took_all(&self, rows: u64) {
        self.rows.fetch_add(rows, Ordering::Relaxed);
        self.complete.store(true, Ordering::Relaxed);
    }

    /// Whether the run reached its end.
    #[inline]
    pub(crate) fn is_complete(&self) -> bool {
        self.complete.load(Ordering::Relaxed)
    }

    /// The run's op, as counted so far.
    pub(crate) fn op(&self) -> Op {
        Op::Query {
            shape: self.shape,
            rows: self.rows.load(Ordering::Relaxed),
            complete: self.complete.load(Ordering::Relaxed),
            state: self.state,
            repeat: self.repeat,
        }
    }
}

/// A tally for a query run starting now, when `world` records: what the run's iterator
/// counts into (`None` when not recording).
#[inline(never)]
pub(crate) fn tally<'w, S: Storage>(
    world: WorldView<'w, S>,
    descriptor: &QueryDescriptor,
    access: &Access,
    run: &ChangeRun,
    conditions: impl FnOnce() -> Vec<DynFilter>,
) -> Option<&'w Tally> {
    let recorder = world.storage().recorder()?;
    if !recorder.is_active() {
        return None;
    }
    let mut tally = None;
    recorder.with(|state| {
        // A state's shape is built once a recording, not at every run.
        let memo = state.memo(run.trace_memo());
        let shape = match state.memo_shape(memo) {
            Some(shape) => shape,
            None => {
                let conditions = conditions();
                let shape = query_shape(state, world.components(), descriptor, access, &conditions);
                state.set_memo_shape(memo, shape);
                shape
            }
        };
        let (number, repeat) = match run.logs().is_empty() {
            true => (0, false),
            false => (state.query_state(memo), !run.take_began()),
        };
        tally = Some(state.open_query(shape, number, repeat));
    });
    // SAFETY: the tally is boxed in the recorder of the world borrowed for `'w`, and the
    // recorder frees open tallies only through `&mut` (the world borrowed mutably), which
    // cannot happen while that `'w` borrow lives; the pointer was taken from the box in
    // place, and boxes in the list are never moved out of it.
    tally.map(|t| unsafe { &*t })
}

/// Tells the recording of `world`, if any, that the query state whose change run is `run`
/// changed its descriptor (it added the slot leaving disabled entities out): its next run
/// records its shape again.
#[inline(never)]
pub(crate) fn reshape<S: Storage>(world: WorldView<'_, S>, run: &ChangeRun) {
    if let Some(recorder) = world.storage().recorder() {
        recorder.with(|state| {
            let memo = state.memo(run.trace_memo());
            state.forget_memo_shape(memo);
            // Its look-up slots are worked out again at its next look-up, through the lock.
            state.set_buffered(run.trace_memo(), false);
        });
    }
}

/// Records the entities the program marked changed since the last look (see
/// [`Op::Changed`]), when `world` records: at the start of each run of a query with change
/// filters, whose window they belong to.
#[inline(never)]
pub(crate) fn record_changes<S: Storage>(world: WorldView<'_, S>) {
    if let Some(recorder) = world.storage().recorder() {
        let storage = world.storage();
        recorder.with(|state| {
            state.record_changes(world.changes(), world.components(), |e, id| {
                storage.contains(e, id)
            })
        });
    }
}

/// The slot that carries `component`'s access when a query names it more than once
/// (`(&mut Hp, Changed<Hp>)`, `(&Pos, Or<(Changed<Pos>, ..)>)`): its first required slot,
/// else its first optional one. The others are filters, so a replay fetches it once.
fn fetching_slot(slots: &[crate::storage::QuerySlot], component: ComponentId) -> usize {
    let of = |role: SlotRole| {
        slots
            .iter()
            .position(|s| s.component == component && s.role == role)
    };
    of(SlotRole::Required)
        .or_else(|| of(SlotRole::Optional))
        .unwrap_or(usize::MAX)
}

/// The trace's shape of a query: each slot's component, role and access, and its filter.
fn query_shape(
    state: &mut State,
    components: &Components,
    descriptor: &QueryDescriptor,
    access: &Access,
    conditions: &[DynFilter],
) -> u32 {
    let all = descriptor.slots();
    let slots = all
        .iter()
        .enumerate()
        .map(|(i, slot)| TraceSlot {
            component: state.component(slot.component, components),
            role: slot.role,
            access: if i != fetching_slot(all, slot.component) {
                SlotAccess::Filter
            } else if access.writes().contains(&slot.component) {
                SlotAccess::Write
            } else if access.reads().contains(&slot.component) {
                SlotAccess::Read
            } else {
                SlotAccess::Filter
            },
        })
        .collect();
    let filter = conditions
        .iter()
        .map(|c| trace_filter(c, state, components))
        .collect();
    state.shape(QueryShape { slots, filter })
}

/// A run-time filter on the trace's components.
fn trace_filter(filter: &DynFilter, state: &mut State, components: &Components) -> TraceFilter {
    let mut index = |id: &ComponentId| state.component(*id, components);
    match filter {
        DynFilter::With(id) => TraceFilter::With(index(id)),
        DynFilter::Without(id) => TraceFilter::Without(index(id)),
        DynFilter::Added(id) => TraceFilter::Change(index(id), TraceChange::Added),
        DynFilter::Changed(id) => TraceFilter::Change(index(id), TraceChange::Changed),
        DynFilter::Or(parts) => TraceFilter::Any(
            parts
                .iter()
                .map(|p| trace_filter(p, state, components))
                .collect(),
        ),
        DynFilter::All(parts) => TraceFilter::All(
            parts
                .iter()
                .map(|p| trace_filter(p, state, components))
                .collect(),
        ),
    }
}
