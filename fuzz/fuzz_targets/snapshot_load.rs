//! libFuzzer target: the input is a world snapshot for one of the two loaders (its first
//! byte picks JSON or postcard and the target world's backend), loaded into a world with
//! entities by `ecs_fuzz::snapshot::check_input`, which checks every promise of a load: a
//! refused snapshot leaves the world exactly as it was, a loaded one adds exactly its
//! entities and survives another save and load. A broken promise or a panic is a crash.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = ecs_fuzz::snapshot::check_input(data) {
        panic!("{broken}");
    }
});
