//! What a trace does, folded into counts that a layout's cost can be computed from without
//! reading the trace again: the advisor scores thousands of layouts on one profile.
//!
//! The fold follows every entity through the trace as the *set* of components it holds.
//! Each structural op becomes a count keyed by the set the entity held before (an insert
//! of `C` into an entity holding `{A, B}` moves a table row of `A` and `B` when `C` is a
//! table component, and pushes one value when it is sparse), and each query run adds, for
//! every set then alive, how many entities held it: which of them a run walks depends on
//! which of the query's components end up in tables, so that choice is left to
//! [`Profile::features`].

use std::collections::BTreeMap;

use ecs_core::component::StorageKind;
use ecs_core::storage::SlotRole;
use ecs_core::trace::{Op, SlotAccess, Trace, TraceFilter};
use hashbrown::{HashMap, HashSet};

/// A set of trace components, one bit each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// The set of `components`.
    pub fn of(components: impl IntoIterator<Item = u32>) -> Bits {
        let mut bits = Bits::default();
        for c in components {
            bits.insert(c);
        }
        bits
    }

    /// Adds component `c`.
    pub fn insert(&mut self, c: u32) {
        let word = c as usize / 64;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << (c % 64);
    }

    /// Takes component `c` out.
    pub fn remove(&mut self, c: u32) {
        if let Some(word) = self.0.get_mut(c as usize / 64) {
            *word &= !(1 << (c % 64));
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// Whether component `c` is in the set.
    pub fn contains(&self, c: u32) -> bool {
        self.0
            .get(c as usize / 64)
            .is_some_and(|word| word & (1 << (c % 64)) != 0)
    }

    /// Whether every component of `self` is in `other`.
    pub fn is_subset(&self, other: &Bits) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(i, &w)| w & !other.0.get(i).copied().unwrap_or(0) == 0)
    }

    /// Whether the sets share a component.
    pub fn meets(&self, other: &Bits) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// The components both sets hold.
    pub fn and(&self, other: &Bits) -> Bits {
        let mut out = Bits(self.0.iter().zip(&other.0).map(|(a, b)| a & b).collect());
        while out.0.last() == Some(&0) {
            out.0.pop();
        }
        out
    }

    /// The components, in index order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            (0..64u32)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| i as u32 * 64 + b)
        })
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One component as the profile knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// Its trace name.
    pub name: String,
    /// Bytes per value.
    pub size: u32,
    /// What the program declared.
    pub declared: StorageKind,
    /// Whether a layout may move it (the disabling marker keeps its own kind).
    pub movable: bool,
}

/// One query shape's runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapeUse {
    /// The components an entity must hold (fetched or `With`).
    pub required: Bits,
    /// The components fetched if present (`Option<&T>`).
    pub optional: Bits,
    /// Bytes of the components a row hands over (read or written).
    pub fetched_bytes: u64,
    /// Runs.
    pub runs: u64,
    /// Rows the program took.
    pub rows: u64,
    /// For each held set (by index into [`Profile::sets`]), churned set and disordered set
    /// (both by index into [`Profile::churned`]): summed over the runs, how many live
    /// entities held the one and had the second added or removed out of step since their
    /// spawn when the run began, while the third were the components whose values a
    /// removal had reordered.
    pub alive: BTreeMap<(u32, u32, u32), u64>,
    /// For each held set: in how many runs some entity held it.
    pub present: BTreeMap<u32, u64>,
}

