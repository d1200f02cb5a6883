//! Query behaviour shared by every backend.

use ecs_core::{Component, EcsError, Entity, Or, Storage, StorageKind, With, Without, World};

use crate::components::{size, Tag, A, B, D};

/// A query that would hand out a mutable reference beside another reference to the same
/// component is refused with an error naming it (or a panic, from `query`), while repeated
/// reads and filters on the written component are allowed: aliasing `&mut` would be unsound.
pub fn aliasing_queries_rejected<S: Storage>() {
    let mut world = World::<S>::new();
    world.spawn((A(1),));
    for err in [
        world.try_query_filtered::<(&mut A, &A), ()>().err(),
        world.try_query_filtered::<(&A, &mut A), ()>().err(),
        world.try_query_filtered::<(&mut A, &mut A), ()>().err(),
        world.try_query_filtered::<(&mut A, Option<&A>), ()>().err(),
        world
            .try_query_filtered::<(Entity, (&mut A, &B), &A), ()>()
            .err(),
        world.try_query::<(&mut A, &A)>().err(),
    ] {
        let err = err.expect("aliasing query accepted");
        assert!(
            matches!(&err, EcsError::QueryConflict { component } if component.ends_with("::A")),
            "{err}"
        );
    }
    assert!(world.query_state::<(&mut A, &A), ()>().is_err());
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.query::<(&mut A, &mut A)>().count();
    }));
    assert!(panicked.is_err());
    // Reads twice are fine; so is a filter on the written component.
    assert_eq!(world.query::<(&A, &A)>().count(), 1);
    assert_eq!(world.try_query::<(&A, &A)>().map(Iterator::count), Ok(1));
    assert_eq!(world.query_filtered::<&mut A, With<A>>().count(), 1);
}

/// `With`, `Without`, their combinations and `Option` fetches match exactly the entities that
/// hold or lack each component, `Option<&mut T>` writes only where the value is present, and a
/// query over `Entity` yields every entity.
pub fn filters_and_options<S: Storage>() {
    let n = size(300, 30) as u32;
    let (mut world, _) = mixed_world::<S>(n);
    let count = |f: &dyn Fn(u32) -> bool| (0..n).filter(|i| f(*i)).count();
    assert_eq!(
        world.query_filtered::<&A, With<B>>().count(),
        count(&|i| i % 2 == 0)
    );
    assert_eq!(
        world.query_filtered::<&A, Without<B>>().count(),
        count(&|i| i % 2 != 0)
    );
    assert_eq!(
        world.query_filtered::<&A, (With<B>, With<Tag>)>().count(),
        count(&|i| i % 6 == 0)
    );
    assert_eq!(
        world
            .query_filtered::<&A, (With<B>, Without<Tag>)>()
            .count(),
        count(&|i| i % 2 == 0 && i % 3 != 0)
    );
    assert_eq!(
        world.query_filtered::<&A, (With<A>, Without<A>)>().count(),
        0
    );
    assert_eq!(
        world
            .query::<(&A, Option<&B>)>()
            .filter(|(_, b)| b.is_some())
            .count(),
        count(&|i| i % 2 == 0)
    );
    for (a, b) in world.query::<(&A, Option<&B>)>() {
        assert_eq!(
            b.map(|b| b.0.clone()),
            (a.0 % 2 == 0).then(|| a.0.to_string())
        );
    }
    // Option<&mut T> writes only where present.
    world.query::<(&A, Option<&mut B>)>().for_each(|(a, b)| {
        if let Some(b) = b {
            b.0 = format!("#{}", a.0);
        }
    });
    assert!(world
        .query::<(&A, &B)>()
        .all(|(a, b)| b.0 == format!("#{}", a.0)));
    // A query over components nobody has yields nothing; one over Entity yields everyone.
    assert_eq!(world.query::<&D>().count(), 0);
    assert_eq!(world.query::<Entity>().count(), n as usize);
    assert_eq!(world.query_filtered::<Entity, Without<A>>().count(), 0);
}

