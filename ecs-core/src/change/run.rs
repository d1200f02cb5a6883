//! [`ChangeRun`]: a query's change-filter cursors and what they see in the current run.
//!
//! A query whose filter names `Changed<T>` / `Added<T>` gets one *change slot* per such
//! filter, each with its own reader cursor in the component's log. When a run begins
//! ([`ChangeRun::begin`]) every cursor moves to the end of its log and the run picks one of
//! three ways to iterate:
//!
//! * **scan**: first run (no cursor yet): every matching entity passes, as for a query
//!   without change filters;
//! * **driven**: the filter names a set of change slots every match must come from (the
//!   filter itself, one conjunct of a tuple, or an `Or` of them): the run reads those logs'
//!   windows, keeps each entity once, checks the whole filter per entity, and the query
//!   fetches the survivors by look-up. O(changes);
//! * **checked scan**: otherwise (e.g. `Or<(Changed<A>, With<B>)>`, which matches entities
//!   that never changed): a normal chunk scan where each change filter tests membership in
//!   its window's (sorted) entity set. O(entities), the price of such a filter.

use parking_lot::MutexGuard;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{ChangeKind, ChangeStore, LogInner, Reader};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::query::QueryFilter;
use crate::storage::Storage;
use crate::world::WorldView;

/// Answers "did `entity` change for change slot `slot` in this run" while a filter is
/// evaluated for one entity.
pub trait ChangeProbe {
    /// Whether the slot's filter holds for `entity` as far as changes go (always true on a
    /// query's first run).
    fn changed(&self, slot: usize, entity: Entity) -> bool;
}

/// The filter a run checks candidates against: a typed [`QueryFilter`]'s state, or a
/// run-time query's filter ([`DynQueryState`](crate::query::DynQueryState)).
pub(crate) trait RunFilter<S: Storage> {
    /// As [`QueryFilter::driving`].
    fn driving(&self, out: &mut Vec<usize>) -> bool;
    /// As [`QueryFilter::matches_entity`].
    fn matches_entity<P: ChangeProbe>(&self, storage: &S, probe: &P, entity: Entity) -> bool;
}

/// A typed filter's state as a [`RunFilter`].
struct Typed<'a, F: QueryFilter>(&'a F::State);

impl<R: RunFilter<S>, S: Storage> RunFilter<S> for &R {
    #[inline]
    fn driving(&self, out: &mut Vec<usize>) -> bool {
        (**self).driving(out)
    }
    #[inline]
    fn matches_entity<P: ChangeProbe>(&self, storage: &S, probe: &P, entity: Entity) -> bool {
        (**self).matches_entity(storage, probe, entity)
    }
}

/// A filter that also turns away the entities holding `hidden`, the query's implicit
/// `Disabled` exclusion (see [`crate::disabled`]), which no typed filter checks.
struct Hiding<R> {
    filter: R,
    hidden: Option<ComponentId>,
}

impl<R: RunFilter<S>, S: Storage> RunFilter<S> for Hiding<R> {
    #[inline]
    fn driving(&self, out: &mut Vec<usize>) -> bool {
        self.filter.driving(out)
    }
    #[inline]
    fn matches_entity<P: ChangeProbe>(&self, storage: &S, probe: &P, entity: Entity) -> bool {
        self.hidden
            .is_none_or(|hidden| !storage.contains(entity, hidden))
            && self.filter.matches_entity(storage, probe, entity)
    }
}

impl<F: QueryFilter, S: Storage> RunFilter<S> for Typed<'_, F> {
    #[inline]
    fn driving(&self, out: &mut Vec<usize>) -> bool {
        F::driving(self.0, out)
    }
    #[inline]
    fn matches_entity<P: ChangeProbe>(&self, storage: &S, probe: &P, entity: Entity) -> bool {
        F::matches_entity(self.0, storage, probe, entity)
    }
}

