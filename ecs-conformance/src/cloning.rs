//! Entity cloning: the opted-in components copied (named instances under their names), the
//! rest left out, the copy a sibling of the original, subtrees copied with their order.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::prelude::*;
use ecs_core::Storage;

/// Cloneable, owning heap memory (each copy its own).
#[derive(Component, Clone, Debug, PartialEq)]
#[component(clone)]
pub struct Label(pub String);

/// Cloneable and tracked, in sparse sets on the hybrid backend.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(clone, track_changes, storage = "sparse")]
pub struct Level(pub u32);

/// Not cloneable: left out of copies.
#[derive(Component, Debug, PartialEq)]
pub struct Unique(pub u32);

/// A clone that panics on a marked value.
#[derive(Component, Debug, PartialEq)]
#[component(clone)]
pub struct Brittle(pub bool);

impl Clone for Brittle {
    fn clone(&self) -> Self {
        assert!(!self.0, "this one breaks");
        Brittle(self.0)
    }
}

/// `clone_entity` copies what opted in, named instances included, and nothing else; the
/// copy is independent, a sibling of the original, and its tracked values are added.
pub fn clone_entity_copies_what_opted_in<S: Storage>() {
    let mut world = World::<S>::new();
    let parent = world.spawn(());
    let e = world
        .spawn_child(parent, (Label("hero".into()), Level(3), Unique(9)))
        .unwrap();
    world
        .insert_named(e, "left", Label("sword".into()))
        .unwrap();
    world.spawn_child(e, (Label("pet".into()),)).unwrap();
    let mut added = world.query_state::<Entity, Added<Level>>().unwrap();
    added.iter(&world).count();
    let copy = world.clone_entity(e).unwrap();
    assert_ne!(copy, e);
    assert_eq!(world.get::<Label>(copy), Some(&Label("hero".into())));
    assert_eq!(world.get::<Level>(copy), Some(&Level(3)));
    assert!(!world.has::<Unique>(copy), "not cloneable");
    assert_eq!(
        world.get_named::<Label>(copy, "left"),
        Some(&Label("sword".into()))
    );
    assert_eq!(world.parent(copy).unwrap(), Some(parent), "a sibling");
    assert_eq!(world.children(copy).unwrap().count(), 0, "no children");
    world.get_mut::<Label>(copy).unwrap().0.push('!');
    assert_eq!(
        world.get::<Label>(e),
        Some(&Label("hero".into())),
        "independent"
    );
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [copy]);
    assert_eq!(
        world.clone_entity(Entity::PLACEHOLDER),
        Err(EcsError::NoSuchEntity(Entity::PLACEHOLDER))
    );
}

/// `clone_subtree` copies the descendants, linked as the originals, children in order.
pub fn clone_subtree_copies_descendants_in_order<S: Storage>() {
    let mut world = World::<S>::new();
    let root = world.spawn((Label("root".into()),));
    let a = world.spawn_child(root, (Label("a".into()),)).unwrap();
    world.spawn_child(root, (Label("b".into()),)).unwrap();
    world
        .spawn_child(a, (Label("a1".into()), Unique(1)))
        .unwrap();
    let copy = world.clone_subtree(root).unwrap();
    assert_eq!(world.parent(copy).unwrap(), None);
    let labels = |world: &World<S>, e: Entity| -> Vec<String> {
        world
            .children(e)
            .unwrap()
            .map(|c| world.get::<Label>(c).unwrap().0.clone())
            .collect()
    };
    assert_eq!(labels(&world, copy), ["a", "b"]);
    let copy_a = world.children(copy).unwrap().next().unwrap();
    assert_ne!(copy_a, a);
    assert_eq!(labels(&world, copy_a), ["a1"]);
    assert_eq!(world.len(), 8);
    world.despawn_recursive(root).unwrap();
    assert_eq!(world.len(), 4, "the copy stands alone");
}

/// A `clone` that panics spawns nothing and drops the copies made before it.
pub fn a_panicking_clone_spawns_nothing<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((Label("keep".into()), Brittle(true), Level(1)));
    let before = world.len();
    let result = catch_unwind(AssertUnwindSafe(|| world.clone_entity(e)));
    assert!(result.is_err());
    assert_eq!(world.len(), before);
    assert_eq!(world.get::<Label>(e), Some(&Label("keep".into())));
    world.insert(e, Brittle(false)).unwrap();
    let copy = world.clone_entity(e).unwrap();
    assert_eq!(world.get::<Brittle>(copy), Some(&Brittle(false)));
}