/// A kept query state also finds entities in tables created after it, and panics when used with
/// a world other than its own.
pub fn query_state_sees_new_layout<S: Storage>() {
    let mut world = World::<S>::new();
    let mut state = world.query_state::<&A, Without<Tag>>().unwrap();
    assert_eq!(state.iter(&world).count(), 0);
    world.spawn((A(1),));
    assert_eq!(state.iter(&world).count(), 1);
    world.spawn((A(2), B("b".into())));
    world.spawn((A(3), Tag));
    world.spawn((D([0; 3]), A(4)));
    let mut seen: Vec<u32> = state.iter(&world).map(|a| a.0).collect();
    seen.sort();
    assert_eq!(seen, vec![1, 2, 4]);
    let mut other = World::<S>::new();
    let wrong_world =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| state.iter(&other).count()));
    assert!(
        wrong_world.is_err(),
        "a state must not be used with another world"
    );
    other.spawn(());
}

macro_rules! numbered {
    ($($name:ident),*) => {
        $(#[derive(Debug, PartialEq, Clone, Copy)] struct $name(u8); impl Component for $name { type Mutability = ecs_core::Mutable; })*
    };
}
numbered!(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9);

/// Bundles of ten components spawn, query and remove correctly in any field order, and a bundle
/// naming a type twice is refused without spawning anything.
pub fn large_bundles<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((
        C0(0),
        C1(1),
        C2(2),
        C3(3),
        C4(4),
        C5(5),
        C6(6),
        C7(7),
        C8(8),
        C9(9),
    ));
    assert_eq!(world.get::<C9>(e), Some(&C9(9)));
    assert_eq!(world.get::<C4>(e), Some(&C4(4)));
    let f = world.spawn((
        C9(19),
        C8(18),
        C7(17),
        C6(16),
        C5(15),
        C4(14),
        C3(13),
        C2(12),
        C1(11),
        C0(10),
    ));
    let mut sums = world
        .query::<(&C0, &C1, &C2, &C3, &C4, &C5, &C6, &C7, &C8, &C9)>()
        .map(|(a, b, c, d, e, f, g, h, i, j)| {
            [a.0, b.0, c.0, d.0, e.0, f.0, g.0, h.0, i.0, j.0]
                .iter()
                .map(|x| *x as u32)
                .sum::<u32>()
        })
        .collect::<Vec<_>>();
    sums.sort();
    assert_eq!(sums, vec![45, 145]);
    assert_eq!(world.remove::<C5>(f), Ok(C5(15)));
    assert_eq!(world.get::<C6>(f), Some(&C6(16)));
    let spawn_twice =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn((C0(0), C0(1)))));
    assert!(
        spawn_twice.is_err(),
        "a bundle naming a type twice is rejected"
    );
    assert_eq!(world.len(), 2, "the rejected spawn created nothing");
}

/// A large batch spawn stores every bundle, writes through a mutable query land on each entity,
/// and the iterator's `next` and `for_each` visit every entity once.
pub fn spawn_batch_and_mutation<S: Storage>() {
    let mut world = World::<S>::new();
    let n = size(10_000, 100);
    let es = world
        .spawn_batch((0..n as u32).map(|i| (A(i), D([1, 2, 3]))))
        .to_vec();
    assert_eq!(es.len(), n);
    world
        .query::<(&mut A, &D)>()
        .for_each(|(a, d)| a.0 += d.0[2] as u32);
    for (i, e) in es.iter().enumerate() {
        assert_eq!(world.get::<A>(*e), Some(&A(i as u32 + 3)));
    }
    // Iterator and for_each paths agree.
    let via_iter: u64 = world.query::<&A>().map(|a| a.0 as u64).sum();
    let mut via_each = 0u64;
    world.query::<&A>().for_each(|a| via_each += a.0 as u64);
    assert_eq!(via_iter, via_each);
    // Stepping the iterator (`next`, not `fold`) across chunk boundaries visits each once.
    let mut seen = std::collections::HashSet::new();
    for e in world.query::<Entity>() {
        assert!(seen.insert(e));
    }
    assert_eq!(seen.len(), n);
}

