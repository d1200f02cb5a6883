//! Peer ECS crates as extra runners of the community-standard workloads (feature `peers`).
//!
//! hecs (archetypes), bevy_ecs (archetype tables, sparse sets on request, a parallel
//! scheduler) and shipyard (sparse sets) each get a hand-written body per community workload,
//! building the same data and computing the same checksum as our generic body, so a peer's
//! row is checked against ours like any other runner's. Each peer runs a workload its
//! natural way: bevy's `schedule` runs its three systems on its multi-threaded executor and
//! shipyard's as a workload, `heavy_compute` uses each crate's parallel iteration where it
//! has one.
//!
//! Without the feature [`Peer`] has no variants and none of these crates is compiled.

#[cfg(feature = "peers")]
mod bevy;
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
    /// shipyard.
    #[cfg(feature = "peers")]
    Shipyard,
}

/// The workloads every peer implements: the community set, and the seed 000 / seed 003
/// workloads the performance targets compare against peers.
pub const WORKLOADS: [&str; 10] = [
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
];

/// Workloads only hecs runs among the peers: world snapshots, against its column serializer.
pub const HECS_SNAPSHOT: [&str; 3] = ["serialize", "snapshot_save", "snapshot_load"];

/// Workloads only bevy_ecs runs among the peers: the hierarchy workloads, against its
/// `ChildOf` / `Children` (hecs and shipyard have no hierarchy of their own).
pub const BEVY_ONLY: [&str; 2] = ["relationship", "relationship_traversal"];

impl Peer {
    /// Every peer compiled in (none without the `peers` feature).
    pub const ALL: &'static [Peer] = &[
        #[cfg(feature = "peers")]
        Peer::Hecs,
        #[cfg(feature = "peers")]
        Peer::Bevy,
        #[cfg(feature = "peers")]
        Peer::Shipyard,
    ];

    /// The runner name.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "peers")]
            Peer::Hecs => "hecs",
            #[cfg(feature = "peers")]
            Peer::Bevy => "bevy_ecs",
            #[cfg(feature = "peers")]
            Peer::Shipyard => "shipyard",
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
            Peer::Bevy => true,
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
            Peer::Bevy => bevy::prepare(workload, size)
                .or_else(|| bevy_seeds::prepare(workload, size))
                .or_else(|| bevy_relationship::prepare(workload, size)),
            #[cfg(feature = "peers")]
            Peer::Shipyard => shipyard::prepare(workload, size)
                .or_else(|| shipyard_seeds::prepare(workload, size)),
        }
    }
}
