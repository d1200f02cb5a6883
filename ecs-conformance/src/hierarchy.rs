//! Relationships (parent/children) on every backend: the API, the despawn policy, queries
//! over the relationship components, and random operations checked against a model,
//! including drops when a `Drop` panics midway through a recursive despawn.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::commands::{CommandQueue, Commands};
use ecs_core::hierarchy::{ChildOf, Children};
use ecs_core::{Added, Changed, EcsError, Entity, Storage, With, Without, World};

use crate::components::{size, Bomb, Ledger, Tag, Tracked, A, B, D};
use crate::kit::links::Links;
use crate::kit::Rng;

/// Every live entity, through a query that matches all of them.
fn live<S: Storage>(world: &mut World<S>) -> Vec<Entity> {
    let mut all: Vec<Entity> = world.query::<Entity>().collect();
    all.sort();
    all
}

/// The world's relationships are exact: parents list their children, children name their
/// parent, counts agree, no entity is its own ancestor, and the components are present
/// exactly where links exist. Returns each live entity's (parent, children).
fn check_links<S: Storage>(world: &mut World<S>) -> HashMap<Entity, (Option<Entity>, Vec<Entity>)> {
    let all = live(world);
    let mut seen = HashMap::new();
    for &e in &all {
        let parent = world.parent(e).unwrap();
        let children: Vec<Entity> = world.children(e).unwrap().collect();
        assert_eq!(world.children(e).unwrap().len(), children.len());
        assert_eq!(world.has::<ChildOf>(e), parent.is_some(), "{e:?}");
        assert_eq!(world.has::<Children>(e), !children.is_empty(), "{e:?}");
        if let Some(p) = parent {
            assert!(world.contains(p), "{e:?} names a dead parent {p:?}");
            assert!(
                world.children(p).unwrap().any(|c| c == e),
                "{p:?} does not list {e:?}"
            );
        }
        for &c in &children {
            assert_eq!(
                world.parent(c).unwrap(),
                Some(e),
                "{c:?} listed under {e:?}"
            );
        }
        let ancestors: Vec<Entity> = world.ancestors(e).unwrap().take(all.len() + 1).collect();
        assert!(ancestors.len() < all.len().max(1), "a cycle through {e:?}");
        assert!(!ancestors.contains(&e), "{e:?} is its own ancestor");
        seen.insert(e, (parent, children));
    }
    seen
}

