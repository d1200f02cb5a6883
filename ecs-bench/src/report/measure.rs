//! Timing one workload on several runners, interleaved so machine drift does not favour one.
//!
//! Per runner, a first run from a freshly prepared state is the *calibration run*: it gives
//! the checksum every later run must repeat, the heap numbers (peak above the starting level
//! and allocation count, as seed 000 takes them from its first test) and a first time. From
//! that time a batch size is chosen so one sample lasts about `target_sample`: a repeatable
//! workload runs its prepared state that many times in a row, a non-repeatable one that
//! many freshly prepared states, each prepared just before its run, timed on its own and
//! dropped (untimed) before the next is prepared, so every run starts from the same heap and
//! cache state whatever its runner's batch. Samples then go round the runners in a rotating
//! order (`sample i` starts with runner `i mod R`), and the median per run is what the report
//! shows.
//!
//! A *stepped* workload ([`crate::workload::WorkloadInfo::stepped`]) has untimed work before
//! every run (`Prepared::step`): its runs are then timed one by one, as a non-repeatable
//! workload's are, the step between them left out of the clock.

use std::time::{Duration, Instant};

use crate::alloc_counter::{HeapUsage, Region};
use crate::backend::Runner;
use crate::workload::{DynWorkload, Scale};

/// How much measuring a workload gets.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Samples per runner at least (unless one round of samples exceeds `slow_round`).
    pub min_samples: usize,
    /// Samples per runner at most.
    pub max_samples: usize,
    /// Samples per runner when one round (every runner once) takes longer than `slow_round`.
    pub slow_samples: usize,
    /// See `slow_samples`.
    pub slow_round: Duration,
    /// Aim for samples at least this long (batching short runs).
    pub target_sample: Duration,
    /// Aim for all samples of one workload to take about this long in wall-clock time,
    /// preparing their states included (a workload whose worlds are slow to build gets
    /// fewer samples, down to `min_samples`).
    pub budget: Duration,
    /// Most runs of one prepared state per sample (repeatable workloads).
    pub max_batch: usize,
    /// Most prepared states per sample (non-repeatable workloads).
    pub max_states: usize,
}

impl Settings {
    /// The settings for a report at `scale`.
    pub fn for_scale(scale: Scale) -> Settings {
        match scale {
            // A round over a second gets 3 samples: only seed 001's entity-index rows (about
            // 1.2 s a round on the three backends) are that slow.
            Scale::Full => Settings {
                min_samples: 7,
                max_samples: 41,
                slow_samples: 3,
                slow_round: Duration::from_secs(1),
                target_sample: Duration::from_millis(5),
                budget: Duration::from_millis(1500),
                max_batch: 10_000,
                max_states: 32,
            },
            Scale::Quick => Settings {
                min_samples: 5,
                max_samples: 21,
                slow_samples: 3,
                slow_round: Duration::from_secs(1),
                target_sample: Duration::from_millis(2),
                budget: Duration::from_millis(500),
                max_batch: 10_000,
                max_states: 16,
            },
            Scale::Test => Settings {
                min_samples: 1,
                max_samples: 1,
                slow_samples: 1,
                slow_round: Duration::ZERO,
                target_sample: Duration::ZERO,
                budget: Duration::ZERO,
                max_batch: 1,
                max_states: 1,
            },
        }
    }
}

/// What was measured for one runner.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The runner.
    pub runner: Runner,
    /// Time per run of every sample, in nanoseconds.
    pub samples_ns: Vec<f64>,
    /// Whether every round gave this runner a sample, so `samples_ns[k]` is round `k`'s and
    /// pairs with another such runner's `samples_ns[k]` (a round's sample is missing only if
    /// preparing the state failed after the calibration run's had not).
    pub every_round: bool,
    /// Runs per sample.
    pub batch: usize,
    /// Heap usage of the calibration run.
    pub heap: HeapUsage,
    /// The calibration run's checksum.
    pub checksum: u64,
    /// Whether every later run repeated it.
    pub checksum_stable: bool,
    /// Bytes the calibration run processed, for throughput workloads.
    pub bytes: Option<u64>,
}

impl Measured {
    /// Median time per run, in nanoseconds.
    pub fn median_ns(&self) -> f64 {
        median(&self.samples_ns)
    }
}

/// The median of `values` (0 for none).
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile(&sorted, 0.5)
}

