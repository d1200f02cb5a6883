//! Entity access as bevy and hecs users expect it: several entities' components at once
//! ([`World::get_many_mut`]), one entity's components through a handle checked once
//! ([`World::entity`], [`World::entity_mut`]), a query's only item ([`World::query_single`])
//! and read-only queries through a shared world ([`World::query_ref`]).

use std::ptr::NonNull;

use super::{EntityMut, EntityRef, World};
use crate::change::{ChangeKind, ChangeLog, Mut};
use crate::component::{tracks_changes, Component, MutableComponent, Writable, Write};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::query::{exactly_one, QueryData, QueryFilter, QueryRefIter, ReadOnlyQueryData};
use crate::storage::Storage;

impl<S: Storage> World<S> {
    /// Mutable access to the `T`s of several distinct entities at once, in the order given
    /// (`get_mut` hands out one at a time): plain `&mut T`s, or [`Mut`] guards for a type
    /// that tracks changes, as [`World::get_mut`] hands out.
    ///
    /// # Errors
    /// [`EcsError::DuplicateEntity`] when an entity is named twice (two `&mut` to one value),
    /// checked before anything else; then, for the first entity (in order) without a `T`,
    /// [`EcsError::NoSuchEntity`] for a stale handle and [`EcsError::MissingComponent`] for a
    /// live entity.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component, Debug)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let (healer, hurt) = (world.spawn((Hp(10),)), world.spawn((Hp(2),)));
    /// let [from, to] = world.get_many_mut::<Hp, 2>([healer, hurt]).unwrap();
    /// from.0 -= 3;
    /// to.0 += 3;
    /// assert_eq!(world.get::<Hp>(hurt).unwrap().0, 5);
    /// let err = world.get_many_mut::<Hp, 2>([hurt, hurt]).unwrap_err();
    /// assert_eq!(err, EcsError::DuplicateEntity(hurt));
    /// ```
    pub fn get_many_mut<T: MutableComponent, const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[Write<'_, T>; N], EcsError> {
        let ptrs = self.many_ptrs::<T, N>(&entities)?;
        if S::TRACED && self.is_tracing() {
            for &e in &entities {
                self.trace_get_of::<T>(e, true);
            }
        }
        let log = self.changed_log_of::<T>();
        Ok(std::array::from_fn(|i| {
            // SAFETY: each pointer is its entity's initialised `T` (`get_ptr`); the entities
            // are distinct, and values of distinct `(entity, component)` pairs never overlap
            // (the `Storage` contract), so the references are disjoint; `&mut self` keeps
            // every other access to the world out while they live, and the change log is a
            // different field than the storage.
            let value = unsafe { &mut *ptrs[i].as_ptr() };
            <T::Mutability as Writable>::write(
                value,
                <T::Mutability as Writable>::log(log),
                entities[i],
            )
        }))
    }

    /// [`World::get_many_mut`] through [`Mut`] guards, which record a change on the first
    /// write for a type that tracks changes (see [`World::get_mut_tracked`]).
    ///
    /// # Errors
    /// As for [`World::get_many_mut`].
    ///
    /// ```
    /// # use ecs_core::{World, Component, Changed, testing::VecStorage};
    /// #[derive(Component)]
    /// #[component(track_changes)]
    /// struct Pos(i32);
    /// let mut world = World::<VecStorage>::new();
    /// let (a, b) = (world.spawn((Pos(0),)), world.spawn((Pos(5),)));
    /// let mut moved = world.query_state::<&Pos, Changed<Pos>>().unwrap();
    /// moved.iter(&world).for_each(drop); // first run: sees the spawns
    /// let [mut pa, pb] = world.get_many_mut_tracked::<Pos, 2>([a, b]).unwrap();
    /// pa.0 = pb.0; // a write to `a`; `b` is only read
    /// let changed: Vec<i32> = moved.iter(&world).map(|p| p.0).collect();
    /// assert_eq!(changed, vec![5]);
    /// ```
    pub fn get_many_mut_tracked<T: MutableComponent, const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[Mut<'_, T>; N], EcsError> {
        let ptrs = self.many_ptrs::<T, N>(&entities)?;
        let log = self.changed_log_of::<T>();
        Ok(std::array::from_fn(|i| {
            // SAFETY: as in `get_many_mut`.
            let value = unsafe { &mut *ptrs[i].as_ptr() };
            Mut::new(value, log, entities[i])
        }))
    }

