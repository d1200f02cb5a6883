//! The counting allocator counts allocations and peak live bytes. One test per binary
//! function so other tests' threads do not allocate concurrently with the measurement.

use ecs_bench::alloc_counter::{self, CountingAllocator, Region};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn counts_allocations_and_peak() {
    assert!(alloc_counter::is_installed());

    let region = Region::start();
    let big = std::hint::black_box(vec![0u8; 1 << 20]);
    let small = std::hint::black_box(Box::new([1u64; 4]));
    drop(big);
    drop(small);
    let usage = region.finish();
    assert!(usage.allocations >= 2, "{usage:?}");
    assert!(usage.peak_bytes >= (1 << 20) + 32, "{usage:?}");
    assert!(usage.retained_bytes < 1 << 20, "{usage:?}");

    // Growth by reallocation counts each step; the peak covers old + new block only if the
    // allocator had to copy, so only the final size is a lower bound.
    let (v, usage) = alloc_counter::measure(|| {
        let mut v = Vec::new();
        for i in 0..1000u32 {
            v.push(i);
        }
        v
    });
    assert!(usage.allocations >= 5, "{usage:?}");
    assert!(usage.peak_bytes >= 4000, "{usage:?}");
    assert!(usage.retained_bytes >= 4000, "{usage:?}");
    drop(v);

    // Nothing allocated: nothing counted.
    let ((), usage) = alloc_counter::measure(|| {
        std::hint::black_box(1 + 1);
    });
    assert_eq!(usage.allocations, 0);
    assert_eq!(usage.peak_bytes, 0);
}
