//! [`QueryState`]: a query resolved against one world, kept across runs.

use super::ReadOnlyQueryData;
use super::{
    Access, FetchContext, QueryBuilder, QueryData, QueryFilter, QueryIter, QueryPlan, QueryView,
};
use crate::change::ChangeRun;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{QueryDescriptor, Storage};
use crate::world::{StateKey, World, WorldId, WorldView};

/// A query resolved against one world: its descriptor, access, the backend's cache and the
/// cursors of its change filters.
///
/// Keep one across frames (as a system does) so the backend only examines what changed in
/// the world's layout since the last run, and so `Changed<T>` / `Added<T>` report what
/// changed since *this* state last ran. [`World::query`] keeps one per query type for you.
///
/// Each call to `iter`, `iter_mut` or `iter_unchecked` is one *run*: it moves the change
/// cursors (see [`crate::change`]).
pub struct QueryState<Q: QueryData, F: QueryFilter, S: Storage> {
    /// The world's key when the state was built or last caught up (see [`StateKey`]), with
    /// the `checks` bit set when a look-up checks anything before it fetches
    /// (`check_alive`, or a hidden slot): one comparison with the world's key then says
    /// "right world, up to date, nothing to check", the look-up's only test on its fast
    /// path.
    key: StateKey,
    pub(super) descriptor: QueryDescriptor,
    access: Access,
    pub(super) data: Q::State,
    pub(super) filter: F::State,
    pub(super) cache: S::QueryCache,
    pub(super) changes: ChangeRun,
    /// Whether `get` must ask the allocator if the entity is live: only when no `Required`
    /// slot would reject a stale handle by itself (storages compare whole handles).
    check_alive: bool,
    /// The slot excluding [`Disabled`](crate::Disabled) that no part of the query checks
    /// (see [`crate::disabled`]): storages answer it per chunk, look-ups ask for it;
    /// [`NOT_HIDING`] when there is none (a `u32`, so it fits beside the flags below and
    /// the state is no larger than before disabling existed).
    hidden_slot: u32,
}

impl<Q: QueryData, F: QueryFilter, S: Storage> QueryState<Q, F, S> {
    /// Resolves `Q` and `F` against `world`, registering their components (and creating the
    /// change logs of the tracked ones).
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when the query would alias a component (`(&mut A, &A)`).
    pub fn new(world: &mut World<S>) -> Result<Self, EcsError> {
        let mut builder = QueryBuilder::new(world.components_mut());
        let data = Q::init(&mut builder);
        let filter = F::init(&mut builder);
        let plan = builder.finish();
        // Registering may have given the world its first hooked type.
        world.sync_reactions();
        let plan = plan?;
        world.ensure_change_logs(plan.access.components());
        Ok(Self::from_plan(
            world.components().key(),
            plan,
            data,
            filter,
        ))
    }

    /// Resolves a read-only `Q` and `F` against `world` without registering anything (for
    /// [`World::query_ref`]): a type the world never registered is named by the world's
    /// stand-in that no entity holds ([`Unstored`](crate::component::Unstored)). `None` when
    /// a required slot names such a type: no entity can match.
    ///
    /// No change log is created, so the state must never begin a run
    /// ([`QueryState::begin_run`]): its change filters stay as on a first run, where every
    /// entity with the component passes. Iterate it with [`QueryState::update_cache`] and
    /// [`QueryState::iter_prepared`].
    pub(crate) fn resolve(world: &World<S>) -> Option<Self>
    where
        Q: ReadOnlyQueryData,
    {
        let mut builder = QueryBuilder::resolving(world.components());
        let data = Q::init(&mut builder);
        let filter = F::init(&mut builder);
        let plan = builder
            .finish()
            .expect("a read-only query records no writes, so it cannot alias");
        if plan.matches_nothing {
            return None;
        }
        Some(Self::from_plan(
            world.components().key(),
            plan,
            data,
            filter,
        ))
    }

    fn from_plan(key: StateKey, plan: QueryPlan, data: Q::State, filter: F::State) -> Self {
        let check_alive = plan.descriptor.required().next().is_none();
        QueryState {
            key: key.with_checks(check_alive || plan.hidden.is_some()),
            check_alive,
            hidden_slot: slot_number(plan.hidden),
            descriptor: plan.descriptor,
            access: plan.access,
            data,
            filter,
            cache: S::QueryCache::default(),
            changes: ChangeRun::new(&plan.change_slots, &plan.item_change_slots),
        }
    }

