//! Observers: systems run when an event is triggered, for the whole world or for one
//! entity.
//!
//! An observer is a function system whose first parameter names what it observes:
//! `On<Add, Health>` (a `Health` component was added to an entity), `On<Remove, T>`,
//! `On<Insert, T>`, `On<Replace, T>`, `On<Despawn, T>` for the lifecycle moments of a
//! component (see [`crate::component::hooks`]), or `On<E>` for a user event `E`
//! ([`Event`]) sent with [`World::trigger`](crate::World::trigger) or
//! [`World::trigger_for`](crate::World::trigger_for). Its other parameters are any
//! system's (queries, resources, commands, locals), and it may return a `Result`.
//!
//! ```
//! # use ecs_core::prelude::*;
//! # use ecs_core::testing::VecStorage;
//! # use ecs_core::observer::{On, Add};
//! #[derive(Component)]
//! struct Health(u32);
//! #[derive(Default)]
//! struct Log(Vec<String>);
//!
//! let mut world = World::<VecStorage>::new();
//! world.insert_resource(Log::default());
//! world.observe(|trigger: On<Add, Health>, mut log: ResMut<Log>| {
//!     log.0.push(format!("{:?} got health", trigger.entity()));
//! }).unwrap();
//! let e = world.spawn(Health(10));
//! assert_eq!(world.resource::<Log>().unwrap().0, [format!("{e:?} got health")]);
//! ```
//!
//! # When observers run, and in which order
//! A lifecycle observer runs at the same moment as the component's hook, right after it:
//! before a value is removed or overwritten (`Replace`, `Remove`, `Despawn`: the value is
//! still there to read), after a bundle is stored (`Add`, `Insert`). Where a hook may write
//! components, an observer sees the world through a shared reference, as a system does (its
//! queries may still write through `&mut` items, as a system's do); its commands (spawns,
//! inserts, triggers) are applied when the operation that fired it is over. For one event, the observers of the
//! whole world run first, then those of the target entity
//! ([`World::observe_entity`](crate::World::observe_entity)), each group in the order it
//! was registered.
//!
//! A user event sent to an entity with [`World::trigger_for`](crate::World::trigger_for)
//! runs the world's observers and that entity's; if one of them calls
//! [`On::propagate`], the event then goes to the entity's parent (through
//! [`ChildOf`](crate::ChildOf)), and so on up while someone asks.
//!
//! Observers may trigger events (through [`Commands::trigger`](crate::Commands::trigger)),
//! whose observers may trigger more: the chain is applied depth first, up to
//! [`MAX_EVENT_DEPTH`](crate::world::MAX_EVENT_DEPTH) levels; past that the rest is dropped
//! and [`EcsError::EventDepth`] is reported ([`World::trigger`](crate::World::trigger)
//! returns it; elsewhere it is recorded as a skipped command, which a schedule hands to its
//! error handler).
//!
//! An observer that returns an error does not stop the others: the error is recorded as
//! a skipped command (`"observer"`) with [`EcsError::Observer`]; one that panics unwinds
//! out of the operation that fired it, the world consistent (the hook rules).

mod registry;
mod trigger;

pub use registry::{ObserverId, Observers};
pub use trigger::On;
pub(crate) use trigger::TriggerState;

use std::any::TypeId;

use crate::component::{Component, ComponentId, Components, Lifecycle};
use crate::error::EcsError;

/// A value an observer can be triggered with: any `Send + Sync + 'static` type that opts in.
///
/// ```
/// # use ecs_core::observer::Event;
/// struct Explode { radius: f32 }
/// impl Event for Explode {}
/// ```
pub trait Event: Send + Sync + 'static {
    /// The lifecycle moment this type stands for: `Some` only for [`Add`], [`Insert`],
    /// [`Replace`], [`Remove`] and [`Despawn`], which the world triggers itself.
    #[doc(hidden)]
    const LIFECYCLE: Option<Lifecycle> = None;
}

macro_rules! lifecycle_events {
    ($($(#[$doc:meta])* $name:ident => $moment:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;

        impl Event for $name {
            const LIFECYCLE: Option<Lifecycle> = Some(Lifecycle::$moment);
        }
    )*};
}

lifecycle_events! {
    /// `On<Add, T>`: an entity got a `T` it did not have (after the store).
    Add => Add;
    /// `On<Insert, T>`: a `T` was stored on an entity, new or replacing (after the store).
    Insert => Insert;
    /// `On<Replace, T>`: an entity's `T` is about to be overwritten or removed.
    Replace => Replace;
    /// `On<Remove, T>`: a `T` is about to leave an entity (remove, take, despawn, clear).
    Remove => Remove;
    /// `On<Despawn, T>`: an entity holding a `T` is about to be despawned.
    Despawn => Despawn;
}

/// The lifecycle event value observers of `moment` are handed.
fn lifecycle_event(moment: Lifecycle) -> &'static (dyn std::any::Any + Send + Sync) {
    match moment {
        Lifecycle::Add => &Add,
        Lifecycle::Insert => &Insert,
        Lifecycle::Replace => &Replace,
        Lifecycle::Remove => &Remove,
        Lifecycle::Despawn => &Despawn,
    }
}

/// What an observer's `On<E, B>` names besides the event: nothing (`()`, a user event) or
/// the component whose lifecycle it watches.
pub trait Watched: 'static {
    /// The watched component's id (registered if new); `None` for `()`.
    fn watched(components: &mut Components) -> Option<ComponentId>;
}

impl Watched for () {
    fn watched(_: &mut Components) -> Option<ComponentId> {
        None
    }
}

impl<T: Component> Watched for T {
    fn watched(components: &mut Components) -> Option<ComponentId> {
        Some(components.register::<T>())
    }
}

/// What an observer waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKey {
    /// A lifecycle moment of one component.
    Lifecycle(Lifecycle, ComponentId),
    /// A user event, by its type.
    User(TypeId),
}

impl EventKey {
    /// The key of `On<E, B>`.
    ///
    /// # Errors
    /// [`EcsError::Observer`] for a lifecycle event without its component (`On<Add>`) or a
    /// user event with one (`On<MyEvent, T>`).
    pub(crate) fn of<E: Event, B: Watched>(
        components: &mut Components,
    ) -> Result<EventKey, EcsError> {
        let refuse = |reason: &str| {
            Err(EcsError::Observer {
                observer: std::any::type_name::<trigger::On<'static, E, B>>().to_owned(),
                reason: reason.to_owned(),
            })
        };
        match (E::LIFECYCLE, B::watched(components)) {
            (Some(moment), Some(id)) => Ok(EventKey::Lifecycle(moment, id)),
            (None, None) => Ok(EventKey::User(TypeId::of::<E>())),
            (Some(_), None) => {
                refuse("a lifecycle event names the component it watches: write `On<Add, Health>`")
            }
            (None, Some(_)) => refuse(
                "a user event is observed alone: write `On<MyEvent>` (components are watched \
                 only by the lifecycle events Add, Insert, Replace, Remove and Despawn)",
            ),
        }
    }
}
