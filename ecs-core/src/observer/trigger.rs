//! [`On`]: the event an observer runs for, as its first parameter.

use std::any::Any;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Event, EventKey, Watched};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Storage;
use crate::system::{SystemAccess, SystemParam};
use crate::world::World;

/// The event being handed to observers, kept in the world while they run (their
/// [`On`] parameter reads it through `&World`).
pub(crate) struct TriggerState {
    pub(crate) key: EventKey,
    /// The event value: a lifecycle marker (static) or the user's event (owned).
    pub(crate) event: EventValue,
    /// The entity the event is for now (it moves up the hierarchy while propagating).
    pub(crate) entity: Option<Entity>,
    /// The entity the event was first triggered for.
    pub(crate) original: Option<Entity>,
    /// Set by an observer that wants the event to go on to the entity's parent.
    pub(crate) propagate: AtomicBool,
}

/// An event value, borrowed for lifecycle markers or owned for user events.
pub(crate) enum EventValue {
    Static(&'static (dyn Any + Send + Sync)),
    Owned(Box<dyn Any + Send + Sync>),
}

impl EventValue {
    fn get(&self) -> &(dyn Any + Send + Sync) {
        match self {
            EventValue::Static(value) => *value,
            EventValue::Owned(value) => &**value,
        }
    }
}

/// An observer's trigger: which event, for which entity (see [`crate::observer`]).
///
/// `On<Add, Health>` watches a component's lifecycle; `On<MyEvent>` a user event. It is
/// the parameter that makes a function an observer: a system with an `On` parameter is
/// registered with [`World::observe`](crate::World::observe), not added to a schedule.
pub struct On<'w, E: Event, B: Watched = ()> {
    state: &'w TriggerState,
    marker: PhantomData<fn() -> (E, B)>,
}

impl<'w, E: Event, B: Watched> On<'w, E, B> {
    /// The event (for a lifecycle event, its marker: [`Add`](super::Add), ...).
    pub fn event(&self) -> &'w E {
        self.state
            .event
            .get()
            .downcast_ref::<E>()
            .expect("an observer is handed events of the type it observes")
    }

    /// The entity the event is for: the one whose component it is (lifecycle events), or
    /// the one given to [`World::trigger_for`](crate::World::trigger_for) (the current one
    /// while propagating); `None` for an event triggered for the whole world.
    pub fn target(&self) -> Option<Entity> {
        self.state.entity
    }

    /// [`On::target`] for an event known to have one (every lifecycle event does).
    ///
    /// # Panics
    /// For an event triggered for no entity ([`World::trigger`](crate::World::trigger)).
    pub fn entity(&self) -> Entity {
        self.state
            .entity
            .expect("this event was triggered for no entity (World::trigger): use On::target")
    }

    /// The entity the event was first triggered for, before propagating.
    pub fn original_target(&self) -> Option<Entity> {
        self.state.original
    }

    /// The watched component, for a lifecycle event (`B`'s id; the instance's for a named
    /// instance of `B`).
    pub fn component(&self) -> Option<ComponentId> {
        match self.state.key {
            EventKey::Lifecycle(_, id) => Some(id),
            EventKey::User(_) => None,
        }
    }

    /// Asks (or, with `false`, stops asking) for a user event sent to an entity to go on to
    /// the entity's parent once this entity's observers have run. Lifecycle events do not
    /// propagate.
    pub fn propagate(&self, on: bool) {
        self.state.propagate.store(on, Ordering::Relaxed);
    }
}

// SAFETY: `On` touches no component or resource: it reads the trigger the world holds
// while an observer runs, which nothing writes during the run.
unsafe impl<E: Event, B: Watched, S: Storage> SystemParam<S> for On<'_, E, B> {
    type State = EventKey;
    type Item<'w, 's> = On<'w, E, B>;

    fn init(world: &mut World<S>, access: &mut SystemAccess) -> Result<EventKey, EcsError> {
        let key = EventKey::of::<E, B>(world.components_mut());
        // Registering the watched type may have given the world its first hooked type.
        world.sync_reactions();
        let key = key?;
        access.observe(key).map_err(crate::system::conflict)?;
        Ok(key)
    }

    unsafe fn fetch<'w>(state: &mut EventKey, world: &'w World<S>) -> On<'w, E, B> {
        let trigger = world.trigger.as_ref().filter(|t| {
            // A named instance's lifecycle events reach observers of its type.
            t.key == *state || world.observes_as(t.key, *state)
        });
        On {
            state: trigger.expect(
                "a system taking `On<..>` is an observer: register it with `World::observe`, \
                 not in a schedule",
            ),
            marker: PhantomData,
        }
    }
}
