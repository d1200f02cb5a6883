//! Storages that keep some components outside the tables: where a spawned bundle's fields go.
//!
//! [`ArchetypeStorage`](crate::ArchetypeStorage) keeps every component in tables
//! ([`AllInTables`]). A storage built on it can keep some component types elsewhere (the
//! hybrid backend, `ecs-hybrid`, keeps the ones declared `StorageKind::Sparse` in sparse
//! sets) by spawning through
//! [`ArchetypeStorage::spawn_batch_split`](crate::ArchetypeStorage::spawn_batch_split) with
//! its own [`OffTable`]: the table fields go to the row's columns, exactly as in the
//! all-tables backend, and the others are handed to it.
//!
//! ```text
//!   bundle (Position, OnFire, Velocity)      OffTable says OnFire is not in tables
//!   table {Position, Velocity}:  field 0 ─▶ column 0, field 2 ─▶ column 1
//!   OffTable::store(entity, OnFire)          (the hybrid: one push into the OnFire set)
//! ```

use ecs_core::blob::BlobVec;
use ecs_core::bundle::BundleVisitor;
use ecs_core::component::{Component, ComponentId, Components};
use ecs_core::entity::Entity;

use crate::bundle_cache::NOT_IN_TABLE;

/// Where a storage keeps the components it does not keep in tables.
///
/// # Safety
/// The two answers agree and never change for a type that is not
/// [`MOVABLE`](ecs_core::Component::MOVABLE): for such a component type `T` registered in the
/// world's registry as the id `c` (and for every named instance of `T`, which shares `T`'s
/// storage choice), `in_tables::<T>() == id_in_tables(c, components)` on every call. A spawn
/// pushes a table field only when `in_tables` says so, into the column the bundle cache chose
/// by `id_in_tables`: a disagreement would leave a table column one value short. A movable
/// type's fields go where the bundle cache put them (`in_tables` is not asked), so
/// `id_in_tables` may change for them, provided the storage forgets its cached bundles
/// ([`ArchetypeStorage::forget_bundles`](crate::ArchetypeStorage::forget_bundles)) before
/// the next spawn.
pub unsafe trait OffTable {
    /// Whether the typed component `T` is kept in tables: a constant per type, so the
    /// per-field branch of a spawn folds away at compile time.
    fn in_tables<T: Component>() -> bool;

    /// Whether the component `id` (registered in `components`) is kept in tables: what the
    /// bundle cache asks once per bundle type when it lays out the bundle's table.
    fn id_in_tables(id: ComponentId, components: &Components) -> bool;

    /// Takes a new entity's field `value` (component `id`, which `in_tables` rejects) and
    /// keeps it outside the tables; the entity lacks that component until now.
    fn store<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
        components: &Components,
    );
}

/// Every component in tables: the split of [`ArchetypeStorage`](crate::ArchetypeStorage).
#[derive(Clone, Copy, Debug, Default)]
pub struct AllInTables;

// SAFETY: both answers are always `true`.
unsafe impl OffTable for AllInTables {
    #[inline(always)]
    fn in_tables<T: Component>() -> bool {
        true
    }

    #[inline(always)]
    fn id_in_tables(_: ComponentId, _: &Components) -> bool {
        true
    }

    /// Never called: `in_tables` accepts every type, so no field is handed out.
    fn store<T: Component>(&mut self, _: Entity, _: ComponentId, _: T, _: &Components) {
        unreachable!("AllInTables keeps every component in tables; no field is stored elsewhere")
    }
}

/// Writes one spawned bundle: table fields straight into the row's columns (typed), the
/// others to the [`OffTable`].
pub(crate) struct ColumnWriter<'a, O> {
    /// The row's table columns, each with room for one more value.
    pub(crate) columns: &'a mut [BlobVec],
    /// Per bundle field, its column or [`NOT_IN_TABLE`] (the bundle cache's target).
    pub(crate) field_columns: &'a [u32],
    /// Where the other fields go.
    pub(crate) off: &'a mut O,
    /// The bundle's component ids, per field.
    pub(crate) ids: &'a [ComponentId],
    /// The entity being spawned.
    pub(crate) entity: Entity,
    /// The world's registry.
    pub(crate) components: &'a Components,
}

impl<O: OffTable> ColumnWriter<'_, O> {
    /// Hands field `index` to the [`OffTable`]. Out of line, so the table path of `visit`
    /// stays small enough to inline into a spawn loop.
    #[inline(never)]
    fn send_off<T: Component>(&mut self, index: usize, value: T) {
        self.off
            .store(self.entity, self.ids[index], value, self.components);
    }
}

impl<O: OffTable> BundleVisitor for ColumnWriter<'_, O> {
    #[inline(always)]
    fn visit<T: Component>(&mut self, index: usize, value: T) {
        // `in_tables::<T>` is a constant (the branch folds away) and agrees with the
        // `id_in_tables` the bundle cache laid the columns out by (`OffTable` contract). A
        // movable type's place is a run-time fact: the bundle cache's column says it.
        let in_table = match T::MOVABLE {
            false => O::in_tables::<T>(),
            true => self.field_columns[index] != NOT_IN_TABLE,
        };
        if !in_table {
            debug_assert_eq!(self.field_columns[index], NOT_IN_TABLE);
            return self.send_off(index, value);
        }
        let column = self.field_columns[index];
        debug_assert_ne!(column, NOT_IN_TABLE);
        // SAFETY: `field_columns[index]` is the column of the bundle's field `index`
        // (`BundleCache` invariant), whose component type is `T` (the `Bundle` contract);
        // `push_batch` reserved room for this row in every column, and each field is visited
        // once.
        unsafe { self.columns[column as usize].push_unchecked(value) }
    }
}
