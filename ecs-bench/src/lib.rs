//! # ecs-bench
//!
//! Identical benchmark workloads on every storage backend. Each workload of
//! `docs/workloads.md` is written once, generic over `S: ecs_core::Storage`
//! ([`workload::Workload`]), and runs on every backend of [`backend::Backend`] and, where it
//! makes sense, on a hand-written `Vec` baseline. Every run computes an order-independent
//! checksum; all runners must agree.
//!
//! * [`workloads::registry`] lists the workloads, [`workloads::Builtin`] names them.
//! * [`alloc_counter`] counts allocations and peak live heap bytes (seed 000's columns).
//! * [`report`] measures everything (interleaving runners), writes `report.md`,
//!   `report.json` and SVG charts, and compares backend ratios with a committed baseline.
//! * [`counts`] counts instructions, cache misses, allocations and peak heap of every
//!   workload under callgrind, deterministically, and checks them against a baseline (CI).
//! * `benches/` runs the same bodies under criterion; [`cli`] is the `ecs-bench` command line,
//!   which a program with its own workloads reuses ([`Suite::custom`]).
//! * With the `peers` feature, [`peers`] adds hecs, bevy_ecs, shipyard and specs as runners
//!   of the community-standard workloads.

#[cfg(feature = "replay")]
pub mod advise;
pub mod alloc_counter;
pub mod backend;
pub mod cli;
pub mod components;
pub mod counts;
pub mod peers;
#[cfg(feature = "replay")]
pub mod replay;
pub mod report;
pub mod storages;
pub mod workload;
pub mod workloads;

pub use backend::{Backend, Runner};
pub use report::Suite;
pub use workload::{DynWorkload, Prepared, Scale, Workload, WorkloadInfo};
