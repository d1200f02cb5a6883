//! Seed 001 (Stingray "Entity Index"): entities built from 75 templates of 1 to 11 named
//! component instances (some types twice under different names), looked up by name, part of
//! them deleted as the test runs, with garbage collection; totals of 10k, 20k, … 10.24M
//! entities created. Two indices run the same operation stream on the same backend:
//!
//! * **prototype** (the new index): the world's own prototype chain. Instances are named
//!   instance ids ([`World::register_instance`]); the index is kept by the world; look-ups
//!   are [`World::find_by_name_id`]; garbage collection is [`World::collect_prototypes`].
//! * **legacy** (the seed's first index, the reference): the same components registered as
//!   one plain run-time component per (type, name), so the world keeps no names, and beside
//!   the world a `HashMap<Entity, Vec<(name, component)>>` that the test maintains; look-ups
//!   hash the entity and scan its list; garbage collection shrinks the map.
//!
//! ```text
//!   per round of 10,000 (or fewer) entities:
//!     create:  spawn · for each (type, name) of its template: insert by id · index it
//!     look up: every name of every entity of the round, then 10,000 random (live entity, name)
//!     delete:  a tenth of the round, or down to 50,000 live, at random · collect garbage
//! ```
//!
//! The whole stream is timed (index maintenance, component storage, look-ups); look-ups are
//! also timed on their own, after the round's random `(entity, name)` pairs were drawn (so
//! that time is the indices', not the random generator's). Index memory is sampled after
//! each round's creation (its peak). The report prints the seed's table (run time, index
//! memory, µs per entity) per backend next to the seed's numbers ([`ScalingTable`]).

// The shared kit's seeded generator: every backend and index sees one stream.
use ecs_conformance::kit::Rng;
use std::alloc::Layout;
use std::time::Instant;

use ecs_core::component::ComponentId;
use ecs_core::named::{NameId, Names};
use ecs_core::{ComponentDescriptor, Entity, Storage, StorageKind, World};
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use super::{info, Builtin, InfoExt};
use crate::backend::{Backend, StorageVisitor};
use crate::workload::{prepared, Prepared, Scale, Sizes, Workload, WorkloadInfo};

/// The component types: name, size in bytes, storage choice in the hybrid backend.
const TYPES: [(&str, usize, StorageKind); 8] = [
    ("Transform", 64, StorageKind::Table),
    ("RenderData", 16, StorageKind::Table),
    ("Mesh", 8, StorageKind::Table),
    ("Light", 16, StorageKind::Table),
    ("Sound", 8, StorageKind::Sparse),
    ("Physics", 24, StorageKind::Table),
    ("Script", 8, StorageKind::Sparse),
    ("Trigger", 4, StorageKind::Sparse),
];

/// Instance names; every template starts with `Transform`.
const NAMES: [&str; 24] = [
    "Transform",
    "Fog",
    "Vignette",
    "Bloom",
    "Mesh",
    "Collider",
    "Body",
    "Light",
    "Shadow",
    "Audio",
    "Music",
    "Script",
    "Brain",
    "Camera",
    "Particles",
    "Trail",
    "Decal",
    "Sprite",
    "Label",
    "Health",
    "Weapon",
    "Armor",
    "Inventory",
    "Trigger",
];

/// Templates (the seed's 75 compositions).
pub const TEMPLATES: usize = 75;
/// Entities created per round.
const ROUND: usize = 10_000;
/// Random look-ups per round, beside the look-ups of the round's own entities.
const RANDOM_LOOKUPS: usize = 10_000;
/// Deleting brings the live count down to this when it is above.
const LIVE_TARGET: usize = 50_000;

/// Which index a run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexKind {
    /// The world's prototype chain.
    Prototype,
    /// The seed's per-entity list, kept beside the world.
    Legacy,
}

/// The 75 templates: `(type, name)` pairs, names unique within a template, 1 to 11 each.
pub fn templates() -> Vec<Vec<(usize, usize)>> {
    let mut rng = Rng::new(0x5EED_0001);
    (0..TEMPLATES)
        .map(|t| {
            let count = 1 + t % 11;
            let mut entries = vec![(0, 0)];
            while entries.len() < count {
                let name = 1 + rng.index(NAMES.len() - 1);
                if entries.iter().all(|&(_, n)| n != name) {
                    entries.push((rng.index(TYPES.len()), name));
                }
            }
            entries
        })
        .collect()
}

