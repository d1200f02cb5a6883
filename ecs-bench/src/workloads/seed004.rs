//! Seed 004 ("Compacting components"): remove 10k / 100k / 250k elements from one storage in
//! Linear, Reverse and Random order.
//!
//! * `remove_{order}_{count}` runs on every backend (`World::remove` of the only component)
//!   and, as the baseline, on [`CompactSparseSet::remove_swap`] (the seed's
//!   `RemoveAndSwapBack`).
//! * `remove_shift_{order}_{count}` is baseline-only: [`CompactSparseSet::remove_shift`], the
//!   seed's order-preserving `List` removal, O(n²) in Linear and Random order. It runs at
//!   10k (the seed's smallest size, with its anchor) and 20k ([`SHIFT_COUNTS`]), not at the
//!   seed's 100k and 250k: those took 90 s of a 5-minute report (the 250k Linear row alone
//!   60 s; 37 s per run in the seed), and doubling the count already shows the quadratic
//!   growth (four times the time).
//!
//! The memory half of the seed (linear array vs sparse set) is in [`super::seed004_memory`].

use ecs_conformance::kit::Rng;
use ecs_core::{Entity, Storage, World};

use super::{info, sizes, Builtin, InfoExt};
use crate::components::{Data, Digest};
use crate::storages::CompactSparseSet;
use crate::workload::{prepared, DynWorkload, Prepared, Workload, WorkloadInfo};

const SOURCE: &str = "seed 004, C# BenchmarkDotNet mean";

/// The counts the swap rows run at: the seed's three.
pub const SWAP_COUNTS: [usize; 3] = [10_000, 100_000, 250_000];

/// The counts the shift rows run at (see the module docs for why not the seed's).
pub const SHIFT_COUNTS: [usize; 2] = [10_000, 20_000];

/// What the report says beside the shift rows.
const SHIFT_NOTE: &str = "shift rows run at 10k and 20k, not the seed's 100k and 250k: the \
                          removal is O(n²) (twice the elements, four times the time), and the \
                          seed's sizes took 90 s of the report";

/// The shuffle seed of the Random order.
pub const ORDER_SEED: u64 = 0x5EED_0004;

/// The order elements are removed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// First inserted first.
    Linear,
    /// Last inserted first.
    Reverse,
    /// A fixed-seed shuffle.
    Random,
}

impl Order {
    fn key(self) -> &'static str {
        match self {
            Order::Linear => "linear",
            Order::Reverse => "reverse",
            Order::Random => "random",
        }
    }

    /// The removal order of indices `0..n`.
    pub fn indices(self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        match self {
            Order::Linear => {}
            Order::Reverse => order.reverse(),
            Order::Random => Rng::new(ORDER_SEED).shuffle(&mut order),
        }
        order
    }
}

/// How a removed element's gap is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Move the last element into the gap.
    Swap,
    /// Shift every later element down (keeps order).
    Shift,
}

/// The seed's means, µs: (strategy, order, count) → anchor text.
fn anchor(strategy: Strategy, order: Order, count: usize) -> Option<&'static str> {
    use Order::*;
    use Strategy::*;
    Some(match (strategy, order, count) {
        (Swap, Reverse, 10_000) => "41.68 µs (RemoveAndSwapBack)",
        (Swap, Linear, 10_000) => "42.82 µs (RemoveAndSwapBack)",
        (Swap, Random, 10_000) => "45.59 µs (RemoveAndSwapBack)",
        (Swap, Reverse, 100_000) => "290.98 µs (RemoveAndSwapBack)",
        (Swap, Linear, 100_000) => "295.25 µs (RemoveAndSwapBack)",
        (Swap, Random, 100_000) => "409.35 µs (RemoveAndSwapBack)",
        (Swap, Reverse, 250_000) => "687.89 µs (RemoveAndSwapBack)",
        (Swap, Linear, 250_000) => "691.51 µs (RemoveAndSwapBack)",
        (Swap, Random, 250_000) => "1,064.65 µs (RemoveAndSwapBack)",
        (Shift, Reverse, 10_000) => "61.86 µs (List)",
        (Shift, Random, 10_000) => "28,061.13 µs (List)",
        (Shift, Linear, 10_000) => "57,214.52 µs (List)",
        (Shift, Reverse, 100_000) => "440.00 µs (List)",
        (Shift, Random, 100_000) => "2,898,043.15 µs (List)",
        (Shift, Linear, 100_000) => "5,824,036.29 µs (List)",
        (Shift, Reverse, 250_000) => "1,059.04 µs (List)",
        (Shift, Random, 250_000) => "17,908,060.10 µs (List)",
        (Shift, Linear, 250_000) => "36,972,363.97 µs (List)",
        _ => return None,
    })
}

