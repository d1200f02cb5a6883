//! [`HookWorld`]: the world as a lifecycle hook sees it, in the middle of an operation.

use std::ptr::NonNull;

use super::World;
use crate::commands::{CommandQueue, Commands};
use crate::component::{Component, ComponentId, Components, MutableComponent};
use crate::entities::Entities;
use crate::entity::Entity;
use crate::resource::{Resource, Resources};
use crate::storage::Storage;

/// A world handle for a lifecycle hook (see [`crate::component::hooks`]): read and write
/// components of any entity and resources, queue commands, but no structural change.
///
/// It is not generic over the backend, so a hook is one plain function for every world. It
/// has no `spawn`, `insert`, `remove` or `despawn`: the operation that fired the hook is
/// in flight, and a structural change would move what it holds. Queue them with
/// [`HookWorld::commands`]; they are applied when that operation is over.
///
/// ```
/// # use ecs_core::{World, Component, testing::VecStorage};
/// # use ecs_core::component::HookContext;
/// # use ecs_core::world::HookWorld;
/// #[derive(Component)]
/// #[component(on_add = count_ships)]
/// struct Ship;
/// struct Ships(u32);
/// fn count_ships(mut world: HookWorld<'_>, _: HookContext) {
///     world.resource_mut::<Ships>().unwrap().0 += 1;
/// }
/// let mut world = World::<VecStorage>::new();
/// world.insert_resource(Ships(0));
/// world.spawn(Ship);
/// world.spawn_batch([Ship, Ship]);
/// assert_eq!(world.resource::<Ships>().unwrap().0, 3);
/// ```
pub struct HookWorld<'w> {
    world: &'w mut dyn HookAccess,
}

/// What a [`HookWorld`] reaches of a `World<S>`, with the backend forgotten.
pub(crate) trait HookAccess {
    fn entities(&self) -> &Entities;
    fn registry(&self) -> &Components;
    /// A pointer to live `entity`'s `id`, if it has one.
    fn ptr(&self, entity: Entity, id: ComponentId) -> Option<NonNull<u8>>;
    /// Logs a write of `id` on `entity` for the change filters (a tracked component).
    fn mark_changed(&mut self, entity: Entity, id: ComponentId);
    fn resources(&self) -> &Resources;
    fn resources_mut(&mut self) -> &mut Resources;
    /// The queue of commands hooks make, beside the allocator spawns reserve from.
    fn queue(&mut self) -> (&mut CommandQueue, &Entities);
    fn parent_of(&self, entity: Entity) -> Option<Entity>;
}

impl<S: Storage> HookAccess for World<S> {
    fn entities(&self) -> &Entities {
        &self.entities
    }

    fn registry(&self) -> &Components {
        &self.components
    }

    fn ptr(&self, entity: Entity, id: ComponentId) -> Option<NonNull<u8>> {
        if !self.entities.contains(entity) || self.components.get(id).is_none() {
            return None;
        }
        self.storage.get_ptr(entity, id)
    }

    fn mark_changed(&mut self, entity: Entity, id: ComponentId) {
        if self.components.info(id).tracks_changes() {
            self.changes.ensure(id);
            self.changes.on_changed(id, entity);
        }
    }

    fn resources(&self) -> &Resources {
        &self.resources
    }

    fn resources_mut(&mut self) -> &mut Resources {
        &mut self.resources
    }

    fn queue(&mut self) -> (&mut CommandQueue, &Entities) {
        (&mut self.hook_commands, &self.entities)
    }

    fn parent_of(&self, entity: Entity) -> Option<Entity> {
        self.parent(entity).ok().flatten()
    }
}

impl<'w> HookWorld<'w> {
    pub(crate) fn new<S: Storage>(world: &'w mut World<S>) -> HookWorld<'w> {
        HookWorld { world }
    }

    /// Whether `entity` is live.
    pub fn contains(&self, entity: Entity) -> bool {
        self.world.entities().contains(entity)
    }

    /// The component registry.
    pub fn components(&self) -> &Components {
        self.world.registry()
    }

    /// `entity`'s `T`, if it is live and has one.
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        let id = self.world.registry().id::<T>()?;
        let ptr = self.world.ptr(entity, id)?;
        // SAFETY: `id` is `T`'s id, so the storage's pointer is to a valid `T`; `&self`
        // borrows the world, so no write happens while the reference lives.
        Some(unsafe { ptr.cast::<T>().as_ref() })
    }

    /// `entity`'s `T`, writable, if it is live and has one. For a change-tracked type the
    /// write is logged when this is called (a [`Changed`](crate::Changed) reader sees it).
    pub fn get_mut<T: MutableComponent>(&mut self, entity: Entity) -> Option<&mut T> {
        let id = self.world.registry().id::<T>()?;
        let ptr = self.world.ptr(entity, id)?;
        self.world.mark_changed(entity, id);
        // SAFETY: as in `get`; `&mut self` makes the reference the only one, and `T` is
        // written in place by design (`MutableComponent`).
        Some(unsafe { ptr.cast::<T>().as_mut() })
    }

    /// A pointer to `entity`'s component `id` (run-time and named components); valid until
    /// the hook's world is next used.
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Option<NonNull<u8>> {
        self.world.ptr(entity, id)
    }

    /// `entity`'s parent, if it is live and has one.
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.world.parent_of(entity)
    }

    /// The resource of type `R`.
    pub fn resource<R: Resource>(&self) -> Option<&R> {
        self.world.resources().get::<R>()
    }

    /// The resource of type `R`, writable.
    pub fn resource_mut<R: Resource>(&mut self) -> Option<&mut R> {
        self.world.resources_mut().get_mut::<R>()
    }

    /// Commands applied when the operation that fired the hook is over (structural changes
    /// go here). A spawned entity's handle is valid at once, as from any [`Commands`].
    pub fn commands(&mut self) -> Commands<'_, '_> {
        let (queue, entities) = self.world.queue();
        Commands::from_parts(queue, entities)
    }
}