    /// `T`'s changed log, created if missing, when `T` tracks changes (and is registered).
    fn changed_log_of<T: Component>(&mut self) -> Option<&ChangeLog> {
        match self.components.id::<T>() {
            Some(id) if tracks_changes::<T>() => {
                Some(self.changes.ensure(id).get(ChangeKind::Changed))
            }
            _ => None,
        }
    }

    /// Pointers to the `T`s of distinct `entities`, or the error for the request.
    fn many_ptrs<T: Component, const N: usize>(
        &self,
        entities: &[Entity; N],
    ) -> Result<[NonNull<T>; N], EcsError> {
        if let Some(repeated) = Entity::first_repeated(entities) {
            return Err(EcsError::DuplicateEntity(repeated));
        }
        let mut ptrs = [NonNull::dangling(); N];
        for (ptr, &entity) in ptrs.iter_mut().zip(entities) {
            *ptr = self
                .get_ptr::<T>(entity)
                .ok_or_else(|| self.missing::<T>(entity))?;
        }
        Ok(ptrs)
    }

    /// Why `entity` has no `T`: stale, or live without one.
    #[cold]
    fn missing<T: Component>(&self, entity: Entity) -> EcsError {
        if self.entities.contains(entity) {
            EcsError::MissingComponent {
                entity,
                component: std::borrow::Cow::Borrowed(std::any::type_name::<T>()),
            }
        } else {
            EcsError::NoSuchEntity(entity)
        }
    }