/// Every removal workload, in registry order: the swap rows at [`SWAP_COUNTS`], then the
/// shift rows at [`SHIFT_COUNTS`], each count in the three orders.
const REMOVALS: [(Builtin, Strategy, Order, usize); 15] = {
    use Order::*;
    use Strategy::*;
    [
        (Builtin::RemoveLinear10k, Swap, Linear, 10_000),
        (Builtin::RemoveReverse10k, Swap, Reverse, 10_000),
        (Builtin::RemoveRandom10k, Swap, Random, 10_000),
        (Builtin::RemoveLinear100k, Swap, Linear, 100_000),
        (Builtin::RemoveReverse100k, Swap, Reverse, 100_000),
        (Builtin::RemoveRandom100k, Swap, Random, 100_000),
        (Builtin::RemoveLinear250k, Swap, Linear, 250_000),
        (Builtin::RemoveReverse250k, Swap, Reverse, 250_000),
        (Builtin::RemoveRandom250k, Swap, Random, 250_000),
        (Builtin::RemoveShiftLinear10k, Shift, Linear, 10_000),
        (Builtin::RemoveShiftReverse10k, Shift, Reverse, 10_000),
        (Builtin::RemoveShiftRandom10k, Shift, Random, 10_000),
        (Builtin::RemoveShiftLinear20k, Shift, Linear, 20_000),
        (Builtin::RemoveShiftReverse20k, Shift, Reverse, 20_000),
        (Builtin::RemoveShiftRandom20k, Shift, Random, 20_000),
    ]
};

/// The seed 004 removal workloads.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    REMOVALS
        .iter()
        .map(
            |&(workload, strategy, order, count)| -> Box<dyn DynWorkload> {
                Box::new(Removal::new(workload, strategy, order, count))
            },
        )
        .collect()
}

/// One removal workload (see the module docs).
pub struct Removal {
    order: Order,
    strategy: Strategy,
    info: WorkloadInfo,
}

impl Removal {
    fn new(workload: Builtin, strategy: Strategy, order: Order, count: usize) -> Removal {
        let description = match strategy {
            Strategy::Swap => format!(
                "remove the only component of every entity in {} order \
                 (baseline: sparse set, swap-remove)",
                order.key()
            ),
            Strategy::Shift => format!(
                "order-preserving shift removal from a sparse set, {} order",
                order.key()
            ),
        };
        let mut info = info(
            workload,
            description,
            match strategy {
                Strategy::Swap => sizes(count, count / 2, count / 100),
                Strategy::Shift => sizes(count, count / 10, count / 100),
            },
            "elements",
        )
        .baseline();
        if strategy == Strategy::Shift {
            info = info.baseline_only().note(SHIFT_NOTE);
        }
        if let Some(value) = anchor(strategy, order, count) {
            info = info.anchor(value, SOURCE);
        }
        Removal {
            order,
            strategy,
            info,
        }
    }
}

/// What the removals leave for the checksum.
struct RemovalState<St> {
    store: St,
    order: Vec<usize>,
    removed: Digest,
}

impl Workload for Removal {
    fn info(&self) -> &WorkloadInfo {
        &self.info
    }

    fn prepare<St: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<St>::new();
        let entities: Vec<Entity> = world
            .spawn_batch((0..n).map(|i| (Data(i as f32),)))
            .to_vec();
        let order = self.order.indices(n);
        prepared(
            RemovalState {
                store: (world, entities),
                order,
                removed: Digest::default(),
            },
            |s| {
                let (world, entities) = &mut s.store;
                for &i in &s.order {
                    let data = world.remove::<Data>(entities[i]).expect("present");
                    s.removed.add(u64::from(data.0.to_bits()));
                }
            },
            |s| {
                let remaining = s.store.0.query::<&Data>().count();
                s.removed.finish(remaining)
            },
        )
    }

    fn prepare_baseline(&self, n: usize) -> Option<Box<dyn Prepared>> {
        let mut set = CompactSparseSet::with_capacity(n, n);
        for i in 0..n {
            set.insert(i as u32, Data(i as f32));
        }
        let order = self.order.indices(n);
        let strategy = self.strategy;
        Some(prepared(
            RemovalState {
                store: set,
                order,
                removed: Digest::default(),
            },
            move |s| {
                for &i in &s.order {
                    let data = match strategy {
                        Strategy::Swap => s.store.remove_swap(i as u32),
                        Strategy::Shift => s.store.remove_shift(i as u32),
                    };
                    s.removed.add(u64::from(data.expect("present").0.to_bits()));
                }
            },
            |s| s.removed.finish(s.store.len()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_removals_are_every_count_in_every_order_named_after_them() {
        let mut expected = Vec::new();
        for (strategy, counts) in [
            (Strategy::Swap, &SWAP_COUNTS[..]),
            (Strategy::Shift, &SHIFT_COUNTS[..]),
        ] {
            for &count in counts {
                for order in [Order::Linear, Order::Reverse, Order::Random] {
                    expected.push((strategy, order, count));
                }
            }
        }
        let listed: Vec<_> = REMOVALS.iter().map(|&(_, s, o, c)| (s, o, c)).collect();
        assert_eq!(listed, expected);
        for (workload, strategy, order, count) in REMOVALS {
            let kind = match strategy {
                Strategy::Swap => "",
                Strategy::Shift => "shift_",
            };
            let name = format!("remove_{kind}{}_{}k", order.key(), count / 1000);
            assert_eq!(workload.name(), name);
        }
    }
}
