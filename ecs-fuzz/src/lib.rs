//! # ecs-fuzz
//!
//! Differential fuzzing of the ECS: one sequence of operations is applied to a world on
//! every storage backend (the reference `VecStorage`, `SparseStorage`, `ArchetypeStorage`,
//! `HybridStorage`, `ArrayStorage`) and to a plain `HashMap` model, and every answer is
//! compared: returned values and errors, entity handles, query results (as multisets sorted
//! by entity), change filter reports, schedule outcomes, and the whole world at the end.
//!
//! Why: the conformance suite checks behaviours someone thought of, one at a time. The
//! backends share one API but keep entities in very different structures (tables moved on
//! every structural change, pre-linked sparse sets, groups reordering sets, a hybrid of both
//! that learns each component's kind on first store), so the bugs worth fearing are in
//! *sequences*: a query over a type no entity ever held, a group formed after entities moved,
//! a change log read after its entity's index was reused. Random sequences find those, and
//! five backends plus a model make every answer checkable without writing expectations.
//!
//! * [`run`] applies a sequence and reports the first [`Mismatch`] (a disagreement or a
//!   panic, with the operation's index, the operation and the backend);
//! * [`generate()`] makes a sequence from a seed (the `ecs-fuzz` binary's stable-toolchain
//!   runs); `fuzz/` at the repository root decodes libFuzzer's bytes into the same [`Op`]s;
//! * [`shrink()`] cuts a failing sequence down for a regression test
//!   (`tests/regressions.rs` keeps one per bug found);
//! * [`Config`] holds the wide mode that grows worlds past a storage page (and is where a
//!   tolerance of a known, not yet fixed bug would go).
//!
//! [`snapshot`] fuzzes the snapshot loaders the same way: mutated snapshots through both
//! formats, every failed load checked to leave its world as it was. [`trace`] fuzzes the
//! trace reader: mutated trace files read or refused, never a panic, and replayed when
//! they read.
//!
//! What is compared and how the model answers is in each module: [`components`] (the pool
//! of component types), [`op`] (the operations), [`model`], [`query`] and [`shapes`] (query
//! types), [`readers`] and [`systems`] (change tracking and the schedule).

pub mod bundles;
mod checks;
pub mod components;
pub mod generate;
pub mod hooks;
pub mod lanes;
pub mod links;
pub mod model;
pub mod op;
pub mod query;
pub mod readers;
mod required;
mod runner;
pub mod shapes;
pub mod shrink;
pub mod snapshot;
pub mod systems;
pub mod trace;

pub use generate::generate;
pub use op::{Command, Op};
pub use runner::{panic_message, run, run_with, Config, Mismatch, MAX_LIVE, MAX_LIVE_WIDE};
pub use shrink::shrink;