    /// Shared access to one entity's components, the handle checked once (see
    /// [`EntityRef`]).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle (or one reserved through
    /// [`World::reserve_entity`] and not flushed yet).
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Vel(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Pos(1.0), Vel(2.0)));
    /// let entity = world.entity(e).unwrap();
    /// assert_eq!(entity.id(), e);
    /// assert_eq!(entity.get::<Pos>().unwrap().0 + entity.get::<Vel>().unwrap().0, 3.0);
    /// assert!(entity.contains::<Vel>());
    /// world.despawn(e).unwrap();
    /// assert_eq!(world.entity(e).err(), Some(EcsError::NoSuchEntity(e)));
    /// ```
    pub fn entity(&self, entity: Entity) -> Result<EntityRef<'_, S>, EcsError> {
        EntityRef::new(self, entity)
    }

    /// Exclusive access to one entity: read and write its components, insert and remove
    /// some, despawn it (see [`EntityMut`]). Flushes reserved entities first, as the other
    /// structural operations do.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// struct Shield(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(5),));
    /// let mut entity = world.entity_mut(e).unwrap();
    /// entity.insert(Shield(3));
    /// let absorbed = entity.get::<Shield>().unwrap().0;
    /// entity.get_mut::<Hp>().unwrap().0 += absorbed;
    /// assert_eq!(world.get::<Hp>(e), Some(&Hp(8)));
    /// world.entity_mut(e).unwrap().despawn();
    /// assert_eq!(world.entity_mut(e).err(), Some(EcsError::NoSuchEntity(e)));
    /// ```
    pub fn entity_mut(&mut self, entity: Entity) -> Result<EntityMut<'_, S>, EcsError> {
        EntityMut::new(self, entity)
    }

    /// The item of the only entity matching `Q`, through the world's cached state (one run,
    /// as [`World::query`]): for a query that should match exactly one entity.
    ///
    /// # Errors
    /// [`EcsError::QuerySingle`] when no entity matches (`found: 0`) or more than one does
    /// (`found: 2`); [`EcsError::QueryConflict`] when `Q` would alias a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Camera { zoom: f32 }
    /// let mut world = World::<VecStorage>::new();
    /// assert!(matches!(world.query_single::<&Camera>(), Err(EcsError::QuerySingle { found: 0, .. })));
    /// world.spawn((Camera { zoom: 1.0 },));
    /// world.query_single::<&mut Camera>().unwrap().zoom = 2.0;
    /// assert_eq!(world.query_single::<&Camera>().unwrap().zoom, 2.0);
    /// ```
    pub fn query_single<Q: QueryData + 'static>(&mut self) -> Result<Q::Item<'_>, EcsError> {
        self.query_single_filtered::<Q, ()>()
    }

    /// [`World::query_single`] with a filter `F`.
    ///
    /// # Errors
    /// As for [`World::query_single`].
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, With, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Name(&'static str);
    /// #[derive(Component)]
    /// struct Player;
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Name("goblin"),));
    /// world.spawn((Name("ada"), Player));
    /// assert_eq!(world.query_single_filtered::<&Name, With<Player>>().unwrap().0, "ada");
    /// let err = world.query_single::<&Name>().err().unwrap();
    /// assert_eq!(err.to_string(), format!(
    ///     "expected exactly one entity matching query `{}`, found at least two",
    ///     std::any::type_name::<&Name>(),
    /// ));
    /// ```
    pub fn query_single_filtered<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
    ) -> Result<Q::Item<'_>, EcsError> {
        let index = self.query_index::<Q, F>()?;
        exactly_one::<Q, F, _>(self.query_at::<Q, F>(index))
    }

    /// Iterates a read-only query through a shared world, so it can sit beside
    /// [`World::get`], [`World::entity`] and other `query_ref`s (nested ones included).
    ///
    /// Unlike [`World::query`], which keeps each query type's state in the world (and so
    /// takes `&mut self`), this builds the query's state for the call and the iterator owns
    /// it: nothing is registered or cached, each call resolves the component types and
    /// matches the storage's tables afresh. For a query run every frame, prefer
    /// [`World::query`] or a kept [`QueryState`](crate::QueryState).
    ///
    /// * A component type the world never registered was never stored: a query requiring it
    ///   yields nothing, and in `Option<&T>` or `Without<T>` it is absent everywhere.
    /// * [`Changed<T>`](crate::Changed) and [`Added<T>`](crate::Added) pass every entity that
    ///   has a `T`, as on a query's first run: a state made for one call has no earlier run
    ///   to compare with. Keep a `QueryState` to see changes.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Target(ecs_core::Entity);
    /// let mut world = World::<VecStorage>::new();
    /// let goal = world.spawn((Pos(10.0),));
    /// world.spawn((Pos(4.0), Target(goal)));
    /// world.spawn((Pos(7.0), Target(goal)));
    /// // A query and look-ups through the same shared borrow:
    /// let gaps: Vec<f32> = world
    ///     .query_ref::<(&Pos, &Target)>()
    ///     .map(|(pos, target)| world.get::<Pos>(target.0).unwrap().0 - pos.0)
    ///     .collect();
    /// assert_eq!(gaps, vec![6.0, 3.0]);
    /// ```
    pub fn query_ref<Q: ReadOnlyQueryData + 'static>(&self) -> QueryRefIter<'_, Q, (), S> {
        QueryRefIter::new(self)
    }

    /// [`World::query_ref`] with a filter `F`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, Entity, With, Without, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// struct Dead;
    /// #[derive(Component)]
    /// struct Frozen; // never used: not even registered
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Hp(3),));
    /// world.spawn((Hp(0), Dead));
    /// let world = &world; // shared from here on
    /// assert_eq!(world.query_filtered_ref::<&Hp, Without<Dead>>().count(), 1);
    /// assert_eq!(world.query_filtered_ref::<Entity, Without<Frozen>>().count(), 2);
    /// assert_eq!(world.query_filtered_ref::<Entity, With<Frozen>>().count(), 0);
    /// assert_eq!(world.component_id::<Frozen>(), None);
    /// ```
    pub fn query_filtered_ref<Q: ReadOnlyQueryData + 'static, F: QueryFilter + 'static>(
        &self,
    ) -> QueryRefIter<'_, Q, F, S> {
        QueryRefIter::new(self)
    }
}
