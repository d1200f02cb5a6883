//! Firing lifecycle hooks and observers around structural changes (see
//! [`crate::component::hooks`] and [`crate::observer`]), and applying what they queued.
//!
//! Every structural operation first makes the one test it always made (entities reserved
//! through `&World`, [`World::needs_attention`]); the allocator's word it tests also holds
//! a bit set while some component has a hook or an observer ([`World::sync_reactions`]).
//! Only then does the operation go out of line, and only if its own components (or, for a
//! despawn, the entity's) react does it take the paths here. Hooks and observers run where the storage is whole: the `before_*` functions
//! before anything is removed or overwritten, the `after_*` ones once everything is stored.
//! The commands they queue wait in `hook_commands` until the public operation ends and
//! calls [`World::settle`].

use super::hook_world::HookWorld;
use super::World;
use crate::component::{Component, ComponentId, HookContext, HookFn, Lifecycle};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::hierarchy::{ChildOf, Children};
use crate::storage::Storage;

/// How deep commands queued by hooks and observers may nest (an observer's command
/// triggering an observer whose command ...) before the rest of the chain is dropped with
/// [`EcsError::EventDepth`](crate::EcsError::EventDepth).
pub const MAX_EVENT_DEPTH: usize = 64;

impl<S: Storage> World<S> {
    /// Sets `T`'s lifecycle hook for `event` (registering `T` if needed); named instances
    /// of `T` run it too. See [`crate::component::hooks`] for when each runs and what a
    /// hook may do.
    ///
    /// # Errors
    /// [`EcsError::Hook`] when `T` already has a hook for `event` (from the derive or an
    /// earlier call: hooks are a type's own, not a list) or is a relationship component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// # use ecs_core::component::{HookContext, Lifecycle};
    /// # use ecs_core::world::HookWorld;
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// struct Fallen(Vec<ecs_core::Entity>);
    /// fn fall(mut world: HookWorld<'_>, ctx: HookContext) {
    ///     world.resource_mut::<Fallen>().unwrap().0.push(ctx.entity);
    /// }
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Fallen(Vec::new()));
    /// world.set_hook::<Hp>(Lifecycle::Remove, fall).unwrap();
    /// assert!(world.set_hook::<Hp>(Lifecycle::Remove, fall).is_err(), "one per moment");
    /// let e = world.spawn(Hp(3));
    /// world.despawn(e).unwrap();
    /// assert_eq!(world.resource::<Fallen>().unwrap().0, [e]);
    /// ```
    pub fn set_hook<T: Component>(
        &mut self,
        event: Lifecycle,
        hook: HookFn,
    ) -> Result<(), EcsError> {
        let id = self.components.register::<T>();
        // Registering may have given the world its first hooked type, whatever comes next.
        self.sync_reactions();
        self.set_hook_by_id(id, event, hook)
    }

    /// [`World::set_hook`] by component id: run-time components and named instances'
    /// types too.
    ///
    /// # Errors
    /// As [`World::set_hook`]; [`EcsError::UnknownComponent`] for an id from elsewhere,
    /// [`EcsError::Hook`] for a named instance (set the hook on its type).
    pub fn set_hook_by_id(
        &mut self,
        id: ComponentId,
        event: Lifecycle,
        hook: HookFn,
    ) -> Result<(), EcsError> {
        if self.is_link_component(id) {
            return Err(EcsError::Hook {
                component: self.components.info(id).name().to_owned(),
                reason: "the hierarchy keeps relationship components; observe the entities instead"
                    .to_owned(),
            });
        }
        let set = self.components.set_hook(id, event, hook);
        self.sync_reactions();
        set
    }

    /// Whether `id` is [`ChildOf`] or [`Children`].
    pub(crate) fn is_link_component(&self, id: ComponentId) -> bool {
        self.components.id::<ChildOf>() == Some(id) || self.components.id::<Children>() == Some(id)
    }

    /// Whether any component of this world has a hook or an observer: the one check every
    /// structural operation makes.
    #[inline(always)]
    pub(crate) fn reacts(&self) -> bool {
        self.components.reactions().any()
    }

    /// Runs `event`'s hook, then its observers, for each of `ids` on `entity` that reacts to
    /// it, in the order given.
    pub(crate) fn fire(&mut self, event: Lifecycle, entity: Entity, ids: &[ComponentId]) {
        for &id in ids {
            let Some(reaction) = self.components.reactions().get(id).copied() else {
                continue;
            };
            if let Some(hook) = reaction.hooks.get(event) {
                let context = HookContext {
                    entity,
                    component: id,
                    event,
                };
                hook(HookWorld::new(self), context);
            }
            #[cfg(feature = "schedule")]
            if reaction.observed & event.bit() != 0 {
                self.observe_lifecycle(event, id, entity);
            }
        }
    }

    /// Whether live `entity` holds a component that reacts to something.
    pub(crate) fn holds_reacting(&self, entity: Entity) -> bool {
        let reactive = self.components.reactions().reactive();
        reactive.iter().any(|&id| self.storage.contains(entity, id))
    }

    /// The components that react to something and live `entity` holds, in the order they
    /// began to react.
    pub(crate) fn reactive_held(&self, entity: Entity) -> Vec<ComponentId> {
        let reactive = self.components.reactions().reactive();
        reactive
            .iter()
            .copied()
            .filter(|&id| self.storage.contains(entity, id))
            .collect()
    }

    /// Before storing `ids` on live `entity`: runs `on_replace` for those it holds, and
    /// returns the reactive components it holds (for [`World::after_store`]).
    #[cold]
    #[inline(never)]
    pub(crate) fn before_store(&mut self, entity: Entity, ids: &[ComponentId]) -> Vec<ComponentId> {
        let held = self.reactive_held(entity);
        let replaced: Vec<ComponentId> =
            ids.iter().copied().filter(|id| held.contains(id)).collect();
        self.fire(Lifecycle::Replace, entity, &replaced);
        // Entities the hooks' commands reserved become live (empty) before the store, as
        // the allocator requires.
        self.flush();
        held
    }

    /// [`World::fire_stored`], then applies what was queued; held back while
    /// [`World::with_reactions_held`] runs.
    #[cold]
    #[inline(never)]
    pub(crate) fn after_store(
        &mut self,
        entity: Entity,
        ids: &[ComponentId],
        held: &[ComponentId],
    ) {
        if let Some(stores) = &mut self.held_stores {
            stores.push(HeldStore {
                entity,
                ids: ids.to_vec(),
                held: held.to_vec(),
            });
            return;
        }
        self.fire_stored(entity, ids, held);
        self.settle();
    }

    /// Runs `body` with the `on_add`/`on_insert` reactions of what it stores held back and
    /// nothing settled, then runs them and applies what was queued: for an operation of
    /// several steps whose hooks must see it whole (an entity cloned, then linked beside the
    /// original). If `body` panics, the held reactions are dropped with its deferred work.
    pub(crate) fn with_reactions_held<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> R {
        let held = HoldReactions::new(self);
        let done = body(held.world);
        held.release();
        done
    }

    /// Drops the commands hooks and observers queued (entities they reserved are
    /// despawned): the deferred work of an operation that panicked.
    pub(crate) fn discard_hook_commands(&mut self) {
        let mut queue = std::mem::take(&mut self.hook_commands);
        queue.discard(self);
    }

    /// After storing `ids` (and what they require) on `entity`, which held the reactive
    /// components `held` before: runs `on_add` for each reactive component it did not hold,
    /// then `on_insert` for those and for each of `ids`.
    pub(crate) fn fire_stored(
        &mut self,
        entity: Entity,
        ids: &[ComponentId],
        held: &[ComponentId],
    ) {
        if self.entities.contains(entity) {
            let added: Vec<ComponentId> = self
                .reactive_held(entity)
                .into_iter()
                .filter(|id| !held.contains(id))
                .collect();
            self.fire(Lifecycle::Add, entity, &added);
            let inserted: Vec<ComponentId> = ids
                .iter()
                .copied()
                .filter(|id| !added.contains(id))
                .chain(added.iter().copied())
                .collect();
            self.fire(Lifecycle::Insert, entity, &inserted);
        }
    }

    /// After a load (or `spawn_zeroed`) stored the `n` entities at `base..` of the live
    /// list: `on_add` and `on_insert` for each of their reactive components, entity by
    /// entity; then applies what was queued.
    #[cold]
    #[inline(never)]
    pub(crate) fn after_load(&mut self, base: usize, n: usize) {
        let loaded = self.entities.alive()[base..base + n].to_vec();
        for entity in loaded {
            self.fire_stored(entity, &[], &[]);
        }
        self.settle();
    }

    /// Before removing `ids` from live `entity` (each of which it holds): runs `on_replace`,
    /// then `on_remove`, for the reactive ones.
    #[cold]
    #[inline(never)]
    pub(crate) fn before_remove(&mut self, entity: Entity, ids: &[ComponentId]) {
        let reactive = self.components.reactions().reactive();
        let removed: Vec<ComponentId> = ids
            .iter()
            .copied()
            .filter(|id| reactive.contains(id))
            .collect();
        self.fire(Lifecycle::Replace, entity, &removed);
        self.fire(Lifecycle::Remove, entity, &removed);
        self.flush();
    }

    /// Before despawning live `entity`: runs `on_despawn`, `on_replace`, then `on_remove`
    /// for each reactive component it holds.
    #[cold]
    #[inline(never)]
    pub(crate) fn before_despawn(&mut self, entity: Entity) {
        let held = self.reactive_held(entity);
        self.fire(Lifecycle::Despawn, entity, &held);
        self.fire(Lifecycle::Replace, entity, &held);
        self.fire(Lifecycle::Remove, entity, &held);
        self.flush();
    }

    /// Applies the commands hooks and observers queued during the operation now ending
    /// (they may queue more: applied in turn, depth first, up to [`MAX_EVENT_DEPTH`]
    /// levels; past it the rest is dropped and an
    /// [`EcsError::EventDepth`](crate::EcsError::EventDepth) is recorded as a skipped
    /// command).
    #[cold]
    #[inline(never)]
    pub(crate) fn settle(&mut self) {
        if self.hook_commands.is_empty() || self.held_stores.is_some() {
            return;
        }
        let mut queue = std::mem::take(&mut self.hook_commands);
        if self.settle_depth >= MAX_EVENT_DEPTH {
            queue.discard(self);
            let event = self.events_in_flight();
            self.skipped_commands.push(crate::commands::SkippedCommand {
                command: "trigger",
                error: crate::EcsError::EventDepth {
                    event,
                    limit: MAX_EVENT_DEPTH,
                },
            });
            return;
        }
        let deeper = Deeper::enter(self);
        deeper.world.apply_recording(&mut queue);
    }

    /// The name of the event whose chain is being applied, for messages.
    fn events_in_flight(&self) -> String {
        #[cfg(feature = "schedule")]
        if let Some(name) = self.last_event_name() {
            return name;
        }
        "lifecycle hook commands".to_owned()
    }
}

