//! [`Traced<S>`]: a storage that is `S` and can record what the world does to it.

use std::ptr::NonNull;

use super::format::Op;
use super::recorder::Recorder;
use crate::bundle::{Bundle, BundleInfo};
use crate::component::{Component, ComponentId, Components, StorageKind};
use crate::entity::Entity;
use crate::layout::StorageLayout;
use crate::storage::{ChunkKey, ChunkRow, ColumnValues, FoldChunk, QueryDescriptor, Storage};

/// Storage `S` with a trace recorder beside it: every call is `S`'s own, and while a trace
/// is recorded ([`World::start_trace`](crate::World::start_trace)) each structural call
/// (spawns, inserts, removes, despawns) is also written to the trace, as are, by the world,
/// the program's look-ups, query runs, frames and systems.
///
/// A world that never records should use `S` itself: the world's recording code is
/// compiled only for `Traced` storages ([`Storage::TRACED`]), so a plain storage pays
/// nothing for it. With `Traced<S>` and no recording, each structural call and look-up
/// checks one flag.
pub struct Traced<S: Storage> {
    inner: S,
    recorder: Recorder,
}

/// Not recording, unless created inside a [`capture`](super::capture): then recording from
/// the start.
impl<S: Storage> Default for Traced<S> {
    fn default() -> Self {
        Traced {
            inner: S::default(),
            recorder: Recorder::captured().unwrap_or_default(),
        }
    }
}

/// A storage recording for a [`capture`](super::capture) hands its trace over when dropped.
impl<S: Storage> Drop for Traced<S> {
    fn drop(&mut self) {
        self.recorder.hand_to_capture();
    }
}

impl<S: Storage> Traced<S> {
    /// The storage being traced.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: Storage + std::fmt::Debug> std::fmt::Debug for Traced<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traced")
            .field("inner", &self.inner)
            .field("recording", &self.recorder.is_active())
            .finish()
    }
}

/// Counts a batch's entities and gives each its ordinal as it goes by.
struct Counted<'r, I> {
    batch: I,
    recorder: Option<&'r mut super::recorder::State>,
    count: u32,
}

impl<B, I: Iterator<Item = (Entity, B)>> Iterator for Counted<'_, I> {
    type Item = (Entity, B);

    #[inline]
    fn next(&mut self) -> Option<(Entity, B)> {
        let item = self.batch.next()?;
        if let Some(state) = self.recorder.as_deref_mut() {
            state.spawned(item.0);
            self.count += 1;
        }
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.batch.size_hint()
    }
}

// SAFETY: every method is `S`'s, called with the arguments the world passed (so `S`'s
// promises are this type's, and the world's promises reach `S` unchanged); the recorder
// holds no component values and hands out no pointers.
unsafe impl<S: Storage> Storage for Traced<S> {
    const NAME: &'static str = S::NAME;
    const KEYS_CHUNKS: bool = S::KEYS_CHUNKS;
    const TRACED: bool = true;
    type Lookup = S::Lookup;
    type Chunk<'a> = S::Chunk<'a>;
    type Chunks<'a> = S::Chunks<'a>;
    type QueryCache = S::QueryCache;
    type Place<'a> = S::Place<'a>;

    #[inline]
    fn is_dense<T: Component>() -> bool {
        S::is_dense::<T>()
    }

    #[inline]
    fn recorder(&self) -> Option<&Recorder> {
        Some(&self.recorder)
    }

    #[inline]
    fn recorder_mut(&mut self) -> Option<&mut Recorder> {
        Some(&mut self.recorder)
    }

