//! # ecs-core
//!
//! The backend-agnostic half of the ECS: [`Entity`] handles and their allocator, the
//! component registry, the [`Storage`] trait a backend implements, and the [`World`] API that
//! is identical on every backend — spawn, despawn, insert, remove, get, queries.
//!
//! Backends live in sibling crates (`ecs-sparse`, `ecs-archetype`); the `ecs` facade picks one
//! by Cargo feature. This crate names no backend.
//!
//! ```
//! use ecs_core::prelude::*;
//! # use ecs_core::testing::VecStorage;
//! #[derive(Debug, PartialEq)]
//! struct Position(f32);
//! impl Component for Position {}
//!
//! let mut world = World::<VecStorage>::new();
//! let e = world.spawn((Position(1.0),));
//! for p in world.query::<&mut Position>() {
//!     p.0 += 1.0;
//! }
//! assert_eq!(world.get::<Position>(e), Some(&Position(2.0)));
//! ```

pub mod blob;
pub mod bundle;
pub mod component;
pub mod entities;
pub mod entity;
pub mod error;
pub mod query;
pub mod storage;
pub mod testing;
pub mod unwind;
pub mod world;

pub use bundle::Bundle;
pub use component::{Component, ComponentDescriptor, ComponentId, StorageKind};
pub use entity::Entity;
pub use error::EcsError;
pub use query::{QueryState, With, Without};
pub use storage::Storage;
pub use world::World;

/// The names most programs need: `use ecs_core::prelude::*;`.
pub mod prelude {
    pub use crate::bundle::Bundle;
    pub use crate::component::{Component, ComponentDescriptor, ComponentId, StorageKind};
    pub use crate::entity::Entity;
    pub use crate::error::EcsError;
    pub use crate::query::{QueryState, With, Without};
    pub use crate::storage::Storage;
    pub use crate::world::World;
}