/// A trace folded for the cost model (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The trace's components.
    pub components: Vec<Component>,
    /// Every set of components some entity held, by index.
    pub sets: Vec<Bits>,
    /// Every set of components some entity had added or removed out of step since its
    /// spawn, by index (0: none). A component added to (or taken from) entities in the
    /// order they were spawned moves them in step: the rows it moves keep that order, as
    /// do the sparse values of the entities. One added or taken in any other order
    /// scatters them. Sparse values of an entity no table component of which, and no
    /// joined sparse component of which, came or went out of step sit in its row's order.
    pub churned: Vec<Bits>,
    /// Ops in the trace.
    pub ops: u64,
    /// Frames in the trace.
    pub frames: u64,
    /// Entities spawned, by the set they were spawned with.
    pub spawns: BTreeMap<u32, u64>,
    /// Components added to (`true`) or taken from (`false`) a live entity, by the set it
    /// held before and the component.
    pub changes_of_set: BTreeMap<(u32, u32, bool), u64>,
    /// Entities despawned (or cleared), by the set they held.
    pub despawns: BTreeMap<u32, u64>,
    /// Values overwritten by an insert of a component the entity held, by component.
    pub overwrites: Vec<u64>,
    /// The query shapes' runs, by shape index.
    pub shapes: Vec<ShapeUse>,
    /// Look-ups of one value, by component.
    pub gets: Vec<u64>,
    /// Frame marks.
    pub frames_marked: u64,
    /// System marks (the system a schedule entered).
    pub systems_marked: u64,
    /// Ops whose kind differs from the previous op's.
    pub switches: u64,
    /// Insert ops on a live entity.
    pub inserts: u64,
    /// Remove ops on a live entity.
    pub removes: u64,
}

/// The fold's working state: each entity's held set, interned.
struct Fold {
    profile: Profile,
    index: HashMap<Bits, u32>,
    churn_index: HashMap<Bits, u32>,
    /// By ordinal: the held set (`u32::MAX`: not alive) and the churned set.
    held: Vec<(u32, u32)>,
    /// Live entities by held set and churned set (no zero counts).
    live: HashMap<(u32, u32), u64>,
    /// The components whose adds (`true`) or removes (`false`) came out of step (see
    /// [`Profile::churned`]).
    scattering: HashSet<(u32, bool)>,
    /// By component: the ordinals of the entities holding it, in the order a sparse set
    /// of it would hold them (pushed at the end, swap-removed).
    order: Vec<Vec<u32>>,
    /// Each (component, ordinal)'s position in `order`.
    at: HashMap<(u32, u32), u32>,
    /// The components a removal reordered (a value other than the last one taken out, so
    /// the last moved into its place) so far, and their index in [`Profile::churned`].
    disordered: (Bits, u32),
}

const DEAD: u32 = u32::MAX;

impl Profile {
    /// Folds `trace` (see the module docs).
    pub fn of(trace: &Trace) -> Profile {
        let n = trace.components().len();
        let components = trace
            .components()
            .iter()
            .map(|c| Component {
                name: c.name.clone(),
                size: c.size,
                declared: c.storage,
                movable: c.name != ecs_core::trace::DISABLED_NAME,
            })
            .collect();
        let shapes = trace
            .shapes()
            .iter()
            .map(|s| shape_use_of(s, trace))
            .collect();
        let profile = Profile {
            components,
            ops: trace.op_count(),
            frames: trace.frames(),
            overwrites: vec![0; n],
            gets: vec![0; n],
            shapes,
            ..Profile::default()
        };
        let mut fold = Fold {
            profile,
            index: HashMap::new(),
            churn_index: HashMap::new(),
            held: vec![(DEAD, 0)],
            live: HashMap::new(),
            scattering: scattering(trace),
            order: vec![Vec::new(); n],
            at: HashMap::new(),
            disordered: (Bits::default(), 0),
        };
        fold.intern_churn(Bits::default());
        let mut last = None;
        for op in trace.ops() {
            let kind = std::mem::discriminant(&op);
            if last.is_some_and(|k| k != kind) {
                fold.profile.switches += 1;
            }
            last = Some(kind);
            fold.op(trace, op);
        }
        fold.profile
    }

    /// Each component's declared kind: sparse (`true`) or table.
    pub fn declared(&self) -> Vec<bool> {
        self.components
            .iter()
            .map(|c| c.declared == StorageKind::Sparse)
            .collect()
    }

