//! `ecs-fuzz`: seeded differential fuzzing on the stable toolchain.
//!
//! Runs episodes of generated operations (fresh worlds each) on every backend and the model
//! until an operation or time budget is spent, printing the throughput; on a mismatch prints
//! it, the seed that reproduces it, and a shrunk sequence ready for `tests/regressions.rs`,
//! and exits with status 1.
//!
//! ```text
//! ecs-fuzz [--ops N] [--seconds S] [--seed X] [--episode-len L] [--shrink-seconds S] [--wide]
//! ecs-fuzz --replay EPISODE_SEED [--episode-len L] [--wide]
//! ecs-fuzz snapshot [--inputs N] [--seed X] | ecs-fuzz snapshot --write-corpus DIR
//! ecs-fuzz trace [--inputs N] [--seed X]
//! ```
//!
//! `trace` fuzzes the trace reader (`ecs_fuzz::trace`): N mutated trace files (default
//! 1,000,000), each read or refused, never a panic, and replayed on two backends when it
//! reads; a failing input is written to `target/trace-failure.bin`.
//!
//! `snapshot` fuzzes the snapshot loaders instead (`ecs_fuzz::snapshot::mutate`): N mutated
//! snapshots (default 1,000,000) through both formats on every backend; a failing input is
//! written to `target/snapshot-failure.bin` (replay it with the libFuzzer target, or
//! `ecs_fuzz::snapshot::check_input`). `--write-corpus` writes the committed seed corpus
//! (`fuzz/corpus/snapshot_load`).
//!
//! One episode in eight runs wide (worlds up to 2,048 entities, see `ecs_fuzz::Config`);
//! `--wide` makes every episode wide.
//!
//! Build it with the `fuzz` profile (release speed, debug assertions on in every crate):
//! `cargo run --profile fuzz -p ecs-fuzz -- --seconds 60`.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ecs_fuzz::generate::episode_seed;
use ecs_fuzz::shrink::to_rust;
use ecs_fuzz::{generate, run_with, shrink, Config, Mismatch, Op};

/// Command-line options.
struct Options {
    ops: Option<u64>,
    seconds: Option<f64>,
    seed: u64,
    episode_len: usize,
    replay: Option<u64>,
    shrink_seconds: f64,
    config: Config,
}

const USAGE: &str = "usage: ecs-fuzz [--ops N] [--seconds S] [--seed X] [--episode-len L] \
                     [--shrink-seconds S] [--wide] | --replay EPISODE_SEED [--episode-len L] \
                     [--wide]";

fn parse_u64(s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.replace('_', "").parse(),
    };
    parsed.map_err(|e| format!("{s}: {e}"))
}

/// A seed from the clock: a new one each run.
fn fresh_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// What a mutation fuzzer's command line asked for.
enum InputArgs {
    /// A run of `inputs` mutated inputs from `seed` (`--inputs N`, `--seed X`).
    Run { inputs: u64, seed: u64 },
    /// The extra flag the command takes, with its value.
    Extra(String),
    /// Anything else: print the usage.
    Usage,
}

