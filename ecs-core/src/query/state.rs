//! [`QueryState`] (a query resolved against one world) and [`QueryIter`].

use super::{Access, QueryBuilder, QueryData, QueryFilter, ReadOnlyQueryData};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{QueryChunk, QueryDescriptor, Storage};
use crate::world::{World, WorldId, WorldView};

/// A query resolved against one world: its descriptor, access and the backend's cache.
///
/// Keep one across frames (as a system does) so the backend only examines what changed in
/// the world's layout since the last run. [`World::query`] keeps one per query type for you.
pub struct QueryState<Q: QueryData, F: QueryFilter, S: Storage> {
    world: WorldId,
    descriptor: QueryDescriptor,
    access: Access,
    data: Q::State,
    filter: F::State,
    cache: S::QueryCache,
}

impl<Q: QueryData, F: QueryFilter, S: Storage> QueryState<Q, F, S> {
    /// Resolves `Q` and `F` against `world`, registering their components.
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when the query would alias a component (`(&mut A, &A)`).
    pub fn new(world: &mut World<S>) -> Result<Self, EcsError> {
        let mut builder = QueryBuilder::new(world.components_mut());
        let data = Q::init(&mut builder);
        let filter = F::init(&mut builder);
        let (descriptor, access) = builder.finish()?;
        Ok(QueryState {
            world: world.id(),
            descriptor,
            access,
            data,
            filter,
            cache: S::QueryCache::default(),
        })
    }

    /// The components the query reads and writes.
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// The storage-facing descriptor.
    pub fn descriptor(&self) -> &QueryDescriptor {
        &self.descriptor
    }

    /// Iterates with exclusive access to the world.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    pub fn iter_mut<'w>(&'w mut self, world: &'w mut World<S>) -> QueryIter<'w, Q, F, S> {
        // SAFETY: `&mut World` guarantees nothing else borrows the storage for `'w`.
        unsafe { self.iter_unchecked(world) }
    }

    /// Iterates a read-only query through a shared world.
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

    /// Iterates without checking that the world's borrows allow the query's writes.
    ///
    /// # Safety
    /// For `'w`, nothing else may access the components this query writes, and nothing may
    /// write the components it reads.
    pub unsafe fn iter_unchecked<'w>(&'w mut self, world: &'w World<S>) -> QueryIter<'w, Q, F, S> {
        // SAFETY: forwarded contract.
        unsafe { self.iter_view(world.view()) }
    }

    /// # Safety
    /// As for [`QueryState::iter_unchecked`].
    pub(crate) unsafe fn iter_view<'w>(
        &'w mut self,
        world: WorldView<'w, S>,
    ) -> QueryIter<'w, Q, F, S> {
        assert_eq!(
            self.world, world.id,
            "QueryState used with a world other than the one it was created for"
        );
        world
            .storage
            .update_query_cache(&mut self.cache, &self.descriptor);
        let this: &'w Self = self;
        QueryIter {
            data: &this.data,
            filter: &this.filter,
            chunks: world.storage.query_chunks(
                &this.cache,
                &this.descriptor,
                world.entities.alive(),
            ),
            current: None,
        }
    }
}

/// The chunk being iterated: its entities, resolved fetches and the next row.
struct Current<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    entities: &'w [Entity],
    data: Q::Fetch<'w, S>,
    filter: F::Fetch<'w, S>,
    row: usize,
}

/// Iterator over a query's items. `for_each`/`fold` run a tight loop per chunk.
pub struct QueryIter<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    data: &'w Q::State,
    filter: &'w F::State,
    chunks: S::Chunks<'w>,
    current: Option<Current<'w, Q, F, S>>,
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> QueryIter<'w, Q, F, S> {
    fn open(&self, chunk: S::Chunk<'w>) -> Current<'w, Q, F, S> {
        Current {
            entities: chunk.entities(),
            // SAFETY: the chunk comes from the descriptor built with these states.
            data: unsafe { Q::fetch_chunk::<S>(self.data, &chunk) },
            // SAFETY: as above.
            filter: unsafe { F::fetch_chunk::<S>(self.filter, &chunk) },
            row: 0,
        }
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> Current<'w, Q, F, S> {
    /// The item of the next matching row, if any is left in the chunk.
    #[inline(always)]
    fn next_item(&mut self) -> Option<Q::Item<'w>> {
        while self.row < self.entities.len() {
            let row = self.row;
            self.row += 1;
            // SAFETY: `row < entities.len()`, and the cursor only moves forward, so each row
            // is fetched once.
            if let Some(item) = unsafe { self.fetch(row) } {
                return Some(item);
            }
        }
        None
    }

    /// Folds every remaining matching row of the chunk: the tight loop `for_each` runs.
    #[inline(always)]
    fn fold_rows<B>(mut self, mut acc: B, g: &mut impl FnMut(B, Q::Item<'w>) -> B) -> B {
        for row in self.row..self.entities.len() {
            // SAFETY: `row` is in the chunk and visited once.
            if let Some(item) = unsafe { self.fetch(row) } {
                acc = g(acc, item);
            }
        }
        acc
    }

    /// # Safety
    /// `row < entities.len()`, fetched at most once.
    #[inline(always)]
    unsafe fn fetch(&mut self, row: usize) -> Option<Q::Item<'w>> {
        // SAFETY: `row` is in bounds (caller).
        let entity = unsafe { *self.entities.get_unchecked(row) };
        if !F::filter_row::<S>(&self.filter, entity) {
            return None;
        }
        // SAFETY: `row` is in the chunk and fetched once (caller).
        unsafe { Q::fetch_row::<S>(&mut self.data, row, entity) }
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> Iterator for QueryIter<'w, Q, F, S> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        loop {
            if let Some(item) = self.current.as_mut().and_then(Current::next_item) {
                return Some(item);
            }
            let chunk = self.chunks.next()?;
            self.current = Some(self.open(chunk));
        }
    }

    #[inline]
    fn fold<B, G: FnMut(B, Self::Item) -> B>(mut self, init: B, mut g: G) -> B {
        let mut acc = init;
        if let Some(current) = self.current.take() {
            acc = current.fold_rows(acc, &mut g);
        }
        while let Some(chunk) = self.chunks.next() {
            acc = self.open(chunk).fold_rows(acc, &mut g);
        }
        acc
    }
}
