//! libFuzzer target: the input's bytes, decoded with `arbitrary`, are a sequence of
//! `ecs_fuzz::Op`s, run on every backend and the model by the same runner as the seeded
//! `ecs-fuzz` binary. Any mismatch or panic is a crash, with the runner's message naming
//! the operation and backend.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use ecs_fuzz::Op;
use libfuzzer_sys::fuzz_target;

/// Longest sequence one input decodes to (keeps each execution short).
const MAX_OPS: usize = 4_000;

fuzz_target!(|data: &[u8]| {
    let mut input = Unstructured::new(data);
    let mut ops = Vec::new();
    while ops.len() < MAX_OPS && !input.is_empty() {
        match Op::arbitrary(&mut input) {
            Ok(op) => ops.push(op),
            Err(_) => break,
        }
    }
    if let Err(mismatch) = ecs_fuzz::run(&ops) {
        panic!("{mismatch}");
    }
});
