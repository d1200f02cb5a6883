//! Run-time queries: [`DynQuery`], built from component ids, for a scripting layer that
//! knows its components only at run time (named instances, run-time components, and typed
//! components by id, all alike).
//!
//! A `DynQuery` lists the components to fetch (read or write, required or optional) and
//! filters ([`DynFilter`]: `With`, `Without`, `Added`, `Changed`, `Or`, `All`);
//! [`World::dyn_query`] resolves it into a [`DynQueryState`] through the same
//! [`QueryBuilder`] the typed queries use, so it gets the same aliasing check, the same
//! backend query cache and chunks, and the same change runs (a `Changed` filter drives the
//! run from the change log, O(changes), exactly as `Changed<T>` does). Each matching
//! entity is handed to a closure as a [`DynItem`] (or [`DynItemMut`]): one pointer per
//! fetched component, readable as a byte slice of its layout (plain-data components), as a
//! typed reference (after a check of its Rust type), or raw.
//!
//! ```
//! use ecs_core::{World, Component, testing::VecStorage};
//! use ecs_core::query::{DynFilter, DynQuery};
//!
//! #[derive(Component)]
//! struct RenderData(f32);
//! #[derive(Component)]
//! struct Hidden;
//!
//! let mut world = World::<VecStorage>::new();
//! let a = world.spawn(());
//! world.insert_named(a, "Fog", RenderData(0.5)).unwrap();
//! let b = world.spawn((Hidden,));
//! world.insert_named(b, "Fog", RenderData(0.9)).unwrap();
//!
//! let fog = world.instance_id::<RenderData>("Fog");
//! let hidden = world.register_component::<Hidden>();
//! let query = DynQuery::new().write(fog).filter(DynFilter::Without(hidden));
//! let mut state = world.dyn_query(&query).unwrap();
//! state.for_each_mut(&mut world, |mut item| {
//!     item.get_mut::<RenderData>(0).unwrap().0 *= 2.0;
//! });
//! assert_eq!(world.get_named::<RenderData>(a, "Fog").unwrap().0, 1.0);
//! assert_eq!(world.get_named::<RenderData>(b, "Fog").unwrap().0, 0.9);
//! ```

use std::any::TypeId;
use std::ptr::NonNull;

use super::{Access, QueryBuilder};
use crate::change::{ChangeKind, ChangeProbe, ChangeRun, ChangeStore, Mut, RunFilter};
use crate::component::{Component, ComponentId, Components, MutableComponent};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{
    ColumnAccess, EntityPlace, QueryChunk, QueryDescriptor, SlotRole, SparseLookup, Storage,
};
use crate::world::{StateKey, World, WorldView};

/// One component a run-time query fetches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynTerm {
    /// The component (a type's id, a named instance's, a run-time component's).
    pub component: ComponentId,
    /// Whether the query writes it (handed out mutably by [`DynItemMut`]).
    pub write: bool,
    /// Whether an entity lacking it still matches (the item then has no pointer for it).
    pub optional: bool,
}

/// A condition on the entities a run-time query visits (the typed filters' counterparts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DynFilter {
    /// The entity has the component.
    With(ComponentId),
    /// The entity lacks the component.
    Without(ComponentId),
    /// The component was added since this query state's previous run (the component must
    /// track changes). Implies `With`.
    Added(ComponentId),
    /// The component was added or written since this query state's previous run (the
    /// component must track changes). Implies `With`.
    Changed(ComponentId),
    /// Any of the filters holds.
    Or(Vec<DynFilter>),
    /// All of the filters hold.
    All(Vec<DynFilter>),
}

/// A query described at run time: what to fetch and which entities to visit. Resolve it
/// with [`World::dyn_query`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DynQuery {
    terms: Vec<DynTerm>,
    filters: Vec<DynFilter>,
}

impl DynQuery {
    /// A query fetching nothing and visiting every entity.
    pub fn new() -> DynQuery {
        DynQuery::default()
    }

    /// Fetches `component` for reading; entities without it do not match.
    pub fn read(self, component: ComponentId) -> DynQuery {
        self.term(component, false, false)
    }

    /// Fetches `component` for writing; entities without it do not match.
    pub fn write(self, component: ComponentId) -> DynQuery {
        self.term(component, true, false)
    }

    /// Fetches `component` for reading where present.
    pub fn read_optional(self, component: ComponentId) -> DynQuery {
        self.term(component, false, true)
    }