/// The `p`-quantile (`p` in 0..=1) of the ascending, non-empty `sorted`, interpolated
/// linearly between neighbouring ranks: at 0.5 the median (the middle value, or the mean of
/// the two middle ones), at 0.25 and 0.75 the quartiles the targets' rounds use.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let rank = (sorted.len() - 1) as f64 * p;
    let below = rank.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    let frac = rank - below as f64;
    // Weighted so that a whole rank (frac 0) is that value exactly, and a half rank is
    // `(a + b) / 2` to the last bit (halving is exact).
    (1.0 - frac) * sorted[below] + frac * sorted[above]
}

/// One runner's calibration.
struct Calibration {
    runner: Runner,
    first: Duration,
    /// Wall-clock time one sample spends preparing states (once for a repeatable
    /// workload, once per run of the batch otherwise): counted in the budget, so a
    /// workload whose worlds are slow to build takes fewer samples, not minutes.
    setup: Duration,
    heap: HeapUsage,
    checksum: u64,
    batch: usize,
    bytes: Option<u64>,
}

fn calibrate(
    workload: &dyn DynWorkload,
    runner: Runner,
    size: usize,
    settings: &Settings,
) -> Option<Calibration> {
    let setup_start = Instant::now();
    let mut prepared = workload.prepare_on(runner, size)?;
    if workload.info().repeatable {
        // The untimed first pass every sample of a repeatable workload runs (see `sample`).
        prepared.step();
        prepared.run();
    }
    prepared.step();
    let prepare = setup_start.elapsed();
    let region = Region::start();
    let start = Instant::now();
    prepared.run();
    let first = start.elapsed();
    let heap = region.finish();
    let checksum = prepared.checksum();
    let bytes = prepared.bytes();
    drop(prepared);
    let limit = if workload.info().repeatable {
        settings.max_batch
    } else {
        settings.max_states
    };
    let wanted = settings.target_sample.as_nanos() / first.as_nanos().max(1);
    let batch = (wanted as usize).clamp(1, limit.max(1));
    let setup = if workload.info().repeatable {
        prepare
    } else {
        prepare * batch as u32
    };
    Some(Calibration {
        runner,
        first,
        setup,
        heap,
        checksum,
        batch,
        bytes,
    })
}

/// One sample: time per run, and whether every run repeated `checksum`.
fn sample(
    workload: &dyn DynWorkload,
    calibration: &Calibration,
    size: usize,
) -> Option<(f64, bool)> {
    let batch = calibration.batch;
    let runner = calibration.runner;
    let info = workload.info();
    if info.repeatable {
        let mut prepared = workload.prepare_on(runner, size)?;
        // One untimed pass first: a repeatable workload measures the passes a program runs
        // every frame, not the first one over a state just built (lazy query caches and
        // their alignment memos, first touch of fresh pages), which the peers pay in their
        // own untimed preparation (query states made once).
        prepared.step();
        prepared.run();
        prepared.step();
        let start = Instant::now();
        prepared.run();
        let mut elapsed = start.elapsed();
        let ok = prepared.checksum() == calibration.checksum;
        if info.stepped {
            for _ in 1..batch {
                prepared.step();
                let start = Instant::now();
                prepared.run();
                elapsed += start.elapsed();
            }
        } else {
            let start = Instant::now();
            for _ in 1..batch {
                prepared.run();
            }
            elapsed += start.elapsed();
        }
        drop(prepared);
        Some((elapsed.as_nanos() as f64 / batch as f64, ok))
    } else {
        // One state at a time: prepared just before its run and dropped just after, both
        // untimed, as in the calibration run, so every run starts from the same heap and
        // cache state. Timing the batch's states back to back kept every run's result alive
        // until the last run, so each run found a heap one world larger than the one before
        // (and its state prepared longer ago), and a runner whose calibration happened to
        // choose a larger batch ran on a larger heap: in one full run simple_insert's hybrid
        // (32 states a sample) measured 1.20x the archetype backend (6 states) while both
        // executed the same instructions within 0.3 %.
        let mut elapsed = Duration::ZERO;
        let mut ok = true;
        for _ in 0..batch {
            let mut prepared = workload.prepare_on(runner, size)?;
            prepared.step();
            let start = Instant::now();
            prepared.run();
            elapsed += start.elapsed();
            ok &= prepared.checksum() == calibration.checksum;
        }
        Some((elapsed.as_nanos() as f64 / batch as f64, ok))
    }
}

