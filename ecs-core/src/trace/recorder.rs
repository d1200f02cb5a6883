//! [`Recorder`]: what a [`Traced`](super::Traced) storage keeps while a trace is recorded.

use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use hashbrown::HashMap;
use parking_lot::Mutex;

use super::format::{Op, OpWriter, QueryShape, Trace, TraceComponent};
use super::world::Tally;
use crate::change::{ChangeKind, ChangeStore, Reader};
use crate::component::{ComponentId, Components};
use crate::entity::Entity;

/// The recording state of one world: off, or the trace being written.
///
/// Storage calls (`&mut` through the storage) reach it without locking; query runs and most
/// look-ups through a shared world take its lock, which only a recording world ever takes.
/// A query's look-up that found the entity, the call a game makes most, is buffered without
/// the lock when made on the thread that last held the world mutably (the one running the
/// schedule) and written at the next locked or `&mut` call: two atomic read-modify-writes
/// per look-up were most of what recording cost.
///
/// # Invariants
/// `local` is accessed through `&mut self`, or through `&self` only on the thread whose
/// `thread_token` is `owner`, and no two accesses overlap: each is a short function that
/// calls nothing which records. `local.watch` points only at tallies in `state`'s list of
/// open runs (cleared whenever that list is emptied, which takes `&mut self`). `recording`
/// is `state`'s recording number.
#[derive(Default)]
pub struct Recorder {
    active: AtomicBool,
    /// The thread that may use `local` through `&self` (0: none; tokens start at 1).
    owner: u64,
    /// This recording's number, readable without the lock.
    recording: u32,
    local: UnsafeCell<Local>,
    state: Mutex<State>,
}

// SAFETY: `local`, the one field that is not `Sync`, is only reached through `&self` on the
// owner thread (type invariant), so shared references on other threads never touch it.
unsafe impl Sync for Recorder {}

/// What the owner thread keeps without the lock (see [`Recorder`]).
#[derive(Default)]
struct Local {
    /// Look-ups through a query state that found the entity, not written yet: the state's
    /// memo index and the entity.
    gets: Vec<(u32, Entity)>,
    /// The runs that were open at the last locked call: once one is complete, the next
    /// look-up takes the lock, so the run's op is written before it as it would have been.
    watch: Vec<*const Tally>,
}

// SAFETY: the tallies `watch` points at are boxed in the same recorder's state and move
// with it; they are read only through their atomics (see `Recorder`'s invariants).
unsafe impl Send for Local {}

/// A number for the calling thread, unique among every thread the process ever ran (from 1).
#[inline]
fn thread_token() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local!(static TOKEN: Cell<u64> = const { Cell::new(0) });
    TOKEN.with(|token| match token.get() {
        0 => {
            let fresh = NEXT.fetch_add(1, Ordering::Relaxed);
            token.set(fresh);
            fresh
        }
        held => held,
    })
}

/// The bit of a memo slot's low half that marks a state whose look-ups that found the
/// entity may be buffered: its fetched components are known and all required, so such a
/// look-up found them all (memo indices stay below it).
const BUFFERED: u32 = 1 << 31;

/// What a recording remembers of one query state (see [`State::memo`]).
struct QueryMemo {
    /// The index of the state's query shape, once a run built it.
    shape: Option<u32>,
    /// The state's number in the trace (0: none yet).
    number: u32,
    /// What a look-up through the state records, once one was made: one [`Op::Get`] per
    /// fetched component (see [`State::query_get`]).
    gets: Option<Box<[GetSlot]>>,
}

/// One component a query's look-up fetches, as its [`Op::Get`] names it.
#[derive(Clone, Copy)]
pub(crate) struct GetSlot {
    /// The world's id.
    pub(crate) id: ComponentId,
    /// The trace's index.
    pub(crate) component: u32,
    /// Whether the query writes it.
    pub(crate) write: bool,
    /// Whether the query requires it (a look-up that answered then found it).
    pub(crate) required: bool,
}

