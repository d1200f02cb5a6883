//! Keeping storages consistent when user code (a component's `Drop`) panics.

/// Calls `f` on every item, even if one of the calls panics.
///
/// Storages drop several values in a row (the components of a despawned entity, a whole
/// column on `clear`). If one `Drop` panics, the rest must still be dropped or they leak;
/// a guard finishes the loop while the panic unwinds, then the panic carries on to the caller.
/// A second panic during that unwinding aborts the process, as Rust does for any double panic.
pub fn for_each_completing<I: Iterator>(iter: I, f: impl FnMut(I::Item)) {
    struct Finish<I: Iterator, F: FnMut(I::Item)> {
        iter: I,
        f: F,
    }
    impl<I: Iterator, F: FnMut(I::Item)> Drop for Finish<I, F> {
        fn drop(&mut self) {
            for item in self.iter.by_ref() {
                (self.f)(item);
            }
        }
    }
    let mut finish = Finish { iter, f };
    for item in finish.iter.by_ref() {
        (finish.f)(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    #[test]
    fn finishes_after_a_panic() {
        let mut seen = Vec::new();
        let result = catch_unwind(AssertUnwindSafe(|| {
            for_each_completing(0..5, |i| {
                seen.push(i);
                assert_ne!(i, 2, "boom");
            })
        }));
        assert!(result.is_err());
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
    }
}
