//! Shrinking a failing sequence to a short one that fails the same way, for a regression
//! test a person can read.

use std::time::{Duration, Instant};

use crate::op::Op;
use crate::runner::{run_with, Config, Mismatch};

/// Whether two mismatches are "the same failure": same backend, same kind of operation.
fn same_failure(a: &Mismatch, b: &Mismatch) -> bool {
    a.backend == b.backend && std::mem::discriminant(&a.op) == std::mem::discriminant(&b.op)
}

/// Removes operations from `ops` (which fails with `failure` under `config`) while the rest
/// still fails the same way, for at most `budget`; returns the shortest sequence found and
/// its failure. Chunks of halving size are removed, front to back, then numbers are
/// written in their reduced form ([`Op::normalized`]); the panic hook is silenced meanwhile
/// (shrinking provokes many expected panics).
pub fn shrink(
    ops: &[Op],
    failure: &Mismatch,
    budget: Duration,
    config: Config,
) -> (Vec<Op>, Mismatch) {
    if ops.is_empty() {
        return (Vec::new(), failure.clone());
    }
    let deadline = Instant::now() + budget;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut best = ops[..=failure.index.min(ops.len().saturating_sub(1))].to_vec();
    let mut found = failure.clone();
    let mut chunk = best.len().div_ceil(2).max(1);
    loop {
        let mut i = 0;
        let mut removed = false;
        while i < best.len() && Instant::now() < deadline {
            let end = (i + chunk).min(best.len());
            let candidate: Vec<Op> = best[..i].iter().chain(&best[end..]).cloned().collect();
            match run_with(&candidate, config) {
                Err(m) if same_failure(&m, failure) && !candidate.is_empty() => {
                    best = candidate[..=m.index.min(candidate.len() - 1)].to_vec();
                    found = m;
                    removed = true;
                }
                _ => i += chunk,
            }
        }
        if Instant::now() >= deadline || (chunk == 1 && !removed) {
            break;
        }
        if chunk > 1 {
            chunk = chunk.div_ceil(2);
        }
    }
    let normalized: Vec<Op> = best.iter().map(Op::normalized).collect();
    if let Err(m) = run_with(&normalized, config) {
        if same_failure(&m, failure) {
            best = normalized;
            found = m;
        }
    }
    std::panic::set_hook(hook);
    (best, found)
}

/// `ops` as Rust source for a regression test (`vec![Op::..., ...]`).
pub fn to_rust(ops: &[Op]) -> String {
    let mut out = String::from("vec![\n");
    for op in ops {
        let line = match op {
            Op::Queue(command) => format!("Op::Queue(Command::{command:?})"),
            other => format!("Op::{other:?}"),
        };
        out.push_str(&format!("    {line},\n"));
    }
    out.push(']');
    out
}
