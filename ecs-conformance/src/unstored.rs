//! Queries and filters over components no entity holds: never registered, registered but
//! never stored, stored and then removed from every entity, and run-time components. Each
//! probe is of either storage kind (`P<false>` asks for a table, `P<true>` for a sparse set),
//! in every role a query gives a slot: required (`&P`, `&mut P`, `With<P>`), optional
//! (`Option<&P>`, `Option<&mut P>`) and excluded (`Without<P>`).
//!
//! A backend that claims a component type is always dense (`Storage::is_dense`) must still
//! find no row for a required slot of a type nobody stores: answering "absent" there would
//! hand the query a null column.

use std::alloc::Layout;

use ecs_core::query::{DynFilter, DynQuery};
use ecs_core::{
    Component, ComponentDescriptor, ComponentId, Entity, Or, QueryState, Storage, StorageKind,
    With, Without, World,
};

use crate::components::{size, A};

/// A probe component whose storage kind is a type parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct P<const SPARSE: bool>(pub u64);
impl<const SPARSE: bool> Component for P<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = if SPARSE {
        StorageKind::Sparse
    } else {
        StorageKind::Table
    };
}

/// A second probe, so a query can join two components of which one is unstored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Q<const SPARSE: bool>(pub u64);
impl<const SPARSE: bool> Component for Q<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = if SPARSE {
        StorageKind::Sparse
    } else {
        StorageKind::Table
    };
}

/// How the probe `P` came to be held by no entity (or, as the control, by some).
#[derive(Clone, Copy, Debug)]
enum History {
    /// Never named before the query.
    Unregistered,
    /// Registered with the world but never stored.
    Registered,
    /// Stored on entities, then removed from each (by `remove` or by despawning them).
    Removed,
    /// Held by every third base entity (the control: the same queries find them).
    Held,
}

const HISTORIES: [History; 4] = [
    History::Unregistered,
    History::Registered,
    History::Removed,
    History::Held,
];

/// Every history of every probe kind, every role, with and without other components around.
///
/// Under Miri the two mixed kind pairs run (a table probe beside a sparse one and the
/// reverse), which cover every path the same-kind pairs take, in a third of the time.
pub fn queries_over_unstored_components<S: Storage>() {
    for history in HISTORIES {
        probe_roles::<S, true, false>(history);
        probe_roles::<S, false, true>(history);
        if !cfg!(miri) {
            probe_roles::<S, false, false>(history);
            probe_roles::<S, true, true>(history);
        }
    }
}

/// Every entity of a world, with whether it holds `A` and whether it holds `Q`.
type Census = Vec<(Entity, bool, bool)>;

/// A world of base entities holding `A` (and `Q` on odd ones), with `P` in `history`;
/// returns it with the entities that hold `P`, and its census.
fn world_with<S: Storage, const SP: bool, const SQ: bool>(
    history: History,
) -> (World<S>, Vec<Entity>, Census) {
    let mut world = World::<S>::new();
    let mut base = Vec::new();
    for i in 0..size(12, 6) as u64 {
        let e = if i % 2 == 1 {
            world.spawn((A(i as u32), Q::<SQ>(i)))
        } else {
            world.spawn((A(i as u32),))
        };
        base.push(e);
    }
    // An entity with no component at all, and one with only Q: queries requiring nothing
    // must still see them.
    world.spawn(());
    world.spawn((Q::<SQ>(99),));
    let mut holders = Vec::new();
    match history {
        History::Unregistered => {}
        History::Registered => {
            world.register_component::<P<SP>>();
        }
        History::Removed => {
            for &e in &base {
                world.insert(e, P::<SP>(7)).unwrap();
            }
            let doomed = world.spawn((P::<SP>(1), A(100)));
            for &e in &base {
                assert_eq!(world.remove::<P<SP>>(e), Ok(P(7)));
            }
            world.despawn(doomed).unwrap();
        }
        History::Held => {
            for (i, &e) in base.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
                world.insert(e, P::<SP>(i as u64)).unwrap();
                holders.push(e);
            }
        }
    }
    let all = world
        .query::<(Entity, Option<&A>, Option<&Q<SQ>>)>()
        .map(|(e, a, q)| (e, a.is_some(), q.is_some()))
        .collect();
    (world, holders, all)
}

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort_unstable();
    v
}