    /// The components (by index) a layout may move that the trace uses.
    pub fn touched(&self) -> Vec<u32> {
        let mut used = vec![false; self.components.len()];
        for set in &self.sets {
            set.iter().for_each(|c| used[c as usize] = true);
        }
        for shape in &self.shapes {
            shape.required.iter().for_each(|c| used[c as usize] = true);
        }
        (0..self.components.len() as u32)
            .filter(|&c| used[c as usize] && self.components[c as usize].movable)
            .collect()
    }
}

fn shape_use_of(shape: &ecs_core::trace::QueryShape, trace: &Trace) -> ShapeUse {
    let mut out = ShapeUse::default();
    for slot in &shape.slots {
        if slot.access != SlotAccess::Filter && slot.role != SlotRole::Excluded {
            out.fetched_bytes += u64::from(trace.components()[slot.component as usize].size);
        }
        match slot.role {
            SlotRole::Required => out.required.insert(slot.component),
            SlotRole::Optional => out.optional.insert(slot.component),
            SlotRole::Excluded => {}
        }
    }
    for filter in &shape.filter {
        if let TraceFilter::With(c) = filter {
            out.required.insert(*c);
        }
    }
    out
}

impl Fold {
    fn intern(&mut self, set: Bits) -> u32 {
        if let Some(&id) = self.index.get(&set) {
            return id;
        }
        let id = self.profile.sets.len() as u32;
        self.profile.sets.push(set.clone());
        self.index.insert(set, id);
        id
    }

    fn intern_churn(&mut self, churn: Bits) -> u32 {
        if let Some(&id) = self.churn_index.get(&churn) {
            return id;
        }
        let id = self.profile.churned.len() as u32;
        self.profile.churned.push(churn.clone());
        self.churn_index.insert(churn, id);
        id
    }

    fn enter(&mut self, key: (u32, u32), count: u64) {
        *self.live.entry(key).or_default() += count;
    }

