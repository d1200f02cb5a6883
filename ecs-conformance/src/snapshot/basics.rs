//! Round trips, merging, remapped handles, hierarchy, named instances and run-time
//! components, change tracking, determinism: what a load promises when the input is good.

use crate::kit::snapshot::target_steps;
use crate::kit::snapshot::{
    build, dump, dynamic_ids, registry, Fx, Label, Score, Secret, Step, Target,
};
use ecs_core::snapshot::{EntityMap, SnapshotError, SnapshotRegistry};
use ecs_core::{Added, Changed, ChildOf, Entity, Storage, World};

/// A world with every kind of column, a despawned gap (a reused index with generation 2),
/// named instances, parent links, handles inside values and a resource.
pub fn sample_steps() -> Vec<Step> {
    let spawn = |pos: Option<(i16, i16)>, tag, label, fx, raw, secret| Step::Spawn {
        pos,
        tag,
        label,
        fx,
        raw,
        secret,
    };
    vec![
        spawn(Some((1, 2)), true, Some(1), None, Some([1, 2, 3, 4]), true),
        spawn(Some((3, 4)), false, None, Some(7), None, false),
        spawn(None, true, Some(2), None, None, false),
        spawn(Some((5, 6)), false, None, None, Some([9, 9, 9, 9]), false),
        spawn(Some((7, 8)), false, Some(3), None, None, false),
        Step::Despawn(1),
        spawn(Some((9, 9)), false, None, Some(8), None, false),
        Step::Named {
            entity: 0,
            name: 0,
            value: 10,
        },
        Step::Named {
            entity: 2,
            name: 1,
            value: 11,
        },
        Step::Named {
            entity: 0,
            name: 2,
            value: 12,
        },
        Step::Parent {
            child: 1,
            parent: 0,
        },
        Step::Parent {
            child: 2,
            parent: 0,
        },
        Step::Parent {
            child: 3,
            parent: 2,
        },
        Step::Target {
            entity: 0,
            primary: 1,
            others: vec![2, 3],
            backup: Some(4),
        },
        Step::Target {
            entity: 4,
            primary: 4,
            others: vec![],
            backup: None,
        },
        Step::Link { entity: 2, to: 0 },
        Step::Score(42),
    ]
}

/// `world` as JSON.
pub fn json<S: Storage>(world: &World<S>) -> String {
    serde_json::to_string(&registry().save(world)).expect("a world saves")
}

/// `world` as postcard.
pub fn binary<S: Storage>(world: &World<S>) -> Vec<u8> {
    postcard::to_allocvec(&registry().save(world)).expect("a world saves")
}

/// Loads JSON into `world`.
pub fn load_json<S: Storage>(world: &mut World<S>, text: &str) -> Result<EntityMap, SnapshotError> {
    registry().load(world, &mut serde_json::Deserializer::from_str(text))
}

/// Loads postcard into `world`.
pub fn load_binary<S: Storage>(
    world: &mut World<S>,
    bytes: &[u8],
) -> Result<EntityMap, SnapshotError> {
    registry().load(world, &mut postcard::Deserializer::from_bytes(bytes))
}

/// Asserts that the loaded entities of `copy` are `original`'s live ones, value for value.
pub fn assert_loaded<S: Storage, T: Storage>(
    original: &World<S>,
    copy: &World<T>,
    map: &EntityMap,
) {
    let alive = original.entities().alive();
    assert_eq!(map.len(), alive.len());
    for (&old, (listed, new)) in alive.iter().zip(map.iter()) {
        assert_eq!(old, listed, "the map lists the saved entities in order");
        assert_eq!(map.get(old), Some(new));
    }
    let (mut want, mut got) = (
        dump(original, alive, true),
        dump(copy, &map.loaded().collect::<Vec<_>>(), true),
    );
    // The last line is the resources: a loaded one replaces the world's, and a world
    // merged into keeps its own where the snapshot has none.
    let (want_resources, got_resources) = (want.pop().unwrap(), got.pop().unwrap());
    assert_eq!(want, got);
    if original.resource::<Score>().is_some() {
        assert_eq!(want_resources, got_resources);
    }
}