/// `QueryView::get` answers every entity (live, stale, matching or not) exactly as the
/// query's iteration and `QueryState::get` do, for several shapes of query and filter, and
/// after the layout changed between views.
pub fn views_agree_with_iteration<S: Storage>() {
    let (mut world, mut all) = mixed_world::<S>(size(200, 24) as u32);
    for (i, &e) in all.iter().enumerate().step_by(5) {
        world.insert(e, D([i as u8; 3])).unwrap();
    }
    for &e in all.iter().step_by(7) {
        world.despawn(e).unwrap();
    }
    all.push(world.spawn(()));
    all.push(world.spawn((Tag,)));
    check_view::<S, (Entity, &A, &B), ()>(&mut world, &all);
    check_view::<S, (&A, Option<&B>, Option<&D>), ()>(&mut world, &all);
    check_view::<S, Entity, (With<B>, Without<Tag>)>(&mut world, &all);
    check_view::<S, (Entity, &Tag), ()>(&mut world, &all);
    check_view::<S, Option<&D>, ()>(&mut world, &all);
    check_view::<S, &A, Or<(With<Tag>, With<D>)>>(&mut world, &all);
    // Requiring nothing, so on the table backends the view also meets entities without a
    // row (its look-up fallback), with a filter that rejects some of them.
    check_view::<S, Entity, Without<Tag>>(&mut world, &all);
    check_view::<S, Option<&D>, Or<(With<Tag>, With<D>)>>(&mut world, &all);
    // The layout changes (new tables) between two views of one state.
    let mut state = world.query_state::<(Entity, &A, &B), ()>().unwrap();
    let before = state.view(&world).get(all[2]).map(|(e, _, _)| e);
    assert_eq!(before, Some(all[2]));
    for &e in all.iter().skip(1).step_by(4) {
        if world.contains(e) {
            world.insert(e, D([9; 3])).unwrap();
            world.insert(e, B("moved".into())).unwrap();
        }
    }
    let view = state.view(&world);
    for &e in &all {
        assert_eq!(view.get(e), state_get(&world, e), "{e:?}");
    }
}

