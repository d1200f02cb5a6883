//! Entity disabling: [`Disabled`] hides an entity from every query that does not ask for it.
//!
//! A disabled entity keeps its handle, its components, its place in the hierarchy and its
//! named instances; `World::get`, `World::entity` and the other by-entity calls still reach
//! it. Only queries leave it out: a query skips the entities holding [`Disabled`] unless it
//! names `Disabled` itself, as an item (`Has<Disabled>`, `Option<&Disabled>`, `&Disabled`)
//! or in a filter (`With<Disabled>`, `Without<Disabled>`, or [`Allow<Disabled>`](crate::query::Allow), which
//! admits both kinds). So a pause menu, a pooled bullet or a level section that is not
//! loaded yet stays whole and out of every system's way, without despawning and spawning
//! it again.
//!
//! ```
//! # use ecs_core::{World, Component, Disabled, query::Allow, testing::VecStorage};
//! #[derive(Component)]
//! struct Hp(u32);
//! let mut world = World::<VecStorage>::new();
//! let a = world.spawn((Hp(1),));
//! let b = world.spawn((Hp(2),));
//! world.disable(b).unwrap();
//! assert_eq!(world.query::<&Hp>().map(|hp| hp.0).sum::<u32>(), 1);
//! assert_eq!(world.get::<Hp>(b).map(|hp| hp.0), Some(2)); // still there
//! let all = world.query_filtered::<&Hp, Allow<Disabled>>().map(|hp| hp.0).sum::<u32>();
//! assert_eq!(all, 3);
//! world.enable(b).unwrap();
//! assert_eq!(world.query::<&Hp>().count(), 2);
//! # let _ = a;
//! ```
//!
//! # What it costs
//! Nothing until the first use: before anything registers [`Disabled`] (a `disable`, an
//! insert, a query naming it), queries check nothing. From then on each query state that
//! does not name it carries one more excluded slot. A table backend answers it per table
//! (tables holding `Disabled` are never matched: free per row); a sparse-set backend per
//! chunk: while no entity is disabled the set is empty and the chunk is walked whole, and
//! while some are, the chunk's rows are cut into runs around the disabled ones (one look-up
//! per row, outside the query's own row loop). A look-up by entity (`get`, a view) asks
//! the storage once more. A state built before the first registration notices it on its
//! next run or look-up: the registry carries a key that the state compares anyway, to
//! check that it is used with its own world.
//!
//! `Disabled` is a sparse-set component in a hybrid world, so that disabling and enabling
//! move no table row, and so that a query over sparse components stays one over sparse
//! sets.
//!
//! Disabling is not inherited: `disable(parent)` leaves its children enabled (disable each,
//! walking [`World::descendants`](crate::World::descendants), to hide a subtree).

use crate::component::{clone_value, CloneFn, Component, Immutable, StorageKind};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::World;

/// The marker of a disabled entity: queries that do not name it skip the entities holding
/// it (see [`crate::disabled`]).
///
/// Insert it (or call [`World::disable`]) to disable an entity, remove it (or call
/// [`World::enable`]) to enable it again. A clone of a disabled entity is disabled too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Disabled;

impl Component for Disabled {
    type Mutability = Immutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
    const CLONE: Option<CloneFn> = Some(clone_value::<Disabled>);
}

impl<S: Storage> World<S> {
    /// Disables `entity`: every query that does not name [`Disabled`] skips it from now on
    /// (the same as inserting `Disabled`). Disabling a disabled entity does nothing.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Pos(0.0),));
    /// world.disable(e).unwrap();
    /// assert!(world.is_disabled(e));
    /// assert_eq!(world.query::<&Pos>().count(), 0);
    /// ```
    pub fn disable(&mut self, entity: Entity) -> Result<(), EcsError> {
        self.insert(entity, Disabled).map(drop)
    }

    /// Enables a disabled `entity` again (the same as removing [`Disabled`]). Enabling an
    /// entity that is not disabled does nothing.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    pub fn enable(&mut self, entity: Entity) -> Result<(), EcsError> {
        if !self.contains(entity) {
            return Err(EcsError::NoSuchEntity(entity));
        }
        if self.has::<Disabled>(entity) {
            self.remove::<Disabled>(entity)?;
        }
        Ok(())
    }

    /// Whether `entity` is live and disabled.
    pub fn is_disabled(&self, entity: Entity) -> bool {
        self.has::<Disabled>(entity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::Allow;
    use crate::testing::VecStorage;
    use crate::Has;

    #[derive(Debug, PartialEq)]
    struct Hp(u32);
    impl Component for Hp {
        type Mutability = crate::component::Mutable;
    }

    fn sum<F: crate::query::QueryFilter + 'static>(world: &mut World<VecStorage>) -> u32 {
        world.query_filtered::<&Hp, F>().map(|hp| hp.0).sum()
    }

    #[test]
    fn queries_skip_disabled_entities_unless_they_name_the_marker() {
        let mut world = World::<VecStorage>::new();
        let a = world.spawn((Hp(1),));
        let b = world.spawn((Hp(2),));
        world.disable(b).unwrap();
        assert!(world.is_disabled(b) && !world.is_disabled(a));
        assert_eq!(sum::<()>(&mut world), 1);
        assert_eq!(sum::<Allow<Disabled>>(&mut world), 3);
        assert_eq!(sum::<crate::With<Disabled>>(&mut world), 2);
        let flags: Vec<bool> = world
            .query::<Has<Disabled>>()
            .collect::<Vec<_>>()
            .into_iter()
            .collect();
        assert_eq!(flags.iter().filter(|d| **d).count(), 1);
        world.enable(b).unwrap();
        world.enable(b).unwrap();
        assert_eq!(sum::<()>(&mut world), 3);
    }

    #[test]
    fn a_state_built_before_the_first_disable_catches_up() {
        let mut world = World::<VecStorage>::new();
        let a = world.spawn((Hp(1),));
        let b = world.spawn((Hp(2),));
        let mut state = world.query_state::<&Hp, ()>().unwrap();
        assert_eq!(state.iter(&world).count(), 2);
        world.disable(b).unwrap();
        // A look-up before any run already leaves `b` out.
        assert!(state.get(&world, b).is_none());
        assert_eq!(state.get(&world, a), Some(&Hp(1)));
        assert_eq!(state.iter(&world).map(|hp| hp.0).sum::<u32>(), 1);
        assert!(state.get(&world, b).is_none());
        let view = state.view(&world);
        assert!(view.get(b).is_none() && view.get(a).is_some());
    }

    #[test]
    fn disabling_a_stale_handle_is_an_error() {
        let mut world = World::<VecStorage>::new();
        let e = world.spawn(());
        world.despawn(e).unwrap();
        assert_eq!(world.disable(e), Err(EcsError::NoSuchEntity(e)));
        assert_eq!(world.enable(e), Err(EcsError::NoSuchEntity(e)));
        assert!(!world.is_disabled(e));
    }
}
