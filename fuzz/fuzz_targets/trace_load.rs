//! libFuzzer target: the input is a trace file, read by `ecs_core::trace::Trace::from_bytes`
//! and, when it reads, written again and replayed on two backends by
//! `ecs_fuzz::trace::check_input`. A panic or a trace that does not read back is a crash.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = ecs_fuzz::trace::check_input(data) {
        panic!("{broken}");
    }
});