/// `for_each` (whose chunk loop takes a branch-free path where every slot of a chunk is
/// dense) yields exactly what stepping the iterator with `next` does (the per-row path), for
/// required, optional (present and absent), written, tracked and `Entity` parts, on a world
/// where some chunks hold every queried column densely and some do not. Its writes, through
/// `&mut T`, `Option<&mut T>` and `Mut<T>`, land on the right entities and are recorded.
pub fn for_each_agrees_with_next<S: Storage>() {
    let (mut world, all) = mixed_world::<S>(size(400, 40) as u32);
    for (i, &e) in all.iter().enumerate().step_by(5) {
        world.insert(e, D([i as u8; 3])).unwrap();
    }
    for (i, &e) in all.iter().enumerate().step_by(4) {
        world.insert(e, Hp(i as u32)).unwrap();
    }
    world.despawn(all[6]).unwrap();
    let _ = world.group::<(A, B)>();
    fn both<S: Storage, Q>(world: &mut World<S>, key: impl Fn(Q::Item<'_>) -> String)
    where
        Q: ecs_core::query::ReadOnlyQueryData + 'static,
    {
        let mut stepped = Vec::new();
        // A `for` loop steps with `next`.
        for item in world.query::<Q>() {
            stepped.push(key(item));
        }
        let mut folded = Vec::new();
        world.query::<Q>().for_each(|item| folded.push(key(item)));
        assert!(!folded.is_empty(), "{}", std::any::type_name::<Q>());
        assert_eq!(folded, stepped, "{}", std::any::type_name::<Q>());
    }
    both::<S, (Entity, &A)>(&mut world, |(e, a)| format!("{e:?} {}", a.0));
    both::<S, (&A, &B)>(&mut world, |(a, b)| format!("{} {}", a.0, b.0));
    both::<S, (Entity, &A, Option<&B>, Option<&D>)>(&mut world, |(e, a, b, d)| {
        format!("{e:?} {} {b:?} {d:?}", a.0)
    });
    both::<S, (&Tag, Option<&Hp>)>(&mut world, |(_, h)| format!("{h:?}"));
    both::<S, Entity>(&mut world, |e| format!("{e:?}"));

    // Writes through every written part, then read back entity by entity.
    let mut changed = world
        .query_state::<Entity, ecs_core::Changed<Hp>>()
        .unwrap();
    assert!(changed.iter(&world).count() > 0, "inserted this run");
    world
        .query::<(&mut A, Option<&mut D>, Option<ecs_core::Mut<Hp>>, &B)>()
        .for_each(|(a, d, hp, _)| {
            a.0 += 10_000;
            if let Some(d) = d {
                d.0[0] = d.0[0].wrapping_add(1);
            }
            if let Some(mut hp) = hp {
                hp.0 += 1_000;
            }
        });
    let mut changed = changed.iter(&world).collect::<Vec<_>>();
    changed.sort();
    let mut want_changed = Vec::new();
    for (i, &e) in all.iter().enumerate() {
        if !world.contains(e) {
            continue;
        }
        let with_b = i % 2 == 0;
        let a = i as u32 + if with_b { 10_000 } else { 0 };
        assert_eq!(world.get::<A>(e), Some(&A(a)), "entity {i}");
        if i % 5 == 0 {
            let d = (i as u8).wrapping_add(u8::from(with_b));
            assert_eq!(
                world.get::<D>(e),
                Some(&D([d, i as u8, i as u8])),
                "entity {i}"
            );
        }
        if i % 4 == 0 {
            let hp = i as u32 + if with_b { 1_000 } else { 0 };
            assert_eq!(world.get::<Hp>(e), Some(&Hp(hp)), "entity {i}");
            if with_b {
                want_changed.push(e);
            }
        }
    }
    want_changed.sort();
    assert_eq!(changed, want_changed);
}

/// A join reads the right values while a sparse component's set runs out of step with the
/// table rows (its values added in shuffled order), then in step (added in row order), then
/// out of step again: on the hybrid backend the look-ups drop their position hint after a
/// run of misses and try it again now and then, which must never change an answer.
pub fn joins_read_the_right_values_in_and_out_of_step<S: Storage>() {
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Cold(u32);
    impl Component for Cold {
        type Mutability = ecs_core::Mutable;
        const STORAGE: StorageKind = StorageKind::Sparse;
    }
    let n = size(1_200, 300);
    let mut world = World::<S>::new();
    let entities: Vec<Entity> = (0..n as u32).map(|i| world.spawn((A(i),))).collect();
    let mut rng = crate::kit::Rng::new(0x1A7E_u64);
    let third = n / 3;
    let mut order: Vec<usize> = (0..third).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.index(i + 1));
    }
    order.extend(third..2 * third);
    let mut tail: Vec<usize> = (2 * third..n).collect();
    for i in (1..tail.len()).rev() {
        tail.swap(i, rng.index(i + 1));
    }
    order.extend(tail);
    for &i in &order {
        world.insert(entities[i], Cold(i as u32 * 7)).unwrap();
    }
    let mut seen = 0;
    world.query::<(&A, &Cold)>().for_each(|(a, c)| {
        assert_eq!(c.0, a.0 * 7);
        seen += 1;
    });
    assert_eq!(seen, n);
    let mut stepped = 0;
    for (e, a, c) in world.query::<(Entity, &A, &Cold)>() {
        assert_eq!(c.0, a.0 * 7);
        assert_eq!(entities[a.0 as usize], e);
        stepped += 1;
    }
    assert_eq!(stepped, n);
    // Every other value gone: hints miss and hit by turns.
    for &e in entities.iter().step_by(2) {
        world.remove::<Cold>(e).unwrap();
    }
    let mut halves = 0;
    world.query::<(&mut A, Option<&Cold>)>().for_each(|(a, c)| {
        assert_eq!(c.map(|c| c.0), (a.0 % 2 == 1).then_some(a.0 * 7));
        halves += 1;
    });
    assert_eq!(halves, n);
}

/// `(&A, &B)` of `e` by plain `World::get`s, for the layout check above.
fn state_get<S: Storage>(world: &World<S>, e: Entity) -> Option<(Entity, &A, &B)> {
    Some((e, world.get::<A>(e)?, world.get::<B>(e)?))
}

