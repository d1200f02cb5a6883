//! [`ArrayStorage`]: the backend, a slot array per component and the held entities' handles
//! by index.

use std::ptr::NonNull;

use ecs_core::bundle::{Bundle, BundleInfo, BundleVisitor};
use ecs_core::component::{Component, ComponentId, Components, StorageKind};
use ecs_core::entity::Entity;
use ecs_core::layout::{ComponentBytes, StorageLayout, StorageUnit, UnitKind};
use ecs_core::storage::{ByEntity, QueryDescriptor, SparseLookup, Storage};
use ecs_core::unwind::for_each_completing;

use crate::bits::Bits;
use crate::chunk::{ArrayChunk, ArrayChunks, ArrayQueryCache};
use crate::column::Column;

/// Every component in one array indexed by entity index (see the [crate docs](crate)).
///
/// # Invariants
/// * `handles[i]` is the held entity whose index is `i`, or [`Entity::PLACEHOLDER`] when no
///   held entity has that index; `held` holds exactly the indices of held entities.
/// * `columns[c]` is component `c`'s column once any entity held it, else `None`; a column
///   was made from the registry's description of `c` (its layout and drop function).
/// * Every value belongs to a held entity: a present slot `i` of any column is in `held`,
///   with the generation of `handles[i]`. So an entity the storage does not hold has no
///   value anywhere, and a stale handle (same index, older generation) finds none.
#[derive(Default)]
pub struct ArrayStorage {
    handles: Vec<Entity>,
    held: Bits,
    columns: Vec<Option<Column>>,
}

impl ArrayStorage {
    /// Component `id`'s column, once any entity held it.
    #[inline]
    pub fn column(&self, id: ComponentId) -> Option<&Column> {
        self.columns.get(id.index())?.as_ref()
    }

    /// The held entities' handles by index ([`Entity::PLACEHOLDER`] where none is held):
    /// the entity slices of query chunks.
    #[inline]
    pub(crate) fn handles(&self) -> &[Entity] {
        &self.handles
    }

    /// Word `word` of the held-index bits.
    #[inline]
    pub(crate) fn held_word(&self, word: usize) -> u64 {
        self.held.word(word)
    }

    /// Whether `entity` (the whole handle) is held.
    #[inline]
    fn holds(&self, entity: Entity) -> bool {
        self.handles.get(entity.index() as usize) == Some(&entity)
    }

    /// Records `entity` as held.
    fn hold(&mut self, entity: Entity) {
        let index = entity.index() as usize;
        if self.handles.len() <= index {
            self.handles.resize(index + 1, Entity::PLACEHOLDER);
        }
        self.handles[index] = entity;
        self.held.insert(index);
    }

    /// Component `id`'s column, made on first use from the registry's description.
    fn column_mut(&mut self, id: ComponentId, components: &Components) -> &mut Column {
        if self.columns.len() <= id.index() {
            self.columns.resize_with(id.index() + 1, || None);
        }
        self.columns[id.index()].get_or_insert_with(|| Column::new(components.info(id)))
    }
}

/// Writes a spawned bundle's fields into their columns.
struct Writer<'a> {
    storage: &'a mut ArrayStorage,
    entity: Entity,
    ids: &'a [ComponentId],
    components: &'a Components,
}

impl BundleVisitor for Writer<'_> {
    #[inline]
    fn visit<T: Component>(&mut self, index: usize, value: T) {
        let column = self.storage.column_mut(self.ids[index], self.components);
        // SAFETY: the entity was not held before this spawn, so no column holds a value at
        // its index (type invariants), and the bundle's ids are distinct; `ids[index]` is
        // field `index`'s component, of type `T` (the `Bundle` contract).
        unsafe {
            column.write_typed(
                self.entity.index() as usize,
                self.entity.generation(),
                value,
            )
        };
    }
}

// SAFETY: values live in each column's raw allocation and move only when a column grows
// (a `&mut self` call). `get_ptr` compares the whole handle (generation per slot). Query
// chunks are runs of held indices, each index in one run, so entities are live and
// distinct; a run's indices are present in every required column (Dense at the run's first
// slot, consecutive slots) and absent from every excluded one (`Absent`); optional slots
// are looked up by `Column::lookup`, which is `get_ptr`. `is_dense` is false, so no type
// promises more. Places are `ByEntity` (each read is `get_ptr`) and chunks have no keys.
// Moves and drops go through `Column`, which empties a slot before its value leaves.
unsafe impl Storage for ArrayStorage {
    const NAME: &'static str = "array";
    type Lookup = Column;
    type Chunk<'a> = ArrayChunk<'a>;
    type Chunks<'a> = ArrayChunks<'a>;
    type QueryCache = ArrayQueryCache;
    type Place<'a> = ByEntity<'a, ArrayStorage>;

