//! [`Query`]: a query as a system parameter.

use super::param::conflict;
use super::{SystemAccess, SystemParam};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::query::{
    exactly_one, BatchSize, QueryData, QueryFilter, QueryIter, QueryState, ReadOnlyQueryData,
};
use crate::storage::Storage;
use crate::world::World;

/// The entities matching `Q` and filter `F`, as a system parameter.
///
/// Its access (components read, written, watched) comes from `Q` and `F`. A run of the
/// system is one run of the query: `Changed<T>` / `Added<T>` report what changed since this
/// system last ran, however many times the system iterates the query within a run.
///
/// In a program on the `ecs` facade write `Query<Q, F>`; generic code names the backend:
/// `Query<'_, '_, Q, F, S>`.
pub struct Query<'w, 's, Q: QueryData, F: QueryFilter, S: Storage> {
    world: &'w World<S>,
    state: &'s QueryState<Q, F, S>,
}

impl<'w, 's, Q: QueryData, F: QueryFilter, S: Storage> Query<'w, 's, Q, F, S> {
    /// Iterates the query (items may be written).
    pub fn iter_mut(&mut self) -> QueryIter<'_, Q, F, S> {
        // SAFETY: the system's access was recorded at `init` and checked by whoever runs the
        // system (the `fetch` contract); `&mut self` excludes a second live iterator; the
        // world's structure has not changed since the run began in `fetch`.
        unsafe { self.state.iter_prepared(self.world.view()) }
    }

    /// Iterates a read-only query.
    pub fn iter(&self) -> QueryIter<'_, Q, F, S>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: as in `iter_mut`; read-only items may alias.
        unsafe { self.state.iter_prepared(self.world.view()) }
    }

    /// Calls `f` on every item.
    pub fn for_each<'a>(&'a mut self, f: impl FnMut(Q::Item<'a>)) {
        self.iter_mut().for_each(f);
    }

    /// Calls `f` on every item, in parallel when it pays ([`BatchSize::Auto`]).
    pub fn par_for_each<'a>(&'a mut self, f: impl Fn(Q::Item<'a>) + Send + Sync) {
        self.iter_mut().par_for_each(f);
    }

    /// Calls `f` on every item in parallel batches chosen by `batch`.
    pub fn par_for_each_batched<'a>(
        &'a mut self,
        batch: BatchSize,
        f: impl Fn(Q::Item<'a>) + Send + Sync,
    ) {
        self.iter_mut().par_for_each_batched(batch, f);
    }

    /// The item of `entity` if it matches (see [`QueryState::get`]).
    pub fn get(&self, entity: Entity) -> Option<Q::Item<'_>>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: as in `iter`.
        unsafe { self.state.get_unchecked(self.world, entity) }
    }

    /// The item of `entity` if it matches, for a query that may write.
    pub fn get_mut(&mut self, entity: Entity) -> Option<Q::Item<'_>> {
        // SAFETY: as in `iter_mut`.
        unsafe { self.state.get_unchecked(self.world, entity) }
    }

    /// The items of several entities at once, for a read-only query (see
    /// [`QueryState::get_many`]).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] or [`EcsError::QueryMismatch`] for the first entity that
    /// yields no item.
    pub fn get_many<const N: usize>(
        &self,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'_>; N], EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: as in `iter`.
        unsafe { self.state.get_many_in(self.world.view(), entities) }
    }

    /// The items of several distinct entities at once, for a query that may write (see
    /// [`QueryState::get_many_mut`]).
    ///
    /// # Errors
    /// [`EcsError::DuplicateEntity`] when an entity is named twice; then
    /// [`EcsError::NoSuchEntity`] or [`EcsError::QueryMismatch`] for the first entity that
    /// yields no item.
    pub fn get_many_mut<const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'_>; N], EcsError> {
        if let Some(repeated) = Entity::first_repeated(&entities) {
            return Err(EcsError::DuplicateEntity(repeated));
        }
        // SAFETY: as in `iter_mut` (`&mut self` keeps every other item of this query from
        // existing meanwhile); the entities are distinct (just checked), so no two items alias.
        unsafe { self.state.get_many_in(self.world.view(), entities) }
    }

    /// The one item of a read-only query, for a query that should match exactly one entity
    /// (see [`QueryState::single`]).
    ///
    /// # Errors
    /// [`EcsError::QuerySingle`] when no entity or more than one matches.
    pub fn single(&self) -> Result<Q::Item<'_>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        exactly_one::<Q, F, _>(self.iter())
    }

    /// The one item of a query that may write (see [`QueryState::single_mut`]).
    ///
    /// # Errors
    /// [`EcsError::QuerySingle`] when no entity or more than one matches.
    pub fn single_mut(&mut self) -> Result<Q::Item<'_>, EcsError> {
        exactly_one::<Q, F, _>(self.iter_mut())
    }

    /// True when this run visits only changed entities (see [`QueryState::is_log_driven`]).
    pub fn is_log_driven(&self) -> bool {
        self.state.is_log_driven()
    }
}

impl<'a, Q: QueryData, F: QueryFilter, S: Storage> IntoIterator for &'a mut Query<'_, '_, Q, F, S> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, Q, F, S>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

// SAFETY: records the query's access (the `QueryState`'s, built from `Q` and `F`); the item
// touches only that, through the state's own iteration.
unsafe impl<Q, F, S> SystemParam<S> for Query<'_, '_, Q, F, S>
where
    Q: QueryData + 'static,
    F: QueryFilter + 'static,
    S: Storage,
{
    type State = QueryState<Q, F, S>;
    type Item<'w, 's> = Query<'w, 's, Q, F, S>;

    fn init(world: &mut World<S>, access: &mut SystemAccess) -> Result<Self::State, EcsError> {
        let state = QueryState::new(world)?;
        access
            .add_query(state.access(), world.components())
            .map_err(conflict)?;
        Ok(state)
    }

    unsafe fn fetch<'w, 's>(
        state: &'s mut Self::State,
        world: &'w World<S>,
    ) -> Query<'w, 's, Q, F, S> {
        state.begin_run(world.view());
        Query { world, state }
    }
}
