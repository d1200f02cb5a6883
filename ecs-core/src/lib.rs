//! # ecs-core
//!
//! The backend-agnostic half of the ECS: [`Entity`] handles and their allocator, the
//! component registry, the [`Storage`] trait a backend implements, and the [`World`] API that
//! is identical on every backend — spawn, despawn, insert, remove, get, queries.
//!
//! Backends live in sibling crates (`ecs-sparse`, `ecs-archetype`, `ecs-hybrid`); the `ecs`
//! facade picks one by Cargo feature. This crate names no backend.
//!
//! Beyond plain storage, written once for every backend:
//! * [`change`]: opt-in change tracking (`#[component(track_changes)]`), the [`Mut`] guard and the
//!   [`Added`] / [`Changed`] filters; a run of a change-filtered query costs O(changes).
//! * [`system`] and [`schedule`]: function systems whose access comes from their parameter
//!   types ([`Query`], [`Res`], [`ResMut`], [`Commands`]), run in parallel where they do not
//!   conflict; [`commands`] defer structural changes to the sync point; [`resource`]s are
//!   typed singletons.
//! * [`query::par`]: `par_for_each` on rayon, with batch sizing.
//! * [`hierarchy`]: parent/child relationships as two opt-in components linked like a list
//!   (no allocation per parent), with recursive despawn and depth-first traversal.
//! * [`named`]: several instances of one component type per entity under names, found by
//!   name through a prototype-chain index; [`properties`]: their fields read and
//!   written by name; [`query::dynamic`]: queries built at run time from component ids.
//! * [`snapshot`]: whole worlds saved and loaded through any serde format, column by
//!   column, with handles inside values remapped; bad input is an error that leaves the
//!   world untouched.
//!
//! [`safety`] lists every place where the world's `unsafe` code depends on code you
//! provide, and why each is sound.
//!
//! ## Features
//! All on by default; a program that needs only the world and its queries turns them off
//! (`default-features = false`) and builds with hashbrown, parking_lot and the derive
//! macros alone.
//!
//! | feature | what it adds | dependency |
//! |---|---|---|
//! | `serde` | [`snapshot`]: saving and loading worlds | serde |
//! | `parallel` | threads for `par_for_each` and the schedule (without it both run in order) | rayon |
//! | `schedule` | [`system`] and [`schedule`]: systems, their parameters, the schedule | none |
//!
//! ```
//! use ecs_core::prelude::*;
//! # use ecs_core::testing::VecStorage;
//! #[derive(Component, Debug, PartialEq)]
//! struct Position(f32);
//!
//! let mut world = World::<VecStorage>::new();
//! let e = world.spawn((Position(1.0),));
//! for p in world.query::<&mut Position>() {
//!     p.0 += 1.0;
//! }
//! assert_eq!(world.get::<Position>(e), Some(&Position(2.0)));
//! ```

// The derives name this crate `::ecs_core`; the path must resolve inside it too (its tests).
extern crate self as ecs_core;

pub mod blob;
pub mod bundle;
pub mod change;
pub mod commands;
pub mod component;
pub mod disabled;
pub mod entities;
pub mod entity;
pub mod error;
pub mod event;
pub mod hierarchy;
pub mod layout;
pub mod named;
#[cfg(feature = "schedule")]
pub mod observer;
pub mod parallel;
pub mod properties;
pub mod query;
pub mod resource;
pub mod safety;
#[cfg(feature = "schedule")]
pub mod schedule;
#[cfg(feature = "serde")]
pub mod snapshot;
pub mod storage;
#[cfg(feature = "schedule")]
pub mod system;
pub mod testing;
pub mod trace;
pub mod unwind;
pub mod world;

pub use bundle::Bundle;
pub use change::Mut;
// `#[derive(Component)]` and `#[derive(Bundle)]`, beside the traits of the same names (the
// derives name this crate `::ecs_core`; the `ecs` facade re-exports its own flavour).
pub use commands::{CommandQueue, Commands, EntityCommands};
pub use component::{
    Component, ComponentDescriptor, ComponentId, HookContext, Immutable, Lifecycle, Mutable,
    StorageKind, Tracked,
};
pub use disabled::Disabled;
#[cfg(feature = "serde")]
pub use ecs_derive::MapEntities;
pub use ecs_derive::{Bundle, Component};
pub use entity::Entity;
pub use error::EcsError;
pub use event::Events;
#[cfg(feature = "schedule")]
pub use event::{EventReader, EventWriter};
pub use hierarchy::{ChildOf, Children};
pub use layout::WorldLayout;
#[cfg(feature = "schedule")]
pub use observer::{Event, ObserverId, On};
pub use properties::{PropertyKind, PropertyValue};
pub use query::{Added, AnyOf, BatchSize, Changed, Has, Or, QueryState, Ref, With, Without};
pub use resource::{Res, ResMut, Resource};
#[cfg(feature = "schedule")]
pub use schedule::{Schedule, SystemId, Target};
#[cfg(feature = "serde")]
pub use snapshot::{MapEntities, SnapshotRegistry};
pub use storage::Storage;
#[cfg(feature = "schedule")]
pub use system::{IntoSystem, Local, ParamSet, Query, System};
pub use world::{EntityMut, EntityRef, HookWorld, World};

/// The names most programs need: `use ecs_core::prelude::*;`.
pub mod prelude {
    pub use crate::bundle::Bundle;
    pub use crate::change::Mut;
    pub use crate::commands::{CommandQueue, Commands};
    pub use crate::component::{
        Component, ComponentDescriptor, ComponentId, Immutable, Mutable, StorageKind, Tracked,
    };
    pub use crate::component::{HookContext, Lifecycle};
    pub use crate::disabled::Disabled;
    pub use crate::entity::Entity;
    pub use crate::error::EcsError;
    pub use crate::event::Events;
    #[cfg(feature = "schedule")]
    pub use crate::event::{EventReader, EventWriter};
    pub use crate::hierarchy::{ChildOf, Children};
    #[cfg(feature = "schedule")]
    pub use crate::observer::{Add, Despawn, Event, Insert, On, Remove, Replace};
    pub use crate::properties::{PropertyKind, PropertyValue};
    pub use crate::query::{
        Added, Allow, AnyOf, BatchSize, Changed, Has, Or, QueryState, Ref, With, Without,
    };
    pub use crate::resource::{Res, ResMut, Resource};
    #[cfg(feature = "schedule")]
    pub use crate::schedule::{ChainSystems, Schedule, SystemId, Target};
    #[cfg(feature = "serde")]
    pub use crate::snapshot::{MapEntities, SnapshotRegistry};
    pub use crate::storage::Storage;
    #[cfg(feature = "schedule")]
    pub use crate::system::{IntoSystem, Local, ParamSet, Query, System};
    pub use crate::world::HookWorld;
    pub use crate::world::{EntityMut, EntityRef, World};
    #[cfg(feature = "serde")]
    pub use ecs_derive::MapEntities;
    pub use ecs_derive::{Bundle, Component};
}
