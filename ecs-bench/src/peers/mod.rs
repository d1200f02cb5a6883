//! Peer ECS crates as extra runners of the community-standard and seed workloads (feature
//! `peers`).
//!
//! hecs (archetypes), bevy_ecs (archetype tables, sparse sets on request, a parallel
//! scheduler), shipyard (sparse sets) and specs (one storage per component, bitset joins)
//! each get a hand-written body per workload, building the same data and computing the same
//! checksum as our generic body, so a peer's row is checked against ours like any other
//! runner's. `bevy_ecs (sparse B)` is bevy_ecs with the one component our hybrid backend keeps
//! in sparse sets (`B`) declared `StorageType::SparseSet` there too: the same layout choice,
//! so its rows are the hybrid's direct comparison.
//!
//! Each runner takes the path its library documents and its users use for speed, and says
//! which in its module docs: storages or views borrowed once per pass (shipyard's views,
//! specs' storages, bevy's cached `QueryState`s, hecs's `query_mut` and `View`), then one
//! call per entity and component wherever the workload is per-entity work. bevy's `schedule`
//! runs its three systems on its multi-threaded executor, shipyard's as a workload and
//! specs' on a `Dispatcher`; `heavy_compute` uses each crate's parallel iteration.
//!
//! Without the feature [`Peer`] has no variants and none of these crates is compiled.

#[cfg(feature = "peers")]
mod bevy;
#[cfg(feature = "peers")]
mod bevy_b;
#[cfg(feature = "peers")]
mod bevy_relationship;
#[cfg(feature = "peers")]
mod bevy_seeds;
#[cfg(feature = "peers")]
mod hecs;
#[cfg(feature = "peers")]
mod hecs_seeds;
#[cfg(feature = "peers")]
mod hecs_serialize;
#[cfg(feature = "peers")]
mod shipyard;
#[cfg(feature = "peers")]
mod shipyard_seeds;
#[cfg(feature = "peers")]
mod specs;
#[cfg(feature = "peers")]
mod specs_seeds;

use crate::workload::Prepared;

/// A peer ECS crate (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Peer {
    /// hecs.
    #[cfg(feature = "peers")]
    Hecs,
    /// bevy_ecs.
    #[cfg(feature = "peers")]
    Bevy,
    /// bevy_ecs with `B` in a sparse set, as our hybrid backend keeps it.
    #[cfg(feature = "peers")]
    BevySparseB,
    /// shipyard.
    #[cfg(feature = "peers")]
    Shipyard,
    /// specs.
    #[cfg(feature = "peers")]
    Specs,
}

/// The workloads every peer implements: the community set, and the seed 000 / seed 003
/// workloads the performance targets compare against peers.
pub const WORKLOADS: [&str; 14] = [
    "simple_insert",
    "simple_iter",
    "fragmented_iter",
    "heavy_compute",
    "add_remove",
    "schedule",
    "create",
    "add",
    "add_write_delete",
    "random_access",
    "query_1",
    "query_2",
    "query_3",
    "query_4",
];

/// Workloads only hecs runs among the peers: world snapshots, against its column serializer.
pub const HECS_SNAPSHOT: [&str; 3] = ["serialize", "snapshot_save", "snapshot_load"];

/// Workloads only bevy_ecs runs among the peers: the hierarchy workloads, against its
/// `ChildOf` / `Children` (hecs, shipyard and specs have no hierarchy of their own).
pub const BEVY_ONLY: [&str; 2] = ["relationship", "relationship_traversal"];

/// Every workload bevy_ecs (and `bevy_ecs (sparse B)`) runs: [`WORKLOADS`], then
/// [`BEVY_ONLY`].
pub const BEVY_WORKLOADS: [&str; 16] = {
    let mut all = [""; 16];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < WORKLOADS.len() {
            WORKLOADS[i]
        } else {
            BEVY_ONLY[i - WORKLOADS.len()]
        };
        i += 1;
    }
    all
};