    /// Fetches `component` for writing where present.
    pub fn write_optional(self, component: ComponentId) -> DynQuery {
        self.term(component, true, true)
    }

    /// Adds a fetched component; its index in items is the number of terms before it.
    pub fn term(mut self, component: ComponentId, write: bool, optional: bool) -> DynQuery {
        self.terms.push(DynTerm {
            component,
            write,
            optional,
        });
        self
    }

    /// Adds a filter (all filters must hold).
    pub fn filter(mut self, filter: DynFilter) -> DynQuery {
        self.filters.push(filter);
        self
    }

    /// The fetched components, in item order.
    pub fn terms(&self) -> &[DynTerm] {
        &self.terms
    }

    /// The filters.
    pub fn filters(&self) -> &[DynFilter] {
        &self.filters
    }
}

/// The terms a run keeps its per-term pointers for on the stack (more: on the heap).
const INLINE_TERMS: usize = 8;

/// The query slots a run keeps a chunk's columns for on the stack (more: on the heap).
const INLINE_SLOTS: usize = 16;

/// A fetched component, resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Term {
    slot: usize,
    id: ComponentId,
    /// The component's size in bytes (a multiple of its alignment: a column's stride).
    pub(crate) size: usize,
    /// Whether the query writes it.
    pub(crate) write: bool,
    optional: bool,
}

/// What a run of a [`DynQueryState`] hands its rows to: single rows, or whole chunks
/// where it can (see [`DynVisit::chunk`]).
pub(crate) trait DynVisit<'w> {
    /// One matching row: its entity, the terms, one pointer per term (`None`: an optional
    /// component it lacks), each valid for its term's `size` bytes while the call lasts.
    fn row(&mut self, entity: Entity, terms: &'w [Term], ptrs: &[Option<NonNull<u8>>]);

    /// A chunk every row of which matches: its entities, the terms, and one column base
    /// per term (`None`: an optional component the chunk lacks), row `i`'s value at
    /// `base + i * size`, valid for `entities.len() * size` bytes while the call lasts.
    /// `scratch` has one entry per term. By default, each row in turn.
    fn chunk(
        &mut self,
        entities: &[Entity],
        terms: &'w [Term],
        bases: &[Option<NonNull<u8>>],
        scratch: &mut [Option<NonNull<u8>>],
    ) {
        for (row, &entity) in entities.iter().enumerate() {
            for ((slot, base), term) in scratch.iter_mut().zip(bases).zip(terms) {
                // SAFETY: a column base holds the chunk's rows at `base + i * size` (the
                // contract above), and `row` is one of them.
                *slot = base.map(|base| unsafe { base.add(row * term.size) });
            }
            self.row(entity, terms, scratch);
        }
    }
}

/// A closure over single rows as a [`DynVisit`] (see [`rows`]).
struct Rows<F>(F);

/// `visit` as a [`DynVisit`] (the bound gives the closure its signature).
fn rows<'w, F: FnMut(Entity, &'w [Term], &[Option<NonNull<u8>>])>(visit: F) -> Rows<F> {
    Rows(visit)
}

impl<'w, F: FnMut(Entity, &'w [Term], &[Option<NonNull<u8>>])> DynVisit<'w> for Rows<F> {
    #[inline]
    fn row(&mut self, entity: Entity, terms: &'w [Term], ptrs: &[Option<NonNull<u8>>]) {
        (self.0)(entity, terms, ptrs)
    }
}

/// A [`DynVisit`] counting the rows it passes on (a trace's tally of a run).
struct Counted<'v, V> {
    inner: &'v mut V,
    rows: u64,
}

impl<'w, V: DynVisit<'w>> DynVisit<'w> for Counted<'_, V> {
    #[inline]
    fn row(&mut self, entity: Entity, terms: &'w [Term], ptrs: &[Option<NonNull<u8>>]) {
        self.rows += 1;
        self.inner.row(entity, terms, ptrs);
    }

    fn chunk(
        &mut self,
        entities: &[Entity],
        terms: &'w [Term],
        bases: &[Option<NonNull<u8>>],
        scratch: &mut [Option<NonNull<u8>>],
    ) {
        self.rows += entities.len() as u64;
        self.inner.chunk(entities, terms, bases, scratch);
    }
}