/// Holds back the `on_add`/`on_insert` reactions of what is stored through it, and all
/// settling, until [`HoldReactions::release`] runs them (see
/// [`World::with_reactions_held`]). In a world where nothing reacts it does nothing. If
/// dropped unreleased (a panic), the held reactions are dropped, with the commands queued
/// meanwhile when it was the outermost hold.
pub(crate) struct HoldReactions<'w, S: Storage> {
    pub(crate) world: &'w mut World<S>,
    /// The holds outside this one (`Some(outer)` while this one holds).
    outer: Option<Option<Vec<HeldStore>>>,
}

impl<'w, S: Storage> HoldReactions<'w, S> {
    /// Starts holding, if something reacts.
    #[inline]
    pub(crate) fn new(world: &'w mut World<S>) -> Self {
        let outer = world
            .reacts()
            .then(|| world.held_stores.replace(Vec::new()));
        HoldReactions { world, outer }
    }

    /// Runs the held reactions (unless an outer hold takes them over) and applies what
    /// was queued.
    #[inline]
    pub(crate) fn release(mut self) {
        if let Some(outer) = self.outer.take() {
            self.world.release_held(outer);
        }
    }
}

impl<S: Storage> Drop for HoldReactions<'_, S> {
    fn drop(&mut self) {
        if let Some(outer) = self.outer.take() {
            self.world.held_stores = outer;
            if self.world.held_stores.is_none() {
                self.world.discard_hook_commands();
            }
        }
    }
}

