//! Systems: functions over the world whose reads and writes are known from their types.
//!
//! Any function whose arguments are [`SystemParam`]s is a system:
//!
//! ```
//! # use ecs_core::prelude::*;
//! # use ecs_core::testing::VecStorage;
//! #[derive(Component)]
//! #[component(track_changes)]
//! struct Pos(f32);
//! #[derive(Component)]
//! struct Vel(f32);
//! struct Frames(u32);
//!
//! fn movement(mut q: Query<(Mut<Pos>, &Vel), (), VecStorage>, mut frames: ResMut<Frames>) {
//!     q.for_each(|(mut p, v)| p.0 += v.0);
//!     frames.0 += 1;
//! }
//!
//! let mut world = World::<VecStorage>::new();
//! world.insert_resource(Frames(0));
//! world.spawn((Pos(0.0), Vel(1.0)));
//! let mut system = movement.into_system();
//! system.run(&mut world).unwrap();
//! assert_eq!(world.resource::<Frames>().unwrap().0, 1);
//! // What it touches was derived from its argument types:
//! let pos = world.component_id::<Pos>().unwrap();
//! assert_eq!(system.access().components().writes(), &[pos]);
//! ```
//!
//! A [`Schedule`](crate::Schedule) runs many systems, in parallel where their accesses allow.

mod access;
mod exclusive;
mod function;
mod local;
mod output;
mod param;
mod param_set;
mod query;

pub use access::SystemAccess;
pub use exclusive::{ExclusiveSystem, IsExclusive};
pub use function::{FunctionSystem, IsFunction, SystemParamFunction};
pub use local::Local;
pub use output::{BoxedError, Failure, SystemOutput};
pub(crate) use param::conflict;
pub use param::{SystemParam, SystemParamItem};
pub use param_set::ParamSet;
pub use query::Query;

use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::World;

