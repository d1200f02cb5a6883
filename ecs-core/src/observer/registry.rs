//! The world's observers: registering, running and removing them, and triggering events.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use super::trigger::{EventValue, TriggerState};
use super::{lifecycle_event, Event, EventKey};
use crate::commands::{CommandQueue, SkippedCommand};
use crate::component::{ComponentId, Lifecycle};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Storage;
use crate::system::{IntoSystem, System};
use crate::world::{EntityMut, World};

/// The handle of a registered observer, for [`World::unobserve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObserverId(u64);

/// A world's observers, in registration order.
///
/// # Invariant
/// Every system is initialised for the world holding the registry, and its access names
/// the key it is filed under.
pub struct Observers<S: Storage> {
    entries: Vec<Entry<S>>,
    next: u64,
}

struct Entry<S: Storage> {
    id: ObserverId,
    key: EventKey,
    /// `Some`: runs only for events of this entity.
    target: Option<Entity>,
    system: Box<dyn System<S>>,
}

impl<S: Storage> Observers<S> {
    /// Number of registered observers.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when none is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The lifecycle moments observed on component `id` (of type `of`, for a named
    /// instance), as [`Lifecycle::bit`]s.
    fn bits(&self, id: ComponentId) -> u8 {
        self.entries
            .iter()
            .filter_map(|e| match e.key {
                EventKey::Lifecycle(moment, c) if c == id => Some(moment.bit()),
                _ => None,
            })
            .fold(0, |bits, bit| bits | bit)
    }
}

impl<S: Storage> World<S> {
    /// Registers an observer for the whole world: a function system whose `On<E, B>`
    /// parameter says what it observes (see [`crate::observer`]). Returns its handle.
    ///
    /// # Errors
    /// [`EcsError::Observer`] when the system takes no `On` parameter, or two, or a
    /// lifecycle event without its component; [`EcsError::SystemConflict`] when its
    /// parameters conflict.
    ///
    /// ```
    /// # use ecs_core::prelude::*;
    /// # use ecs_core::testing::VecStorage;
    /// # use ecs_core::observer::{On, Event};
    /// struct Hit(u32);
    /// impl Event for Hit {}
    /// #[derive(Default)]
    /// struct Damage(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Damage::default());
    /// world.observe(|hit: On<Hit>, mut total: ResMut<Damage>| total.0 += hit.event().0).unwrap();
    /// world.trigger(Hit(3)).unwrap();
    /// world.trigger(Hit(4)).unwrap();
    /// assert_eq!(world.resource::<Damage>().unwrap().0, 7);
    /// ```
    pub fn observe<M>(&mut self, observer: impl IntoSystem<S, M>) -> Result<ObserverId, EcsError> {
        self.add_observer(None, Box::new(observer.into_system()))
    }

    /// Registers an observer of one entity's events: its lifecycle events, and the user
    /// events sent to it with [`World::trigger_for`] (or propagated to it). Once the
    /// entity is despawned the observer never runs again (it is dropped at the next
    /// registration).
    ///
    /// # Errors
    /// As [`World::observe`]; [`EcsError::NoSuchEntity`] for a stale handle.
    pub fn observe_entity<M>(
        &mut self,
        entity: Entity,
        observer: impl IntoSystem<S, M>,
    ) -> Result<ObserverId, EcsError> {
        self.flush();
        self.check(entity)?;
        self.add_observer(Some(entity), Box::new(observer.into_system()))
    }

    pub(crate) fn add_observer(
        &mut self,
        target: Option<Entity>,
        mut system: Box<dyn System<S>>,
    ) -> Result<ObserverId, EcsError> {
        self.forget_entity_observers();
        let initialized = system.initialize(self);
        self.sync_reactions();
        initialized?;
        let Some(key) = system.access().observes() else {
            return Err(EcsError::Observer {
                observer: system.name().to_owned(),
                reason: "an observer takes an `On<E>` or `On<Add, T>` parameter saying what \
                         it observes"
                    .to_owned(),
            });
        };
        self.refuse_link_observer(key, system.name())?;
        let observers = self.observers.get_or_insert_with(|| {
            Box::new(Observers {
                entries: Vec::new(),
                next: 0,
            })
        });
        let id = ObserverId(observers.next);
        observers.next += 1;
        observers.entries.push(Entry {
            id,
            key,
            target,
            system,
        });
        if let EventKey::Lifecycle(_, component) = key {
            self.refresh_observed(component);
        }
        Ok(id)
    }