/// What one run measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Entities created in all.
    pub entities: usize,
    /// Seconds of the whole stream (create, look up, delete, collect).
    pub seconds: f64,
    /// Seconds of the look-ups alone.
    pub lookup_seconds: f64,
    /// Look-ups done.
    pub lookups: u64,
    /// Peak heap bytes of the index (prototype: slot array and registry; legacy: the map).
    pub index_bytes: usize,
    /// Peak heap bytes of the prototype registry alone (0 for legacy).
    pub registry_bytes: usize,
    /// Index bytes beyond the registry per live entity, at the index's peak.
    pub bytes_per_live_entity: f64,
    /// Largest number of live entities.
    pub peak_live: usize,
    /// Order-independent digest of what the look-ups found.
    pub checksum: u64,
}

impl RunStats {
    /// Microseconds per entity created.
    pub fn micros_per_entity(&self) -> f64 {
        self.seconds * 1e6 / self.entities.max(1) as f64
    }
    /// Nanoseconds per look-up.
    pub fn nanos_per_lookup(&self) -> f64 {
        self.lookup_seconds * 1e9 / self.lookups.max(1) as f64
    }
}

/// The seed's legacy index: per entity, a list of (name, component).
#[derive(Default)]
struct LegacyIndex {
    map: HashMap<Entity, Vec<(NameId, ComponentId)>>,
}

impl LegacyIndex {
    fn register(&mut self, entity: Entity, name: NameId, component: ComponentId) {
        self.map.entry(entity).or_default().push((name, component));
    }
    #[inline]
    fn find(&self, entity: Entity, name: NameId) -> Option<ComponentId> {
        let list = self.map.get(&entity)?;
        list.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
    }
    fn collect_garbage(&mut self) {
        if self.map.len() * 4 < self.map.capacity() {
            self.map.shrink_to_fit();
        }
    }
    fn memory(&self) -> usize {
        self.map.allocation_size()
            + self
                .map
                .values()
                .map(|v| v.capacity() * size_of::<(NameId, ComponentId)>())
                .sum::<usize>()
    }
}

/// One scaling run's world, index and bookkeeping.
struct Harness<S: Storage> {
    world: World<S>,
    kind: IndexKind,
    templates: Vec<Vec<(usize, usize)>>,
    /// Component id of `(type, name)`, `types × names` (unregistered pairs unused).
    ids: Vec<ComponentId>,
    /// The type of each component id (by id index), for the checksum.
    type_of: Vec<u8>,
    /// Name ids (the world's for the prototype index, `legacy_names`' for the legacy one).
    names: Vec<NameId>,
    legacy: LegacyIndex,
    /// Live entities and their templates.
    live: Vec<(Entity, u8)>,
    /// The round's random look-ups `(entity, name)`, drawn before the look-ups are timed
    /// (kept to avoid allocating each round).
    picks: Vec<(Entity, u8)>,
    rng: Rng,
    stats: RunStats,
}

/// Zeroed, aligned bytes every inserted value is copied from (plain data).
static ZEROS: [u64; 8] = [0; 8];

impl<S: Storage> Harness<S> {
    fn new(kind: IndexKind) -> Self {
        let mut world = World::<S>::new();
        let templates = templates();
        let mut legacy_names = Names::default();
        let bases: Vec<ComponentId> = TYPES
            .iter()
            .map(|&(name, size, storage)| {
                world.register_dynamic(ComponentDescriptor {
                    name: name.into(),
                    layout: Layout::from_size_align(size, 4).expect("valid layout"),
                    drop: None,
                    storage,
                })
            })
            .collect();
        let mut ids = vec![ComponentId::new(0); TYPES.len() * NAMES.len()];
        for &(ty, name) in templates.iter().flatten() {
            let slot = &mut ids[ty * NAMES.len() + name];
            if slot.index() != 0 {
                continue;
            }
            *slot = match kind {
                IndexKind::Prototype => world
                    .register_instance(bases[ty], NAMES[name])
                    .expect("a run-time component can have instances"),
                IndexKind::Legacy => world.register_dynamic(ComponentDescriptor {
                    name: format!("{} {}", TYPES[ty].0, NAMES[name]).into(),
                    layout: Layout::from_size_align(TYPES[ty].1, 4).expect("valid layout"),
                    drop: None,
                    storage: TYPES[ty].2,
                }),
            };
        }
        let mut type_of = vec![0u8; world.components().len()];
        for (i, id) in ids.iter().enumerate() {
            if id.index() != 0 {
                type_of[id.index()] = (i / NAMES.len()) as u8;
            }
        }
        let names = NAMES
            .iter()
            .map(|n| match kind {
                IndexKind::Prototype => world.components().names().get(n).expect("interned"),
                IndexKind::Legacy => legacy_names.intern(n),
            })
            .collect();
        Harness {
            world,
            kind,
            templates,
            ids,
            type_of,
            names,
            legacy: LegacyIndex::default(),
            live: Vec::new(),
            picks: Vec::new(),
            rng: Rng::new(0xE171_7100),
            stats: RunStats::default(),
        }
    }

