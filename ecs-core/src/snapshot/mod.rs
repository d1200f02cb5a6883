//! World snapshots through serde: save a world with any serde format, load it back into an
//! empty world or merge it into one that has entities, on any backend.
//!
//! * **What is saved** is what a [`SnapshotRegistry`] names: components (Rust types and
//!   run-time components) under stable names of your choosing, their named instances, and
//!   optionally resources. Every live entity is saved, with its parent links
//!   ([`ChildOf`](crate::ChildOf) / [`Children`](crate::Children), always); components the
//!   registry does not name are left out.
//! * **Layout**: column by column, not entity by entity: the entity list, then per
//!   component its rows (runs of positions in the entity list) and its values, then the
//!   parent links and the resources ([`SnapshotRegistry::save`] shows it). Saving reads the
//!   values in place from the storage's columns; nothing is copied first. In JSON the
//!   result is readable and diffs line by line (`serde_json::to_string_pretty`); in a
//!   binary format (postcard, bincode) it is compact. A snapshot saved on one backend loads
//!   on every other: the layout names no backend.
//! * **Handles inside values** are rewritten on load to the loaded entities' handles, for
//!   components registered with [`SnapshotRegistry::component_with_entities`] (they
//!   implement [`MapEntities`], which `#[derive(MapEntities)]` writes).
//! * **Loading is all or nothing**: the snapshot is read into staging buffers and checked
//!   entirely (names known, entities and rows unique and in range, value counts, every
//!   handle inside a value listed, instance names unique per entity, parent links a forest)
//!   before the world is touched; then it is committed in a step that cannot fail. Bad
//!   input is a [`SnapshotError`] naming what is wrong and where, never a panic, and never
//!   an allocation sized by a length the input states beyond what it could hold: buffers
//!   grow as elements arrive.
//! * **Merging**: the loaded entities get new handles beside the world's own; the returned
//!   [`EntityMap`] says which saved handle became which.
//!
//! # What a snapshot does not hold
//! * Components the registry does not name, and resources it does not name.
//! * The storage's order: a loaded world keeps its entities in its own order, which need
//!   not be the saved world's, so queries may visit them in another order (a simulation
//!   that must go on exactly as if it had not been saved keeps each step independent of
//!   query order; the `save_load` example shows one).
//! * Change history: every loaded component counts as added ([`Added`](crate::Added),
//!   [`Changed`](crate::Changed) see all of them once).
//! * Handles of entities that are gone: a value holding the handle of a despawned entity
//!   is saved as it is and refused by a load
//!   ([`SnapshotErrorKind::DanglingEntity`]); clear such handles when an entity dies.
//! * Systems, schedules, their `Local` state and pending events or commands.
//!
//! ```
//! use ecs_core::{Component, World, testing::VecStorage};
//! use ecs_core::snapshot::SnapshotRegistry;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
//! struct Position { x: f32, y: f32 }
//! #[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
//! struct Health(u32);
//!
//! let registry = SnapshotRegistry::new()
//!     .component::<Position>("Position")
//!     .component::<Health>("Health");
//!
//! let mut world = World::<VecStorage>::new();
//! let ship = world.spawn((Position { x: 1.0, y: 2.0 }, Health(3)));
//! let rock = world.spawn(Position { x: 5.0, y: 5.0 });
//! world.set_parent(rock, ship).unwrap();
//!
//! let json = serde_json::to_string(&registry.save(&world)).unwrap();
//! assert!(json.starts_with(r#"{"format":1,"entities":["0v1","1v1"],"components":[{"name":"Position""#));
//!
//! let mut copy = World::<VecStorage>::new();
//! let map = registry.load(&mut copy, &mut serde_json::Deserializer::from_str(&json)).unwrap();
//! let (ship2, rock2) = (map.get(ship).unwrap(), map.get(rock).unwrap());
//! assert_eq!(copy.get::<Health>(ship2), Some(&Health(3)));
//! assert_eq!(copy.parent(rock2), Ok(Some(ship2)));
//!
//! // Bad input is an error, and the world is left as it was.
//! let truncated = &json[..json.len() / 2];
//! let err = registry.load(&mut copy, &mut serde_json::Deserializer::from_str(truncated));
//! assert!(err.is_err());
//! assert_eq!(copy.len(), 2);
//! ```

mod entity_serde;
mod error;
mod load;
mod map;
mod nonfinite;
mod packed;
mod registry;
mod save;
#[cfg(test)]
mod tests;

pub use error::{SnapshotError, SnapshotErrorKind};
pub use load::StagedSnapshot;
pub use map::{EntityMap, EntityMapper, MapEntities};
pub use registry::{DynamicCodec, Entries, SnapshotRegistry, Typed, TypedResource};
pub use save::SaveWorld;

#[doc(hidden)]
pub use registry::{Entry, TypedVisitor};

/// The layout version a save writes and a load reads.
pub const FORMAT: u32 = 1;
