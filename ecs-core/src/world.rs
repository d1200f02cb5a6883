//! [`World`]: the user-facing API, identical on every storage backend.

use std::alloc::Layout;
use std::any::{Any, TypeId};
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::bundle::{Bundle, BundleInfo};
use crate::component::{
    Component, ComponentDescriptor, ComponentId, ComponentInfo, Components, TypeIdMap,
};
use crate::entities::Entities;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::query::{QueryData, QueryFilter, QueryIter, QueryState};
use crate::storage::Storage;

/// A unique id per world, so a [`QueryState`] is never used with a world it was not built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WorldId(u64);

/// Entities and their components, kept in storage backend `S`.
///
/// # Invariants
/// * An entity is in `storage` if and only if it is live in `entities`.
/// * Every `BundleInfo` and query state was built against `components`.
pub struct World<S: Storage> {
    id: WorldId,
    entities: Entities,
    components: Components,
    bundles: TypeIdMap<BundleInfo>,
    storage: S,
    queries: TypeIdMap<Box<dyn Any + Send + Sync>>,
}

impl<S: Storage> Default for World<S> {
    fn default() -> Self {
        World::new()
    }
}

impl<S: Storage> World<S> {
    /// An empty world.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let world = World::<VecStorage>::new();
    /// assert!(world.is_empty());
    /// ```
    pub fn new() -> World<S> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        World {
            id: WorldId(NEXT.fetch_add(1, Ordering::Relaxed)),
            entities: Entities::new(),
            components: Components::default(),
            bundles: TypeIdMap::default(),
            storage: S::default(),
            queries: TypeIdMap::default(),
        }
    }

    /// This world's id.
    pub fn id(&self) -> WorldId {
        self.id
    }

    /// The entity allocator (read-only).
    pub fn entities(&self) -> &Entities {
        &self.entities
    }

    /// The component registry (read-only).
    pub fn components(&self) -> &Components {
        &self.components
    }

    pub(crate) fn components_mut(&mut self) -> &mut Components {
        &mut self.components
    }

    /// The storage backend (read-only: changes go through the world so the entity set and the
    /// storage stay in step).
    pub fn storage(&self) -> &S {
        &self.storage
    }

    /// Number of live entities.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(());
    /// assert_eq!(world.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// True when no entity is live.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// assert!(World::<VecStorage>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Whether `entity` is live in this world.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.despawn(e).unwrap();
    /// assert!(!world.contains(e));
    /// ```
    pub fn contains(&self, entity: Entity) -> bool {
        self.entities.contains(entity)
    }

    /// Creates an entity with the components of `bundle` (a tuple of up to 16 components).
    ///
    /// # Panics
    /// If the bundle names one component type twice: no entity can hold both.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Pos(f32);
    /// impl Component for Pos {}
    /// struct Vel(f32);
    /// impl Component for Vel {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Pos(0.0), Vel(1.0)));
    /// assert!(world.has::<Vel>(e));
    /// ```
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        let info = Self::bundle_info::<B>(&mut self.bundles, &mut self.components);
        let entity = self.entities.alloc();
        self.storage.spawn(entity, bundle, info, &self.components);
        entity
    }

    /// Spawns one entity per bundle, resolving the bundle type and reserving room once.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Id(u32);
    /// impl Component for Id {}
    /// let mut world = World::<VecStorage>::new();
    /// let entities = world.spawn_batch((0..100).map(|i| (Id(i),)));
    /// assert_eq!(entities.len(), 100);
    /// assert_eq!(world.get::<Id>(entities[7]).map(|id| id.0), Some(7));
    /// ```
    pub fn spawn_batch<B: Bundle, I: IntoIterator<Item = B>>(&mut self, bundles: I) -> Vec<Entity> {
        let iter = bundles.into_iter();
        let info = Self::bundle_info::<B>(&mut self.bundles, &mut self.components);
        let additional = iter.size_hint().0;
        self.entities.reserve(additional);
        self.storage.reserve(info, &self.components, additional);
        let mut spawned = Vec::with_capacity(additional);
        for bundle in iter {
            let entity = self.entities.alloc();
            self.storage.spawn(entity, bundle, info, &self.components);
            spawned.push(entity);
        }
        spawned
    }

    fn bundle_info<'a, B: Bundle>(
        bundles: &'a mut TypeIdMap<BundleInfo>,
        components: &mut Components,
    ) -> &'a BundleInfo {
        let next = bundles.len() as u32;
        bundles.entry(TypeId::of::<B>()).or_insert_with(|| {
            BundleInfo::new::<B>(next, components).unwrap_or_else(|name| {
                panic!(
                    "bundle {} names component {name} twice",
                    std::any::type_name::<B>()
                )
            })
        })
    }

    /// Removes an entity and drops its components.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, EcsError, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// assert_eq!(world.despawn(e), Ok(()));
    /// assert_eq!(world.despawn(e), Err(EcsError::NoSuchEntity(e)));
    /// ```
    pub fn despawn(&mut self, entity: Entity) -> Result<(), EcsError> {
        // Free the handle first: if a component's Drop panics, the entity is already gone
        // everywhere and the storage finishes removing it while unwinding.
        if !self.entities.free(entity) {
            return Err(EcsError::NoSuchEntity(entity));
        }
        self.storage.despawn(entity);
        Ok(())
    }

    /// Despawns every entity; all handles become stale. Registered components stay.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.clear();
    /// assert!(world.is_empty() && !world.contains(e));
    /// ```
    pub fn clear(&mut self) {
        self.entities.clear();
        self.storage.clear();
    }

    /// Sets `entity`'s `T`, returning the value it replaced.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle (the value is dropped).
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Debug, PartialEq)]
    /// struct Hp(u32);
    /// impl Component for Hp {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// assert_eq!(world.insert(e, Hp(10)), Ok(None));
    /// assert_eq!(world.insert(e, Hp(8)), Ok(Some(Hp(10))));
    /// ```
    pub fn insert<T: Component>(
        &mut self,
        entity: Entity,
        value: T,
    ) -> Result<Option<T>, EcsError> {
        self.check(entity)?;
        let id = self.components.register::<T>();
        Ok(self.storage.insert(entity, id, value, &self.components))
    }

    /// Removes `entity`'s `T` and returns it.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle, [`EcsError::MissingComponent`] when the
    /// entity has no `T`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Debug, PartialEq)]
    /// struct Tag;
    /// impl Component for Tag {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Tag,));
    /// assert_eq!(world.remove::<Tag>(e), Ok(Tag));
    /// assert!(world.remove::<Tag>(e).is_err());
    /// ```
    pub fn remove<T: Component>(&mut self, entity: Entity) -> Result<T, EcsError> {
        self.check(entity)?;
        let missing = || EcsError::MissingComponent {
            entity,
            component: std::any::type_name::<T>().to_owned(),
        };
        let id = self.components.id::<T>().ok_or_else(missing)?;
        let mut out = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `out` is a disjoint slot for one `T`, which is `id`'s type.
        let moved = unsafe {
            self.storage
                .remove_into(entity, id, NonNull::from(&mut out).cast())
        };
        // SAFETY: `remove_into` returned true, so it wrote an initialised `T` into `out`.
        moved
            .then(|| unsafe { out.assume_init() })
            .ok_or_else(missing)
    }

    /// A shared reference to `entity`'s `T`; `None` if the entity is stale or has no `T`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Name(&'static str);
    /// impl Component for Name {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Name("crate"),));
    /// assert_eq!(world.get::<Name>(e).map(|n| n.0), Some("crate"));
    /// ```
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        let ptr = self.get_ptr::<T>(entity)?;
        // SAFETY: the storage returned a valid pointer to the entity's `T`; `&self` keeps the
        // world (and so the value) from being mutated while the reference lives.
        Some(unsafe { ptr.as_ref() })
    }

    /// A mutable reference to `entity`'s `T`; `None` if the entity is stale or has no `T`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Hp(u32);
    /// impl Component for Hp {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(3),));
    /// world.get_mut::<Hp>(e).unwrap().0 -= 1;
    /// assert_eq!(world.get::<Hp>(e).unwrap().0, 2);
    /// ```
    pub fn get_mut<T: Component>(&mut self, entity: Entity) -> Option<&mut T> {
        let mut ptr = self.get_ptr::<T>(entity)?;
        // SAFETY: as in `get`, and `&mut self` makes the reference unique.
        Some(unsafe { ptr.as_mut() })
    }

    #[inline]
    fn get_ptr<T: Component>(&self, entity: Entity) -> Option<NonNull<T>> {
        if !self.entities.contains(entity) {
            return None;
        }
        let id = self.components.id::<T>()?;
        self.storage.get_ptr(entity, id).map(NonNull::cast)
    }

    /// Whether `entity` is live and has a `T`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Tag;
    /// impl Component for Tag {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Tag,));
    /// assert!(world.has::<Tag>(e));
    /// ```
    pub fn has<T: Component>(&self, entity: Entity) -> bool {
        match self.components.id::<T>() {
            Some(id) => self.entities.contains(entity) && self.storage.contains(entity, id),
            None => false,
        }
    }

    /// Iterates every entity matching `Q` (see [`QueryData`]), with `for_each` as the fast path.
    ///
    /// The query's state is cached in the world, so calling this every frame only examines
    /// storage layout created since the previous call.
    ///
    /// # Panics
    /// If `Q` aliases a component (`(&mut A, &A)`); see [`World::try_query_filtered`].
    ///
    /// ```
    /// # use ecs_core::{World, Component, Entity, testing::VecStorage};
    /// struct Pos(f32);
    /// impl Component for Pos {}
    /// struct Vel(f32);
    /// impl Component for Vel {}
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Pos(0.0), Vel(2.0)));
    /// world.query::<(&mut Pos, &Vel)>().for_each(|(p, v)| p.0 += v.0);
    /// let total: f32 = world.query::<&Pos>().map(|p| p.0).sum();
    /// assert_eq!(total, 2.0);
    /// ```
    pub fn query<Q: QueryData + 'static>(&mut self) -> QueryIter<'_, Q, (), S> {
        self.query_filtered::<Q, ()>()
    }

    /// Like [`World::query`] with a filter `F` (`With<T>`, `Without<T>`, tuples of them).
    ///
    /// # Panics
    /// If `Q` aliases a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, With, Without, testing::VecStorage};
    /// struct Pos(f32);
    /// impl Component for Pos {}
    /// struct Frozen;
    /// impl Component for Frozen {}
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Pos(0.0),));
    /// world.spawn((Pos(0.0), Frozen));
    /// assert_eq!(world.query_filtered::<&Pos, Without<Frozen>>().count(), 1);
    /// assert_eq!(world.query_filtered::<&Pos, With<Frozen>>().count(), 1);
    /// ```
    pub fn query_filtered<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
    ) -> QueryIter<'_, Q, F, S> {
        self.try_query_filtered::<Q, F>()
            .unwrap_or_else(|err| panic!("{err}"))
    }

    /// Like [`World::query_filtered`], reporting an aliasing query as an error.
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when `Q` would alias a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// struct A;
    /// impl Component for A {}
    /// let mut world = World::<VecStorage>::new();
    /// let err = world.try_query_filtered::<(&mut A, &A), ()>().err().unwrap();
    /// assert!(matches!(err, EcsError::QueryConflict { .. }));
    /// ```
    pub fn try_query_filtered<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
    ) -> Result<QueryIter<'_, Q, F, S>, EcsError> {
        let key = TypeId::of::<QueryState<Q, F, S>>();
        if !self.queries.contains_key(&key) {
            let state = QueryState::<Q, F, S>::new(self)?;
            self.queries.insert(key, Box::new(state));
        }
        let state = self
            .queries
            .get_mut(&key)
            .and_then(|s| s.downcast_mut::<QueryState<Q, F, S>>());
        let state = state.expect("query cache holds the state under its own type");
        let world = WorldView {
            id: self.id,
            entities: &self.entities,
            storage: &self.storage,
        };
        // SAFETY: `&mut self` is held for the iterator's lifetime, so nothing else accesses
        // the storage; `state` is a separate field from the storage and entities.
        Ok(unsafe { state.iter_view(world) })
    }

    /// A reusable query state for `Q` filtered by `F` (what a system keeps between runs).
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when `Q` would alias a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Hp(u32);
    /// impl Component for Hp {}
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Hp(1),));
    /// let mut state = world.query_state::<&Hp, ()>().unwrap();
    /// assert_eq!(state.iter(&world).count(), 1);
    /// ```
    pub fn query_state<Q: QueryData, F: QueryFilter>(
        &mut self,
    ) -> Result<QueryState<Q, F, S>, EcsError> {
        QueryState::new(self)
    }

    /// The id of `T`, registering it if needed.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct A;
    /// impl Component for A {}
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_component::<A>();
    /// assert_eq!(world.component_id::<A>(), Some(id));
    /// ```
    pub fn register_component<T: Component>(&mut self) -> ComponentId {
        self.components.register::<T>()
    }

    /// Registers a component defined at run time (name, layout, drop function).
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use std::alloc::Layout;
    /// let mut world = World::<VecStorage>::new();
    /// let fog = world.register_dynamic(ComponentDescriptor {
    ///     name: "Fog".into(),
    ///     layout: Layout::new::<[f32; 2]>(),
    ///     drop: None,
    ///     storage: StorageKind::Table,
    /// });
    /// assert_eq!(world.component_info(fog).unwrap().name(), "Fog");
    /// ```
    pub fn register_dynamic(&mut self, descriptor: ComponentDescriptor) -> ComponentId {
        self.components.register_dynamic(descriptor)
    }

    /// The id of `T`, if registered.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct A;
    /// impl Component for A {}
    /// assert_eq!(World::<VecStorage>::new().component_id::<A>(), None);
    /// ```
    pub fn component_id<T: Component>(&self) -> Option<ComponentId> {
        self.components.id::<T>()
    }

    /// What the registry knows about `id`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct A(u64);
    /// impl Component for A {}
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_component::<A>();
    /// assert_eq!(world.component_info(id).unwrap().layout().size(), 8);
    /// ```
    pub fn component_info(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.components.get(id)
    }

    /// Sets `entity`'s component `id` from a raw value, taking ownership; an old value is
    /// dropped.
    ///
    /// # Safety
    /// `value` points to an initialised value of the component's registered layout that is
    /// valid for it (for a Rust type, a valid value of that type), and the caller does not use
    /// or drop it afterwards — even when an error is returned.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`], [`EcsError::UnknownComponent`]; on error the value is
    /// neither dropped nor moved.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// # use std::ptr::NonNull;
    /// struct Hp(u32);
    /// impl Component for Hp {}
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_component::<Hp>();
    /// let e = world.spawn(());
    /// let mut value = std::mem::ManuallyDrop::new(Hp(5));
    /// // SAFETY: `value` is a valid `Hp`, handed over and never used again.
    /// unsafe { world.insert_by_id(e, id, NonNull::from(&mut *value).cast()).unwrap() };
    /// assert_eq!(world.get::<Hp>(e).unwrap().0, 5);
    /// ```
    pub unsafe fn insert_by_id(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: NonNull<u8>,
    ) -> Result<(), EcsError> {
        self.check(entity)?;
        let info = self
            .components
            .get(id)
            .ok_or(EcsError::UnknownComponent(id))?;
        match self.storage.get_ptr(entity, id) {
            Some(slot) => {
                // Move the old value aside before dropping it, so a panicking Drop cannot leave
                // a dropped value in the storage.
                let old = TempValue::new(info.layout());
                // SAFETY: `slot` holds the old initialised value; `old` is a disjoint buffer
                // of the same layout; `value` is a valid new value (caller).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        slot.as_ptr(),
                        old.ptr.as_ptr(),
                        info.layout().size(),
                    );
                    std::ptr::copy_nonoverlapping(
                        value.as_ptr(),
                        slot.as_ptr(),
                        info.layout().size(),
                    );
                    old.drop_value(info.drop_fn());
                }
            }
            // SAFETY: the entity is live (so in the storage) and lacks `id`; the value is owned.
            None => unsafe { self.storage.insert_new(entity, id, value, &self.components) },
        }
        Ok(())
    }

    /// A pointer to `entity`'s component `id`; `None` if stale or absent.
    ///
    /// Reading through it is `unsafe`: the caller must know the component's layout, and the
    /// pointer is valid until the world is next mutated.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Hp(u32);
    /// impl Component for Hp {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(9),));
    /// let id = world.component_id::<Hp>().unwrap();
    /// let ptr = world.get_by_id(e, id).unwrap();
    /// // SAFETY: component `id` is `Hp`, and the world is not mutated while reading.
    /// assert_eq!(unsafe { ptr.cast::<Hp>().as_ref() }.0, 9);
    /// ```
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Option<NonNull<u8>> {
        if !self.entities.contains(entity) || self.components.get(id).is_none() {
            return None;
        }
        self.storage.get_ptr(entity, id)
    }

    /// Removes and drops `entity`'s component `id`.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`], [`EcsError::UnknownComponent`],
    /// [`EcsError::MissingComponent`].
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Hp(u32);
    /// impl Component for Hp {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(9),));
    /// let id = world.component_id::<Hp>().unwrap();
    /// world.remove_by_id(e, id).unwrap();
    /// assert!(!world.has::<Hp>(e));
    /// ```
    pub fn remove_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<(), EcsError> {
        self.check(entity)?;
        let info = self
            .components
            .get(id)
            .ok_or(EcsError::UnknownComponent(id))?;
        let out = TempValue::new(info.layout());
        // SAFETY: `out` is a disjoint buffer for one value of `id`.
        if !unsafe { self.storage.remove_into(entity, id, out.ptr) } {
            return Err(EcsError::MissingComponent {
                entity,
                component: info.name().to_owned(),
            });
        }
        // SAFETY: `remove_into` moved an initialised value of `id` into `out`.
        unsafe { out.drop_value(info.drop_fn()) };
        Ok(())
    }

    /// Sets a plain-data run-time component from bytes.
    ///
    /// # Errors
    /// [`EcsError::NotPlainData`] for Rust types and components with a drop function (bytes
    /// could break their invariants), [`EcsError::SizeMismatch`], and the errors of
    /// [`World::insert_by_id`].
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use std::alloc::Layout;
    /// let mut world = World::<VecStorage>::new();
    /// let raw = world.register_dynamic(ComponentDescriptor {
    ///     name: "Raw".into(), layout: Layout::new::<[u8; 4]>(), drop: None, storage: StorageKind::Table,
    /// });
    /// let e = world.spawn(());
    /// world.insert_bytes(e, raw, &[1, 2, 3, 4]).unwrap();
    /// assert_eq!(world.get_bytes(e, raw), Some(&[1u8, 2, 3, 4][..]));
    /// ```
    pub fn insert_bytes(
        &mut self,
        entity: Entity,
        id: ComponentId,
        bytes: &[u8],
    ) -> Result<(), EcsError> {
        let info = self.plain_info(id)?;
        if bytes.len() != info.layout().size() {
            return Err(EcsError::SizeMismatch {
                component: info.name().to_owned(),
                expected: info.layout().size(),
                actual: bytes.len(),
            });
        }
        let temp = TempValue::new(info.layout());
        // SAFETY: `temp` holds `bytes.len()` writable bytes, disjoint from `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), temp.ptr.as_ptr(), bytes.len()) };
        // SAFETY: plain data (no type, no drop) is valid for any initialised bytes; the value
        // needs no drop, so whether it is moved or not nothing leaks.
        unsafe { self.insert_by_id(entity, id, temp.ptr) }
    }

    /// The bytes of a plain-data run-time component; `None` if stale, absent or not plain data.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// struct Typed(u8);
    /// impl Component for Typed {}
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Typed(1),));
    /// let id = world.component_id::<Typed>().unwrap();
    /// assert_eq!(world.get_bytes(e, id), None, "typed components are not exposed as bytes");
    /// ```
    pub fn get_bytes(&self, entity: Entity, id: ComponentId) -> Option<&[u8]> {
        let size = self.plain_info(id).ok()?.layout().size();
        let ptr = self.get_by_id(entity, id)?;
        // SAFETY: plain-data components are only written from whole byte slices (or by
        // `insert_by_id`, whose contract requires an initialised value), so all `size` bytes
        // are initialised; `&self` keeps them unchanged while borrowed.
        Some(unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size) })
    }

    fn plain_info(&self, id: ComponentId) -> Result<&ComponentInfo, EcsError> {
        let info = self
            .components
            .get(id)
            .ok_or(EcsError::UnknownComponent(id))?;
        if info.type_id().is_some() || info.drop_fn().is_some() {
            return Err(EcsError::NotPlainData(info.name().to_owned()));
        }
        Ok(info)
    }

    /// Heap bytes held by the entity allocator and the storage.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(());
    /// assert!(world.memory_usage() > 0);
    /// ```
    pub fn memory_usage(&self) -> usize {
        self.entities.memory_usage() + self.storage.memory_usage()
    }

    fn check(&self, entity: Entity) -> Result<(), EcsError> {
        if self.entities.contains(entity) {
            Ok(())
        } else {
            Err(EcsError::NoSuchEntity(entity))
        }
    }
}

