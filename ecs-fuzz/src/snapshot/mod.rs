//! Snapshot loading under fuzzing, and the kit every snapshot test shares.
//!
//! * [`kit`]: the component pool, the registry, worlds built from recipes, dumps;
//! * [`harness`]: one input through a loader, every promise of a load checked;
//! * [`mutate`]: the stable-toolchain mutation fuzzer (`ecs-fuzz snapshot --inputs N`).

pub mod harness;
pub mod kit;
pub mod mutate;

pub use harness::check_input;
