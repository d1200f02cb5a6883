//! Bundles onto and off one entity: [`World::insert`], [`World::remove`], [`World::take`].
//!
//! Each walks the bundle's fields with a typed visitor ([`EntityInserter`],
//! [`EntitySource`]) that stores or takes one component. For a single component the walk is
//! one inlined call, so `world.insert(e, A(1))` compiles to the one-component path it always
//! was; a bundle of several is stored component by component (on a table backend the row
//! moves once per component the entity did not have).
//!
//! `remove` and `take` are all or nothing: a bundle of several components is checked against
//! the entity first, so an entity lacking one of them keeps all of them. (One component needs
//! no check: taking it is the check.)

use std::borrow::Cow;
use std::ptr::NonNull;

use super::World;
use crate::bundle::{Bundle, ComponentInserter, ComponentSource};
use crate::component::Component;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Storage;

impl<S: Storage> World<S> {
    /// Inserts the components of `bundle` into `entity`, replacing those it already has, and
    /// returns what they replaced ([`Bundle::Replaced`]): for one component the previous
    /// value, if any; for a tuple or a `#[derive(Bundle)]` struct, a tuple of its fields'.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle: nothing is inserted, and the bundle's
    /// values are dropped before this returns.
    ///
    /// # Panics
    /// If the bundle names one component type twice (as [`World::spawn`]).
    ///
    /// ```
    /// # use ecs_core::{World, Component, Bundle, testing::VecStorage};
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Hp(u32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Armor(u32);
    /// #[derive(Bundle)]
    /// struct Stats { hp: Hp, armor: Armor }
    ///
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// assert_eq!(world.insert(e, Hp(10)), Ok(None));
    /// assert_eq!(world.insert(e, Hp(8)), Ok(Some(Hp(10))));
    /// assert_eq!(world.insert(e, (Hp(7), Armor(2))), Ok((Some(Hp(8)), None)));
    /// let replaced = world.insert(e, Stats { hp: Hp(1), armor: Armor(1) }).unwrap();
    /// assert_eq!(replaced, (Some(Hp(7)), Some(Armor(2))));
    /// ```
    #[inline(always)]
    pub fn insert<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
    ) -> Result<B::Replaced, EcsError> {
        // One test on the fast path (see `World::enter`); the bundle goes to the slow path
        // only where something reacts, so the fast path never spills it.
        if self.reacting::<B>() {
            let mut bundle = std::mem::ManuallyDrop::new(bundle);
            // SAFETY: a `B`, read once and never dropped here.
            return unsafe { self.insert_reacting::<B>(entity, NonNull::from(&mut *bundle)) };
        }
        self.check(entity)?;
        if B::COUNT > 1 {
            // Resolving the bundle rejects one naming a component twice, as `spawn` does.
            self.bundles.info::<B>(&mut self.components);
        }
        let replaced = bundle.insert_into(&mut EntityInserter {
            world: self,
            entity,
        });
        if B::REQUIRES {
            let bundle = self.bundles.info::<B>(&mut self.components).id();
            self.add_required_of(entity, bundle);
        }
        Ok(replaced)
    }