/// A unit of work over a world of backend `S`, with a declared access.
///
/// Function systems ([`IntoSystem`]) implement it for you, with an access derived from their
/// parameter types. Implementing it by hand is `unsafe`: a [`Schedule`](crate::Schedule) runs
/// systems whose accesses do not conflict on several threads at once, trusting
/// [`System::access`]; a system that reads or writes more than it declares would race.
///
/// # Safety
/// Implementors promise, and the schedule relies on it for memory safety:
/// * From a successful [`System::initialize`] on, [`System::access`] names every component
///   and resource [`System::run_unsafe`] may read, watch or write, in the role it touches it
///   (a write is declared as a write), and it does not change while the system is in a
///   schedule.
/// * `run_unsafe` touches the world only as its access says, and changes its structure only
///   through the `&World`-safe means (entity reservation, change logs).
/// * [`System::is_initialized`] is true exactly when `initialize` has succeeded. Given a world
///   other than the one it was initialised for (whose component ids its access names),
///   `run_unsafe` touches nothing of it (function systems panic).
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::testing::VecStorage;
/// # use ecs_core::system::SystemAccess;
/// /// Counts its own runs; touches no component or resource, and declares nothing.
/// struct Ticker { runs: u32, ready: bool, access: SystemAccess }
///
/// // SAFETY: `run_unsafe` touches nothing of the world, so the empty access is exact.
/// unsafe impl System<VecStorage> for Ticker {
///     fn name(&self) -> &str { "ticker" }
///     fn initialize(&mut self, _: &mut World<VecStorage>) -> Result<(), EcsError> {
///         self.ready = true;
///         Ok(())
///     }
///     fn is_initialized(&self) -> bool { self.ready }
///     fn access(&self) -> &SystemAccess { &self.access }
///     unsafe fn run_unsafe(&mut self, _: &World<VecStorage>) { self.runs += 1; }
///     fn apply(&mut self, _: &mut World<VecStorage>) {}
///     fn discard(&mut self, _: &mut World<VecStorage>) {}
/// }
///
/// let mut world = World::<VecStorage>::new();
/// let mut ticker = Ticker { runs: 0, ready: false, access: SystemAccess::default() };
/// ticker.run(&mut world).unwrap();
/// assert_eq!(ticker.runs, 1);
/// ```
///
/// Without `unsafe`, a hand-written system does not compile:
///
/// ```compile_fail,E0200
/// # use ecs_core::prelude::*;
/// # use ecs_core::testing::VecStorage;
/// # use ecs_core::system::SystemAccess;
/// struct Liar(SystemAccess);
/// impl System<VecStorage> for Liar {
///     fn name(&self) -> &str { "liar" }
///     fn initialize(&mut self, _: &mut World<VecStorage>) -> Result<(), EcsError> { Ok(()) }
///     fn is_initialized(&self) -> bool { true }
///     fn access(&self) -> &SystemAccess { &self.0 }
///     unsafe fn run_unsafe(&mut self, _: &World<VecStorage>) {}
///     fn apply(&mut self, _: &mut World<VecStorage>) {}
///     fn discard(&mut self, _: &mut World<VecStorage>) {}
/// }
/// ```
pub unsafe trait System<S: Storage>: Send + Sync + 'static {
    /// A name for messages (a function system's is its path).
    fn name(&self) -> &str;

    /// Prepares the system's state for `world` and records its access; does nothing if it
    /// is already initialised.
    ///
    /// # Errors
    /// [`EcsError::SystemConflict`] when its parameters conflict with each other.
    fn initialize(&mut self, world: &mut World<S>) -> Result<(), EcsError>;

    /// Whether [`System::initialize`] has succeeded.
    fn is_initialized(&self) -> bool;

    /// What the system reads and writes (empty before initialisation).
    fn access(&self) -> &SystemAccess;

    /// Runs the system through a shared world; deferred work waits for [`System::apply`].
    ///
    /// # Safety
    /// The system is initialised ([`System::is_initialized`]); for the duration of the call
    /// nothing else accesses what [`System::access`] names in a conflicting way, and the
    /// world's structure does not change. (Given another world than the one it was
    /// initialised for, the system touches nothing: the trait's contract.)
    unsafe fn run_unsafe(&mut self, world: &World<S>);

    /// Checks, before a schedule runs, that the system can fetch its parameters (the
    /// resources it needs exist). The default has nothing to check.
    ///
    /// # Errors
    /// [`EcsError::MissingResource`] naming the system.
    fn validate(&self, world: &World<S>) -> Result<(), EcsError> {
        let _ = world;
        Ok(())
    }

    /// Applies deferred work (commands) to the world: the sync point.
    fn apply(&mut self, world: &mut World<S>);

    /// Drops deferred work instead of applying it (after the run panicked).
    fn discard(&mut self, world: &mut World<S>);

    /// Moves the commands the last run queued into `into` instead of applying them: how an
    /// observer's commands wait for the operation that ran it to end. The default moves
    /// nothing (a system with other deferred work applies it with [`System::apply`]).
    fn take_commands(&mut self, into: &mut crate::commands::CommandQueue) {
        let _ = into;
    }

    /// The error the last run returned, taken (a system that returns `Result`; see
    /// [`SystemOutput`]). The default never fails.
    fn take_failure(&mut self) -> Option<BoxedError> {
        None
    }

    /// Initialises if needed, runs with exclusive access, and applies deferred work.
    ///
    /// # Errors
    /// As for [`System::initialize`]; and [`EcsError::Run`] with the error the system
    /// returned (its commands applied all the same).
    fn run(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        self.initialize(world)?;
        world.flush();
        // SAFETY: `initialize` returned `Ok`, so the system is initialised (trait contract;
        // one initialised for another world touches nothing of this one); `&mut World`
        // excludes every other access.
        unsafe { self.run_unsafe(world) };
        self.apply(world);
        match self.take_failure() {
            None => Ok(()),
            Some(error) => Err(EcsError::Run(vec![crate::schedule::RunError {
                system: self.name().to_owned(),
                kind: crate::schedule::RunErrorKind::Failed(Failure::new(error)),
            }])),
        }
    }
}

/// Conversion into a [`System`]: implemented by functions of [`SystemParam`]s, and by every
/// [`System`] (as itself), so a hand-written system is added to a schedule like a function.
/// `Marker` only tells the implementations apart (it is inferred).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system",
    label = "not a system",
    note = "a system is a function whose every argument is a system parameter (`Query<..>`, \
            `Res<R>`, `ResMut<R>`, `Commands`, `Local<T>`, events, `ParamSet<(..)>`), a \
            function of `&mut World` alone (exclusive), or a type implementing `System`"
)]
pub trait IntoSystem<S: Storage, Marker> {
    /// The system type.
    type System: System<S>;

    /// Makes the system.
    fn into_system(self) -> Self::System;
}

/// The [`IntoSystem`] marker of a type that is a [`System`] already.
pub struct IsSystem;

impl<S: Storage, T: System<S>> IntoSystem<S, IsSystem> for T {
    type System = T;

    fn into_system(self) -> T {
        self
    }
}