    unsafe fn spawn<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
        info: &BundleInfo,
        components: &Components,
    ) {
        // SAFETY: forwarded contract.
        unsafe { self.inner.spawn(entity, bundle, info, components) };
        self.recorder.with_mut(|state| {
            state.spawned(entity);
            let set = state.set(info.components(), components);
            state.push(Op::Spawn { set, count: 1 });
        });
    }

    unsafe fn spawn_batch<B: Bundle>(
        &mut self,
        batch: impl Iterator<Item = (Entity, B)>,
        info: &BundleInfo,
        components: &Components,
    ) {
        let (inner, recorder) = (&mut self.inner, &mut self.recorder);
        // Borrowed for the whole batch: `&mut self` needs no lock.
        let mut state = recorder.state_if_active();
        let set = state
            .as_deref_mut()
            .map(|state| state.set(info.components(), components));
        let mut counted = Counted {
            batch,
            recorder: state,
            count: 0,
        };
        // SAFETY: forwarded contract; `Counted` yields the batch's items unchanged.
        unsafe { inner.spawn_batch(&mut counted, info, components) };
        if let (Some(state), Some(set)) = (counted.recorder, set) {
            if counted.count > 0 {
                state.push(Op::Spawn {
                    set,
                    count: counted.count,
                });
            }
        }
    }

    unsafe fn spawn_columns(
        &mut self,
        entities: &[Entity],
        columns: &mut [ColumnValues<'_>],
        empty: &BundleInfo,
        components: &Components,
    ) {
        // SAFETY: forwarded contract.
        unsafe {
            self.inner
                .spawn_columns(entities, columns, empty, components)
        };
        self.recorder.with_mut(|state| {
            let ids: Vec<ComponentId> = columns.iter().map(|c| c.component).collect();
            let set = state.set(&ids, components);
            for &entity in entities {
                state.spawned(entity);
            }
            if !entities.is_empty() {
                state.push(Op::SpawnColumns {
                    set,
                    count: entities.len() as u32,
                });
            }
        });
    }

    unsafe fn group(
        &mut self,
        owned: &[ComponentId],
        components: &Components,
    ) -> Result<(), crate::EcsError> {
        // SAFETY: forwarded contract.
        unsafe { self.inner.group(owned, components) }
    }

    fn align_with_tables(&mut self, component: ComponentId) -> bool {
        self.inner.align_with_tables(component)
    }

    fn storage_kind(&self, component: ComponentId, components: &Components) -> StorageKind {
        self.inner.storage_kind(component, components)
    }

    /// Forwarded; the trace does not record the move (its component table keeps the kind
    /// each component had when the trace first met it, and a replay chooses its own
    /// layout).
    unsafe fn set_storage(
        &mut self,
        component: ComponentId,
        kind: StorageKind,
        components: &Components,
    ) -> Result<(), crate::EcsError> {
        // SAFETY: forwarded contract.
        unsafe { self.inner.set_storage(component, kind, components) }
    }

    unsafe fn reserve(&mut self, info: &BundleInfo, components: &Components, additional: usize) {
        // SAFETY: forwarded contract.
        unsafe { self.inner.reserve(info, components, additional) }
    }

    fn despawn(&mut self, entity: Entity) {
        self.recorder.with_mut(|state| {
            let ordinal = state.despawned(entity);
            if ordinal != 0 {
                state.push(Op::Despawn { entity: ordinal });
            }
        });
        self.inner.despawn(entity);
    }

    #[inline]
    fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>> {
        self.inner.get_ptr(entity, component)
    }

    #[inline]
    fn get_ptr_of<T: Component>(
        &self,
        entity: Entity,
        component: ComponentId,
    ) -> Option<NonNull<u8>> {
        self.inner.get_ptr_of::<T>(entity, component)
    }

    #[inline]
    fn place(&self, entity: Entity) -> Option<S::Place<'_>> {
        self.inner.place(entity)
    }

    #[inline]
    fn entity_row(&self, entity: Entity) -> Option<ChunkRow> {
        self.inner.entity_row(entity)
    }

    #[inline]
    fn chunk_key(chunk: &S::Chunk<'_>) -> Option<ChunkKey> {
        S::chunk_key(chunk)
    }

    #[inline]
    fn contains(&self, entity: Entity, component: ComponentId) -> bool {
        self.inner.contains(entity, component)
    }

    unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        // SAFETY: forwarded contract.
        unsafe { self.inner.insert_new(entity, component, value, components) };
        self.recorder.with_mut(|state| {
            let op = Op::Insert {
                entity: state.ordinal(entity),
                component: state.component(component, components),
            };
            state.push(op);
        });
    }

    unsafe fn insert_new_many(
        &mut self,
        entity: Entity,
        values: &mut [(ComponentId, NonNull<u8>)],
        components: &Components,
    ) {
        let ids: Vec<ComponentId> = if self.recorder.is_active() {
            values.iter().map(|&(id, _)| id).collect()
        } else {
            Vec::new()
        };
        // SAFETY: forwarded contract.
        unsafe { self.inner.insert_new_many(entity, values, components) };
        self.recorder.with_mut(|state| {
            if !ids.is_empty() {
                let op = Op::InsertMany {
                    entity: state.ordinal(entity),
                    set: state.set(&ids, components),
                };
                state.push(op);
            }
        });
    }

    unsafe fn insert<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
        components: &Components,
    ) -> Option<T> {
        // SAFETY: forwarded contract.
        let old = unsafe { self.inner.insert::<T>(entity, id, value, components) };
        let replaced = old.is_some();
        self.recorder.with_mut(|state| {
            let (entity, component) = (state.ordinal(entity), state.component(id, components));
            state.push(match replaced {
                // Replacing a value writes it in place.
                true => Op::Get {
                    entity,
                    component,
                    write: true,
                    found: true,
                },
                false => Op::Insert { entity, component },
            });
        });
        old
    }

    unsafe fn remove_into(
        &mut self,
        entity: Entity,
        component: ComponentId,
        dst: NonNull<u8>,
    ) -> bool {
        // SAFETY: forwarded contract.
        let removed = unsafe { self.inner.remove_into(entity, component, dst) };
        if removed {
            self.record_remove(entity, component);
        }
        removed
    }

    unsafe fn remove_typed<T: Component>(&mut self, entity: Entity, id: ComponentId) -> Option<T> {
        // SAFETY: forwarded contract.
        let removed = unsafe { self.inner.remove_typed::<T>(entity, id) };
        if removed.is_some() {
            self.record_remove(entity, id);
        }
        removed
    }

    fn clear(&mut self) {
        self.recorder.with_mut(|state| {
            state.cleared();
            state.push(Op::Clear);
        });
        self.inner.clear();
    }

    #[inline]
    fn update_query_cache(
        &self,
        cache: &mut S::QueryCache,
        descriptor: &QueryDescriptor,
        components: &Components,
    ) {
        self.inner.update_query_cache(cache, descriptor, components);
    }

    #[inline]
    fn query_chunks<'a>(
        &'a self,
        cache: &'a S::QueryCache,
        descriptor: &'a QueryDescriptor,
        alive: &'a [Entity],
    ) -> S::Chunks<'a> {
        self.inner.query_chunks(cache, descriptor, alive)
    }

    #[inline(always)]
    fn fold_chunks<'a, B>(
        chunks: &mut S::Chunks<'a>,
        init: B,
        f: &mut impl FoldChunk<S::Chunk<'a>, B>,
    ) -> B
    where
        Self: 'a,
    {
        S::fold_chunks(chunks, init, f)
    }

    fn memory_usage(&self) -> usize {
        self.inner.memory_usage()
    }

    fn layout(&self, components: &Components) -> StorageLayout {
        self.inner.layout(components)
    }
}

impl<S: Storage> Traced<S> {
    fn record_remove(&mut self, entity: Entity, component: ComponentId) {
        self.recorder.with_mut(|state| {
            if let Some(component) = state.known_component(component) {
                let op = Op::Remove {
                    entity: state.ordinal(entity),
                    component,
                };
                state.push(op);
            }
        });
    }
}
