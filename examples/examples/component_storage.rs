//! Component storage (seed 004): one component type in one sparse set, through the per-type
//! API a storage offers (count, all values, all entities, add, has, get, remove); the two
//! ways to close the hole a removal leaves, timed; and the memory of a sparse set against a
//! plain array indexed by entity, measured from real storages.
//!
//! Seed 004 is an article that starts from the simplest storage, an array indexed by entity
//! id, notices that it fills with holes as entities come and go, and packs the values with a
//! sparse set instead. Removing then needs a policy: move the last value into the hole
//! (O(1), the order changes) or shift everything after it down (the order stays, O(n) per
//! removal). Which one wins, and when the sparse set's index costs more memory than the holes
//! it saves, is measured here.
//!
//! ```text
//! cargo run --release -p examples --example component_storage
//! cargo run --release -p examples --example component_storage --features sparse
//! cargo run -p examples --example component_storage -- --small
//! ```

use std::time::Instant;

use ecs::ecs_core::layout::{format_bytes, format_count};
use ecs::prelude::*;
use ecs_bench::alloc_counter::CountingAllocator;
use ecs_bench::report::markdown::format_time;
use ecs_bench::workloads::seed004::{self, Order};
use ecs_bench::workloads::seed004_memory::{memory_cells, seed_ratio, MemoryCell};
use ecs_bench::{Backend as BenchBackend, Runner};
use ecs_sparse::ComponentSet;
use examples::story::{Out, Size};

// The memory table counts the bytes each storage allocates.
#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

/// The value removed in the timing part (4 bytes, like the seed's).
#[derive(Component)]
struct Value(u32);

fn entity(index: u32) -> Entity {
    Entity::new(index, 1).expect("generation 1 is valid")
}

/// `[e3: 30, e1: 10]`.
fn show(set: &ComponentSet<Health>) -> String {
    let items: Vec<String> = set
        .entities()
        .iter()
        .zip(set.values())
        .map(|(e, h)| format!("e{}: {}", e.index(), h.0))
        .collect();
    format!("[{}]", items.join(", "))
}

/// Part 1: the API on five entities.
fn crud(out: &mut Out) {
    out.line("one component type in one sparse set (ecs_sparse::ComponentSet<Health>):");
    let mut set = ComponentSet::<Health>::new();
    for i in 1..=5 {
        set.insert(entity(i * 100), Health(i * 10))
            .expect("a fresh index");
    }
    out.line(format!(
        "  {:<20}count {}, all {}",
        "add e100..e500",
        set.len(),
        show(&set)
    ));
    out.line(format!(
        "  has e300 {}, has e301 {}, get e300 {:?}",
        set.contains(entity(300)),
        set.contains(entity(301)),
        set.get(entity(300))
    ));
    set.get_mut(entity(300)).expect("held").0 += 5;
    out.line(format!("  {:<20}all {}", "get_mut e300 += 5", show(&set)));
    let removed = set.remove(entity(200));
    out.line(format!(
        "  {:<20}{removed:?}; the last value moved into its place: {}",
        "remove e200",
        show(&set)
    ));
    let removed = set.remove_ordered(entity(500));
    out.line(format!(
        "  {:<20}{removed:?}; the values after it shifted down: {}",
        "remove_ordered e500",
        show(&set)
    ));
    let unit = set.layout();
    out.line(format!(
        "  {} values, room for {}, {} sparse page(s) of 1,024 indices",
        unit.rows,
        unit.capacity,
        unit.pages.unwrap_or(0)
    ));
}

/// Removes every value of a fresh set of `n` in `order`, by swapping or by shifting;
/// returns the values moved to close the holes and the time taken.
fn remove_all(n: usize, order: Order, shift: bool) -> (u64, std::time::Duration) {
    let mut set = ComponentSet::<Value>::new();
    for i in 0..n as u32 {
        set.insert(entity(i), Value(i)).expect("a fresh index");
    }
    let order = order.indices(n);
    let start = Instant::now();
    let mut moved = 0u64;
    for &i in &order {
        let e = entity(i as u32);
        let (pos, last) = (set.position(e).expect("held"), set.len() - 1);
        let value = if shift {
            moved += (last - pos) as u64;
            set.remove_ordered(e)
        } else {
            moved += u64::from(pos != last);
            set.remove(e)
        };
        std::hint::black_box(value.map(|v| v.0));
    }
    (moved, start.elapsed())
}