/// `spawn_child`, `set_parent` and `remove_parent` keep children in order and links exact,
/// refuse cycles and stale handles, and the link components cannot be removed behind the
/// hierarchy's back, so the world never holds a broken tree.
pub fn api_links_moves_and_refuses<S: Storage>() {
    let mut world = World::<S>::new();
    let root = world.spawn(A(0));
    let a = world.spawn_child(root, A(1)).unwrap();
    let b = world.spawn_child(root, A(2)).unwrap();
    let a1 = world.spawn_child(a, A(3)).unwrap();
    let c = world.spawn(A(4));
    world.set_parent(c, root).unwrap();
    assert_eq!(world.children(root).unwrap().collect::<Vec<_>>(), [a, b, c]);
    assert_eq!(
        world.descendants(root).unwrap().collect::<Vec<_>>(),
        [a, a1, b, c]
    );
    assert_eq!(world.ancestors(a1).unwrap().collect::<Vec<_>>(), [a, root]);
    // Reparenting moves, siblings close the gap; the same parent is a no-op.
    world.set_parent(b, a1).unwrap();
    world.set_parent(c, root).unwrap();
    assert_eq!(world.children(root).unwrap().collect::<Vec<_>>(), [a, c]);
    assert_eq!(
        world.descendants(root).unwrap().collect::<Vec<_>>(),
        [a, a1, b, c]
    );
    // Moving a middle child.
    let d = world.spawn_child(root, ()).unwrap();
    world.set_parent(c, a).unwrap();
    assert_eq!(world.children(root).unwrap().collect::<Vec<_>>(), [a, d]);
    assert_eq!(world.children(a).unwrap().collect::<Vec<_>>(), [a1, c]);
    check_links(&mut world);

    // Cycles: itself, a child, a deep descendant. The world is unchanged.
    let before = check_links(&mut world);
    for (child, parent) in [(a, a), (root, a), (root, b), (a, b)] {
        assert_eq!(
            world.set_parent(child, parent),
            Err(EcsError::HierarchyCycle { child, parent })
        );
    }
    // Stale handles, either side.
    let dead = world.spawn(());
    world.despawn(dead).unwrap();
    assert_eq!(
        world.set_parent(dead, root),
        Err(EcsError::NoSuchEntity(dead))
    );
    assert_eq!(world.set_parent(a, dead), Err(EcsError::NoSuchEntity(dead)));
    assert_eq!(
        world.spawn_child(dead, A(9)),
        Err(EcsError::NoSuchEntity(dead))
    );
    assert_eq!(world.remove_parent(dead), Err(EcsError::NoSuchEntity(dead)));
    assert_eq!(
        world.despawn_recursive(dead),
        Err(EcsError::NoSuchEntity(dead))
    );
    assert!(world.parent(dead).is_err() && world.children(dead).is_err());
    assert!(world.ancestors(dead).is_err() && world.descendants(dead).is_err());
    // The components cannot be removed behind the hierarchy's back.
    let refused = |r: &Result<_, EcsError>| matches!(r, Err(EcsError::HierarchyComponent { .. }));
    assert!(refused(&world.remove::<ChildOf>(a1).map(drop)));
    assert!(refused(&world.remove::<(A, Children)>(a).map(drop)));
    assert!(refused(&world.take::<ChildOf>(a1).map(drop)));
    let id = world.component_id::<Children>().unwrap();
    assert!(refused(&world.remove_by_id(root, id)));
    let mut queue = CommandQueue::new();
    Commands::new(&mut queue, &world).remove::<(A, ChildOf)>(a1);
    world.apply(&mut queue);
    assert_eq!(world.get::<A>(a1), Some(&A(3)), "the command did nothing");
    assert_eq!(check_links(&mut world), before);

    // remove_parent makes a root that keeps its own children.
    assert_eq!(world.remove_parent(a), Ok(Some(root)));
    assert_eq!(world.remove_parent(a), Ok(None));
    assert_eq!(world.children(root).unwrap().collect::<Vec<_>>(), [d]);
    assert_eq!(world.children(a).unwrap().collect::<Vec<_>>(), [a1, c]);
    check_links(&mut world);
}

/// Despawning or taking a linked entity unlinks it, its siblings close the gap and its children
/// become roots, while `despawn_recursive`, direct or queued, removes exactly the subtree.
pub fn despawn_keeps_links_exact<S: Storage>() {
    let mut world = World::<S>::new();
    let root = world.spawn(A(0));
    let kids: Vec<Entity> = (1..=3)
        .map(|i| world.spawn_child(root, A(i)).unwrap())
        .collect();
    let grandkid = world.spawn_child(kids[1], A(9)).unwrap();
    // A middle child goes: its siblings close the gap, its child becomes a root.
    world.despawn(kids[1]).unwrap();
    assert_eq!(
        world.children(root).unwrap().collect::<Vec<_>>(),
        [kids[0], kids[2]]
    );
    assert_eq!(world.parent(grandkid), Ok(None));
    assert!(!world.has::<ChildOf>(grandkid));
    check_links(&mut world);
    // The parent goes: its children become roots.
    world.despawn(root).unwrap();
    assert_eq!(world.parent(kids[0]), Ok(None));
    assert_eq!(world.parent(kids[2]), Ok(None));
    check_links(&mut world);
    // take behaves as despawn.
    let p = world.spawn(A(5));
    let q = world.spawn_child(p, A(6)).unwrap();
    assert_eq!(world.take::<A>(p), Ok(A(5)));
    assert_eq!(world.parent(q), Ok(None));
    check_links(&mut world);
    // Recursive despawn takes exactly the subtree, by command too.
    let top = world.spawn(());
    let mid = world.spawn_child(top, ()).unwrap();
    let low = world.spawn_child(mid, ()).unwrap();
    let side = world.spawn_child(top, ()).unwrap();
    let mut queue = CommandQueue::new();
    let mut commands = Commands::new(&mut queue, &world);
    let fresh = commands.spawn(A(7));
    commands.set_parent(fresh, low);
    commands.despawn_recursive(mid);
    commands.remove_parent(side);
    world.apply(&mut queue);
    assert!(!world.contains(mid) && !world.contains(low) && !world.contains(fresh));
    assert!(world.contains(top) && world.contains(side));
    assert_eq!(world.parent(side), Ok(None));
    check_links(&mut world);
}

