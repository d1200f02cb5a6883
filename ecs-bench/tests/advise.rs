//! The storage advisor: its profile of a hand-built trace, its calibration, its reading of
//! a bad file and its `--check` verdicts.
#![cfg(feature = "replay")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ecs_archetype::ArchetypeStorage;
use ecs_bench::advise::command::{run_advise, AdviseArgs};
use ecs_bench::advise::model::CostModel;
use ecs_bench::advise::profile::{Bits, Profile, FEATURES};
use ecs_core::component::StorageKind;
use ecs_core::trace::{Trace, Traced};
use ecs_core::{Component, Mutable, World};

#[derive(Clone, Copy, Default)]
struct Pos([f32; 3]);
impl Component for Pos {
    type Mutability = Mutable;
}

#[derive(Clone, Copy, Default)]
struct Vel([f32; 3]);
impl Component for Vel {
    type Mutability = Mutable;
}

#[derive(Clone, Copy, Default)]
struct Tag;
impl Component for Tag {
    type Mutability = Mutable;
}

/// 64 bytes: rows of four of these are costly to move.
#[derive(Clone, Copy, Default)]
struct Wide([u64; 8]);
impl Component for Wide {
    type Mutability = Mutable;
}

/// Declared sparse.
#[derive(Clone, Copy, Default)]
struct SparseTag;
impl Component for SparseTag {
    const STORAGE: StorageKind = StorageKind::Sparse;
    type Mutability = Mutable;
}

type Recording = World<Traced<ArchetypeStorage>>;

fn index(trace: &Trace, name: &str) -> u32 {
    trace
        .components()
        .iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("no {name} in the trace")) as u32
}