    /// The components the query reads, writes and watches.
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// The storage-facing descriptor.
    pub fn descriptor(&self) -> &QueryDescriptor {
        &self.descriptor
    }

    /// True when the latest run visited only the entities in its change logs (O(changes))
    /// rather than scanning (see [`crate::change`]).
    pub fn is_log_driven(&self) -> bool {
        self.changes.is_driven()
    }

    /// Iterates with exclusive access to the world (one run).
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    pub fn iter_mut<'w>(&'w mut self, world: &'w mut World<S>) -> QueryIter<'w, Q, F, S> {
        // SAFETY: `&mut World` guarantees nothing else borrows the storage for `'w`.
        unsafe { self.iter_unchecked(world) }
    }

    /// Iterates a read-only query through a shared world (one run).
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    pub fn iter<'w>(&'w mut self, world: &'w World<S>) -> QueryIter<'w, Q, F, S>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: the query only reads, and `&World` only hands out shared borrows.
        unsafe { self.iter_unchecked(world) }
    }

    /// Iterates without checking that the world's borrows allow the query's writes (one run).
    ///
    /// # Safety
    /// For `'w`, nothing else may access the components this query writes, and nothing may
    /// write the components it reads or watches.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    pub unsafe fn iter_unchecked<'w>(&'w mut self, world: &'w World<S>) -> QueryIter<'w, Q, F, S> {
        // SAFETY: forwarded contract.
        unsafe { self.iter_view(world.view()) }
    }

    /// # Safety
    /// As for [`QueryState::iter_unchecked`].
    #[inline]
    pub(crate) unsafe fn iter_view<'w>(
        &'w mut self,
        world: WorldView<'w, S>,
    ) -> QueryIter<'w, Q, F, S> {
        self.begin_run(world);
        // SAFETY: forwarded contract; the run was just prepared, and `&'w mut self` keeps any
        // other iteration of this state from existing.
        unsafe { self.iter_prepared(world) }
    }

    /// Starts a run: brings the backend's cache up to date and moves the change cursors.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    #[inline]
    pub(crate) fn begin_run(&mut self, world: WorldView<'_, S>) {
        self.catch_up(world);
        world
            .storage()
            .update_query_cache(&mut self.cache, &self.descriptor, world.components());
        let (descriptor, slot) = (&self.descriptor, self.hidden_slot);
        let hidden = || (slot != NOT_HIDING).then(|| descriptor.slots()[slot as usize].component);
        self.changes.begin::<F, S>(&self.filter, hidden, world);
    }

    /// The slot the query leaves out without naming it (`Disabled`), if any.
    #[inline]
    pub(super) fn hidden(&self) -> Option<usize> {
        (self.hidden_slot != NOT_HIDING).then_some(self.hidden_slot as usize)
    }

    /// Checks that `world` is the state's, and brings the state up to date with its
    /// registry (one comparison when it is).
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    #[inline(always)]
    fn catch_up(&mut self, world: WorldView<'_, S>) {
        if self.key.registry() != world.key() {
            self.catch_up_slow(world);
        }
    }

    /// [`QueryState::catch_up`] for a key that differs: another world (a panic), or
    /// `Disabled` registered since the state was built, which adds the slot leaving
    /// disabled entities out (and forgets the backend's cache, whose entries have one slot
    /// fewer).
    #[cold]
    #[inline(never)]
    fn catch_up_slow(&mut self, world: WorldView<'_, S>) {
        self.check_world(world.id());
        if let (None, Some(disabled)) = (self.hidden(), world.components().disabled()) {
            let hidden = super::access::hide_disabled(&mut self.descriptor, disabled);
            self.hidden_slot = slot_number(hidden);
            if hidden.is_some() {
                self.cache = S::QueryCache::default();
                if S::TRACED {
                    crate::trace::world_tally::reshape(world, &self.changes);
                }
            }
        }
        let checks = self.check_alive || self.hidden().is_some();
        self.key = world.key().with_checks(checks);
    }

    /// Brings the backend's cache up to date for `world`, without starting a run (the
    /// change cursors stay where they are).
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    #[inline]
    pub(crate) fn update_cache(&mut self, world: WorldView<'_, S>) {
        self.catch_up(world);
        world
            .storage()
            .update_query_cache(&mut self.cache, &self.descriptor, world.components());
    }

    /// Iterates the run prepared by the last [`QueryState::begin_run`].
    ///
    /// # Safety
    /// As for [`QueryState::iter_unchecked`]; `world` has not been mutated since the run began
    /// (for a state that never runs, [`QueryState::resolve`]'s, since its cache was updated),
    /// and no other iterator of this state that yields writable items is alive.
    #[inline]
    pub(crate) unsafe fn iter_prepared<'w>(
        &'w self,
        world: WorldView<'w, S>,
    ) -> QueryIter<'w, Q, F, S> {
        if S::TRACED {
            // SAFETY: forwarded contract.
            return unsafe { self.iter_traced(world) };
        }
        if self.hidden_slot != NOT_HIDING {
            // SAFETY: forwarded contract.
            return unsafe { self.iter_hiding(world) };
        }
        let ctx = FetchContext::new(world, &self.changes);
        match self.changes.candidates() {
            Some(candidates) => QueryIter::entities(candidates, &self.data, ctx),
            None => QueryIter::chunks(
                &self.data,
                &self.filter,
                world.storage().query_chunks(
                    &self.cache,
                    &self.descriptor,
                    world.entities().alive(),
                ),
                ctx,
                None,
            ),
        }
    }

    /// [`QueryState::iter_prepared`] for a state leaving disabled entities out: out of
    /// line, so a query that hides nothing builds its iterator as before. Its body repeats
    /// `iter_prepared`'s on purpose: one shared helper taking the hidden slot (always
    /// inlined) cost hybrid's small_iter_seq 3.6 % more instructions per run.
    ///
    /// # Safety
    /// As for [`QueryState::iter_prepared`].
    #[inline(never)]
    unsafe fn iter_hiding<'w>(&'w self, world: WorldView<'w, S>) -> QueryIter<'w, Q, F, S> {
        let ctx = FetchContext::new(world, &self.changes);
        match self.changes.candidates() {
            // Candidates holding `Disabled` were turned away when the run began.
            Some(candidates) => QueryIter::entities(candidates, &self.data, ctx),
            None => QueryIter::chunks(
                &self.data,
                &self.filter,
                world.storage().query_chunks(
                    &self.cache,
                    &self.descriptor,
                    world.entities().alive(),
                ),
                ctx,
                self.hidden(),
            ),
        }
    }

    /// [`QueryState::iter_prepared`] on a storage that can record: the run's items are
    /// counted into a tally while a trace is recorded.
    ///
    /// # Safety
    /// As for [`QueryState::iter_prepared`].
    #[inline(never)]
    unsafe fn iter_traced<'w>(&'w self, world: WorldView<'w, S>) -> QueryIter<'w, Q, F, S> {
        let ctx = FetchContext::new(world, &self.changes);
        let mut iter = match self.changes.candidates() {
            Some(candidates) => QueryIter::entities(candidates, &self.data, ctx),
            None => QueryIter::chunks(
                &self.data,
                &self.filter,
                world.storage().query_chunks(
                    &self.cache,
                    &self.descriptor,
                    world.entities().alive(),
                ),
                ctx,
                self.hidden(),
            ),
        };
        iter.tally = crate::trace::world_tally::tally(
            world,
            &self.descriptor,
            &self.access,
            &self.changes,
            || {
                let mut conditions = Vec::new();
                Q::conditions(&self.data, &mut conditions);
                F::conditions(&self.filter, &mut conditions);
                // The exclusion no part of the query states: a replay, whose `Disabled` is
                // a run-time component, must leave the same entities out.
                if let Some(slot) = self.hidden() {
                    let disabled = self.descriptor.slots()[slot].component;
                    conditions.push(crate::query::DynFilter::Without(disabled));
                }
                conditions
            },
        );
        iter
    }

    /// The item of one entity if it matches the query (change filters answer for the
    /// window of the latest run, counting changes made since it began; everything passes
    /// before the first run).
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(3),));
    /// let empty = world.spawn(());
    /// let state = world.query_state::<&Hp, ()>().unwrap();
    /// assert_eq!(state.get(&world, e).map(|hp| hp.0), Some(3));
    /// assert!(state.get(&world, empty).is_none());
    /// ```
    #[inline]
    pub fn get<'w>(&'w self, world: &'w World<S>, entity: Entity) -> Option<Q::Item<'w>>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: the query only reads, and `&World` only hands out shared borrows.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// Like [`QueryState::get`] for a query that may write.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    #[inline]
    pub fn get_mut<'w>(&'w self, world: &'w mut World<S>, entity: Entity) -> Option<Q::Item<'w>> {
        // SAFETY: `&mut World` excludes every other access for `'w`.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// Like [`QueryState::get`] without checking the world's borrows.
    ///
    /// # Safety
    /// For `'w`, nothing else may access the components this query writes for `entity`
    /// (including another item of this query for it), and nothing may write what it reads.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    #[inline]
    pub unsafe fn get_unchecked<'w>(
        &'w self,
        world: &'w World<S>,
        entity: Entity,
    ) -> Option<Q::Item<'w>> {
        // SAFETY: forwarded contract.
        unsafe { self.get_in(world.view(), entity) }
    }

    /// [`QueryState::get_unchecked`] on the parts of a world.
    ///
    /// # Safety
    /// As for [`QueryState::get_unchecked`].
    #[inline]
    pub(super) unsafe fn get_in<'w>(
        &'w self,
        view: WorldView<'w, S>,
        entity: Entity,
    ) -> Option<Q::Item<'w>> {
        // SAFETY: forwarded contract.
        let item = unsafe { self.look_up(view, entity) };
        if S::TRACED {
            self.record_get(view, entity, item.is_some());
        }
        item
    }

    /// Records a look-up of `entity` that answered (`found`: an item) or not, if `view`'s
    /// storage records: buffered without a lock when it can be (the common case, kept
    /// inline), through [`QueryState::trace_get`] otherwise.
    #[inline]
    pub(super) fn record_get(&self, view: WorldView<'_, S>, entity: Entity, found: bool) {
        let Some(recorder) = view.storage().recorder() else {
            return;
        };
        if recorder.is_active()
            && !(found && recorder.buffer_query_get(self.changes.trace_memo(), entity))
        {
            self.trace_get(view, entity);
        }
    }

    /// [`QueryState::get_in`] without recording it.
    ///
    /// # Safety
    /// As for [`QueryState::get_unchecked`].
    #[inline]
    unsafe fn look_up<'w>(&'w self, view: WorldView<'w, S>, entity: Entity) -> Option<Q::Item<'w>> {
        // One test when the state is up to date and checks nothing: the same test that
        // checks the state is used with its own world (a required slot rejects stale
        // handles by itself, and no disabled entity can exist or the query names them).
        if self.key != view.key() {
            let stale = self.key.registry() != view.key();
            if stale {
                self.check_world(view.id());
            }
            if self.check_alive && !view.entities().contains(entity) {
                return None;
            }
            // The hidden slot always names `Disabled`; a state built before it was
            // registered has no slot yet, cannot add one through `&self`, and asks too (its
            // next run catches up).
            if self.hidden_slot != NOT_HIDING || stale {
                let disabled = view.components().disabled();
                if disabled.is_some_and(|d| view.storage().contains(entity, d)) {
                    return None;
                }
            }
        }
        let place = view.storage().place(entity)?;
        let probe = self.changes.probe(view.changes());
        if !F::matches_entity(&self.filter, view.storage(), &probe, entity) {
            return None;
        }
        let ctx = FetchContext::new(view, &self.changes);
        // SAFETY: the entity is live or the query has a required slot (`check_alive`);
        // `place` is its place; the caller guarantees exclusive access as required.
        unsafe { Q::fetch_entity(&self.data, ctx, &place, entity) }
    }

    /// Records a look-up of `entity` in the trace `view`'s storage records, if any, through
    /// the recorder's lock (each fetched component's presence asked of the storage).
    #[inline(never)]
    pub(super) fn trace_get(&self, view: WorldView<'_, S>, entity: Entity) {
        crate::trace::world_tally::trace_query_get(
            view,
            &self.descriptor,
            &self.access,
            &self.changes,
            entity,
        );
    }

    /// The items of several entities at once, in the order given: for a read-only query (an
    /// entity may be named twice). For a query that writes, see
    /// [`QueryState::get_many_mut`]. Change filters answer as for [`QueryState::get`].
    ///
    /// # Errors
    /// For the first entity (in order) that yields no item: [`EcsError::NoSuchEntity`] for a
    /// stale handle, [`EcsError::QueryMismatch`] for a live entity the query does not match.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(i32);
    /// let mut world = World::<VecStorage>::new();
    /// let (a, b) = (world.spawn((Pos(1),)), world.spawn((Pos(2),)));
    /// let empty = world.spawn(());
    /// let state = world.query_state::<&Pos, ()>().unwrap();
    /// let [pa, pb, pa_again] = state.get_many(&world, [a, b, a]).unwrap();
    /// assert_eq!((pa.0, pb.0, pa_again.0), (1, 2, 1));
    /// assert!(matches!(state.get_many(&world, [a, empty]), Err(EcsError::QueryMismatch { .. })));
    /// ```
    pub fn get_many<'w, const N: usize>(
        &'w self,
        world: &'w World<S>,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: the query only reads, and `&World` only hands out shared borrows.
        unsafe { self.get_many_in(world.view(), entities) }
    }

    /// The items of several distinct entities at once, in the order given, for any query:
    /// what [`QueryState::get_mut`] gives one at a time, all alive together (`[a, b]` of
    /// `&mut Pos` to move one entity towards another).
    ///
    /// # Errors
    /// [`EcsError::DuplicateEntity`] when an entity is named twice (its two items would
    /// alias), checked before anything else; then, for the first entity (in order) that yields
    /// no item, [`EcsError::NoSuchEntity`] for a stale handle and [`EcsError::QueryMismatch`]
    /// for a live entity the query does not match.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let (a, b) = (world.spawn((Hp(10),)), world.spawn((Hp(3),)));
    /// let state = world.query_state::<&mut Hp, ()>().unwrap();
    /// let [hp_a, hp_b] = state.get_many_mut(&mut world, [a, b]).unwrap();
    /// std::mem::swap(&mut hp_a.0, &mut hp_b.0);
    /// assert_eq!(world.get::<Hp>(a).unwrap().0, 3);
    /// let err = state.get_many_mut(&mut world, [a, a]).err();
    /// assert_eq!(err, Some(EcsError::DuplicateEntity(a)));
    /// ```
    pub fn get_many_mut<'w, const N: usize>(
        &'w self,
        world: &'w mut World<S>,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], EcsError> {
        if let Some(repeated) = Entity::first_repeated(&entities) {
            return Err(EcsError::DuplicateEntity(repeated));
        }
        // SAFETY: `&mut World` excludes every other access for `'w`, and the entities are
        // distinct (just checked).
        unsafe { self.get_many_in(world.view(), entities) }
    }

    /// The items of `entities` through [`QueryState::get_in`], or the error for the first
    /// entity that has none.
    ///
    /// # Safety
    /// As for [`QueryState::get_unchecked`], for every entity of `entities`: in particular,
    /// if the query writes, the entities are pairwise distinct (items of distinct entities
    /// touch disjoint values: the `QueryData` and `Storage` contracts).
    pub(crate) unsafe fn get_many_in<'w, const N: usize>(
        &'w self,
        view: WorldView<'w, S>,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], EcsError> {
        let mut failed = None;
        let items: [Option<Q::Item<'w>>; N] = std::array::from_fn(|i| {
            if failed.is_some() {
                return None;
            }
            // SAFETY: forwarded contract, for one entity of the request.
            let item = unsafe { self.get_in(view, entities[i]) };
            if item.is_none() {
                failed = Some(entities[i]);
            }
            item
        });
        if let Some(entity) = failed {
            return Err(if view.entities().contains(entity) {
                EcsError::QueryMismatch {
                    entity,
                    query: query_name::<Q, F>(),
                }
            } else {
                EcsError::NoSuchEntity(entity)
            });
        }
        Ok(items.map(|item| item.expect("every entity yielded an item (checked above)")))
    }

    /// Random access for one shared borrow of the world: a [`QueryView`] resolves each
    /// matching table's columns once, so each `get` is a record look-up and a row offset
    /// (as a scan's rows are). Worth it for many `get`s per borrow; for a few, use
    /// [`QueryState::get`], which resolves nothing up front.
    ///
    /// Brings the state's table cache up to date; does not start a run (change filters
    /// answer as for [`QueryState::get`]).
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, Entity, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Vel(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let moving: Vec<Entity> = (0..3).map(|i| world.spawn((Pos(i as f32), Vel(1.0)))).collect();
    /// let still = world.spawn((Pos(9.0),));
    /// let mut state = world.query_state::<(&Pos, &Vel), ()>().unwrap();
    /// let view = state.view(&world);
    /// let sum: f32 = moving.iter().filter_map(|&e| view.get(e)).map(|(p, v)| p.0 + v.0).sum();
    /// assert_eq!(sum, 6.0);
    /// assert!(view.get(still).is_none());
    /// ```
    pub fn view<'w>(&'w mut self, world: &'w World<S>) -> QueryView<'w, Q, F, S>
    where
        Q: ReadOnlyQueryData,
    {
        let view = world.view();
        self.catch_up(view);
        view.storage()
            .update_query_cache(&mut self.cache, &self.descriptor, world.components());
        // SAFETY: the query only reads, and `&World` only hands out shared borrows.
        unsafe { QueryView::new(self, view) }
    }

    /// [`QueryState::view`] for a query that may write: items are handed to a closure by
    /// [`QueryView::with`], or lent by [`QueryView::get_mut`], one at a time.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, Entity, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let hurt: Vec<Entity> = (0..3).map(|_| world.spawn((Hp(1),))).collect();
    /// let mut state = world.query_state::<&mut Hp, ()>().unwrap();
    /// let mut view = state.view_mut(&mut world);
    /// for &e in &hurt {
    ///     view.get_mut(e).unwrap().0 += 1;
    /// }
    /// assert_eq!(view.with(hurt[0], |hp| hp.0), Some(2));
    /// ```
    pub fn view_mut<'w>(&'w mut self, world: &'w mut World<S>) -> QueryView<'w, Q, F, S> {
        let view = world.view();
        self.catch_up(view);
        view.storage()
            .update_query_cache(&mut self.cache, &self.descriptor, world.components());
        // SAFETY: `&mut World` excludes every other access for `'w`.
        unsafe { QueryView::new(self, view) }
    }

    /// The one item of a read-only query (one run, as [`QueryState::iter`]): for a query that
    /// should match exactly one entity, such as the player or the camera.
    ///
    /// # Errors
    /// [`EcsError::QuerySingle`] when no entity matches (`found: 0`) or more than one does
    /// (`found: 2`, the search stops at the second).
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Player(&'static str);
    /// let mut world = World::<VecStorage>::new();
    /// let mut players = world.query_state::<&Player, ()>().unwrap();
    /// assert!(matches!(players.single(&world), Err(EcsError::QuerySingle { found: 0, .. })));
    /// world.spawn((Player("ada"),));
    /// assert_eq!(players.single(&world).unwrap().0, "ada");
    /// world.spawn((Player("bob"),));
    /// assert!(matches!(players.single(&world), Err(EcsError::QuerySingle { found: 2, .. })));
    /// ```
    pub fn single<'w>(&'w mut self, world: &'w World<S>) -> Result<Q::Item<'w>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        exactly_one::<Q, F, _>(self.iter(world))
    }

    /// [`QueryState::single`] for a query that may write (one run, as
    /// [`QueryState::iter_mut`]).
    ///
    /// # Errors
    /// [`EcsError::QuerySingle`] when no entity or more than one matches.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Score(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Score(0),));
    /// let mut score = world.query_state::<&mut Score, ()>().unwrap();
    /// score.single_mut(&mut world).unwrap().0 += 5;
    /// assert_eq!(world.get::<Score>(e).unwrap().0, 5);
    /// ```
    pub fn single_mut<'w>(&'w mut self, world: &'w mut World<S>) -> Result<Q::Item<'w>, EcsError> {
        exactly_one::<Q, F, _>(self.iter_mut(world))
    }

    fn check_world(&self, id: WorldId) {
        assert_eq!(
            self.key.world(),
            id,
            "QueryState used with a world other than the one it was created for"
        );
    }
}