/// Queries can fetch and filter on `ChildOf` and `Children`, and change filters report a new
/// link as added and a reparenting as changed, but not a same-parent no-op or sibling upkeep.
pub fn queries_see_relationships<S: Storage>() {
    let mut world = World::<S>::new();
    let mut added = world.query_state::<Entity, Added<ChildOf>>().unwrap();
    let mut moved = world.query_state::<Entity, Changed<ChildOf>>().unwrap();
    let p1 = world.spawn(A(100));
    let p2 = world.spawn(A(200));
    let kids: Vec<Entity> = (1..=3)
        .map(|i| world.spawn_child(p1, A(i)).unwrap())
        .collect();
    assert_eq!(added.iter(&world).count(), 3);
    assert_eq!(moved.iter(&world).count(), 3);
    // Children with their parent's data.
    let mut sums: Vec<u32> = Vec::new();
    let pairs: Vec<(u32, Entity)> = world
        .query::<(&A, &ChildOf)>()
        .map(|(a, link)| (a.0, link.parent()))
        .collect();
    for (a, parent) in pairs {
        sums.push(a + world.get::<A>(parent).unwrap().0);
    }
    sums.sort();
    assert_eq!(sums, [101, 102, 103]);
    assert_eq!(world.query_filtered::<&A, With<ChildOf>>().count(), 3);
    assert_eq!(world.query_filtered::<&A, Without<ChildOf>>().count(), 2);
    assert_eq!(world.query_filtered::<&A, With<Children>>().count(), 1);
    // Reparenting is a change; the siblings' link upkeep is not.
    world.set_parent(kids[1], p2).unwrap();
    assert_eq!(moved.iter(&world).collect::<Vec<_>>(), [kids[1]]);
    assert_eq!(added.iter(&world).count(), 0);
    // Setting the same parent again changes nothing.
    world.set_parent(kids[1], p2).unwrap();
    assert_eq!(moved.iter(&world).count(), 0);
    // A root that gets a parent is added.
    world.set_parent(p2, p1).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [p2]);
}

/// Trees deeper than the levels of next siblings `descendants` remembers, with a sibling
/// still to visit at every level: the walk forgets the oldest levels and must climb back up
/// to them, and a walk from a node in the middle must stop at its own subtree's end.
pub fn deep_descendants_match_model<S: Storage>() {
    let mut world = World::<S>::new();
    let mut model = Links::default();
    let root = world.spawn(A(0));
    let mut spine = vec![root];
    for depth in 1..=size(100, 40) as u32 {
        let at = *spine.last().unwrap();
        let down = world.spawn_child(at, A(depth)).unwrap();
        model.set_parent(down, at);
        let beside = world.spawn_child(at, A(1_000 + depth)).unwrap();
        model.set_parent(beside, at);
        if depth % 3 == 0 {
            let below = world.spawn_child(beside, A(2_000 + depth)).unwrap();
            model.set_parent(below, beside);
        }
        spine.push(down);
    }
    assert!(world.descendants(root).unwrap().count() > 2 * (spine.len() - 1));
    model.compare(&world, spine.iter().copied());
}

/// Trees whose entities sit in many tables (five component sets, rows moved by reparenting
/// and despawns), walked after every few changes: a walk reads an entity through the link
/// arrays of the table it read last when the entity is in that table too, so walks that
/// switch tables at every step, stay in one, or come back to one must all agree with the
/// model.
pub fn descendants_across_tables_match_model<S: Storage>() {
    let mut rng = Rng::new(0x007A_B1E5);
    let mut world = World::<S>::new();
    let mut model = Links::default();
    let mut all: Vec<Entity> = (0..4).map(|i| world.spawn(A(i))).collect();
    let steps = size(600, 60) as u32;
    for step in 0..steps {
        let parent = all[rng.index(all.len())];
        let child = match step % 5 {
            0 => world.spawn_child(parent, A(step)),
            1 => world.spawn_child(parent, (A(step), B(step.to_string()))),
            2 => world.spawn_child(parent, (D([step as u8; 3]),)),
            3 => world.spawn_child(parent, (Tag,)),
            _ => world.spawn_child(parent, ()),
        }
        .unwrap();
        model.set_parent(child, parent);
        all.push(child);
        if step % 7 == 3 {
            let (e, p) = (all[rng.index(all.len())], all[rng.index(all.len())]);
            if !model.is_self_or_ancestor(e, p) {
                world.set_parent(e, p).unwrap();
                model.set_parent(e, p);
            }
        }
        if step % 11 == 5 && all.len() > 8 {
            let e = all.swap_remove(4 + rng.index(all.len() - 4));
            world.despawn(e).unwrap();
            model.despawn(e);
        }
        if step % size(40, 30) as u32 == 0 || step + 1 == steps {
            model.compare(&world, all.iter().copied());
        }
    }
}