fn pairs<K: Copy>(map: &BTreeMap<K, u64>) -> Vec<(K, u64)> {
    map.iter().map(|(&k, &n)| (k, n)).collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ecs-advise-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every count of a hand-built trace, and the features layouts make of them.
#[test]
fn the_profile_of_a_hand_built_trace_is_exact() {
    let mut world = Recording::new();
    world.start_trace().unwrap();
    let es = world
        .spawn_batch((0..5).map(|_| (Pos::default(), Vel::default())))
        .to_vec();
    // Added out of step: back from `es[3]` to `es[2]`, not to a new pass's start.
    world.insert(es[0], Tag).unwrap();
    world.insert(es[3], Tag).unwrap();
    world.insert(es[2], Tag).unwrap();
    world.insert(es[0], Pos::default()).unwrap(); // a write in place, traced as a `get_mut`
                                                  // `es[2]`'s value moves into the hole: the same table, nothing reordered.
    world.remove::<Tag>(es[0]).unwrap();
    world.despawn(es[4]).unwrap(); // the last value of `Pos` and `Vel`: nothing reordered
    world.query::<(&mut Pos, &Vel)>().for_each(|_| {});
    let _ = world.get::<Vel>(es[1]);
    // From the middle, and the last values (`es[3]`'s) are of another table: `Pos` and
    // `Vel` reordered.
    world.despawn(es[1]).unwrap();
    world.query::<(&mut Pos, &Vel)>().for_each(|_| {});
    world.trace_frame();
    let trace = world.finish_trace().unwrap();

    let (p, v, t) = (
        index(&trace, "Pos"),
        index(&trace, "Vel"),
        index(&trace, "Tag"),
    );
    let profile = Profile::of(&trace);
    let set = |members: &[u32]| {
        let bits = Bits::of(members.iter().copied());
        profile.sets.iter().position(|s| *s == bits).unwrap() as u32
    };
    let (pv, pvt) = (set(&[p, v]), set(&[p, v, t]));
    assert_eq!(pairs(&profile.spawns), vec![(pv, 5)]);
    assert_eq!(
        pairs(&profile.changes_of_set),
        vec![((pv, t, true), 3), ((pvt, t, false), 1)]
    );
    assert_eq!(pairs(&profile.despawns), vec![(pv, 2)]);
    assert_eq!(profile.overwrites[p as usize], 0);
    assert_eq!((profile.inserts, profile.removes), (3, 1));
    assert_eq!((profile.frames_marked, profile.systems_marked), (1, 0));
    assert_eq!((profile.gets[p as usize], profile.gets[v as usize]), (1, 1));
    assert_eq!(profile.shapes.len(), 1);
    let shape = &profile.shapes[0];
    assert_eq!((shape.runs, shape.rows), (2, 7));
    // Churned: `es[0]`, `es[2]` and `es[3]` had a `Tag` added out of step (the one
    // remove, alone, is in step); disordered: `Pos`, then `Pos` and `Vel`.
    assert_eq!(
        profile.churned,
        vec![
            Bits::default(),
            Bits::of([t]),
            Bits::of([p]),
            Bits::of([p, v])
        ]
    );
    // The first run: `es[1]` untouched, the others churned; the second, after `es[1]`
    // left, with `Pos` and `Vel` disordered.
    assert_eq!(
        pairs(&shape.alive),
        vec![
            ((pv, 0, 0), 1),
            ((pv, 1, 0), 1),
            ((pv, 1, 3), 1),
            ((pvt, 1, 0), 2),
            ((pvt, 1, 3), 2)
        ]
    );
    assert_eq!(pairs(&shape.present), vec![(pv, 2), (pvt, 2)]);
    assert_eq!(shape.fetched_bytes, 24);

    let layout = |sparse: &[u32]| {
        let mut out = vec![false; trace.components().len()];
        sparse.iter().for_each(|&c| out[c as usize] = true);
        profile.features(&out)
    };
    let tables = layout(&[]);
    assert_eq!((tables.spawned, tables.despawned), (5.0, 2.0));
    assert_eq!(tables.row_bytes, 7.0 * 24.0);
    assert_eq!(
        (tables.moves, tables.moved_columns, tables.moved_bytes),
        (4.0, 9.0, 96.0)
    );
    assert_eq!((tables.sparse_adds, tables.sparse_removes), (0.0, 0.0));
    assert_eq!((tables.runs, tables.tables, tables.rows), (2.0, 4.0, 7.0));
    assert_eq!((tables.joins, tables.aligned_joins), (0.0, 0.0));
    assert_eq!((tables.table_gets, tables.sparse_gets), (2.0, 0.0));
    assert_eq!(tables.fetched_bytes, 7.0 * 24.0);

    let tag_sparse = layout(&[t]);
    assert_eq!(tag_sparse.moves, 0.0);
    assert_eq!(
        (tag_sparse.sparse_adds, tag_sparse.sparse_removes),
        (3.0, 1.0)
    );
    assert_eq!(
        tag_sparse.tables, 2.0,
        "one table a run once the tag is not in it"
    );

    let vel_sparse = layout(&[v]);
    assert_eq!(vel_sparse.row_bytes, 7.0 * 12.0);
    assert_eq!(
        (vel_sparse.sparse_adds, vel_sparse.sparse_removes),
        (5.0, 2.0)
    );
    assert_eq!((vel_sparse.moves, vel_sparse.moved_columns), (4.0, 5.0));
    // First run: the rows `Tag` moved out of step have their `Vel` out of order, the
    // untouched ones in it; second run: all out of order (`Vel` reordered).
    assert_eq!((vel_sparse.joins, vel_sparse.aligned_joins), (6.0, 1.0));
    assert_eq!((vel_sparse.table_gets, vel_sparse.sparse_gets), (1.0, 1.0));
    // With `Tag` sparse too, no row moved: the first run all in order.
    let vel_tag = layout(&[v, t]);
    assert_eq!((vel_tag.joins, vel_tag.aligned_joins), (3.0, 4.0));

    // Both fetched components sparse: driven down one set, the other looked up, in order
    // until the despawn reordered them.
    let both = layout(&[p, v]);
    assert_eq!((both.tables, both.rows), (0.0, 7.0));
    assert_eq!((both.joins, both.aligned_joins), (3.0, 4.0));
}

/// A join of a table component with a sparse one held by few entities is driven down the
/// set, as the hybrid runs it: an entity found per value, no table walked.
#[test]
fn a_small_sparse_set_in_a_join_is_priced_as_driving_it() {
    let mut world = Recording::new();
    world.start_trace().unwrap();
    let es = world
        .spawn_batch((0..12).map(|_| (Pos::default(),)))
        .to_vec();
    for &e in &es[..1] {
        world.insert(e, Tag).unwrap();
    }
    world.query::<(&mut Pos, &Tag)>().for_each(|_| {});
    // 10 of 12: more than half the rows, so the table is walked.
    for &e in &es[..10] {
        world.insert(e, Vel::default()).unwrap();
    }
    world.query::<(&mut Pos, &Vel)>().for_each(|_| {});
    let trace = world.finish_trace().unwrap();
    let profile = Profile::of(&trace);
    let mut sparse = vec![false; trace.components().len()];
    sparse[index(&trace, "Tag") as usize] = true;
    sparse[index(&trace, "Vel") as usize] = true;
    let f = profile.features(&sparse);
    assert_eq!(
        f.driven + f.far_driven,
        1.0,
        "the first run, down the one tag: {f:?}"
    );
    assert_eq!(f.tables, 1.0, "the second walks the one table");
    assert_eq!(f.rows, 1.0 + 12.0);
    assert_eq!(
        f.joins + f.aligned_joins + f.far_joins,
        12.0,
        "a look-up per row walked"
    );
}

#[test]
fn calibration_prices_are_positive_and_finite() {
    let model = CostModel::calibrate(1_000, &mut |_| {}).unwrap();
    assert_eq!(model.prices.len(), FEATURES);
    assert!(
        model.prices.iter().all(|p| p.is_finite() && *p > 0.0),
        "{:?}",
        model.prices
    );
    assert!(model.samples.iter().all(|s| s.measured_ns > 0.0));
}

fn args(file: &Path, cache: &Path, out: &Path, tolerance: f64) -> AdviseArgs {
    AdviseArgs {
        file: file.to_owned(),
        check: true,
        tolerance,
        exhaustive: false,
        runs: 3,
        recalibrate: false,
        cache: Some(cache.to_owned()),
        out: Some(out.to_owned()),
        no_progress: true,
    }
}

#[test]
fn a_malformed_trace_is_the_readers_error() {
    let dir = scratch("malformed");
    let file = dir.join("bad.trace");
    std::fs::write(&file, b"not a trace at all").unwrap();
    let err = run_advise(args(&file, &dir.join("cache.json"), &dir, 10.0))
        .map(|_| ())
        .unwrap_err();
    let reader = Trace::from_bytes(b"not a trace at all").unwrap_err();
    assert_eq!(err, format!("{}: {reader}", file.display()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Entities with wide table rows gain and lose a tag again and again.
fn churn<T: Component + Default + Copy>() -> Trace {
    let mut world = Recording::new();
    world.start_trace().unwrap();
    let es = world
        .spawn_batch((0..500).map(|_| (Wide::default(), Pos::default(), Vel::default())))
        .to_vec();
    world.trace_frame();
    for _ in 0..20 {
        for &e in &es {
            world.insert(e, T::default()).unwrap();
        }
        for &e in &es {
            world.remove::<T>(e).unwrap();
        }
        // Iterated every frame: the wide components stay in tables.
        world
            .query::<(&mut Wide, &Pos, &Vel)>()
            .for_each(|(w, p, v)| w.0[0] += (p.0[0] + v.0[0]) as u64);
        world.trace_frame();
    }
    world.finish_trace().unwrap()
}

/// `--check` fails when the declared layout is measured slower than the advice allows,
/// and passes when it is the advice (or within the tolerance).
#[test]
fn check_verdicts_follow_the_measured_layouts() {
    let dir = scratch("check");
    let cache = dir.join("cache.json");
    let model = CostModel::calibrate(2_000, &mut |_| {}).unwrap();
    std::fs::write(&cache, serde_json::to_string(&model).unwrap()).unwrap();

    let tagged = dir.join("tagged.trace");
    std::fs::write(&tagged, churn::<Tag>().to_bytes()).unwrap();
    assert_eq!(
        run_advise(args(&tagged, &cache, &dir, 10.0)),
        Ok(false),
        "a tag moved between tables on every add is advised sparse, and the check fails"
    );
    let advice = std::fs::read_to_string(dir.join("advice.md")).unwrap();
    assert!(
        advice.contains("#[component(storage = \"sparse\")] // on Tag"),
        "{advice}"
    );
    assert_eq!(run_advise(args(&tagged, &cache, &dir, 10_000.0)), Ok(true));

    let sparse = dir.join("sparse.trace");
    std::fs::write(&sparse, churn::<SparseTag>().to_bytes()).unwrap();
    assert_eq!(
        run_advise(args(&sparse, &cache, &dir, 10.0)),
        Ok(true),
        "declared sparse already"
    );
    let advice = std::fs::read_to_string(dir.join("advice.md")).unwrap();
    assert!(advice.contains("nothing to change"), "{advice}");
    std::fs::remove_dir_all(&dir).unwrap();
}
