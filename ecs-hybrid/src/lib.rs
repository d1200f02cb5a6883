//! # ecs-hybrid
//!
//! The hybrid storage backend: [`HybridStorage`], for [`ecs_core::World`]. Each component
//! type chooses where it lives ([`Component::STORAGE`](ecs_core::Component::STORAGE)), and a
//! movable one can move while the world runs
//! ([`World::set_storage`](ecs_core::World::set_storage)):
//!
//! * **table** components in archetype tables (`ecs-archetype`): dense rows that iterate
//!   like the archetype backend's;
//! * **sparse** components in sparse sets (`ecs-sparse`): adding or removing one is a push or
//!   a swap-remove in its set, and moves no table row.
//!
//! So dense, stable data (positions, meshes) keeps archetype-speed iteration, while tags,
//! buffs and timers that come and go every frame do not split tables or move rows.
//!
//! ## How the two halves share the work
//! The table half *is* an [`ArchetypeStorage`](ecs_archetype::ArchetypeStorage): records,
//! tables, the archetype graph, the bundle cache and the spawn path are the archetype
//! backend's own code. A spawn goes through
//! [`ArchetypeStorage::spawn_batch_split`](ecs_archetype::ArchetypeStorage::spawn_batch_split),
//! which writes table fields into the row and hands the sparse fields to this crate's split
//! ([`ecs_archetype::split::OffTable`]), which pushes them into their sets. Everything else
//! (look-ups, inserts, removes, despawns) is sent to the half that holds the component.
//!
//! A query touching a table component walks the matching tables and reads each sparse slot
//! per row: densely when the sparse set holds the table's rows in the same order (entities
//! spawned together), by look-up otherwise. When a sparse component it requires is held by
//! at most one entity in eight of those rows (a status on a few units), the run walks that
//! set instead and finds each entity's row through its record: it costs what the set
//! holds, not what the tables hold. Entities moving between tables after gaining a
//! sparse component break that order; [`World::align_with_tables`](ecs_core::World::align_with_tables)
//! sorts the set by (table, row) to restore it. A query over sparse components only is
//! answered by the sparse half, owning groups included.
//!
//! ```
//! use ecs_core::{Component, StorageKind, World};
//! use ecs_hybrid::HybridStorage;
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct Health(u32);
//! #[derive(Component)]
//! #[component(storage = "sparse")]
//! struct Poisoned;
//!
//! let mut world = World::<HybridStorage>::new();
//! let e = world.spawn((Health(10),));
//! let row = world.storage().archetypes().locate(e);
//! world.insert(e, Poisoned).unwrap(); // one push into the Poisoned set
//! assert_eq!(world.storage().archetypes().locate(e), row, "the row did not move");
//! world.query::<(&mut Health, &Poisoned)>().for_each(|(h, _)| h.0 -= 1);
//! assert_eq!(world.get::<Health>(e), Some(&Health(9)));
//! ```

mod chunk;
mod migrate;
mod place;
mod query_cache;
mod split;
mod storage;

pub use chunk::{Driven, HybridChunk, HybridChunks};
pub use place::HybridPlace;
pub use query_cache::HybridQueryCache;
pub use storage::HybridStorage;
