//! What goes wrong while a schedule runs, and where it goes: [`RunError`] and the error
//! handlers.
//!
//! A run does not stop for these: the problem is reported and the run goes on. Each is
//! counted ([`Schedule::error_count`](super::Schedule::error_count)); then
//! [`Schedule::run`](super::Schedule::run) hands it to the schedule's error handler
//! ([`log_error`] unless [`Schedule::set_error_handler`](super::Schedule::set_error_handler)
//! chose another), and [`Schedule::try_run`](super::Schedule::try_run) returns every one of
//! the run in [`EcsError::Run`] instead, once the run is over (its effects stay).

use std::fmt;

use crate::commands::SkippedCommand;
use crate::error::EcsError;
use crate::system::Failure;

/// A problem found while a schedule ran, and the system it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    /// The system's name in its schedule.
    pub system: String,
    /// What went wrong.
    pub kind: RunErrorKind,
}

/// The kinds of [`RunError`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunErrorKind {
    /// A command the system queued did nothing when it was applied (its entity was gone,
    /// it removed components the entity lacked, ...).
    Command(SkippedCommand),
    /// The system returned an error (see [`SystemOutput`](crate::system::SystemOutput)).
    Failed(Failure),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            RunErrorKind::Command(skipped) => write!(f, "system {}: {skipped}", self.system),
            RunErrorKind::Failed(error) => write!(f, "system {} failed: {error}", self.system),
        }
    }
}

/// What a schedule does with each [`RunError`] of [`Schedule::run`](super::Schedule::run).
pub type ErrorHandler = fn(&RunError);

/// Writes the error to standard error (one line, starting `ecs:`) and lets the run go on:
/// the default handler.
pub fn log_error(error: &RunError) {
    eprintln!("ecs: {error}");
}

/// Panics with the error (after the run, so its effects stay): for tests and debug builds
/// that want every skipped command and failed system to be loud.
pub fn panic_on_error(error: &RunError) {
    panic!("{error}");
}

/// Does nothing: for programs that expect commands on entities other systems despawned.
/// The schedule still counts the error.
pub fn ignore_error(_: &RunError) {}

/// The errors of one run as the error [`Schedule::try_run`](super::Schedule::try_run)
/// returns (`None` when there were none).
pub(super) fn as_error(errors: Vec<RunError>) -> Option<EcsError> {
    (!errors.is_empty()).then_some(EcsError::Run(errors))
}