    /// [`World::insert`] where something reacts: `on_replace` before, `on_add` and
    /// `on_insert` once the bundle and what it requires are stored. Stores through
    /// [`ReactingInserter`], so the storage's typed insert keeps the fast path as its one
    /// caller (and stays inlined there).
    ///
    /// # Safety
    /// `bundle` points to a `B` this call takes over (reads once; the caller must not use
    /// or drop it afterwards).
    #[cold]
    #[inline(never)]
    unsafe fn insert_reacting<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: NonNull<B>,
    ) -> Result<B::Replaced, EcsError> {
        // SAFETY: the caller hands the bundle over.
        let bundle = unsafe { bundle.as_ptr().read() };
        self.check(entity)?;
        let info = self.bundles.info::<B>(&mut self.components);
        let (bundle_id, ids) = (info.id(), info.components().to_vec());
        let held = self.before_store(entity, &ids);
        let replaced = bundle.insert_into(&mut ReactingInserter {
            world: self,
            entity,
        });
        if B::REQUIRES {
            self.add_required_of(entity, bundle_id);
        }
        self.after_store(entity, &ids, &held);
        Ok(replaced)
    }

    /// Removes the components of bundle `B` from `entity` and returns them, all or nothing.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle; [`EcsError::MissingComponent`] naming
    /// the first of `B`'s components (in field order) the entity lacks;
    /// [`EcsError::HierarchyComponent`] when `B` names a relationship component (use
    /// [`World::remove_parent`]). On error nothing is removed.
    ///
    /// # Panics
    /// If `B` names one component type twice.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Tag;
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Tag, Hp(3)));
    /// assert_eq!(world.remove::<Tag>(e), Ok(Tag));
    /// // `e` lacks `Tag` now: removing `(Hp, Tag)` removes nothing.
    /// assert!(matches!(
    ///     world.remove::<(Hp, Tag)>(e),
    ///     Err(EcsError::MissingComponent { component, .. }) if component.ends_with("Tag")
    /// ));
    /// assert_eq!(world.get::<Hp>(e), Some(&Hp(3)));
    /// world.insert(e, Tag).unwrap();
    /// assert_eq!(world.remove::<(Hp, Tag)>(e), Ok((Hp(3), Tag)));
    /// ```
    pub fn remove<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        if self.reacting::<B>() {
            return self.remove_reacting::<B>(entity);
        }
        self.check(entity)?;
        self.refuse_links::<B>(entity)?;
        if B::COUNT > 1 {
            self.check_holds::<B>(entity)?;
        }
        B::take_from(&mut EntitySource {
            world: self,
            entity,
        })
    }

    /// [`World::remove`] where something reacts: checked first (all or nothing), then
    /// `on_replace` and `on_remove` with the values still stored.
    #[cold]
    #[inline(never)]
    fn remove_reacting<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        self.check(entity)?;
        self.refuse_links::<B>(entity)?;
        self.check_holds::<B>(entity)?;
        let ids = self
            .bundles
            .info::<B>(&mut self.components)
            .components()
            .to_vec();
        self.before_remove(entity, &ids);
        let removed = B::take_from(&mut ErasedSource {
            world: self,
            entity,
        });
        self.settle();
        removed
    }

    /// Despawns `entity`, handing back its components of bundle `B`; components it has
    /// beyond `B` are dropped. All or nothing: if the entity lacks one of `B`'s components,
    /// it is left as it was.
    ///
    /// If dropping an extra component panics, the entity is despawned all the same and the
    /// taken values are dropped while unwinding.
    ///
    /// Relationships are kept exact as by [`World::despawn`].
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle; [`EcsError::MissingComponent`] naming
    /// the first of `B`'s components (in field order) the entity lacks;
    /// [`EcsError::HierarchyComponent`] when `B` names a relationship component.
    ///
    /// # Panics
    /// If `B` names one component type twice.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Pos(i32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Vel(i32);
    /// #[derive(Component)]
    /// struct Sprite(String);
    /// #[derive(Component, Debug)]
    /// struct Shield;
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Pos(1), Vel(2), Sprite("ship".into())));
    /// assert!(world.take::<(Pos, Shield)>(e).is_err(), "no Shield: nothing happens");
    /// assert!(world.contains(e) && world.has::<Pos>(e));
    /// assert_eq!(world.take::<(Pos, Vel)>(e), Ok((Pos(1), Vel(2))));
    /// assert!(!world.contains(e), "despawned; the Sprite was dropped");
    /// ```
    pub fn take<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        // A despawn: every component the entity holds may react, not only `B`'s.
        if (B::HOOKED || self.needs_attention()) && self.attend_registering::<B>() {
            return self.take_reacting::<B>(entity);
        }
        self.check(entity)?;
        self.refuse_links::<B>(entity)?;
        if B::COUNT > 1 {
            self.check_holds::<B>(entity)?;
        }
        let bundle = B::take_from(&mut EntitySource {
            world: self,
            entity,
        })?;
        self.despawn_taken(entity);
        Ok(bundle)
    }

    /// [`World::take`] where something reacts: the despawn reactions run first, with the
    /// entity whole.
    #[cold]
    #[inline(never)]
    fn take_reacting<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        self.check(entity)?;
        self.refuse_links::<B>(entity)?;
        self.check_holds::<B>(entity)?;
        self.before_despawn(entity);
        let bundle = B::take_from(&mut ErasedSource {
            world: self,
            entity,
        })?;
        self.despawn_taken(entity);
        self.settle();
        Ok(bundle)
    }

    /// Despawns live `entity` once [`World::take`] took its bundle.
    fn despawn_taken(&mut self, entity: Entity) {
        // As `despawn`: links first, so no child is left naming a dead parent.
        if let Some(ids) = self.hierarchy {
            self.detach(ids, entity);
        }
        // As `despawn`: the handle is freed first, so if an extra component's Drop panics
        // the entity is gone everywhere (the storage finishes removing it while unwinding),
        // and the taken bundle is dropped by the unwinding too.
        let freed = self.entities.free(entity);
        debug_assert!(freed, "checked live above");
        self.index.release(entity.index());
        self.storage.despawn(entity);
    }

    /// Refuses a bundle naming a relationship component (only in a world with
    /// relationships: elsewhere this is one branch).
    #[inline]
    fn refuse_links<B: Bundle>(&mut self, entity: Entity) -> Result<(), EcsError> {
        let Some(ids) = self.hierarchy else {
            return Ok(());
        };
        let info = self.bundles.info::<B>(&mut self.components);
        match info.components().iter().find(|&&id| ids.names(id)) {
            Some(&id) => Err(EcsError::HierarchyComponent {
                entity,
                component: ids.name(id),
            }),
            None => Ok(()),
        }
    }

    /// `Ok` when live `entity` has every component of `B`; else the error naming the first
    /// one (in field order) it lacks.
    fn check_holds<B: Bundle>(&mut self, entity: Entity) -> Result<(), EcsError> {
        let info = self.bundles.info::<B>(&mut self.components);
        let storage = &self.storage;
        match info
            .components()
            .iter()
            .find(|&&id| !storage.contains(entity, id))
        {
            None => Ok(()),
            Some(&id) => Err(EcsError::MissingComponent {
                entity,
                component: Cow::Owned(self.components.info(id).name().to_owned()),
            }),
        }
    }
}

