//! The `Storage` contract, promise by promise, checked through the trait itself on every
//! backend while random operations reshape the world.
//!
//! Queries, random access and the parallel paths build references from what a storage
//! answers without checking it again; each promise they rely on is written in the trait's
//! `# Safety` section, and this test holds every backend to it:
//! * values: `get_ptr` is `Some` exactly for held pairs, `contains` agrees, places agree,
//!   stale and never-issued handles answer `None`, and no two values overlap;
//! * chunks: entities live and pairwise distinct, every matching entity present; `Dense`
//!   rows are the values `get_ptr` gives, `Sparse` look-ups agree with it whatever the hint,
//!   `Absent` slots hold nothing; dense types never answer `Sparse` or `Absent` for a
//!   required slot; pointers stay valid after the chunks are dropped;
//! * query caches: a cache updated across every operation answers like a fresh one;
//! * keys: `entity_row` and `chunk_key` agree.

use std::collections::{HashMap, HashSet};
use std::ptr::NonNull;

use ecs_core::storage::{ChunkRow, ColumnAccess, EntityPlace, QueryChunk, SlotRole, SparseLookup};
use ecs_core::{ComponentId, Entity, Or, QueryState, Storage, With, Without, World};

use crate::components::size;
use crate::kit::Rng;
use crate::unstored::{P, Q};

/// The four probe types: `P`, `Q` as table and as sparse components.
const TYPES: usize = 4;

/// What the model believes an entity holds: the value of each probe type, in `TYPES` order
/// (`P<false>`, `P<true>`, `Q<false>`, `Q<true>`).
type Held = [Option<u64>; TYPES];

struct Harness<S: Storage> {
    world: World<S>,
    model: HashMap<Entity, Held>,
    handles: Vec<Entity>,
    rng: Rng,
    /// Component ids and whether the backend declares each type dense, in `TYPES` order.
    ids: [ComponentId; TYPES],
    dense: [bool; TYPES],
    /// Descriptors checked, each with a cache kept up to date across every operation.
    probes: Vec<Probe<S>>,
    /// Rows checked through `Dense` and `Sparse` answers (both paths must be exercised).
    rows_checked: std::cell::Cell<[usize; 2]>,
}

/// One descriptor under test and the cache the harness keeps for it.
struct Probe<S: Storage> {
    name: &'static str,
    descriptor: ecs_core::storage::QueryDescriptor,
    cache: S::QueryCache,
}