/// Part 2: swap-remove against shifting removal, counted and timed.
fn removals(out: &mut Out, n: usize) {
    out.line(format!(
        "removing all {} values, closing each hole by swapping (O(1)) or by shifting (O(n)):",
        format_count(n)
    ));
    for order in [Order::Linear, Order::Reverse, Order::Random] {
        let (swap_moved, swap_time) = remove_all(n, order, false);
        let (shift_moved, shift_time) = remove_all(n, order, true);
        out.line(format!(
            "  {:<8} swap moved {:>9} values, shift moved {:>13}",
            format!("{order:?}").to_lowercase(),
            format_count(swap_moved as usize),
            format_count(shift_moved as usize)
        ));
        out.measured(format!(
            "  {:<8} swap {:>10}, shift {:>10}",
            format!("{order:?}").to_lowercase(),
            format_time(swap_time.as_nanos() as f64),
            format_time(shift_time.as_nanos() as f64)
        ));
    }
}

/// Part 3: the world's own removal on the built backend (the benchmark's seed 004 workload).
fn world_removals(out: &mut Out, n: usize) {
    let backend =
        BenchBackend::from_name(BACKEND).expect("the facade's backend is a bench backend");
    out.line(format!(
        "the same removals through World::remove on this build's backend ({} entities):",
        format_count(n)
    ));
    for workload in seed004::workloads() {
        let info = workload.info();
        let Some(order) = ["linear", "reverse", "random"]
            .into_iter()
            .find(|o| info.name == format!("remove_{o}_10k"))
        else {
            continue;
        };
        let mut prepared = workload
            .prepare_on(Runner::Backend(backend), n)
            .expect("runs on every backend");
        let start = Instant::now();
        prepared.run();
        let time = start.elapsed();
        out.measured(format!(
            "  {order:<8} {}",
            format_time(time.as_nanos() as f64)
        ));
    }
}

/// Part 4: bytes of one component stored in a sparse set against a linear array.
fn memory(out: &mut Out, entities: usize) {
    const SIZES: [usize; 3] = [8, 32, 128];
    const TENTHS: [u32; 3] = [1, 5, 10];
    out.line(format!(
        "memory of one component in a sparse set / in an array indexed by entity, {} entities:",
        format_count(entities)
    ));
    out.line(
        "  the seed's formula (8N + C·N·U against C·N + N/8): below 1 the sparse set is smaller",
    );
    for size in SIZES {
        let ratios: Vec<String> = TENTHS
            .iter()
            .map(|&t| format!("{:>3}% {:.2}", t * 10, seed_ratio(size, t)))
            .collect();
        out.line(format!("  {size:>3} B: {}", ratios.join("   ")));
    }
    let mut backends = vec![BenchBackend::sparse_set()];
    backends.extend(BenchBackend::from_name(BACKEND).filter(|b| *b != BenchBackend::sparse_set()));
    for backend in backends {
        out.measured(format!(
            "measured on the {} backend (bytes of the component / bytes of the linear array):",
            backend.name()
        ));
        let cells = memory_cells(backend, entities, &SIZES, &TENTHS);
        for row in cells.chunks(TENTHS.len()) {
            let line: Vec<String> = row.iter().map(cell).collect();
            out.measured(format!("  {:>3} B: {}", row[0].size, line.join("   ")));
        }
    }
}

/// `10% 1.09 (96.1 KiB)`.
fn cell(c: &MemoryCell) -> String {
    format!(
        "{:>3}% {:.2} ({})",
        c.utilisation,
        c.ratio,
        format_bytes(c.sparse_bytes)
    )
}

/// Runs the story at `size` and returns its output (printed as it goes when `echo`).
pub fn run(size: Size, echo: bool) -> String {
    let mut out = Out::new(BACKEND, echo);
    crud(&mut out);
    removals(&mut out, size.pick(20_000, 2_000));
    world_removals(&mut out, size.pick(100_000, 2_000));
    memory(&mut out, size.pick(100_000, 2_000));
    out.finish()
}

fn main() {
    run(Size::from_env_and_args(), true);
}
