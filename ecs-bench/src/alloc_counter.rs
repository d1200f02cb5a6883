//! A counting global allocator: allocation count, live heap bytes and peak live heap bytes.
//!
//! [`CountingAllocator`] wraps [`std::alloc::System`] and keeps three process-wide counters.
//! It only counts once a program installs it:
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: ecs_bench::alloc_counter::CountingAllocator =
//!     ecs_bench::alloc_counter::CountingAllocator;
//! ```
//!
//! The `ecs-bench` binary, every bench and the tests that look at memory install it. A
//! measurement brackets the code it measures with [`Region::start`] and [`Region::finish`]:
//!
//! ```text
//!   live bytes ─┐        ┌─ peak (reset to `live` at start)
//!               │   /\   │
//!   start ──────┼──/  \──┼────── finish
//!               └─ allocations counted in between
//! ```
//!
//! Counts are process-wide, not per thread: allocations made by rayon workers inside a
//! workload are the workload's; nothing else may run concurrently with a measurement (the
//! report draws its progress bar only between measurements).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The counting wrapper around the system allocator (see the module docs).
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingAllocator;

impl CountingAllocator {
    #[inline]
    fn on_alloc(size: usize) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }

    #[inline]
    fn on_dealloc(size: usize) {
        LIVE.fetch_sub(size, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract (valid layouts in, valid blocks out, blocks freed with the layout
// they were allocated with) is `System`'s; the counters are plain atomics that never affect
// what is returned.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract: `layout` has non-zero size (caller).
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            Self::on_alloc(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract, as in `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            Self::on_alloc(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator (so by `System`) with `layout`
        // (caller).
        unsafe { System.dealloc(ptr, layout) };
        Self::on_dealloc(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` with `layout`; `new_size` is valid for
        // `layout.align()` (caller).
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // A reallocation is counted as one allocation of the new size replacing the old
            // block, the way the seed's allocation counts treat a growing array.
            Self::on_dealloc(layout.size());
            Self::on_alloc(new_size);
        }
        new
    }
}

/// Asks the C allocator underneath [`std::alloc::System`] to keep freed memory in the
/// process instead of returning it to the operating system (glibc: no `mmap` for large
/// blocks, no trimming of the heap top).
///
/// Otherwise a workload that builds a fresh world pays first-touch page faults whenever the
/// allocator happened to give the previous world's pages back, and whether it did depends
/// on glibc's adaptive thresholds: the same run then varied by 3× between samples. With this,
/// every run after the first allocates from warm memory, as a long-running program does. The
/// byte and allocation counts are unaffected. A no-op on other platforms.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only changes glibc's allocation policy; it is called before any
        // measurement, and both settings are valid values for these parameters (`M_MMAP_MAX`
        // = 0 disables `mmap` for large blocks, `M_TRIM_THRESHOLD` is a byte count).
        unsafe {
            libc::mallopt(libc::M_MMAP_MAX, 0);
            libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        }
    }
}

/// A snapshot of the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Allocations (including reallocations) since the process started.
    pub allocations: u64,
    /// Heap bytes currently allocated.
    pub live_bytes: usize,
    /// Highest `live_bytes` since the last [`reset_peak`].
    pub peak_bytes: usize,
}

/// The current counters.
pub fn counters() -> Counters {
    Counters {
        allocations: ALLOCATIONS.load(Ordering::Relaxed),
        live_bytes: LIVE.load(Ordering::Relaxed),
        peak_bytes: PEAK.load(Ordering::Relaxed),
    }
}

/// Sets the peak to the current live bytes, starting a new peak measurement.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// Whether [`CountingAllocator`] is this program's global allocator (it counts a test
/// allocation).
pub fn is_installed() -> bool {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let probe = std::hint::black_box(Box::new(0u64));
    drop(probe);
    ALLOCATIONS.load(Ordering::Relaxed) != before
}

/// What happened on the heap between [`Region::start`] and [`Region::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeapUsage {
    /// Allocations made (reallocations included).
    pub allocations: u64,
    /// Highest live heap bytes reached, above the level at the start.
    pub peak_bytes: usize,
    /// Live bytes at the end minus live bytes at the start (negative when memory was freed).
    pub retained_bytes: isize,
}

/// A measured stretch of code (see the module docs).
#[derive(Debug)]
pub struct Region {
    start: Counters,
}

impl Region {
    /// Starts measuring: resets the peak to the current live bytes.
    pub fn start() -> Region {
        reset_peak();
        Region { start: counters() }
    }

    /// Stops measuring and reports the difference.
    pub fn finish(self) -> HeapUsage {
        let end = counters();
        HeapUsage {
            allocations: end.allocations - self.start.allocations,
            peak_bytes: end.peak_bytes.saturating_sub(self.start.live_bytes),
            retained_bytes: end.live_bytes as isize - self.start.live_bytes as isize,
        }
    }
}

/// Runs `f` and reports its heap usage along with its result.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, HeapUsage) {
    let region = Region::start();
    let out = f();
    (out, region.finish())
}