impl<S: Storage> fmt::Debug for World<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("World")
            .field("backend", &S::NAME)
            .field("entities", &self.entities.len())
            .field("components", &self.components.len())
            .finish()
    }
}

/// The parts of a world a query iterator borrows.
pub(crate) struct WorldView<'w, S: Storage> {
    pub(crate) id: WorldId,
    pub(crate) entities: &'w Entities,
    pub(crate) storage: &'w S,
}

impl<S: Storage> World<S> {
    pub(crate) fn view(&self) -> WorldView<'_, S> {
        WorldView {
            id: self.id,
            entities: &self.entities,
            storage: &self.storage,
        }
    }
}

/// A heap buffer for one value of a run-time layout, freed on drop (values are moved through
/// it by the by-id API).
struct TempValue {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl TempValue {
    fn new(layout: Layout) -> TempValue {
        let ptr = if layout.size() == 0 {
            crate::blob::dangling(layout.align())
        } else {
            // SAFETY: the layout has non-zero size.
            NonNull::new(unsafe { std::alloc::alloc(layout) })
                .unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
        };
        TempValue { ptr, layout }
    }

    /// Drops the value held; the buffer is freed afterwards even if the drop panics.
    ///
    /// # Safety
    /// The buffer holds an initialised value that `drop` is the drop function of.
    unsafe fn drop_value(self, drop: Option<crate::component::DropFn>) {
        if let Some(drop) = drop {
            // SAFETY: the buffer holds an initialised value of this drop function (caller);
            // `self` is dropped afterwards (also on unwind), freeing the buffer.
            unsafe { drop(self.ptr.as_ptr()) };
        }
    }
}

impl Drop for TempValue {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: allocated in `new` with this non-zero-size layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}
