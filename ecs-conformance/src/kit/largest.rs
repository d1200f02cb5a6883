//! A global allocator that remembers, per thread, the largest single allocation asked for
//! since the last [`reset`]: the bad-input tests check that no length stated by the input
//! sizes an allocation beyond what the input could hold.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, noting each request's size.
pub struct Tracking;

fn note(size: usize) {
    // `try_with`: the slot may be gone while the thread shuts down.
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
}

// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Forgets the largest allocation seen on this thread.
pub fn reset() {
    LARGEST.with(|largest| largest.set(0));
}

/// The largest allocation asked for on this thread since [`reset`].
pub fn largest() -> usize {
    LARGEST.with(Cell::get)
}
