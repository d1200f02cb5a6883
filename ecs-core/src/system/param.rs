//! [`SystemParam`]: what a function system's arguments may be, and what each one accesses.

use std::any::type_name;

use super::SystemAccess;
use crate::commands::{CommandQueue, Commands};
use crate::error::EcsError;
use crate::resource::{Res, ResMut, Resource};
use crate::storage::Storage;
use crate::world::World;

/// An argument of a function system: `Query<Q, F>`, `Res<R>`, `ResMut<R>`,
/// `Option<Res<R>>`, `Option<ResMut<R>>`, `Commands`, and tuples of them.
///
/// `init` runs once, with the world, and records what the parameter touches; the schedule
/// reads those records to decide which systems may run in parallel. `fetch` runs before
/// every run and hands the function its argument.
///
/// # Safety
/// * `init` records in `access` every component and resource `fetch`'s item may touch, in
///   the role it touches it (write, or read/watch).
/// * `fetch`'s item touches nothing else, and changes the world's structure only through
///   `&World`-safe means (entity reservation, change logs).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a system parameter",
    label = "not a system parameter",
    note = "system parameters are `Query<..>`, `Res<R>`, `ResMut<R>`, `Option<Res<R>>`, \
            `Option<ResMut<R>>`, `Commands`, `Local<T>`, `EventReader<E>`, `EventWriter<E>`, \
            `ParamSet<(..)>` and tuples of them; a function of `&mut World` is an exclusive \
            system"
)]
pub unsafe trait SystemParam<S: Storage>: Sized {
    /// What the parameter keeps between runs (a query state, a command queue).
    type State: Send + Sync + 'static;
    /// The argument handed to the function: `Self` with the run's lifetimes.
    type Item<'w, 's>;

    /// Builds the state and records the parameter's access.
    ///
    /// # Errors
    /// An [`EcsError`] when the parameter is invalid or conflicts with another one of the
    /// same system (its `SystemConflict` system name is filled in by the caller).
    fn init(world: &mut World<S>, access: &mut SystemAccess) -> Result<Self::State, EcsError>;

    /// The argument for one run.
    ///
    /// # Safety
    /// `state` was built by `init` against `world`; for `'w`, nothing else accesses what
    /// `init` recorded in a conflicting way, and the world's structure does not change.
    unsafe fn fetch<'w, 's>(state: &'s mut Self::State, world: &'w World<S>) -> Self::Item<'w, 's>;

    /// Checks, before a schedule runs, that the item can be fetched (a `Res<R>`'s resource
    /// exists), so the problem is reported as an error instead of a panic mid-run. The
    /// default has nothing to check.
    ///
    /// # Errors
    /// [`EcsError::MissingResource`] (its system name left empty for the caller to fill).
    fn validate(state: &Self::State, world: &World<S>) -> Result<(), EcsError> {
        let _ = (state, world);
        Ok(())
    }

    /// Applies deferred work at the sync point (commands).
    fn apply(state: &mut Self::State, world: &mut World<S>) {
        let _ = (state, world);
    }

    /// Drops deferred work of a run that panicked.
    fn discard(state: &mut Self::State, world: &mut World<S>) {
        let _ = (state, world);
    }

    /// Moves the commands queued by a run into `into` instead of applying them (an
    /// observer's run: its commands wait for the operation that fired it to end). A
    /// parameter whose only deferred work is commands implements it; the default has none.
    fn take_commands(state: &mut Self::State, into: &mut CommandQueue) {
        let _ = (state, into);
    }
}

/// The argument type of parameter `P` for one run.
pub type SystemParamItem<'w, 's, P, S> = <P as SystemParam<S>>::Item<'w, 's>;

/// A conflict inside one system, before its name is known.
pub(crate) fn conflict(reason: String) -> EcsError {
    EcsError::SystemConflict {
        system: String::new(),
        reason,
    }
}

/// `Ok` when the world holds resource `R`.
fn require<R: Resource, S: Storage>(world: &World<S>) -> Result<(), EcsError> {
    match world.contains_resource::<R>() {
        true => Ok(()),
        false => Err(EcsError::MissingResource {
            system: String::new(),
            resource: type_name::<R>().to_owned(),
        }),
    }
}

fn missing<R>() -> ! {
    panic!(
        "resource {} does not exist: insert it with `World::insert_resource` before running \
         the system, or take `Option<Res<R>>`",
        type_name::<R>()
    )
}

// SAFETY: records a read of `R`; the item reads only `R`.
unsafe impl<S: Storage, R: Resource> SystemParam<S> for Res<'_, R> {
    type State = ();
    type Item<'w, 's> = Res<'w, R>;

    fn init(_: &mut World<S>, access: &mut SystemAccess) -> Result<(), EcsError> {
        access.add_resource_read::<R>().map_err(conflict)
    }

    fn validate(_: &(), world: &World<S>) -> Result<(), EcsError> {
        require::<R, S>(world)
    }

    unsafe fn fetch<'w>(_: &mut (), world: &'w World<S>) -> Res<'w, R> {
        let value = world.resources().get::<R>();
        Res {
            value: value.unwrap_or_else(|| missing::<R>()),
        }
    }
}