/// One `Changed<T>` / `Added<T>` of a query.
struct ChangeSlot {
    component: ComponentId,
    kind: ChangeKind,
    /// Index into [`ChangeRun::locks`].
    lock: usize,
    /// The reader of the log; `None` until the first run.
    reader: Option<Reader>,
    /// This run's window `old..new`; `None` on the first run (everything passes).
    window: Option<(u64, u64)>,
    /// Checked-scan mode, and every mode after the first run for an item's slot: the
    /// entities changed in the window, sorted.
    set: Vec<Entity>,
    /// Whether a query item reads the slot ([`Ref`](crate::query::Ref)), so its set is
    /// gathered in driven runs too.
    item: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Scan,
    Driven,
    CheckedScan,
}

/// The change-filter state of one query: cursors, this run's windows and candidates.
///
/// # Invariants
/// * `locks` is sorted and without duplicates; every slot's `lock` indexes it and names the
///   slot's own `(component, kind)`.
/// * In `Driven` mode `candidates` holds distinct entities, each live and matching the
///   filter when the run began.
pub struct ChangeRun {
    slots: Vec<ChangeSlot>,
    locks: Vec<(ComponentId, ChangeKind)>,
    mode: Mode,
    /// Whether a query item reads a slot (see [`ChangeSlot`]'s `item`): only then does a
    /// driven run gather sets.
    has_items: bool,
    candidates: Vec<Entity>,
    driving: Vec<usize>,
    /// Where the trace being recorded keeps what it remembers of this query state (its
    /// shape and number): the recording in the high half, the memo's index in the low;
    /// 0: none yet. Only a recording world's runs read or write it.
    trace_memo: AtomicU64,
    /// Whether a run began since a trace last counted one (a system's query may iterate
    /// one run's window several times). Only a recording world's runs read it.
    began: AtomicBool,
}

impl ChangeRun {
    /// The change state for a filter with these slots (in slot order), the slots at
    /// `items` read by query items.
    pub(crate) fn new(keys: &[(ComponentId, ChangeKind)], items: &[usize]) -> ChangeRun {
        let mut locks = keys.to_vec();
        locks.sort_unstable();
        locks.dedup();
        let slots = keys
            .iter()
            .enumerate()
            .map(|(i, &(component, kind))| ChangeSlot {
                component,
                kind,
                item: items.contains(&i),
                lock: locks
                    .binary_search(&(component, kind))
                    .expect("key is in locks"),
                reader: None,
                window: None,
                set: Vec::new(),
            })
            .collect();
        ChangeRun {
            has_items: !items.is_empty(),
            slots,
            locks,
            mode: Mode::Scan,
            candidates: Vec::new(),
            driving: Vec::new(),
            trace_memo: AtomicU64::new(0),
            began: AtomicBool::new(false),
        }
    }

    /// Where a recording keeps the index of what it remembers of this state.
    pub(crate) fn trace_memo(&self) -> &AtomicU64 {
        &self.trace_memo
    }

    /// Whether a run began since the last call (a trace's query op then starts a new
    /// window rather than iterating the previous one again).
    pub(crate) fn take_began(&self) -> bool {
        self.began.swap(false, Ordering::Relaxed)
    }

    /// The `(component, kind)` logs this query reads.
    pub fn logs(&self) -> &[(ComponentId, ChangeKind)] {
        &self.locks
    }

    /// True when the current run iterates the changed entities only (O(changes)), false when
    /// it scans (no change filter, first run, or a filter that cannot be driven by a log).
    pub fn is_driven(&self) -> bool {
        self.mode == Mode::Driven
    }

    /// The entities to visit in a driven run.
    #[inline]
    pub(crate) fn candidates(&self) -> Option<&[Entity]> {
        (self.mode == Mode::Driven).then_some(&self.candidates[..])
    }