    fn leave(&mut self, key: (u32, u32)) {
        if let Some(n) = self.live.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.live.remove(&key);
            }
        }
    }

    fn held(&self, entity: u32) -> Option<u32> {
        match self.held.get(entity as usize) {
            Some(&(set, _)) if set != DEAD => Some(set),
            _ => None,
        }
    }

    fn op(&mut self, trace: &Trace, op: Op) {
        match op {
            Op::Spawn { set, count } | Op::SpawnColumns { set, count } => {
                let id = self.intern(Bits::of(trace.sets()[set as usize].iter().copied()));
                *self.profile.spawns.entry(id).or_default() += u64::from(count);
                self.enter((id, 0), u64::from(count));
                let first = self.held.len() as u32;
                self.held.extend((0..count).map(|_| (id, 0)));
                let members: Vec<u32> = self.profile.sets[id as usize].iter().collect();
                for entity in first..first + count {
                    members.iter().for_each(|&c| self.push_value(c, entity));
                }
            }
            Op::Insert { entity, component } => self.insert(entity, &[component]),
            Op::InsertMany { entity, set } => {
                let set = trace.sets()[set as usize].clone();
                self.insert(entity, &set);
            }
            Op::Remove { entity, component } => {
                let Some(from) = self.held(entity) else {
                    return;
                };
                self.profile.removes += 1;
                if self.profile.sets[from as usize].contains(component) {
                    self.change(entity, from, (component, false));
                }
            }
            Op::Despawn { entity } => {
                if let Some(from) = self.held(entity) {
                    *self.profile.despawns.entry(from).or_default() += 1;
                    self.leave(self.held[entity as usize]);
                    self.held[entity as usize] = (DEAD, 0);
                    let members: Vec<u32> = self.profile.sets[from as usize].iter().collect();
                    members
                        .iter()
                        .for_each(|&c| self.take_value(c, entity, from));
                }
            }
            Op::Clear => self.clear(),
            Op::Query { shape, rows, .. } => self.query(shape, rows),
            Op::Get { component, .. } => self.profile.gets[component as usize] += 1,
            // Priced with the writes that made them (the model has no count of its own
            // for change marks).
            Op::Changed { .. } => {}
            Op::Frame => self.profile.frames_marked += 1,
            Op::System(_) => self.profile.systems_marked += 1,
            // The set sorted into its tables' order: read in order again.
            Op::Align { component } => self.in_order_again(component),
        }
    }

    fn insert(&mut self, entity: u32, components: &[u32]) {
        let Some(mut from) = self.held(entity) else {
            return;
        };
        self.profile.inserts += 1;
        // One component at a time, as a storage adds them: each new one is a change of
        // the set (a multi-insert moves the row once; the model's per-move cost is then
        // an upper bound, which a trace of single inserts, the common case, matches).
        for &c in components {
            if self.profile.sets[from as usize].contains(c) {
                self.profile.overwrites[c as usize] += 1;
                continue;
            }
            from = self.change(entity, from, (c, true));
        }
    }

    /// Counts `changed` added (`true`) to or removed from `entity`, which holds `from`,
    /// and moves it to the set it holds after; answers that set.
    fn change(&mut self, entity: u32, from: u32, changed: (u32, bool)) -> u32 {
        *self
            .profile
            .changes_of_set
            .entry((from, changed.0, changed.1))
            .or_default() += 1;
        let mut to = self.profile.sets[from as usize].clone();
        match changed.1 {
            true => to.insert(changed.0),
            false => to.remove(changed.0),
        }
        self.moved(entity, changed, to)
    }

    /// Moves `entity` to the held set `to`, `changed` added (`true`) or removed.
    fn moved(&mut self, entity: u32, changed: (u32, bool), to: Bits) -> u32 {
        let to = self.intern(to);
        let (from, churn) = self.held[entity as usize];
        let churned = match self.scattering.contains(&changed) {
            true => {
                let mut churned = self.profile.churned[churn as usize].clone();
                churned.insert(changed.0);
                self.intern_churn(churned)
            }
            false => churn,
        };
        self.leave((from, churn));
        self.enter((to, churned), 1);
        self.held[entity as usize] = (to, churned);
        match changed.1 {
            true => self.push_value(changed.0, entity),
            false => self.take_value(changed.0, entity, from),
        }
        to
    }

    /// Every entity despawned at once: counted as despawns, the sets emptied (nothing
    /// reordered: no set is left to read out of order).
    fn clear(&mut self) {
        for entity in 0..self.held.len() {
            let (set, _) = self.held[entity];
            if set != DEAD {
                *self.profile.despawns.entry(set).or_default() += 1;
                self.held[entity] = (DEAD, 0);
            }
        }
        self.live.clear();
        self.order.iter_mut().for_each(Vec::clear);
        self.at.clear();
        self.disordered = (Bits::default(), 0);
    }

    /// Takes `c` out of the disordered components (its set was sorted, or emptied).
    fn in_order_again(&mut self, c: u32) {
        if self.disordered.0.contains(c) {
            let mut disordered = self.disordered.0.clone();
            disordered.remove(c);
            let id = self.intern_churn(disordered.clone());
            self.disordered = (disordered, id);
        }
    }

    fn push_value(&mut self, c: u32, entity: u32) {
        let order = &mut self.order[c as usize];
        self.at.insert((c, entity), order.len() as u32);
        order.push(entity);
    }

    /// Takes `entity`'s value of `c` out of `c`'s order; `held` is the set the entity held
    /// (its table, whatever the layout).
    fn take_value(&mut self, c: u32, entity: u32, held: u32) {
        let Some(at) = self.at.remove(&(c, entity)) else {
            return;
        };
        let order = &mut self.order[c as usize];
        order.swap_remove(at as usize);
        if order.is_empty() {
            return self.in_order_again(c);
        }
        if let Some(&moved) = order.get(at as usize) {
            self.at.insert((c, moved), at);
            // A table swap-removes its rows too: when the value moved into the hole is of
            // an entity of the same table, the table's last row moves into the same hole
            // and the two stay in step (assuming the set's last value is the table's).
            let parallel = self.held[moved as usize].0 == held;
            if !parallel && !self.disordered.0.contains(c) {
                let mut disordered = self.disordered.0.clone();
                disordered.insert(c);
                let id = self.intern_churn(disordered.clone());
                self.disordered = (disordered, id);
            }
        }
    }

    fn query(&mut self, shape: u32, rows: u64) {
        let Some(usage) = self.profile.shapes.get_mut(shape as usize) else {
            return;
        };
        usage.runs += 1;
        usage.rows = usage.rows.saturating_add(rows);
        let all = usage.required.is_empty();
        let mut present = HashSet::new();
        let disorder = self.disordered.1;
        for (&(set, churn), &n) in &self.live {
            // Only a set holding one of the required components can be walked, whatever
            // the layout (a query requiring nothing walks every entity).
            if all || usage.required.meets(&self.profile.sets[set as usize]) {
                *usage.alive.entry((set, churn, disorder)).or_default() += n;
                present.insert(set);
            }
        }
        for set in present {
            *usage.present.entry(set).or_default() += 1;
        }
    }
}

