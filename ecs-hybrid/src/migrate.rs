//! Moving a component between the halves while the world runs
//! ([`World::set_storage`](ecs_core::World::set_storage)).
//!
//! ```text
//!   to the set:    table {Pos, Burning} row 4 ──▶ table {Pos} (row pushed), Burning set += e
//!   to the tables: Burning set -= e        ──▶ table {Pos} row ─▶ table {Pos, Burning}
//! ```
//!
//! A move has two phases. **Prepare** does everything that allocates: it lists the entities
//! holding the component, creates every destination table (graph edges included), reserves
//! their rows and the entities' records, and creates and reserves the destination set (its
//! dense arrays, each entity's sparse page and holder slot). **Commit** then moves entity
//! after entity with the halves' own single-entity moves, which allocate nothing once room is
//! reserved and run no user code (no value is dropped, no hook is called): nothing in it can
//! fail. So a panic (a capacity overflow; running out of memory aborts the process) can
//! only happen while preparing, when every value is still where it was; what preparing made
//! (empty tables, an empty set, spare capacity) holds nothing and changes no answer. The
//! spare capacity stays after the move, as it does after a despawn: a later move back, or
//! the next build, reuses it.

use ecs_archetype::table::TableId;
use ecs_core::blob::ValueBuffer;
use ecs_core::component::{ComponentId, Components, StorageKind};
use ecs_core::entity::Entity;
use ecs_core::EcsError;

use crate::storage::HybridStorage;

impl HybridStorage {
    /// Moves every value of `component` into the half `kind` names (see the module docs);
    /// the caller has checked that `kind` is not its current kind.
    ///
    /// # Safety
    /// As [`Storage::set_storage`](ecs_core::Storage::set_storage): `component` is
    /// registered in `components` with its current kind, and the registry records `kind`
    /// for it before the next call.
    pub(crate) unsafe fn migrate(
        &mut self,
        component: ComponentId,
        kind: StorageKind,
        components: &Components,
    ) -> Result<(), EcsError> {
        self.restructure();
        match kind {
            // SAFETY: forwarded contract.
            StorageKind::Sparse => unsafe { self.tables_to_set(component, components) },
            StorageKind::Table => {
                if self.sparse.is_grouped(component) {
                    return Err(EcsError::Storage {
                        component: components.info(component).name().to_owned(),
                        reason: "an owning group holds it, and a group keeps only sparse \
                                 components (a group lasts as long as the world)"
                            .to_owned(),
                    });
                }
                // SAFETY: forwarded contract.
                unsafe { self.set_to_tables(component, components) }
            }
        }
        if let Some(known) = self.kinds.get_mut(component.index()) {
            if known.is_some() {
                *known = Some(kind);
            }
        }
        // Spawns resolve their bundles again, queries their plans.
        self.tables.forget_bundles();
        // Never 0, the stamp of a cache never planned.
        self.plans = self.plans.checked_add(1).unwrap_or(1);
        Ok(())
    }

    /// Every table row's value of `component` into its set (see the module docs).
    ///
    /// # Safety
    /// As [`HybridStorage::migrate`]; `component` is a table component now.
    unsafe fn tables_to_set(&mut self, component: ComponentId, components: &Components) {
        // Prepare: destination tables and their rows, the set and its room.
        let archetypes = self.tables.archetypes_mut();
        let holding: Vec<TableId> = archetypes
            .component_index()
            .tables_with(component)
            .iter()
            .map(|c| c.table)
            .filter(|&t| !archetypes.table(t).is_empty())
            .collect();
        let mut entities = Vec::new();
        for &from in &holding {
            let rows = archetypes.table(from).entities();
            entities.extend_from_slice(rows);
            let count = rows.len();
            let to = archetypes.remove_target(from, component);
            archetypes.reserve(to, count);
        }
        step("tables reserved");
        self.sparse.reserve_for(component, &entities, components);
        step("set reserved");
        // Where each value waits between the halves (it never drops what passes through).
        let scratch = ValueBuffer::new(components.info(component).layout());
        step("commit begins");
        // Commit: from each table's last row, so no other row moves within the table.
        for &from in &holding {
            while let Some(&entity) = self.archetypes().table(from).entities().last() {
                // SAFETY: the entity is in `from`, which holds `component`; `scratch` has
                // room for one value of it, outside the tables and the set.
                let moved = unsafe {
                    self.tables
                        .archetypes_mut()
                        .remove_into(entity, component, scratch.ptr())
                };
                debug_assert!(moved, "a row of a table holding the component");
                // SAFETY: the entity is held by the world and, as a table component's
                // holder until now, is not in the set; `scratch` holds the owned value,
                // which the set takes over.
                unsafe {
                    ecs_core::Storage::insert_new(
                        &mut self.sparse,
                        entity,
                        component,
                        scratch.ptr(),
                        components,
                    )
                };
            }
        }
        step("commit ends");
    }

    /// Every value of `component`'s set into its holder's row (see the module docs).
    ///
    /// # Safety
    /// As [`HybridStorage::migrate`]; `component` is a sparse component now, which no group
    /// owns.
    unsafe fn set_to_tables(&mut self, component: ComponentId, components: &Components) {
        let Some(set) = self.sparse.set(component) else {
            return; // never stored: nothing to move
        };
        let entities: Vec<Entity> = set.entities().to_vec();
        // Prepare: per source table, the destination with `component` and room in it.
        let archetypes = self.tables.archetypes_mut();
        let mut per_table = vec![0_usize; archetypes.tables().len()];
        for &entity in &entities {
            let from = archetypes
                .locate(entity)
                .map_or(TableId::EMPTY, |r| r.table);
            per_table[from.index()] += 1;
            archetypes.reserve_record(entity);
        }
        for (index, &count) in per_table.iter().enumerate().filter(|(_, &n)| n > 0) {
            let to = archetypes.add_target(TableId::new(index), component, components);
            archetypes.reserve(to, count);
        }
        step("tables reserved");
        // Where each value waits between the halves (it never drops what passes through).
        let scratch = ValueBuffer::new(components.info(component).layout());
        step("commit begins");
        // Commit: from the set's end, so no other value moves within the set.
        for &entity in entities.iter().rev() {
            // SAFETY: the entity is in the set; `scratch` has room for one value of it,
            // outside the set and the tables.
            let moved = unsafe {
                ecs_core::Storage::remove_into(&mut self.sparse, entity, component, scratch.ptr())
            };
            debug_assert!(moved, "an entity of the set");
            // SAFETY: the entity is held by the world and lacks `component` in the tables
            // (it was a sparse component until now); `scratch` holds the owned value, which
            // the table takes over.
            unsafe {
                self.tables.archetypes_mut().insert_new(
                    entity,
                    component,
                    scratch.ptr(),
                    components,
                )
            };
        }
        step("commit ends");
    }
}

/// Marks a step of a move: what the tests hook to inject a failure or to count the
/// allocations of the commit (`tests::step`); nothing outside tests.
#[inline(always)]
fn step(name: &'static str) {
    #[cfg(test)]
    tests::step(name);
    #[cfg(not(test))]
    let _ = name;
}

#[cfg(test)]
mod tests;