/// A filter, resolved to descriptor slots and change slots.
#[derive(Clone, Debug)]
enum Resolved {
    Presence {
        slot: usize,
        id: ComponentId,
        present: bool,
    },
    Change {
        slot: usize,
        id: ComponentId,
        change_slot: usize,
    },
    Any(Vec<Resolved>),
    All(Vec<Resolved>),
}

/// Whether a chunk's column holds the row's entity.
#[inline]
fn has<L: SparseLookup>(column: ColumnAccess<'_, L>, entity: Entity) -> bool {
    match column {
        ColumnAccess::Dense(_) => true,
        ColumnAccess::Sparse(lookup) => lookup.contains(entity),
        ColumnAccess::Absent => false,
    }
}

/// Pointer to the row's value in a chunk's column (`size`: the component's padded size).
#[inline]
fn pointer<L: SparseLookup>(
    column: ColumnAccess<'_, L>,
    row: usize,
    entity: Entity,
    size: usize,
) -> Option<NonNull<u8>> {
    match column {
        // SAFETY: a `Dense` column holds every row of the chunk, row `i` at
        // `base + i * size` (the `Storage` contract), and `row` is a row of the chunk.
        ColumnAccess::Dense(base) => Some(unsafe { base.add(row * size) }),
        ColumnAccess::Sparse(lookup) => lookup.lookup(entity),
        ColumnAccess::Absent => None,
    }
}

