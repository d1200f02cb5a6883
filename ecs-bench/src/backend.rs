//! The storage backends every workload runs on, and how a generic body reaches each of them.
//!
//! A workload is written once as a generic function over `S: Storage`; the `backends!`
//! table below turns the list of storage types into the [`Backend`] enum, and
//! [`Backend::visit`] calls a [`StorageVisitor`]'s generic method with the matching type. Adding
//! a backend is one line in that table.
//!
//! A [`Runner`] is what a report column is: a backend, or the hand-written `baseline` (plain
//! `Vec`s, no ECS) for the workloads that have one.

use std::fmt;

use ecs_core::Storage;

pub use crate::peers::Peer;

/// Something to do with one storage type, chosen at run time by [`Backend::visit`].
pub trait StorageVisitor {
    /// What the visit returns.
    type Output;
    /// Does the work with storage `S`.
    fn visit<S: Storage>(self) -> Self::Output;
}

macro_rules! backends {
    ($($(#[doc = $doc:literal])* $variant:ident => $ty:ty, reported: $reported:expr;)*) => {
        /// A storage backend (see the module docs).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Backend {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Backend {
            /// Every backend, including the reference one used as a test oracle.
            pub const ALL: &'static [Backend] = &[$(Backend::$variant),*];

            /// The backend's name: the storage's `Storage::NAME`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Backend::$variant => <$ty as Storage>::NAME,)*
                }
            }

            /// Whether reports and benches include it by default.
            pub fn reported(self) -> bool {
                match self {
                    $(Backend::$variant => $reported,)*
                }
            }

            /// Calls `visitor` with this backend's storage type.
            pub fn visit<V: StorageVisitor>(self, visitor: V) -> V::Output {
                match self {
                    $(Backend::$variant => visitor.visit::<$ty>(),)*
                }
            }
        }
    };
}

backends! {
    /// `ecs_core::testing::VecStorage`: the simple reference backend, a checksum oracle in
    /// tests, never in reports.
    Reference => ecs_core::testing::VecStorage, reported: false;
    /// `ecs_archetype::ArchetypeStorage`: archetype tables.
    Archetype => ecs_archetype::ArchetypeStorage, reported: true;
    /// `ecs_sparse::SparseStorage`: one sparse set per component type.
    Sparse => ecs_sparse::SparseStorage, reported: true;
    /// `ecs_hybrid::HybridStorage`: tables and sparse sets, per `Component::STORAGE`.
    Hybrid => ecs_hybrid::HybridStorage, reported: true;
    /// `ecs_array::ArrayStorage`: one slot array per component, indexed by entity index
    /// (the backend written only against ecs-core's public API).
    Array => ecs_array::ArrayStorage, reported: true;
}

impl Backend {
    /// The backends a report or bench runs by default.
    pub fn reported_backends() -> impl Iterator<Item = Backend> {
        Backend::ALL.iter().copied().filter(|b| b.reported())
    }

    /// Finds a backend by name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL
            .iter()
            .copied()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// The backend whose storage is one sparse set per component: what seed 004's memory
    /// table measures.
    pub fn sparse_set() -> Backend {
        Backend::Sparse
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A column of the report: a storage backend or the hand-written baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Runner {
    /// A storage backend running the generic workload body.
    Backend(Backend),
    /// Hand-written `Vec`s with no ECS: the floor a backend is measured against.
    Baseline,
    /// Another ECS crate (feature `peers`), on the workloads of the families it implements
    /// ([`Peer::families`]).
    Peer(Peer),
}

impl Runner {
    /// The name used in tables, JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Runner::Backend(b) => b.name(),
            Runner::Baseline => "baseline",
            Runner::Peer(p) => p.name(),
        }
    }

    /// Finds a runner by name (`baseline` or a backend name).
    pub fn from_name(name: &str) -> Option<Runner> {
        Runner::all()
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(name))
    }

    /// The runners of a default report: every reported backend, the peer that shares the
    /// hybrid's layout ([`Peer::beside_backends`]), the baseline, then the other peers
    /// compiled in.
    pub fn reported() -> Vec<Runner> {
        Runner::after_backends(Backend::reported_backends())
    }

    /// Every runner, the reference backend included (what the checksum tests compare).
    pub fn all() -> Vec<Runner> {
        Runner::after_backends(Backend::ALL.iter().copied())
    }

    fn after_backends(backends: impl Iterator<Item = Backend>) -> Vec<Runner> {
        let peers = |beside: bool| {
            Peer::ALL
                .iter()
                .copied()
                .filter(move |p| p.beside_backends() == beside)
                .map(Runner::Peer)
        };
        backends
            .map(Runner::Backend)
            .chain(peers(true))
            .chain([Runner::Baseline])
            .chain(peers(false))
            .collect()
    }
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &backend in Backend::ALL {
            assert_eq!(Backend::from_name(backend.name()), Some(backend));
        }
        assert_eq!(Runner::from_name("baseline"), Some(Runner::Baseline));
        assert_eq!(Runner::from_name("no-such"), None);
    }

    #[test]
    fn reference_backend_is_not_reported() {
        assert!(!Backend::Reference.reported());
        assert!(!Runner::reported().contains(&Runner::Backend(Backend::Reference)));
    }
}