    fn create(&mut self, count: usize) {
        for _ in 0..count {
            let template = self.rng.index(TEMPLATES);
            let e = self.world.spawn(());
            for &(ty, name) in &self.templates[template] {
                let id = self.ids[ty * NAMES.len() + name];
                // SAFETY: `ZEROS` holds initialised bytes, at least the component's size and
                // aligned for it (4), of a plain-data run-time component (no type, no
                // drop); they are copied, never dropped.
                let stored = unsafe {
                    self.world
                        .insert_by_id(e, id, std::ptr::NonNull::from(&ZEROS).cast())
                };
                stored.expect("live entity, free name");
                if self.kind == IndexKind::Legacy {
                    self.legacy.register(e, self.names[name], id);
                }
            }
            self.live.push((e, template as u8));
        }
    }

    /// Always inlined: the look-up loops are what the workload times, and whether LLVM
    /// inlined this two-way dispatch flipped with unrelated changes in ecs-core (an
    /// outlined call cost 4-5 % of the legacy run's instructions).
    #[inline(always)]
    fn find(&self, entity: Entity, name: usize) -> Option<ComponentId> {
        match self.kind {
            IndexKind::Prototype => self.world.find_by_name_id(entity, self.names[name]),
            IndexKind::Legacy => self.legacy.find(entity, self.names[name]),
        }
    }

    /// Draws the round's random look-ups: `(live entity, one of its names)`, up to
    /// [`RANDOM_LOOKUPS`]. Untimed, so that the look-up time is the indices' own and not the
    /// generator's (two 64-bit divisions per pick).
    fn pick(&mut self, count: usize) {
        self.picks.clear();
        for _ in 0..RANDOM_LOOKUPS.min(count) {
            let (e, template) = self.live[self.rng.index(self.live.len())];
            let entries = &self.templates[template as usize];
            let (_, name) = entries[self.rng.index(entries.len())];
            self.picks.push((e, name as u8));
        }
    }

    /// Looks up every name of the last `count` created entities, then the random picks.
    fn look_up(&mut self, count: usize) -> u64 {
        let mut digest = 0u64;
        let mut lookups = 0u64;
        let start = self.live.len() - count.min(self.live.len());
        for &(e, template) in &self.live[start..] {
            for &(_, name) in &self.templates[template as usize] {
                let found = self.find(e, name).expect("indexed");
                digest = digest.wrapping_add(u64::from(self.type_of[found.index()]) + 1);
                lookups += 1;
            }
        }
        for &(e, name) in &self.picks {
            let found = self.find(e, usize::from(name)).expect("indexed");
            digest = digest
                .wrapping_mul(31)
                .wrapping_add(u64::from(self.type_of[found.index()]));
            lookups += 1;
        }
        self.stats.lookups += lookups;
        digest
    }

    fn delete(&mut self, round: usize) {
        let over = self.live.len().saturating_sub(LIVE_TARGET);
        let count = over.max(round / 10).min(self.live.len());
        for _ in 0..count {
            let i = self.rng.index(self.live.len());
            let (e, _) = self.live.swap_remove(i);
            self.world.despawn(e).expect("live");
            if self.kind == IndexKind::Legacy {
                self.legacy.map.remove(&e);
            }
        }
        match self.kind {
            IndexKind::Prototype => {
                self.world.collect_prototypes();
            }
            IndexKind::Legacy => self.legacy.collect_garbage(),
        }
    }