/// Reads `--inputs N` and `--seed X` (a fresh seed unless given), and `extra VALUE` when
/// the command takes such a flag (it wins over the others).
fn input_args(extra: Option<&str>) -> InputArgs {
    let (mut inputs, mut seed) = (1_000_000, fresh_seed());
    let mut args = std::env::args().skip(2);
    while let Some(flag) = args.next() {
        let value = args.next();
        match (flag.as_str(), value.as_deref().map(parse_u64)) {
            ("--inputs", Some(Ok(n))) => inputs = n,
            ("--seed", Some(Ok(s))) => seed = s,
            (f, Some(_)) if Some(f) == extra => {
                return InputArgs::Extra(value.expect("matched Some"));
            }
            _ => return InputArgs::Usage,
        }
    }
    InputArgs::Run { inputs, seed }
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        ops: None,
        seconds: None,
        seed: fresh_seed(),
        episode_len: 5_000,
        replay: None,
        shrink_seconds: 60.0,
        config: Config::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--ops" => options.ops = Some(parse_u64(&value()?)?),
            "--seconds" => {
                let v = value()?;
                options.seconds = Some(v.parse().map_err(|e| format!("{v}: {e}"))?);
            }
            "--seed" => options.seed = parse_u64(&value()?)?,
            "--episode-len" => options.episode_len = parse_u64(&value()?)?.max(1) as usize,
            "--replay" => options.replay = Some(parse_u64(&value()?)?),
            "--shrink-seconds" => {
                let v = value()?;
                options.shrink_seconds = v.parse().map_err(|e| format!("{v}: {e}"))?;
            }
            "--wide" => options.config.wide = true,
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if options.ops.is_none() && options.seconds.is_none() {
        options.ops = Some(1_000_000);
    }
    Ok(options)
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("snapshot") {
        return snapshot_fuzz();
    }
    if std::env::args().nth(1).as_deref() == Some("trace") {
        return trace_fuzz();
    }
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match options.replay {
        Some(episode) => replay(episode, &options),
        None => fuzz(&options),
    }
}

fn replay(episode: u64, options: &Options) -> ExitCode {
    let ops = generate(episode, options.episode_len);
    let config = Config::for_episode(options.config, episode);
    match run_with(&ops, config) {
        Ok(()) => {
            println!("episode 0x{episode:x} ({} ops): no mismatch", ops.len());
            ExitCode::SUCCESS
        }
        Err(mismatch) => {
            report(&ops, &mismatch, options.shrink_seconds, config);
            ExitCode::FAILURE
        }
    }
}

fn fuzz(options: &Options) -> ExitCode {
    let start = Instant::now();
    let deadline = options.seconds.map(Duration::from_secs_f64);
    println!(
        "ecs-fuzz: seed 0x{:x}, episodes of {} ops, budget {}",
        options.seed,
        options.episode_len,
        match (options.ops, options.seconds) {
            (Some(n), Some(s)) => format!("{n} ops or {s} s"),
            (Some(n), None) => format!("{n} ops"),
            (None, Some(s)) => format!("{s} s"),
            (None, None) => unreachable!("parse_args sets one"),
        }
    );
    let mut total: u64 = 0;
    let mut episode: u64 = 0;
    let mut next_progress = Duration::from_secs(30);
    loop {
        let left = options.ops.map_or(u64::MAX, |n| n - total);
        if left == 0 || deadline.is_some_and(|d| start.elapsed() >= d) {
            break;
        }
        let seed = episode_seed(options.seed, episode);
        let len = (options.episode_len as u64).min(left) as usize;
        let ops = generate(seed, len);
        let config = Config::for_episode(options.config, seed);
        if let Err(mismatch) = run_with(&ops, config) {
            total += mismatch.index as u64;
            println!(
                "MISMATCH after {total} ops in {:.1} s (run seed 0x{:x}, episode {episode})",
                start.elapsed().as_secs_f64(),
                options.seed
            );
            println!(
                "reproduce: ecs-fuzz --replay 0x{seed:x} --episode-len {}",
                ops.len()
            );
            report(&ops, &mismatch, options.shrink_seconds, config);
            return ExitCode::FAILURE;
        }
        total += len as u64;
        episode += 1;
        if start.elapsed() >= next_progress {
            next_progress += Duration::from_secs(30);
            print_rate("progress", total, start.elapsed());
        }
    }
    print_rate("done", total, start.elapsed());
    ExitCode::SUCCESS
}

fn print_rate(what: &str, total: u64, elapsed: Duration) {
    let secs = elapsed.as_secs_f64();
    println!(
        "{what}: {total} ops in {secs:.1} s, {:.0} ops/s (each op on 5 backends and the model)",
        total as f64 / secs.max(1e-9)
    );
}

