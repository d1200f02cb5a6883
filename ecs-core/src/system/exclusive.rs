//! Exclusive systems: functions of `&mut World`, which run alone.

use std::borrow::Cow;
use std::marker::PhantomData;

use super::{Failure, IntoSystem, System, SystemAccess, SystemOutput};
use crate::error::EcsError;
use crate::schedule::{RunError, RunErrorKind};
use crate::storage::Storage;
use crate::world::World;

/// Tags the [`IntoSystem`] marker of functions taking `&mut World`,
/// `(IsExclusive, fn() -> Out)`.
pub struct IsExclusive;

/// A [`System`] made from a function taking `&mut World<S>`: it may do anything to the world
/// (spawn, despawn, insert, run queries and other schedules), so a schedule runs it alone,
/// after the systems before it have finished and their commands were applied, and before
/// the systems after it start. It returns `()` or a `Result` (see [`SystemOutput`]).
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::testing::VecStorage;
/// #[derive(Component)]
/// struct Hp(u32);
/// fn reap(world: &mut World<VecStorage>) {
///     let dead: Vec<Entity> = world.query::<(Entity, &Hp)>().filter(|(_, hp)| hp.0 == 0).map(|(e, _)| e).collect();
///     for e in dead {
///         world.despawn(e).unwrap();
///     }
/// }
/// let mut world = World::<VecStorage>::new();
/// world.spawn((Hp(0),));
/// world.spawn((Hp(3),));
/// let mut schedule = Schedule::<VecStorage>::new();
/// schedule.add_system(reap);
/// schedule.run(&mut world);
/// assert_eq!(world.len(), 1);
/// ```
pub struct ExclusiveSystem<S: Storage, F, Out = ()> {
    func: F,
    name: Cow<'static, str>,
    access: SystemAccess,
    marker: PhantomData<fn() -> (S, Out)>,
}

impl<S: Storage, Out: SystemOutput, F: FnMut(&mut World<S>) -> Out + Send + Sync + 'static>
    IntoSystem<S, (IsExclusive, fn() -> Out)> for F
{
    type System = ExclusiveSystem<S, F, Out>;

    fn into_system(self) -> ExclusiveSystem<S, F, Out> {
        ExclusiveSystem {
            func: self,
            name: Cow::Borrowed(std::any::type_name::<F>()),
            access: SystemAccess::exclusive(),
            marker: PhantomData,
        }
    }
}

// SAFETY: the access is exclusive, which conflicts with every other access, so no system
// runs beside this one; `run_unsafe` touches nothing (it panics: an exclusive system needs
// `&mut World` and runs through `run`, as the schedule does).
unsafe impl<S: Storage, Out: SystemOutput, F: FnMut(&mut World<S>) -> Out + Send + Sync + 'static>
    System<S> for ExclusiveSystem<S, F, Out>
{
    fn name(&self) -> &str {
        &self.name
    }

    fn initialize(&mut self, _: &mut World<S>) -> Result<(), EcsError> {
        Ok(())
    }

    fn is_initialized(&self) -> bool {
        true
    }

    fn access(&self) -> &SystemAccess {
        &self.access
    }

    unsafe fn run_unsafe(&mut self, _: &World<S>) {
        panic!(
            "exclusive system `{}` needs `&mut World`: run it with `System::run`",
            self.name
        );
    }

    fn apply(&mut self, _: &mut World<S>) {}

    fn discard(&mut self, _: &mut World<S>) {}

    fn run(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        world.flush();
        match (self.func)(world).into_failure() {
            None => Ok(()),
            Some(error) => Err(EcsError::Run(vec![RunError {
                system: self.name.to_string(),
                kind: RunErrorKind::Failed(Failure::new(error)),
            }])),
        }
    }
}