/// Stores a bundle's values on one entity, one component at a time.
///
/// # Invariant
/// `entity` is live in `world` (checked before the inserter is made; nothing it does
/// despawns).
struct EntityInserter<'w, S: Storage> {
    world: &'w mut World<S>,
    entity: Entity,
}

impl<S: Storage> ComponentInserter for EntityInserter<'_, S> {
    #[inline(always)]
    fn insert<T: Component>(&mut self, value: T) -> Option<T> {
        let world = &mut *self.world;
        let id = world.components.register::<T>();
        // SAFETY: the entity is live (type invariant), so held (the `World` invariant); `id`
        // is `T`'s id in `world.components`, the registry.
        let old = unsafe {
            world
                .storage
                .insert(self.entity, id, value, &world.components)
        };
        if crate::component::tracks_changes::<T>() {
            match old {
                None => world.changes.on_added(id, self.entity),
                Some(_) => world.changes.on_changed(id, self.entity),
            }
        }
        old
    }
}

/// Takes values off one entity, one component at a time.
///
/// # Invariant
/// `entity` is live in `world` (checked before the source is made; taking a component does
/// not despawn).
struct EntitySource<'w, S: Storage> {
    world: &'w mut World<S>,
    entity: Entity,
}

impl<S: Storage> ComponentSource for EntitySource<'_, S> {
    #[inline(always)]
    fn take<T: Component>(&mut self) -> Result<T, EcsError> {
        let (world, entity) = (&mut *self.world, self.entity);
        let missing = || EcsError::MissingComponent {
            entity,
            component: Cow::Borrowed(std::any::type_name::<T>()),
        };
        let id = world.components.id::<T>().ok_or_else(missing)?;
        // SAFETY: `id` is `T`'s id in the world's registry.
        unsafe { world.storage.remove_typed::<T>(entity, id) }.ok_or_else(missing)
    }
}

/// [`EntityInserter`] through the storage's type-erased calls: what the reacting insert
/// uses, so that the typed fast path stays the storage's one typed caller.
///
/// # Invariant
/// As [`EntityInserter`]'s.
struct ReactingInserter<'w, S: Storage> {
    world: &'w mut World<S>,
    entity: Entity,
}

impl<S: Storage> ComponentInserter for ReactingInserter<'_, S> {
    fn insert<T: Component>(&mut self, value: T) -> Option<T> {
        let (world, entity) = (&mut *self.world, self.entity);
        let id = world.components.register::<T>();
        let tracked = crate::component::tracks_changes::<T>();
        if let Some(slot) = world.storage.get_ptr(entity, id) {
            // SAFETY: `slot` is the entity's value of `id`, a `T`; `&mut World` excludes
            // every other access.
            let old = unsafe { slot.cast::<T>().as_ptr().replace(value) };
            if tracked {
                world.changes.on_changed(id, entity);
            }
            return Some(old);
        }
        let value = std::mem::ManuallyDrop::new(value);
        // SAFETY: the entity is live (type invariant), so held, and lacks `id` (asked
        // above); the value is an owned `T` (`Send + Sync`), `id`'s type, which the
        // `ManuallyDrop` keeps us from dropping once the storage owns it.
        unsafe {
            world.storage.insert_new(
                entity,
                id,
                std::ptr::NonNull::from(&*value).cast(),
                &world.components,
            )
        };
        if tracked {
            world.changes.on_added(id, entity);
        }
        None
    }
}

/// [`EntitySource`] through the storage's type-erased removal (see [`ReactingInserter`]).
///
/// # Invariant
/// As [`EntitySource`]'s.
struct ErasedSource<'w, S: Storage> {
    world: &'w mut World<S>,
    entity: Entity,
}

impl<S: Storage> ComponentSource for ErasedSource<'_, S> {
    fn take<T: Component>(&mut self) -> Result<T, EcsError> {
        let (world, entity) = (&mut *self.world, self.entity);
        let missing = || EcsError::MissingComponent {
            entity,
            component: Cow::Borrowed(std::any::type_name::<T>()),
        };
        let id = world.components.id::<T>().ok_or_else(missing)?;
        let mut out = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `out` is a disjoint slot for one value of `id`, a `T`.
        let moved = unsafe {
            world
                .storage
                .remove_into(entity, id, std::ptr::NonNull::from(&mut out).cast())
        };
        if !moved {
            return Err(missing());
        }
        // SAFETY: `remove_into` returned true: it moved an initialised `T` into `out`.
        Ok(unsafe { out.assume_init() })
    }
}
