//! Criterion benches of the `seed002` workloads on every backend (see `common`).

mod common;

use criterion::{criterion_main, Criterion};
use ecs_bench::alloc_counter::CountingAllocator;
use ecs_bench::workload::Family;

// The same allocator as the report, so both time the same code.
#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn benches(c: &mut Criterion) {
    common::bench_family(c, Family::Seed002);
}

fn group() {
    let mut criterion = common::criterion();
    benches(&mut criterion);
}

criterion_main!(group);
