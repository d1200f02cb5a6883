//! Seed 004's memory table, measured from real storages: heap bytes of one component type
//! kept in the sparse-set backend vs in a linear entity-indexed array ([`LinearStorage`]),
//! for component sizes 8…128 bytes × utilisation 10…100 %.
//!
//! Each cell builds a world of `entities` empty entities, registers the component, then
//! inserts it on `utilisation` of them, spread evenly over the index range; the counting
//! allocator reports the bytes the inserts left allocated. The linear array is sized to the
//! world's index bound (as an entity-indexed array is) and filled the same way. The seed's
//! formula (`8N + C·N·U` for the sparse set, `C·N + N/8` for the linear array with a bitmap)
//! is kept beside each measured cell.

use std::marker::PhantomData;

use ecs_core::{Component, Entity, Storage, World};
use serde::{Deserialize, Serialize};

use crate::alloc_counter::Region;
use crate::backend::{Backend, StorageVisitor};
use crate::components::Blob;
use crate::storages::LinearStorage;

/// Component sizes measured, in bytes.
pub const SIZES: [usize; 16] = [
    8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128,
];
/// Utilisations measured, in tenths.
pub const UTILISATIONS: [u32; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/// One cell of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryCell {
    /// Component size in bytes.
    pub size: usize,
    /// Share of entities holding the component, in percent.
    pub utilisation: u32,
    /// Bytes the sparse-set backend allocated for the component.
    pub sparse_bytes: usize,
    /// Bytes the linear array allocated.
    pub linear_bytes: usize,
    /// `sparse_bytes / linear_bytes`: below 1 the sparse set is smaller.
    pub ratio: f64,
    /// The same ratio from the seed's formula.
    pub seed_ratio: f64,
}

/// The whole table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryTable {
    /// Entities in the world (the seed's N).
    pub entities: usize,
    /// The backend measured as the sparse set.
    pub sparse_backend: String,
    /// Cells, size-major.
    pub cells: Vec<MemoryCell>,
}

impl MemoryTable {
    /// The cell for `size` bytes at `utilisation` percent.
    pub fn cell(&self, size: usize, utilisation: u32) -> Option<&MemoryCell> {
        self.cells
            .iter()
            .find(|c| c.size == size && c.utilisation == utilisation)
    }
}

/// Whether entity number `i` holds the component at `tenths`/10 utilisation: exactly
/// `tenths` of every 10 consecutive entities do, spread evenly.
pub fn selected(i: usize, tenths: u32) -> bool {
    (i * tenths as usize) % 10 < tenths as usize
}

/// The seed's formula ratio (sparse set bytes / linear array with bitmap bytes).
pub fn seed_ratio(size: usize, tenths: u32) -> f64 {
    let c = size as f64;
    (8.0 + c * f64::from(tenths) / 10.0) / (c + 0.125)
}

struct SparseBytes<T> {
    entities: usize,
    tenths: u32,
    component: PhantomData<fn() -> T>,
}

impl<T: Component + Copy + Default> StorageVisitor for SparseBytes<T> {
    type Output = usize;

    fn visit<S: Storage>(self) -> usize {
        let mut world = World::<S>::new();
        let entities: Vec<Entity> = (0..self.entities).map(|_| world.spawn(())).collect();
        world.register_component::<T>();
        let region = Region::start();
        for (i, &e) in entities.iter().enumerate() {
            if selected(i, self.tenths) {
                world.insert(e, T::default()).expect("live entity");
            }
        }
        let bytes = region.finish().retained_bytes.max(0) as usize;
        drop(world);
        bytes
    }
}

fn linear_bytes<T: Copy + Default>(entities: usize, tenths: u32) -> usize {
    let region = Region::start();
    let mut linear = LinearStorage::<T>::new();
    linear.reserve_index_bound(entities);
    for i in (0..entities).filter(|&i| selected(i, tenths)) {
        linear.insert(i, T::default());
    }
    let bytes = region.finish().retained_bytes.max(0) as usize;
    drop(linear);
    bytes
}

fn cell<T: Component + Copy + Default>(
    backend: Backend,
    entities: usize,
    tenths: u32,
) -> MemoryCell {
    let size = std::mem::size_of::<T>();
    let sparse_bytes = backend.visit(SparseBytes::<T> {
        entities,
        tenths,
        component: PhantomData,
    });
    let linear_bytes = linear_bytes::<T>(entities, tenths);
    MemoryCell {
        size,
        utilisation: tenths * 10,
        sparse_bytes,
        linear_bytes,
        ratio: sparse_bytes as f64 / linear_bytes.max(1) as f64,
        seed_ratio: seed_ratio(size, tenths),
    }
}

/// Measures the table with `entities` entities on `backend` (normally
/// [`Backend::sparse_set`]). Needs the counting allocator installed; otherwise every byte
/// count is 0.
pub fn memory_table(backend: Backend, entities: usize) -> MemoryTable {
    MemoryTable {
        entities,
        sparse_backend: backend.name().to_owned(),
        cells: memory_cells(backend, entities, &SIZES, &UTILISATIONS),
    }
}

/// The cells for component sizes `sizes` (from [`SIZES`]; others are skipped) at
/// utilisations `tenths`, size-major, measured as [`memory_table`] does: what the
/// `component_storage` example prints for a few of them.
pub fn memory_cells(
    backend: Backend,
    entities: usize,
    sizes: &[usize],
    tenths: &[u32],
) -> Vec<MemoryCell> {
    let mut cells = Vec::with_capacity(sizes.len() * tenths.len());
    for &size in sizes {
        for &t in tenths {
            macro_rules! by_size {
                ($($words:literal),*) => {
                    match size / 8 {
                        $($words if size % 8 == 0 => cell::<Blob<$words>>(backend, entities, t),)*
                        _ => continue,
                    }
                };
            }
            cells.push(by_size!(
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
            ));
        }
    }
    cells
}

/// Entities per world at each scale: large enough that page granularity does not dominate
/// at full size (the ratio of the seed's formula does not depend on N).
pub fn entities_for(scale: crate::workload::Scale) -> usize {
    match scale {
        crate::workload::Scale::Full => 100_000,
        crate::workload::Scale::Quick => 10_000,
        crate::workload::Scale::Test => 500,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_hits_the_utilisation_exactly() {
        for tenths in UTILISATIONS {
            let hits = (0..1000).filter(|&i| selected(i, tenths)).count();
            assert_eq!(hits, 100 * tenths as usize);
        }
    }

    #[test]
    fn seed_formula_matches_the_seeds_table() {
        // Seed 004, N = 1000: size 8 at 10 % is 8800 vs 8125; size 128 at 100 % is
        // 136000 vs 128125.
        assert!((seed_ratio(8, 1) - 8800.0 / 8125.0).abs() < 1e-9);
        assert!((seed_ratio(128, 10) - 136_000.0 / 128_125.0).abs() < 1e-9);
    }
}