impl Resolved {
    /// Resolves `filter` into `builder`'s slots.
    fn new(filter: &DynFilter, builder: &mut QueryBuilder<'_>) -> Result<Resolved, EcsError> {
        let known =
            |builder: &QueryBuilder<'_>, id: ComponentId| -> Result<(bool, String), EcsError> {
                let info = builder
                    .registry()
                    .get(id)
                    .ok_or(EcsError::UnknownComponent(id))?;
                Ok((info.tracks_changes(), info.name().to_owned()))
            };
        Ok(match filter {
            DynFilter::With(id) | DynFilter::Without(id) => {
                known(builder, *id)?;
                let present = matches!(filter, DynFilter::With(_));
                let role = if present {
                    SlotRole::Required
                } else {
                    SlotRole::Excluded
                };
                Resolved::Presence {
                    slot: builder.slot(*id, role),
                    id: *id,
                    present,
                }
            }
            DynFilter::Added(id) | DynFilter::Changed(id) => {
                let (tracked, name) = known(builder, *id)?;
                if !tracked {
                    return Err(EcsError::Untracked(name));
                }
                let kind = match filter {
                    DynFilter::Added(_) => ChangeKind::Added,
                    _ => ChangeKind::Changed,
                };
                Resolved::Change {
                    slot: builder.slot(*id, SlotRole::Required),
                    id: *id,
                    change_slot: builder.change_slot(*id, kind),
                }
            }
            DynFilter::Or(parts) => {
                builder.begin_any();
                let parts = Self::all(parts, builder);
                builder.end_any();
                Resolved::Any(parts?)
            }
            DynFilter::All(parts) => Resolved::All(Self::all(parts, builder)?),
        })
    }

    fn all(parts: &[DynFilter], builder: &mut QueryBuilder<'_>) -> Result<Vec<Resolved>, EcsError> {
        parts
            .iter()
            .map(|part| Resolved::new(part, builder))
            .collect()
    }

    /// Whether every row of a chunk passes (`Some(true)`), none does (`Some(false)`), or
    /// it depends on the row (`None`: a sparse column or a change set to look in).
    fn chunk<L: SparseLookup>(
        &self,
        columns: &[ColumnAccess<'_, L>],
        run: &ChangeRun,
    ) -> Option<bool> {
        let held = |slot: usize| match columns[slot] {
            ColumnAccess::Dense(_) => Some(true),
            ColumnAccess::Absent => Some(false),
            ColumnAccess::Sparse(_) => None,
        };
        match self {
            Resolved::Presence { slot, present, .. } => held(*slot).map(|h| h == *present),
            Resolved::Change {
                slot, change_slot, ..
            } => match run.scan_set(*change_slot) {
                None => held(*slot),
                Some(_) => (held(*slot) == Some(false)).then_some(false),
            },
            Resolved::Any(parts) => Self::chunk_of(parts, columns, run, true),
            Resolved::All(parts) => Self::chunk_of(parts, columns, run, false),
        }
    }

    /// [`Resolved::chunk`] of a disjunction (`decisive` true) or a conjunction (`decisive`
    /// false) of `parts`: a part answering `decisive` decides it, every part answering the
    /// other way decides the other way, anything else depends on the row.
    fn chunk_of<L: SparseLookup>(
        parts: &[Resolved],
        columns: &[ColumnAccess<'_, L>],
        run: &ChangeRun,
        decisive: bool,
    ) -> Option<bool> {
        let mut settled = true;
        for part in parts {
            match part.chunk(columns, run) {
                Some(answer) if answer == decisive => return Some(decisive),
                Some(_) => {}
                None => settled = false,
            }
        }
        settled.then_some(!decisive)
    }

    /// Whether the row's `entity` passes, from the chunk's `columns` (one per slot).
    fn row<L: SparseLookup>(
        &self,
        columns: &[ColumnAccess<'_, L>],
        run: &ChangeRun,
        entity: Entity,
    ) -> bool {
        match self {
            Resolved::Presence { slot, present, .. } => has(columns[*slot], entity) == *present,
            Resolved::Change {
                slot, change_slot, ..
            } => {
                has(columns[*slot], entity)
                    && run
                        .scan_set(*change_slot)
                        .is_none_or(|set| set.binary_search(&entity).is_ok())
            }
            Resolved::Any(parts) => parts.iter().any(|p| p.row(columns, run, entity)),
            Resolved::All(parts) => parts.iter().all(|p| p.row(columns, run, entity)),
        }
    }
}

impl<S: Storage> RunFilter<S> for Resolved {
    fn driving(&self, out: &mut Vec<usize>) -> bool {
        match self {
            Resolved::Presence { .. } => false,
            Resolved::Change { change_slot, .. } => {
                out.push(*change_slot);
                true
            }
            // A conjunction accepts nothing a driving part rejects.
            Resolved::All(parts) => parts.iter().any(|p| RunFilter::<S>::driving(p, out)),
            // A disjunction drives only if every alternative does, by their union.
            Resolved::Any(parts) => {
                let len = out.len();
                let all = parts.iter().all(|p| RunFilter::<S>::driving(p, out));
                if !all {
                    out.truncate(len);
                }
                all && !parts.is_empty()
            }
        }
    }

    fn matches_entity<P: ChangeProbe>(&self, storage: &S, probe: &P, entity: Entity) -> bool {
        match self {
            Resolved::Presence { id, present, .. } => storage.contains(entity, *id) == *present,
            Resolved::Change {
                id, change_slot, ..
            } => probe.changed(*change_slot, entity) && storage.contains(entity, *id),
            Resolved::Any(parts) => parts
                .iter()
                .any(|p| p.matches_entity(storage, probe, entity)),
            Resolved::All(parts) => parts
                .iter()
                .all(|p| p.matches_entity(storage, probe, entity)),
        }
    }
}

/// A [`DynQuery`] resolved against one world: slots, access, the backend's query cache and
/// change cursors, kept across runs like a [`QueryState`](crate::QueryState).
pub struct DynQueryState<S: Storage> {
    /// The world's key when the state was resolved or last caught up (see `StateKey`).
    key: StateKey,
    descriptor: QueryDescriptor,
    /// The slot leaving out disabled entities, which no term or filter checks (see
    /// [`crate::disabled`]).
    hidden: Option<usize>,
    access: Access,
    terms: Vec<Term>,
    /// The query's filters, as one conjunction.
    filter: Resolved,
    /// The filters as given (what a trace records of a run).
    conditions: Vec<DynFilter>,
    cache: S::QueryCache,
    changes: ChangeRun,
}

impl<S: Storage> World<S> {
    /// Resolves a run-time query against this world (creating the change logs its
    /// filters and tracked writes need).
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] for an id this world did not hand out,
    /// [`EcsError::QueryConflict`] when a written component is fetched or written twice,
    /// [`EcsError::Untracked`] for `Added`/`Changed` on a component that does not track
    /// changes, [`EcsError::Immutable`] for a written term of an immutable component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// # use ecs_core::query::DynQuery;
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let hp = world.register_component::<Hp>();
    /// world.spawn((Hp(3),));
    /// let mut state = world.dyn_query(&DynQuery::new().read(hp)).unwrap();
    /// let mut total = 0;
    /// state.for_each(&world, |item| total += item.get::<Hp>(0).unwrap().0);
    /// assert_eq!(total, 3);
    /// let aliasing = DynQuery::new().write(hp).read(hp);
    /// assert!(matches!(world.dyn_query(&aliasing), Err(EcsError::QueryConflict { .. })));
    /// ```
    pub fn dyn_query(&mut self, query: &DynQuery) -> Result<DynQueryState<S>, EcsError> {
        let components = self.components();
        for term in &query.terms {
            let info = components
                .get(term.component)
                .ok_or(EcsError::UnknownComponent(term.component))?;
            if term.write && !info.is_mutable() {
                return Err(EcsError::Immutable(info.name().to_owned()));
            }
        }
        let sizes: Vec<usize> = query
            .terms
            .iter()
            .map(|t| components.info(t.component).layout().size())
            .collect();
        let mut builder = QueryBuilder::new(self.components_mut());
        let mut terms = Vec::with_capacity(query.terms.len());
        for (term, size) in query.terms.iter().zip(sizes) {
            if term.write {
                builder.write(term.component);
            } else {
                builder.read(term.component);
            }
            let role = if term.optional {
                SlotRole::Optional
            } else {
                SlotRole::Required
            };
            terms.push(Term {
                slot: builder.slot(term.component, role),
                id: term.component,
                size,
                write: term.write,
                optional: term.optional,
            });
        }
        let filter = Resolved::All(Resolved::all(&query.filters, &mut builder)?);
        let plan = builder.finish()?;
        self.ensure_change_logs(plan.access.components());
        Ok(DynQueryState {
            key: self.components().key(),
            hidden: plan.hidden,
            descriptor: plan.descriptor,
            access: plan.access,
            terms,
            filter,
            conditions: query.filters.clone(),
            cache: S::QueryCache::default(),
            changes: ChangeRun::new(&plan.change_slots, &plan.item_change_slots),
        })
    }
}

impl<S: Storage> DynQueryState<S> {
    /// The components the query reads, writes and watches.
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// The storage-facing descriptor.
    pub fn descriptor(&self) -> &QueryDescriptor {
        &self.descriptor
    }

    /// True when the latest run visited only the entities in its change logs.
    pub fn is_log_driven(&self) -> bool {
        self.changes.is_driven()
    }

    /// Calls `f` with each matching entity's item, through a shared world (one run: change
    /// filters see what changed since the previous run). Written components are handed out
    /// shared, like read ones.
    ///
    /// # Panics
    /// If `world` is not the world this state was resolved against.
    pub fn for_each(&mut self, world: &World<S>, mut f: impl FnMut(DynItem<'_>)) {
        let components = world.components();
        // SAFETY: the items only read, and `&World` only hands out shared borrows.
        unsafe {
            self.run(
                world.view(),
                &mut rows(|entity, terms, ptrs| {
                    f(DynItem {
                        entity,
                        terms,
                        ptrs,
                        components,
                    })
                }),
            )
        }
    }

    /// Calls `f` with each matching entity's item, which can write the components the
    /// query writes (one run).
    ///
    /// # Panics
    /// If `world` is not the world this state was resolved against.
    pub fn for_each_mut(&mut self, world: &mut World<S>, mut f: impl FnMut(DynItemMut<'_>)) {
        let view = world.view();
        let (components, changes) = (view.components(), view.changes());
        // SAFETY: `&mut World` excludes every other access while the run lasts; each item
        // is one entity's (entities of a run are distinct) and lives for one call of `f`.
        unsafe {
            self.run(
                view,
                &mut rows(|entity, terms, ptrs| {
                    f(DynItemMut {
                        item: DynItem {
                            entity,
                            terms,
                            ptrs,
                            components,
                        },
                        changes,
                    })
                }),
            )
        }
    }

    /// The entities the query matches now (one run).
    ///
    /// # Panics
    /// If `world` is not the world this state was resolved against.
    pub fn entities(&mut self, world: &World<S>) -> Vec<Entity> {
        let mut out = Vec::new();
        self.for_each(world, |item| out.push(item.entity()));
        out
    }

    /// One run: hands `visit` each matching entity, the terms and one pointer per term
    /// (`None`: an optional component the entity lacks), by row or by chunk.
    ///
    /// # Safety
    /// While the run lasts, nothing else writes the components the query reads or
    /// accesses those `visit` writes.
    unsafe fn run<'w>(&'w mut self, world: WorldView<'w, S>, visit: &mut impl DynVisit<'w>) {
        if S::TRACED && world.storage().recorder().is_some_and(|r| r.is_active()) {
            // SAFETY: forwarded contract.
            return unsafe { self.run_traced(world, visit) };
        }
        // SAFETY: forwarded contract.
        unsafe { self.run_all(world, true, visit) }
    }

    /// One run through `&mut World` handing `visit` whole chunks where it can, or with
    /// `again` the window of the previous run iterated again (change cursors stay put):
    /// what a trace replay does for a system's query iterated twice in one system run.
    /// Marks no change: the visitor writes what it likes of the written terms.
    #[inline(never)]
    pub(crate) fn visit_window<'w>(
        &'w mut self,
        world: &'w mut World<S>,
        again: bool,
        visit: &mut impl DynVisit<'w>,
    ) {
        // SAFETY: `&mut World` excludes every other access while the run lasts.
        unsafe { self.run_all(world.view(), !again, visit) }
    }

    /// [`DynQueryState::run`] counting its rows into a trace (out of line, so `run` keeps
    /// its size for the inliner).
    ///
    /// # Safety
    /// As for [`DynQueryState::run`].
    #[inline(never)]
    unsafe fn run_traced<'w>(&'w mut self, world: WorldView<'w, S>, visit: &mut impl DynVisit<'w>) {
        let tally = crate::trace::world_tally::tally(
            world,
            &self.descriptor,
            &self.access,
            &self.changes,
            || {
                let mut conditions = self.conditions.clone();
                // The exclusion no term or filter states (see `QueryState`'s traced run).
                if let Some(slot) = self.hidden {
                    let disabled = self.descriptor.slots()[slot].component;
                    conditions.push(DynFilter::Without(disabled));
                }
                conditions
            },
        );
        let mut counted = Counted {
            inner: visit,
            rows: 0,
        };
        // SAFETY: forwarded contract.
        unsafe { self.run_all(world, true, &mut counted) };
        if let Some(tally) = tally {
            tally.took_all(counted.rows);
        }
    }

    /// [`DynQueryState::run`] without recording.
    ///
    /// # Safety
    /// As for [`DynQueryState::run`].
    unsafe fn run_all<'w>(
        &'w mut self,
        world: WorldView<'w, S>,
        begin: bool,
        visit: &mut impl DynVisit<'w>,
    ) {
        if self.key != world.key() {
            self.catch_up(world);
        }
        let storage = world.storage();
        storage.update_query_cache(&mut self.cache, &self.descriptor, world.components());
        let hidden = self
            .hidden
            .map(|slot| self.descriptor.slots()[slot].component);
        if begin {
            self.changes.begin_with(&self.filter, hidden, world);
        }
        let this = &*self;
        // Per-term pointers and column bases, on the stack for up to `INLINE_TERMS` terms.
        let terms = this.terms.len();
        let mut inline = [None; 2 * INLINE_TERMS];
        let mut heap = Vec::new();
        let buffer: &mut [Option<NonNull<u8>>] = if terms <= INLINE_TERMS {
            &mut inline[..2 * terms]
        } else {
            heap.resize(2 * terms, None);
            &mut heap
        };
        let (ptrs, bases) = buffer.split_at_mut(terms);
        if let Some(candidates) = this.changes.candidates() {
            // Driven: the run's filter was checked per candidate when the run began.
            for &entity in candidates {
                let Some(place) = storage.place(entity) else {
                    continue;
                };
                if this.fill(ptrs, |term| place.ptr(term.id)) {
                    visit.row(entity, &this.terms, ptrs);
                }
            }
            return;
        }
        let alive = world.entities().alive();
        let slots = this.descriptor.slots().len();
        let mut inline = [ColumnAccess::Absent; INLINE_SLOTS];
        let mut heap = Vec::new();
        for chunk in storage.query_chunks(&this.cache, &this.descriptor, alive) {
            let columns: &mut [ColumnAccess<'_, _>] = if slots <= INLINE_SLOTS {
                &mut inline[..slots]
            } else {
                heap.clear();
                heap.resize(slots, ColumnAccess::Absent);
                &mut heap
            };
            for (slot, column) in columns.iter_mut().enumerate() {
                *column = chunk.column(slot);
            }
            let columns = &*columns;
            let entities = chunk.entities();
            let hidden = match this.hidden.map(|slot| columns[slot]) {
                // Every row disabled.
                Some(ColumnAccess::Dense(_)) => continue,
                Some(ColumnAccess::Sparse(lookup)) if !lookup.holds_none() => Some(lookup),
                _ => None,
            };
            match this.filter.chunk(columns, &this.changes) {
                Some(false) => continue,
                Some(true) if hidden.is_none() && this.dense_bases(columns, bases) => {
                    if !entities.is_empty() {
                        visit.chunk(entities, &this.terms, bases, ptrs);
                    }
                    continue;
                }
                _ => {}
            }
            for (row, &entity) in entities.iter().enumerate() {
                if hidden.is_some_and(|lookup| super::iter::holds_hidden(lookup, entity))
                    || !this.filter.row(columns, &this.changes, entity)
                {
                    continue;
                }
                let found = this.fill(ptrs, |term| {
                    pointer(columns[term.slot], row, entity, term.size)
                });
                if found {
                    visit.row(entity, &this.terms, ptrs);
                }
            }
        }
    }

    /// Checks that `world` is the state's and catches up with its registry: once
    /// `Disabled` is registered, a state resolved before leaves disabled entities out too.
    ///
    /// # Panics
    /// If `world` is not the world this state was resolved against.
    #[cold]
    fn catch_up(&mut self, world: WorldView<'_, S>) {
        assert_eq!(
            self.key.world(),
            world.id(),
            "DynQueryState used with a world other than the one it was resolved against"
        );
        if let (None, Some(disabled)) = (self.hidden, world.components().disabled()) {
            self.hidden = super::access::hide_disabled(&mut self.descriptor, disabled);
            self.cache = S::QueryCache::default();
            if S::TRACED {
                crate::trace::world_tally::reshape(world, &self.changes);
            }
        }
        self.key = world.key();
    }

    /// Fills one column base per term when every term's column is dense (or absent, for
    /// an optional term): the chunk can be handed over whole.
    fn dense_bases<L: SparseLookup>(
        &self,
        columns: &[ColumnAccess<'_, L>],
        bases: &mut [Option<NonNull<u8>>],
    ) -> bool {
        for (term, base) in self.terms.iter().zip(bases.iter_mut()) {
            *base = match columns[term.slot] {
                ColumnAccess::Dense(column) => Some(column),
                ColumnAccess::Absent if term.optional => None,
                _ => return false,
            };
        }
        true
    }

    /// Fills one pointer per term; false when a required one is missing.
    #[inline]
    fn fill(
        &self,
        ptrs: &mut [Option<NonNull<u8>>],
        mut find: impl FnMut(&Term) -> Option<NonNull<u8>>,
    ) -> bool {
        for (term, slot) in self.terms.iter().zip(ptrs.iter_mut()) {
            *slot = find(term);
            if slot.is_none() && !term.optional {
                return false;
            }
        }
        true
    }
}

