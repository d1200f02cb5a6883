//! # A tour of the ECS, from spawning to a parallel schedule
//!
//! Every example here runs on [`World`](crate::World), the world of the backend you picked
//! with a Cargo feature; none of them mentions a backend, and each one gives the same
//! results on all three (`cargo test -p ecs --features ecs/sparse` runs them on sparse sets).
//!
//! ## 1. Entities, components, bundles
//!
//! An entity is a handle; its data are components, any `Send + Sync + 'static` type with
//! `#[derive(Component)]`. A bundle is a set of components spawned or inserted together: a
//! tuple, or a struct with `#[derive(Bundle)]`.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct Position(f32, f32);
//! #[derive(Component, Debug, PartialEq)]
//! struct Velocity(f32, f32);
//! #[derive(Component)]
//! struct Name(&'static str);
//!
//! #[derive(Bundle)]
//! struct Ship {
//!     name: Name,
//!     position: Position,
//!     velocity: Velocity,
//! }
//!
//! let mut world = World::new();
//! let ship = world.spawn(Ship {
//!     name: Name("Aurora"),
//!     position: Position(0.0, 0.0),
//!     velocity: Velocity(1.0, 0.0),
//! });
//! let rock = world.spawn((Position(5.0, 5.0),));
//! assert_eq!(world.get::<Position>(rock), Some(&Position(5.0, 5.0)));
//!
//! // Insert and remove change an entity's components; errors are values.
//! world.insert(rock, Velocity(0.0, -1.0)).unwrap();
//! assert_eq!(world.remove::<Velocity>(rock), Ok(Velocity(0.0, -1.0)));
//! assert!(world.remove::<Velocity>(rock).is_err());
//!
//! // A despawned handle is never mistaken for a newer entity.
//! world.despawn(ship).unwrap();
//! assert!(world.get::<Position>(ship).is_none());
//! assert_eq!(world.despawn(ship), Err(EcsError::NoSuchEntity(ship)));
//! ```
//!
//! ## 2. Queries and filters
//!
//! A query names what it fetches per entity (`&T`, `&mut T`, `Option<&T>`, `Entity`, tuples)
//! and, optionally, filters (`With<T>`, `Without<T>`, `Or<..>`). A query that would alias a
//! component (`(&mut A, &A)`) is refused before any reference exists.
//!
//! ```
//! use ecs::prelude::*;
//! # #[derive(Component)] struct Position(f32);
//! # #[derive(Component)] struct Velocity(f32);
//! #[derive(Component)]
//! struct Frozen;
//!
//! let mut world = World::new();
//! world.spawn((Position(0.0), Velocity(2.0)));
//! world.spawn((Position(0.0), Velocity(2.0), Frozen));
//! world
//!     .query_filtered::<(&mut Position, &Velocity), Without<Frozen>>()
//!     .for_each(|(p, v)| p.0 += v.0);
//! let moved: Vec<f32> = world.query::<&Position>().map(|p| p.0).filter(|x| *x > 0.0).collect();
//! assert_eq!(moved, [2.0]);
//! assert!(world.try_query_filtered::<(&mut Position, &Position), ()>().is_err());
//! ```
//!
//! ## 3. Change detection
//!
//! A component that opts in with `#[component(track_changes)]` is written through
//! [`Mut<T>`](crate::Mut), which records the write: `&mut T` in a query and `get_mut` hand
//! one out for such a type, so there is nothing to remember. A `Changed<T>` query then
//! visits only the entities changed since *that* query last ran, at a cost that follows the
//! changes, not the entity count.
//!
//! ```
//! use ecs::prelude::*;
//! #[derive(Component)]
//! #[component(track_changes)]
//! struct Health(u32);
//!
//! let mut world = World::new();
//! let hurt = world.spawn((Health(10),));
//! world.spawn((Health(10),));
//! let mut changed = world.query_state::<(Entity, &Health), Changed<Health>>().unwrap();
//! assert_eq!(changed.iter(&world).count(), 2, "the first run sees everything");
//! world.get_mut::<Health>(hurt).unwrap().0 -= 3; // a `Mut<Health>`: recorded
//! let seen: Vec<Entity> = changed.iter(&world).map(|(e, _)| e).collect();
//! assert_eq!(seen, [hurt]);
//! ```
//!
//! ## 4. Systems and the parallel schedule
//!
//! A system is a function whose arguments say what it touches: [`Query`](crate::Query),
//! [`Res`](crate::Res) / [`ResMut`](crate::ResMut) for resources (typed singletons),
//! [`Commands`](crate::Commands) for deferred structural changes, [`Local`](crate::Local)
//! for state of its own, event readers and writers. A [`Schedule`](crate::Schedule) runs
//! systems in parallel wherever their accesses do not conflict, and in the order they were
//! added wherever they do.
//!
//! ```
//! use ecs::prelude::*;
//! # #[derive(Component)] struct Position(f32);
//! # #[derive(Component)] struct Velocity(f32);
//! struct Elapsed(u32);
//!
//! fn movement(mut q: Query<(&mut Position, &Velocity)>) {
//!     q.for_each(|(p, v)| p.0 += v.0);
//! }
//! fn clock(mut t: ResMut<Elapsed>) {
//!     t.0 += 1;
//! }
//! fn spawner(t: Res<Elapsed>, mut commands: Commands) {
//!     if t.0 == 2 {
//!         commands.spawn((Position(0.0), Velocity(1.0)));
//!     }
//! }
//!
//! let mut world = World::new();
//! world.insert_resource(Elapsed(0));
//! world.spawn((Position(0.0), Velocity(1.0)));
//! let mut schedule = Schedule::new();
//! schedule.add_system(movement); // touches Position and Velocity
//! schedule.add_system(clock);    // touches Elapsed: runs beside `movement`
//! schedule.add_system(spawner);  // reads Elapsed: waits for `clock`
//! for _ in 0..3 {
//!     schedule.run(&mut world); // commands apply at the end of each run
//! }
//! assert_eq!(world.len(), 2);
//! assert_eq!(world.query::<&Position>().map(|p| p.0).sum::<f32>(), 4.0);
//! ```
//!
//! ## 5. Ordering, run conditions, exclusive systems
//!
//! `configure(id).before(..)` / `.after(..)` / `.in_set("label")` order systems and sets
//! explicitly, `.run_if(..)` skips a system while a condition is false, and a function of
//! `&mut World` is an exclusive system that runs alone, after the commands of the systems
//! before it were applied.
//!
//! ```
//! use ecs::prelude::*;
//! #[derive(Component)]
//! struct Hp(i32);
//! struct Paused(bool);
//!
//! fn poison(mut q: Query<&mut Hp>) {
//!     q.for_each(|hp| hp.0 -= 4);
//! }
//! fn reap(world: &mut World) {
//!     let dead: Vec<Entity> =
//!         world.query::<(Entity, &Hp)>().filter(|(_, hp)| hp.0 <= 0).map(|(e, _)| e).collect();
//!     for e in dead {
//!         world.despawn(e).unwrap();
//!     }
//! }
//!
//! let mut world = World::new();
//! world.insert_resource(Paused(false));
//! world.spawn((Hp(4),));
//! world.spawn((Hp(9),));
//! let mut schedule = Schedule::new();
//! let reap = schedule.add_system(reap);
//! let poison = schedule.add_system(poison);
//! schedule.configure(poison).before(reap).run_if(|w: &World| !w.resource::<Paused>().unwrap().0);
//! schedule.run(&mut world);
//! assert_eq!(world.len(), 1);
//! world.insert_resource(Paused(true));
//! schedule.run(&mut world);
//! assert_eq!(world.query::<&Hp>().next().unwrap().0, 5, "poison paused");
//! ```
//!
//! Two queries of one system may touch the same component when their filters keep them
//! apart (`With<Child>` on one, `Without<Child>` on the other); queries that really overlap
//! go in a [`ParamSet`](crate::ParamSet) and are used one at a time.
//!
//! ## 6. Events
//!
//! [`World::add_event`](ecs_core::World::add_event) lets systems talk: an
//! [`EventWriter`](crate::EventWriter) sends, every [`EventReader`](crate::EventReader) sees
//! each event once, and the schedule drops events after the run that follows the one they
//! were sent in.
//!
//! ```
//! use ecs::prelude::*;
//! struct Explosion(f32);
//! #[derive(Default)]
//! struct Damage(f32);
//!
//! fn detonate(mut boom: EventWriter<Explosion>) {
//!     boom.send(Explosion(2.5));
//! }
//! fn tally(mut booms: EventReader<Explosion>, mut damage: ResMut<Damage>) {
//!     damage.0 += booms.read().map(|b| b.0).sum::<f32>();
//! }
//!
//! let mut world = World::new();
//! world.add_event::<Explosion>();
//! world.insert_resource(Damage::default());
//! let mut schedule = Schedule::new();
//! schedule.add_system(detonate);
//! schedule.add_system(tally);
//! schedule.run(&mut world);
//! schedule.run(&mut world);
//! assert_eq!(world.resource::<Damage>().unwrap().0, 5.0);
//! ```
//!
//! ## 7. Parents and children
//!
//! [`World::spawn_child`](ecs_core::World::spawn_child) and
//! [`World::set_parent`](ecs_core::World::set_parent) link entities into trees; the links
//! are two components ([`ChildOf`](crate::ChildOf) on a child, [`Children`](crate::Children)
//! on a parent), so queries see them and an entity without relationships pays nothing.
//! Children come back in the order they were added, descendants depth-first; a cycle is
//! refused; `despawn_recursive` takes a whole subtree, while plain `despawn` of a parent
//! makes its children roots.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Offset(i32);
//!
//! let mut world = World::new();
//! let arm = world.spawn(Offset(10));
//! let hand = world.spawn_child(arm, Offset(3)).unwrap();
//! let finger = world.spawn_child(hand, Offset(1)).unwrap();
//!
//! // Each child with its parent's data (sorted: query order depends on the backend).
//! let links: Vec<(i32, Entity)> = world
//!     .query::<(&Offset, &ChildOf)>()
//!     .map(|(offset, link)| (offset.0, link.parent()))
//!     .collect();
//! let mut sums: Vec<i32> = links
//!     .iter()
//!     .map(|&(own, parent)| own + world.get::<Offset>(parent).unwrap().0)
//!     .collect();
//! sums.sort();
//! assert_eq!(sums, [4, 13]);
//! assert_eq!(world.ancestors(finger).unwrap().collect::<Vec<_>>(), [hand, arm]);
//! assert!(world.set_parent(arm, finger).is_err(), "an arm cannot hang from its finger");
//!
//! world.despawn_recursive(hand).unwrap();
//! assert!(!world.contains(finger));
//! assert_eq!(world.children(arm).unwrap().count(), 0);
//! ```
//!
//! ## 8. Saving and loading worlds
//!
//! A [`SnapshotRegistry`](crate::snapshot::SnapshotRegistry) names what a snapshot holds,
//! each component under a stable name (not its Rust path, which may change); it saves a
//! world through any serde format and loads it back into an empty world or beside the
//! entities of another, on any backend. A component holding entity handles derives
//! `MapEntities` and is registered `with_entities`, so its handles follow the loaded
//! entities. Bad input is an error that leaves the world untouched.
//!
//! ```
//! use ecs::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
//! struct Position(f32, f32);
//! #[derive(Component, Serialize, Deserialize, MapEntities)]
//! struct Follows(Entity);
//!
//! let registry = SnapshotRegistry::new()
//!     .component::<Position>("Position")
//!     .component_with_entities::<Follows>("Follows");
//!
//! let mut world = World::new();
//! let leader = world.spawn(Position(0.0, 0.0));
//! let follower = world.spawn((Position(1.0, 0.0), Follows(leader)));
//! let json = serde_json::to_string_pretty(&registry.save(&world)).unwrap();
//!
//! let mut other = World::new();
//! other.spawn(Position(9.0, 9.0)); // loading merges: new handles for the loaded entities
//! let map = registry.load(&mut other, &mut serde_json::Deserializer::from_str(&json)).unwrap();
//! let (leader2, follower2) = (map.get(leader).unwrap(), map.get(follower).unwrap());
//! assert_eq!(other.get::<Follows>(follower2).unwrap().0, leader2);
//! assert_eq!(other.get::<Position>(follower2), Some(&Position(1.0, 0.0)));
//!
//! // A truncated file: an error saying where, and the world as it was.
//! let err = registry.load(&mut other, &mut serde_json::Deserializer::from_str(&json[..60]));
//! assert!(err.is_err());
//! assert_eq!(other.len(), 3);
//! ```
//!
//! The binary form is the same call with another format (`postcard::to_allocvec`, then
//! `postcard::Deserializer::from_bytes`). The `save_load` example saves a running
//! simulation to a file and goes on in a fresh world.
//!
//! A snapshot holds the registered components (named instances too), the parent links and
//! the registered resources. It does not hold events (register them again with
//! `add_event` after loading into a fresh world), query states and change-filter cursors
//! (a loaded component counts as added), or components the registry does not name.
//!
//! ### Determinism across backends
//!
//! What is the same on every backend, and what is not:
//!
//! * **Handles.** The entity allocator is one piece of code for every backend, so the same
//!   sequence of world calls (spawns, despawns, inserts, removes, commands, which a
//!   schedule applies in the order its systems were added) hands out the same handles on
//!   every backend, and the world then saves to the same bytes (entities in the
//!   allocator's order, columns in the registry's).
//! * **Iteration order.** A query visits the same entities on every backend, in the order
//!   its backend keeps them: table by table and row by row on archetype tables, along a
//!   sparse set's dense array on sparse sets (and either on the hybrid). The order can also
//!   change within one backend as entities move (a removed row is filled by the last one).
//!   `par_for_each` visits in no set order at all.
//! * **So:** a program whose world calls do not depend on the order it iterates in behaves
//!   the same on every backend. One that changes the world in query order (despawning,
//!   spawning or picking "the first" match) makes different calls on different backends,
//!   and the handles (freed slots are reused last-freed first) and saves differ. Sort first
//!   (by `Entity`, or by a value of your own) to make it the same everywhere:
//!
//! ```
//! use ecs::prelude::*;
//! #[derive(Component)]
//! struct Hp(i32);
//!
//! let mut world = World::new();
//! for i in 0..10 {
//!     world.spawn(Hp(i - 5));
//! }
//! let mut dead: Vec<Entity> = world
//!     .query::<(Entity, &Hp)>()
//!     .filter(|(_, hp)| hp.0 <= 0)
//!     .map(|(e, _)| e)
//!     .collect();
//! dead.sort(); // the backend's order, made the same everywhere
//! for e in dead {
//!     world.despawn(e).unwrap();
//! }
//! assert_eq!(world.len(), 4);
//! ```
//!
//! ## 9. Choosing a storage
//!
//! The code above never changes; what changes with the backend is its cost:
//!
//! * **archetype** (default): entities with the same components share a table, so iterating
//!   them walks dense columns; adding or removing a component moves the entity's row.
//! * **sparse**: one sparse set per component, so adding and removing are a push and a
//!   swap-remove; a query joining components looks entities up in the other sets.
//! * **hybrid**: each component type chooses with `#[component(storage = "sparse")]`: dense,
//!   stable data iterates from tables while churny tags come and go without moving rows.
//!
//! ```
//! use ecs::prelude::*;
//! #[derive(Component)]
//! struct Position(f32);
//! /// Comes and goes every few frames: kept in a sparse set by the hybrid backend.
//! #[derive(Component)]
//! #[component(storage = "sparse")]
//! struct OnFire;
//!
//! let mut world = World::new();
//! let e = world.spawn((Position(0.0),));
//! world.insert(e, OnFire).unwrap();
//! world.remove::<OnFire>(e).unwrap();
//! println!("{} bytes on the {} backend", world.memory_usage(), BACKEND);
//! ```
//!
//! ### Looking inside
//!
//! [`World::layout`](ecs_core::World::layout) shows what the backend made of your entities:
//! every table or sparse set with its components, rows, capacity and bytes, the groups, the
//! change logs and the bytes per component type; its total is `memory_usage()`.
//! [`QueryState::walk`](ecs_core::QueryState::walk) shows how a query is answered: the runs
//! of rows (chunks) it walks, and for each component whether it was a dense column or looked
//! up row by row. Both differ between backends; nothing else here does.
//!
//! ```
//! use ecs::prelude::*;
//! #[derive(Component)]
//! struct Position(f32);
//! #[derive(Component)]
//! struct Velocity(f32);
//! #[derive(Component)]
//! #[component(storage = "sparse")]
//! struct OnFire;
//!
//! let mut world = World::new();
//! for i in 0..1_000 {
//!     let e = world.spawn((Position(0.0), Velocity(1.0)));
//!     if i % 10 == 0 {
//!         world.insert(e, OnFire).unwrap();
//!     }
//! }
//! let layout = world.layout();
//! assert_eq!(layout.bytes(), world.memory_usage());
//! println!("{layout}"); // archetype: 2 tables; sparse: 3 sets; hybrid: 1 table and 1 set
//!
//! let mut burning = world.query_state::<(&Position, &OnFire), ()>().unwrap();
//! let walk = burning.walk(&world);
//! assert!(walk.rows >= 100, "every match is among the rows walked");
//! println!("{walk}"); // e.g. `1 chunk, 100 rows; Position looked up in 1; OnFire dense in 1`
//! ```
//!
//! ### Measured
//!
//! Each trade-off (iteration locality, structural change, random access, memory per entity,
//! fragmentation, change tracking) is explained with a diagram, the latest report's numbers
//! and the example that shows it in `docs/guide.md` in the repository. The benchmark report
//! (`cargo run --release -p ecs-bench -- report`) measures every workload on every backend,
//! beside other ECS crates, on your machine; the story examples (`bullets`, `crates`,
//! `abc_problem`, `component_storage`) print what they measure on the backend they are built
//! with.

// The page lives in `docs/` so it reads on its own in the repository; included here, its
// snippets run as doctests of this crate.
#[doc = include_str!("../../docs/coming-from-bevy.md")]
pub mod coming_from_bevy {}
