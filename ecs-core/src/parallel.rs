//! The two parallel primitives the crate uses (`par_for_each`'s batches and the schedule's
//! waves), in one place so they can be swapped under Miri.
//!
//! Normally they run on rayon's global pool. Under Miri they run on `std::thread::scope`
//! with [`MIRI_THREADS`] threads instead: rayon's work-stealing deque uses crossbeam-epoch,
//! which Miri's default aliasing model (Stacked Borrows) rejects, and whose pool threads
//! outlive `main` (crossbeam-rs/crossbeam#545, rayon-rs/rayon#1185; crossbeam tests itself
//! under Tree Borrows). Our own code — the pointers shared between threads, the disjoint
//! rows, the change-log locks — is the same on both paths, so Miri still checks it with real
//! threads and its data-race detector. (The rayon path also passes with
//! `MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-ignore-leaks"`.)

/// Threads used under Miri.
#[cfg(miri)]
pub const MIRI_THREADS: usize = 3;

/// How many threads parallel work is spread over.
pub fn threads() -> usize {
    #[cfg(not(miri))]
    {
        rayon::current_num_threads()
    }
    #[cfg(miri)]
    {
        MIRI_THREADS
    }
}

/// Calls `f(i)` for every `i` in `0..n`, in parallel, returning when all are done.
pub fn for_each_index(n: usize, f: impl Fn(usize) + Send + Sync) {
    #[cfg(not(miri))]
    {
        use rayon::prelude::*;
        (0..n).into_par_iter().for_each(f);
    }
    #[cfg(miri)]
    {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..MIRI_THREADS.min(n) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    f(i);
                });
            }
        });
    }
}

/// Runs `f(job)` for every job, each on its own task, returning when all are done.
pub fn run_each<T: Send>(jobs: impl IntoIterator<Item = T>, f: impl Fn(T) + Send + Sync) {
    let (f, jobs): (_, Vec<T>) = (&f, jobs.into_iter().collect());
    #[cfg(not(miri))]
    rayon::scope(|scope| {
        for job in jobs {
            scope.spawn(move |_| f(job));
        }
    });
    #[cfg(miri)]
    std::thread::scope(|scope| {
        for job in jobs {
            scope.spawn(move || f(job));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_index_once() {
        let hits: Vec<AtomicUsize> = (0..50).map(|_| AtomicUsize::new(0)).collect();
        for_each_index(hits.len(), |i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        assert!(threads() >= 1);
    }

    #[test]
    fn every_job_runs() {
        let mut slots = vec![0u32; 5];
        run_each(slots.iter_mut().enumerate(), |(i, slot)| {
            *slot = i as u32 * 2
        });
        assert_eq!(slots, vec![0, 2, 4, 6, 8]);
    }
}
