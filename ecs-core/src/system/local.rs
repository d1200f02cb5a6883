//! [`Local`]: state a system keeps for itself between runs.

use std::ops::{Deref, DerefMut};

use super::{SystemAccess, SystemParam};
use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::World;

/// A value private to one system, kept between its runs (a counter, a scratch buffer, a
/// timer). It starts as `T::default()` when the system is initialised; two systems with a
/// `Local<T>` of the same type each have their own.
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::system::Local;
/// # use ecs_core::testing::VecStorage;
/// struct Ticks(u32);
/// fn count(mut runs: Local<u32>, mut ticks: ResMut<Ticks>) {
///     *runs += 1;
///     ticks.0 = *runs;
/// }
/// let mut world = World::<VecStorage>::new();
/// world.insert_resource(Ticks(0));
/// let mut schedule = Schedule::<VecStorage>::new();
/// schedule.add_system(count);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Ticks>().unwrap().0, 2);
/// ```
pub struct Local<'s, T: Send + Sync + Default + 'static>(&'s mut T);

impl<T: Send + Sync + Default + 'static> Deref for Local<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: Send + Sync + Default + 'static> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

// SAFETY: touches nothing of the world: the value lives in the system's own state, which
// only this parameter's item borrows.
unsafe impl<S: Storage, T: Send + Sync + Default + 'static> SystemParam<S> for Local<'_, T> {
    type State = T;
    type Item<'w, 's> = Local<'s, T>;

    fn init(_: &mut World<S>, _: &mut SystemAccess) -> Result<T, EcsError> {
        Ok(T::default())
    }

    unsafe fn fetch<'s>(state: &'s mut T, _: &World<S>) -> Local<'s, T> {
        Local(state)
    }
}
