//! A snapshot saved on one backend loads on every other: the layout names no backend.

use ecs_archetype::ArchetypeStorage;
use ecs_core::testing::VecStorage;
use ecs_core::{Storage, World};
use ecs_fuzz::generate::Rng;
use ecs_fuzz::snapshot::kit::target_steps;
use ecs_fuzz::snapshot::kit::{build, Step};
use ecs_fuzz::snapshot::mutate::random_step;
use ecs_hybrid::HybridStorage;
use ecs_sparse::SparseStorage;

use ecs_conformance::snapshot::basics::{
    assert_loaded, binary, json, load_binary, load_json, sample_steps,
};

/// Saves a world built from `steps` on `S` in both formats and loads each on `T`, into an
/// empty world and merged into one with entities.
fn to<S: Storage, T: Storage>(steps: &[Step]) {
    let source: World<S> = build(steps);
    let (text, bytes) = (json(&source), binary(&source));
    let mut fresh = World::<T>::new();
    let map = load_json(&mut fresh, &text).unwrap();
    assert_loaded(&source, &fresh, &map);
    let mut merged: World<T> = build(&target_steps());
    let map = load_binary(&mut merged, &bytes).unwrap();
    assert_loaded(&source, &merged, &map);
}

fn from<S: Storage>(steps: &[Step]) {
    to::<S, VecStorage>(steps);
    to::<S, SparseStorage>(steps);
    to::<S, ArchetypeStorage>(steps);
    to::<S, HybridStorage>(steps);
}

#[test]
fn every_backend_loads_every_other() {
    let mut recipes = vec![sample_steps(), target_steps(), Vec::new()];
    let mut rng = Rng::new(0x5EED);
    for len in [10, 60, 200] {
        recipes.push((0..len).map(|_| random_step(&mut rng)).collect());
    }
    for steps in &recipes {
        from::<VecStorage>(steps);
        from::<SparseStorage>(steps);
        from::<ArchetypeStorage>(steps);
        from::<HybridStorage>(steps);
    }
}
