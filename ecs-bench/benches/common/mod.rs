//! The criterion harness shared by every bench file: one benchmark group per workload, one
//! benchmark per runner, all running the same generic body.
//!
//! Under `cargo bench` the workloads run at full size. Under `cargo test --benches` criterion
//! runs each benchmark once; the sizes are then the tiny test sizes so CI only checks that
//! every bench still works. Before timing, every runner's checksum is compared with the
//! others'; a disagreement panics. A stepped workload (seed 002's crates) runs its untimed
//! step before every timed run, as in the report.

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use ecs_bench::workload::Family;
use ecs_bench::workloads::registry;
use ecs_bench::{DynWorkload, Runner, Scale};

/// Full size under `cargo bench`, test size otherwise.
pub fn scale() -> Scale {
    if std::env::args().any(|a| a == "--bench") {
        Scale::Full
    } else {
        Scale::Test
    }
}

/// Criterion settings for workloads that take from microseconds to a second per run.
pub fn criterion() -> Criterion {
    ecs_bench::alloc_counter::keep_freed_memory();
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args()
}

/// Runs `workload` once on every runner and panics unless all checksums agree.
fn verify_checksums(workload: &dyn DynWorkload, runners: &[Runner], size: usize) {
    let mut sums = Vec::new();
    for &runner in runners {
        if let Some(mut prepared) = workload.prepare_on(runner, size) {
            prepared.step();
            prepared.run();
            sums.push((runner.name(), prepared.checksum()));
        }
    }
    assert!(
        sums.iter().all(|&(_, c)| c == sums[0].1),
        "{}: runners disagree on the checksum: {sums:x?}",
        workload.info().name
    );
}

/// Benchmarks every workload of `family` on every reported runner.
pub fn bench_family(c: &mut Criterion, family: Family) {
    let scale = scale();
    let runners = Runner::reported();
    for workload in registry().into_iter().filter(|w| w.info().family == family) {
        let info = workload.info();
        let size = info.sizes.get(scale);
        verify_checksums(workload.as_ref(), &runners, size);
        let mut group = c.benchmark_group(info.path());
        for &runner in runners.iter().filter(|&&r| info.runs_on(r)) {
            let workload = workload.as_ref();
            if info.repeatable && info.stepped {
                // Each run after its untimed step, timed on its own.
                let mut prepared = workload.prepare_on(runner, size).expect("runner runs it");
                group.bench_function(runner.name(), |b| {
                    b.iter_custom(|iterations| {
                        let mut elapsed = Duration::ZERO;
                        for _ in 0..iterations {
                            prepared.step();
                            let start = Instant::now();
                            prepared.run();
                            elapsed += start.elapsed();
                        }
                        elapsed
                    })
                });
            } else if info.repeatable {
                let mut prepared = workload.prepare_on(runner, size).expect("runner runs it");
                group.bench_function(runner.name(), |b| b.iter(|| prepared.run()));
            } else {
                group.bench_function(runner.name(), |b| {
                    b.iter_batched(
                        || {
                            let mut prepared =
                                workload.prepare_on(runner, size).expect("runner runs it");
                            prepared.step();
                            prepared
                        },
                        |mut prepared| {
                            prepared.run();
                            prepared
                        },
                        BatchSize::PerIteration,
                    )
                });
            }
        }
        group.finish();
    }
}