    /// Samples the index's memory (untimed).
    fn sample_memory(&mut self) {
        let (bytes, registry) = match self.kind {
            IndexKind::Prototype => {
                let index = self.world.entity_index();
                (index.memory_usage(), index.registry_bytes())
            }
            IndexKind::Legacy => (self.legacy.memory(), 0),
        };
        let stats = &mut self.stats;
        stats.peak_live = stats.peak_live.max(self.live.len());
        stats.registry_bytes = stats.registry_bytes.max(registry);
        if bytes > stats.index_bytes {
            stats.index_bytes = bytes;
            stats.bytes_per_live_entity = (bytes - registry) as f64 / self.live.len() as f64;
        }
    }
}

/// Runs the scaling test on storage `S` with index `kind` until `total` entities were
/// created.
pub fn run<S: Storage>(kind: IndexKind, total: usize) -> RunStats {
    let mut h = Harness::<S>::new(kind);
    let mut created = 0;
    let mut checksum = 0u64;
    let mut timed = 0.0;
    while created < total {
        let round = ROUND.min(total - created);
        let t = Instant::now();
        h.create(round);
        timed += t.elapsed().as_secs_f64();
        h.sample_memory();
        let t = Instant::now();
        h.pick(round);
        timed += t.elapsed().as_secs_f64();
        let t = Instant::now();
        checksum = checksum
            .wrapping_mul(1_000_003)
            .wrapping_add(h.look_up(round));
        let lookup = t.elapsed().as_secs_f64();
        h.stats.lookup_seconds += lookup;
        let t = Instant::now();
        h.delete(round);
        timed += lookup + t.elapsed().as_secs_f64();
        created += round;
    }
    h.stats.entities = created;
    h.stats.seconds = timed;
    h.stats.checksum = checksum ^ h.live.len() as u64;
    h.stats
}

/// The seed's table (new index), by entity count: (count label, run time s, memory MB,
/// µs/entity).
pub const SEED_NEW: [(&str, f64, f64, f64); 11] = [
    ("10k", 0.01, 0.26, 0.977),
    ("20k", 0.01, 0.51, 0.488),
    ("40k", 0.03, 0.99, 0.832),
    ("80k", 0.06, 0.99, 0.610),
    ("160k", 0.11, 0.99, 0.671),
    ("320k", 0.23, 0.99, 0.702),
    ("640k", 0.46, 0.99, 0.702),
    ("1.28m", 0.94, 0.99, 0.700),
    ("2.56m", 1.88, 0.99, 0.700),
    ("5.12m", 3.78, 0.99, 0.704),
    ("10.24m", 7.57, 0.99, 0.705),
];

/// The seed's table (legacy index), same shape.
pub const SEED_LEGACY: [(&str, f64, f64, f64); 11] = [
    ("10k", 0.01, 5.79, 0.977),
    ("20k", 0.01, 5.79, 0.488),
    ("40k", 0.03, 11.88, 0.732),
    ("80k", 0.06, 11.88, 0.732),
    ("160k", 0.13, 25.69, 0.793),
    ("320k", 0.32, 31.04, 0.977),
    ("640k", 1.08, 55.90, 1.648),
    ("1.28m", 2.58, 65.82, 1.922),
    ("2.56m", 6.35, 65.55, 2.366),
    ("5.12m", 13.42, 120.55, 2.500),
    ("10.24m", 25.69, 130.55, 2.393),
];

/// Entity totals of the scaling table at `scale`. With `seed_range`, the seed's 10k …
/// 10.24M (about 8 minutes on every backend, most of it beyond 1M entities); otherwise the
/// full scale stops at 320k (about 10 s, enough to see the time per entity flat from 160k),
/// quick at 160k, test at 20k.
pub fn ladder(scale: Scale, seed_range: bool) -> Vec<usize> {
    let steps = match scale {
        Scale::Full if seed_range => 11,
        Scale::Full => 6,
        Scale::Quick => 5,
        Scale::Test => 2,
    };
    (0..steps).map(|k| 10_000 << k).collect()
}

/// One row of the scaling table: one backend, one entity total, both indices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingRow {
    /// Backend name.
    pub backend: String,
    /// The prototype chain's run.
    pub new: RunStats,
    /// The legacy index's run.
    pub legacy: RunStats,
}

/// The seed's scaling table, measured on each backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingTable {
    /// Rows, backend-major, entity totals ascending.
    pub rows: Vec<ScalingRow>,
}

