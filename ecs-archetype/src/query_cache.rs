//! The query cache: which tables a query matches, and where each of its slots lives in them.
//!
//! Matching is done per *table*, not per entity: a table either has every required component
//! and none of the excluded ones, or it does not, for all its rows at once. The result is
//! cached in the query's state and brought up to date incrementally: tables are never
//! removed and their ids grow in creation order, so the cache only has to remember how many
//! tables it has already examined and look at the ones created since.
//!
//! ```text
//!   tables:    t0  t1  t2  t3 │ t4  t5        (t4, t5 created since the last update)
//!              ───────────────┘
//!              examined = 4
//!
//!   update: candidates = component_index[rarest required component] ∩ tables ≥ 4
//!           keep those with all required and no excluded components
//!
//!   matched:   t1            t3            t5
//!   columns:   [0, 2, ABSENT][1, 0, ABSENT][0, 1, 3]   one column per descriptor slot
//! ```
//!
//! Starting from the rarest required component means a query for `(&Position, &Boss)` only
//! looks at tables holding `Boss`, not at every table holding `Position`.

use ecs_core::storage::{QueryDescriptor, SlotRole};

use crate::archetypes::Archetypes;
use crate::table::{Table, TableId};

/// The column of a slot the table does not have (optional slots, excluded slots).
pub const ABSENT: u32 = u32::MAX;

/// A query's matched tables (see the module docs).
///
/// # Invariants
/// * Once updated, `owner` is the id of the [`Archetypes`] it was built from and `slots` the
///   number of slots of its descriptor; `examined` tables of it have been examined. The
///   descriptor is the same on every update (the `Storage` contract's "query caches"
///   promise asks that of callers; only its slot count is checked).
/// * `matched` lists, once each and in ascending id, exactly the examined tables that have
///   every required and no excluded component of the descriptor.
/// * `columns.len() == matched.len() * slots`, and `columns[i * slots + s]` is the column
///   of slot `s` in `matched[i]`: a valid column index holding the slot's component for
///   required slots and present optional slots, and [`ABSENT`] for absent optional slots and
///   for excluded slots. (Query walks rely on both for unchecked reads.)
#[derive(Debug, Default)]
pub struct QueryCache {
    owner: Option<u64>,
    slots: usize,
    examined: usize,
    matched: Vec<TableId>,
    columns: Vec<u32>,
    candidates_checked: usize,
}

impl QueryCache {
    /// The tables the query matches, in creation order.
    #[inline]
    pub fn matched_tables(&self) -> &[TableId] {
        &self.matched
    }

    /// The column of each descriptor slot in `matched_tables()[i]` ([`ABSENT`] if none).
    #[inline]
    pub fn columns(&self, i: usize) -> &[u32] {
        &self.columns[i * self.slots..(i + 1) * self.slots]
    }

    /// The column lists of every matched table, in `matched_tables()` order,
    /// [`QueryCache::slots`] entries each: for a walk that takes them in order instead of
    /// slicing per table.
    #[inline]
    pub fn all_columns(&self) -> &[u32] {
        &self.columns
    }

    /// The number of descriptor slots: how many column entries each matched table has.
    #[inline]
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// How many tables (by creation order) the cache has already taken into account.
    pub fn tables_examined(&self) -> usize {
        self.examined
    }

    /// How many candidate tables were checked against the descriptor over all updates: the
    /// work the component index saves shows up here.
    pub fn candidates_checked(&self) -> usize {
        self.candidates_checked
    }

    /// Checks that the cache was updated against `archetypes` for a descriptor of `slots`
    /// slots.
    ///
    /// # Panics
    /// If it was not (a cache from another storage, or never updated).
    #[inline]
    pub(crate) fn assert_current(&self, archetypes: &Archetypes, slots: usize) {
        assert!(
            self.owner == Some(archetypes.id()) && self.slots == slots,
            "query cache used with a storage or descriptor it was not updated for"
        );
    }

    /// Examines the tables created since the last update. Inline: a query runs it every
    /// time, and it usually finds no new table (two compares).
    #[inline]
    pub(crate) fn update(&mut self, archetypes: &Archetypes, descriptor: &QueryDescriptor) {
        let slots = descriptor.slots().len();
        if self.owner != Some(archetypes.id()) || self.slots != slots {
            *self = QueryCache {
                owner: Some(archetypes.id()),
                slots,
                ..QueryCache::default()
            };
        }
        if self.examined != archetypes.tables().len() {
            self.examine_new(archetypes, descriptor);
        }
    }

    /// The tables created since the last update, each added to the matches if it fits.
    #[inline(never)]
    fn examine_new(&mut self, archetypes: &Archetypes, descriptor: &QueryDescriptor) {
        let tables = archetypes.tables();
        let since = self.examined;
        let index = archetypes.component_index();
        let rarest = descriptor
            .required()
            .map(|c| index.tables_with_since(c, since))
            .min_by_key(|candidates| candidates.len());
        match rarest {
            Some(candidates) => {
                for candidate in candidates {
                    self.consider(&tables[candidate.table.index()], descriptor);
                }
            }
            None => {
                for table in &tables[since..] {
                    self.consider(table, descriptor);
                }
            }
        }
        self.examined = tables.len();
    }

