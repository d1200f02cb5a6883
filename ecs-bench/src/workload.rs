//! What a workload is: a generic body over `S: Storage` (plus, optionally, a hand-written
//! baseline), described by a [`WorkloadInfo`], prepared untimed and then run timed.
//!
//! ```text
//!  Workload::prepare::<S>(size) ──► Box<dyn Prepared> ──► step() (untimed) ──► run() (timed) ──► checksum() (untimed)
//!  Workload::prepare_baseline(size) ─┘                     └───────── once per run ─────────┘
//! ```
//!
//! `step` is the rest of a frame around the timed system (seed 002 moves its 100 crates
//! there before the render system runs); most workloads have none.
//!
//! [`DynWorkload`] erases the generic method so the registry can hold every workload in one
//! list and a [`Runner`] picks the storage type at run time.

use std::fmt;

use ecs_core::Storage;
use serde::{Deserialize, Serialize};

use crate::backend::{Runner, StorageVisitor};
use crate::workloads::Builtin;

/// How large a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// The sizes of docs/workloads.md and the seeds.
    Full,
    /// Shrunk so a whole report runs in well under a minute (CI).
    Quick,
    /// Tiny: unit tests in debug builds and `cargo test --benches`.
    Test,
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scale::Full => "full",
            Scale::Quick => "quick",
            Scale::Test => "test",
        })
    }
}

/// A workload's size parameter at each [`Scale`]; what it counts is [`WorkloadInfo::unit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Size at [`Scale::Full`].
    pub full: usize,
    /// Size at [`Scale::Quick`].
    pub quick: usize,
    /// Size at [`Scale::Test`].
    pub test: usize,
}

impl Sizes {
    /// The sizes at each scale.
    pub const fn new(full: usize, quick: usize, test: usize) -> Sizes {
        Sizes { full, quick, test }
    }

    /// The size for `scale`.
    pub fn get(&self, scale: Scale) -> usize {
        match scale {
            Scale::Full => self.full,
            Scale::Quick => self.quick,
            Scale::Test => self.test,
        }
    }
}

/// The workload families: one report section and one chart each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The community-standard set (ecs_bench_suite shapes).
    Community,
    /// Seed 000 (Varkor): create, add, add/write/delete, distributed, relationship, random.
    Seed000,
    /// Seed 001 (Stingray entity index).
    Seed001,
    /// Seed 002 (crates and change tracking).
    Seed002,
    /// Seed 003 (jecs): random access, insertion, many-archetype queries.
    Seed003,
    /// Seed 004 (compacting components): removal orders and strategies.
    Seed004,
    /// A program's own workloads ([`WorkloadInfo::custom`]).
    Custom,
}

impl Family {
    /// Every family, in report order.
    pub const ALL: [Family; 7] = [
        Family::Community,
        Family::Seed000,
        Family::Seed001,
        Family::Seed002,
        Family::Seed003,
        Family::Seed004,
        Family::Custom,
    ];

    /// Short key used in file names and `--filter` (`community`, `seed000`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Family::Community => "community",
            Family::Seed000 => "seed000",
            Family::Seed001 => "seed001",
            Family::Seed002 => "seed002",
            Family::Seed003 => "seed003",
            Family::Seed004 => "seed004",
            Family::Custom => "custom",
        }
    }

    /// Section title.
    pub fn title(self) -> &'static str {
        match self {
            Family::Community => "Community-standard set (ecs_bench_suite shapes)",
            Family::Seed000 => "Seed 000: Varkor's space tests",
            Family::Seed001 => "Seed 001: Stingray entity index",
            Family::Seed002 => "Seed 002: crates and change tracking",
            Family::Seed003 => "Seed 003: jecs (archetypes vs sparse sets)",
            Family::Seed004 => "Seed 004: removal orders, swap-remove vs shift",
            Family::Custom => "Your workloads",
        }
    }
}

/// A number measured on another machine by a seed's author, shown beside ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// The seed's numbers, e.g. `"13.21 ms, 22.5 MB, 18 allocs"`.
    pub value: &'static str,
    /// Where and how they were measured.
    pub source: &'static str,
}

