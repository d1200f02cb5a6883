//! # ecs-archetype
//!
//! The archetype (table) storage backend: [`ArchetypeStorage`], for
//! [`ecs_core::World`].
//!
//! ## Archetypes and sparse sets
//! An ECS must answer two questions fast: "give me entity `e`'s `Position`" and "visit every
//! entity that has a `Position` and a `Velocity`". The two classic storages trade them off.
//!
//! * **Sparse sets** (`ecs-sparse`) keep one packed array per component type. Adding or
//!   removing a component touches only that component's set: cheap. But a query over
//!   `(Position, Velocity)` walks one set and looks every entity up in the other: a random
//!   access per entity per extra component.
//! * **Archetypes** (this crate) group entities by their exact *set* of components — their
//!   archetype — and give each set a [`Table`](table::Table): one column per component, one
//!   row per entity. All entities with exactly `{Position, Velocity}` sit in one table, row
//!   `i` of the `Position` column and row `i` of the `Velocity` column belonging to the same
//!   entity.
//!
//! ```text
//!   table {Position, Velocity}         table {Position, Velocity, Frozen}
//!   entities  Position  Velocity       entities  Position  Velocity  Frozen
//!     3v1     (0, 0)    (1, 0)           5v1     (9, 9)    (0, 0)    ()
//!     7v1     (4, 2)    (0, 1)
//! ```
//!
//! ## Why iteration is fast
//! A query matches whole *tables*, not entities: `(&mut Position, &Velocity)` matches both
//! tables above, `Without<Frozen>` only the first. The match is computed once per table and
//! cached ([`query_cache`]), found through the [`component_index`] rather than by scanning
//! every table. Inside a matched table every row qualifies, so the inner loop is
//! `position[i] += velocity[i]` over contiguous columns — no look-ups, no branches, friendly
//! to caches, prefetchers and vectorisation.
//!
//! ## Why structural change costs a row move
//! The price is paid when an entity's *set* changes. Inserting `Frozen` into entity `3v1`
//! moves its whole row from `{Position, Velocity}` to `{Position, Velocity, Frozen}`: every
//! component is copied to the new table, and the last row of the old table is swapped into
//! the hole (so another entity's [`record`] changes too). Finding the destination is
//! made cheap by the [archetype graph](graph), which caches "table + component → table"
//! edges, but the copy itself is proportional to the entity's size. Components toggled every
//! frame are better kept in sparse sets; the hybrid backend (the `ecs-hybrid` crate, built on
//! this one and `ecs-sparse`) lets each component type choose.
//!
//! ## Layers
//! * [`table`]: type-erased columns ([`BlobVec`](ecs_core::blob::BlobVec)) plus an entity
//!   vector, and the row operations (push, move, swap-remove) that keep them parallel.
//! * [`graph`], [`component_index`], [`record`]: finding a table by set or by edge, finding
//!   the tables holding a component, finding an entity's row.
//! * [`archetypes`]: those four kept in step; independent of which components go in tables.
//! * [`bundle_cache`], [`query_cache`], [`chunk`], and [`ArchetypeStorage`]: the
//!   [`Storage`](ecs_core::Storage) implementation.
//! * [`split`]: how a storage built on these tables keeps some components elsewhere (the
//!   hybrid backend's sparse components), sharing the spawn path above.
//!
//! ```
//! use ecs_archetype::ArchetypeStorage;
//! use ecs_core::{Component, World};
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct Health(u32);
//! #[derive(Component)]
//! struct Poisoned;
//!
//! let mut world = World::<ArchetypeStorage>::new();
//! let e = world.spawn((Health(10),));
//! world.insert(e, Poisoned).unwrap(); // moves e's row to the {Health, Poisoned} table
//! world.query::<(&mut Health, &Poisoned)>().for_each(|(h, _)| h.0 -= 1);
//! assert_eq!(world.get::<Health>(e), Some(&Health(9)));
//! ```

pub mod archetypes;
pub mod bundle_cache;
pub mod chunk;
pub mod component_index;
pub mod graph;
pub mod query_cache;
pub mod record;
pub mod split;
mod storage;
pub mod table;

pub use storage::ArchetypeStorage;
