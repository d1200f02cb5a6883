//! `VecStorage`: the simplest correct backend, for doctests and as a test oracle.
//!
//! One entity-indexed row table and one dense array per component; every query slot but the
//! driving one is a look-up. It keeps `ecs-core` self-contained (its docs and tests need *a*
//! backend but must not name a real one); it is not tuned and not meant for programs.

use std::ptr::NonNull;

use crate::blob::BlobVec;
use crate::bundle::{Bundle, BundleInfo, BundleVisitor};
use crate::component::{Component, ComponentId, Components};
use crate::entity::Entity;
use crate::layout::{ComponentBytes, StorageLayout, StorageUnit, UnitKind};
use crate::storage::{
    ByEntity, ColumnAccess, QueryChunk, QueryDescriptor, SlotRole, SparseLookup, Storage,
};

const NONE: u32 = u32::MAX;

/// One component's values.
///
/// # Invariants
/// `entities` and `data` are parallel (same length); `rows[e.index()] == i` exactly when
/// `entities[i] == e`, and `NONE` for entities without the component.
pub struct VecColumn {
    rows: Vec<u32>,
    entities: Vec<Entity>,
    data: BlobVec,
}

impl VecColumn {
    fn row(&self, entity: Entity) -> Option<usize> {
        match self.rows.get(entity.index() as usize) {
            Some(&row) if row != NONE && self.entities[row as usize] == entity => {
                Some(row as usize)
            }
            _ => None,
        }
    }

    /// Appends the entity's row; the caller then pushes the value onto `data`.
    fn push_entity(&mut self, entity: Entity) {
        let index = entity.index() as usize;
        if self.rows.len() <= index {
            self.rows.resize(index + 1, NONE);
        }
        self.rows[index] = self.entities.len() as u32;
        self.entities.push(entity);
    }

    /// Removes the entity's row from the index (the caller removes the value the same way).
    fn swap_remove_entity(&mut self, row: usize) {
        let removed = self.entities.swap_remove(row);
        self.rows[removed.index() as usize] = NONE;
        if let Some(moved) = self.entities.get(row) {
            self.rows[moved.index() as usize] = row as u32;
        }
    }
}

impl SparseLookup for VecColumn {
    fn lookup(&self, entity: Entity) -> Option<NonNull<u8>> {
        // SAFETY: `row` is below `data.len()` (parallel arrays).
        self.row(entity)
            .map(|row| unsafe { self.data.get_unchecked(row) })
    }
}

/// The reference backend (see the module docs).
#[derive(Default)]
pub struct VecStorage {
    columns: Vec<Option<VecColumn>>,
}

impl VecStorage {
    fn column(&self, id: ComponentId) -> Option<&VecColumn> {
        self.columns.get(id.index())?.as_ref()
    }

    fn column_mut(&mut self, id: ComponentId, components: &Components) -> &mut VecColumn {
        if self.columns.len() <= id.index() {
            self.columns.resize_with(id.index() + 1, || None);
        }
        self.columns[id.index()].get_or_insert_with(|| VecColumn {
            rows: Vec::new(),
            entities: Vec::new(),
            data: BlobVec::for_component(components.info(id)),
        })
    }
}

/// The single chunk of a `VecStorage` query.
pub struct VecChunk<'a> {
    entities: &'a [Entity],
    driver: Option<ComponentId>,
    storage: &'a VecStorage,
    descriptor: &'a QueryDescriptor,
}

impl<'a> QueryChunk<'a> for VecChunk<'a> {
    type Lookup = VecColumn;

    fn entities(&self) -> &'a [Entity] {
        self.entities
    }

    fn column(&self, slot: usize) -> ColumnAccess<'a, VecColumn> {
        let id = self.descriptor.slots()[slot].component;
        match self.storage.column(id) {
            Some(col) if Some(id) == self.driver => ColumnAccess::Dense(col.data.base_ptr()),
            Some(col) => ColumnAccess::Sparse(col),
            None => ColumnAccess::Absent,
        }
    }
}

