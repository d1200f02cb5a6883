//! # ecs
//!
//! One `World` API over the storage you choose with a Cargo feature:
//!
//! | feature | backend | good at | pays for |
//! |---|---|---|---|
//! | `archetype` (default) | archetype tables | iterating many entities with the same components | adding/removing a component moves the entity's row |
//! | `sparse` | one sparse set per component | adding/removing components, churny tags | joins look each entity up in the other sets |
//! | `hybrid` | each component type chooses ([`Component::STORAGE`]) | dense data iterates from tables, churny tags add/remove without moving rows | a query joining a table and a sparse component looks the sparse one up per row |
//!
//! New here? The [guide] is a tour from spawning entities to a parallel schedule with change
//! detection, commands, resources and events, every example on this crate's `World`. What
//! each backend costs, trade-off by trade-off and measured, is `docs/guide.md` in the
//! repository; [`World::layout`](ecs_core::World::layout) shows what your backend made of
//! your own world.
//!
//! Features are additive in Cargo, so when several are enabled the most specific wins:
//! `hybrid` over `sparse` over the default `archetype`. Switch with
//! `cargo run --features ecs/sparse` (or `default-features = false, features = ["sparse"]`
//! in your `Cargo.toml`); your code does not change.
//!
//! Besides the backend, three features (all on by default) add optional parts; turn them off
//! with `default-features = false, features = ["archetype"]` for a build that needs only
//! the world and its queries (hashbrown, parking_lot and the derive macros):
//!
//! | feature | adds | pulls in |
//! |---|---|---|
//! | `serde` | world snapshots ([`SnapshotRegistry`], `MapEntities`) | serde |
//! | `parallel` | threads for `par_for_each` and the schedule; without it both run in order | rayon |
//! | `schedule` | systems, their parameters (`Query`, `Res`, `Commands`, event readers) and the schedule | nothing |
//!
//! One more, off by default: `trace` makes the world's storage
//! [`Traced`](ecs_core::trace::Traced), so the program can record what it does to its world
//! (`world.start_trace()`, `world.finish_trace()`) and replay it on every backend with
//! `ecs-bench replay`. Without it the recording code is not compiled at all.
//!
//! Each backend is a crate of its own: `ecs-archetype` (`ArchetypeStorage`), `ecs-sparse`
//! (`SparseStorage`) and `ecs-hybrid` (`HybridStorage`, an archetype storage and sparse sets
//! side by side). A program that holds several backends at once names them directly, e.g.
//! `ecs_core::World<ecs_hybrid::HybridStorage>`.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! struct Velocity(f32);
//! // Kept in sparse sets by the `hybrid` backend; in tables or sets by the others.
//! #[derive(Component)]
//! #[component(storage = "sparse")]
//! struct Stunned;
//!
//! #[derive(Bundle)]
//! struct Body {
//!     position: Position,
//!     velocity: Velocity,
//! }
//!
//! let mut world = World::new();
//! let e = world.spawn(Body { position: Position(0.0), velocity: Velocity(1.5) });
//! world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| p.0 += v.0);
//! assert_eq!(world.get::<Position>(e).unwrap().0, 1.5);
//! world.insert(e, Stunned).unwrap();
//! let body: Body = world.remove::<Body>(e).unwrap();
//! assert_eq!(body.velocity.0, 1.5);
//! println!("running on the {} backend", BACKEND);
//! ```
//!
//! `#[derive(Component)]` and `#[derive(Bundle)]` are this crate's flavour of the derives:
//! their code names the core as `::ecs::ecs_core`, so a crate that depends on `ecs` alone can
//! use them.

#[cfg(not(any(feature = "archetype", feature = "sparse", feature = "hybrid")))]
compile_error!(
    "enable one storage feature of the `ecs` crate: `archetype` (default), `sparse` or `hybrid`"
);

/// The storage layout selected by Cargo feature (what [`Backend`] is, or wraps).
#[cfg(feature = "hybrid")]
pub type SelectedStorage = ecs_hybrid::HybridStorage;
/// The storage layout selected by Cargo feature (what [`Backend`] is, or wraps).
#[cfg(all(feature = "sparse", not(feature = "hybrid")))]
pub type SelectedStorage = ecs_sparse::SparseStorage;
/// The storage layout selected by Cargo feature (what [`Backend`] is, or wraps).
#[cfg(all(
    feature = "archetype",
    not(any(feature = "sparse", feature = "hybrid"))
))]
pub type SelectedStorage = ecs_archetype::ArchetypeStorage;

/// The storage backend of [`World`]: the selected [`SelectedStorage`] itself.
#[cfg(not(feature = "trace"))]
pub type Backend = SelectedStorage;
/// The storage backend of [`World`]: the selected [`SelectedStorage`], able to record traces
/// (feature `trace`; see [`World::start_trace`](ecs_core::World::start_trace)).
#[cfg(feature = "trace")]
pub type Backend = ecs_core::trace::Traced<SelectedStorage>;