/// The trace being written and the tables that turn the world's ids into the trace's.
///
/// # Invariants
/// `components[i]` describes the component `component_index` maps to `i`; likewise for
/// systems, sets and shapes. `ordinals` maps each held entity spawned (or found at the
/// start) while recording to its ordinal, all below `next_ordinal`. Every memo's shape and
/// gets name this recording's shapes and components; a query state's slot holds the index
/// of its memo in `memos`.
#[derive(Default)]
pub(crate) struct State {
    components: Vec<TraceComponent>,
    /// By the world's component index: the trace's index plus one (0: not in the trace).
    component_index: Vec<u32>,
    systems: Vec<String>,
    #[cfg(feature = "schedule")]
    system_index: HashMap<String, u32>,
    sets: Vec<Vec<u32>>,
    set_index: HashMap<Vec<u32>, u32>,
    shapes: Vec<QueryShape>,
    shape_index: HashMap<QueryShape, u32>,
    /// By entity index: the generation held and its ordinal (0: none).
    ordinals: Vec<(u32, u32)>,
    next_ordinal: u32,
    /// This recording among every recording of the process (from 1), so a query state's
    /// number from an earlier recording is not taken for one of this.
    recording: u32,
    /// The query states numbered so far (see [`Op::Query`]'s `state`).
    query_states: u32,
    /// What this recording remembers of each query state it has seen: its shape's index
    /// and its number (0: none yet). A state keeps its index here in one slot (see
    /// [`State::memo`]), so it costs no memory beyond that slot when nothing records.
    memos: Vec<QueryMemo>,
    /// A reader of each tracked component's *changed* log, for the marks the ops do not
    /// show (see [`Op::Changed`]).
    change_readers: Vec<(ComponentId, Reader)>,
    #[cfg(feature = "schedule")]
    system: Option<u32>,
    /// The capture frames already written, when recording for a [`super::capture`].
    captured_frames: Option<u64>,
    /// The query runs begun since the last op through `&mut`, in the order they began.
    /// Boxed, so a run's iterator can count into its tally while the list grows; freed
    /// (or moved to `spare` for reuse) only through `&mut`, when no run is under way.
    #[allow(clippy::vec_box)]
    // the boxes stay put while the list grows: iterators count into them
    open: Vec<Box<Tally>>,
    /// Tallies of runs that are over, kept for the next runs (moved here from `open` only
    /// through `&mut`, like a free): a run's box is not allocated anew.
    #[allow(clippy::vec_box)]
    // moved back into `open` as they are
    spare: Vec<Box<Tally>>,
    /// The runs of `open` whose op is not written yet, in the order they began.
    pending: Vec<usize>,
    ops: OpWriter,
}

