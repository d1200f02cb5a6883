//! World snapshots across backends: a snapshot saved on one backend loads on every other,
//! property tests over random worlds on every backend and across them, and a bounded run of
//! the mutation fuzzer. (What a load promises on one backend is the conformance suite's
//! `snapshot` part, which every backend's crate runs.)
//!
//! The components, registry, recipes and dumps are the shared kit's
//! (`ecs_conformance::kit::snapshot`).

mod cross;
mod fuzz;
mod props;