// SAFETY: records a read of `R`; the item reads only `R`.
unsafe impl<S: Storage, R: Resource> SystemParam<S> for Option<Res<'_, R>> {
    type State = ();
    type Item<'w, 's> = Option<Res<'w, R>>;

    fn init(_: &mut World<S>, access: &mut SystemAccess) -> Result<(), EcsError> {
        access.add_resource_read::<R>().map_err(conflict)
    }

    unsafe fn fetch<'w>(_: &mut (), world: &'w World<S>) -> Option<Res<'w, R>> {
        world.resources().get::<R>().map(|value| Res { value })
    }
}

// SAFETY: records a write of `R`; the item touches only `R`.
unsafe impl<S: Storage, R: Resource> SystemParam<S> for ResMut<'_, R> {
    type State = ();
    type Item<'w, 's> = ResMut<'w, R>;

    fn init(_: &mut World<S>, access: &mut SystemAccess) -> Result<(), EcsError> {
        access.add_resource_write::<R>().map_err(conflict)
    }

    fn validate(_: &(), world: &World<S>) -> Result<(), EcsError> {
        require::<R, S>(world)
    }

    unsafe fn fetch<'w>(_: &mut (), world: &'w World<S>) -> ResMut<'w, R> {
        // SAFETY: the write of `R` was recorded; the caller guarantees nothing else accesses
        // it for `'w`.
        let value = unsafe { world.resources().get_mut_unchecked::<R>() };
        ResMut {
            value: value.unwrap_or_else(|| missing::<R>()),
        }
    }
}

// SAFETY: records a write of `R`; the item touches only `R`.
unsafe impl<S: Storage, R: Resource> SystemParam<S> for Option<ResMut<'_, R>> {
    type State = ();
    type Item<'w, 's> = Option<ResMut<'w, R>>;

    fn init(_: &mut World<S>, access: &mut SystemAccess) -> Result<(), EcsError> {
        access.add_resource_write::<R>().map_err(conflict)
    }

    unsafe fn fetch<'w>(_: &mut (), world: &'w World<S>) -> Option<ResMut<'w, R>> {
        // SAFETY: as for `ResMut<R>`.
        let value = unsafe { world.resources().get_mut_unchecked::<R>() };
        value.map(|value| ResMut { value })
    }
}

// SAFETY: touches no component or resource: it reserves entity ids (atomic, through `&`)
// and fills its own queue, applied at the sync point with `&mut World`.
unsafe impl<S: Storage> SystemParam<S> for Commands<'_, '_> {
    type State = CommandQueue;
    type Item<'w, 's> = Commands<'w, 's>;

    fn init(_: &mut World<S>, _: &mut SystemAccess) -> Result<CommandQueue, EcsError> {
        Ok(CommandQueue::new())
    }

    unsafe fn fetch<'w, 's>(state: &'s mut CommandQueue, world: &'w World<S>) -> Commands<'w, 's> {
        Commands::new(state, world)
    }

    fn apply(state: &mut CommandQueue, world: &mut World<S>) {
        world.apply_recording(state);
    }

    fn take_commands(state: &mut CommandQueue, into: &mut CommandQueue) {
        into.append(state);
    }

    fn discard(state: &mut CommandQueue, world: &mut World<S>) {
        state.discard(world);
    }
}

macro_rules! tuple_param {
    ($($name:ident $index:tt),*) => {
        // SAFETY: each part records and touches its own access.
        unsafe impl<S: Storage, $($name: SystemParam<S>),*> SystemParam<S> for ($($name,)*) {
            type State = ($($name::State,)*);
            type Item<'w, 's> = ($($name::Item<'w, 's>,)*);


            #[allow(unused_variables, clippy::unused_unit)]
            fn init(world: &mut World<S>, access: &mut SystemAccess) -> Result<Self::State, EcsError> {
                Ok(($($name::init(world, access)?,)*))
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            unsafe fn fetch<'w, 's>(state: &'s mut Self::State, world: &'w World<S>) -> Self::Item<'w, 's> {
                // SAFETY: forwarded contract; the parts' states are disjoint fields.
                unsafe { ($($name::fetch(&mut state.$index, world),)*) }
            }

            #[allow(unused_variables)]
            fn validate(state: &Self::State, world: &World<S>) -> Result<(), EcsError> {
                $($name::validate(&state.$index, world)?;)*
                Ok(())
            }

            #[allow(unused_variables)]
            fn apply(state: &mut Self::State, world: &mut World<S>) {
                $($name::apply(&mut state.$index, world);)*
            }

            #[allow(unused_variables)]
            fn discard(state: &mut Self::State, world: &mut World<S>) {
                $($name::discard(&mut state.$index, world);)*
            }

            #[allow(unused_variables)]
            fn take_commands(state: &mut Self::State, into: &mut CommandQueue) {
                $($name::take_commands(&mut state.$index, into);)*
            }
        }
    };
}

tuple_param!();
tuple_param!(A 0);
tuple_param!(A 0, B 1);
tuple_param!(A 0, B 1, C 2);
tuple_param!(A 0, B 1, C 2, D 3);
tuple_param!(A 0, B 1, C 2, D 3, E 4);
tuple_param!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_param!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_param!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_param!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_param!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_param!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_param!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