fn probe<S: Storage, Q2, F>(world: &mut World<S>, name: &'static str) -> Probe<S>
where
    Q2: ecs_core::query::QueryData + 'static,
    F: ecs_core::query::QueryFilter + 'static,
{
    let state: QueryState<Q2, F, S> = world.query_state().unwrap();
    Probe {
        name,
        descriptor: state.descriptor().clone(),
        cache: S::QueryCache::default(),
    }
}

/// Every promise of the `Storage` trait's safety contract (values, chunks, query caches and
/// keys) holds after each of many random operations: queries and random access build references
/// from the storage's answers without checking them again.
pub fn storage_contract_holds_through_random_operations<S: Storage>() {
    for seed in 1..=size(4, 1) as u64 {
        run::<S>(seed, size(3_000, 60), seed % 2 == 1);
    }
}

fn run<S: Storage>(seed: u64, ops: usize, grouped: bool) {
    let mut world = World::<S>::new();
    let ids = [
        world.register_component::<P<false>>(),
        world.register_component::<P<true>>(),
        world.register_component::<Q<false>>(),
        world.register_component::<Q<true>>(),
    ];
    let dense = [
        S::is_dense::<P<false>>(),
        S::is_dense::<P<true>>(),
        S::is_dense::<Q<false>>(),
        S::is_dense::<Q<true>>(),
    ];
    if grouped {
        // Backends without groups (or without sparse-only groups) answer an error; the
        // contract holds either way.
        let _ = world.group::<(P<true>, Q<true>)>();
    }
    let probes = vec![
        probe::<S, (&P<false>, &Q<false>), ()>(&mut world, "tables joined"),
        probe::<S, (&P<true>, &Q<true>), ()>(&mut world, "sparse joined"),
        probe::<S, (&P<false>, &P<true>), ()>(&mut world, "table and sparse"),
        probe::<S, (Entity, Option<&Q<true>>), With<Q<false>>>(&mut world, "optional"),
        probe::<S, Entity, (With<P<true>>, Without<Q<false>>)>(&mut world, "with/without"),
        probe::<S, &P<false>, Or<(With<Q<false>>, With<Q<true>>)>>(&mut world, "or"),
        probe::<S, (&P<false>, Option<&P<false>>), Without<P<false>>>(&mut world, "self-excluding"),
        probe::<S, Entity, ()>(&mut world, "everything"),
    ];
    let mut h = Harness {
        world,
        model: HashMap::new(),
        handles: Vec::new(),
        rng: Rng::new(seed),
        ids,
        dense,
        probes,
        rows_checked: Default::default(),
    };
    for op in 0..ops {
        h.step(op);
        if op % size(150, 30) == 0 {
            h.check();
        }
    }
    h.check();
    let [dense_rows, sparse_rows] = h.rows_checked.get();
    assert!(dense_rows > 0, "no dense row checked");
    // Every backend but the all-tables one answers some slots by look-up.
    assert!(
        S::is_dense::<P<true>>() || sparse_rows > 0,
        "no look-up checked"
    );
}

impl<S: Storage> Harness<S> {
    fn step(&mut self, op: usize) {
        if op > 0 && op % 1_000 == 0 {
            self.world.clear();
            self.model.clear();
            return;
        }
        match self.rng.index(10) {
            0..=2 => self.spawn(),
            3 => self.spawn_batch(),
            4..=6 => self.insert(),
            7..=8 => self.remove(),
            _ => self.despawn(),
        }
    }

    fn pick(&mut self) -> Option<Entity> {
        (!self.handles.is_empty()).then(|| self.handles[self.rng.index(self.handles.len())])
    }

    fn spawn(&mut self) {
        let v = self.rng.next_u64();
        let (entity, held) = match v % 4 {
            0 => (self.world.spawn(()), [None; TYPES]),
            1 => (
                self.world.spawn((P::<false>(v), Q::<true>(v))),
                [Some(v), None, None, Some(v)],
            ),
            2 => (
                self.world
                    .spawn((P::<true>(v), Q::<true>(v), Q::<false>(v))),
                [None, Some(v), Some(v), Some(v)],
            ),
            _ => (
                self.world.spawn((P::<false>(v),)),
                [Some(v), None, None, None],
            ),
        };
        self.model.insert(entity, held);
        self.handles.push(entity);
    }

    fn spawn_batch(&mut self) {
        let n = self.rng.index(6) + 1;
        let base = self.rng.next_u64();
        let spawned = self
            .world
            .spawn_batch((0..n as u64).map(|i| (P::<false>(base + i), P::<true>(i))))
            .to_vec();
        for (i, e) in spawned.into_iter().enumerate() {
            let i = i as u64;
            self.model.insert(e, [Some(base + i), Some(i), None, None]);
            self.handles.push(e);
        }
    }

    fn insert(&mut self) {
        let Some(e) = self.pick() else { return };
        let v = self.rng.next_u64();
        let which = self.rng.index(TYPES);
        let done = match which {
            0 => self.world.insert(e, P::<false>(v)).is_ok(),
            1 => self.world.insert(e, P::<true>(v)).is_ok(),
            2 => self.world.insert(e, Q::<false>(v)).is_ok(),
            _ => self.world.insert(e, Q::<true>(v)).is_ok(),
        };
        assert_eq!(done, self.model.contains_key(&e));
        if let Some(held) = self.model.get_mut(&e) {
            held[which] = Some(v);
        }
    }

    fn remove(&mut self) {
        let Some(e) = self.pick() else { return };
        let which = self.rng.index(TYPES);
        let got = match which {
            0 => self.world.remove::<P<false>>(e).ok().map(|x| x.0),
            1 => self.world.remove::<P<true>>(e).ok().map(|x| x.0),
            2 => self.world.remove::<Q<false>>(e).ok().map(|x| x.0),
            _ => self.world.remove::<Q<true>>(e).ok().map(|x| x.0),
        };
        let want = self.model.get_mut(&e).and_then(|held| held[which].take());
        assert_eq!(got, want);
    }

    fn despawn(&mut self) {
        let Some(e) = self.pick() else { return };
        assert_eq!(
            self.world.despawn(e).is_ok(),
            self.model.remove(&e).is_some()
        );
    }

    fn check(&mut self) {
        self.check_values();
        let mut probes = std::mem::take(&mut self.probes);
        for probe in &mut probes {
            // The long-lived cache, updated across every operation so far...
            self.check_chunks(probe.name, &probe.descriptor, &mut probe.cache);
            // ... and a fresh one: both must satisfy the contract.
            let mut fresh = S::QueryCache::default();
            self.check_chunks(probe.name, &probe.descriptor, &mut fresh);
        }
        self.probes = probes;
    }

    /// Values: `get_ptr`, `contains` and places agree with the model, also for stale and
    /// never-issued handles; no two values overlap.
    fn check_values(&self) {
        let storage = self.world.storage();
        // A handle no allocator of these small worlds hands out.
        let never = Entity::new(u32::MAX - 7, 3).expect("a valid handle");
        let mut spans = Vec::new();
        for &e in self.handles.iter().chain([&never]) {
            let held = self.model.get(&e).copied().unwrap_or([None; TYPES]);
            let place = storage.place(e);
            for (t, &id) in self.ids.iter().enumerate() {
                let ptr = storage.get_ptr(e, id);
                assert_eq!(ptr.is_some(), held[t].is_some(), "get_ptr {e:?} type {t}");
                assert_eq!(storage.contains(e, id), ptr.is_some(), "contains {e:?} {t}");
                match &place {
                    Some(place) => assert_eq!(place.ptr(id), ptr, "place {e:?} type {t}"),
                    None => assert!(ptr.is_none(), "no place, but a value: {e:?} {t}"),
                }
                let want = ptr.zip(held[t]).map(|(p, v)| (p.as_ptr().cast_const(), v));
                assert_eq!(typed(&self.world, e, t), want, "typed read {e:?} type {t}");
                if let Some(ptr) = ptr {
                    spans.push(ptr.as_ptr() as usize);
                }
            }
        }
        spans.sort_unstable();
        for pair in spans.windows(2) {
            assert!(pair[1] - pair[0] >= size_of::<u64>(), "overlapping values");
        }
    }

    /// Chunks of `descriptor` after updating `cache`: every promise of the contract's
    /// "chunks", "dense types" and "keys" bullets.
    fn check_chunks(
        &self,
        name: &str,
        descriptor: &ecs_core::storage::QueryDescriptor,
        cache: &mut S::QueryCache,
    ) {
        let world = &self.world;
        let storage = world.storage();
        storage.update_query_cache(cache, descriptor, world.components());
        let alive = world.entities().alive();
        let chunks: Vec<S::Chunk<'_>> = storage.query_chunks(cache, descriptor, alive).collect();
        let mut seen = HashSet::new();
        let mut keys = HashSet::new();
        // Pointers handed out, checked again once the chunks are gone.
        let mut answers: Vec<(Entity, ComponentId, NonNull<u8>)> = Vec::new();
        for chunk in &chunks {
            let entities = chunk.entities();
            let key = S::chunk_key(chunk);
            if let Some(k) = key {
                assert!(keys.insert(k), "{name}: two chunks keyed {k:?}");
            }
            for (row, &e) in entities.iter().enumerate() {
                assert!(world.contains(e), "{name}: chunk holds dead {e:?}");
                assert!(seen.insert(e), "{name}: {e:?} in two chunks");
                if let Some(k) = key {
                    assert_eq!(
                        storage.entity_row(e),
                        Some(ChunkRow {
                            key: k,
                            row: row as u32
                        }),
                        "{name}: key of {e:?}"
                    );
                }
            }
            for (s, slot) in descriptor.slots().iter().enumerate() {
                let t = self.ids.iter().position(|&id| id == slot.component);
                let item = world.components().info(slot.component).layout().size();
                match chunk.column(s) {
                    ColumnAccess::Dense(base) => {
                        for (row, &e) in entities.iter().enumerate() {
                            // SAFETY: only the address is computed, within the column the
                            // contract says holds every row.
                            let at = unsafe { base.add(row * item) };
                            assert_eq!(
                                storage.get_ptr(e, slot.component),
                                Some(at),
                                "{name}: dense slot {s} row {row}"
                            );
                            answers.push((e, slot.component, at));
                        }
                        self.count_rows(0, entities.len());
                    }
                    ColumnAccess::Sparse(lookup) => {
                        assert!(
                            !t.is_some_and(|t| self.dense[t]),
                            "{name}: a dense type answered Sparse (slot {s})"
                        );
                        for (row, &e) in entities.iter().enumerate() {
                            let want = storage.get_ptr(e, slot.component);
                            assert_eq!(lookup.lookup(e), want, "{name}: look-up slot {s}");
                            assert_eq!(lookup.contains(e), want.is_some(), "{name}: {s}");
                            for hint in [0, row, row + 1, entities.len(), usize::MAX] {
                                let got = lookup.lookup_hinted(hint, e).map(|x| x.0);
                                assert_eq!(got, want, "{name}: hinted look-up slot {s}");
                            }
                            if let Some(ptr) = want {
                                answers.push((e, slot.component, ptr));
                            }
                        }
                        self.count_rows(1, entities.len());
                    }
                    ColumnAccess::Absent => {
                        let required_dense =
                            slot.role == SlotRole::Required && t.is_some_and(|t| self.dense[t]);
                        assert!(
                            !required_dense || entities.is_empty(),
                            "{name}: a dense type's required slot {s} answered Absent"
                        );
                        for &e in entities {
                            assert!(
                                !storage.contains(e, slot.component),
                                "{name}: absent slot {s}, but {e:?} holds it"
                            );
                        }
                    }
                }
            }
        }
        drop(chunks);
        for (e, c, ptr) in answers {
            assert_eq!(storage.get_ptr(e, c), Some(ptr), "{name}: pointer moved");
        }
        // Every live entity matching the descriptor is in some chunk.
        for &e in alive {
            let matches = descriptor.slots().iter().all(|slot| match slot.role {
                SlotRole::Required => storage.contains(e, slot.component),
                SlotRole::Excluded => !storage.contains(e, slot.component),
                SlotRole::Optional => true,
            });
            if matches {
                assert!(seen.contains(&e), "{name}: matching {e:?} in no chunk");
            }
        }
    }
}

impl<S: Storage> Harness<S> {
    fn count_rows(&self, path: usize, rows: usize) {
        let mut counts = self.rows_checked.get();
        counts[path] += rows;
        self.rows_checked.set(counts);
    }
}

/// Entity `e`'s value of probe type `t` through the typed API: its address and its number.
fn typed<S: Storage>(world: &World<S>, e: Entity, t: usize) -> Option<(*const u8, u64)> {
    fn of<T>(r: &T, v: u64) -> (*const u8, u64) {
        (std::ptr::from_ref(r).cast(), v)
    }
    match t {
        0 => world.get::<P<false>>(e).map(|x| of(x, x.0)),
        1 => world.get::<P<true>>(e).map(|x| of(x, x.0)),
        2 => world.get::<Q<false>>(e).map(|x| of(x, x.0)),
        _ => world.get::<Q<true>>(e).map(|x| of(x, x.0)),
    }
}
