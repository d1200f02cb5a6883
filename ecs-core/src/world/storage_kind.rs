//! Where a component's values are kept, and moving them while the world runs:
//! [`World::storage_kind`] and [`World::set_storage`].
//!
//! Only the hybrid backend keeps both kinds of storage, so only it can move a component:
//! every value of the component goes from the tables into its sparse set (each entity's row
//! moves to the table without it) or back (each entity's row moves to the table with it).
//! Entities keep their handles and values, and change detection sees no change: a move adds,
//! removes and writes nothing, so no hook or observer runs and no `Changed` reader sees it.
//! Every query plan made before the move is made again on its next run.

use super::World;
use crate::component::{Component, ComponentId, StorageKind};
use crate::error::EcsError;
use crate::storage::Storage;

impl<S: Storage> World<S> {
    /// Where this world's backend keeps `T`'s values; `None` before `T` is registered. The
    /// archetype backend answers [`StorageKind::Table`], and the sparse and array backends
    /// [`StorageKind::Sparse`], for every component; the hybrid answers each component's
    /// declared kind, or the kind [`World::set_storage`] moved it to.
    ///
    /// ```
    /// # use ecs_core::{World, Component, StorageKind, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// let mut world = World::<VecStorage>::new();
    /// assert_eq!(world.storage_kind::<Pos>(), None);
    /// world.spawn((Pos(1.0),));
    /// assert_eq!(world.storage_kind::<Pos>(), Some(StorageKind::Table));
    /// ```
    pub fn storage_kind<T: Component>(&self) -> Option<StorageKind> {
        self.storage_kind_by_id(self.components.id::<T>()?)
    }

    /// [`World::storage_kind`] by component id (run-time and named components too); `None`
    /// for an id this world did not hand out.
    pub fn storage_kind_by_id(&self, id: ComponentId) -> Option<StorageKind> {
        self.components.get(id)?;
        Some(self.storage.storage_kind(id, &self.components))
    }

    /// Moves every value of `T` into storage `kind` while the world runs (the hybrid
    /// backend): from the tables into `T`'s sparse set, or back. A level build that adds
    /// and removes `T` constantly wants it sparse; the play phase that joins it with table
    /// components every frame wants it in the tables. Entities keep their handles, values,
    /// relationships, named instances and change state (no hook, observer or `Changed`
    /// reader sees the move); every query is planned again on its next run. Cost: one row
    /// move per entity holding `T`, plus one look-up per table touched. Moving to the kind
    /// `T` already has does nothing.
    ///
    /// `T` must be declared movable (`#[component(movable)]`, see
    /// [`Component::MOVABLE`]): other types are read through code that fixed their storage
    /// at compile time.
    ///
    /// # Errors
    /// [`EcsError::Storage`], with nothing moved, when the backend keeps every component in
    /// one kind of storage (archetype, sparse, array), when `T` is not movable, or when an
    /// owning group holds `T` and `kind` is tables (a group keeps only sparse components and
    /// lasts as long as the world). `T` is registered either way.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, StorageKind, testing::VecStorage};
    /// #[derive(Component)]
    /// #[component(movable)]
    /// struct Burning(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Burning(3),));
    /// // The reference backend has one kind of storage: the world is unchanged.
    /// let err = world.set_storage::<Burning>(StorageKind::Sparse).unwrap_err();
    /// assert!(matches!(err, EcsError::Storage { .. }));
    /// assert_eq!(world.storage_kind::<Burning>(), Some(StorageKind::Table));
    /// ```
    pub fn set_storage<T: Component>(&mut self, kind: StorageKind) -> Result<(), EcsError> {
        let id = self.components.register::<T>();
        self.set_storage_by_id(id, kind)
    }

    /// [`World::set_storage`] by component id: run-time components (always movable) and
    /// named instances (movable when their type is; each instance moves on its own, and one
    /// registered after its type moved starts where the type is kept then).
    ///
    /// # Errors
    /// As [`World::set_storage`]; [`EcsError::UnknownComponent`] for an id this world did
    /// not hand out.
    pub fn set_storage_by_id(
        &mut self,
        id: ComponentId,
        kind: StorageKind,
    ) -> Result<(), EcsError> {
        self.flush();
        let info = self
            .components
            .get(id)
            .ok_or(EcsError::UnknownComponent(id))?;
        if !info.movable() {
            return Err(EcsError::Storage {
                component: info.name().to_owned(),
                reason: "the type is not movable: declare it `#[component(movable)]` so that \
                         its reads ask where it is kept"
                    .to_owned(),
            });
        }
        if self.storage.storage_kind(id, &self.components) == kind {
            return Ok(());
        }
        // SAFETY: `id` is registered in the world's registry, which records its current
        // kind and says it is movable (checked above); on `Ok` the registry records `kind`
        // for it next, before any other storage call.
        unsafe { self.storage.set_storage(id, kind, &self.components)? };
        self.components.set_storage(id, kind);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::VecStorage;
    use crate::{Component, EcsError, StorageKind, World};

    #[derive(Component, Debug, PartialEq)]
    struct Fixed(u8);

    #[derive(Component, Debug, PartialEq)]
    #[component(movable)]
    struct Moving(u8);

    #[test]
    fn a_type_not_declared_movable_is_refused_by_name() {
        let mut world = World::<VecStorage>::new();
        let e = world.spawn((Fixed(1),));
        let err = world.set_storage::<Fixed>(StorageKind::Sparse).unwrap_err();
        let EcsError::Storage { component, reason } = &err else {
            panic!("{err:?}");
        };
        assert!(
            component.ends_with("Fixed") && reason.contains("movable"),
            "{err}"
        );
        assert_eq!(world.get::<Fixed>(e), Some(&Fixed(1)));
    }

    #[test]
    fn a_backend_with_one_storage_refuses_and_moving_to_the_same_kind_is_a_no_op() {
        let mut world = World::<VecStorage>::new();
        let e = world.spawn((Moving(2),));
        let err = world
            .set_storage::<Moving>(StorageKind::Sparse)
            .unwrap_err();
        assert!(err.to_string().contains("one kind of storage"), "{err}");
        assert_eq!(world.set_storage::<Moving>(StorageKind::Table), Ok(()));
        assert_eq!(world.storage_kind::<Moving>(), Some(StorageKind::Table));
        assert_eq!(world.get::<Moving>(e), Some(&Moving(2)));
    }

    #[test]
    fn the_stand_in_of_unregistered_types_never_moves() {
        let mut world = World::<VecStorage>::new();
        let stand_in = crate::component::UNSTORED;
        let err = world
            .set_storage_by_id(stand_in, StorageKind::Sparse)
            .unwrap_err();
        assert!(matches!(&err, EcsError::Storage { reason, .. } if reason.contains("movable")));
    }

    #[test]
    fn unknown_ids_are_errors_and_unregistered_types_have_no_kind() {
        let mut world = World::<VecStorage>::new();
        assert_eq!(world.storage_kind::<Moving>(), None);
        let stranger = crate::component::ComponentId::new(999);
        assert_eq!(world.storage_kind_by_id(stranger), None);
        assert_eq!(
            world.set_storage_by_id(stranger, StorageKind::Sparse),
            Err(EcsError::UnknownComponent(stranger))
        );
    }
}
