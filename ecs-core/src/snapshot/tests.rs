//! Snapshot round trips and refusals on the reference backend, small enough for Miri: every
//! staged value is moved into the world once or dropped once (Miri reports a leak or a
//! double drop), through both formats and every kind of column.

use std::alloc::Layout;

use serde::{Deserialize, Serialize};

use super::{DynamicCodec, Entries, SnapshotErrorKind, SnapshotRegistry};
use crate::testing::VecStorage;
use crate::{Component, ComponentDescriptor, Entity, MapEntities, StorageKind, World};

#[derive(Component, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Name(String);

#[derive(Component, Serialize, Deserialize, MapEntities, Debug, Clone, PartialEq)]
#[component(storage = "sparse")]
struct Follows(Vec<Entity>);

#[derive(Component, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Tag;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Clock(String);

fn plain() -> ComponentDescriptor {
    ComponentDescriptor {
        name: "Plain".into(),
        layout: Layout::new::<[u8; 3]>(),
        drop: None,
        storage: StorageKind::Table,
    }
}

fn registry() -> SnapshotRegistry<impl Entries> {
    SnapshotRegistry::new()
        .component::<Name>("Name")
        .component_with_entities::<Follows>("Follows")
        .component::<Tag>("Tag")
        .dynamic("Plain", plain(), DynamicCodec::plain_bytes())
        .resource::<Clock>("Clock")
}

fn sample() -> (World<VecStorage>, [Entity; 3]) {
    let mut world = World::<VecStorage>::new();
    let plain = world.register_dynamic(plain());
    let a = world.spawn(Name("a".into()));
    let gone = world.spawn(Tag);
    let b = world.spawn((Name("b".into()), Tag));
    let c = world.spawn(Follows(vec![a, b]));
    world.despawn(gone).unwrap();
    world
        .insert_named(a, "Shadow", Name("shade".into()))
        .unwrap();
    world.insert_bytes(b, plain, &[1, 2, 3]).unwrap();
    world.set_parent(b, a).unwrap();
    world.insert_resource(Clock("noon".into()));
    (world, [a, b, c])
}

#[test]
fn round_trips_in_both_formats_move_every_value_once() {
    let (world, [a, b, c]) = sample();
    let registry = registry();
    let json = serde_json::to_string(&registry.save(&world)).unwrap();
    let bytes = postcard::to_allocvec(&registry.save(&world)).unwrap();
    for format in 0..2 {
        let mut copy = World::<VecStorage>::new();
        copy.spawn(Name("already here".into()));
        let map = match format {
            0 => registry.load(&mut copy, &mut serde_json::Deserializer::from_str(&json)),
            _ => registry.load(&mut copy, &mut postcard::Deserializer::from_bytes(&bytes)),
        }
        .unwrap();
        let (a2, b2, c2) = (
            map.get(a).unwrap(),
            map.get(b).unwrap(),
            map.get(c).unwrap(),
        );
        assert_eq!(copy.get::<Name>(a2), Some(&Name("a".into())));
        assert_eq!(
            copy.get_named::<Name>(a2, "Shadow"),
            Some(&Name("shade".into()))
        );
        assert_eq!(copy.get::<Follows>(c2), Some(&Follows(vec![a2, b2])));
        assert!(copy.has::<Tag>(b2));
        assert_eq!(copy.parent(b2), Ok(Some(a2)));
        let plain = copy
            .components()
            .iter()
            .find(|i| i.name() == "Plain")
            .unwrap()
            .id();
        assert_eq!(copy.get_bytes(b2, plain), Some(&[1u8, 2, 3][..]));
        assert_eq!(copy.resource::<Clock>(), Some(&Clock("noon".into())));
        assert_eq!(copy.len(), 4);
    }
}

#[test]
fn refused_snapshots_drop_their_staged_values() {
    let (world, _) = sample();
    let registry = registry();
    let good = serde_json::to_string(&registry.save(&world)).unwrap();
    let mut target = World::<VecStorage>::new();
    let keep = target.spawn(Name("keep".into()));
    // The Name column reads fine (Strings staged), then a handle dangles.
    let dangling = good.replacen("[[\"0v1\",\"2v1\"]]", "[[\"0v1\",\"9v9\"]]", 1);
    assert_ne!(dangling, good, "{good}");
    let err = registry
        .load(
            &mut target,
            &mut serde_json::Deserializer::from_str(&dangling),
        )
        .unwrap_err();
    assert!(
        matches!(err.kind(), SnapshotErrorKind::DanglingEntity(_)),
        "{err}"
    );
    // Truncated in the middle of the resources: every column was staged, then dropped.
    let bytes = postcard::to_allocvec(&registry.save(&world)).unwrap();
    let err = registry
        .load(
            &mut target,
            &mut postcard::Deserializer::from_bytes(&bytes[..bytes.len() - 2]),
        )
        .unwrap_err();
    assert!(matches!(err.kind(), SnapshotErrorKind::Format(_)), "{err}");
    assert_eq!(target.len(), 1);
    assert_eq!(target.get::<Name>(keep), Some(&Name("keep".into())));
}
