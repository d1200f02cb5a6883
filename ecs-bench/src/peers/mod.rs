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
//! A peer implements the workloads of a [`PeerFamily`] as one trait with a method per
//! workload (`CommunityPeer`, `SeedPeer`, `HierarchyPeer`, `SnapshotPeer`), on a unit type
//! per peer (`HecsPeer`, `BevyPeer<Bb>`, `ShipyardPeer`, `SpecsPeer`); [`Peer::families`]
//! says which families a peer implements and [`Peer::prepare`] maps a [`Builtin`] workload to
//! its trait method.
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
use crate::workloads::Builtin;

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

/// A family of workloads a peer implements as one trait, a method per workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PeerFamily {
    /// The community set (`CommunityPeer`): simple_insert, simple_iter, fragmented_iter,
    /// heavy_compute, add_remove, schedule. Every peer.
    Community,
    /// The seed 000 / seed 003 workloads the performance targets compare against peers
    /// (`SeedPeer`): create, add, add_write_delete (seed 000's bodies on the peer's
    /// `SeedWorld`), random_access, query_1..4. Every peer.
    Seeds,
    /// The hierarchy workloads (`HierarchyPeer`): relationship (seed 000's body on the
    /// peer's `HierarchyWorld`), relationship_traversal. bevy_ecs only, against its
    /// `ChildOf` / `Children` (hecs, shipyard and specs have no hierarchy of their own).
    Hierarchy,
    /// World snapshots (`SnapshotPeer`): serialize, snapshot_save, snapshot_load. hecs only,
    /// against its column serializer.
    Snapshot,
}

impl PeerFamily {
    /// The peer family `workload` belongs to; `None` for the workloads no peer runs.
    pub const fn of(workload: Builtin) -> Option<PeerFamily> {
        use Builtin::*;
        Some(match workload {
            SimpleInsert | SimpleIter | FragmentedIter | HeavyCompute | AddRemove | Schedule => {
                PeerFamily::Community
            }
            Create | Add | AddWriteDelete | RandomAccess | Query1 | Query2 | Query3 | Query4 => {
                PeerFamily::Seeds
            }
            Relationship | RelationshipTraversal => PeerFamily::Hierarchy,
            Serialize | SnapshotSave | SnapshotLoad => PeerFamily::Snapshot,
            _ => return None,
        })
    }

    /// The workloads of `self`, in registry order.
    pub fn workloads(self) -> impl Iterator<Item = Builtin> {
        Builtin::ALL
            .iter()
            .copied()
            .filter(move |&w| PeerFamily::of(w) == Some(self))
    }
}

/// The families bevy_ecs (and `bevy_ecs (sparse B)`) implements.
const BEVY_FAMILIES: [PeerFamily; 3] = [
    PeerFamily::Community,
    PeerFamily::Seeds,
    PeerFamily::Hierarchy,
];

/// Every workload bevy_ecs (and `bevy_ecs (sparse B)`) runs, family by family
/// ([`PeerFamily::Community`], [`PeerFamily::Seeds`], [`PeerFamily::Hierarchy`]), each in
/// registry order. Defined with or without the `peers` feature: the performance targets
/// against `bevy_ecs (sparse B)` are listed either way.
pub const BEVY_WORKLOADS: [Builtin; workload_count(&BEVY_FAMILIES)] = workloads_of(&BEVY_FAMILIES);

/// How many workloads `families` have between them.
const fn workload_count(families: &[PeerFamily]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < Builtin::ALL.len() {
        if in_families(Builtin::ALL[i], families) {
            count += 1;
        }
        i += 1;
    }
    count
}

/// Whether `workload` belongs to one of `families`.
const fn in_families(workload: Builtin, families: &[PeerFamily]) -> bool {
    let Some(family) = PeerFamily::of(workload) else {
        return false;
    };
    let mut i = 0;
    while i < families.len() {
        if families[i] as u8 == family as u8 {
            return true;
        }
        i += 1;
    }
    false
}