/// Random spawns, reparentings, unlinks, despawns and recursive despawns, on live and stale
/// handles, leave the world's links, errors and values exactly as a model predicts, and every
/// value dropped once.
pub fn random_relationship_ops_match_model<S: Storage>() {
    let ledger = Ledger::new();
    let mut rng = Rng::new(0x41E_2A2C);
    {
        let mut world = World::<S>::new();
        let mut model = Links::default();
        // The live entities, each with the value its `A` holds.
        let mut values: HashMap<Entity, u64> = HashMap::new();
        let mut handles: Vec<Entity> = Vec::new(); // live and dead, to hit stale handles
        let steps = size(4_000, 180);
        for step in 0..steps {
            let pick = |rng: &mut Rng, handles: &[Entity]| handles[rng.index(handles.len())];
            match if handles.is_empty() { 0 } else { rng.index(10) } {
                0 | 1 => {
                    let e = world.spawn((ledger.make(), A(step as u32)));
                    values.insert(e, step as u64);
                    handles.push(e);
                }
                2 | 3 => {
                    let p = pick(&mut rng, &handles);
                    match world.spawn_child(p, (ledger.make(), A(step as u32))) {
                        Ok(e) => {
                            values.insert(e, step as u64);
                            model.set_parent(e, p);
                            handles.push(e);
                        }
                        Err(err) => {
                            assert!(!values.contains_key(&p));
                            assert_eq!(err, EcsError::NoSuchEntity(p));
                        }
                    }
                }
                4 | 5 => {
                    let (e, p) = (pick(&mut rng, &handles), pick(&mut rng, &handles));
                    let result = world.set_parent(e, p);
                    if !values.contains_key(&e) || !values.contains_key(&p) {
                        assert!(matches!(result, Err(EcsError::NoSuchEntity(_))));
                    } else if model.is_self_or_ancestor(e, p) {
                        assert_eq!(
                            result,
                            Err(EcsError::HierarchyCycle {
                                child: e,
                                parent: p
                            })
                        );
                    } else {
                        assert_eq!(result, Ok(()));
                        model.set_parent(e, p);
                    }
                }
                6 => {
                    let e = pick(&mut rng, &handles);
                    let result = world.remove_parent(e);
                    if values.contains_key(&e) {
                        assert_eq!(result, Ok(model.parent(e)));
                        model.unlink(e);
                    } else {
                        assert!(result.is_err());
                    }
                }
                7 => {
                    let e = pick(&mut rng, &handles);
                    let result = world.despawn(e);
                    assert_eq!(result.is_ok(), values.contains_key(&e));
                    model.despawn(e);
                    values.remove(&e);
                }
                _ => {
                    let e = pick(&mut rng, &handles);
                    let result = world.despawn_recursive(e);
                    assert_eq!(result.is_ok(), values.contains_key(&e));
                    if result.is_ok() {
                        for gone in model.despawn_recursive(e) {
                            values.remove(&gone);
                        }
                    }
                }
            }
            if step % size(50, 10) == 0 || step + 1 == steps {
                let links = check_links(&mut world);
                assert_eq!(links.len(), values.len());
                model.compare(&world, values.keys().copied());
                for (e, value) in &values {
                    assert_eq!(world.get::<A>(*e), Some(&A(*value as u32)));
                }
            }
        }
        assert_eq!(ledger.dropped(), ledger.made() as usize - values.len());
    }
    ledger.assert_all_dropped();
}