    /// For a scan: the entities that pass change slot `slot` (sorted), or `None` when all do.
    #[inline]
    pub fn scan_set(&self, slot: usize) -> Option<&[Entity]> {
        match self.mode {
            Mode::CheckedScan => Some(&self.slots[slot].set),
            _ => None,
        }
    }

    /// For a slot a query item reads ([`QueryBuilder::item_change_slot`](crate::query::QueryBuilder::item_change_slot)):
    /// the entities changed in this run's window (sorted), in a scan or a driven run, or
    /// `None` on the first run, when every entity counts as changed.
    #[inline]
    pub fn item_set(&self, slot: usize) -> Option<&[Entity]> {
        match self.mode {
            Mode::Scan => None,
            Mode::Driven | Mode::CheckedScan => Some(&self.slots[slot].set),
        }
    }

    /// Starts a run: moves every cursor to its log's end and prepares the iteration.
    /// `hidden` names the component whose holders the query leaves out although its filter
    /// does not say so (`Disabled`, see [`crate::disabled`]); asked only when the query
    /// tracks changes.
    ///
    /// # Panics
    /// If a log is missing (the query state was not built against this world's registry).
    #[inline]
    pub(crate) fn begin<F: QueryFilter, S: Storage>(
        &mut self,
        filter: &F::State,
        hidden: impl FnOnce() -> Option<ComponentId>,
        world: WorldView<'_, S>,
    ) {
        // Most queries track no change: one test, inlined into every query start.
        if !self.slots.is_empty() {
            self.begin_typed::<F, S>(filter, hidden(), world);
        }
    }

    /// [`ChangeRun::begin`] for a query with change cursors: the filter checks nothing more
    /// per candidate unless the query leaves disabled entities out.
    #[inline(always)]
    fn begin_typed<F: QueryFilter, S: Storage>(
        &mut self,
        filter: &F::State,
        hidden: Option<ComponentId>,
        world: WorldView<'_, S>,
    ) {
        match hidden {
            None => self.begin_tracked(&Typed::<F>(filter), world),
            Some(_) => {
                let filter = Hiding {
                    filter: Typed::<F>(filter),
                    hidden,
                };
                self.begin_tracked(&filter, world);
            }
        }
    }

    /// [`ChangeRun::begin`] for any [`RunFilter`] (a run-time query's); `hidden` as there:
    /// the component whose holders the query leaves out although its filter does not say so
    /// (`Disabled`, see [`crate::disabled`]).
    pub(crate) fn begin_with<R: RunFilter<S>, S: Storage>(
        &mut self,
        filter: &R,
        hidden: Option<ComponentId>,
        world: WorldView<'_, S>,
    ) {
        if self.slots.is_empty() {
            return;
        }
        match hidden {
            None => self.begin_tracked(filter, world),
            Some(_) => self.begin_tracked(&Hiding { filter, hidden }, world),
        }
    }

    /// [`ChangeRun::begin`] for a query with change cursors.
    #[inline(never)]
    fn begin_tracked<R: RunFilter<S>, S: Storage>(&mut self, filter: &R, world: WorldView<'_, S>) {
        if S::TRACED {
            // What the program marked changed first, so the replay's window holds it too.
            crate::trace::world_tally::record_changes(world);
            *self.began.get_mut() = true;
        }
        // All logs at once, in the global order (see the module docs on locking).
        let mut guards: Vec<MutexGuard<'_, LogInner>> = self
            .locks
            .iter()
            .map(|&(id, kind)| {
                world
                    .changes()
                    .log(id, kind)
                    .expect("change logs are created when the query state is built")
                    .lock()
            })
            .collect();
        let first_run = self.advance_cursors(&mut guards);
        self.driving.clear();
        self.mode = if first_run {
            Mode::Scan
        } else if filter.driving(&mut self.driving) {
            self.gather(filter, world, &guards);
            if self.has_items {
                self.fill_sets(&guards, |slot| slot.item);
            }
            Mode::Driven
        } else {
            self.fill_sets(&guards, |_| true);
            Mode::CheckedScan
        };
    }