/// One entity's components in a run-time query run (see [`DynQueryState::for_each`]): one
/// entry per fetched component, in the order of the query's terms.
pub struct DynItem<'a> {
    entity: Entity,
    terms: &'a [Term],
    ptrs: &'a [Option<NonNull<u8>>],
    components: &'a Components,
}

impl DynItem<'_> {
    /// The entity.
    #[inline]
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// Number of fetched components.
    #[inline]
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// True when the query fetches nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The component of term `term` (`None` past the last term).
    #[inline]
    pub fn component(&self, term: usize) -> Option<ComponentId> {
        self.terms.get(term).map(|t| t.id)
    }

    /// Raw pointer to term `term`'s value (its layout is the registry's); `None` when
    /// absent. Reading through it is `unsafe`: valid for the item's call only.
    #[inline]
    pub fn ptr(&self, term: usize) -> Option<NonNull<u8>> {
        self.ptrs.get(term).copied().flatten()
    }

    /// Term `term`'s value as a `T`: `None` when absent or when the component's values are
    /// not `T`s (a named instance of `T` holds `T`s). Borrows the item, so a
    /// [`DynItemMut`] cannot hand the value out mutably meanwhile.
    pub fn get<T: Component>(&self, term: usize) -> Option<&T> {
        let ptr = self.typed::<T>(term)?;
        // SAFETY: the value is an initialised `T` (checked against the registry), shared
        // for the item's lifetime (the run's access rules).
        Some(unsafe { ptr.cast::<T>().as_ref() })
    }

    /// Term `term`'s value as bytes, for plain-data run-time components (no Rust type, no
    /// drop function: every byte initialised); `None` otherwise or when absent.
    pub fn bytes(&self, term: usize) -> Option<&[u8]> {
        let (ptr, size) = self.plain(term)?;
        // SAFETY: plain-data values are written whole (by bytes or by an initialised
        // value), so all `size` bytes are initialised; shared for the item's lifetime.
        Some(unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size) })
    }

    fn typed<T: Component>(&self, term: usize) -> Option<NonNull<u8>> {
        let id = self.terms.get(term)?.id;
        let is_t = self.components.info(id).type_id() == Some(TypeId::of::<T>());
        is_t.then(|| self.ptr(term)).flatten()
    }

    fn plain(&self, term: usize) -> Option<(NonNull<u8>, usize)> {
        let t = self.terms.get(term)?;
        let info = self.components.info(t.id);
        let plain = info.type_id().is_none() && info.drop_fn().is_none();
        plain.then(|| Some((self.ptr(term)?, t.size))).flatten()
    }
}