/// The `hidden_slot` of a query state that hides nothing.
const NOT_HIDING: u32 = u32::MAX;

/// A hidden slot's index as a query state's `hidden_slot` keeps it.
fn slot_number(slot: Option<usize>) -> u32 {
    slot.map_or(NOT_HIDING, |slot| {
        u32::try_from(slot).expect("a query has fewer than 2^32 - 1 slots")
    })
}

/// The only item of `items` (a query run of `Q` filtered by `F`), or
/// [`EcsError::QuerySingle`] saying whether there were none or several.
pub(crate) fn exactly_one<Q: QueryData, F: QueryFilter, I: Iterator>(
    mut items: I,
) -> Result<I::Item, EcsError> {
    let single = |found| EcsError::QuerySingle {
        found,
        query: query_name::<Q, F>(),
    };
    let first = items.next().ok_or_else(|| single(0))?;
    match items.next() {
        None => Ok(first),
        Some(_) => Err(single(2)),
    }
}

/// The name of the query `Q` filtered by `F`, for error messages (`F` only when it is not
/// `()`).
pub(crate) fn query_name<Q, F>() -> String {
    let (data, filter) = (std::any::type_name::<Q>(), std::any::type_name::<F>());
    if filter == "()" {
        format!("`{data}`")
    } else {
        format!("`{data}` filtered by `{filter}`")
    }
}