impl Recorder {
    /// Whether a trace is being recorded.
    #[inline]
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Relaxed)
    }

    /// Starts a fresh trace (what was recorded before is dropped).
    pub(crate) fn start(&mut self) {
        static RECORDINGS: AtomicU32 = AtomicU32::new(1);
        self.recording = RECORDINGS.fetch_add(1, Ordering::Relaxed);
        *self.state.get_mut() = State {
            next_ordinal: 1,
            recording: self.recording,
            ..State::default()
        };
        *self.local.get_mut() = Local::default();
        self.owner = thread_token();
        *self.active.get_mut() = true;
    }

    /// A recorder already recording, for a storage created inside a
    /// [`capture`](super::capture) (`None` outside one).
    pub(crate) fn captured() -> Option<Recorder> {
        let frames = super::capture::frames()?;
        let mut recorder = Recorder::default();
        recorder.start();
        recorder.state.get_mut().captured_frames = Some(frames);
        Some(recorder)
    }

    /// Hands the trace to the capture the recorder was made for, if it still records.
    pub(crate) fn hand_to_capture(&mut self) {
        if *self.active.get_mut() && self.state.get_mut().captured_frames.is_some() {
            let trace = self.finish();
            super::capture::collect(trace);
        }
    }

    /// Stops recording and hands out the trace.
    pub(crate) fn finish(&mut self) -> Trace {
        let state = self.exclusive();
        let trace = std::mem::take(state).into_trace();
        *self.active.get_mut() = false;
        trace
    }

    /// The state through `&mut self`, with every buffered look-up and open run written
    /// (no run is under way any more), and this thread the owner from now on.
    #[inline]
    fn exclusive(&mut self) -> &mut State {
        self.owner = thread_token();
        let local = self.local.get_mut();
        let state = self.state.get_mut();
        state.write_gets(&mut local.gets);
        local.watch.clear();
        state.close_queries();
        state.catch_up_frames();
        state
    }

    /// Runs `f` on the state through `&mut self` (no lock), if recording.
    #[inline]
    pub(crate) fn with_mut(&mut self, f: impl FnOnce(&mut State)) {
        if *self.active.get_mut() {
            f(self.exclusive());
        }
    }

    /// The state through `&mut self` (no lock), if recording.
    #[inline]
    pub(crate) fn state_if_active(&mut self) -> Option<&mut State> {
        match *self.active.get_mut() {
            true => Some(self.exclusive()),
            false => None,
        }
    }

    /// Runs `f` on the state through a shared reference (locked), if recording. On the
    /// owner thread, the look-ups it buffered are written first, and the runs still open
    /// are watched from its side afterwards.
    pub(crate) fn with(&self, f: impl FnOnce(&mut State)) {
        if !self.is_active() {
            return;
        }
        let mut state = self.state.lock();
        let owned = self.owner == thread_token();
        if owned {
            // SAFETY: the owner thread, and no other access to `local` is under way (type
            // invariant: `f` below does not reach it).
            let local = unsafe { &mut *self.local.get() };
            state.write_gets(&mut local.gets);
        }
        state.write_finished_queries();
        state.catch_up_frames();
        match owned {
            true => {
                // SAFETY: as above; the borrow above has ended.
                let local = unsafe { &mut *self.local.get() };
                f(&mut state);
                local.watch.clear();
                local.watch.extend(
                    state
                        .pending
                        .iter()
                        .map(|&i| &*state.open[i] as *const Tally),
                );
            }
            false => f(&mut state),
        }
    }

    /// Buffers, without the lock, a look-up of `entity` that found it through the query
    /// state whose memo slot is `slot`; false when it cannot (not the owner thread, a state
    /// not seen yet in this recording, or a run the look-up must be written after has
    /// ended), and the caller takes the lock.
    #[inline]
    pub(crate) fn buffer_query_get(&self, slot: &AtomicU64, entity: Entity) -> bool {
        if self.owner != thread_token() {
            return false;
        }
        // This recording's memo, marked as one whose look-ups may be buffered: one test.
        let held = slot.load(Ordering::Relaxed);
        if held >> 31 != (u64::from(self.recording) << 1) | 1 {
            return false;
        }
        // SAFETY: the owner thread (checked above), and nothing else of `local` is borrowed
        // here (type invariant).
        let local = unsafe { &mut *self.local.get() };
        let memo = held as u32 & !BUFFERED;
        // SAFETY: `watch` points at tallies boxed in the state's open runs, which stay put
        // until `&mut self` (type invariant); only their atomics are read.
        if local.watch.iter().any(|&t| unsafe { &*t }.is_complete()) {
            return false;
        }
        local.gets.push((memo, entity));
        true
    }
}

/// A system's name without its generic arguments: `mover<World<Traced<Sparse>>>` is
/// `mover`, so a generic system's name, and the trace, do not depend on the backend.
#[cfg(feature = "schedule")]
fn without_generics(name: &str) -> String {
    let mut depth = 0usize;
    name.chars()
        .filter(|&c| {
            match c {
                '<' => depth += 1,
                '>' => depth = depth.saturating_sub(1),
                _ => return depth == 0,
            }
            false
        })
        .collect()
}

impl State {
    fn into_trace(self) -> Trace {
        Trace {
            components: self.components,
            systems: self.systems,
            sets: self.sets,
            shapes: self.shapes,
            frames: self.ops.frames,
            op_count: self.ops.count,
            ops: self.ops.bytes,
        }
    }

    /// The trace's index of component `id` (registered in `components`), added to the
    /// table on first use.
    pub(crate) fn component(&mut self, id: ComponentId, components: &Components) -> u32 {
        if let Some(index) = self.known_component(id) {
            return index;
        }
        let info = components.info(id);
        let index = self.components.len() as u32;
        // The disabling marker under a name no short type name can take, so that a
        // replay registers the real marker (see `Replay::new`).
        let name = match components.disabled() == Some(id) {
            true => crate::trace::DISABLED_NAME.to_owned(),
            false => components.short_name(id),
        };
        self.components.push(TraceComponent {
            name,
            size: info.layout().size() as u32,
            align: info.layout().align() as u32,
            storage: info.storage(),
            tracks_changes: info.tracks_changes(),
        });
        if self.component_index.len() <= id.index() {
            self.component_index.resize(id.index() + 1, 0);
        }
        self.component_index[id.index()] = index + 1;
        index
    }

