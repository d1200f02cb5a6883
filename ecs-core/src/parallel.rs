//! The two parallel primitives the crate uses (`par_for_each`'s batches and the schedule's
//! dependency graph of systems), in one place so they can be swapped under Miri, or left
//! out.
//!
//! Without the `parallel` feature (no rayon) both run in order on the calling thread:
//! `par_for_each` is a plain loop and the schedule runs its systems one after another, in
//! an order the dependency graph allows. With it, they run on rayon's global pool. Under Miri they run on `std::thread::scope`
//! with `MIRI_THREADS` threads instead: rayon's work-stealing deque uses crossbeam-epoch,
//! which Miri's default aliasing model (Stacked Borrows) rejects, and whose pool threads
//! outlive `main` (crossbeam-rs/crossbeam#545, rayon-rs/rayon#1185; crossbeam tests itself
//! under Tree Borrows). Our own code — the pointers shared between threads, the disjoint
//! rows, the change-log locks — is the same on both paths, so Miri still checks it with real
//! threads and its data-race detector. (The rayon path also passes with
//! `MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-ignore-leaks"`.)

use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads used under Miri.
#[cfg(all(feature = "parallel", miri))]
pub const MIRI_THREADS: usize = 3;

/// How many threads parallel work is spread over (1 without the `parallel` feature).
pub fn threads() -> usize {
    #[cfg(all(feature = "parallel", not(miri)))]
    {
        rayon::current_num_threads()
    }
    #[cfg(all(feature = "parallel", miri))]
    {
        MIRI_THREADS
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// Calls `f(i)` for every `i` in `0..n`, in parallel, returning when all are done.
pub fn for_each_index(n: usize, f: impl Fn(usize) + Send + Sync) {
    #[cfg(all(feature = "parallel", not(miri)))]
    {
        use rayon::prelude::*;
        (0..n).into_par_iter().for_each(f);
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..n).for_each(f);
    }
    #[cfg(all(feature = "parallel", miri))]
    {
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

/// A run of a dependency graph of jobs (see [`run_graph`]).
struct GraphRun<'a, F> {
    /// `dependents[i]`: the jobs that wait for job `i`.
    dependents: &'a [Vec<usize>],
    /// For each job, how many of the jobs it waits for have not finished yet.
    remaining: Vec<AtomicUsize>,
    job: F,
}

impl<F: Fn(usize) -> bool + Sync> GraphRun<'_, F> {
    /// Runs `node`, then every job it makes ready: the first on this thread (no hand-off,
    /// so a chain of jobs runs without waking another thread), the others through `spawn`.
    fn run_from(&self, mut node: usize, spawn: &mut impl FnMut(usize)) {
        loop {
            if !(self.job)(node) {
                // Failed: what waits for it never becomes ready.
                return;
            }
            let mut next = None;
            for &d in &self.dependents[node] {
                // AcqRel: whoever takes the count to zero sees every write of the jobs
                // `d` waited for, on whichever threads they ran.
                if self.remaining[d].fetch_sub(1, Ordering::AcqRel) == 1 {
                    match next {
                        None => next = Some(d),
                        Some(_) => spawn(d),
                    }
                }
            }
            match next {
                Some(d) => node = d,
                None => return,
            }
        }
    }
}

/// Runs a dependency graph of jobs, each as soon as the jobs it waits for have finished,
/// returning when no job is left to start.
///
/// `dependents[i]` lists the jobs that wait for job `i`; `waits[i]` is how many jobs job
/// `i` waits for (the number of lists naming it); `roots` are the jobs to start with
/// (`waits` 0). `job(i)` runs job `i` and answers whether it succeeded: after a `false`,
/// the jobs that wait for job `i`, directly or through others, never start; every other job
/// still runs. Which jobs run therefore depends only on which fail, not on timing.
///
/// The calling thread runs the first root itself (rayon's `in_place_scope`): handing every
/// job to the pool from outside it would park the caller and wake a worker first, a
/// wake-up on every run's critical path.
pub fn run_graph(
    dependents: &[Vec<usize>],
    waits: &[usize],
    roots: impl IntoIterator<Item = usize>,
    job: impl Fn(usize) -> bool + Sync,
) {
    debug_assert_eq!(dependents.len(), waits.len());
    let run = GraphRun {
        dependents,
        remaining: waits.iter().map(|&w| AtomicUsize::new(w)).collect(),
        job,
    };
    let mut roots = roots.into_iter();
    let Some(first) = roots.next() else {
        return;
    };
    #[cfg(all(feature = "parallel", not(miri)))]
    rayon::in_place_scope(|scope| {
        for root in roots {
            launch(&run, scope, root);
        }
        run.run_from(first, &mut |d| launch(&run, scope, d));
    });
    #[cfg(not(feature = "parallel"))]
    {
        // In order: each ready job waits on a stack until the one before it has finished.
        let mut ready: Vec<usize> = roots.collect();
        ready.reverse();
        ready.push(first);
        while let Some(node) = ready.pop() {
            let mut next = Vec::new();
            run.run_from(node, &mut |d| next.push(d));
            ready.extend(next.into_iter().rev());
        }
    }
    #[cfg(all(feature = "parallel", miri))]
    std::thread::scope(|scope| {
        for root in roots {
            launch(&run, scope, root);
        }
        run.run_from(first, &mut |d| launch(&run, scope, d));
    });
}

/// Starts `node` (and what it makes ready) as a task of `scope`.
#[cfg(all(feature = "parallel", not(miri)))]
fn launch<'s, F: Fn(usize) -> bool + Sync>(
    run: &'s GraphRun<'s, F>,
    scope: &rayon::Scope<'s>,
    node: usize,
) {
    scope.spawn(move |scope| run.run_from(node, &mut |d| launch(run, scope, d)));
}

