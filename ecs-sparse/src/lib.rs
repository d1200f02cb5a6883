//! # ecs-sparse
//!
//! The sparse-set storage backend: every component type keeps its values in its own
//! [`SparseSet`], and [`SparseStorage`] implements `ecs_core`'s
//! [`Storage`](ecs_core::storage::Storage) trait on top of them, so the whole
//! [`World`](ecs_core::World) API runs on it unchanged.
//!
//! ```
//! use ecs_core::prelude::*;
//! use ecs_sparse::SparseStorage;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! struct Velocity(f32);
//!
//! let mut world = World::<SparseStorage>::new();
//! let e = world.spawn((Position(0.0), Velocity(2.0)));
//! world.spawn((Position(5.0),));
//! world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| p.0 += v.0);
//! assert_eq!(world.get::<Position>(e).unwrap().0, 2.0);
//! // Adding or removing a component touches only that component's set.
//! world.remove::<Velocity>(e).unwrap();
//! assert_eq!(world.query::<&Velocity>().count(), 0);
//! ```
//!
//! ## How it is built (bottom up)
//! * [`sparse_array`]: entity index → 64-bit entry (the set keeps the dense position and the
//!   entity's generation there), in 8 KiB pages allocated on first write, so a rare
//!   component costs memory for the entities that hold it, not for every index up to the
//!   largest one.
//! * [`sparse_set`]: that index plus a dense entity array and a dense, type-erased data array
//!   ([`BlobVec`](ecs_core::blob::BlobVec)) kept parallel. Removal swaps the last value into
//!   the hole, so the arrays never have gaps and freed slots are reused: memory is always
//!   reused.
//! * [`component_set`]: one set used on its own, typed ([`ComponentSet<T>`]): a per-type
//!   storage API (count, values, entities, add, has, get, remove by swap or by
//!   shifting), for a program that keeps one component outside a world.
//! * [`storage`]: one optional set per component id, in a `Vec` indexed by the id (no
//!   hashing), and the `Storage` implementation.
//! * [`group`]: owning groups (EnTT's), made with [`World::group`](ecs_core::World::group):
//!   the entities holding all of a group's components sit packed at the front of each of
//!   its sets, in one order, kept so by one swap per owned set when an entity gains or
//!   loses one of them.
//! * [`query`]: a query walks the smallest set among its required components and looks the
//!   entity up in the others (first at the position the previous row's offset predicts),
//!   or walks a group's packed rows, densely in every owned set, when it requires all of
//!   the group's components.
//!
//! ## Trade-offs, for choosing a backend
//! | operation | sparse sets | archetype tables |
//! |---|---|---|
//! | add / remove one component | O(1), touches one set | moves the entity's whole row to another table |
//! | iterate one component | a packed array, as fast as it gets | as fast |
//! | iterate a join `(&A, &B)` | walk the smaller set, look each entity up in the other (or, grouped, packed columns) | packed columns side by side |
//! | `get` by entity | two loads (page, position) and a generation check | record look-up, then column |
//! | despawn | asks each set that may hold the entity: every set below 32 sets, then those a per-entity mask names (exactly, up to 256 component types) | removes one row |
//!
//! Sparse sets win when components come and go often (status effects, tags, "dirty"
//! markers) and when queries mostly touch one component; archetypes win for wide joins over
//! stable compositions. The `ecs-bench` crate measures both on your machine.
//!
//! A group makes one join contiguous at the price of a swap per owned set whenever an entity
//! gains or loses an owned component; a component belongs to at most one group.
//!
//! ```
//! use ecs_core::prelude::*;
//! use ecs_sparse::SparseStorage;
//!
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! struct Velocity(f32);
//!
//! let mut world = World::<SparseStorage>::new();
//! world.group::<(Position, Velocity)>().unwrap();
//! world.spawn((Position(0.0), Velocity(1.0)));
//! world.spawn((Position(5.0),));
//! assert_eq!(world.storage().groups()[0].len(), 1);
//! world.query::<(&mut Position, &Velocity)>().for_each(|(p, v)| p.0 += v.0);
//! ```

pub mod component_set;
pub mod group;
mod holders;
pub mod query;
pub mod sparse_array;
pub mod sparse_set;
pub mod storage;

pub use component_set::ComponentSet;
pub use group::Group;
pub use query::{SparseChunk, SparseChunks};
pub use sparse_array::SparseArray;
pub use sparse_set::SparseSet;
pub use storage::SparseStorage;