/// The name of the selected backend (`"archetype"`, `"sparse"` or `"hybrid"`).
pub const BACKEND: &str = <Backend as ecs_core::Storage>::NAME;

/// A world on the selected backend.
pub type World = ecs_core::World<Backend>;

/// A run-time query (components by id) resolved on the selected backend (see
/// [`ecs_core::query::DynQueryState`]).
pub type DynQueryState = ecs_core::query::DynQueryState<Backend>;

/// A reusable query state on the selected backend (see [`ecs_core::QueryState`]).
pub type QueryState<Q, F = ()> = ecs_core::QueryState<Q, F, Backend>;

/// A query as a system parameter on the selected backend (see [`ecs_core::Query`]).
#[cfg(feature = "schedule")]
pub type Query<'w, 's, Q, F = ()> = ecs_core::Query<'w, 's, Q, F, Backend>;

/// Shared access to one entity on the selected backend (see [`ecs_core::EntityRef`]).
pub type EntityRef<'w> = ecs_core::EntityRef<'w, Backend>;

/// Exclusive access to one entity on the selected backend (see [`ecs_core::EntityMut`]).
pub type EntityMut<'w> = ecs_core::EntityMut<'w, Backend>;

/// A schedule of systems on the selected backend (see [`ecs_core::Schedule`]).
#[cfg(feature = "schedule")]
pub type Schedule = ecs_core::Schedule<Backend>;

/// Conflicting system parameters used one at a time, on the selected backend (see
/// [`ecs_core::ParamSet`]).
#[cfg(feature = "schedule")]
pub type ParamSet<'w, 's, T> = ecs_core::ParamSet<'w, 's, T, Backend>;

// The tour runs systems and saves a world: it is there (and its examples run) with the
// default features.
#[cfg(all(feature = "schedule", feature = "serde"))]
pub mod guide;

pub use ecs_core;
// The traits only (`ecs_core::{Bundle, Component}` would bring `ecs_core`'s derives too, whose
// code names `::ecs_core`): the derives of the same names are this crate's flavour.
pub use ecs_core::bundle::Bundle;
pub use ecs_core::component::Component;
pub use ecs_core::hierarchy;
pub use ecs_core::query::Allow;
pub use ecs_core::query::{DynFilter, DynQuery};
#[cfg(feature = "schedule")]
pub use ecs_core::schedule::{errors, ChainSystems, RunError, RunErrorKind};
#[cfg(feature = "serde")]
pub use ecs_core::snapshot;
#[cfg(feature = "serde")]
pub use ecs_core::snapshot::{MapEntities, SnapshotRegistry};
#[cfg(feature = "schedule")]
pub use ecs_core::{observer, Event, ObserverId, On};
pub use ecs_core::{
    Added, AnyOf, BatchSize, Changed, ChildOf, Children, CommandQueue, Commands,
    ComponentDescriptor, ComponentId, Disabled, EcsError, Entity, Events, Has, Immutable, Mut,
    Mutable, Or, PropertyKind, PropertyValue, Ref, Res, ResMut, Resource, StorageKind, Tracked,
    With, Without,
};
#[cfg(feature = "schedule")]
pub use ecs_core::{EventReader, EventWriter, IntoSystem, Local, System, SystemId, Target};
pub use ecs_core::{HookContext, HookWorld, Lifecycle};
#[cfg(feature = "serde")]
pub use ecs_derive::FacadeMapEntities as MapEntities;
pub use ecs_derive::{FacadeBundle as Bundle, FacadeComponent as Component};

/// `use ecs::prelude::*;` brings the world, components, queries and filters into scope.
pub mod prelude {
    pub use crate::{Backend, DynQueryState, EntityMut, EntityRef, QueryState, World, BACKEND};
    pub use crate::{Bundle, Component};
    pub use crate::{DynFilter, DynQuery};
    #[cfg(feature = "serde")]
    pub use crate::{MapEntities, SnapshotRegistry};
    #[cfg(feature = "schedule")]
    pub use crate::{ParamSet, Query, Schedule};
    #[cfg(feature = "schedule")]
    pub use ecs_core::observer::{Add, Despawn, Event, Insert, On, Remove, Replace};
    pub use ecs_core::query::Allow;
    #[cfg(feature = "schedule")]
    pub use ecs_core::schedule::ChainSystems;
    pub use ecs_core::{
        Added, AnyOf, BatchSize, Changed, ChildOf, Children, CommandQueue, Commands,
        ComponentDescriptor, ComponentId, Disabled, EcsError, Entity, Events, Has, Immutable, Mut,
        Mutable, Or, PropertyKind, PropertyValue, Ref, Res, ResMut, Resource, StorageKind, Tracked,
        With, Without,
    };
    #[cfg(feature = "schedule")]
    pub use ecs_core::{EventReader, EventWriter, IntoSystem, Local, System, SystemId, Target};
    pub use ecs_core::{HookContext, HookWorld, Lifecycle};
}