    /// Adds `table` to the matches if it fits the descriptor.
    fn consider(&mut self, table: &Table, descriptor: &QueryDescriptor) {
        self.candidates_checked += 1;
        let fits = descriptor.slots().iter().all(|slot| match slot.role {
            SlotRole::Required => table.has(slot.component),
            SlotRole::Excluded => !table.has(slot.component),
            SlotRole::Optional => true,
        });
        if !fits {
            return;
        }
        self.matched.push(table.id());
        self.columns.extend(descriptor.slots().iter().map(|slot| {
            match slot.role {
                SlotRole::Excluded => ABSENT,
                _ => table
                    .column_index(slot.component)
                    .map_or(ABSENT, |c| c as u32),
            }
        }));
    }

    /// Heap bytes held.
    pub fn memory_usage(&self) -> usize {
        self.matched.capacity() * size_of::<TableId>() + self.columns.capacity() * size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecs_core::component::{Component, ComponentId, Components};

    struct A;
    impl Component for A {
        type Mutability = ecs_core::Mutable;
    }
    struct B;
    impl Component for B {
        type Mutability = ecs_core::Mutable;
    }
    struct C;
    impl Component for C {
        type Mutability = ecs_core::Mutable;
    }
    struct D;
    impl Component for D {
        type Mutability = ecs_core::Mutable;
    }

    struct Setup {
        components: Components,
        archetypes: Archetypes,
        ids: [ComponentId; 4],
    }

    fn setup() -> Setup {
        let mut components = Components::default();
        let ids = [
            components.register::<A>(),
            components.register::<B>(),
            components.register::<C>(),
            components.register::<D>(),
        ];
        Setup {
            components,
            archetypes: Archetypes::default(),
            ids,
        }
    }

    fn descriptor(slots: &[(ComponentId, SlotRole)]) -> QueryDescriptor {
        let mut d = QueryDescriptor::default();
        for &(c, role) in slots {
            d.push(c, role);
        }
        d
    }

    #[test]
    fn only_tables_created_since_the_last_update_are_examined() {
        let Setup {
            components,
            mut archetypes,
            ids: [a, b, c, _],
        } = setup();
        let t_a = archetypes.table_for(&[a], &components);
        let t_ab = archetypes.table_for(&[a, b], &components);
        archetypes.table_for(&[b], &components);
        let query = descriptor(&[(a, SlotRole::Required), (b, SlotRole::Optional)]);
        let mut cache = QueryCache::default();
        cache.update(&archetypes, &query);
        assert_eq!(cache.matched_tables(), &[t_a, t_ab]);
        assert_eq!(cache.columns(0), &[0, ABSENT]);
        assert_eq!(cache.columns(1), &[0, 1]);
        assert_eq!(
            (cache.candidates_checked(), cache.tables_examined()),
            (2, 4)
        );

        // Nothing new: nothing examined.
        cache.update(&archetypes, &query);
        assert_eq!(cache.candidates_checked(), 2);

        // Three new tables, two with A: only those two are candidates.
        let t_ac = archetypes.table_for(&[a, c], &components);
        archetypes.table_for(&[c], &components);
        let t_abc = archetypes.table_for(&[a, b, c], &components);
        cache.update(&archetypes, &query);
        assert_eq!(cache.candidates_checked(), 4);
        assert_eq!(cache.matched_tables(), &[t_a, t_ab, t_ac, t_abc]);
        assert_eq!(cache.columns(3), &[0, 1]);
        assert_eq!(cache.tables_examined(), archetypes.tables().len());
    }

    #[test]
    fn candidates_come_from_the_rarest_required_component() {
        let Setup {
            components,
            mut archetypes,
            ids: [a, b, c, d],
        } = setup();
        for set in [&[a][..], &[a, c], &[a, d], &[a, c, d], &[a, b], &[b, c]] {
            archetypes.table_for(set, &components);
        }
        let query = descriptor(&[
            (a, SlotRole::Required),
            (b, SlotRole::Required),
            (c, SlotRole::Excluded),
        ]);
        let mut cache = QueryCache::default();
        cache.update(&archetypes, &query);
        // B is in 2 tables, A in 5: only B's two tables were checked.
        assert_eq!(cache.candidates_checked(), 2);
        let ab = archetypes.table_for(&[a, b], &components);
        assert_eq!(cache.matched_tables(), &[ab]);
        assert_eq!(cache.columns(0), &[0, 1, ABSENT]);
    }

    #[test]
    fn no_required_component_examines_every_new_table() {
        let Setup {
            components,
            mut archetypes,
            ids: [a, b, ..],
        } = setup();
        archetypes.table_for(&[a], &components);
        archetypes.table_for(&[b], &components);
        let query = descriptor(&[(a, SlotRole::Excluded)]);
        let mut cache = QueryCache::default();
        cache.update(&archetypes, &query);
        assert_eq!(cache.candidates_checked(), 3);
        assert_eq!(cache.matched_tables(), &[TableId::EMPTY, TableId::new(2)]);
        archetypes.table_for(&[a, b], &components);
        cache.update(&archetypes, &query);
        assert_eq!(cache.candidates_checked(), 4);
        assert_eq!(cache.matched_tables().len(), 2);
    }

    #[test]
    fn a_cache_from_another_storage_starts_over() {
        let Setup {
            components,
            mut archetypes,
            ids: [a, ..],
        } = setup();
        archetypes.table_for(&[a], &components);
        let query = descriptor(&[(a, SlotRole::Required)]);
        let mut cache = QueryCache::default();
        cache.update(&archetypes, &query);
        let other = Archetypes::default();
        cache.update(&other, &query);
        assert!(cache.matched_tables().is_empty());
        cache.assert_current(&other, 1);
        let result = std::panic::catch_unwind(|| cache.assert_current(&archetypes, 1));
        assert!(result.is_err());
    }
}
