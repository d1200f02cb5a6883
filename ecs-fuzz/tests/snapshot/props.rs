//! Property tests: random worlds built through the public API (random compositions,
//! despawned gaps, named instances, plain inserts after them, non-finite floats, parent
//! links, handles inside values, run-time components, a resource) round-trip to an equal
//! world on every backend, in both formats, into empty worlds and merged into worlds with
//! entities, and across backends; a loaded world saves to the same bytes again.

use ecs_archetype::ArchetypeStorage;
use ecs_core::testing::VecStorage;
use ecs_core::{Storage, World};
use ecs_fuzz::snapshot::kit::target_steps;
use ecs_fuzz::snapshot::kit::{build, Step};
use ecs_hybrid::HybridStorage;
use ecs_sparse::SparseStorage;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use ecs_conformance::snapshot::basics::{assert_loaded, binary, json, load_binary, load_json};

fn step() -> impl Strategy<Value = Step> {
    let spawn = (
        option::of((any::<i16>(), any::<i16>())),
        any::<bool>(),
        option::of(any::<u8>()),
        option::of(any::<u16>()),
        option::of(any::<[u8; 4]>()),
        any::<bool>(),
    )
        .prop_map(|(pos, tag, label, fx, raw, secret)| Step::Spawn {
            pos,
            tag,
            label,
            fx,
            raw,
            secret,
        });
    prop_oneof![
        5 => spawn,
        2 => any::<u8>().prop_map(Step::Despawn),
        2 => (any::<u8>(), any::<u8>(), any::<u16>())
            .prop_map(|(entity, name, value)| Step::Named { entity, name, value }),
        2 => (any::<u8>(), any::<u8>()).prop_map(|(child, parent)| Step::Parent { child, parent }),
        1 => (any::<u8>(), any::<u8>(), vec(any::<u8>(), 0..3), option::of(any::<u8>()))
            .prop_map(|(entity, primary, others, backup)| Step::Target { entity, primary, others, backup }),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(entity, to)| Step::Link { entity, to }),
        1 => any::<u64>().prop_map(Step::Score),
        2 => (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(entity, x, y)| Step::SetPos { entity, x, y }),
    ]
}

/// Every round trip of a world built on `S`: on `S` itself in both formats, and on `T`
/// merged into a world with entities. A loaded world saves to bytes that load back to the
/// same bytes (save → load → save → load → save: the last two saves are equal; the first
/// differs only in the handles, which a load gives afresh).
fn round_trips<S: Storage, T: Storage>(steps: &[Step]) {
    let world: World<S> = build(steps);
    let (text, bytes) = (json(&world), binary(&world));
    let mut copy = World::<S>::new();
    let map = load_json(&mut copy, &text).unwrap();
    assert_loaded(&world, &copy, &map);
    let again = json(&copy);
    let mut second = World::<S>::new();
    load_json(&mut second, &again).unwrap();
    assert_eq!(
        json(&second),
        again,
        "a loaded world's JSON loads back to the same text"
    );
    let mut copy = World::<S>::new();
    let map = load_binary(&mut copy, &bytes).unwrap();
    assert_loaded(&world, &copy, &map);
    let again = binary(&copy);
    let mut second = World::<S>::new();
    load_binary(&mut second, &again).unwrap();
    assert_eq!(
        binary(&second),
        again,
        "a loaded world's bytes load back to the same bytes"
    );
    let mut merged: World<T> = build(&target_steps());
    let map = load_binary(&mut merged, &bytes).unwrap();
    assert_loaded(&world, &merged, &map);
    let map = load_json(&mut merged, &text).unwrap();
    assert_loaded(&world, &merged, &map);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_worlds_round_trip_on_every_backend(steps in vec(step(), 0..120)) {
        round_trips::<VecStorage, SparseStorage>(&steps);
        round_trips::<SparseStorage, ArchetypeStorage>(&steps);
        round_trips::<ArchetypeStorage, HybridStorage>(&steps);
        round_trips::<HybridStorage, VecStorage>(&steps);
    }
}