/// Everything a report says about a workload besides its measurements.
#[derive(Clone, Debug)]
pub struct WorkloadInfo {
    /// Unique name within the registry, e.g. `simple_iter` (a built-in workload's
    /// [`Builtin::name`]).
    pub name: String,
    /// Which built-in workload this is; `None` for a program's own
    /// ([`WorkloadInfo::custom`]). Peers run built-in workloads only, chosen by this.
    pub builtin: Option<Builtin>,
    /// Report section.
    pub family: Family,
    /// One line: what is timed.
    pub description: String,
    /// Size parameter per scale.
    pub sizes: Sizes,
    /// What the size counts (`"entities"`, `"reps of 2,000 entities"`, ...).
    pub unit: &'static str,
    /// The seed's number for this workload, if it has one.
    pub anchor: Option<Anchor>,
    /// A caveat printed beside the row (e.g. "sequential until the scheduler lands").
    pub note: Option<&'static str>,
    /// Whether `run` may be called again on the same prepared state and measure the same
    /// work (then timing batches several runs of one state; otherwise each run gets a freshly
    /// prepared state). A body that creates its world is not: its second run would also drop
    /// the first run's world.
    pub repeatable: bool,
    /// Whether [`Prepared::step`] does work: then every run is preceded by an untimed step,
    /// and each run is timed on its own (two clock reads per run, a few tens of nanoseconds),
    /// as every run of a non-repeatable workload is, instead of a repeatable workload's batch
    /// of runs being timed together.
    pub stepped: bool,
    /// Whether the generic body runs on storage backends (false for baseline-only rows).
    pub on_backends: bool,
    /// The backends the body runs on when it needs a feature only they have (empty: all).
    pub only_backends: &'static [&'static str],
    /// Whether a hand-written baseline exists.
    pub has_baseline: bool,
}

impl WorkloadInfo {
    /// The description of a program's own workload (family [`Family::Custom`]): it runs on
    /// every backend, builds a fresh state for every run, and has no baseline, seed anchor or
    /// note (set the public fields to change that).
    pub fn custom(
        name: impl Into<String>,
        description: impl Into<String>,
        sizes: Sizes,
        unit: &'static str,
    ) -> WorkloadInfo {
        WorkloadInfo {
            name: name.into(),
            builtin: None,
            family: Family::Custom,
            description: description.into(),
            sizes,
            unit,
            anchor: None,
            note: None,
            repeatable: false,
            stepped: false,
            on_backends: true,
            only_backends: &[],
            has_baseline: false,
        }
    }

    /// `family/name`, what `--filter` matches against.
    pub fn path(&self) -> String {
        format!("{}/{}", self.family.key(), self.name)
    }

    /// Whether `runner` runs this workload.
    pub fn runs_on(&self, runner: Runner) -> bool {
        match runner {
            Runner::Backend(backend) => {
                self.on_backends
                    && (self.only_backends.is_empty()
                        || self.only_backends.contains(&backend.name()))
            }
            Runner::Baseline => self.has_baseline,
            Runner::Peer(peer) => self.builtin.is_some_and(|workload| peer.runs(workload)),
        }
    }
}

/// A workload instance ready to be timed.
pub trait Prepared {
    /// Untimed work before every [`Prepared::run`]: the part of a frame that is not what the
    /// workload measures (see [`WorkloadInfo::stepped`]). Nothing by default.
    fn step(&mut self) {}
    /// The timed work. Results it needs for [`Prepared::checksum`] stay in `self`.
    fn run(&mut self);
    /// An order-independent digest of what `run` did (untimed). Every runner must agree.
    fn checksum(&mut self) -> u64;
    /// Bytes the last `run` wrote or read, for workloads whose throughput is reported
    /// (snapshots: MB/s beside the time); `None` for the others.
    fn bytes(&self) -> Option<u64> {
        None
    }
}

/// A [`Prepared`] built from a state and two closures; see [`prepared`].
struct ClosurePrepared<St, R, C> {
    state: St,
    run: R,
    checksum: C,
}

impl<St, R: FnMut(&mut St), C: FnMut(&mut St) -> u64> Prepared for ClosurePrepared<St, R, C> {
    #[inline]
    fn run(&mut self) {
        (self.run)(&mut self.state);
        std::hint::black_box(&mut self.state);
    }

    fn checksum(&mut self) -> u64 {
        (self.checksum)(&mut self.state)
    }
}

/// Boxes a prepared workload from its state, its timed body and its checksum.
pub fn prepared<St: 'static>(
    state: St,
    run: impl FnMut(&mut St) + 'static,
    checksum: impl FnMut(&mut St) -> u64 + 'static,
) -> Box<dyn Prepared> {
    Box::new(ClosurePrepared {
        state,
        run,
        checksum,
    })
}

