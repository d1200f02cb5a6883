//! [`HybridQueryCache`]: a hybrid query's plan (which slots are table components, which
//! tables match) and its memo of which sets hold which tables' rows in order.

use ecs_core::component::{Components, StorageKind};
use ecs_core::storage::{QueryDescriptor, SlotRole};

use ecs_archetype::query_cache::QueryCache;

use crate::storage::HybridStorage;

/// A hybrid query's cached plan: which slots are table components, and the table matches.
///
/// # Invariants
/// Once planned (`planned_at` is not 0), for the descriptor the plan was made for and while
/// the storage's `plans` stamp is still `planned_at`: `kinds[s]` is the registered kind of
/// slot `s`'s component (fixed at registration unless a movable component is moved, which
/// changes the stamp, so the plan is made again); `table_descriptor` is that descriptor
/// with every sparse slot made `Optional` and every table slot keeping its role; `tables` was built from `table_descriptor` unless
/// `all_sparse`, which is true exactly when no slot is a table component; `joins_sets` is
/// true exactly when some slot is a sparse component (so, when it is false, the table
/// descriptor is the descriptor itself).
///
/// The alignment memo: when `aligned_at` is `Some(v)` and the storage's `structure` is
/// still `v`, `aligned[t * slots + s]` (for table index `t` and sparse slot `s`, `slots`
/// the descriptor's slot count) is the position at which the set of slot `s`'s component
/// holds every entity of table `t` in the table's order, or `NOT_ALIGNED` (`u32::MAX`);
/// entries for table slots are `NOT_ALIGNED`. Kept so that a query over a world that has
/// not changed skips the per-table check (one `memcmp` of the table's ids against the set's
/// run, as much memory as the query reads itself).
///
/// `drivers` has bit `s` set exactly for each slot `s < 32` whose component is a sparse
/// component the descriptor requires (any one of them holds every entity the query can
/// match); kept as bits in what was the plan's padding, so the plan grows by nothing.
/// `drive` is the slot whose set drives the query's next run (see
/// `HybridStorage::choose_driver`), or `NO_DRIVER`: chosen by `update_query_cache` for the
/// storage as it was then, and only a choice of plan: any slot of `drivers` would find
/// the same entities.
#[derive(Debug, Default)]
pub struct HybridQueryCache {
    pub(crate) kinds: Vec<StorageKind>,
    pub(crate) table_descriptor: QueryDescriptor,
    pub(crate) tables: QueryCache,
    pub(crate) all_sparse: bool,
    pub(crate) joins_sets: bool,
    pub(crate) planned_at: u64,
    pub(crate) aligned: Vec<u32>,
    pub(crate) aligned_at: Option<u64>,
    pub(crate) drivers: u32,
    pub(crate) drive: u8,
}

/// An alignment memo entry: the set does not hold the table's rows in order.
pub(crate) const NOT_ALIGNED: u32 = u32::MAX;

/// No set drives the query: its tables are walked.
pub(crate) const NO_DRIVER: u8 = u8::MAX;

impl HybridQueryCache {
    /// Plans `descriptor` from its components' registered kinds.
    pub(crate) fn plan(&mut self, descriptor: &QueryDescriptor, components: &Components) {
        self.kinds = descriptor
            .slots()
            .iter()
            .map(|s| components.info(s.component).storage())
            .collect();
        let mut table_descriptor = QueryDescriptor::default();
        for (slot, kind) in descriptor.slots().iter().zip(&self.kinds) {
            let role = match kind {
                StorageKind::Table => slot.role,
                StorageKind::Sparse => SlotRole::Optional,
            };
            table_descriptor.push(slot.component, role);
        }
        self.drivers = (descriptor.slots().iter().zip(&self.kinds).enumerate())
            .take(32)
            .filter(|(_, (slot, kind))| {
                **kind == StorageKind::Sparse && slot.role == SlotRole::Required
            })
            .fold(0, |bits, (s, _)| bits | 1 << s);
        self.drive = NO_DRIVER;
        self.all_sparse = self.kinds.iter().all(|k| *k == StorageKind::Sparse);
        self.joins_sets = self.kinds.contains(&StorageKind::Sparse);
        self.table_descriptor = table_descriptor;
        self.tables = QueryCache::default();
        self.aligned.clear();
        self.aligned_at = None;
    }

    /// Recomputes the alignment memo for `storage` as it is now (see the type's docs).
    pub(crate) fn memoize_alignment(
        &mut self,
        storage: &HybridStorage,
        descriptor: &QueryDescriptor,
    ) {
        let slots = descriptor.slots().len();
        let tables = storage.archetypes().tables();
        self.aligned.clear();
        self.aligned.resize(tables.len() * slots, NOT_ALIGNED);
        for &id in self.tables.matched_tables() {
            let table = &tables[id.index()];
            for (s, (slot, kind)) in descriptor.slots().iter().zip(&self.kinds).enumerate() {
                if *kind != StorageKind::Sparse {
                    continue;
                }
                let pos = storage
                    .sparse
                    .set(slot.component)
                    .and_then(|set| set.aligned_position(table.entities()))
                    .and_then(|pos| u32::try_from(pos).ok());
                if let Some(pos) = pos {
                    self.aligned[id.index() * slots + s] = pos;
                }
            }
        }
        self.aligned_at = Some(storage.structure);
    }
}
