//! Replaying a recorded trace (see `ecs_core::trace`) on every backend and layout.
//!
//! ```text
//!  program with World<Traced<S>>  ──start_trace / finish_trace──►  trace file
//!  ecs-bench replay FILE  ──►  for each target (archetype, sparse, hybrid as recorded,
//!                               hybrid with --sparse A,B, array):
//!                                 fresh world, the trace's components as run-time components
//!                                 of the recorded layouts, every op replayed and checked
//!                          ──►  total time, per-frame median and p99, peak heap, allocations,
//!                               faithfulness; a table of what the trace did per component
//! ```
//!
//! A replay checks itself: every query run must yield the rows the program took (at least
//! as many, when the program left the run early), every look-up must find what the
//! program found, every remove and despawn must succeed. A replay that diverges says where;
//! its times are still reported, marked.
//!
//! What a replay cannot reproduce: values (the components hold zero bytes; a query writes
//! one byte a row), control flow that depended on them (the recorded ops are replayed as
//! recorded, whatever the backend), and the program's own work between world calls. Change
//! filters combined with `Or` replay as if all had to hold, and writes to a change-tracked
//! component mark every row a query visits (the program may have written fewer): both show
//! up as divergences when they matter.

pub mod command;
pub mod output;
pub mod summary;

use std::time::{Duration, Instant};

use ecs_core::component::StorageKind;
use ecs_core::trace::{Divergence, Replay, Trace};
use ecs_core::Storage;
use serde::Serialize;

use crate::alloc_counter;
use crate::backend::{Backend, StorageVisitor};

/// One backend and layout a trace is replayed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The storage backend.
    pub backend: Backend,
    /// For the hybrid backend: the components kept in sparse sets (by trace name), or
    /// `None` for the kinds the program declared.
    pub sparse: Option<Vec<String>>,
}

impl Target {
    /// The backends with the recorded layout: archetype, sparse, hybrid and array.
    pub fn defaults() -> Vec<Target> {
        Backend::reported_backends()
            .map(|backend| Target {
                backend,
                sparse: None,
            })
            .collect()
    }

    /// The target's name in tables: the backend, and a hybrid's sparse components.
    pub fn label(&self) -> String {
        match &self.sparse {
            None if self.backend == Backend::Hybrid => "hybrid (as declared)".to_owned(),
            None => self.backend.name().to_owned(),
            Some(names) if names.is_empty() => "hybrid (all tables)".to_owned(),
            Some(names) => format!("hybrid (sparse: {})", names.join(", ")),
        }
    }

    /// Each trace component's storage kind on this target.
    ///
    /// # Errors
    /// A `--sparse` name the trace does not have.
    pub fn kinds(&self, trace: &Trace) -> Result<Vec<StorageKind>, String> {
        let Some(names) = &self.sparse else {
            return Ok(trace.components().iter().map(|c| c.storage).collect());
        };
        for name in names {
            if !trace.components().iter().any(|c| &c.name == name) {
                let known: Vec<&str> = trace.components().iter().map(|c| c.name.as_str()).collect();
                return Err(format!(
                    "--sparse {name}: the trace has no such component (it has: {})",
                    known.join(", ")
                ));
            }
        }
        Ok(trace
            .components()
            .iter()
            .map(|c| match names.contains(&c.name) {
                true => StorageKind::Sparse,
                false => StorageKind::Table,
            })
            .collect())
    }
}

/// One target's replay.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// [`Target::label`].
    pub target: String,
    /// The backend's name.
    pub backend: String,
    /// Median total time of the runs.
    pub total_ns: u64,
    /// Median frame time of the median run.
    pub frame_median_ns: u64,
    /// 99th percentile frame time of the median run.
    pub frame_p99_ns: u64,
    /// Frames replayed.
    pub frames: usize,
    /// Each frame's time in the median run, in order.
    pub frame_ns: Vec<u64>,
    /// Highest live heap above the start, in bytes (the world and the replay's tables).
    pub peak_heap_bytes: usize,
    /// Allocations made.
    pub allocations: u64,
    /// The world's heap bytes at the end (`World::memory_usage`).
    pub world_bytes: usize,
    /// How many ops diverged (0: a faithful replay).
    pub divergence_count: u64,
    /// The first divergences: op position and what happened instead.
    pub divergences: Vec<(u64, String)>,
}