/// A [`Prepared`] that also reports the bytes its run processed; see [`prepared_with_bytes`].
struct BytesPrepared<St, R, C, B> {
    inner: ClosurePrepared<St, R, C>,
    bytes: B,
}

impl<St, R, C, B> Prepared for BytesPrepared<St, R, C, B>
where
    R: FnMut(&mut St),
    C: FnMut(&mut St) -> u64,
    B: Fn(&St) -> u64,
{
    #[inline]
    fn run(&mut self) {
        self.inner.run();
    }

    fn checksum(&mut self) -> u64 {
        self.inner.checksum()
    }

    fn bytes(&self) -> Option<u64> {
        Some((self.bytes)(&self.inner.state))
    }
}

/// Like [`prepared`], for a workload whose throughput is reported: `bytes` says how many
/// bytes the last run wrote or read.
pub fn prepared_with_bytes<St: 'static>(
    state: St,
    run: impl FnMut(&mut St) + 'static,
    checksum: impl FnMut(&mut St) -> u64 + 'static,
    bytes: impl Fn(&St) -> u64 + 'static,
) -> Box<dyn Prepared> {
    Box::new(BytesPrepared {
        inner: ClosurePrepared {
            state,
            run,
            checksum,
        },
        bytes,
    })
}

/// A workload: one generic body for every backend, and optionally a baseline.
pub trait Workload: Send + Sync {
    /// Its description.
    fn info(&self) -> &WorkloadInfo;

    /// Sets the workload up on storage `S` at size `size` (untimed).
    fn prepare<S: Storage>(&self, size: usize) -> Box<dyn Prepared>;

    /// Sets the hand-written baseline up, if the workload has one.
    fn prepare_baseline(&self, size: usize) -> Option<Box<dyn Prepared>> {
        let _ = size;
        None
    }
}

/// A [`Workload`] with its generic method erased, so the registry can hold all of them.
pub trait DynWorkload: Send + Sync {
    /// Its description.
    fn info(&self) -> &WorkloadInfo;
    /// Sets it up for `runner`; `None` when the runner does not run this workload.
    fn prepare_on(&self, runner: Runner, size: usize) -> Option<Box<dyn Prepared>>;
    /// Sets it up on the archetype backend able to record a trace
    /// (`Traced<ArchetypeStorage>`: see `ecs_core::trace::capture`); `None` when it does
    /// not run on that backend. The default: `None`.
    fn prepare_traced(&self, size: usize) -> Option<Box<dyn Prepared>> {
        let _ = size;
        None
    }
}

struct PrepareOn<'a, W> {
    workload: &'a W,
    size: usize,
}

impl<W: Workload> StorageVisitor for PrepareOn<'_, W> {
    type Output = Box<dyn Prepared>;
    fn visit<S: Storage>(self) -> Box<dyn Prepared> {
        self.workload.prepare::<S>(self.size)
    }
}

impl<W: Workload> DynWorkload for W {
    fn info(&self) -> &WorkloadInfo {
        Workload::info(self)
    }

    fn prepare_on(&self, runner: Runner, size: usize) -> Option<Box<dyn Prepared>> {
        if !Workload::info(self).runs_on(runner) {
            return None;
        }
        match runner {
            Runner::Backend(backend) => Some(backend.visit(PrepareOn {
                workload: self,
                size,
            })),
            Runner::Baseline => self.prepare_baseline(size),
            Runner::Peer(peer) => peer.prepare(Workload::info(self).builtin?, size),
        }
    }

    #[cfg(feature = "replay")]
    fn prepare_traced(&self, size: usize) -> Option<Box<dyn Prepared>> {
        let backend = Runner::Backend(crate::backend::Backend::Archetype);
        Workload::info(self)
            .runs_on(backend)
            .then(|| self.prepare::<ecs_core::trace::Traced<ecs_archetype::ArchetypeStorage>>(size))
    }
}

/// Runs `workload` once (its step, then its run) on `runner` at `scale` and returns its
/// checksum (tests use this).
pub fn checksum_once(workload: &dyn DynWorkload, runner: Runner, scale: Scale) -> Option<u64> {
    checksum_at(workload, runner, workload.info().sizes.get(scale))
}

/// Like [`checksum_once`] at an explicit size.
pub fn checksum_at(workload: &dyn DynWorkload, runner: Runner, size: usize) -> Option<u64> {
    let mut prepared = workload.prepare_on(runner, size)?;
    prepared.step();
    prepared.run();
    Some(prepared.checksum())
}
