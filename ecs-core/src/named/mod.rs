//! Named component instances and the entity index (the "Components by name" workloads of
//! docs/workloads.md measure them).
//!
//! A tooling or scripting user works with entities by *name*: "the `Fog` instance of this
//! entity, its `density` property". An entity may hold several instances of one component
//! type under different names (`RenderData` as "Fog" and as "Vignette"), next to its
//! ordinary, unnamed components.
//!
//! * **Storage.** Each (component, instance name) pair is a component of its own in the
//!   registry ([`Components::register_instance`](crate::component::Components::register_instance)),
//!   with its type's layout, drop function, storage choice and change tracking, so every
//!   backend stores, iterates and tracks a named instance exactly as it would its type:
//!   densely in tables, in the hybrid backend's choice of storage, with `Changed` logs of
//!   its own.
//! * **Names** of instances are unique per entity across all types (the original design's rule): an
//!   entity cannot hold a `Fog` of two types. An unnamed component is also found by its
//!   type's short name (`Transform` for `game::Transform`), unless a named instance has that
//!   name: the instance shadows it. That is the one rule, whatever order the two arrived in
//!   (`insert_named(e, "Transform", ..)` beside an unnamed `Transform` is allowed, as is
//!   inserting the unnamed one later), so every state the world can reach is one a snapshot
//!   saves and loads back.
//! * **The index** ([`EntityIndex`]) answers "which component holds this entity's instance
//!   named N" with a prototype chain: two bytes per entity slot (four past 65,536
//!   prototypes) and a small shared registry of prototypes.
//! * **Properties** ([`crate::properties`]) read and write an instance's fields by name.
//!
//! ```
//! use ecs_core::{World, Component, testing::VecStorage};
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct RenderData { intensity: f32 }
//! #[derive(Component)]
//! struct Transform;
//!
//! let mut world = World::<VecStorage>::new();
//! let e = world.spawn((Transform,));
//! world.insert_named(e, "Fog", RenderData { intensity: 0.5 }).unwrap();
//! world.insert_named(e, "Vignette", RenderData { intensity: 0.1 }).unwrap();
//! assert_eq!(world.get_named::<RenderData>(e, "Vignette"), Some(&RenderData { intensity: 0.1 }));
//! // Which component holds "Fog"? Its own id, an instance of RenderData.
//! let fog = world.find(e, "Fog").unwrap();
//! let of = world.component_info(fog).unwrap().instance().unwrap().of();
//! assert_eq!(Some(of), world.component_id::<RenderData>());
//! // The unnamed Transform answers to its type's name.
//! assert_eq!(world.find(e, "Transform"), world.component_id::<Transform>());
//! // A name is unique per entity: a second "Fog" of another type is refused.
//! assert!(world.insert_named(e, "Fog", Transform).is_err());
//! // A named instance shadows an unnamed component's type name.
//! world.insert_named(e, "Transform", RenderData { intensity: 1.0 }).unwrap();
//! assert_eq!(world.find(e, "Transform"), Some(world.instance_id::<RenderData>("Transform")));
//! assert!(world.get::<Transform>(e).is_some(), "the unnamed Transform is still there");
//! ```

mod index;
mod names;
mod slots;

pub use index::{EntityIndex, SWEEP_MIN};
pub use names::{NameId, Names};
