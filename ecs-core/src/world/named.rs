//! Named component instances on the world: several instances of one component type per
//! entity, each under a name, found through the prototype-chain index (see
//! [`crate::named`]).

use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;

use super::World;
use crate::change::{ChangeKind, Mut};
use crate::component::{tracks_changes, Component, ComponentId, MutableComponent};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::named::{EntityIndex, NameId};
use crate::storage::Storage;

/// One named instance of an entity (see [`World::named_instances`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedInstance<'w> {
    /// The instance's own component id (what the storage keeps it under).
    pub id: ComponentId,
    /// The component (type) it is an instance of.
    pub of: ComponentId,
    /// Its name.
    pub name: &'w str,
}

impl<S: Storage> World<S> {
    /// The component id of `T`'s instance named `name`, registering both on first use
    /// (what a run-time query names to fetch a named instance).
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let fog = world.instance_id::<RenderData>("Fog");
    /// assert_eq!(world.instance_id::<RenderData>("Fog"), fog);
    /// assert_ne!(world.instance_id::<RenderData>("Vignette"), fog);
    /// assert_ne!(world.component_id::<RenderData>(), Some(fog));
    /// ```
    pub fn instance_id<T: Component>(&mut self, name: &str) -> ComponentId {
        let of = self.components.register::<T>();
        let id = self
            .components
            .register_instance(of, name)
            .expect("a Rust type's own id can have instances");
        if <T as crate::bundle::Bundle>::HOOKED {
            self.sync_reactions();
        }
        id
    }

    /// The component id of the instance named `name` of component `of` (a Rust type's id
    /// or a run-time component's), registering it on first use. Store values under it with
    /// [`World::insert_by_id`]; the name rules of [`World::insert_named`] apply there too.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] when `of` is not a component of this world, or is
    /// itself a named instance.
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use std::alloc::Layout;
    /// let mut world = World::<VecStorage>::new();
    /// let light = world.register_dynamic(ComponentDescriptor {
    ///     name: "Light".into(), layout: Layout::new::<f32>(), drop: None,
    ///     storage: StorageKind::Table,
    /// });
    /// let key = world.register_instance(light, "Key").unwrap();
    /// let e = world.spawn(());
    /// world.insert_bytes(e, key, &1.5f32.to_ne_bytes()).unwrap();
    /// assert_eq!(world.find(e, "Key"), Some(key));
    /// assert!(world.register_instance(key, "Nested").is_err());
    /// ```
    pub fn register_instance(
        &mut self,
        of: ComponentId,
        name: &str,
    ) -> Result<ComponentId, EcsError> {
        self.components.register_instance(of, name)
    }

    /// Gives `entity` an instance of `T` named `name`, or replaces the value of the one it
    /// has (returned). Stored like any component (densely on tables, in the hybrid
    /// backend's choice for `T`) and recorded for `Added`/`Changed` filters on the instance
    /// if `T` tracks changes.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle; [`EcsError::NameTaken`] when the
    /// entity holds a named instance of another type under `name` (instance names are unique
    /// per entity across all types). The world is unchanged and the value dropped. An
    /// unnamed component whose type's short name is `name` does not block it: the instance
    /// then answers to the name (see [`crate::named`]), in whichever order the two came.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component, Debug, PartialEq)]
    /// struct RenderData(f32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Light(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// assert_eq!(world.insert_named(e, "Fog", RenderData(0.5)), Ok(None));
    /// assert_eq!(world.insert_named(e, "Fog", RenderData(0.7)), Ok(Some(RenderData(0.5))));
    /// assert!(matches!(world.insert_named(e, "Fog", Light(1.0)), Err(EcsError::NameTaken { .. })));
    /// assert_eq!(world.get_named::<RenderData>(e, "Fog"), Some(&RenderData(0.7)));
    /// ```
    pub fn insert_named<T: Component>(
        &mut self,
        entity: Entity,
        name: &str,
        value: T,
    ) -> Result<Option<T>, EcsError> {
        if self.reacting::<T>() {
            let mut value = ManuallyDrop::new(value);
            // SAFETY: a `T`, handed over and never dropped here.
            return unsafe { self.insert_named_reacting(entity, name, NonNull::from(&mut *value)) };
        }
        self.check(entity)?;
        let id = self.instance_id::<T>(name);
        self.insert_named_now(entity, id, value)
    }