/// Starts `node` (and what it makes ready) on a thread of `scope`.
#[cfg(all(feature = "parallel", miri))]
fn launch<'s, 'e, F: Fn(usize) -> bool + Sync>(
    run: &'s GraphRun<'s, F>,
    scope: &'s std::thread::Scope<'s, 'e>,
    node: usize,
) {
    scope.spawn(move || run.run_from(node, &mut |d| launch(run, scope, d)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_once() {
        let hits: Vec<AtomicUsize> = (0..50).map(|_| AtomicUsize::new(0)).collect();
        for_each_index(hits.len(), |i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        assert!(threads() >= 1);
    }

    /// A diamond and a chain: 0 -> {1, 2} -> 3, and 4 -> 5.
    fn graph() -> (Vec<Vec<usize>>, Vec<usize>) {
        (
            vec![vec![1, 2], vec![3], vec![3], vec![], vec![5], vec![]],
            vec![0, 1, 1, 2, 0, 1],
        )
    }

    #[test]
    fn graph_jobs_run_once_after_what_they_wait_for() {
        let (dependents, waits) = graph();
        for _ in 0..20 {
            let clock = AtomicUsize::new(0);
            let finished: Vec<AtomicUsize> = (0..6).map(|_| AtomicUsize::new(0)).collect();
            let runs: Vec<AtomicUsize> = (0..6).map(|_| AtomicUsize::new(0)).collect();
            run_graph(&dependents, &waits, [0, 4], |i| {
                let now = clock.fetch_add(1, Ordering::SeqCst) + 1;
                for (before, list) in dependents.iter().enumerate() {
                    if list.contains(&i) {
                        let done = finished[before].load(Ordering::SeqCst);
                        assert!(done != 0 && done < now, "{i} started before {before} ended");
                    }
                }
                runs[i].fetch_add(1, Ordering::SeqCst);
                finished[i].store(clock.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                true
            });
            assert!(runs.iter().all(|r| r.load(Ordering::SeqCst) == 1));
        }
    }

    #[test]
    fn a_failed_job_skips_exactly_what_waits_for_it() {
        let (dependents, waits) = graph();
        for failing in [0, 1, 4] {
            let runs: Vec<AtomicUsize> = (0..6).map(|_| AtomicUsize::new(0)).collect();
            run_graph(&dependents, &waits, [0, 4], |i| {
                runs[i].fetch_add(1, Ordering::SeqCst);
                i != failing
            });
            let ran: Vec<usize> = runs.iter().map(|r| r.load(Ordering::SeqCst)).collect();
            let expected = match failing {
                // 1, 2 and 3 wait for 0; the chain 4 -> 5 does not.
                0 => [1, 0, 0, 0, 1, 1],
                // 3 waits for 1 (and 2); 2 and the chain run.
                1 => [1, 1, 1, 0, 1, 1],
                _ => [1, 1, 1, 1, 1, 0],
            };
            assert_eq!(ran, expected, "job {failing} failed");
        }
    }

    #[test]
    fn empty_graph_runs_nothing() {
        run_graph(&[], &[], [], |_| unreachable!("no job"));
    }
}