/// Runs per row of the scaling table, of which the fastest is kept (see [`best_of`]).
pub const RUNS_PER_ROW: usize = 2;

struct ScalingVisitor(usize);

impl StorageVisitor for ScalingVisitor {
    type Output = (RunStats, RunStats);
    fn visit<S: Storage>(self) -> (RunStats, RunStats) {
        let mut new = Vec::with_capacity(RUNS_PER_ROW);
        let mut legacy = Vec::with_capacity(RUNS_PER_ROW);
        // Alternating, so a slow spell on the shared machine does not land on one index's
        // runs only.
        for _ in 0..RUNS_PER_ROW {
            new.push(run::<S>(IndexKind::Prototype, self.0));
            legacy.push(run::<S>(IndexKind::Legacy, self.0));
        }
        (best_of(new), best_of(legacy))
    }
}

/// The run with the shortest whole-stream time, kept whole (its look-ups and memory come
/// from the same run). A row is one long run per index, not a median over many samples, and
/// this stream is bound by cache and TLB misses, so one run on a shared machine can come out
/// 1.5× slow; the fastest of a few is the least disturbed. Every run does the same work (the
/// stream is deterministic: equal checksums).
pub fn best_of(runs: Vec<RunStats>) -> RunStats {
    debug_assert!(runs.windows(2).all(|w| w[0].checksum == w[1].checksum));
    runs.into_iter()
        .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .expect("at least one run")
}

/// Measures the scaling table on `backends` at `scale` (to the seed's 10.24M with
/// `seed_range`, see [`ladder`]); `progress` is told each step.
pub fn scaling_table(
    backends: &[Backend],
    scale: Scale,
    seed_range: bool,
    progress: &mut dyn FnMut(&str),
) -> ScalingTable {
    let mut rows = Vec::new();
    for &backend in backends {
        for total in ladder(scale, seed_range) {
            progress(&format!(
                "seed 001 entity index: {} × {total}",
                backend.name()
            ));
            let (new, legacy) = backend.visit(ScalingVisitor(total));
            rows.push(ScalingRow {
                backend: backend.name().to_owned(),
                new,
                legacy,
            });
        }
    }
    ScalingTable { rows }
}

/// The issue's targets on one backend's rows, each `(what, value, met)`; `None` values are
/// not measured at this scale.
pub fn targets(rows: &[&ScalingRow]) -> Vec<(String, Option<f64>, bool)> {
    let from_160k: Vec<f64> = rows
        .iter()
        .filter(|r| r.new.entities >= 160_000)
        .map(|r| r.new.micros_per_entity())
        .collect();
    let flat = (from_160k.len() >= 2).then(|| {
        let max = from_160k.iter().copied().fold(f64::MIN, f64::max);
        let min = from_160k.iter().copied().fold(f64::MAX, f64::min);
        max / min
    });
    let registry = rows
        .iter()
        .map(|r| r.new.registry_bytes)
        .max()
        .map(|b| b as f64);
    let per_entity = rows
        .iter()
        .filter(|r| r.new.entities >= 160_000)
        .map(|r| r.new.bytes_per_live_entity)
        .fold(None, |acc: Option<f64>, x| {
            Some(acc.map_or(x, |a| a.max(x)))
        });
    let big: Vec<f64> = rows
        .iter()
        .filter(|r| r.new.entities >= 1_280_000)
        .map(|r| r.new.nanos_per_lookup() / r.legacy.nanos_per_lookup())
        .collect();
    let lookup = (!big.is_empty()).then(|| big.iter().copied().fold(f64::MIN, f64::max));
    vec![
        (
            "µs/entity max/min from 160k up ≤ 1.5".to_owned(),
            flat,
            flat.is_some_and(|v| v <= 1.5),
        ),
        (
            "prototype registry ≤ 32 KiB (KiB)".to_owned(),
            registry.map(|b| b / 1024.0),
            registry.is_some_and(|b| b <= 32.0 * 1024.0),
        ),
        (
            "index bytes per live entity beyond the registry ≤ 4 (from 160k up)".to_owned(),
            per_entity,
            per_entity.is_some_and(|v| v <= 4.0),
        ),
        (
            "look-up time ≤ 0.5× legacy at 1.28M and beyond".to_owned(),
            lookup,
            lookup.is_some_and(|v| v <= 0.5),
        ),
    ]
}