/// Every role of `P` next to `A` and `Q`, checked against what the world holds.
fn probe_roles<S: Storage, const SP: bool, const SQ: bool>(history: History) {
    let ctx = format!("{} P sparse={SP} Q sparse={SQ} {history:?}", S::NAME);
    let (mut world, holders, all) = world_with::<S, SP, SQ>(history);
    let has_p = |e: &Entity| holders.contains(e);
    let with_a: Vec<Entity> = all.iter().filter(|x| x.1).map(|x| x.0).collect();
    let with_q: Vec<Entity> = all.iter().filter(|x| x.2).map(|x| x.0).collect();
    let a_and_p = sorted(with_a.iter().copied().filter(has_p).collect());
    let a_not_p = sorted(with_a.iter().copied().filter(|e| !has_p(e)).collect());
    let q_and_p = sorted(with_q.iter().copied().filter(has_p).collect());

    // Required: fetched (shared and exclusive), alone and joined, and as a filter.
    let got: Vec<Entity> = world.query::<(Entity, &A, &P<SP>)>().map(|x| x.0).collect();
    assert_eq!(sorted(got), a_and_p, "{ctx}: (&A, &P)");
    let got: Vec<Entity> = world
        .query::<(Entity, &A, &mut P<SP>)>()
        .map(|(e, _, p)| {
            p.0 += 1;
            e
        })
        .collect();
    assert_eq!(sorted(got), a_and_p, "{ctx}: (&A, &mut P)");
    let got: Vec<Entity> = world.query::<(Entity, &P<SP>)>().map(|x| x.0).collect();
    assert_eq!(sorted(got), sorted(holders.clone()), "{ctx}: &P alone");
    let got: Vec<Entity> = world
        .query_filtered::<Entity, (With<A>, With<P<SP>>)>()
        .collect();
    assert_eq!(sorted(got), a_and_p, "{ctx}: With<P>");
    let got: Vec<Entity> = world
        .query::<(Entity, &Q<SQ>, &P<SP>)>()
        .map(|x| x.0)
        .collect();
    assert_eq!(sorted(got), q_and_p, "{ctx}: (&Q, &P)");
    let got: Vec<Entity> = world
        .query_filtered::<Entity, (With<P<SP>>, Without<A>)>()
        .collect();
    assert!(got.is_empty(), "{ctx}: With<P>, Without<A>: {got:?}");

    // Optional: yields every entity of the other slots, with `Some` exactly for holders.
    let got: Vec<(Entity, bool)> = world
        .query::<(Entity, &A, Option<&P<SP>>)>()
        .map(|(e, _, p)| (e, p.is_some()))
        .collect();
    let mut want: Vec<(Entity, bool)> = with_a.iter().map(|&e| (e, has_p(&e))).collect();
    want.sort_unstable();
    let mut got_sorted = got;
    got_sorted.sort_unstable();
    assert_eq!(got_sorted, want, "{ctx}: (&A, Option<&P>)");
    let touched = world
        .query::<(&A, Option<&mut P<SP>>)>()
        .filter_map(|(_, p)| p.map(|p| p.0 += 1))
        .count();
    assert_eq!(touched, a_and_p.len(), "{ctx}: Option<&mut P>");
    let everyone = world.query::<(Entity, Option<&P<SP>>)>().count();
    assert_eq!(
        everyone,
        world.len(),
        "{ctx}: Option<&P> alone sees every entity"
    );

    // Excluded: every entity of the other slots that does not hold it.
    let got: Vec<Entity> = world
        .query_filtered::<Entity, (With<A>, Without<P<SP>>)>()
        .collect();
    assert_eq!(sorted(got), a_not_p, "{ctx}: Without<P>");
    let got = world.query_filtered::<Entity, Without<P<SP>>>().count();
    assert_eq!(got, world.len() - holders.len(), "{ctx}: Without<P> alone");

    // Inside `Or`, a slot checks presence per row.
    let got: Vec<Entity> = world
        .query_filtered::<Entity, (With<A>, Or<(With<P<SP>>, With<Q<SQ>>)>)>()
        .collect();
    let want: Vec<Entity> = with_a
        .iter()
        .copied()
        .filter(|e| has_p(e) || with_q.contains(e))
        .collect();
    assert_eq!(sorted(got), sorted(want), "{ctx}: Or<(With<P>, With<Q>)>");

    // Random access through a state and a view answers like the scan.
    let mut state: QueryState<(&A, &P<SP>), (), S> = world.query_state().unwrap();
    for &(e, ..) in &all {
        let want = a_and_p.contains(&e);
        assert_eq!(state.get(&world, e).is_some(), want, "{ctx}: get {e:?}");
        assert_eq!(
            state.view(&world).get(e).is_some(),
            want,
            "{ctx}: view {e:?}"
        );
    }

    // A state made while nobody holds `P` sees holders that appear later.
    if holders.is_empty() {
        let mut state: QueryState<(Entity, &mut P<SP>), With<A>, S> = world.query_state().unwrap();
        assert_eq!(state.iter_mut(&mut world).count(), 0, "{ctx}: before");
        let e = with_a[0];
        world.insert(e, P::<SP>(5)).unwrap();
        let got: Vec<Entity> = state.iter_mut(&mut world).map(|x| x.0).collect();
        assert_eq!(got, vec![e], "{ctx}: after the first value is stored");
        assert_eq!(world.remove::<P<SP>>(e), Ok(P(5)));
        assert_eq!(
            state.iter_mut(&mut world).count(),
            0,
            "{ctx}: after removal"
        );
    }
}