    /// The trace's index of a component already in the table (a removal or look-up can
    /// only name one that was stored, so added, while recording).
    pub(crate) fn known_component(&self, id: ComponentId) -> Option<u32> {
        match self.component_index.get(id.index()) {
            Some(&plus_one) if plus_one > 0 => Some(plus_one - 1),
            _ => None,
        }
    }

    /// The index of the set of `ids`, added on first use.
    pub(crate) fn set(&mut self, ids: &[ComponentId], components: &Components) -> u32 {
        let mut set: Vec<u32> = ids
            .iter()
            .map(|&id| self.component(id, components))
            .collect();
        set.sort_unstable();
        set.dedup();
        if let Some(&index) = self.set_index.get(&set) {
            return index;
        }
        let index = self.sets.len() as u32;
        self.sets.push(set.clone());
        self.set_index.insert(set, index);
        index
    }

    /// The index of `shape`, added on first use.
    pub(crate) fn shape(&mut self, shape: QueryShape) -> u32 {
        if let Some(&index) = self.shape_index.get(&shape) {
            return index;
        }
        let index = self.shapes.len() as u32;
        self.shapes.push(shape.clone());
        self.shape_index.insert(shape, index);
        index
    }

    /// The memo of the query state that keeps its memo index in `slot` (a state's
    /// [`ChangeRun`](crate::change::ChangeRun) holds it), made now if the state has none
    /// in this recording. The slot packs the recording in its high half and the memo index
    /// in its low, so an index an earlier recording left is never taken for one of this.
    pub(crate) fn memo(&mut self, slot: &AtomicU64) -> usize {
        let held = slot.load(Ordering::Relaxed);
        if (held >> 32) as u32 == self.recording {
            return (held as u32 & !BUFFERED) as usize;
        }
        let index = self.memos.len();
        assert!(
            index < BUFFERED as usize,
            "more than 2^31 query states in one trace"
        );
        self.memos.push(QueryMemo {
            shape: None,
            number: 0,
            gets: None,
        });
        slot.store(
            (u64::from(self.recording) << 32) | index as u64,
            Ordering::Relaxed,
        );
        index
    }

    /// Marks the query state whose memo slot is `slot` (numbered in this recording) as one
    /// whose look-ups that found the entity may be buffered (see
    /// [`Recorder::buffer_query_get`]), or not.
    pub(crate) fn set_buffered(&mut self, slot: &AtomicU64, buffered: bool) {
        let held = slot.load(Ordering::Relaxed);
        if (held >> 32) as u32 == self.recording {
            let flag = if buffered { u64::from(BUFFERED) } else { 0 };
            slot.store((held & !u64::from(BUFFERED)) | flag, Ordering::Relaxed);
        }
    }

    /// The shape index the memo `memo` remembers, once one was built.
    pub(crate) fn memo_shape(&self, memo: usize) -> Option<u32> {
        self.memos[memo].shape
    }

    /// Makes the memo `memo` remember its state's shape index.
    pub(crate) fn set_memo_shape(&mut self, memo: usize, shape: u32) {
        self.memos[memo].shape = Some(shape);
    }

    /// Makes the memo `memo` forget its state's shape and look-up slots (the state's
    /// descriptor changed: it began leaving disabled entities out); its number stays, so a
    /// replay keeps one state, with one change window, for it.
    pub(crate) fn forget_memo_shape(&mut self, memo: usize) {
        self.memos[memo].shape = None;
        self.memos[memo].gets = None;
    }

    /// The number of the query state with memo `memo` in this recording, given now if it
    /// has none yet (only states whose runs read change logs are numbered).
    pub(crate) fn query_state(&mut self, memo: usize) -> u32 {
        if self.memos[memo].number == 0 {
            self.query_states += 1;
            self.memos[memo].number = self.query_states;
        }
        self.memos[memo].number
    }

