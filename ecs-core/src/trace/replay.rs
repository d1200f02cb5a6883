//! [`Replay`]: one trace replayed on one storage, op by op, checking as it goes that the
//! world answers as the recorded one did (`ecs-bench replay` times it on every backend).
//!
//! The trace's components become run-time components of the recorded layouts (zero
//! bytes; a query reads every word of the components it reads and adds one to every word
//! of those it writes, a column at a time where the storage keeps one), stored as the
//! caller says; an alignment the program asked for is asked for again; spawns, inserts,
//! removes and despawns are made by the storage calls the program made; every query run is
//! a run-time query of the recorded shape. Every query must yield the rows the program took
//! (at least as many, when it left the run early), every look-up must find what the
//! program found, every remove and despawn must succeed: where one does not, the replay
//! records a [`Divergence`] and goes on.
//!
//! ```
//! use ecs_core::trace::{Replay, Traced};
//! use ecs_core::{Component, World};
//! # use ecs_core::testing::VecStorage;
//! #[derive(Component)]
//! struct Pos(f32);
//!
//! let mut world = World::<Traced<VecStorage>>::new();
//! world.start_trace().unwrap();
//! let e = world.spawn((Pos(0.0),));
//! world.query::<&mut Pos>().for_each(|p| p.0 += 1.0);
//! world.despawn(e).unwrap();
//! let trace = world.finish_trace().unwrap();
//!
//! let kinds = Replay::<VecStorage>::declared_kinds(&trace);
//! let mut replay = Replay::<VecStorage>::new(&trace, &kinds).unwrap();
//! replay.run(&mut |_| {});
//! assert_eq!(replay.divergence_count(), 0, "{:?}", replay.divergences());
//! ```

use std::alloc::Layout;
use std::hint::black_box;
use std::ptr::NonNull;
use std::time::{Duration, Instant};

use super::format::{Op, QueryShape, SlotAccess, Trace, TraceChange, TraceFilter};
use crate::component::{ComponentDescriptor, ComponentId, StorageKind};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::query::dynamic::{DynVisit, Term};
use crate::query::{DynFilter, DynQuery, DynQueryState};
use crate::storage::{SlotRole, Storage};
use crate::world::World;

/// Where a replay did not do what the recorded program did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The op's position in the trace (from 0).
    pub op: u64,
    /// What happened instead.
    pub what: String,
}

/// How many divergences a replay lists (it counts all of them).
pub const DIVERGENCES_KEPT: usize = 20;

/// A trace being replayed on a world of storage `S` (see the module docs).
pub struct Replay<'t, S: Storage> {
    trace: &'t Trace,
    world: World<S>,
    /// The world's id of each trace component.
    ids: Vec<ComponentId>,
    /// The world's ids of each trace set.
    sets: Vec<Vec<ComponentId>>,
    /// One query state per trace shape, or why the shape cannot be built here: the runs
    /// of shapes that filter no changes (any state takes the same rows).
    states: Vec<Result<DynQueryState<S>, EcsError>>,
    /// The program's numbered query states (change filters answer for when *each* last
    /// ran), as they first run.
    numbered: Vec<Result<DynQueryState<S>, EcsError>>,
    /// The entity of each spawn ordinal, from 1 (slot 0 is a handle no entity has).
    entities: Vec<Entity>,
    /// What reads fold into, so the optimiser keeps them.
    sink: u64,
    divergences: Vec<Divergence>,
    divergence_count: u64,
    /// The time of each frame.
    frames: Vec<Duration>,
}

impl<'t, S: Storage> Replay<'t, S> {
    /// The storage kind the program declared for each of the trace's components.
    pub fn declared_kinds(trace: &Trace) -> Vec<StorageKind> {
        trace.components().iter().map(|c| c.storage).collect()
    }

