//! [`QueryView`]: a query's random access (`get` by entity) for one shared borrow of the
//! world, with each matching table's columns resolved once.
//!
//! [`QueryState::get`] finds the entity, then each component's column in the entity's table
//! (a look-up per component per call). A view does the column part once per table, up front
//! — it walks the query's chunks as a scan would and keeps each chunk's resolved fetch by the
//! chunk's key ([`Storage::chunk_key`]) — so a `get` is the entity's record, one index into
//! the kept fetches and a row offset per component. On a shuffled `get` of many entities the
//! shorter path keeps more of their cache misses in flight at once.
//!
//! Backends whose chunks have no keys (sparse sets: every read is by entity anyway) answer
//! every `get` through the entity's place, as `QueryState::get` does.

use super::{FetchContext, QueryData, QueryFilter, QueryState, ReadOnlyQueryData};
use crate::entity::Entity;
use crate::storage::Storage;
use crate::world::WorldView;

/// Random access to a read-only query's items for one shared borrow of the world; made by
/// [`QueryState::view`].
///
/// # Invariant
/// `fetches[k]` is `Some` exactly for the keys of the chunks `query_chunks` yields for the
/// state's descriptor in `world` (whose cache was brought up to date first), holding that
/// chunk's fetch; `keyed` is whether every chunk had a key. The world is borrowed shared
/// for `'w`, so the chunks stay valid.
pub struct QueryView<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    state: &'w QueryState<Q, F, S>,
    world: WorldView<'w, S>,
    fetches: Vec<Option<Q::Fetch<'w, S>>>,
    keyed: bool,
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter, S: Storage + 'w> QueryView<'w, Q, F, S> {
    /// Resolves every matching chunk of `world` (whose query cache is up to date).
    pub(super) fn new(state: &'w QueryState<Q, F, S>, world: WorldView<'w, S>) -> Self {
        let ctx = FetchContext::new(world, &state.changes);
        let mut fetches: Vec<Option<Q::Fetch<'w, S>>> = Vec::new();
        let mut keyed = true;
        let chunks =
            world
                .storage()
                .query_chunks(&state.cache, &state.descriptor, world.entities().alive());
        for chunk in chunks {
            let Some(key) = S::chunk_key(&chunk) else {
                keyed = false;
                continue;
            };
            if fetches.len() <= key {
                fetches.resize_with(key + 1, || None);
            }
            // SAFETY: the chunk comes from the state's descriptor, in `ctx`'s world.
            fetches[key] = Some(unsafe { Q::fetch_chunk::<S>(&state.data, &chunk, ctx) });
        }
        QueryView {
            state,
            world,
            fetches,
            keyed,
        }
    }

    /// The item of `entity` if it matches the query; `None` for a stale handle or an entity
    /// lacking a required component (or failing the filter).
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<Q::Item<'w>> {
        if !self.keyed {
            // SAFETY: the query only reads, and the world is borrowed shared for `'w`.
            return unsafe { self.state.get_in(self.world, entity) };
        }
        // `None`: the storage does not hold the entity, or (with no chunk at all, so nothing
        // matches) its chunks have no keys.
        let (key, row) = self.world.storage().entity_row(entity)?;
        // No fetch for the key: every chunk has a key and none is the entity's, so it does
        // not match the descriptor (the `Storage` contract on `entity_row`).
        let mut fetch = self.fetches.get(key)?.as_ref()?.clone();
        if !self.filter_passes(entity) {
            return None;
        }
        // SAFETY: `row` is `entity`'s row of the chunk `fetch` was made from (the `Storage`
        // contract on `entity_row` and `chunk_key`, and the type invariant); the query only
        // reads, so fetching a row again aliases shared borrows only.
        unsafe { Q::fetch_row::<S>(&mut fetch, row, entity) }
    }

    /// Whether `entity` matches the query.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }

    /// The filter, by look-up (as `QueryState::get` asks it); free for `()`.
    #[inline]
    fn filter_passes(&self, entity: Entity) -> bool {
        let probe = self.state.changes.probe(self.world.changes());
        F::matches_entity(&self.state.filter, self.world.storage(), &probe, entity)
    }
}