/// The prototype chain's run as a workload (standard timing, heap and allocation columns).
pub struct EntityIndex {
    info: WorkloadInfo,
    kind: IndexKind,
}

impl Workload for EntityIndex {
    fn info(&self) -> &WorkloadInfo {
        &self.info
    }

    fn prepare<S: Storage>(&self, size: usize) -> Box<dyn Prepared> {
        let kind = self.kind;
        prepared(
            RunStats::default(),
            move |stats| *stats = run::<S>(kind, size),
            |stats| stats.checksum,
        )
    }
}

/// The seed 001 workloads: the scaling test at one size with each index.
pub fn workloads() -> Vec<Box<dyn crate::workload::DynWorkload>> {
    let sizes = Sizes {
        full: 160_000,
        quick: 20_000,
        test: 2_000,
    };
    let new = info(
        Builtin::EntityIndex,
        "named instances from 75 templates of 1–11, look-ups by name, deletes and GC; prototype chain",
        sizes,
        "entities created",
    )
    .anchor(
        "0.70 µs/entity, 0.99 MB index (< 30 KB of prototypes)",
        "seed 001's prototype-chain table, 160k–10.24M entities",
    )
    .note(
        "the scaling table below runs 10k … 320k beside the legacy index (`--full-scaling`: \
         the seed's 10k … 10.24M)",
    );
    let legacy = info(
        Builtin::EntityIndexLegacy,
        "the same stream with the seed's per-entity index (entity → list of (name, component))",
        sizes,
        "entities created",
    )
    .anchor(
        "0.79 µs/entity at 160k, 2.39 µs/entity and 130 MB at 10.24M",
        "seed 001's legacy-index table",
    );
    vec![
        Box::new(EntityIndex {
            info: new,
            kind: IndexKind::Prototype,
        }),
        Box::new(EntityIndex {
            info: legacy,
            kind: IndexKind::Legacy,
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_reaches_the_seeds_range_only_when_asked() {
        assert_eq!(ladder(Scale::Full, false).last(), Some(&320_000));
        assert_eq!(ladder(Scale::Full, true).last(), Some(&10_240_000));
        assert_eq!(ladder(Scale::Quick, true), ladder(Scale::Quick, false));
    }

    #[test]
    fn a_row_keeps_the_fastest_run_whole() {
        let run = |seconds, lookups| RunStats {
            seconds,
            lookup_seconds: seconds / 10.0,
            lookups,
            checksum: 7,
            ..RunStats::default()
        };
        let best = best_of(vec![run(2.0, 1), run(1.5, 2), run(1.9, 3)]);
        assert_eq!(
            (best.seconds, best.lookups),
            (1.5, 2),
            "its look-ups come with it"
        );
        let table = scaling_table(&[Backend::Sparse], Scale::Test, false, &mut |_| {});
        assert_eq!(table.rows.len(), ladder(Scale::Test, false).len());
    }

    #[test]
    fn templates_are_the_seeds_shape() {
        let t = templates();
        assert_eq!(t.len(), 75);
        assert!(t
            .iter()
            .all(|e| (1..=11).contains(&e.len()) && e[0] == (0, 0)));
        let twice = t
            .iter()
            .any(|e| (0..TYPES.len()).any(|ty| e.iter().filter(|&&(x, _)| x == ty).count() >= 2));
        assert!(twice, "some type is used twice under different names");
    }

    #[test]
    fn both_indices_find_the_same_on_every_backend() {
        struct Both;
        impl StorageVisitor for Both {
            type Output = (RunStats, RunStats);
            fn visit<S: Storage>(self) -> (RunStats, RunStats) {
                (
                    run::<S>(IndexKind::Prototype, 25_000),
                    run::<S>(IndexKind::Legacy, 25_000),
                )
            }
        }
        let mut checksums = Vec::new();
        for &backend in Backend::ALL {
            let (new, legacy) = backend.visit(Both);
            assert_eq!(new.checksum, legacy.checksum, "{}", backend.name());
            assert_eq!(new.entities, 25_000);
            assert!(new.registry_bytes > 0 && new.registry_bytes < 32 * 1024);
            checksums.push(new.checksum);
        }
        assert!(checksums.windows(2).all(|w| w[0] == w[1]));
    }
}
