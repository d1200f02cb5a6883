//! A short deterministic fuzzing run, part of the workspace tests: a few thousand generated
//! operations under each of several fixed seeds, on every backend and the model.
//!
//! Longer runs are the `ecs-fuzz` binary's job (`cargo run --profile fuzz -p ecs-fuzz --
//! --seconds 60`); this keeps `cargo test` fast and catches a change that breaks agreement
//! on common sequences.

use ecs_fuzz::generate::episode_seed;
use ecs_fuzz::{generate, run};

/// Operations per seed.
const OPS: usize = 3_000;

#[test]
fn fixed_seeds_agree_everywhere() {
    for episode in 0..6 {
        let seed = episode_seed(0xEC5_F022, episode);
        let ops = generate(seed, OPS);
        if let Err(mismatch) = run(&ops) {
            panic!("seed 0x{seed:x} ({OPS} ops): {mismatch}");
        }
    }
}

#[test]
fn generation_is_deterministic() {
    assert_eq!(generate(42, 500), generate(42, 500));
    assert_ne!(generate(42, 500), generate(43, 500));
}