    /// Moves the cursors; true if this is the first run (cursors were just registered).
    fn advance_cursors(&mut self, guards: &mut [MutexGuard<'_, LogInner>]) -> bool {
        let mut first_run = false;
        for slot in &mut self.slots {
            // `slot.lock` indexes `locks`, hence `guards` (invariant).
            let guard = &mut guards[slot.lock];
            match &mut slot.reader {
                Some(reader) => slot.window = Some(guard.advance(reader)),
                None => {
                    slot.reader = Some(guard.register_reader());
                    first_run = true;
                }
            }
        }
        if first_run {
            self.slots.iter_mut().for_each(|s| s.window = None);
        }
        first_run
    }

    /// Driven mode: the distinct, live, matching entities of the driving slots' windows.
    fn gather<R: RunFilter<S>, S: Storage>(
        &mut self,
        filter: &R,
        world: WorldView<'_, S>,
        guards: &[MutexGuard<'_, LogInner>],
    ) {
        let ChangeRun {
            slots,
            candidates,
            driving,
            ..
        } = self;
        candidates.clear();
        let probe = LockedProbe { slots, guards };
        for (i, &d) in driving.iter().enumerate() {
            let slot = &slots[d];
            let log = &guards[slot.lock];
            let (old, new) = slot.window.expect("not a first run");
            for (position, entity) in log.window(old, new) {
                if !log.is_latest(position, entity)
                    // Reported by an earlier driving slot already.
                    || driving[..i].iter().any(|&prev| probe.changed(prev, entity))
                    || !world.entities().contains(entity)
                    || !filter.matches_entity(world.storage(), &probe, entity)
                {
                    continue;
                }
                candidates.push(entity);
            }
        }
    }

    /// The changed entities of each slot `which` picks (checked-scan mode: every slot;
    /// driven: the items'), sorted for binary search.
    fn fill_sets(
        &mut self,
        guards: &[MutexGuard<'_, LogInner>],
        which: impl Fn(&ChangeSlot) -> bool,
    ) {
        for slot in self.slots.iter_mut().filter(|slot| which(slot)) {
            let log = &guards[slot.lock];
            let (old, new) = slot.window.expect("not a first run");
            slot.set.clear();
            slot.set.extend(
                log.window(old, new)
                    .filter(|&(position, entity)| log.is_latest(position, entity))
                    .map(|(_, entity)| entity),
            );
            slot.set.sort_unstable();
        }
    }

    /// A probe that locks each log as it asks (for single-entity look-ups between runs).
    pub(crate) fn probe<'a>(&'a self, changes: &'a ChangeStore) -> LockingProbe<'a> {
        LockingProbe { run: self, changes }
    }
}

/// Probe used while [`ChangeRun::begin`] holds every log's lock.
struct LockedProbe<'a, 'g> {
    slots: &'a [ChangeSlot],
    guards: &'a [MutexGuard<'g, LogInner>],
}

impl ChangeProbe for LockedProbe<'_, '_> {
    #[inline]
    fn changed(&self, slot: usize, entity: Entity) -> bool {
        let slot = &self.slots[slot];
        match slot.window {
            Some((old, _)) => self.guards[slot.lock].changed_since(entity, old),
            None => true,
        }
    }
}

/// Probe that takes one log's lock per question.
pub(crate) struct LockingProbe<'a> {
    run: &'a ChangeRun,
    changes: &'a ChangeStore,
}

impl ChangeProbe for LockingProbe<'_> {
    fn changed(&self, slot: usize, entity: Entity) -> bool {
        let slot = &self.run.slots[slot];
        match slot.window {
            Some((old, _)) => self
                .changes
                .log(slot.component, slot.kind)
                .is_some_and(|log| log.lock().changed_since(entity, old)),
            None => true,
        }
    }
}