fn report(ops: &[Op], mismatch: &Mismatch, shrink_seconds: f64, config: Config) {
    println!("{mismatch}");
    let budget = Duration::from_secs_f64(shrink_seconds);
    let (small, failure) = shrink(ops, mismatch, budget, config);
    println!(
        "shrunk to {} ops (fails at op #{} on {}: {}), with {config:?}:\n{}",
        small.len(),
        failure.index,
        failure.backend,
        failure.detail,
        to_rust(&small)
    );
}

/// A progress callback for a mutation run: a line every 30 s.
fn every_30_s(start: Instant) -> impl FnMut(u64) {
    let mut next = Duration::from_secs(30);
    move |done| {
        if start.elapsed() >= next {
            next += Duration::from_secs(30);
            println!(
                "progress: {done} inputs in {:.0} s",
                start.elapsed().as_secs_f64()
            );
        }
    }
}

/// Prints how a mutation run of `inputs` ended (`words`: what an accepted and a refused
/// input are called); a failing input is written to `path`.
fn report_inputs(
    result: Result<u64, ecs_fuzz::snapshot::mutate::Failure>,
    seed: u64,
    inputs: u64,
    start: Instant,
    words: (&str, &str),
    path: &str,
) -> ExitCode {
    match result {
        Ok(accepted) => {
            let secs = start.elapsed().as_secs_f64();
            println!(
                "done: {inputs} inputs in {secs:.1} s ({:.0}/s), {accepted} {}, {} {}, no panic",
                inputs as f64 / secs.max(1e-9),
                words.0,
                inputs - accepted,
                words.1
            );
            ExitCode::SUCCESS
        }
        Err(failure) => {
            println!("FAILURE (seed 0x{seed:x}): {}", failure.message);
            let written = std::fs::create_dir_all("target")
                .and_then(|()| std::fs::write(path, &failure.input));
            match written {
                Ok(()) => println!("input written to {path}"),
                Err(e) => println!("input ({e} writing {path}): {:?}", failure.input),
            }
            ExitCode::FAILURE
        }
    }
}

/// `ecs-fuzz trace [--inputs N] [--seed X]`.
fn trace_fuzz() -> ExitCode {
    let InputArgs::Run { inputs, seed } = input_args(None) else {
        eprintln!("usage: ecs-fuzz trace [--inputs N] [--seed X]");
        return ExitCode::from(2);
    };
    println!("ecs-fuzz trace: seed 0x{seed:x}, {inputs} inputs");
    let start = Instant::now();
    let result = ecs_fuzz::trace::run(seed, inputs, every_30_s(start));
    report_inputs(
        result,
        seed,
        inputs,
        start,
        ("read and replayed", "refused with an error"),
        "target/trace-failure.bin",
    )
}

/// `ecs-fuzz snapshot [--inputs N] [--seed X] | --write-corpus DIR`.
fn snapshot_fuzz() -> ExitCode {
    let (inputs, seed) = match input_args(Some("--write-corpus")) {
        InputArgs::Run { inputs, seed } => (inputs, seed),
        InputArgs::Extra(dir) => {
            return match ecs_fuzz::snapshot::mutate::write_corpus(std::path::Path::new(&dir)) {
                Ok(n) => {
                    println!("wrote {n} inputs to {dir}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{dir}: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        InputArgs::Usage => {
            eprintln!("usage: ecs-fuzz snapshot [--inputs N] [--seed X] | --write-corpus DIR");
            return ExitCode::from(2);
        }
    };
    println!("ecs-fuzz snapshot: seed 0x{seed:x}, {inputs} inputs");
    let start = Instant::now();
    let result = ecs_fuzz::snapshot::mutate::run(seed, inputs, every_30_s(start));
    report_inputs(
        result,
        seed,
        inputs,
        start,
        ("loaded", "refused with the world unchanged"),
        "target/snapshot-failure.bin",
    )
}