/// Run-time components of each storage kind, never stored, stored then removed, and held,
/// sitting beside typed components: typed queries over the typed ones are unaffected, and
/// by-id reads answer exactly for holders.
pub fn runtime_components_in_every_history<S: Storage>() {
    for kind in [StorageKind::Table, StorageKind::Sparse] {
        let mut world = World::<S>::new();
        let raw = |world: &mut World<S>, name: &'static str| {
            world.register_dynamic(ComponentDescriptor {
                name: name.into(),
                layout: Layout::new::<[u8; 4]>(),
                drop: None,
                storage: kind,
            })
        };
        let never = raw(&mut world, "never");
        let removed = raw(&mut world, "removed");
        let held = raw(&mut world, "held");
        let es: Vec<Entity> = (0..10u32).map(|i| world.spawn((A(i),))).collect();
        for (i, &e) in es.iter().enumerate() {
            world.insert_bytes(e, removed, &[i as u8; 4]).unwrap();
            if i % 2 == 0 {
                world.insert_bytes(e, held, &[1, 2, 3, i as u8]).unwrap();
            }
        }
        for &e in &es {
            world.remove_by_id(e, removed).unwrap();
        }
        for (i, &e) in es.iter().enumerate() {
            assert_eq!(world.get_bytes(e, never), None, "{kind:?}");
            assert_eq!(world.get_bytes(e, removed), None, "{kind:?}");
            let want = (i % 2 == 0).then_some([1u8, 2, 3, i as u8]);
            assert_eq!(
                world.get_bytes(e, held).map(|b| b.to_vec()),
                want.map(|w| w.to_vec())
            );
            assert!(world.remove_by_id(e, never).is_err());
        }
        let sum: u32 = world.query::<&A>().map(|a| a.0).sum();
        assert_eq!(sum, 45, "{kind:?}");
        let untagged = world
            .query_filtered::<&A, Without<P<false>>>()
            .map(|a| a.0)
            .sum::<u32>();
        assert_eq!(untagged, 45, "{kind:?}");
        assert_eq!(world.query::<(&A, &P<true>)>().count(), 0, "{kind:?}");
        dynamic_roles(&mut world, &es, [never, removed, held], kind);
    }
}

/// Run-time queries over run-time components in each history (`ids`: never stored, stored
/// then removed, held by the even entities of `es`), in every combination of roles:
/// required (read or write), optional and excluded, beside the typed `A` every entity holds.
fn dynamic_roles<S: Storage>(
    world: &mut World<S>,
    es: &[Entity],
    ids: [ComponentId; 3],
    kind: StorageKind,
) {
    let a = world.register_component::<A>();
    let holds = |history: usize, e: usize| history == 2 && e % 2 == 0;
    // Role of each of the three run-time components: 0 absent from the query, 1 required
    // read, 2 required write, 3 optional, 4 excluded.
    // Under Miri every seventh combination (coprime to 5: every role of every history).
    let step = if cfg!(miri) { 7 } else { 1 };
    for roles in (0..5usize.pow(3)).step_by(step) {
        let role = |k: usize| roles / 5usize.pow(k as u32) % 5;
        let mut query = DynQuery::new().read(a);
        let mut fetched = Vec::new();
        for (k, &id) in ids.iter().enumerate() {
            match role(k) {
                1 => query = query.read(id),
                2 => query = query.write(id),
                3 => query = query.read_optional(id),
                4 => query = query.filter(DynFilter::Without(id)),
                _ => continue,
            }
            if role(k) != 4 {
                fetched.push(k);
            }
        }
        let want: Vec<Entity> = (0..es.len())
            .filter(|&e| {
                (0..3).all(|k| match role(k) {
                    1 | 2 => holds(k, e),
                    4 => !holds(k, e),
                    _ => true,
                })
            })
            .map(|e| es[e])
            .collect();
        let mut state = world.dyn_query(&query).unwrap();
        let mut got = Vec::new();
        state.for_each(world, |item| {
            let e = es.iter().position(|&x| x == item.entity()).unwrap();
            for (term, &k) in fetched.iter().enumerate() {
                let bytes = item.bytes(term + 1).map(<[u8]>::to_vec);
                let want = holds(k, e).then(|| vec![1u8, 2, 3, e as u8]);
                assert_eq!(bytes, want, "{kind:?} roles {roles} term {term}");
            }
            got.push(item.entity());
        });
        assert_eq!(sorted(got), sorted(want), "{kind:?} roles {roles}");
    }
}