/// The components added (`true`) or removed (`false`) out of step: more than one in 64 of
/// their inserts (or removes) named an entity spawned before the one the previous named,
/// other than a return to the start of a new pass over the entities (one no later than
/// the first of the pass before).
fn scattering(trace: &Trace) -> HashSet<(u32, bool)> {
    /// One (component, added)'s changes: the first ordinal of the current pass, the last
    /// ordinal, the changes and the steps back.
    #[derive(Default)]
    struct Steps {
        first: u32,
        last: u32,
        changes: u64,
        back: u64,
    }
    let mut seen: HashMap<(u32, bool), Steps> = HashMap::new();
    let mut note = |key: (u32, bool), entity: u32| {
        let steps = seen.entry(key).or_default();
        if steps.changes == 0 || entity <= steps.first {
            steps.first = entity;
        } else if entity < steps.last {
            steps.back += 1;
        }
        steps.last = entity;
        steps.changes += 1;
    };
    for op in trace.ops() {
        match op {
            Op::Insert { entity, component } => note((component, true), entity),
            Op::InsertMany { entity, set } => {
                for &c in &trace.sets()[set as usize] {
                    note((c, true), entity);
                }
            }
            Op::Remove { entity, component } => note((component, false), entity),
            _ => {}
        }
    }
    seen.into_iter()
        .filter(|(_, steps)| steps.back * 64 > steps.changes)
        .map(|(key, _)| key)
        .collect()
}

/// Counts of what a layout makes the storage do: the model's inputs (see
/// [`super::model::CostModel`], which prices each). Each op's decoding and dispatch is
/// priced with the op (a look-up's constant covers its op), so no count is per op alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Features {
    /// Frame marks (a replay reads the clock at each).
    pub frames: f64,
    /// System marks (an op each, which does nothing but be decoded).
    pub systems: f64,
    /// Ops whose kind differs from the previous op's: a dispatch the processor did not
    /// foresee, which a trace of one kind of op never pays.
    pub switches: f64,
    /// Insert ops on a live entity (finding it, whatever the component's storage).
    pub inserts: f64,
    /// Remove ops on a live entity.
    pub removes: f64,
    /// Entities spawned (a record and a table row each).
    pub spawned: f64,
    /// Entities despawned.
    pub despawned: f64,
    /// Bytes written into or taken out of table rows by spawns and despawns.
    pub row_bytes: f64,
    /// Table row moves (a table component added to or taken from a live entity).
    pub moves: f64,
    /// Columns those moves copy.
    pub moved_columns: f64,
    /// Bytes those moves copy.
    pub moved_bytes: f64,
    /// Values pushed into sparse sets.
    pub sparse_adds: f64,
    /// Values taken out of sparse sets.
    pub sparse_removes: f64,
    /// Query runs.
    pub runs: f64,
    /// Tables the runs visit.
    pub tables: f64,
    /// Rows the runs walk (in tables, or down a sparse set that drives the run).
    pub rows: f64,
    /// Entities of a sparse set that drives a run over table components too (the set is
    /// at most an eighth of the rows the tables would walk): a record look-up each, and the row
    /// it finds, out of the tables' order.
    pub driven: f64,
    /// The same in runs whose tables hold more than [`FAR_ROWS`] rows, where most records
    /// and rows found miss the caches.
    pub far_driven: f64,
    /// Sparse look-ups while walking (a sparse component required or fetched beside the
    /// one that drives), of values out of the walk's order.
    pub joins: f64,
    /// Sparse look-ups out of the walk's order in runs over more than [`FAR_ROWS`] rows,
    /// where most miss the caches.
    pub far_joins: f64,
    /// Sparse values read beside table rows in the rows' order (entities that hold what
    /// they were spawned with: their values were pushed as their rows were written).
    pub aligned_joins: f64,
    /// Bytes the runs hand over (read or written).
    pub fetched_bytes: f64,
    /// Look-ups of a table component.
    pub table_gets: f64,
    /// Look-ups of a sparse component.
    pub sparse_gets: f64,
}