impl<S: Storage> World<S> {
    /// [`HoldReactions::release`]: puts the outer hold back, then hands it the held
    /// reactions or runs them and settles.
    #[cold]
    #[inline(never)]
    fn release_held(&mut self, outer: Option<Vec<HeldStore>>) {
        let held = std::mem::replace(&mut self.held_stores, outer).unwrap_or_default();
        if let Some(stores) = &mut self.held_stores {
            stores.extend(held); // nested: the outer hold runs them
            return;
        }
        for store in held {
            self.fire_stored(store.entity, &store.ids, &store.held);
        }
        self.settle();
    }
}

/// `on_add`/`on_insert` reactions waiting for a [`HoldReactions`] to be released.
pub(crate) struct HeldStore {
    entity: Entity,
    ids: Vec<ComponentId>,
    held: Vec<ComponentId>,
}

/// One more level of [`World::settle`], left again when dropped (also while unwinding, so
/// a panicking hook does not leave the world counting a level it is no longer in).
struct Deeper<'w, S: Storage> {
    world: &'w mut World<S>,
}

impl<'w, S: Storage> Deeper<'w, S> {
    fn enter(world: &'w mut World<S>) -> Self {
        world.settle_depth += 1;
        Deeper { world }
    }
}

impl<S: Storage> Drop for Deeper<'_, S> {
    fn drop(&mut self) {
        self.world.settle_depth -= 1;
    }
}
