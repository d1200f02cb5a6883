//! What a function system returns: nothing, or a `Result` whose error the schedule collects
//! (see [`SystemOutput`]).

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// Any error a system returns, boxed: what `?` in a system converts to.
pub type BoxedError = Box<dyn Error + Send + Sync + 'static>;

/// What a function system may return: `()`, or `Result<(), E>` for any `E` that converts
/// into a [`BoxedError`] (every `std::error::Error + Send + Sync`, and `String`/`&str`), so
/// a system can use `?`. An `Err` does not stop the schedule: it is handed to the
/// schedule's error handler after the system's commands are applied, like a command that
/// did nothing (see [`crate::schedule::errors`]).
///
/// ```
/// # use ecs_core::{World, Res, EcsError, testing::VecStorage};
/// # use ecs_core::schedule::{RunErrorKind, Schedule};
/// struct Level(u32);
/// fn load(level: Res<Level>) -> Result<(), String> {
///     match level.0 {
///         1 => Ok(()),
///         n => Err(format!("no level {n}")),
///     }
/// }
/// let mut world = World::<VecStorage>::new();
/// world.insert_resource(Level(2));
/// let mut schedule = Schedule::<VecStorage>::new();
/// schedule.add_system(load);
/// let EcsError::Run(problems) = schedule.try_run(&mut world).unwrap_err() else { panic!() };
/// assert!(matches!(&problems[0].kind, RunErrorKind::Failed(e) if e.to_string() == "no level 2"));
/// ```
pub trait SystemOutput: Send + 'static {
    /// The error, if the system failed.
    fn into_failure(self) -> Option<BoxedError>;
}

impl SystemOutput for () {
    #[inline(always)]
    fn into_failure(self) -> Option<BoxedError> {
        None
    }
}

impl<E: Into<BoxedError> + Send + 'static> SystemOutput for Result<(), E> {
    #[inline]
    fn into_failure(self) -> Option<BoxedError> {
        self.err().map(Into::into)
    }
}

/// The error a system returned, as a [`RunErrorKind::Failed`](crate::schedule::RunErrorKind)
/// carries it: shared, so the run's errors can be cloned and compared (two failures are
/// equal when they read the same).
#[derive(Clone)]
pub struct Failure(Arc<dyn Error + Send + Sync + 'static>);

impl Failure {
    /// Wraps a system's error.
    pub fn new(error: BoxedError) -> Failure {
        Failure(Arc::from(error))
    }

    /// The error itself (downcast it to the system's error type with `downcast_ref`).
    pub fn error(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for Failure {
    fn eq(&self, other: &Failure) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for Failure {}
