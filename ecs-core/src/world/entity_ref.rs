//! [`EntityRef`] and [`EntityMut`]: one entity's components through a handle checked once.

use std::fmt;

use super::World;
use crate::change::Mut;
use crate::component::{Component, MutableComponent, Write};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{EntityPlace, Storage};

/// Shared access to the components of one live entity, made by [`World::entity`].
///
/// The handle is checked once, when the `EntityRef` is made, and the entity is found in the
/// storage once (a table backend's row): each [`EntityRef::get`] is then a look-up of the
/// component's id and a read at that place. Borrows the world shared, so any number of
/// `EntityRef`s, queries through [`World::query_ref`] and [`World::get`] can sit beside it,
/// and the references it hands out live as long as the world's borrow.
///
/// ```
/// # use ecs_core::{World, Component, testing::VecStorage};
/// #[derive(Component)]
/// struct Name(&'static str);
/// #[derive(Component)]
/// struct Hp(u32);
/// let mut world = World::<VecStorage>::new();
/// let e = world.spawn((Name("ada"), Hp(7)));
/// let ada = world.entity(e).unwrap();
/// let (name, hp) = (ada.get::<Name>().unwrap(), ada.get::<Hp>().unwrap());
/// assert_eq!((name.0, hp.0), ("ada", 7));
/// ```
pub struct EntityRef<'w, S: Storage> {
    world: &'w World<S>,
    entity: Entity,
    place: S::Place<'w>,
}

impl<S: Storage> Clone for EntityRef<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Storage> Copy for EntityRef<'_, S> {}

impl<'w, S: Storage> EntityRef<'w, S> {
    /// `entity`'s handle in `world`.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle (or one reserved and not yet flushed).
    pub(super) fn new(world: &'w World<S>, entity: Entity) -> Result<Self, EcsError> {
        world.check(entity)?;
        // A live entity is held (the world's invariant), so the storage answers a place.
        let place = world
            .storage()
            .place(entity)
            .ok_or(EcsError::NoSuchEntity(entity))?;
        Ok(EntityRef {
            world,
            entity,
            place,
        })
    }

    /// The entity.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        if S::TRACED && self.world.is_tracing() {
            self.world.trace_get_of::<T>(self.entity, false);
        }
        let id = self.world.components().id::<T>()?;
        let ptr = self.place.ptr_of::<T>(id)?;
        // SAFETY: the place is the entity's in the world's storage, so `ptr_of(id)` is what
        // `get_ptr(entity, id)` answers (the `Storage` contract on places): the entity's
        // initialised `T`, `id` being `T`'s id. The world is borrowed shared for `'w`, so
        // nothing writes it meanwhile.
        Some(unsafe { ptr.cast::<T>().as_ref() })
    }

    /// Whether the entity has a `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        match self.world.components().id::<T>() {
            Some(id) => self.place.ptr_of::<T>(id).is_some(),
            None => false,
        }
    }

    /// The world the entity lives in.
    #[inline]
    pub fn world(&self) -> &'w World<S> {
        self.world
    }
}

impl<S: Storage> fmt::Debug for EntityRef<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EntityRef").field(&self.entity).finish()
    }
}

/// Exclusive access to one live entity, made by [`World::entity_mut`]: read and write its
/// components, add and remove some, or despawn it.
///
/// It borrows the world exclusively, so nothing else can despawn the entity or alias its
/// values while it lives: the handle is checked once, when it is made. Writes hand out one
/// reference at a time ([`EntityMut::get_mut`] takes `&mut self`); for a change-tracked
/// component use [`EntityMut::get_mut_tracked`], which records the write as
/// [`World::get_mut_tracked`] does.
///
/// # Invariant
/// `entity` is live in `world` for as long as the `EntityMut` exists: only
/// [`EntityMut::despawn`], which consumes it, ends the entity.
///
/// ```
/// # use ecs_core::{World, Component, testing::VecStorage};
/// #[derive(Component, Debug, PartialEq)]
/// struct Hp(u32);
/// #[derive(Component)]
/// struct Poisoned;
/// let mut world = World::<VecStorage>::new();
/// let e = world.spawn((Hp(10), Poisoned));
/// let mut hero = world.entity_mut(e).unwrap();
/// if hero.contains::<Poisoned>() {
///     hero.get_mut::<Hp>().unwrap().0 -= 3;
///     hero.remove::<Poisoned>();
/// }
/// assert_eq!(hero.get::<Hp>(), Some(&Hp(7)));
/// hero.despawn();
/// assert!(!world.contains(e));
/// ```
pub struct EntityMut<'w, S: Storage> {
    world: &'w mut World<S>,
    entity: Entity,
}

impl<'w, S: Storage> EntityMut<'w, S> {
    /// `entity`'s handle in `world`, after flushing reserved entities.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    pub(super) fn new(world: &'w mut World<S>, entity: Entity) -> Result<Self, EcsError> {
        world.flush();
        world.check(entity)?;
        Ok(EntityMut { world, entity })
    }

    /// The world, writable (the entity stays live: nothing here despawns it).
    #[cfg(feature = "schedule")]
    pub(crate) fn world_mut(&mut self) -> &mut World<S> {
        self.world
    }

    /// The entity.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&T> {
        self.world.get::<T>(self.entity)
    }

    /// Mutable access to the entity's `T`, if it has one: a plain `&mut T`, or a [`Mut`]
    /// guard for a type that tracks changes (as [`World::get_mut`]).
    #[inline]
    pub fn get_mut<T: MutableComponent>(&mut self) -> Option<Write<'_, T>> {
        self.world.get_mut::<T>(self.entity)
    }

    /// A guard on the entity's `T` that records a change on the first write for a type that
    /// tracks changes (see [`World::get_mut_tracked`]).
    #[inline]
    pub fn get_mut_tracked<T: MutableComponent>(&mut self) -> Option<Mut<'_, T>> {
        self.world.get_mut_tracked::<T>(self.entity)
    }

    /// Whether the entity has a `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.world.has::<T>(self.entity)
    }

    /// Sets the entity's `T`, returning the value it replaced (as [`World::insert`], which
    /// records the addition or change of a tracked component).
    pub fn insert<T: Component>(&mut self, value: T) -> Option<T> {
        self.world
            .insert(self.entity, value)
            .expect("an EntityMut's entity is live (type invariant)")
    }

    /// Removes the entity's `T` and returns it; `None` if it has none.
    pub fn remove<T: Component>(&mut self) -> Option<T> {
        // The entity is live (type invariant), so the only error is a missing `T`.
        self.world.remove::<T>(self.entity).ok()
    }

    /// Despawns the entity, dropping its components.
    pub fn despawn(self) {
        let despawned = self.world.despawn(self.entity);
        debug_assert!(despawned.is_ok(), "an EntityMut's entity is live");
    }

    /// Shared access to the entity for the duration of this borrow (one storage look-up for
    /// any number of reads, see [`EntityRef`]).
    pub fn as_readonly(&self) -> EntityRef<'_, S> {
        EntityRef::new(self.world, self.entity).expect("an EntityMut's entity is live")
    }

    /// The world the entity lives in, shared, for reads beside the entity's.
    #[inline]
    pub fn world(&self) -> &World<S> {
        self.world
    }
}

impl<S: Storage> fmt::Debug for EntityMut<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EntityMut").field(&self.entity).finish()
    }
}
