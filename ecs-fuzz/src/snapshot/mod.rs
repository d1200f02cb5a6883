//! Snapshot loading under fuzzing.
//!
//! * [`kit`]: the component pool, the registry, worlds built from recipes, dumps (the
//!   shared test kit's, [`ecs_conformance::kit::snapshot`]);
//! * [`harness`]: one input through a loader, every promise of a load checked;
//! * [`mutate`]: the stable-toolchain mutation fuzzer (`ecs-fuzz snapshot --inputs N`).

pub mod harness;
pub mod mutate;

pub use ecs_conformance::kit::snapshot as kit;
pub use harness::check_input;