    /// [`World::insert_named`] where something reacts: `on_replace` before, `on_add` and
    /// `on_insert` after.
    ///
    /// # Safety
    /// `value` points to a `T` this call takes over (the caller must not use or drop it).
    #[cold]
    #[inline(never)]
    unsafe fn insert_named_reacting<T: Component>(
        &mut self,
        entity: Entity,
        name: &str,
        value: NonNull<T>,
    ) -> Result<Option<T>, EcsError> {
        // SAFETY: the caller hands the value over.
        let value = unsafe { value.as_ptr().read() };
        self.check(entity)?;
        let id = self.instance_id::<T>(name);
        let held = self.before_store(entity, &[id]);
        let stored = self.insert_named_now(entity, id, value);
        if stored.is_ok() {
            self.after_store(entity, &[id], &held);
        }
        stored
    }

    /// [`World::insert_named`] of live `entity`'s instance `id` (of `T`).
    fn insert_named_now<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
    ) -> Result<Option<T>, EcsError> {
        if let Some(ptr) = self.storage.get_ptr(entity, id) {
            // SAFETY: `get_ptr` points to the entity's value of `id`, a `T` (a named
            // instance of `T` holds `T`s), and `&mut self` excludes every other access.
            let old = unsafe { ptr.cast::<T>().as_ptr().replace(value) };
            if tracks_changes::<T>() {
                self.changes.on_changed(id, entity);
            }
            return Ok(Some(old));
        }
        let name_id = self.claim_name(entity, id)?;
        let value = ManuallyDrop::new(value);
        // SAFETY: the entity is live (checked), so held, and lacks `id` (`get_ptr` said so);
        // `value` is an owned `T` (`Send + Sync`), `id`'s values are `T`s, and the
        // `ManuallyDrop` keeps us from dropping it after the storage takes it.
        unsafe {
            self.storage
                .insert_new(entity, id, NonNull::from(&*value).cast(), &self.components)
        };
        self.index.add(entity.index(), id, name_id);
        if tracks_changes::<T>() {
            self.changes.on_added(id, entity);
        }
        Ok(None)
    }

    /// `entity`'s instance of `T` named `name`; `None` if the entity is stale or has none.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.insert_named(e, "Vignette", RenderData(0.1)).unwrap();
    /// assert_eq!(world.get_named::<RenderData>(e, "Vignette").map(|r| r.0), Some(0.1));
    /// assert!(world.get_named::<RenderData>(e, "Fog").is_none());
    /// ```
    pub fn get_named<T: Component>(&self, entity: Entity, name: &str) -> Option<&T> {
        if S::TRACED && self.is_tracing() {
            self.trace_get_named::<T>(entity, name, false);
        }
        let ptr = self.named_ptr::<T>(entity, name)?;
        // SAFETY: the storage's pointer to the entity's value of a `T` instance; `&self`
        // keeps the world from being mutated while the reference lives.
        Some(unsafe { ptr.as_ref() })
    }

    /// Mutable access to `entity`'s instance of `T` named `name`, recording a change on
    /// write when `T` tracks changes (as [`World::get_mut_tracked`]); `None` if the entity
    /// is stale or has none.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.insert_named(e, "Fog", RenderData(0.5)).unwrap();
    /// world.get_named_mut::<RenderData>(e, "Fog").unwrap().0 = 0.25;
    /// assert_eq!(world.get_named::<RenderData>(e, "Fog").unwrap().0, 0.25);
    /// ```
    pub fn get_named_mut<T: MutableComponent>(
        &mut self,
        entity: Entity,
        name: &str,
    ) -> Option<Mut<'_, T>> {
        if S::TRACED && self.is_tracing() {
            self.trace_get_named::<T>(entity, name, true);
        }
        let mut ptr = self.named_ptr::<T>(entity, name)?;
        let log = if tracks_changes::<T>() {
            let id = self.components.instance(self.components.id::<T>()?, name)?;
            Some(self.changes.ensure(id).get(ChangeKind::Changed) as &_)
        } else {
            None
        };
        // SAFETY: as in `get_named`, and `&mut self` makes the reference unique; the log is
        // a different field than the storage.
        Some(Mut::new(unsafe { ptr.as_mut() }, log, entity))
    }

    /// Removes `entity`'s instance of `T` named `name` and returns it; the name is free
    /// again.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle, [`EcsError::UnknownInstance`] when it
    /// has no such instance (nothing changes).
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component, Debug, PartialEq)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.insert_named(e, "Fog", RenderData(0.5)).unwrap();
    /// assert_eq!(world.remove_named::<RenderData>(e, "Fog"), Ok(RenderData(0.5)));
    /// assert!(world.find(e, "Fog").is_none());
    /// assert!(world.remove_named::<RenderData>(e, "Fog").is_err());
    /// ```
    pub fn remove_named<T: Component>(
        &mut self,
        entity: Entity,
        name: &str,
    ) -> Result<T, EcsError> {
        if self.needs_attention() && self.attend() {
            return self.remove_named_reacting(entity, name);
        }
        self.remove_named_now(entity, name)
    }

    /// [`World::remove_named`] where something reacts: `on_replace` and `on_remove` with
    /// the value still stored.
    #[cold]
    #[inline(never)]
    fn remove_named_reacting<T: Component>(
        &mut self,
        entity: Entity,
        name: &str,
    ) -> Result<T, EcsError> {
        self.check(entity)?;
        let held = self
            .components
            .id::<T>()
            .and_then(|of| self.components.instance(of, name))
            .filter(|&id| self.storage.contains(entity, id));
        if let Some(id) = held {
            self.before_remove(entity, &[id]);
        }
        let removed = self.remove_named_now(entity, name);
        self.settle();
        removed
    }

    /// The removal of [`World::remove_named`] (reserved entities flushed; the reacting path
    /// runs its hooks first).
    fn remove_named_now<T: Component>(
        &mut self,
        entity: Entity,
        name: &str,
    ) -> Result<T, EcsError> {
        self.check(entity)?;
        let unknown = || EcsError::UnknownInstance {
            entity,
            name: name.to_owned(),
        };
        let of = self.components.id::<T>().ok_or_else(unknown)?;
        let id = self.components.instance(of, name).ok_or_else(unknown)?;
        let mut out = MaybeUninit::<T>::uninit();
        // SAFETY: `out` is a disjoint slot for one `T`, the type of `id`'s values.
        let moved = unsafe {
            self.storage
                .remove_into(entity, id, NonNull::from(&mut out).cast())
        };
        if !moved {
            return Err(unknown());
        }
        self.unindex(entity, id);
        // SAFETY: `remove_into` returned true, so it wrote an initialised `T` into `out`.
        Ok(unsafe { out.assume_init() })
    }

    /// Whether `entity` is live and holds a component instance called `name` (a named
    /// instance, or an unnamed component whose type's short name it is).
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Transform;
    /// #[derive(Component)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Transform,));
    /// world.insert_named(e, "Fog", RenderData(0.5)).unwrap();
    /// assert!(world.has_named(e, "Fog") && world.has_named(e, "Transform"));
    /// assert!(!world.has_named(e, "Vignette"));
    /// ```
    pub fn has_named(&self, entity: Entity, name: &str) -> bool {
        self.find(entity, name).is_some()
    }

    /// Which component holds `entity`'s instance called `name`: a named instance's own id
    /// (its [`ComponentInfo::instance`](crate::component::ComponentInfo::instance) names
    /// the type), or the id of an unnamed component whose type's short name is `name`
    /// (when no named instance has taken it). `None` for a stale handle or an unknown name.
    /// Costs one hash of `name` and a walk of the entity's prototype chain; allocates
    /// nothing.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.insert_named(e, "Fog", RenderData(0.5)).unwrap();
    /// assert_eq!(world.find(e, "Fog"), Some(world.instance_id::<RenderData>("Fog")));
    /// ```
    #[inline]
    pub fn find(&self, entity: Entity, name: &str) -> Option<ComponentId> {
        if !self.entities.contains(entity) {
            return None;
        }
        self.find_text(entity, name)
    }

    /// [`World::find`] by an interned name ([`Components::names`](
    /// crate::component::Components::names)), skipping the hash of the text.
    #[inline]
    pub fn find_by_name_id(&self, entity: Entity, name: NameId) -> Option<ComponentId> {
        if !self.entities.contains(entity) {
            return None;
        }
        self.find_name(entity, name)
    }

    /// The named instances of `entity`, the most recently added first (nothing for a stale
    /// handle). Unnamed components are not listed.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.insert_named(e, "Fog", RenderData(0.5)).unwrap();
    /// world.insert_named(e, "Vignette", RenderData(0.1)).unwrap();
    /// let names: Vec<&str> = world.named_instances(e).map(|i| i.name).collect();
    /// assert_eq!(names, ["Vignette", "Fog"]);
    /// ```
    pub fn named_instances(&self, entity: Entity) -> impl Iterator<Item = NamedInstance<'_>> {
        let slot = if self.entities.contains(entity) {
            Some(entity.index())
        } else {
            None
        };
        slot.into_iter()
            .flat_map(|slot| self.index.instances(slot))
            .map(|(id, name)| NamedInstance {
                id,
                of: self
                    .components
                    .info(id)
                    .instance()
                    .map_or(id, |instance| instance.of()),
                name: self.components.names().text(name),
            })
    }

    /// The prototype-chain index (read-only: its size and registry, see [`EntityIndex`]).
    pub fn entity_index(&self) -> &EntityIndex {
        &self.index
    }

    /// Frees the index's unused prototypes now (they are otherwise kept for reuse until
    /// they outnumber the used ones); returns how many were freed.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct RenderData(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.insert_named(e, "Fog", RenderData(0.5)).unwrap();
    /// world.despawn(e).unwrap();
    /// assert_eq!(world.entity_index().unused_prototypes(), 1);
    /// assert_eq!(world.collect_prototypes(), 1);
    /// ```
    pub fn collect_prototypes(&mut self) -> usize {
        self.index.collect_garbage()
    }

    /// The component holding live `entity`'s instance called `name` (text): a named
    /// instance through the index, or an unnamed component of a Rust type of that short name.
    pub(crate) fn find_text(&self, entity: Entity, name: &str) -> Option<ComponentId> {
        if let Some(id) = self.components.names().get(name) {
            if let Some(found) = self.index.find(entity.index(), id) {
                return Some(found);
            }
        }
        self.components
            .types_with_short_name(name)
            .find(|&id| self.storage.contains(entity, id))
    }

    /// The component holding live `entity`'s instance called `name`.
    #[inline]
    pub(crate) fn find_name(&self, entity: Entity, name: NameId) -> Option<ComponentId> {
        if let Some(id) = self.index.find(entity.index(), name) {
            return Some(id);
        }
        self.components
            .types_named(name)
            .iter()
            .copied()
            .find(|&id| self.storage.contains(entity, id))
    }

    /// Checks that live `entity` can take the named instance `id` (it lacks it): no other
    /// named instance of the entity may hold its name (an unnamed component's type name does
    /// not count: the instance shadows it, see [`crate::named`]). Returns the name.
    // Always inlined: the by-id insert's fast path and its reacting path both call it, and
    // out of line the fast path paid a call per named insert.
    #[inline(always)]
    pub(super) fn claim_name(&self, entity: Entity, id: ComponentId) -> Result<NameId, EcsError> {
        let instance = self
            .components
            .info(id)
            .instance()
            .expect("claim_name is called for named instances");
        match self.index.find(entity.index(), instance.name()) {
            None => Ok(instance.name()),
            Some(holder) => Err(EcsError::NameTaken {
                entity,
                name: self.components.names().text(instance.name()).to_owned(),
                holder: self.components.info(holder).name().to_owned(),
            }),
        }
    }

    /// Drops `id` from live `entity`'s index entry after the storage removed it, if `id`
    /// is a named instance.
    pub(super) fn unindex(&mut self, entity: Entity, id: ComponentId) {
        if let Some(instance) = self.components.info(id).instance() {
            let removed = self.index.remove(entity.index(), instance.name());
            debug_assert!(removed, "a stored named instance is indexed");
        }
    }

    /// Pointer to `entity`'s `T` instance named `name`.
    fn named_ptr<T: Component>(&self, entity: Entity, name: &str) -> Option<NonNull<T>> {
        let id = self.components.instance(self.components.id::<T>()?, name)?;
        // The storage compares whole handles: a stale one answers `None`.
        self.storage.get_ptr(entity, id).map(NonNull::cast)
    }
}
