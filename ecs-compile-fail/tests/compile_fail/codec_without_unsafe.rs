use std::ptr::NonNull;

use ecs::snapshot::DynamicCodec;

fn save(_: NonNull<u8>, _: &mut Vec<u8>) {}

// Answers `Ok` without writing a value: the loader would commit uninitialised memory.
fn load(_: &[u8], _: NonNull<u8>) -> Result<(), String> {
    Ok(())
}

fn main() {
    // The codec's promises are made with `unsafe`, so a lying `load` needs it too.
    let _codec = DynamicCodec::functions(save, load, None);
}
