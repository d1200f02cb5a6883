//! A mutation fuzzer for the snapshot loaders on the stable toolchain: valid snapshots of
//! random worlds (both formats) are mutated (bit flips, interesting bytes, insertions,
//! deletions, duplicated or swapped ranges, truncation, splices of two inputs, number
//! tokens replaced in JSON) and each result goes through [`check_input`], panics caught.
//!
//! `ecs-fuzz snapshot --inputs N` runs it; the libFuzzer target `fuzz/fuzz_targets/snapshot_load.rs`
//! runs the same check under coverage guidance.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::testing::VecStorage;
use ecs_core::World;

use super::harness::{check_input, selector, MISMATCHED_RAW};
use super::kit::{apply, registry, Step};
use crate::generate::Rng;
use crate::panic_message;

/// A valid snapshot of a random world (`steps` steps), as a fuzz input: the format byte
/// (JSON or postcard, backend `backend`) and the snapshot.
pub fn seed_input(rng: &mut Rng, steps: usize, json: bool, backend: u8) -> Vec<u8> {
    let steps: Vec<Step> = (0..steps).map(|_| random_step(rng)).collect();
    let mut world = World::<VecStorage>::new();
    apply(&mut world, &steps);
    let registry = registry();
    let mut input = vec![selector(json, backend)];
    if json {
        input.extend(serde_json::to_vec(&registry.save(&world)).expect("a world saves"));
    } else {
        input.extend(postcard::to_allocvec(&registry.save(&world)).expect("a world saves"));
    }
    input
}

/// A random recipe step.
pub fn random_step(rng: &mut Rng) -> Step {
    let byte = |rng: &mut Rng| rng.below(256) as u8;
    match rng.below(11) {
        0..=3 => Step::Spawn {
            pos: (rng.below(4) != 0).then(|| (rng.below(200) as i16 - 100, rng.below(9) as i16)),
            tag: rng.below(3) == 0,
            label: (rng.below(3) == 0).then(|| byte(rng)),
            fx: (rng.below(4) == 0).then(|| rng.below(1000) as u16),
            raw: (rng.below(4) == 0).then(|| [byte(rng), byte(rng), 0, 255]),
            secret: rng.below(5) == 0,
        },
        4 => Step::Despawn(byte(rng)),
        5 => Step::Named {
            entity: byte(rng),
            name: byte(rng),
            value: rng.below(100) as u16,
        },
        6 => Step::Parent {
            child: byte(rng),
            parent: byte(rng),
        },
        7 => Step::Target {
            entity: byte(rng),
            primary: byte(rng),
            others: (0..rng.below(3)).map(|_| byte(rng)).collect(),
            backup: (rng.below(2) == 0).then(|| byte(rng)),
        },
        8 => Step::Link {
            entity: byte(rng),
            to: byte(rng),
        },
        9 => Step::SetPos {
            entity: byte(rng),
            x: byte(rng),
            y: byte(rng),
        },
        _ => Step::Score(rng.next_u64() % 1000),
    }
}

/// Bytes that often sit on a boundary, and JSON's structural characters.
const INTERESTING: &[u8] = &[
    0, 1, 0x7F, 0x80, 0xFF, 0xFE, b'0', b'9', b'-', b'"', b'[', b']', b'{', b'}', b',', b':', b'e',
    b'n', b'v',
];

/// Number tokens a JSON mutation puts in place of another (huge lengths and rows,
/// negative and fractional numbers, the largest integers).
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999",
    "1e300",
    "0.5",
    "null",
    "\"0v1\"",
    "[]",
];

/// `input` changed by one to four random mutations; `other` is a second input to splice.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let len = out.len();
        let at = |rng: &mut Rng, len: usize| rng.below(len as u64 + 1) as usize;
        match rng.below(10) {
            0 if len > 1 => {
                let i = 1 + rng.below(len as u64 - 1) as usize;
                out[i] ^= 1 << rng.below(8);
            }
            1 if len > 1 => {
                let i = 1 + rng.below(len as u64 - 1) as usize;
                out[i] = INTERESTING[rng.below(INTERESTING.len() as u64) as usize];
            }
            2 => {
                let i = at(rng, len).max(1);
                out.insert(i.min(out.len()), rng.below(256) as u8);
            }
            3 if len > 1 => {
                let i = 1 + rng.below(len as u64 - 1) as usize;
                let n = 1 + rng.below(8.min(len - i) as u64) as usize;
                out.drain(i..i + n);
            }
            4 if len > 1 => {
                let i = 1 + rng.below(len as u64 - 1) as usize;
                let n = 1 + rng.below(16.min(len - i) as u64) as usize;
                let copy = out[i..i + n].to_vec();
                let j = at(rng, out.len()).max(1);
                out.splice(j..j, copy);
            }
            5 if len > 2 => out.truncate(1 + rng.below(len as u64 - 1) as usize),
            6 if !other.is_empty() => {
                let cut = at(rng, len).max(1).min(len);
                let from = rng.below(other.len() as u64) as usize;
                out.truncate(cut);
                out.extend_from_slice(&other[from.max(1)..]);
            }
            7 => replace_number(rng, &mut out),
            8 if !out.is_empty() => out[0] = rng.below(8) as u8,
            _ => {
                let i = at(rng, len).max(1).min(out.len());
                let value = rng.next_u64().to_le_bytes();
                let n = 1 + rng.below(8) as usize;
                out.splice(i..i, value[..n].iter().copied());
            }
        }
    }
    out
}