/// Measures `workload` at `size` on every runner of `runners` that runs it. `progress` is
/// told what is about to run (between measurements, never during one).
pub fn measure_workload(
    workload: &dyn DynWorkload,
    runners: &[Runner],
    size: usize,
    settings: &Settings,
    progress: &mut dyn FnMut(&str),
) -> Vec<Measured> {
    let name = &workload.info().name;
    let mut calibrations = Vec::new();
    for &runner in runners {
        progress(&format!("{name} · {runner} · calibrating"));
        calibrations.extend(calibrate(workload, runner, size, settings));
    }
    if calibrations.is_empty() {
        return Vec::new();
    }
    let round: Duration = calibrations.iter().map(|c| c.first * c.batch as u32).sum();
    let wall: Duration = round + calibrations.iter().map(|c| c.setup).sum::<Duration>();
    let samples = if round > settings.slow_round {
        settings.slow_samples
    } else {
        let fit = settings.budget.as_nanos() / wall.as_nanos().max(1);
        (fit as usize).clamp(settings.min_samples, settings.max_samples)
    };

    let mut times = vec![Vec::with_capacity(samples); calibrations.len()];
    let mut stable = vec![true; calibrations.len()];
    for s in 0..samples {
        for j in 0..calibrations.len() {
            let index = (j + s) % calibrations.len();
            let calibration = &calibrations[index];
            progress(&format!(
                "{name} · {} · sample {}/{samples}",
                calibration.runner,
                s + 1
            ));
            if let Some((ns, ok)) = sample(workload, calibration, size) {
                times[index].push(ns);
                stable[index] &= ok;
            }
        }
    }

    calibrations
        .into_iter()
        .zip(times)
        .zip(stable)
        .map(|((c, samples_ns), checksum_stable)| Measured {
            runner: c.runner,
            every_round: samples_ns.len() == samples,
            samples_ns,
            batch: c.batch,
            heap: c.heap,
            checksum: c.checksum,
            checksum_stable,
            bytes: c.bytes,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use super::{measure_workload, median, Settings};
    use crate::backend::Runner;
    use crate::workload::{DynWorkload, Prepared, Sizes, WorkloadInfo};

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    /// How many states exist, the most that existed during a run, and how many were made.
    #[derive(Default)]
    struct Census {
        live: AtomicUsize,
        most_during_run: AtomicUsize,
        prepared: AtomicUsize,
    }

    /// A non-repeatable workload whose states report to a [`Census`].
    struct Counted {
        info: WorkloadInfo,
        census: Arc<Census>,
    }

    struct CountedState(Arc<Census>);

    impl Drop for CountedState {
        fn drop(&mut self) {
            self.0.live.fetch_sub(1, Ordering::SeqCst);
        }
    }

    impl Prepared for CountedState {
        fn run(&mut self) {
            let live = self.0.live.load(Ordering::SeqCst);
            self.0.most_during_run.fetch_max(live, Ordering::SeqCst);
        }

        fn checksum(&mut self) -> u64 {
            7
        }
    }

    impl DynWorkload for Counted {
        fn info(&self) -> &WorkloadInfo {
            &self.info
        }

        fn prepare_on(&self, _: Runner, _: usize) -> Option<Box<dyn Prepared>> {
            self.census.live.fetch_add(1, Ordering::SeqCst);
            self.census.prepared.fetch_add(1, Ordering::SeqCst);
            Some(Box::new(CountedState(Arc::clone(&self.census))))
        }
    }

    /// A batch of fresh states is run one state at a time: each run finds only its own state
    /// alive, whatever the batch size, so runners with different batches see the same heap.
    #[test]
    fn fresh_states_run_one_at_a_time() {
        let census = Arc::new(Census::default());
        let workload = Counted {
            info: WorkloadInfo::custom("counted", "states", Sizes::new(1, 1, 1), "states"),
            census: Arc::clone(&census),
        };
        assert!(!workload.info.repeatable);
        // A run takes far less than `target_sample`, so the batch is `max_states`.
        let settings = Settings {
            min_samples: 3,
            max_samples: 3,
            slow_samples: 3,
            slow_round: Duration::from_secs(60),
            target_sample: Duration::from_secs(1),
            budget: Duration::ZERO,
            max_batch: 100,
            max_states: 5,
        };
        let measured = measure_workload(&workload, &[Runner::Baseline], 1, &settings, &mut |_| {});
        assert_eq!(measured.len(), 1);
        assert_eq!(measured[0].batch, 5);
        assert_eq!(measured[0].samples_ns.len(), 3);
        assert!(measured[0].checksum_stable);
        // The calibration run's state, then 3 samples of 5 states.
        assert_eq!(census.prepared.load(Ordering::SeqCst), 1 + 3 * 5);
        assert_eq!(census.most_during_run.load(Ordering::SeqCst), 1);
        assert_eq!(census.live.load(Ordering::SeqCst), 0, "every state dropped");
    }
}