impl Peer {
    /// Every peer compiled in (none without the `peers` feature).
    pub const ALL: &'static [Peer] = &[
        #[cfg(feature = "peers")]
        Peer::BevySparseB,
        #[cfg(feature = "peers")]
        Peer::Hecs,
        #[cfg(feature = "peers")]
        Peer::Bevy,
        #[cfg(feature = "peers")]
        Peer::Shipyard,
        #[cfg(feature = "peers")]
        Peer::Specs,
    ];

    /// The runner name.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "peers")]
            Peer::Hecs => "hecs",
            #[cfg(feature = "peers")]
            Peer::Bevy => "bevy_ecs",
            #[cfg(feature = "peers")]
            Peer::BevySparseB => "bevy_ecs (sparse B)",
            #[cfg(feature = "peers")]
            Peer::Shipyard => "shipyard",
            #[cfg(feature = "peers")]
            Peer::Specs => "specs",
        }
    }

    /// Whether the report lists this peer right after our backends, before the baseline:
    /// `bevy_ecs (sparse B)`, the hybrid backend's layout in bevy_ecs, stands beside it.
    pub fn beside_backends(self) -> bool {
        match self {
            #[cfg(feature = "peers")]
            Peer::BevySparseB => true,
            #[cfg(feature = "peers")]
            _ => false,
        }
    }

    /// Whether this peer runs `workload` (a name from [`WORKLOADS`], or from [`BEVY_ONLY`] for
    /// bevy_ecs).
    pub fn runs(self, workload: &str) -> bool {
        WORKLOADS.contains(&workload)
            || (self.has_hierarchy() && BEVY_ONLY.contains(&workload))
            || (self.has_column_serializer() && HECS_SNAPSHOT.contains(&workload))
    }

    /// Whether the peer saves and loads whole worlds column by column (hecs's
    /// `serialize::column`, the reference of the snapshot workloads).
    fn has_column_serializer(self) -> bool {
        match self {
            #[cfg(feature = "peers")]
            Peer::Hecs => true,
            #[cfg(feature = "peers")]
            _ => false,
        }
    }

    /// Whether the peer has a parent/child hierarchy of its own (bevy_ecs).
    fn has_hierarchy(self) -> bool {
        match self {
            #[cfg(feature = "peers")]
            Peer::Bevy | Peer::BevySparseB => true,
            #[cfg(feature = "peers")]
            _ => false,
        }
    }

    /// Sets `workload` up at `size` on this peer.
    pub fn prepare(self, workload: &str, size: usize) -> Option<Box<dyn Prepared>> {
        if !self.runs(workload) {
            return None;
        }
        let _ = size;
        match self {
            #[cfg(feature = "peers")]
            Peer::Hecs => hecs::prepare(workload, size)
                .or_else(|| hecs_seeds::prepare(workload, size))
                .or_else(|| hecs_serialize::prepare(workload, size)),
            #[cfg(feature = "peers")]
            Peer::Bevy => bevy_prepare::<crate::components::B>(workload, size),
            #[cfg(feature = "peers")]
            Peer::BevySparseB => bevy_prepare::<bevy_b::SparseB>(workload, size),
            #[cfg(feature = "peers")]
            Peer::Shipyard => shipyard::prepare(workload, size)
                .or_else(|| shipyard_seeds::prepare(workload, size)),
            #[cfg(feature = "peers")]
            Peer::Specs => {
                specs::prepare(workload, size).or_else(|| specs_seeds::prepare(workload, size))
            }
        }
    }
}

/// The seed 000 and seed 003 workloads of a peer: the seed 000 bodies on its [`SeedWorld`]
/// `W`, and its own random_access and query_1..4 (given the arity) bodies.
///
/// [`SeedWorld`]: crate::workloads::seed000::SeedWorld
#[cfg(feature = "peers")]
fn seed_workload<W: crate::workloads::seed000::SeedWorld>(
    workload: &str,
    n: usize,
    random_access: impl FnOnce(usize) -> Box<dyn Prepared>,
    queries: impl FnOnce(usize, usize) -> Box<dyn Prepared>,
) -> Option<Box<dyn Prepared>> {
    use crate::workloads::seed000;
    Some(match workload {
        "create" => seed000::create::<W>(n),
        "add" => seed000::add::<W>(n),
        "add_write_delete" => seed000::add_write_delete::<W>(n),
        "random_access" => random_access(n),
        "query_1" => queries(1, n),
        "query_2" => queries(2, n),
        "query_3" => queries(3, n),
        "query_4" => queries(4, n),
        _ => return None,
    })
}

/// bevy_ecs with `Bb` as its `B` component (table or sparse set).
#[cfg(feature = "peers")]
fn bevy_prepare<Bb: bevy_b::BevyB>(workload: &str, size: usize) -> Option<Box<dyn Prepared>> {
    bevy::prepare::<Bb>(workload, size)
        .or_else(|| bevy_seeds::prepare::<Bb>(workload, size))
        .or_else(|| bevy_relationship::prepare(workload, size))
}