    /// A fresh world with the trace's components registered as run-time components of the
    /// recorded layouts, component `i` stored as `kinds[i]` says; the one exception is
    /// [`Disabled`](crate::Disabled), registered as itself (its kind is its own), so that
    /// disabled entities stay out of the replay's queries.
    ///
    /// # Errors
    /// `kinds` of another length than the trace's components.
    pub fn new(trace: &'t Trace, kinds: &[StorageKind]) -> Result<Replay<'t, S>, String> {
        if kinds.len() != trace.components().len() {
            return Err(format!(
                "{} storage kinds for the trace's {} components",
                kinds.len(),
                trace.components().len()
            ));
        }
        let mut world = World::<S>::new();
        let mut ids = Vec::with_capacity(trace.components().len());
        for (c, &kind) in trace.components().iter().zip(kinds) {
            if c.name == super::DISABLED_NAME && c.size == 0 {
                // The real marker, so that the replay's queries leave disabled entities
                // out as the program's did (a run-time stand-in would hide nothing).
                ids.push(world.register_component::<crate::Disabled>());
                continue;
            }
            let layout = Layout::from_size_align(c.size as usize, c.align as usize)
                .map_err(|e| format!("component {}: {e}", c.name))?;
            let descriptor = ComponentDescriptor {
                name: c.name.clone().into(),
                layout,
                drop: None,
                storage: kind,
            };
            ids.push(match c.tracks_changes {
                true => world.register_dynamic_tracked(descriptor),
                false => world.register_dynamic(descriptor),
            });
        }
        let sets = trace
            .sets()
            .iter()
            .map(|set| set.iter().map(|&c| ids[c as usize]).collect())
            .collect();
        let mut states = Vec::with_capacity(trace.shapes().len());
        for shape in trace.shapes() {
            states.push(world.dyn_query(&dyn_query(shape, &ids)));
        }
        let spawned = trace
            .ops()
            .map(|op| match op {
                Op::Spawn { count, .. } | Op::SpawnColumns { count, .. } => count as usize,
                _ => 0,
            })
            .sum::<usize>();
        let mut entities = Vec::with_capacity(spawned + 1);
        entities.push(Entity::PLACEHOLDER);
        Ok(Replay {
            trace,
            world,
            ids,
            sets,
            states,
            numbered: Vec::new(),
            entities,
            sink: 0,
            divergences: Vec::new(),
            divergence_count: 0,
            frames: Vec::with_capacity(trace.frames() as usize + 1),
        })
    }

    /// Replays every op, calling `progress` with the number done every 4,096 ops. Each
    /// frame's ops are decoded before its clock starts: a frame's time is the world's work.
    pub fn run(&mut self, progress: &mut dyn FnMut(u64)) {
        let mut ops = self.trace.ops().enumerate();
        let mut frame = Vec::new();
        loop {
            frame.clear();
            let mut marked = false;
            for (i, op) in ops.by_ref() {
                if let Op::Frame = op {
                    marked = true;
                    break;
                }
                frame.push((i as u64, op));
            }
            // Ops after the last frame mark (or a trace with none) make one more frame.
            if !marked && frame.is_empty() && !self.frames.is_empty() {
                break;
            }
            let start = Instant::now();
            for &(i, op) in &frame {
                self.apply(i, op);
                if i % 4096 == 4095 {
                    progress(i + 1);
                }
            }
            self.frames.push(start.elapsed());
            if !marked {
                break;
            }
        }
        black_box(self.sink);
    }

    /// The world after the replay.
    pub fn world(&self) -> &World<S> {
        &self.world
    }

    /// How many ops diverged (0: the replay did what the program did).
    pub fn divergence_count(&self) -> u64 {
        self.divergence_count
    }

    /// The first divergences (at most [`DIVERGENCES_KEPT`]).
    pub fn divergences(&self) -> &[Divergence] {
        &self.divergences
    }

    /// The time each frame took, in order (a trace without frame marks is one frame).
    pub fn frame_times(&self) -> &[Duration] {
        &self.frames
    }

    fn entity(&self, ordinal: u32) -> Entity {
        self.entities
            .get(ordinal as usize)
            .copied()
            .unwrap_or(Entity::PLACEHOLDER)
    }

    fn diverged(&mut self, op: u64, what: String) {
        self.divergence_count += 1;
        if self.divergences.len() < DIVERGENCES_KEPT {
            self.divergences.push(Divergence { op, what });
        }
    }

    fn apply(&mut self, index: u64, op: Op) {
        match op {
            Op::Frame | Op::System(_) => {}
            Op::Spawn { set, count } | Op::SpawnColumns { set, count } => {
                let ids = &self.sets[set as usize];
                if let Err(err) = self
                    .world
                    .spawn_zeroed(ids, count as usize, &mut self.entities)
                {
                    self.diverged(index, format!("spawn: {err}"));
                }
            }
            Op::Insert { entity, component } => {
                let (e, id) = (self.entity(entity), self.ids[component as usize]);
                if let Err(err) = self.world.insert_zeroed(e, &[id]) {
                    self.diverged(index, format!("insert: {err}"));
                }
            }
            Op::InsertMany { entity, set } => {
                let e = self.entity(entity);
                let result = self.world.insert_zeroed(e, &self.sets[set as usize]);
                if let Err(err) = result {
                    self.diverged(index, format!("insert: {err}"));
                }
            }
            Op::Remove { entity, component } => {
                let (e, id) = (self.entity(entity), self.ids[component as usize]);
                if let Err(err) = self.world.remove_by_id(e, id) {
                    self.diverged(index, format!("remove: {err}"));
                }
            }
            Op::Despawn { entity } => {
                if let Err(err) = self.world.despawn(self.entity(entity)) {
                    self.diverged(index, format!("despawn: {err}"));
                }
            }
            Op::Clear => self.world.clear(),
            Op::Align { component } => {
                self.world
                    .align_with_tables_by_id(self.ids[component as usize]);
            }
            Op::Changed { entity, component } => {
                let (e, id) = (self.entity(entity), self.ids[component as usize]);
                if self.world.storage().contains(e, id) {
                    self.world.changes_mut().on_changed(id, e);
                }
            }
            Op::Query {
                shape,
                rows,
                complete,
                state,
                repeat,
            } => self.query(index, shape, (state, repeat), rows, complete),
            Op::Get {
                entity,
                component,
                write,
                found,
            } => self.get(index, entity, component, write, found),
        }
    }

    fn query(
        &mut self,
        index: u64,
        shape: u32,
        (number, repeat): (u32, bool),
        rows: u64,
        complete: bool,
    ) {
        let slot = match number {
            0 => &mut self.states[shape as usize],
            n => {
                // A state runs first here (a read trace numbers them one past the last).
                while self.numbered.len() < n as usize {
                    let query = dyn_query(&self.trace.shapes()[shape as usize], &self.ids);
                    self.numbered.push(self.world.dyn_query(&query));
                }
                &mut self.numbered[n as usize - 1]
            }
        };
        let state = match slot.as_mut() {
            Ok(state) => state,
            Err(e) => {
                let what = format!(
                    "query {} cannot be built: {e}",
                    describe(&self.trace.shapes()[shape as usize], self.trace)
                );
                return self.diverged(index, what);
            }
        };
        let mut touch = Touch {
            rows: 0,
            sink: self.sink as u32,
        };
        state.visit_window(&mut self.world, repeat, &mut touch);
        self.sink = self.sink.wrapping_add(u64::from(touch.sink));
        let visited = touch.rows;
        let faithful = if complete {
            visited == rows
        } else {
            visited >= rows
        };
        if !faithful {
            let shape = describe(&self.trace.shapes()[shape as usize], self.trace);
            let took = if complete { "" } else { "at least " };
            self.diverged(
                index,
                format!("query {shape}: {visited} rows, the program took {took}{rows}"),
            );
        }
    }

    fn get(&mut self, index: u64, entity: u32, component: u32, write: bool, found: bool) {
        let (e, id) = (self.entity(entity), self.ids[component as usize]);
        let got = if write {
            match self.world.get_bytes_mut_unmarked(e, id) {
                Some(bytes) => {
                    if let Some(first) = bytes.first_mut() {
                        *first = first.wrapping_add(1);
                    }
                    true
                }
                None => false,
            }
        } else {
            match self.world.get_bytes(e, id) {
                Some(bytes) => {
                    self.sink = self
                        .sink
                        .wrapping_add(u64::from(bytes.first().copied().unwrap_or(0)));
                    true
                }
                None => false,
            }
        };
        if got != found {
            let name = &self.trace.components()[component as usize].name;
            let (now, then) = if got {
                ("found", "missed")
            } else {
                ("missed", "found")
            };
            self.diverged(
                index,
                format!("get {name} of entity {entity}: {now} it, the program {then} it"),
            );
        }
    }
}

/// What a replayed query does with its rows: reads every 32-bit word of each read term and
/// adds one to every word of each written term (bytes, for a component whose size is not a
/// multiple of four), the work of a loop doing one arithmetic operation per field of the
/// same components, whole columns at a time where the run hands a chunk over. The
/// program's own change marks come as their own ops, so these writes mark nothing.
struct Touch {
    rows: u64,
    /// What reads fold into, so the optimiser keeps them.
    sink: u32,
}

impl Touch {
    /// Touches `len` bytes at `at`, written or read.
    ///
    /// # Safety
    /// `at` is valid for `len` bytes of a plain-data component (every byte initialised,
    /// any bytes a valid value), not accessed elsewhere while the call lasts.
    #[inline]
    unsafe fn bytes(&mut self, at: NonNull<u8>, len: usize, write: bool) {
        let words = (len | at.as_ptr() as usize) % 4 == 0;
        match (write, words) {
            (true, true) => {
                // SAFETY: the caller's contract; `at` is 4-aligned and `len` a multiple of
                // 4, and any bytes are a valid `u32`.
                let words =
                    unsafe { std::slice::from_raw_parts_mut(at.cast::<u32>().as_ptr(), len / 4) };
                words.iter_mut().for_each(|w| *w = w.wrapping_add(1));
            }
            (true, false) => {
                // SAFETY: the caller's contract.
                let bytes = unsafe { std::slice::from_raw_parts_mut(at.as_ptr(), len) };
                bytes.iter_mut().for_each(|b| *b = b.wrapping_add(1));
            }
            (false, true) => {
                // SAFETY: as above, read only.
                let words =
                    unsafe { std::slice::from_raw_parts(at.cast::<u32>().as_ptr(), len / 4) };
                self.sink = words.iter().fold(self.sink, |sum, &w| sum.wrapping_add(w));
            }
            (false, false) => {
                // SAFETY: the caller's contract.
                let bytes = unsafe { std::slice::from_raw_parts(at.as_ptr(), len) };
                self.sink = bytes
                    .iter()
                    .fold(self.sink, |sum, &b| sum.wrapping_add(u32::from(b)));
            }
        }
    }
}

// Every component of a replay's world is a plain-data run-time component (registered by
// `Replay::new` with no Rust type and no drop): any bytes are a valid value of it.
impl<'w> DynVisit<'w> for Touch {
    #[inline]
    fn row(&mut self, _: Entity, terms: &'w [Term], ptrs: &[Option<NonNull<u8>>]) {
        self.rows += 1;
        for (term, ptr) in terms.iter().zip(ptrs) {
            let Some(ptr) = *ptr else { continue };
            // The run hands each pointer valid for its term's size, written terms accessed
            // by this run only (the replay's `&mut World`), of plain data (above).
            match (term.size, term.write) {
                (4, write) => {
                    let word = ptr.cast::<u32>().as_ptr();
                    // SAFETY: valid for 4 bytes (above), any of which are a valid `u32`;
                    // read and written unaligned.
                    let value = unsafe { word.read_unaligned() };
                    match write {
                        // SAFETY: as for the read; a written term is this run's only.
                        true => unsafe { word.write_unaligned(value.wrapping_add(1)) },
                        false => self.sink = self.sink.wrapping_add(value),
                    }
                }
                // SAFETY: valid for `size` bytes of plain data, as `bytes` asks (above).
                (size, write) => unsafe { self.bytes(ptr, size, write) },
            }
        }
    }

