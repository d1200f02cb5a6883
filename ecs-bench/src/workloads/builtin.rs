//! The one registry of built-in workload names: [`Builtin`], one variant per workload of
//! [`registry`](super::registry), in its order, each with its name (what reports, JSON,
//! `--filter` and the command line show) and its [`Family`].
//!
//! Code that means a built-in workload names it by variant (the family files building their
//! [`WorkloadInfo`](crate::workload::WorkloadInfo)s, the peers' dispatch, the performance
//! targets, the documentation tables); the name string is written once, here. A program's
//! own workloads ([`WorkloadInfo::custom`](crate::workload::WorkloadInfo::custom)) are not
//! in it and keep free-form names.

use std::fmt;

use crate::workload::Family;

/// Declares [`Builtin`]: per family, `Variant = "name"` in registry order.
macro_rules! builtins {
    ($($family:ident { $($variant:ident = $name:literal,)* })*) => {
        /// A built-in workload (see the module docs), in registry order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Builtin {
            $($(
                #[doc = concat!("`", $name, "`.")]
                $variant,
            )*)*
        }

        impl Builtin {
            /// Every built-in workload, in registry (report) order.
            pub const ALL: &'static [Builtin] = &[$($(Builtin::$variant,)*)*];

            /// The workload's name, e.g. `simple_iter`.
            pub const fn name(self) -> &'static str {
                match self {
                    $($(Builtin::$variant => $name,)*)*
                }
            }

            /// The family (report section) the workload belongs to.
            pub const fn family(self) -> Family {
                match self {
                    $($(Builtin::$variant => Family::$family,)*)*
                }
            }
        }
    };
}

builtins! {
    Community {
        SimpleInsert = "simple_insert",
        SimpleIter = "simple_iter",
        SimpleIterGrouped = "simple_iter_grouped",
        SmallIterSeq = "small_iter_seq",
        SmallIterPar = "small_iter_par",
        FragmentedIter = "fragmented_iter",
        HeavyCompute = "heavy_compute",
        AddRemove = "add_remove",
        AddRemoveHooked = "add_remove_hooked",
        Schedule = "schedule",
        // The snapshot workloads (`snapshot` module), in the community section.
        Serialize = "serialize",
        SnapshotSave = "snapshot_save",
        SnapshotLoad = "snapshot_load",
    }
    Seed000 {
        Create = "create",
        Add = "add",
        AddWriteDelete = "add_write_delete",
        Distributed = "distributed",
        Random = "random",
        // The hierarchy workloads (`relationship` module).
        Relationship = "relationship",
        RelationshipTraversal = "relationship_traversal",
    }
    Seed001 {
        EntityIndex = "entity_index",
        EntityIndexLegacy = "entity_index_legacy",
    }
    Seed002 {
        CratesRenderChanged = "crates_render_changed",
        CratesRenderScan = "crates_render_scan",
    }
    Seed003 {
        RandomAccess = "random_access",
        Insertion = "insertion",
        Query1 = "query_1",
        Query2 = "query_2",
        Query3 = "query_3",
        Query4 = "query_4",
        Query2Unaligned = "query_2_unaligned",
    }
    Seed004 {
        // Swap removal at the seed's counts (`seed004::SWAP_COUNTS`), each in three orders.
        RemoveLinear10k = "remove_linear_10k",
        RemoveReverse10k = "remove_reverse_10k",
        RemoveRandom10k = "remove_random_10k",
        RemoveLinear100k = "remove_linear_100k",
        RemoveReverse100k = "remove_reverse_100k",
        RemoveRandom100k = "remove_random_100k",
        RemoveLinear250k = "remove_linear_250k",
        RemoveReverse250k = "remove_reverse_250k",
        RemoveRandom250k = "remove_random_250k",
        // Shift removal (`seed004::SHIFT_COUNTS`), baseline only.
        RemoveShiftLinear10k = "remove_shift_linear_10k",
        RemoveShiftReverse10k = "remove_shift_reverse_10k",
        RemoveShiftRandom10k = "remove_shift_random_10k",
        RemoveShiftLinear20k = "remove_shift_linear_20k",
        RemoveShiftReverse20k = "remove_shift_reverse_20k",
        RemoveShiftRandom20k = "remove_shift_random_20k",
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_the_enum_in_order() {
        let registered: Vec<(String, Family, Option<Builtin>)> = super::super::registry()
            .iter()
            .map(|w| (w.info().name.clone(), w.info().family, w.info().builtin))
            .collect();
        let listed: Vec<(String, Family, Option<Builtin>)> = Builtin::ALL
            .iter()
            .map(|&w| (w.name().to_owned(), w.family(), Some(w)))
            .collect();
        assert_eq!(registered, listed);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = Builtin::ALL.iter().map(|w| w.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Builtin::ALL.len());
    }
}
