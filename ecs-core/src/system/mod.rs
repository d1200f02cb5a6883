//! Systems: functions over the world whose reads and writes are known from their types.
//!
//! Any function whose arguments are [`SystemParam`]s is a system:
//!
//! ```
//! # use ecs_core::prelude::*;
//! # use ecs_core::testing::VecStorage;
//! struct Pos(f32);
//! impl Component for Pos { const TRACK_CHANGES: bool = true; }
//! struct Vel(f32);
//! impl Component for Vel {}
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
mod function;
mod param;
mod query;

pub use access::SystemAccess;
pub use function::{FunctionSystem, SystemParamFunction};
pub use param::{SystemParam, SystemParamItem};
pub use query::Query;

use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::World;

/// A unit of work over a world of backend `S`, with a declared access.
pub trait System<S: Storage>: Send + Sync + 'static {
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
    /// The system is initialised for `world`; for the duration of the call nothing else
    /// accesses what [`System::access`] names in a conflicting way, and the world's structure
    /// does not change.
    unsafe fn run_unsafe(&mut self, world: &World<S>);

    /// Applies deferred work (commands) to the world: the sync point.
    fn apply(&mut self, world: &mut World<S>);

    /// Drops deferred work instead of applying it (after the run panicked).
    fn discard(&mut self, world: &mut World<S>);

    /// Initialises if needed, runs with exclusive access, and applies deferred work.
    ///
    /// # Errors
    /// As for [`System::initialize`].
    fn run(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        self.initialize(world)?;
        world.flush();
        // SAFETY: initialised just now; `&mut World` excludes every other access.
        unsafe { self.run_unsafe(world) };
        self.apply(world);
        Ok(())
    }
}

/// Conversion into a [`System`]: implemented by functions of [`SystemParam`]s.
/// `Marker` only tells the implementations apart (it is inferred).
pub trait IntoSystem<S: Storage, Marker> {
    /// The system type.
    type System: System<S>;

    /// Makes the system.
    fn into_system(self) -> Self::System;
}