    /// Refuses an observer of a relationship component's lifecycle (the hierarchy keeps
    /// those; they take no hooks either).
    fn refuse_link_observer(&self, key: EventKey, name: &str) -> Result<(), EcsError> {
        match key {
            EventKey::Lifecycle(_, id) if self.is_link_component(id) => Err(EcsError::Observer {
                observer: name.to_owned(),
                reason: "the hierarchy keeps relationship components: observe the entities' \
                         own components, or trigger an event where you link them"
                    .to_owned(),
            }),
            _ => Ok(()),
        }
    }

    /// Removes an observer; false when `id` names none (already removed).
    ///
    /// ```
    /// # use ecs_core::prelude::*;
    /// # use ecs_core::testing::VecStorage;
    /// # use ecs_core::observer::{On, Add};
    /// #[derive(Component)]
    /// struct Tag;
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.observe(|_: On<Add, Tag>| -> () { panic!("not after unobserve") }).unwrap();
    /// assert!(world.unobserve(id));
    /// assert!(!world.unobserve(id));
    /// world.spawn(Tag);
    /// ```
    pub fn unobserve(&mut self, id: ObserverId) -> bool {
        let Some(observers) = &mut self.observers else {
            return false;
        };
        let Some(at) = observers.entries.iter().position(|e| e.id == id) else {
            return false;
        };
        let entry = observers.entries.remove(at);
        if let EventKey::Lifecycle(_, component) = entry.key {
            self.refresh_observed(component);
        }
        true
    }

    /// The registered observers (none before the first [`World::observe`]).
    pub fn observer_count(&self) -> usize {
        self.observers.as_ref().map_or(0, |o| {
            o.entries
                .iter()
                .filter(|e| e.target.is_none_or(|t| self.entities().contains(t)))
                .count()
        })
    }

    /// Sets the moments observed on `component` (and its named instances) from the
    /// registry.
    fn refresh_observed(&mut self, component: ComponentId) {
        let bits = self.observers.as_ref().map_or(0, |o| o.bits(component));
        self.components_mut().set_observed(component, bits);
        self.sync_reactions();
    }

    /// Triggers user event `event` for the whole world: its observers of the world run
    /// now, in registration order; what they queue is applied before this returns.
    ///
    /// # Errors
    /// [`EcsError::Observer`] for a lifecycle marker ([`Add`](super::Add), ...: the world
    /// triggers those itself); [`EcsError::EventDepth`] when the observers' triggers
    /// nested past [`MAX_EVENT_DEPTH`](crate::world::MAX_EVENT_DEPTH) (what they did up to
    /// there stays done).
    pub fn trigger<E: Event>(&mut self, event: E) -> Result<(), EcsError> {
        self.trigger_boxed(
            None,
            Box::new(event),
            std::any::type_name::<E>(),
            E::LIFECYCLE,
        )
    }

