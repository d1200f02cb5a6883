//! Criterion benches of seed 004: the removal orders and strategies on every backend (see
//! `common`), and the fill of the memory table's two storages.

mod common;

use criterion::{criterion_main, BatchSize, Criterion};
use ecs_bench::alloc_counter::{self, CountingAllocator};
use ecs_bench::backend::{Backend, StorageVisitor};
use ecs_bench::components::Blob;
use ecs_bench::storages::LinearStorage;
use ecs_bench::workload::Family;
use ecs_bench::workloads::seed004_memory::{self, selected};
use ecs_core::{Storage, World};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// 64-byte components at 50 % utilisation: the middle of the memory table.
type Payload = Blob<8>;
const TENTHS: u32 = 5;

struct FillSparse {
    entities: usize,
}

impl StorageVisitor for FillSparse {
    type Output = usize;
    fn visit<S: Storage>(self) -> usize {
        let mut world = World::<S>::new();
        let entities: Vec<_> = (0..self.entities).map(|_| world.spawn(())).collect();
        for (i, &e) in entities.iter().enumerate() {
            if selected(i, TENTHS) {
                world.insert(e, Payload::default()).expect("live entity");
            }
        }
        world.len()
    }
}

fn fill_linear(entities: usize) -> LinearStorage<Payload> {
    let mut linear = LinearStorage::new();
    linear.reserve_index_bound(entities);
    for i in (0..entities).filter(|&i| selected(i, TENTHS)) {
        linear.insert(i, Payload::default());
    }
    linear
}

fn memory_fill(c: &mut Criterion) {
    let entities = seed004_memory::entities_for(common::scale());
    let backend = Backend::sparse_set();
    let table = seed004_memory::memory_table(backend, entities);
    if let Some(cell) = table.cell(64, TENTHS * 10) {
        println!(
            "seed004 memory, 64 B at 50 %, N = {entities}: {} {} B, linear {} B (ratio {:.2}; \
             counting allocator installed: {})",
            table.sparse_backend,
            cell.sparse_bytes,
            cell.linear_bytes,
            cell.ratio,
            alloc_counter::is_installed()
        );
    }
    let mut group = c.benchmark_group("seed004/memory_fill");
    group.bench_function(backend.name(), |b| {
        b.iter(|| backend.visit(FillSparse { entities }))
    });
    group.bench_function("linear", |b| {
        b.iter_batched(|| (), |()| fill_linear(entities), BatchSize::PerIteration)
    });
    group.finish();
}

fn group() {
    let mut criterion = common::criterion();
    common::bench_family(&mut criterion, Family::Seed004);
    memory_fill(&mut criterion);
}

criterion_main!(group);