fn check_view<S: Storage, Q, F>(world: &mut World<S>, entities: &[Entity])
where
    Q: ecs_core::query::ReadOnlyQueryData + 'static,
    F: ecs_core::query::QueryFilter + 'static,
    for<'w> Q::Item<'w>: PartialEq + std::fmt::Debug,
{
    let by_get = world.query_state::<Q, F>().unwrap();
    let mut viewed = world.query_state::<Q, F>().unwrap();
    let mut iterated = world.query_state::<(Entity, Q), F>().unwrap();
    let world = &*world;
    let expected: Vec<Entity> = iterated.iter(world).map(|(e, _)| e).collect();
    let matched: Vec<Entity> = entities
        .iter()
        .copied()
        .filter(|&e| by_get.get(world, e).is_some())
        .collect();
    assert_eq!(
        sorted(matched),
        sorted(expected.clone()),
        "get vs iteration"
    );
    let view = viewed.view(world);
    for &e in entities {
        assert_eq!(view.get(e), by_get.get(world, e), "{e:?}");
        assert_eq!(view.contains(e), expected.contains(&e), "{e:?}");
    }
}

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort_unstable();
    v
}

/// `World::group` never changes what queries answer: the sparse backend makes the group
/// (and reorders its sets as entities gain and lose the owned components), the others
/// answer that they keep none (the hybrid one groups only sparse components; `A` and `B`
/// are table components); either way a join over the group's components, after random
/// changes, equals the model's.
pub fn groups_change_no_results<S: Storage>() {
    let mut world = World::<S>::new();
    let made = world.group::<(A, B)>();
    assert_eq!(made.is_ok(), S::NAME == "sparse", "{made:?}");
    let mut model: std::collections::HashMap<Entity, (Option<u32>, Option<String>)> =
        std::collections::HashMap::new();
    let mut rng = crate::kit::Rng::new(0x0600_u64);
    let mut handles = Vec::new();
    for op in 0..size(3_000, 120) as u32 {
        let pick = (!handles.is_empty()).then(|| handles[rng.index(handles.len())]);
        match (rng.index(6), pick) {
            (0, _) | (_, None) => {
                let e = world.spawn((A(op),));
                model.insert(e, (Some(op), None));
                handles.push(e);
            }
            (1, Some(e)) => {
                let got = world.insert(e, B(op.to_string())).is_ok();
                assert_eq!(got, model.contains_key(&e));
                if let Some(m) = model.get_mut(&e) {
                    m.1 = Some(op.to_string());
                }
            }
            (2, Some(e)) => {
                let got = world.remove::<B>(e).ok().map(|b| b.0);
                assert_eq!(got, model.get_mut(&e).and_then(|m| m.1.take()));
            }
            (3, Some(e)) => {
                let got = world.remove::<A>(e).ok().map(|a| a.0);
                assert_eq!(got, model.get_mut(&e).and_then(|m| m.0.take()));
            }
            (4, Some(e)) => {
                let got = world.insert(e, A(op)).is_ok();
                assert_eq!(got, model.contains_key(&e));
                if let Some(m) = model.get_mut(&e) {
                    m.0 = Some(op);
                }
            }
            (_, Some(e)) => {
                assert_eq!(world.despawn(e).is_ok(), model.remove(&e).is_some());
            }
        }
    }
    let mut got: Vec<(Entity, u32, String)> = world
        .query::<(Entity, &A, &B)>()
        .map(|(e, a, b)| (e, a.0, b.0.clone()))
        .collect();
    let mut want: Vec<(Entity, u32, String)> = model
        .iter()
        .filter_map(|(e, (a, b))| Some((*e, (*a)?, b.clone()?)))
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
}

/// `n` entities `A(i)`, every second also with `B(i)`, every third also tagged: a world whose
/// entities spread over four component combinations, grown one insert at a time.
pub(crate) fn mixed_world<S: Storage>(n: u32) -> (World<S>, Vec<Entity>) {
    let mut world = World::<S>::new();
    let entities = (0..n)
        .map(|i| {
            let e = world.spawn((A(i),));
            if i % 2 == 0 {
                world.insert(e, B(i.to_string())).unwrap();
            }
            if i % 3 == 0 {
                world.insert(e, Tag).unwrap();
            }
            e
        })
        .collect();
    (world, entities)
}