/// How many [`Features`] there are (the model's constants).
pub const FEATURES: usize = 24;

/// The hybrid drives a run over tables down its smallest required sparse set when the set
/// holds at most one entity for this many rows the tables would walk (its own constant).
pub const DRIVE_BELOW: u64 = 8;

/// Rows per run past which look-ups out of order are priced as cache misses (16 Ki
/// entities: their sparse pages and values outgrow the first two cache levels).
pub const FAR_ROWS: u64 = 16 * 1024;

impl Features {
    /// The counts as an array, in declaration order.
    pub fn to_array(&self) -> [f64; FEATURES] {
        [
            self.frames,
            self.systems,
            self.switches,
            self.inserts,
            self.removes,
            self.spawned,
            self.despawned,
            self.row_bytes,
            self.moves,
            self.moved_columns,
            self.moved_bytes,
            self.sparse_adds,
            self.sparse_removes,
            self.runs,
            self.tables,
            self.rows,
            self.driven,
            self.far_driven,
            self.joins,
            self.far_joins,
            self.aligned_joins,
            self.fetched_bytes,
            self.table_gets,
            self.sparse_gets,
        ]
    }

    /// The counts of an array in [`Features::to_array`]'s order.
    pub fn from_array(a: [f64; FEATURES]) -> Features {
        let [frames, systems, switches, inserts, removes, spawned, despawned, row_bytes, moves, moved_columns, moved_bytes, sparse_adds, sparse_removes, runs, tables, rows, driven, far_driven, joins, far_joins, aligned_joins, fetched_bytes, table_gets, sparse_gets] =
            a;
        Features {
            frames,
            systems,
            switches,
            inserts,
            removes,
            spawned,
            despawned,
            row_bytes,
            moves,
            moved_columns,
            moved_bytes,
            sparse_adds,
            sparse_removes,
            runs,
            tables,
            rows,
            driven,
            far_driven,
            joins,
            far_joins,
            aligned_joins,
            fetched_bytes,
            table_gets,
            sparse_gets,
        }
    }

    /// Each count's name (plural), in [`Features::to_array`]'s order.
    pub const NAMES: [&'static str; FEATURES] = [
        "frame marks",
        "system marks",
        "op kind switches",
        "insert ops",
        "remove ops",
        "entities spawned",
        "entities despawned",
        "table bytes spawned or despawned",
        "table row moves",
        "columns moved",
        "bytes moved",
        "sparse pushes",
        "sparse swap-removes",
        "query runs",
        "tables visited",
        "rows walked",
        "entities found through a sparse set",
        "entities found through a sparse set, cache misses",
        "sparse join look-ups",
        "sparse join look-ups, cache misses",
        "sparse joins in row order",
        "bytes fetched by queries",
        "table gets",
        "sparse gets",
    ];
}

/// A held set and churned set a run walks, with its live entities summed over the runs.
type Walked = ((u32, u32, u32), u64);

/// One held set's numbers under a layout.
#[derive(Clone, Copy, Default)]
struct SetCost {
    table_columns: u64,
    table_bytes: u64,
    sparse_values: u64,
}