/// A `Drop` that panics midway through `despawn_recursive` leaves the entities already
/// despawned gone and dropped, and the rest of the tree consistent and still despawnable.
pub fn panicking_drop_in_recursive_despawn<S: Storage>() {
    let ledger = Ledger::new();
    let mut world = World::<S>::new();
    let parent = world.spawn(ledger.make());
    let root = world.spawn_child(parent, ledger.make()).unwrap();
    // root: [x (x1, x2), bomb (b1), y]
    let x = world.spawn_child(root, ledger.make()).unwrap();
    let x1 = world.spawn_child(x, ledger.make()).unwrap();
    let x2 = world.spawn_child(x, ledger.make()).unwrap();
    let bomb = world
        .spawn_child(root, (ledger.make(), Bomb { armed: true }))
        .unwrap();
    let b1 = world.spawn_child(bomb, ledger.make()).unwrap();
    let y = world.spawn_child(root, ledger.make()).unwrap();
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn_recursive(root)));
    assert!(result.is_err(), "the bomb's drop panics");
    // Children first: x's subtree, then b1, then the bomb (which panicked) are gone.
    for gone in [x, x1, x2, b1, bomb] {
        assert!(!world.contains(gone), "{gone:?}");
    }
    assert_eq!(ledger.dropped(), 5);
    // What is left is consistent: root is a root with y as its only child.
    assert!(world.contains(root) && world.contains(y));
    assert_eq!(world.parent(root), Ok(None));
    assert_eq!(world.children(root).unwrap().collect::<Vec<_>>(), [y]);
    assert_eq!(world.children(parent).unwrap().count(), 0);
    check_links(&mut world);
    assert_eq!(world.query::<&Tracked>().count(), 3);
    world.despawn_recursive(root).unwrap();
    assert_eq!(ledger.dropped(), 7);
    drop(world);
    ledger.assert_all_dropped();
}

/// A panicking `Drop` on a parent's last child during `despawn_recursive` leaves that parent
/// without a `Children` component, so the links stay exact after the unwind.
pub fn panicking_drop_on_last_child_of_a_parent<S: Storage>() {
    // The panicking entity is the last child of its parent: the parent's emptied
    // `Children` must not outlive the walk.
    let ledger = Ledger::new();
    let mut world = World::<S>::new();
    let root = world.spawn(ledger.make());
    let mid = world.spawn_child(root, ledger.make()).unwrap();
    let bomb = world
        .spawn_child(mid, (ledger.make(), Bomb { armed: true }))
        .unwrap();
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn_recursive(root)));
    assert!(result.is_err());
    assert!(!world.contains(bomb));
    assert_eq!(world.children(mid).unwrap().count(), 0);
    assert!(!world.has::<Children>(mid));
    check_links(&mut world);
    drop(world);
    ledger.assert_all_dropped();
}

/// The link components cannot be written except through the hierarchy API: the typed paths
/// do not compile (ecs-compile-fail's `mut_of_hierarchy_links`); the run-time ones refuse,
/// world unchanged: a run-time query writing either, `insert_by_id` and `remove_by_id` of
/// either.
pub fn links_refuse_run_time_writes<S: Storage>() {
    use ecs_core::query::DynQuery;
    let mut world = World::<S>::new();
    let parent = world.spawn(());
    let child = world.spawn_child(parent, ()).unwrap();
    let child_of = world.component_id::<ChildOf>().unwrap();
    let children = world.component_id::<Children>().unwrap();
    let before = check_links(&mut world);
    for id in [child_of, children] {
        let err = world.dyn_query(&DynQuery::new().write(id)).err();
        assert!(matches!(err, Some(EcsError::Immutable(_))), "{err:?}");
        let err = world.dyn_query(&DynQuery::new().write_optional(id)).err();
        assert!(matches!(err, Some(EcsError::Immutable(_))), "{err:?}");
        assert!(world.dyn_query(&DynQuery::new().read(id)).is_ok());
        for e in [parent, child] {
            assert!(matches!(
                world.remove_by_id(e, id),
                Err(EcsError::HierarchyComponent { .. }) | Err(EcsError::MissingComponent { .. })
            ));
        }
    }
    // A copy of the child's own link, inserted by id onto the parent: refused unread.
    let link: ChildOf = {
        let ptr = world.get_by_id(child, child_of).unwrap();
        // SAFETY: component `child_of` is `ChildOf`, plain data (handles), read while the
        // world is not mutated; the copy is never dropped (`forget` below).
        unsafe { ptr.cast::<ChildOf>().read() }
    };
    let link = std::mem::ManuallyDrop::new(link);
    // SAFETY: a valid `ChildOf` value, which the world refuses before reading it.
    let err =
        unsafe { world.insert_by_id(parent, child_of, std::ptr::NonNull::from(&*link).cast()) };
    assert!(
        matches!(err, Err(EcsError::HierarchyComponent { .. })),
        "{err:?}"
    );
    assert_eq!(check_links(&mut world), before, "nothing changed");
    world.despawn_recursive(parent).unwrap();
    assert!(world.is_empty());
}