/// One entity's components in a run of [`DynQueryState::for_each_mut`]: what [`DynItem`]
/// reads, plus mutable access to the components the query writes. A mutable access to a
/// component that tracks changes records a change: [`DynItemMut::get_mut`] on the first
/// write through its guard, the raw ones ([`DynItemMut::bytes_mut`],
/// [`DynItemMut::ptr_mut`]) when handed out.
pub struct DynItemMut<'a> {
    item: DynItem<'a>,
    changes: &'a ChangeStore,
}

impl<'a> std::ops::Deref for DynItemMut<'a> {
    type Target = DynItem<'a>;
    fn deref(&self) -> &DynItem<'a> {
        &self.item
    }
}

impl DynItemMut<'_> {
    /// Term `term`'s value as a mutable `T` (a guard that records the write if the
    /// component tracks changes); `None` when absent, not a written term, or not a `T`.
    pub fn get_mut<T: MutableComponent>(&mut self, term: usize) -> Option<Mut<'_, T>> {
        if !self.item.terms.get(term)?.write {
            return None;
        }
        let ptr = self.item.typed::<T>(term)?;
        let log = self.log(term);
        // SAFETY: an initialised `T` (checked), written by this query only (its access),
        // for this entity only; `&mut self` keeps the item from handing it out twice.
        Some(Mut::new(
            unsafe { ptr.cast::<T>().as_mut() },
            log,
            self.item.entity,
        ))
    }

    /// Term `term`'s value as mutable bytes (plain-data components of written terms);
    /// records a change now if the component tracks changes.
    pub fn bytes_mut(&mut self, term: usize) -> Option<&mut [u8]> {
        if !self.item.terms.get(term)?.write {
            return None;
        }
        let (ptr, size) = self.item.plain(term)?;
        self.mark(term);
        // SAFETY: as for `bytes`, and written by this query only, for this entity only;
        // `&mut self` keeps the item from handing it out twice.
        Some(unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), size) })
    }

    /// [`DynItemMut::bytes_mut`] without recording a change: for writes that queries
    /// watching the component must not see (a trace replay marks the program's changes
    /// itself).
    pub fn bytes_mut_unmarked(&mut self, term: usize) -> Option<&mut [u8]> {
        if !self.item.terms.get(term)?.write {
            return None;
        }
        let (ptr, size) = self.item.plain(term)?;
        // SAFETY: as for `bytes_mut`.
        Some(unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), size) })
    }

    /// Raw pointer for writing term `term`'s value (a written term); records a change now
    /// if the component tracks changes. Writing through it is `unsafe`: a valid value of
    /// the component's layout, during the item's call only.
    pub fn ptr_mut(&mut self, term: usize) -> Option<NonNull<u8>> {
        if !self.item.terms.get(term)?.write {
            return None;
        }
        let ptr = self.item.ptr(term)?;
        self.mark(term);
        Some(ptr)
    }

    fn log(&self, term: usize) -> Option<&crate::change::ChangeLog> {
        let id = self.item.terms[term].id;
        if !self.item.components.info(id).tracks_changes() {
            return None;
        }
        self.changes.log(id, ChangeKind::Changed)
    }

    fn mark(&self, term: usize) {
        if let Some(log) = self.log(term) {
            log.mark(self.item.entity);
        }
    }
}