impl Profile {
    /// What the trace makes the storage do when component `c` is sparse exactly where
    /// `sparse[c]` says (on the hybrid backend).
    pub fn features(&self, sparse: &[bool]) -> Features {
        let sets: Vec<SetCost> = self.sets.iter().map(|s| self.set_cost(s, sparse)).collect();
        let mut f = Features {
            frames: self.frames_marked as f64,
            systems: self.systems_marked as f64,
            switches: self.switches as f64,
            inserts: self.inserts as f64,
            removes: self.removes as f64,
            ..Features::default()
        };
        for (&set, &n) in &self.spawns {
            let cost = sets[set as usize];
            let n = n as f64;
            f.spawned += n;
            f.row_bytes += n * cost.table_bytes as f64;
            f.sparse_adds += n * cost.sparse_values as f64;
        }
        for (&set, &n) in &self.despawns {
            let cost = sets[set as usize];
            let n = n as f64;
            f.despawned += n;
            f.row_bytes += n * cost.table_bytes as f64;
            f.sparse_removes += n * cost.sparse_values as f64;
        }
        for (&(set, c, add), &n) in &self.changes_of_set {
            let n = n as f64;
            match (sparse[c as usize], add) {
                (true, true) => f.sparse_adds += n,
                (true, false) => f.sparse_removes += n,
                (false, _) => {
                    let cost = sets[set as usize];
                    f.moves += n;
                    f.moved_columns += n * cost.table_columns as f64;
                    f.moved_bytes += n * cost.table_bytes as f64;
                }
            }
        }
        for (c, (&gets, &over)) in self.gets.iter().zip(&self.overwrites).enumerate() {
            match sparse[c] {
                true => f.sparse_gets += (gets + over) as f64,
                false => f.table_gets += (gets + over) as f64,
            }
        }
        for shape in &self.shapes {
            self.add_shape(&mut f, shape, sparse);
        }
        f
    }

    fn set_cost(&self, set: &Bits, sparse: &[bool]) -> SetCost {
        let mut cost = SetCost::default();
        for c in set.iter() {
            match sparse[c as usize] {
                true => cost.sparse_values += 1,
                false => {
                    cost.table_columns += 1;
                    cost.table_bytes += u64::from(self.components[c as usize].size);
                }
            }
        }
        cost
    }