/// The workloads of `families`, family by family, each in registry order (`N` is their
/// [`workload_count`]).
const fn workloads_of<const N: usize>(families: &[PeerFamily]) -> [Builtin; N] {
    let mut out = [Builtin::ALL[0]; N];
    let mut n = 0;
    let mut f = 0;
    while f < families.len() {
        let mut i = 0;
        while i < Builtin::ALL.len() {
            let w = Builtin::ALL[i];
            if in_families(w, std::slice::from_ref(&families[f])) {
                out[n] = w;
                n += 1;
            }
            i += 1;
        }
        f += 1;
    }
    assert!(n == N, "N is the families' workload count");
    out
}

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

    /// The workload families this peer implements: the community set and the seed
    /// workloads everywhere, the hierarchy where the peer has one of its own (bevy_ecs),
    /// snapshots where it saves whole worlds column by column (hecs's
    /// `serialize::column`, the reference of the snapshot workloads).
    pub const fn families(self) -> &'static [PeerFamily] {
        match self {
            #[cfg(feature = "peers")]
            Peer::Hecs => &[
                PeerFamily::Community,
                PeerFamily::Seeds,
                PeerFamily::Snapshot,
            ],
            #[cfg(feature = "peers")]
            Peer::Bevy | Peer::BevySparseB => &BEVY_FAMILIES,
            #[cfg(feature = "peers")]
            Peer::Shipyard | Peer::Specs => &[PeerFamily::Community, PeerFamily::Seeds],
        }
    }

    /// Whether this peer runs `workload`: whether it implements the workload's family.
    pub fn runs(self, workload: Builtin) -> bool {
        PeerFamily::of(workload).is_some_and(|family| self.families().contains(&family))
    }

    /// Sets `workload` up at `size` on this peer: the method of the family trait the peer
    /// implements; `None` when the peer does not run it.
    pub fn prepare(self, workload: Builtin, size: usize) -> Option<Box<dyn Prepared>> {
        let family = PeerFamily::of(workload).filter(|f| self.families().contains(f))?;
        let _ = (family, size);
        #[cfg(feature = "peers")]
        use PeerFamily::{Community, Hierarchy, Seeds, Snapshot};
        match self {
            #[cfg(feature = "peers")]
            Peer::Hecs => match family {
                Community => community(hecs::HecsPeer, workload, size),
                Seeds => seeds(hecs::HecsPeer, workload, size),
                Snapshot => snapshot(hecs::HecsPeer, workload, size),
                Hierarchy => None,
            },
            #[cfg(feature = "peers")]
            Peer::Bevy => bevy_prepare(
                bevy::BevyPeer::<crate::components::B>::new(),
                family,
                workload,
                size,
            ),
            #[cfg(feature = "peers")]
            Peer::BevySparseB => bevy_prepare(
                bevy::BevyPeer::<bevy_b::SparseB>::new(),
                family,
                workload,
                size,
            ),
            #[cfg(feature = "peers")]
            Peer::Shipyard => match family {
                Community => community(shipyard::ShipyardPeer, workload, size),
                Seeds => seeds(shipyard::ShipyardPeer, workload, size),
                Hierarchy | Snapshot => None,
            },
            #[cfg(feature = "peers")]
            Peer::Specs => match family {
                Community => community(specs::SpecsPeer, workload, size),
                Seeds => seeds(specs::SpecsPeer, workload, size),
                Hierarchy | Snapshot => None,
            },
        }
    }
}

/// bevy_ecs with `Bb` as its `B` component (table or sparse set).
#[cfg(feature = "peers")]
fn bevy_prepare<Bb: bevy_b::BevyB>(
    peer: bevy::BevyPeer<Bb>,
    family: PeerFamily,
    workload: Builtin,
    size: usize,
) -> Option<Box<dyn Prepared>> {
    match family {
        PeerFamily::Community => community(peer, workload, size),
        PeerFamily::Seeds => seeds(peer, workload, size),
        PeerFamily::Hierarchy => hierarchy(peer, workload, size),
        PeerFamily::Snapshot => None,
    }
}

/// The community-standard workloads ([`PeerFamily::Community`]), one hand-written body per
/// workload.
#[cfg(feature = "peers")]
trait CommunityPeer {
    /// `simple_insert`.
    fn simple_insert(self, n: usize) -> Box<dyn Prepared>;
    /// `simple_iter`.
    fn simple_iter(self, n: usize) -> Box<dyn Prepared>;
    /// `fragmented_iter`.
    fn fragmented_iter(self, n: usize) -> Box<dyn Prepared>;
    /// `heavy_compute`.
    fn heavy_compute(self, n: usize) -> Box<dyn Prepared>;
    /// `add_remove`.
    fn add_remove(self, n: usize) -> Box<dyn Prepared>;
    /// `schedule`.
    fn schedule(self, n: usize) -> Box<dyn Prepared>;
}