/// `QueryView::with` writes what `QueryState::get_mut` would, answers `None` where it would,
/// and records changes of tracked components through `Mut<T>`.
pub fn mutable_views_write_like_get_mut<S: Storage>() {
    let (mut world, all) = mixed_world::<S>(size(120, 18) as u32);
    world.despawn(all[4]).unwrap();
    let mut state = world
        .query_state::<(&mut A, Option<&B>), With<Tag>>()
        .unwrap();
    let mut view = state.view_mut(&mut world);
    let mut written = Vec::new();
    for &e in &all {
        let got = view.with(e, |(a, b)| {
            a.0 += 1_000;
            (a.0, b.map(|b| b.0.clone()))
        });
        if got.is_some() {
            written.push(e);
        }
    }
    let expected: Vec<Entity> = all
        .iter()
        .copied()
        .filter(|&e| world.has::<Tag>(e) && world.contains(e))
        .collect();
    assert_eq!(written, expected);
    for (i, &e) in all.iter().enumerate() {
        let want = (i as u32) + if written.contains(&e) { 1_000 } else { 0 };
        assert_eq!(
            world.get::<A>(e).map(|a| a.0),
            world.contains(e).then_some(want)
        );
    }
    // Tracked writes through a mutable view are seen by `Changed<T>`.
    let tracked = world.spawn((Hp(5),));
    let _untouched = world.spawn((Hp(9),));
    let mut changed = world
        .query_state::<Entity, ecs_core::Changed<Hp>>()
        .unwrap();
    assert_eq!(changed.iter(&world).count(), 2, "spawned this run");
    let mut hp = world.query_state::<ecs_core::Mut<Hp>, ()>().unwrap();
    hp.view_mut(&mut world)
        .with(tracked, |mut hp| hp.0 -= 1)
        .unwrap();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![tracked]);
    assert_eq!(world.get::<Hp>(tracked).map(|h| h.0), Some(4));
    mutable_view_over_entities_without_components(&mut world);
}

/// A mutable view of a query requiring nothing (`Option<&mut A>`) writes exactly what
/// `get_mut` would, for entities with and without components (on the table backends, the
/// latter have no row and take the view's look-up fallback).
fn mutable_view_over_entities_without_components<S: Storage>(world: &mut World<S>) {
    let empty: Vec<Entity> = (0..3).map(|_| world.spawn(())).collect();
    let with_a = world.spawn((A(7),));
    let gone = world.spawn(());
    world.despawn(gone).unwrap();
    let mut state = world.query_state::<(Entity, Option<&mut A>), ()>().unwrap();
    let mut view = state.view_mut(world);
    for &e in empty.iter().chain([&with_a]) {
        let seen = view.with(e, |(id, a)| {
            if let Some(a) = a {
                a.0 += 1;
            }
            id
        });
        assert_eq!(seen, Some(e), "every live entity matches");
    }
    assert_eq!(view.with(gone, |(id, _)| id), None, "stale");
    assert_eq!(world.get::<A>(with_a), Some(&A(8)));
    assert!(empty.iter().all(|&e| world.get::<A>(e).is_none()));
}

#[derive(Debug, PartialEq)]
struct Hp(u32);
impl Component for Hp {
    type Mutability = ecs_core::Tracked;
}

/// Every row of a dense chunk is folded once whatever the chunk's length: short chunks run
/// in fixed steps plus a remainder, long ones in one loop, so lengths on both sides of each
/// boundary are checked, with one column, with two, and with a per-row filter.
pub fn dense_chunks_of_every_length_fold_each_row_once<S: Storage>() {
    let lengths: Vec<u32> = if cfg!(miri) {
        vec![0, 1, 3, 4, 5, 8, 17, 20, 63, 64, 65]
    } else {
        (0..=70).chain([127, 128, 129, 1000]).collect()
    };
    for n in lengths {
        let mut world = World::<S>::new();
        let all = world
            .spawn_batch((0..n).map(|i| (A(i), D([i as u8; 3]), Hp(i))))
            .to_vec();
        world.query::<&mut A>().for_each(|a| a.0 += 1);
        world
            .query::<(&mut A, &D)>()
            .for_each(|(a, d)| a.0 += 10 + u32::from(d.0[0] & 1));
        let mut changed = world
            .query_state::<&mut A, ecs_core::Changed<Hp>>()
            .unwrap();
        let spawned = changed.iter_mut(&mut world).count();
        assert_eq!(spawned, n as usize, "spawned since the state was made");
        let mut hp = world.query_state::<ecs_core::Mut<Hp>, ()>().unwrap();
        let mut view = hp.view_mut(&mut world);
        for &e in all.iter().step_by(3) {
            view.with(e, |mut h| h.0 += 1).unwrap();
        }
        changed.iter_mut(&mut world).for_each(|a| a.0 += 100);
        for (i, &e) in (0..).zip(&all) {
            let want = i + 11 + (i & 1) + if i % 3 == 0 { 100 } else { 0 };
            assert_eq!(world.get::<A>(e), Some(&A(want)), "row {i} of {n}");
        }
    }
}