    fn add_shape(&self, f: &mut Features, shape: &ShapeUse, sparse: &[bool]) {
        if shape.runs == 0 {
            return;
        }
        f.runs += shape.runs as f64;
        f.fetched_bytes += shape.rows as f64 * shape.fetched_bytes as f64;
        let in_tables = Bits::of(shape.required.iter().filter(|&c| !sparse[c as usize]));
        let sparse_required: Vec<u32> = shape
            .required
            .iter()
            .filter(|&c| sparse[c as usize])
            .collect();
        let sparse_optional = shape
            .optional
            .iter()
            .filter(|&c| sparse[c as usize])
            .count();
        // The components whose coming and going puts a walked entity's sparse values out of
        // its walk's order: the sparse ones the query reads, and, when tables drive the
        // walk, every table component (a move puts the row at another table's end).
        let mut disturbing = Bits::of(
            shape
                .required
                .iter()
                .chain(shape.optional.iter())
                .filter(|&c| sparse[c as usize]),
        );
        // Whether the sets a sparse-driven run reads hold different entities.
        let mut out_of_step = false;
        let holding = |s: u32| -> Vec<Walked> {
            shape
                .alive
                .iter()
                .filter(|(&(set, _, _), _)| self.sets[set as usize].contains(s))
                .map(|(&key, &n)| (key, n))
                .collect()
        };
        let population = |s: u32| holding(s).iter().map(|(_, n)| n).sum::<u64>();
        // The smallest required sparse set, which drives a run over sparse components only,
        // and one over tables too when it holds at most an eighth of the rows the tables would walk
        // (decided here on the runs' totals, where the hybrid decides at each run).
        let driver = sparse_required
            .iter()
            .map(|&s| holding(s))
            .min_by_key(|sets| sets.iter().map(|(_, n)| n).sum::<u64>());
        let all_sparse = in_tables.is_empty() && shape.optional.iter().all(|c| sparse[c as usize]);
        let in_table_rows = |entries: &[Walked]| -> Vec<Walked> {
            entries
                .iter()
                .filter(|((set, _, _), _)| in_tables.is_subset(&self.sets[*set as usize]))
                .copied()
                .collect()
        };
        let table_rows: u64 = in_table_rows(
            &shape
                .alive
                .iter()
                .map(|(&k, &n)| (k, n))
                .collect::<Vec<_>>(),
        )
        .iter()
        .map(|(_, n)| n)
        .sum();
        let driven = driver.filter(|d| {
            all_sparse || d.iter().map(|(_, n)| n).sum::<u64>() * DRIVE_BELOW <= table_rows
        });
        // The entries walked, and how many components each walked row looks up.
        let (walked, joined): (Vec<Walked>, usize) = match driven {
            Some(driver) => {
                // Driven down the smallest sparse set; the others are looked up per row.
                // The sets are read in step only when they hold the same entities: a
                // larger one holds others between them.
                let size: u64 = driver.iter().map(|(_, n)| n).sum();
                let same = shape
                    .required
                    .iter()
                    .chain(shape.optional.iter())
                    .filter(|&c| sparse[c as usize])
                    .all(|c| population(c) == size);
                out_of_step = !same;
                if !all_sparse {
                    // Each entry of the set: its record, and its row where it has one,
                    // out of the tables' order: a cache miss each past FAR_ROWS rows.
                    match table_rows / shape.runs >= FAR_ROWS {
                        true => f.far_driven += size as f64,
                        false => f.driven += size as f64,
                    }
                }
                (
                    in_table_rows(&driver),
                    sparse_required.len() - 1 + sparse_optional,
                )
            }
            None => {
                // Walks every table holding the table part; looks the sparse part up per
                // row.
                (0..sparse.len() as u32)
                    .filter(|&c| !sparse[c as usize])
                    .for_each(|c| disturbing.insert(c));
                let mut tables: HashMap<Bits, u64> = HashMap::new();
                let mut walked = Vec::new();
                for (&(set, churn, disorder), &n) in &shape.alive {
                    let held = &self.sets[set as usize];
                    if !in_tables.is_subset(held) {
                        continue;
                    }
                    walked.push(((set, churn, disorder), n));
                    let table = Bits::of(held.iter().filter(|&c| !sparse[c as usize]));
                    let runs = shape.present.get(&set).copied().unwrap_or(0);
                    let entry = tables.entry(table).or_default();
                    *entry = (*entry).max(runs);
                }
                f.tables += tables.values().sum::<u64>() as f64;
                (walked, sparse_required.len() + sparse_optional)
            }
        };
        let rows: u64 = walked.iter().map(|(_, n)| n).sum();
        f.rows += rows as f64;
        // A run over more rows than the caches hold pays a miss per look-up out of order.
        let far = rows / shape.runs >= FAR_ROWS;
        let joined = joined as f64;
        let read_sparse = Bits::of(
            shape
                .required
                .iter()
                .chain(shape.optional.iter())
                .filter(|&c| sparse[c as usize]),
        );
        for ((set, churn, disorder), n) in walked {
            let looked_up = n as f64 * joined;
            // In order only where every looked-up value is there (a row without one is a
            // look-up that misses), no removal reordered a set read, and no move scattered
            // the rows.
            let in_order = !out_of_step
                && read_sparse.is_subset(&self.sets[set as usize])
                && !self.churned[disorder as usize].meets(&read_sparse)
                && !self.churned[churn as usize].meets(&disturbing);
            match (in_order, far) {
                (true, _) => f.aligned_joins += looked_up,
                (false, true) => f.far_joins += looked_up,
                (false, false) => f.joins += looked_up,
            }
        }
    }
}