impl Outcome {
    /// The world's work: the sum of the frame times (a frame's ops are decoded before its
    /// clock starts, so this leaves the reading of the trace out, which `total_ns` holds).
    pub fn world_ns(&self) -> u64 {
        self.frame_ns.iter().sum()
    }

    /// Whether the replay did exactly what the program did.
    pub fn faithful(&self) -> bool {
        self.divergence_count == 0
    }
}

/// Replays `trace` on `target`, `runs` times (each in a fresh world), calling `progress`
/// with the ops done so far in the current run.
///
/// # Errors
/// A target that does not fit the trace (an unknown `--sparse` name, a layout the
/// allocator refuses).
pub fn replay(
    trace: &Trace,
    target: &Target,
    runs: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome, String> {
    let kinds = target.kinds(trace)?;
    replay_kinds(
        trace,
        target.backend,
        &kinds,
        &target.label(),
        runs,
        progress,
    )
}

/// [`replay`] on `backend` with each trace component stored as `kinds` says, reported
/// under `label`.
///
/// # Errors
/// `kinds` of another length than the trace's components, a layout the allocator refuses.
pub fn replay_kinds(
    trace: &Trace,
    backend: Backend,
    kinds: &[StorageKind],
    label: &str,
    runs: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome, String> {
    let mut results = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        results.push(backend.visit(Run {
            trace,
            kinds,
            progress: &mut *progress,
        })?);
    }
    results.sort_by_key(|r| r.total);
    let median = results.swap_remove(results.len() / 2);
    let frame_ns = median.frames.iter().map(|d| d.as_nanos() as u64).collect();
    let mut frames = median.frames.clone();
    frames.sort_unstable();
    let pick = |q: f64| frames.get(((frames.len() as f64 - 1.0) * q).round() as usize);
    Ok(Outcome {
        target: label.to_owned(),
        backend: backend.name().to_owned(),
        total_ns: median.total.as_nanos() as u64,
        frame_median_ns: pick(0.5).map_or(0, |d| d.as_nanos() as u64),
        frame_p99_ns: pick(0.99).map_or(0, |d| d.as_nanos() as u64),
        frames: frames.len(),
        frame_ns,
        peak_heap_bytes: median.heap.peak_bytes,
        allocations: median.heap.allocations,
        world_bytes: median.world_bytes,
        divergence_count: median.divergence_count,
        divergences: median
            .divergences
            .into_iter()
            .map(|d| (d.op, d.what))
            .collect(),
    })
}

/// What one run measured.
struct RunResult {
    total: Duration,
    frames: Vec<Duration>,
    heap: alloc_counter::HeapUsage,
    world_bytes: usize,
    divergence_count: u64,
    divergences: Vec<Divergence>,
}

/// One run, generic over the target's storage.
struct Run<'a, 'p> {
    trace: &'a Trace,
    kinds: &'a [StorageKind],
    progress: &'p mut dyn FnMut(u64),
}

impl StorageVisitor for Run<'_, '_> {
    type Output = Result<RunResult, String>;

    fn visit<S: Storage>(self) -> Result<RunResult, String> {
        let region = alloc_counter::Region::start();
        let mut replay = Replay::<S>::new(self.trace, self.kinds)?;
        let start = Instant::now();
        replay.run(self.progress);
        let total = start.elapsed();
        let world_bytes = replay.world().memory_usage();
        let heap = region.finish();
        Ok(RunResult {
            total,
            frames: replay.frame_times().to_vec(),
            heap,
            world_bytes,
            divergence_count: replay.divergence_count(),
            divergences: replay.divergences().to_vec(),
        })
    }
}