/// Aligning a component with the tables changes no answer: the same joins, the same values
/// by entity, before and after, and structural change afterwards works as before. Only a
/// backend keeping both tables and sets has anything to reorder.
pub fn align_with_tables_changes_no_answer<S: Storage>() {
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Hot(u32);
    impl Component for Hot {
        type Mutability = ecs_core::Mutable;
        const STORAGE: StorageKind = StorageKind::Sparse;
    }
    let mut world = World::<S>::new();
    let n = size(300, 30) as u32;
    let all: Vec<Entity> = (0..n).map(|i| world.spawn((A(i), Hot(i)))).collect();
    // Spread over tables (and some entities left without a row) after `Hot` was added.
    for (i, &e) in all.iter().enumerate() {
        if i % 3 == 0 {
            world.insert(e, Tag).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, D([i as u8; 3])).unwrap();
        }
        if i % 11 == 0 {
            world.remove::<A>(e).unwrap();
        }
    }
    let answers = |world: &mut World<S>| {
        let mut joined: Vec<(Entity, u32, u32)> = world
            .query::<(Entity, &A, &Hot)>()
            .map(|(e, a, h)| (e, a.0, h.0))
            .collect();
        joined.sort_by_key(|(e, ..)| e.index());
        let mut alone: Vec<(Entity, u32)> = world
            .query_filtered::<(Entity, &Hot), Without<Tag>>()
            .map(|(e, h)| (e, h.0))
            .collect();
        alone.sort_by_key(|(e, _)| e.index());
        let gets: Vec<Option<u32>> = all
            .iter()
            .map(|&e| world.get::<Hot>(e).map(|h| h.0))
            .collect();
        (joined, alone, gets)
    };
    let before = answers(&mut world);
    assert_eq!(before.0.len(), all.len() - all.len().div_ceil(11));
    assert_eq!(world.align_with_tables::<Hot>(), S::NAME == "hybrid");
    assert_eq!(answers(&mut world), before);
    assert!(
        !world.align_with_tables::<A>(),
        "nothing to align a table component with"
    );

    world.remove::<Hot>(all[1]).unwrap();
    world.despawn(all[2]).unwrap();
    world.insert(all[4], Hot(99)).unwrap();
    let joined: u32 = world.query::<(&A, &Hot)>().map(|(a, h)| a.0 + h.0).sum();
    let expected: u32 = (0..n)
        .filter(|i| i % 11 != 0 && *i != 1 && *i != 2)
        .map(|i| i + if i == 4 { 99 } else { i })
        .sum();
    assert_eq!(joined, expected);
}

/// A component kept in sparse sets on the hybrid backend, for [`has_answers_presence`].
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
pub struct Marked;

