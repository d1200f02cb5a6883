//! Workload traces: what a running program does to its world, recorded so that it can be
//! replayed on every backend and every per-component layout (`ecs-bench replay`).
//!
//! A trace holds *operations*, never values: the components the program used (name,
//! size, alignment, declared storage, change tracking), then, in order, every spawn (with
//! its component set; a batch is one op with a count), insert, remove, despawn, query run
//! (its slots, filter, query state and the number of items the program took), look-up
//! (`get`, `get_mut`, a query's or an entity reference's `get`), change mark, frame boundary (each
//! [`Schedule::run`](crate::Schedule::run), or [`World::trace_frame`](crate::World::trace_frame)) and the system each
//! op came from. Any program can be traced, whatever its components hold.
//!
//! Recording needs the world's storage to be [`Traced<S>`] (the `ecs` facade's `trace`
//! feature does that for you): a plain storage compiles none of the recording code, so a
//! program that does not trace pays nothing.
//!
//! ```
//! use ecs_core::trace::{Op, Trace, Traced};
//! use ecs_core::{Component, World};
//! # use ecs_core::testing::VecStorage;
//!
//! #[derive(Component)]
//! struct Pos(f32);
//! #[derive(Component)]
//! struct Vel(f32);
//!
//! let mut world = World::<Traced<VecStorage>>::new();
//! world.start_trace().unwrap();
//! let e = world.spawn((Pos(0.0), Vel(1.0)));
//! world.query::<(&mut Pos, &Vel)>().for_each(|(p, v)| p.0 += v.0);
//! let _ = world.get::<Pos>(e);
//! world.trace_frame();
//! let trace = world.finish_trace().unwrap();
//!
//! let ops: Vec<Op> = trace.ops().collect();
//! assert!(matches!(ops[0], Op::Spawn { count: 1, .. }));
//! assert!(matches!(ops[1], Op::Query { rows: 1, complete: true, .. }));
//! assert!(matches!(ops[2], Op::Get { entity: 1, write: false, found: true, .. }));
//! assert_eq!(ops[3], Op::Frame);
//! // A file: a versioned header, the tables, the ops.
//! let bytes = trace.to_bytes();
//! assert_eq!(Trace::from_bytes(&bytes).unwrap(), trace);
//! assert!(Trace::from_bytes(&bytes[..bytes.len() - 1]).is_err());
//! ```
//!
//! What a trace cannot hold: values, so control flow that depends on them replays as
//! recorded (the same ops), not as the program would have run on another backend; and the
//! program's own work between world calls, which a replay does not do. Hierarchy and
//! named-instance operations are recorded as what they do to the storage (their link and
//! instance components inserted, removed and read), and a query run through
//! `par_for_each` while recording runs on one thread.
//!
//! [`format`](mod@format) documents the file.

mod capture;
pub mod format;
mod recorder;
mod replay;
mod traced;
mod world;

/// The name a trace gives [`Disabled`](crate::Disabled): the short names of Rust types
/// have no `::`, so no other component takes it.
pub const DISABLED_NAME: &str = "ecs::Disabled";

/// The query-run counter queries hold while a trace is recorded.
pub(crate) mod world_tally {
    pub(crate) use super::world::{record_changes, reshape, tally, trace_query_get, Tally};
}

pub use capture::{capture, frame};
pub use format::{
    Op, Ops, QueryShape, SlotAccess, Trace, TraceChange, TraceComponent, TraceError,
    TraceErrorKind, TraceFilter, TraceSlot,
};
pub use recorder::Recorder;
pub use replay::{describe, Divergence, Replay, DIVERGENCES_KEPT};
pub use traced::Traced;