    fn chunk(
        &mut self,
        entities: &[Entity],
        terms: &'w [Term],
        bases: &[Option<NonNull<u8>>],
        _: &mut [Option<NonNull<u8>>],
    ) {
        self.rows += entities.len() as u64;
        for (term, base) in terms.iter().zip(bases) {
            if let Some(base) = *base {
                // SAFETY: the run hands each column base valid for `rows * size` bytes,
                // written terms accessed by this run only; plain data (above).
                unsafe { self.bytes(base, entities.len() * term.size, term.write) };
            }
        }
    }
}

/// The run-time query of a recorded shape: fetched slots as terms, matching-only slots
/// and the filter as filters.
fn dyn_query(shape: &QueryShape, ids: &[ComponentId]) -> DynQuery {
    let mut query = DynQuery::new();
    for slot in &shape.slots {
        let id = ids[slot.component as usize];
        query = match (slot.role, slot.access) {
            (SlotRole::Required, SlotAccess::Read) => query.read(id),
            (SlotRole::Required, SlotAccess::Write) => query.write(id),
            (SlotRole::Optional, SlotAccess::Read) => query.read_optional(id),
            (SlotRole::Optional, SlotAccess::Write) => query.write_optional(id),
            (SlotRole::Required, SlotAccess::Filter) => query.filter(DynFilter::With(id)),
            (SlotRole::Excluded, _) => query.filter(DynFilter::Without(id)),
            (SlotRole::Optional, SlotAccess::Filter) => query,
        };
    }
    shape
        .filter
        .iter()
        .fold(query, |query, part| query.filter(dyn_filter(part, ids)))
}

fn dyn_filter(filter: &TraceFilter, ids: &[ComponentId]) -> DynFilter {
    let id = |c: &u32| ids[*c as usize];
    match filter {
        TraceFilter::With(c) => DynFilter::With(id(c)),
        TraceFilter::Without(c) => DynFilter::Without(id(c)),
        TraceFilter::Change(c, TraceChange::Added) => DynFilter::Added(id(c)),
        TraceFilter::Change(c, TraceChange::Changed) => DynFilter::Changed(id(c)),
        TraceFilter::Any(parts) => {
            DynFilter::Or(parts.iter().map(|p| dyn_filter(p, ids)).collect())
        }
        TraceFilter::All(parts) => {
            DynFilter::All(parts.iter().map(|p| dyn_filter(p, ids)).collect())
        }
    }
}

/// A shape for messages: `(&mut Pos, &Vel, without Frozen, changed Hp)`.
pub fn describe(shape: &QueryShape, trace: &Trace) -> String {
    let name = |c: u32| trace.components()[c as usize].name.as_str();
    let mut parts: Vec<String> = shape
        .slots
        .iter()
        .filter_map(|slot| {
            let n = name(slot.component);
            Some(match (slot.role, slot.access) {
                (SlotRole::Required, SlotAccess::Read) => format!("&{n}"),
                (SlotRole::Required, SlotAccess::Write) => format!("&mut {n}"),
                (SlotRole::Optional, SlotAccess::Read) => format!("Option<&{n}>"),
                (SlotRole::Optional, SlotAccess::Write) => format!("Option<&mut {n}>"),
                // The filter says these.
                (_, SlotAccess::Filter) => return None,
                (SlotRole::Excluded, _) => format!("without {n}"),
            })
        })
        .collect();
    parts.extend(
        shape
            .filter
            .iter()
            .map(|f| describe_filter(f, trace, false)),
    );
    format!("({})", parts.join(", "))
}

/// A condition for messages: `with Pos`, `(added Hp or without Dead)`.
fn describe_filter(filter: &TraceFilter, trace: &Trace, nested: bool) -> String {
    let name = |c: &u32| trace.components()[*c as usize].name.as_str();
    let join = |parts: &[TraceFilter], by: &str| {
        let text: Vec<String> = parts
            .iter()
            .map(|p| describe_filter(p, trace, true))
            .collect();
        match nested && parts.len() > 1 {
            true => format!("({})", text.join(by)),
            false => text.join(by),
        }
    };
    match filter {
        TraceFilter::With(c) => format!("with {}", name(c)),
        TraceFilter::Without(c) => format!("without {}", name(c)),
        TraceFilter::Change(c, TraceChange::Added) => format!("added {}", name(c)),
        TraceFilter::Change(c, TraceChange::Changed) => format!("changed {}", name(c)),
        TraceFilter::Any(parts) => join(parts, " or "),
        TraceFilter::All(parts) => join(parts, " and "),
    }
}
