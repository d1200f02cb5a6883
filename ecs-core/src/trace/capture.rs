//! Recording worlds the caller does not hold: a benchmark's workloads build and keep their
//! own worlds, so a tool that traces them cannot call `start_trace` on each.
//!
//! Inside [`capture`], every [`Traced`](super::Traced) storage created on this thread
//! records from its creation, [`frame`] marks a frame in all of them, and each one's trace
//! is collected when it is dropped.
//!
//! ```
//! use ecs_core::trace::{self, Traced};
//! use ecs_core::{Component, World};
//! # use ecs_core::testing::VecStorage;
//! #[derive(Component)]
//! struct Pos(f32);
//!
//! let ((), traces) = trace::capture(|| {
//!     let mut world = World::<Traced<VecStorage>>::new(); // records from here
//!     world.spawn((Pos(1.0),));
//!     trace::frame();
//!     world.query::<&mut Pos>().for_each(|p| p.0 += 1.0);
//! }); // the world is dropped: its trace is collected
//! assert_eq!(traces.len(), 1);
//! assert_eq!(traces[0].frames(), 1);
//! ```

use std::cell::RefCell;

use super::format::Trace;

/// The capture in progress on this thread.
struct Capture {
    /// Frames marked so far.
    frames: u64,
    /// Traces of the recording storages dropped so far.
    traces: Vec<Trace>,
}

thread_local! {
    static CAPTURE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// Runs `f`, recording every `Traced` storage created on this thread meanwhile, and
/// returns `f`'s result with the traces of those dropped before it returned, in the order
/// they were dropped (a storage still alive afterwards keeps recording and is not
/// collected). Captures do not nest: an inner one collects the storages created inside it.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<Trace>) {
    let outer = CAPTURE.with(|c| {
        c.borrow_mut().replace(Capture {
            frames: 0,
            traces: Vec::new(),
        })
    });
    // Restores the outer capture even if `f` panics.
    struct Restore(Option<Option<Capture>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                CAPTURE.with(|c| *c.borrow_mut() = outer);
            }
        }
    }
    let restore = Restore(Some(outer));
    let out = f();
    let traces = CAPTURE.with(|c| c.borrow_mut().take().map(|c| c.traces));
    drop(restore);
    (out, traces.unwrap_or_default())
}

/// Marks the end of a frame in every storage recording for the current [`capture`]
/// (nothing outside one).
pub fn frame() {
    CAPTURE.with(|c| {
        if let Some(capture) = c.borrow_mut().as_mut() {
            capture.frames += 1;
        }
    });
}

/// The frames marked in the current capture, if one is in progress.
pub(crate) fn frames() -> Option<u64> {
    CAPTURE.with(|c| c.borrow().as_ref().map(|c| c.frames))
}

/// Hands a finished trace to the current capture; `false` when there is none.
pub(crate) fn collect(trace: Trace) -> bool {
    CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(capture) => {
            capture.traces.push(trace);
            true
        }
        None => false,
    })
}