// SAFETY: values live in `BlobVec`s (raw allocations); each entity is in `entities` of a
// column once, so the single chunk lists each live entity once; the driver's dense pointer
// covers its `entities`; `is_dense` is false, so every other slot is looked up; places are
// `ByEntity` (reads are `get_ptr`), and chunks have no keys.
unsafe impl Storage for VecStorage {
    const NAME: &'static str = "vec";
    type Lookup = VecColumn;
    type Chunk<'a> = VecChunk<'a>;
    type Chunks<'a> = std::option::IntoIter<VecChunk<'a>>;
    type QueryCache = ();
    type Place<'a> = ByEntity<'a, VecStorage>;

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
        struct Writer<'a> {
            storage: &'a mut VecStorage,
            entity: Entity,
            ids: &'a [ComponentId],
            components: &'a Components,
        }
        impl BundleVisitor for Writer<'_> {
            fn visit<T: Component>(&mut self, index: usize, value: T) {
                let column = self.storage.column_mut(self.ids[index], self.components);
                column.push_entity(self.entity);
                // SAFETY: the column was created for component `ids[index]`, whose type is `T`
                // (the `Bundle` contract).
                unsafe { column.data.push(value) };
            }
        }
        let ids = info.components();
        bundle.visit(&mut Writer {
            storage: self,
            entity,
            ids,
            components,
        });
    }

    unsafe fn reserve(&mut self, _: &BundleInfo, _: &Components, _: usize) {}

    fn despawn(&mut self, entity: Entity) {
        crate::unwind::for_each_completing(self.columns.iter_mut().flatten(), |col| {
            if let Some(row) = col.row(entity) {
                col.swap_remove_entity(row);
                // SAFETY: `row` was below the (parallel) data length.
                unsafe { col.data.swap_remove_and_drop_unchecked(row) };
            }
        });
    }

    fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>> {
        self.column(component)?.lookup(entity)
    }

    fn place(&self, entity: Entity) -> Option<ByEntity<'_, VecStorage>> {
        Some(ByEntity::new(self, entity))
    }

    unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        let column = self.column_mut(component, components);
        column.push_entity(entity);
        // SAFETY: `value` is an owned value of this column's component (caller).
        unsafe { column.data.push_from(value) };
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
        let Some(row) = column.row(entity) else {
            return false;
        };
        column.swap_remove_entity(row);
        // SAFETY: `row` is in bounds; `dst` is a disjoint slot for one value (caller).
        unsafe { column.data.swap_remove_into_unchecked(row, dst) };
        true
    }

    fn clear(&mut self) {
        crate::unwind::for_each_completing(self.columns.iter_mut().flatten(), |col| {
            col.rows.clear();
            col.entities.clear();
            col.data.clear();
        });
    }

    fn update_query_cache(&self, _: &mut (), _: &QueryDescriptor, _: &Components) {}

    fn query_chunks<'a>(
        &'a self,
        _: &'a (),
        descriptor: &'a QueryDescriptor,
        alive: &'a [Entity],
    ) -> Self::Chunks<'a> {
        let mut driver: Option<(ComponentId, usize)> = None;
        for slot in descriptor
            .slots()
            .iter()
            .filter(|s| s.role == SlotRole::Required)
        {
            let len = self.column(slot.component).map_or(0, |c| c.entities.len());
            if driver.is_none_or(|(_, best)| len < best) {
                driver = Some((slot.component, len));
            }
        }
        let entities = match driver {
            Some((id, _)) => self.column(id).map_or(&[][..], |c| &c.entities[..]),
            None => alive,
        };
        Some(VecChunk {
            entities,
            driver: driver.map(|d| d.0),
            storage: self,
            descriptor,
        })
        .into_iter()
    }

    fn memory_usage(&self) -> usize {
        self.columns
            .iter()
            .flatten()
            .map(VecColumn::memory_usage)
            .sum()
    }

    /// One unit per column.
    fn layout(&self, components: &Components) -> StorageLayout {
        let units = self.columns.iter().enumerate().filter_map(|(i, column)| {
            let column = column.as_ref()?;
            let id = ComponentId::new(i as u32);
            Some(StorageUnit {
                kind: UnitKind::Other,
                components: vec![ComponentBytes::new(
                    id,
                    components,
                    column.data.memory_usage(),
                )],
                rows: column.entities.len(),
                capacity: column.entities.capacity(),
                pages: None,
                bytes: column.memory_usage(),
            })
        });
        StorageLayout {
            units: units.collect(),
            ..StorageLayout::default()
        }
    }
}

impl VecColumn {
    fn memory_usage(&self) -> usize {
        self.rows.capacity() * 4 + self.entities.capacity() * 8 + self.data.memory_usage()
    }
}