    /// Triggers user event `event` for `entity`: the world's observers of `E`, then the
    /// entity's, run now; if one asks ([`On::propagate`](super::On::propagate)) the event
    /// goes on to the entity's parent, and so on up.
    ///
    /// # Errors
    /// As [`World::trigger`]; [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::prelude::*;
    /// # use ecs_core::testing::VecStorage;
    /// # use ecs_core::observer::{On, Event};
    /// struct Click;
    /// impl Event for Click {}
    /// #[derive(Default)]
    /// struct Seen(Vec<Entity>);
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Seen::default());
    /// let window = world.spawn(());
    /// let button = world.spawn_child(window, ()).unwrap();
    /// world.observe(|click: On<Click>, mut seen: ResMut<Seen>| {
    ///     seen.0.push(click.entity());
    ///     click.propagate(true); // bubble up to the parent
    /// }).unwrap();
    /// world.trigger_for(button, Click).unwrap();
    /// assert_eq!(world.resource::<Seen>().unwrap().0, [button, window]);
    /// ```
    pub fn trigger_for<E: Event>(&mut self, entity: Entity, event: E) -> Result<(), EcsError> {
        self.flush();
        self.check(entity)?;
        self.trigger_boxed(
            Some(entity),
            Box::new(event),
            std::any::type_name::<E>(),
            E::LIFECYCLE,
        )
    }

    /// [`World::trigger_for`] (or [`World::trigger`] without a target) of a boxed event
    /// (a queued command's).
    pub(crate) fn trigger_boxed(
        &mut self,
        target: Option<Entity>,
        event: Box<dyn std::any::Any + Send + Sync>,
        name: &'static str,
        lifecycle: Option<Lifecycle>,
    ) -> Result<(), EcsError> {
        if lifecycle.is_some() {
            return Err(EcsError::Observer {
                observer: name.to_owned(),
                reason: "lifecycle events are triggered by the world itself".to_owned(),
            });
        }
        self.flush();
        let before = self.skipped_commands.len();
        let key = EventKey::User((*event).type_id());
        let mut state = TriggerState {
            key,
            event: EventValue::Owned(event),
            entity: target,
            original: target,
            propagate: AtomicBool::new(false),
        };
        loop {
            state = self.run_observers(state);
            let up = match state.entity {
                Some(at) if state.propagate.swap(false, Ordering::Relaxed) => {
                    self.parent(at).ok().flatten()
                }
                _ => None,
            };
            match up {
                Some(parent) => state.entity = Some(parent),
                None => break,
            }
        }
        let outer = self.last_event.replace(name);
        self.settle();
        self.last_event = outer;
        // An error of this trigger's chain is this call's answer, not a skipped command.
        let depth = self.skipped_commands[before..]
            .iter()
            .position(|s| matches!(s.error, EcsError::EventDepth { .. }));
        match depth {
            Some(at) => Err(self.skipped_commands.remove(before + at).error),
            None => Ok(()),
        }
    }

    /// Runs the observers of lifecycle `moment` of `component` on `entity` (the hook
    /// paths call this where the component's observed bits say someone listens).
    pub(crate) fn observe_lifecycle(
        &mut self,
        moment: Lifecycle,
        component: ComponentId,
        entity: Entity,
    ) {
        let state = TriggerState {
            key: EventKey::Lifecycle(moment, component),
            event: EventValue::Static(lifecycle_event(moment)),
            entity: Some(entity),
            original: Some(entity),
            propagate: AtomicBool::new(false),
        };
        self.run_observers(state);
    }

    /// Whether an observer filed under `observed` receives events of key `fired`: the same
    /// key, or a lifecycle event of a named instance of the observed component.
    pub(crate) fn observes_as(&self, fired: EventKey, observed: EventKey) -> bool {
        match (fired, observed) {
            (EventKey::Lifecycle(a, id), EventKey::Lifecycle(b, of)) => {
                a == b
                    && self
                        .components()
                        .get(id)
                        .and_then(|info| info.instance())
                        .is_some_and(|instance| instance.of() == of)
            }
            _ => fired == observed,
        }
    }

    /// Runs, with the world shared, each observer of `state`'s event (the world's first,
    /// then the target entity's, in registration order); their commands are queued for
    /// [`World::settle`], their errors recorded as skipped commands. Hands the state back
    /// (a propagating event goes on with it). A panicking observer unwinds with the
    /// observers back in place.
    fn run_observers(&mut self, state: TriggerState) -> TriggerState {
        let Some(mut observers) = self.observers.take() else {
            return state;
        };
        self.trigger = Some(state);
        let mut queue = CommandQueue::new();
        let mut failures = Vec::new();
        // The observer running, for a panic's clean-up.
        let mut running = None;
        let world: &World<S> = self;
        let ran = catch_unwind(AssertUnwindSafe(|| {
            let trigger = world.trigger.as_ref().expect("set above");
            let (key, target) = (trigger.key, trigger.entity);
            // The world's observers, then the entity's: two passes over one list.
            for pass_global in [true, false] {
                for (at, entry) in observers.entries.iter_mut().enumerate() {
                    if entry.target.is_none() != pass_global {
                        continue;
                    }
                    let for_it = entry.target.is_none() || entry.target == target;
                    if !for_it || !(entry.key == key || world.observes_as(key, entry.key)) {
                        continue;
                    }
                    running = Some(at);
                    // SAFETY: the observer was initialised for this world (the registry's
                    // invariant); `&self` is the only access while it runs (the operation that
                    // fired it holds the world exclusively and waits), and it changes no
                    // structure (`System`'s contract).
                    unsafe { entry.system.run_unsafe(world) };
                    entry.system.take_commands(&mut queue);
                    if let Some(error) = entry.system.take_failure() {
                        failures.push((entry.system.name().to_owned(), error.to_string()));
                    }
                }
            }
        }));
        let state = self.trigger.take().expect("set above");
        if let Err(panic) = ran {
            // The panicking observer's commands, and those of the ones before it, are
            // dropped with the operation's other deferred work.
            if let Some(at) = running {
                observers.entries[at].system.discard(self);
            }
            queue.discard(self);
            self.observers = Some(observers);
            resume_unwind(panic);
        }
        self.observers = Some(observers);
        self.hook_commands.append(&mut queue);
        for (observer, reason) in failures {
            self.skipped_commands.push(SkippedCommand {
                command: "observer",
                error: EcsError::Observer { observer, reason },
            });
        }
        state
    }

    /// Drops the observers of entities no longer live (after despawns).
    pub(crate) fn forget_entity_observers(&mut self) {
        let Some(mut observers) = self.observers.take() else {
            return;
        };
        let entities = self.entities();
        let before = observers.entries.len();
        let mut touched: Vec<ComponentId> = Vec::new();
        observers.entries.retain(|e| {
            let keep = e.target.is_none_or(|t| entities.contains(t));
            if !keep {
                if let EventKey::Lifecycle(_, c) = e.key {
                    touched.push(c);
                }
            }
            keep
        });
        let removed = observers.entries.len() != before;
        self.observers = Some(observers);
        if removed {
            for component in touched {
                self.refresh_observed(component);
            }
        }
    }

    /// The name of the user event whose chain is being applied, if any.
    pub(crate) fn last_event_name(&self) -> Option<String> {
        self.last_event.map(str::to_owned)
    }
}

impl<S: Storage> EntityMut<'_, S> {
    /// [`World::observe_entity`] for this entity.
    ///
    /// # Errors
    /// As [`World::observe`].
    ///
    /// ```
    /// # use ecs_core::prelude::*;
    /// # use ecs_core::testing::VecStorage;
    /// # use ecs_core::observer::{On, Remove};
    /// #[derive(Component)]
    /// struct Shield;
    /// #[derive(Default)]
    /// struct Broken(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Broken::default());
    /// let (a, b) = (world.spawn(Shield), world.spawn(Shield));
    /// world.entity_mut(a).unwrap()
    ///     .observe(|_: On<Remove, Shield>, mut n: ResMut<Broken>| n.0 += 1).unwrap();
    /// world.remove::<Shield>(b).unwrap(); // not a's
    /// world.remove::<Shield>(a).unwrap();
    /// assert_eq!(world.resource::<Broken>().unwrap().0, 1);
    /// ```
    pub fn observe<M>(&mut self, observer: impl IntoSystem<S, M>) -> Result<ObserverId, EcsError> {
        let entity = self.id();
        self.world_mut()
            .add_observer(Some(entity), Box::new(observer.into_system()))
    }
}