    /// Records a look-up of `entity` through the query state with memo `memo`: an
    /// [`Op::Get`] per fetched component, `found` answering whether it holds each. The
    /// fetched components are worked out at the state's first look-up (`slots`).
    pub(crate) fn query_get(
        &mut self,
        memo: usize,
        entity: Entity,
        slots: impl FnOnce(&mut State) -> Box<[GetSlot]>,
        found: impl Fn(ComponentId) -> bool,
    ) {
        let gets = match self.memos[memo].gets.take() {
            Some(gets) => gets,
            None => slots(self),
        };
        let ordinal = self.ordinal(entity);
        for get in gets.iter() {
            self.ops.push(Op::Get {
                entity: ordinal,
                component: get.component,
                write: get.write,
                found: found(get.id),
            });
        }
        self.memos[memo].gets = Some(gets);
    }

    /// Whether every component a look-up through memo `memo`'s state fetches is known and
    /// required.
    pub(crate) fn memo_gets_required(&self, memo: usize) -> bool {
        self.memos[memo]
            .gets
            .as_deref()
            .is_some_and(|gets| gets.iter().all(|g| g.required))
    }

    /// Writes the look-ups the owner thread buffered (see [`Recorder::buffer_query_get`]):
    /// each found every component its state fetches.
    fn write_gets(&mut self, gets: &mut Vec<(u32, Entity)>) {
        let State {
            memos,
            ops,
            ordinals,
            ..
        } = self;
        // Look-ups come in runs through one state (a system's loop): each run is written
        // as one batch, its state's slots looked up once.
        for run in gets.chunk_by(|a, b| a.0 == b.0) {
            let slots = memos[run[0].0 as usize].gets.as_deref().unwrap_or(&[]);
            let entities = run.iter().map(|&(_, entity)| ordinal_in(ordinals, entity));
            ops.found_gets(entities, slots);
        }
        gets.clear();
    }

    /// Begins counting a run of `shape` by query state `state` (0: any), `repeat` when it
    /// iterates the window of the state's previous run again; the tally is written when
    /// the run is over.
    pub(crate) fn open_query(&mut self, shape: u32, state: u32, repeat: bool) -> *const Tally {
        self.pending.push(self.open.len());
        let tally = Tally::new(shape, state, repeat);
        let boxed = match self.spare.pop() {
            Some(mut boxed) => {
                *boxed = tally;
                boxed
            }
            None => Box::new(tally),
        };
        self.open.push(boxed);
        // Taken once the box is in place: moving a box asserts it is unique, which would
        // void a pointer taken before.
        let tally: &Tally = self.open.last().expect("just pushed");
        tally
    }

    /// Writes the ops of the query runs not written yet, in the order they began.
    fn write_queries(&mut self) {
        for i in std::mem::take(&mut self.pending) {
            let op = self.open[i].op();
            self.ops.push(op);
        }
    }

    /// Writes the ops of the query runs that reached their end, in the order they began:
    /// an op through a shared world (a look-up, another run) then follows the runs it
    /// followed in the program. A run left early is only known to be over at the next
    /// `&mut` (or the next change mark, see [`State::record_changes`]), so look-ups made
    /// after it but before that are written before it (a replay takes no fewer rows for
    /// it: look-ups only read).
    fn write_finished_queries(&mut self) {
        // Most calls come while one run is under way and none has ended: nothing to write.
        if !self.pending.iter().any(|&i| self.open[i].is_complete()) {
            return;
        }
        let open = &self.open;
        let ops = &mut self.ops;
        self.pending.retain(|&i| match open[i].is_complete() {
            true => {
                ops.push(open[i].op());
                false
            }
            false => true,
        });
    }

    /// Writes the open query runs' ops and frees their tallies: through `&mut`, so no run
    /// is under way any more.
    fn close_queries(&mut self) {
        self.write_queries();
        self.spare.append(&mut self.open);
    }

    /// Records that the ops that follow come from system `name` (`None`: from outside any
    /// system), if that changes anything. The previous system's query runs are over: their
    /// ops come first. `slot` is where the schedule keeps the system's index for this
    /// recording (the recording in the high half, the index in the low), so a system
    /// entered again costs no look-up of its name.
    #[cfg(feature = "schedule")]
    pub(crate) fn enter_system(&mut self, name: Option<(&str, &mut u64)>) {
        self.write_queries();
        let index = name.map(|(raw, slot)| match (*slot >> 32) as u32 == self.recording {
            true => *slot as u32,
            false => {
                let i = self.system_of(raw);
                *slot = (u64::from(self.recording) << 32) | u64::from(i);
                i
            }
        });
        if index != self.system {
            self.system = index;
            self.ops.push(Op::System(index));
        }
    }