    /// False: an optional slot is looked up per entity. (Required slots are dense in every
    /// chunk regardless.)
    fn is_dense<T: Component>() -> bool {
        false
    }

    unsafe fn spawn<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
        info: &BundleInfo,
        components: &Components,
    ) {
        self.hold(entity);
        bundle.visit(&mut Writer {
            storage: self,
            entity,
            ids: info.components(),
            components,
        });
    }

    /// Nothing to prepare: slots are indexed by entity index, which is not known yet.
    unsafe fn reserve(&mut self, _: &BundleInfo, _: &Components, _: usize) {}

    fn despawn(&mut self, entity: Entity) {
        if !self.holds(entity) {
            return;
        }
        let index = entity.index() as usize;
        self.handles[index] = Entity::PLACEHOLDER;
        self.held.remove(index);
        for_each_completing(self.columns.iter_mut().flatten(), |column| {
            if column.is_present(index) {
                // SAFETY: the slot holds a value (checked just above).
                unsafe { column.drop_slot(index) };
            }
        });
    }

    #[inline]
    fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>> {
        self.column(component)?.lookup(entity)
    }

    fn place(&self, entity: Entity) -> Option<ByEntity<'_, ArrayStorage>> {
        self.holds(entity).then(|| ByEntity::new(self, entity))
    }

    unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        let column = self.column_mut(component, components);
        // SAFETY: the held entity lacks `component` (caller), so its slot is empty; `value`
        // is an owned value of the component, handed over (caller).
        unsafe { column.write(entity.index() as usize, entity.generation(), value) };
    }

    unsafe fn remove_into(
        &mut self,
        entity: Entity,
        component: ComponentId,
        dst: NonNull<u8>,
    ) -> bool {
        let Some(column) = self
            .columns
            .get_mut(component.index())
            .and_then(Option::as_mut)
        else {
            return false;
        };
        if column.lookup(entity).is_none() {
            return false;
        }
        // SAFETY: the slot holds the entity's value (the look-up found it); `dst` is a
        // disjoint slot for one value of the component (caller).
        unsafe { column.take_into(entity.index() as usize, dst) };
        true
    }

    fn clear(&mut self) {
        self.handles.clear();
        self.held = Bits::default();
        for_each_completing(self.columns.iter_mut().flatten(), Column::clear);
    }

    fn update_query_cache(
        &self,
        cache: &mut ArrayQueryCache,
        descriptor: &QueryDescriptor,
        _: &Components,
    ) {
        cache.plan(descriptor);
    }

    fn query_chunks<'a>(
        &'a self,
        cache: &'a ArrayQueryCache,
        descriptor: &'a QueryDescriptor,
        _alive: &'a [Entity],
    ) -> ArrayChunks<'a> {
        ArrayChunks::new(self, cache, descriptor)
    }

    /// Every component is in its own array indexed by entity: no tables, so a sparse kind
    /// (adding or removing one moves nothing else).
    fn storage_kind(&self, _: ComponentId, _: &Components) -> StorageKind {
        StorageKind::Sparse
    }

    fn memory_usage(&self) -> usize {
        self.bookkeeping_bytes()
            + self
                .columns
                .iter()
                .flatten()
                .map(Column::memory_usage)
                .sum::<usize>()
    }

    /// One unit per column (its rows are the entities holding the component, its capacity
    /// the slots the array has room for), and the handle array as bookkeeping.
    fn layout(&self, components: &Components) -> StorageLayout {
        let units = self.columns.iter().enumerate().filter_map(|(i, column)| {
            let column = column.as_ref()?;
            let id = ComponentId::new(i as u32);
            Some(StorageUnit {
                kind: UnitKind::Other,
                components: vec![ComponentBytes::new(id, components, column.value_bytes())],
                rows: column.len(),
                capacity: column.slots(),
                pages: None,
                bytes: column.memory_usage(),
            })
        });
        let mut layout = StorageLayout {
            units: units.collect(),
            ..StorageLayout::default()
        };
        layout.add_bookkeeping("entity handles by index", self.bookkeeping_bytes());
        layout
    }
}

impl ArrayStorage {
    /// Heap bytes outside the columns: the handles, the held bits and the column table.
    fn bookkeeping_bytes(&self) -> usize {
        self.handles.capacity() * std::mem::size_of::<Entity>()
            + self.held.memory_usage()
            + self.columns.capacity() * std::mem::size_of::<Option<Column>>()
    }
}
