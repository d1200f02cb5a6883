//! A short deterministic fuzzing run, part of the workspace tests: a few thousand generated
//! operations under each of several fixed seeds, on every backend and the model.
//!
//! Longer runs are the `ecs-fuzz` binary's job (`cargo run --profile fuzz -p ecs-fuzz --
//! --seconds 60`); this keeps `cargo test` fast and catches a change that breaks agreement
//! on common sequences.

use ecs_fuzz::generate::episode_seed;
use ecs_fuzz::{generate, run, run_with, Config, Op};

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

#[test]
fn normalized_ops_do_the_same() {
    // Normalizing never changes what a sequence does: the same outcome, the same mismatch
    // if any, in small and wide worlds, and with hooks.
    for seed in 0..4 {
        let ops = generate(episode_seed(7, seed), 800);
        let normalized: Vec<Op> = ops.iter().map(Op::normalized).collect();
        let wide = Config {
            wide: true,
            ..Config::default()
        };
        let hooks = Config {
            hooks: true,
            ..Config::default()
        };
        for config in [Config::default(), wide, hooks] {
            let outcome = |ops: &[Op]| run_with(ops, config).map_err(|m| (m.index, m.detail));
            assert_eq!(
                outcome(&ops),
                outcome(&normalized),
                "seed {seed}, {config:?}"
            );
        }
    }
}