/// The seed 000 and seed 003 workloads ([`PeerFamily::Seeds`]): the seed 000 bodies on the
/// peer's [`SeedWorld`], its own random_access and query_1..4 bodies.
///
/// [`SeedWorld`]: crate::workloads::seed000::SeedWorld
#[cfg(feature = "peers")]
trait SeedPeer {
    /// The peer's world as create, add and add_write_delete drive it.
    type World: crate::workloads::seed000::SeedWorld;
    /// `random_access`.
    fn random_access(self, n: usize) -> Box<dyn Prepared>;
    /// `query_1` .. `query_4`: a query over `arity` components.
    fn queries(self, arity: usize, n: usize) -> Box<dyn Prepared>;
}

/// The hierarchy workloads ([`PeerFamily::Hierarchy`]): relationship, seed 000's body on the
/// peer's [`HierarchyWorld`], and its own relationship_traversal body.
///
/// [`HierarchyWorld`]: crate::workloads::relationship::HierarchyWorld
#[cfg(feature = "peers")]
trait HierarchyPeer {
    /// The peer's world as relationship drives it.
    type World: crate::workloads::relationship::HierarchyWorld;
    /// `relationship_traversal`.
    fn relationship_traversal(self, n: usize) -> Box<dyn Prepared>;
}

/// World snapshots ([`PeerFamily::Snapshot`]).
#[cfg(feature = "peers")]
trait SnapshotPeer {
    /// `serialize`.
    fn serialize(self, n: usize) -> Box<dyn Prepared>;
    /// `snapshot_save`.
    fn snapshot_save(self, n: usize) -> Box<dyn Prepared>;
    /// `snapshot_load`.
    fn snapshot_load(self, n: usize) -> Box<dyn Prepared>;
}

/// `workload` on `peer`'s [`CommunityPeer`] bodies; `None` outside the family.
#[cfg(feature = "peers")]
fn community(peer: impl CommunityPeer, workload: Builtin, n: usize) -> Option<Box<dyn Prepared>> {
    Some(match workload {
        Builtin::SimpleInsert => peer.simple_insert(n),
        Builtin::SimpleIter => peer.simple_iter(n),
        Builtin::FragmentedIter => peer.fragmented_iter(n),
        Builtin::HeavyCompute => peer.heavy_compute(n),
        Builtin::AddRemove => peer.add_remove(n),
        Builtin::Schedule => peer.schedule(n),
        _ => return None,
    })
}

/// `workload` on `peer`'s [`SeedPeer`] bodies; `None` outside the family.
#[cfg(feature = "peers")]
fn seeds<P: SeedPeer>(peer: P, workload: Builtin, n: usize) -> Option<Box<dyn Prepared>> {
    use crate::workloads::seed000;
    Some(match workload {
        Builtin::Create => seed000::create::<P::World>(n),
        Builtin::Add => seed000::add::<P::World>(n),
        Builtin::AddWriteDelete => seed000::add_write_delete::<P::World>(n),
        Builtin::RandomAccess => peer.random_access(n),
        Builtin::Query1 => peer.queries(1, n),
        Builtin::Query2 => peer.queries(2, n),
        Builtin::Query3 => peer.queries(3, n),
        Builtin::Query4 => peer.queries(4, n),
        _ => return None,
    })
}

/// `workload` on `peer`'s [`HierarchyPeer`] bodies; `None` outside the family.
#[cfg(feature = "peers")]
fn hierarchy<P: HierarchyPeer>(peer: P, workload: Builtin, n: usize) -> Option<Box<dyn Prepared>> {
    Some(match workload {
        Builtin::Relationship => crate::workloads::relationship::relationship::<P::World>(n),
        Builtin::RelationshipTraversal => peer.relationship_traversal(n),
        _ => return None,
    })
}

/// `workload` on `peer`'s [`SnapshotPeer`] bodies; `None` outside the family.
#[cfg(feature = "peers")]
fn snapshot(peer: impl SnapshotPeer, workload: Builtin, n: usize) -> Option<Box<dyn Prepared>> {
    Some(match workload {
        Builtin::Serialize => peer.serialize(n),
        Builtin::SnapshotSave => peer.snapshot_save(n),
        Builtin::SnapshotLoad => peer.snapshot_load(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bevy_runs_its_families_in_order() {
        let families: Vec<Builtin> = BEVY_FAMILIES.iter().flat_map(|f| f.workloads()).collect();
        assert_eq!(BEVY_WORKLOADS[..], families[..]);
        for &peer in Peer::ALL {
            for &w in Builtin::ALL {
                assert_eq!(
                    peer.runs(w),
                    PeerFamily::of(w).is_some_and(|f| peer.families().contains(&f)),
                );
            }
        }
    }
}