/// Replaces one run of digits (a JSON number) with a token from [`NUMBERS`].
fn replace_number(rng: &mut Rng, out: &mut Vec<u8>) {
    let digits: Vec<usize> = (1..out.len())
        .filter(|&i| out[i].is_ascii_digit())
        .collect();
    if digits.is_empty() {
        return;
    }
    let start = digits[rng.below(digits.len() as u64) as usize];
    let end = (start..out.len())
        .find(|&i| !out[i].is_ascii_digit())
        .unwrap_or(out.len());
    let token = NUMBERS[rng.below(NUMBERS.len() as u64) as usize];
    out.splice(start..end, token.bytes());
}

/// What a fuzz run found.
#[derive(Debug)]
pub struct Failure {
    /// The input that broke a promise or panicked.
    pub input: Vec<u8>,
    /// What broke.
    pub message: String,
}

/// Runs `inputs` mutated inputs from the seed `seed` (each through [`check_input`], panics
/// caught); calls `progress` with the number done every 10,000. Returns how many were
/// loaded successfully, or the first failure.
pub fn run(seed: u64, inputs: u64, mut progress: impl FnMut(u64)) -> Result<u64, Failure> {
    let mut rng = Rng::new(seed);
    let mut pool: Vec<Vec<u8>> = Vec::new();
    for i in 0..16u8 {
        let steps = [0, 3, 12, 40][usize::from(i % 4)];
        pool.push(seed_input(&mut rng, steps, i % 2 == 0, i / 2 % 4));
    }
    let mut loaded = 0;
    for n in 0..inputs {
        if n % 10_000 == 0 {
            progress(n);
        }
        let a = rng.below(pool.len() as u64) as usize;
        let b = rng.below(pool.len() as u64) as usize;
        let mut input = if rng.below(20) == 0 {
            pool[a].clone()
        } else {
            mutate(&mut rng, &pool[a], &pool[b])
        };
        // One input in eight meets a target whose `Raw` drops its values (a registry
        // mismatch every load must refuse).
        if rng.below(8) == 0 {
            input[0] |= MISMATCHED_RAW;
        }
        match catch_unwind(AssertUnwindSafe(|| check_input(&input))) {
            Ok(Ok(true)) => loaded += 1,
            Ok(Ok(false)) => {}
            Ok(Err(message)) => return Err(Failure { input, message }),
            Err(panic) => {
                let message = format!("panic: {}", panic_message(&*panic));
                return Err(Failure { input, message });
            }
        }
        // Keep a few mutants as new parents, so mutations stack up over the run.
        if rng.below(64) == 0 {
            let slot = rng.below(pool.len() as u64) as usize;
            if slot >= 8 {
                pool[slot] = input;
            }
        }
    }
    Ok(loaded)
}

/// Writes the seed corpus of the libFuzzer target to `dir`: valid snapshots of worlds of
/// 0, 3, 12 and 40 random steps in both formats (each for another backend), and a
/// truncated and a misnamed one. Returns how many files it wrote.
pub fn write_corpus(dir: &std::path::Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let mut rng = Rng::new(0xC0_4905);
    let mut written = 0;
    for (i, steps) in [0usize, 3, 12, 40].into_iter().enumerate() {
        for json in [true, false] {
            let input = seed_input(&mut rng, steps, json, (i as u8 + u8::from(json)) % 4);
            let name = format!("seed-{steps}-{}", if json { "json" } else { "postcard" });
            std::fs::write(dir.join(name), &input)?;
            written += 1;
        }
    }
    let valid = seed_input(&mut rng, 12, true, 2);
    std::fs::write(dir.join("truncated-json"), &valid[..valid.len() / 2])?;
    let text = String::from_utf8_lossy(&valid).replacen("\"Pos\"", "\"Velocity\"", 1);
    std::fs::write(dir.join("unknown-name-json"), text.as_bytes())?;
    Ok(written + 2)
}