/// A world saved as JSON, compact or pretty, loads into an empty world with every live entity
/// and value intact, and the text names components and instances by name.
pub fn round_trip_json<S: Storage>() {
    let world: World<S> = build(&sample_steps());
    let text = json(&world);
    assert!(
        text.contains(r#""name":"Pos""#) && text.contains(r#""instance":"Fog""#),
        "{text}"
    );
    let mut copy = World::<S>::new();
    let map = load_json(&mut copy, &text).unwrap();
    assert_loaded(&world, &copy, &map);
    assert_eq!(copy.len(), world.len());
    let pretty = serde_json::to_string_pretty(&registry().save(&world)).unwrap();
    let mut again = World::<S>::new();
    let map = load_json(&mut again, &pretty).unwrap();
    assert_loaded(&world, &again, &map);
}

/// A world saved in the binary format loads back with every live entity, value and resource
/// intact, at less than half the size of the JSON.
pub fn round_trip_postcard<S: Storage>() {
    let world: World<S> = build(&sample_steps());
    let bytes = binary(&world);
    assert!(bytes.len() < json(&world).len() / 2, "binary is compact");
    let mut copy = World::<S>::new();
    let map = load_binary(&mut copy, &bytes).unwrap();
    assert_loaded(&world, &copy, &map);
    assert_eq!(copy.resource::<Score>(), Some(&Score(42)));
}

/// Loading into a world that has entities adds the snapshot's as new entities, with new
/// handles, and leaves the world's own untouched; loading again adds another copy.
pub fn merge_into_a_world_with_entities<S: Storage>() {
    let source: World<S> = build(&sample_steps());
    let mut world: World<S> = build(&target_steps());
    let own: Vec<Entity> = world.entities().alive().to_vec();
    let own_before = dump(&world, &own, false);
    let map = load_binary(&mut world, &binary(&source)).unwrap();
    assert_eq!(world.len(), own.len() + source.len());
    assert!(map.loaded().all(|e| !own.contains(&e)), "new handles");
    let mut own_after = dump(&world, &own, false);
    own_after.pop(); // the resource line: the snapshot's Score replaced the world's
    let mut expected = own_before;
    expected.pop();
    assert_eq!(
        own_after, expected,
        "the world's own entities are untouched"
    );
    assert_loaded(&source, &world, &map);
    assert_eq!(world.resource::<Score>(), Some(&Score(42)));
    // Twice: the second copy is another set of entities.
    let second = load_json(&mut world, &json(&source)).unwrap();
    let first: Vec<Entity> = map.loaded().collect();
    assert!(second.loaded().all(|e| !first.contains(&e)));
    assert_loaded(&source, &world, &second);
}

/// Handles stored inside loaded values, typed or raw bytes of a run-time component, are
/// rewritten to the new handles of the entities they named, so references survive a load.
pub fn handles_inside_values_are_remapped<S: Storage>() {
    let mut source = World::<S>::new();
    let (_, link) = dynamic_ids(&mut source);
    let a = source.spawn(Label("a".into()));
    let b = source.spawn(());
    source
        .insert(
            b,
            Target {
                primary: a,
                others: vec![b, a],
                backup: Some(b),
            },
        )
        .unwrap();
    source
        .insert_bytes(a, link, &b.to_bits().to_ne_bytes())
        .unwrap();
    let mut world: World<S> = build(&target_steps()); // so handles differ
    let map = load_json(&mut world, &json(&source)).unwrap();
    let (a2, b2) = (map.get(a).unwrap(), map.get(b).unwrap());
    assert_ne!((a, b), (a2, b2));
    assert_eq!(
        world.get::<Target>(b2),
        Some(&Target {
            primary: a2,
            others: vec![b2, a2],
            backup: Some(b2)
        })
    );
    let (_, link2) = dynamic_ids(&mut world);
    assert_eq!(
        world.get_bytes(a2, link2),
        Some(&b2.to_bits().to_ne_bytes()[..])
    );
}

/// A load keeps every parent link and each parent's child order, also for a chain thousands
/// deep.
pub fn hierarchy_keeps_parents_and_child_order<S: Storage>() {
    let mut source = World::<S>::new();
    let root = source.spawn(Label("root".into()));
    let kids: Vec<Entity> = (0..4)
        .map(|i| source.spawn_child(root, Fx(i)).unwrap())
        .collect();
    source.set_parent(kids[0], root).unwrap(); // stays first
    source.remove_parent(kids[1]).unwrap();
    source.set_parent(kids[1], root).unwrap(); // now last

    // A chain of 2,000: a loader walking ancestors per link would take quadratic time.
    let mut at = kids[2];
    for _ in 0..2_000 {
        at = source.spawn_child(at, ()).unwrap();
    }
    let mut world = World::<S>::new();
    let map = load_binary(&mut world, &binary(&source)).unwrap();
    let new = |e: Entity| map.get(e).unwrap();
    let order: Vec<Entity> = world.children(new(root)).unwrap().collect();
    assert_eq!(order, [kids[0], kids[2], kids[3], kids[1]].map(new));
    assert_eq!(world.descendants(new(root)).unwrap().count(), 2_004);
    assert_eq!(world.ancestors(new(at)).unwrap().count(), 2_001);
    assert_loaded(&source, &world, &map);
}

/// Named instances load back under their names, with their values, as instances of their type.
pub fn named_instances_and_runtime_components<S: Storage>() {
    let world: World<S> = build(&sample_steps());
    let mut copy = World::<S>::new();
    let map = load_json(&mut copy, &json(&world)).unwrap();
    for &old in world.entities().alive() {
        let new = map.get(old).unwrap();
        let names: Vec<&str> = world.named_instances(old).map(|i| i.name).collect();
        assert_eq!(copy.named_instances(new).count(), names.len());
        for name in names {
            assert!(
                copy.has_named(new, name),
                "{name} is found by name after a load"
            );
            assert_eq!(
                copy.get_named::<Fx>(new, name),
                world.get_named::<Fx>(old, name)
            );
            let id = copy.find(new, name).unwrap();
            assert!(copy.component_info(id).unwrap().instance().is_some());
        }
    }
}

/// Loaded components and parent links are additions to the world's existing change filters,
/// so systems react to a load as to spawns.
pub fn loaded_components_count_as_added<S: Storage>() {
    let source: World<S> = build(&sample_steps());
    let mut world = World::<S>::new();
    let mut labels = world.query_state::<&Label, Changed<Label>>().unwrap();
    let mut linked = world.query_state::<Entity, Added<ChildOf>>().unwrap();
    assert_eq!(labels.iter(&world).count(), 0);
    assert_eq!(linked.iter(&world).count(), 0);
    let map = load_json(&mut world, &json(&source)).unwrap();
    let expected = source.query_ref::<&Label>().count();
    assert_eq!(labels.iter(&world).count(), expected);
    let mut children: Vec<Entity> = linked.iter(&world).collect();
    children.sort();
    let mut expected: Vec<Entity> = source
        .entities()
        .alive()
        .iter()
        .filter(|&&e| source.parent(e).is_ok_and(|p| p.is_some()))
        .map(|&e| map.get(e).unwrap())
        .collect();
    expected.sort();
    assert_eq!(children, expected);
}

/// Saving the same world twice gives the same text, and save, load, save gives the same text
/// and the same binary: saves can be compared and diffed.
pub fn saves_are_deterministic<S: Storage>() {
    // No despawn: a fresh world's handles are then the same as the saved ones.
    let steps: Vec<Step> = sample_steps()
        .into_iter()
        .filter(|s| !matches!(s, Step::Despawn(_)))
        .collect();
    let world: World<S> = build(&steps);
    let first = json(&world);
    assert_eq!(first, json(&world));
    let mut copy = World::<S>::new();
    load_json(&mut copy, &first).unwrap();
    assert_eq!(json(&copy), first, "save, load, save: the same text");
    assert_eq!(binary(&copy), binary(&world));
}

/// `read` stages a snapshot without touching any world and leaves the rest of the input to the
/// caller, `commit` then loads it, and a staged snapshot dropped uncommitted drops its values.
pub fn read_then_commit<S: Storage>() {
    let world: World<S> = build(&sample_steps());
    let text = json(&world) + " trailing";
    let registry = registry();
    let mut de = serde_json::Deserializer::from_str(&text);
    let staged = registry.read(&mut de).unwrap();
    assert_eq!(staged.len(), world.len());
    assert!(de.end().is_err(), "the caller sees the trailing input");
    let mut copy = World::<S>::new();
    let map = staged.commit(&mut copy).unwrap();
    assert_loaded(&world, &copy, &map);
    // A staged snapshot dropped without a commit drops its values (no leak under Miri).
    drop(
        registry
            .read(&mut serde_json::Deserializer::from_str(&json(&world)))
            .unwrap(),
    );
}

/// Loading an empty world's save changes nothing, and a registry naming no component still saves
/// and loads the entities and their parent links.
pub fn empty_world_and_empty_registry<S: Storage>() {
    let empty = World::<S>::new();
    let mut world: World<S> = build(&target_steps());
    let before = world.len();
    let map = load_json(&mut world, &json(&empty)).unwrap();
    assert!(map.is_empty());
    assert_eq!(world.len(), before);
    // A registry naming nothing keeps the entities and their links.
    let source: World<S> = build(&sample_steps());
    let bare = SnapshotRegistry::new();
    let text = serde_json::to_string(&bare.save(&source)).unwrap();
    let mut copy = World::<S>::new();
    let map = bare
        .load(&mut copy, &mut serde_json::Deserializer::from_str(&text))
        .unwrap();
    assert_eq!(copy.len(), source.len());
    for &old in source.entities().alive() {
        let parent = source.parent(old).unwrap().map(|p| map.get(p).unwrap());
        assert_eq!(copy.parent(map.get(old).unwrap()).unwrap(), parent);
    }
    // The full registry refuses nothing of a bare save: no columns, no resources.
    let mut again = World::<S>::new();
    assert!(load_json(&mut again, &text).is_ok());
}

/// Components the registry does not name are left out of a save and so absent after a load.
pub fn unregistered_components_are_left_out<S: Storage>() {
    let world: World<S> = build(&sample_steps());
    assert!(world.query_ref::<&Secret>().count() > 0);
    let text = json(&world);
    assert!(!text.contains("Secret"));
    let mut copy = World::<S>::new();
    load_json(&mut copy, &text).unwrap();
    assert_eq!(copy.query_ref::<&Secret>().count(), 0);
}

/// A load fills storage units (tables, sets, columns adopted whole) by its own path:
/// `World::layout` must still describe them to the byte, into an empty world and merged
/// into one that has entities.
pub fn layout_bytes_equal_memory_usage_after_a_load<S: Storage>() {
    let source: World<S> = build(&sample_steps());
    let bytes = binary(&source);
    let check = |world: &World<S>, when: &str| {
        let layout = world.layout();
        assert_eq!(layout.bytes(), world.memory_usage(), "{when}: bytes");
        assert_eq!(layout.entities.live, world.len(), "{when}: live entities");
        assert!(layout.to_string().ends_with("(= memory_usage)"), "{when}");
    };
    let mut fresh = World::<S>::new();
    load_binary(&mut fresh, &bytes).unwrap();
    check(&fresh, "loaded into an empty world");
    let mut merged: World<S> = build(&target_steps());
    load_binary(&mut merged, &bytes).unwrap();
    load_json(&mut merged, &json(&source)).unwrap();
    check(&merged, "merged twice");
}