/// `Has<T>` answers whether each matched entity holds `T`, the same by iteration, by
/// `for_each`, by `get` and through a view, with `T` in tables or sparse sets, and it
/// reads nothing: it sits beside a writer of `T` in one query and in a parallel system.
pub fn has_answers_presence<S: Storage>() {
    use ecs_core::query::Has;
    let mut world = World::<S>::new();
    let mut expected = Vec::new();
    for i in 0..200u32 {
        let e = world.spawn((A(i),));
        if i % 3 == 0 {
            world.insert(e, Tag).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, Marked).unwrap();
        }
        expected.push((e, i % 3 == 0, i % 5 == 0));
    }
    // An entity the rest of the query does not match is not an item.
    world.spawn((Tag, Marked));
    let mut seen: Vec<(Entity, bool, bool)> = world
        .query_filtered::<(Entity, Has<Tag>, Has<Marked>), With<A>>()
        .collect();
    seen.sort_by_key(|(e, ..)| *e);
    expected.sort_by_key(|(e, ..)| *e);
    assert_eq!(seen, expected, "by iteration");
    let mut by_for_each = Vec::new();
    world
        .query::<(Entity, &A, Has<Tag>, Has<Marked>)>()
        .for_each(|(e, _, t, m)| by_for_each.push((e, t, m)));
    by_for_each.sort_by_key(|(e, ..)| *e);
    assert_eq!(by_for_each, expected, "by for_each");
    let mut state = world
        .query_state::<(Has<Tag>, Has<Marked>), With<A>>()
        .unwrap();
    for &(e, t, m) in &expected {
        assert_eq!(state.get(&world, e), Some((t, m)), "by get");
    }
    let view = state.view(&world);
    for &(e, t, m) in &expected {
        assert_eq!(view.get(e), Some((t, m)), "through a view");
    }
    // Beside a writer of the same component: no aliasing, as nothing is read.
    world
        .query::<(&mut A, Has<A>, Has<Marked>)>()
        .for_each(|(a, has_a, marked)| {
            assert!(has_a);
            if marked {
                a.0 += 1000;
            }
        });
    let bumped = world.query::<&A>().filter(|a| a.0 >= 1000).count();
    assert_eq!(bumped, 40, "every fifth of 200");
    let reader = world.query_state::<Has<A>, ()>().unwrap();
    let writer = world.query_state::<&mut A, ()>().unwrap();
    assert!(
        !reader.access().conflicts_with(writer.access()),
        "Has<A> does not conflict with a writer of A"
    );
}

/// `AnyOf<(A, B)>` yields the entities holding at least one part, each part as an `Option`,
/// the same by iteration, by `get` and through a view, with parts in tables or sparse sets,
/// and a part that writes writes.
pub fn any_of_yields_entities_holding_a_part<S: Storage>() {
    use ecs_core::query::AnyOf;
    let mut world = World::<S>::new();
    let mut expected = Vec::new();
    let mut neither = Vec::new();
    for i in 0..120u32 {
        let e = world.spawn((Tag,));
        let a = (i % 2 == 0).then_some(i);
        if let Some(a) = a {
            world.insert(e, A(a)).unwrap();
        }
        if i % 3 == 0 {
            world.insert(e, Marked).unwrap();
        }
        match (a, i % 3 == 0) {
            (None, false) => neither.push(e),
            (a, marked) => expected.push((e, a, marked)),
        }
    }
    let mut seen: Vec<(Entity, Option<u32>, bool)> = world
        .query::<(Entity, AnyOf<(&A, &Marked)>)>()
        .map(|(e, (a, m))| (e, a.map(|a| a.0), m.is_some()))
        .collect();
    seen.sort_by_key(|(e, ..)| *e);
    assert_eq!(seen, expected, "by iteration");
    let mut state = world
        .query_state::<AnyOf<(&A, &Marked)>, With<Tag>>()
        .unwrap();
    for &(e, a, m) in &expected {
        let got = state
            .get(&world, e)
            .map(|(x, y)| (x.map(|x| x.0), y.is_some()));
        assert_eq!(got, Some((a, m)), "by get");
    }
    for &e in &neither {
        assert!(state.get(&world, e).is_none(), "holds neither part");
    }
    let view = state.view(&world);
    assert_eq!(
        expected
            .iter()
            .filter(|(e, ..)| view.get(*e).is_some())
            .count(),
        expected.len(),
        "through a view"
    );
    // A part that writes.
    world
        .query::<AnyOf<(&mut A, &Marked)>>()
        .for_each(|(a, marked)| {
            if let (Some(a), Some(_)) = (a, marked) {
                a.0 += 1000;
            }
        });
    let bumped = world.query::<&A>().filter(|a| a.0 >= 1000).count();
    assert_eq!(bumped, 20, "every sixth of 120");
    let either = world.query_state::<AnyOf<(&mut A, &B)>, ()>().unwrap();
    let reader = world.query_state::<&A, ()>().unwrap();
    assert!(
        either.access().conflicts_with(reader.access()),
        "it writes A"
    );
}