    /// The index of the system the schedule names `raw`, added on first use under its
    /// name without generic arguments.
    #[cfg(feature = "schedule")]
    fn system_of(&mut self, raw: &str) -> u32 {
        let name = without_generics(raw);
        match self.system_index.get(&name) {
            Some(&i) => i,
            None => {
                let i = self.systems.len() as u32;
                self.systems.push(name.clone());
                self.system_index.insert(name, i);
                i
            }
        }
    }

    /// Writes an [`Op::Changed`] for each entity whose tracked component was marked
    /// changed since the last call (reading every *changed* log of `changes`, and from now
    /// on the ones it had no reader of yet), and still holds it.
    pub(crate) fn record_changes(
        &mut self,
        changes: &ChangeStore,
        components: &Components,
        holds: impl Fn(Entity, ComponentId) -> bool,
    ) {
        for (id, logs) in changes.tracked() {
            if !self.change_readers.iter().any(|(of, _)| *of == id) {
                let reader = logs.get(ChangeKind::Changed).lock().register_reader();
                self.change_readers.push((id, reader));
            }
        }
        let mut marked = Vec::new();
        for (id, reader) in &mut self.change_readers {
            let Some(log) = changes.log(*id, ChangeKind::Changed) else {
                continue;
            };
            let mut inner = log.lock();
            let (from, to) = inner.advance(reader);
            marked.extend(inner.window(from, to).map(|(_, e)| (e, *id)));
        }
        if !marked.is_empty() {
            // A run begun before these marks must replay before them too, even one left
            // early (written with the rows taken so far: a replay takes at least those).
            self.write_queries();
        }
        for (entity, id) in marked {
            let ordinal = self.ordinal(entity);
            if ordinal != 0 && holds(entity, id) {
                let component = self.component(id, components);
                self.ops.push(Op::Changed {
                    entity: ordinal,
                    component,
                });
            }
        }
    }

    /// Gives `entity`, just stored, the next ordinal.
    pub(crate) fn spawned(&mut self, entity: Entity) {
        let ordinal = self.next_ordinal;
        self.next_ordinal += 1;
        let index = entity.index() as usize;
        if self.ordinals.len() <= index {
            self.ordinals.resize(index + 1, (0, 0));
        }
        self.ordinals[index] = (entity.generation(), ordinal);
    }

    /// `entity`'s ordinal, 0 when the trace never spawned it.
    pub(crate) fn ordinal(&self, entity: Entity) -> u32 {
        ordinal_in(&self.ordinals, entity)
    }

    /// Forgets a despawned entity, answering its ordinal (0 when it had none).
    pub(crate) fn despawned(&mut self, entity: Entity) -> u32 {
        let ordinal = self.ordinal(entity);
        if ordinal != 0 {
            self.ordinals[entity.index() as usize] = (0, 0);
        }
        ordinal
    }

    /// Forgets every entity (a cleared storage).
    pub(crate) fn cleared(&mut self) {
        self.ordinals.clear();
    }

    /// Appends an op.
    #[inline]
    pub(crate) fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    /// Writes the frames a [`super::capture`] marked since the last op.
    #[inline]
    fn catch_up_frames(&mut self) {
        if let Some(seen) = self.captured_frames {
            let now = super::capture::frames().unwrap_or(seen);
            for _ in seen..now {
                self.ops.push(Op::Frame);
            }
            self.captured_frames = Some(now.max(seen));
        }
    }
}

/// `entity`'s ordinal in `ordinals` (see [`State`]'s), 0 when it has none.
#[inline]
fn ordinal_in(ordinals: &[(u32, u32)], entity: Entity) -> u32 {
    match ordinals.get(entity.index() as usize) {
        Some(&(generation, ordinal)) if generation == entity.generation() => ordinal,
        _ => 0,
    }
}

#[cfg(all(test, feature = "schedule"))]
mod tests {
    use super::without_generics;

    #[test]
    fn system_names_lose_their_generic_arguments() {
        assert_eq!(
            without_generics("game::mover<ecs::Traced<ecs::Sparse>>"),
            "game::mover"
        );
        assert_eq!(
            without_generics("a::b<X<Y>, Z>::{closure#2}"),
            "a::b::{closure#2}"
        );
        assert_eq!(without_generics("main::{closure#20}"), "main::{closure#20}");
    }
}
