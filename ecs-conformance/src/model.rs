//! The seeded model test: random operations checked against a plain `HashMap` model.
//!
//! Its components are generic over their storage choice (`A<true>` asks for a sparse set,
//! `A<false>` for a table), so on the hybrid backend every mix of table and sparse components
//! is exercised: the long run draws its mix from the seed, and a short run covers each of
//! the 16 mixes. Other backends ignore the choice and run the same operations.

use std::collections::{BTreeMap, HashMap};

use ecs_core::{
    Component, EcsError, Entity, QueryState, Storage, StorageKind, With, Without, World,
};

use crate::components::size;
use crate::kit::links::Links;
use crate::kit::Rng;

const fn kind(sparse: bool) -> StorageKind {
    if sparse {
        StorageKind::Sparse
    } else {
        StorageKind::Table
    }
}

macro_rules! mixable {
    ($($(#[$meta:meta])* $name:ident $(($field:ty))?;)*) => {
        $(
            $(#[$meta])*
            #[derive(Clone, Debug, PartialEq, Eq)]
            pub struct $name<const SPARSE: bool> $((pub $field))?;
            impl<const SPARSE: bool> Component for $name<SPARSE> {
                type Mutability = ecs_core::Mutable;
                const STORAGE: StorageKind = kind(SPARSE);
            }
        )*
    };
}

mixable! {
    /// Plain data.
    A(u32);
    /// Owns heap memory.
    B(String);
    /// Zero-sized.
    Tag;
}

/// Odd size and alignment 1; movable, so the model moves its storage among the churn
/// (`World::set_storage`: the hybrid moves it, the other backends refuse).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct D<const SPARSE: bool>(pub [u8; 3]);
impl<const SPARSE: bool> Component for D<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = kind(SPARSE);
    const MOVABLE: bool = true;
}

/// A derived bundle over two of the mixable components (the const generics pass through).
#[derive(ecs_core::Bundle, Debug, PartialEq, Eq)]
struct AD<const SA: bool, const SD: bool> {
    a: A<SA>,
    d: D<SD>,
}

/// Tuple fields, a nested tuple bundle.
#[derive(ecs_core::Bundle, Debug, PartialEq, Eq)]
struct BT<const SB: bool, const ST: bool>(B<SB>, #[bundle] (Tag<ST>,));

/// The error of a bundle operation on a live entity lacking `T`.
fn missing<T>(entity: Entity) -> EcsError {
    EcsError::MissingComponent {
        entity,
        component: std::any::type_name::<T>().into(),
    }
}

/// What the model believes one entity holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Expected {
    a: Option<u32>,
    b: Option<String>,
    tag: bool,
    d: Option<[u8; 3]>,
    /// Named instances by name.
    named: BTreeMap<&'static str, Named>,
}

/// A named instance's value, of one of two types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    A(u32),
    D([u8; 3]),
}

/// The instance names the model uses: "A" is also the short name of the unnamed `A`,
/// which holds it while the entity has an `A` and no instance called "A".
const NAMES: [&str; 3] = ["n0", "n1", "A"];

impl Expected {
    /// Whether some component of the entity other than the instance `name` of `A` (`is_a`)
    /// or of `D` holds `name`.
    fn name_taken(&self, name: &str, is_a: bool) -> bool {
        match self.named.get(name) {
            Some(Named::A(_)) => !is_a,
            Some(Named::D(_)) => is_a,
            // An unnamed component's type name never blocks an instance: it is shadowed.
            None => false,
        }
    }
}

struct Harness<S: Storage, const SA: bool, const SB: bool, const ST: bool, const SD: bool> {
    world: World<S>,
    model: HashMap<Entity, Expected>,
    /// Every handle ever handed out (alive or not), to pick targets from.
    handles: Vec<Entity>,
    rng: Rng,
    /// Multi-component `get`s, kept across operations as a system keeps its queries.
    gets: Gets<S, SA, SB, ST, SD>,
    /// Parents and ordered children of the entities that have links.
    links: Links,
}

/// Query states whose `get` `check_one` compares with the model: everything optional (the
/// liveness check is the allocator's), and two required components (the storage's).
struct Gets<S: Storage, const SA: bool, const SB: bool, const ST: bool, const SD: bool> {
    all: QueryState<AllOptional<'static, SA, SB, ST, SD>, (), S>,
    a_and_d: QueryState<(Entity, &'static A<SA>, &'static D<SD>), (), S>,
    with_tag: QueryState<Entity, With<Tag<ST>>, S>,
}

/// An `AllOptional` item as what the model expects.
fn owned_all<const SA: bool, const SB: bool, const ST: bool, const SD: bool>(
    item: Option<AllOptional<'_, SA, SB, ST, SD>>,
) -> Option<Expected> {
    item.map(|(a, b, t, d)| Expected {
        a: a.map(|a| a.0),
        b: b.map(|b| b.0.clone()),
        tag: t.is_some(),
        d: d.map(|d| d.0),
        named: BTreeMap::new(),
    })
}

type AllOptional<'a, const SA: bool, const SB: bool, const ST: bool, const SD: bool> = (
    Option<&'a A<SA>>,
    Option<&'a B<SB>>,
    Option<&'a Tag<ST>>,
    Option<&'a D<SD>>,
);

/// The model test. By default: 100,000 operations on the storage mix drawn from the seed,
/// then every mix of table and sparse components, shorter.
///
/// The long mode runs `ECS_MODEL_OPS` operations in all, spread over the 16 mixes, from the
/// seed `ECS_MODEL_SEED` (decimal or `0x` hex; default `0xEC5`), e.g. ten million per
/// backend:
///
/// ```text
/// ECS_MODEL_OPS=10000000 cargo test --release -p ecs-archetype --test conformance model_100k_ops
/// ```
pub fn random_operations_match_hashmap_model<S: Storage>() {
    let seed = env_number("ECS_MODEL_SEED").unwrap_or(0xEC5);
    if let Some(total) = env_number("ECS_MODEL_OPS") {
        let per_mix = (total as usize).div_ceil(16);
        for mix in 0..16 {
            run_mix::<S>(mix, seed.wrapping_add(mix as u64), per_mix);
        }
        return;
    }
    let mix = Rng::new(seed).next_u64() as usize % 16;
    run_mix::<S>(mix, seed, size(100_000, 240));
    for mix in 0..16 {
        run_mix::<S>(mix, mix as u64 + 1, size(3_000, 36));
    }
}

/// A number from the environment (decimal, or hex after `0x`); `None` when unset.
///
/// # Panics
/// If the variable is set to something else than a number: a long run asked for by mistake
/// must not silently run the short one.
fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
}

/// Runs the model with mix `mix`: bit 0 makes `A` sparse, bit 1 `B`, bit 2 `Tag`, bit 3 `D`.
pub(crate) fn run_mix<S: Storage>(mix: usize, seed: u64, ops: usize) {
    macro_rules! dispatch {
        ($($m:literal => $a:literal $b:literal $t:literal $d:literal),*) => {
            match mix {
                $($m => run::<S, $a, $b, $t, $d>(seed, ops),)*
                _ => unreachable!("mix is below 16"),
            }
        };
    }
    dispatch! {
        0 => false false false false, 1 => true false false false,
        2 => false true false false, 3 => true true false false,
        4 => false false true false, 5 => true false true false,
        6 => false true true false, 7 => true true true false,
        8 => false false false true, 9 => true false false true,
        10 => false true false true, 11 => true true false true,
        12 => false false true true, 13 => true false true true,
        14 => false true true true, 15 => true true true true
    }
}

fn run<S: Storage, const SA: bool, const SB: bool, const ST: bool, const SD: bool>(
    seed: u64,
    ops: usize,
) {
    let mut world = World::new();
    let gets = Gets {
        all: world.query_state().unwrap(),
        a_and_d: world.query_state().unwrap(),
        with_tag: world.query_state().unwrap(),
    };
    let mut h = Harness::<S, SA, SB, ST, SD> {
        world,
        model: HashMap::new(),
        handles: Vec::new(),
        rng: Rng::new(seed),
        gets,
        links: Links::default(),
    };
    // Cleared every 50,000 operations (once, half way, in the default run), so a long run
    // keeps a world of a few thousand entities instead of growing without bound.
    let clear_every = size(50_000, 200).min(ops / 2).max(1);
    for op in 0..ops {
        h.step(op > 0 && op % clear_every == 0);
        if op % size(10_000, 150) == 0 {
            h.compare_whole_world();
        }
    }
    h.compare_whole_world();
    assert_eq!(h.world.is_empty(), h.model.is_empty());
}

impl<S: Storage, const SA: bool, const SB: bool, const ST: bool, const SD: bool>
    Harness<S, SA, SB, ST, SD>
{
    fn step(&mut self, clear_now: bool) {
        if clear_now {
            self.world.clear();
            self.model.clear();
            self.links.clear();
            // Every handle is stale now: keep the latest few to test stale answers with.
            let keep = self.handles.len().saturating_sub(1_000);
            self.handles.drain(..keep);
            return;
        }
        match self.rng.index(100) {
            0..=14 => self.spawn_one(),
            15..=17 => self.spawn_batch(),
            18..=27 => self.despawn(),
            28..=47 => self.insert(),
            48..=62 => self.remove(),
            63..=65 => self.take(),
            66..=77 => self.check_one(),
            78..=83 => self.relate(),
            84..=91 => self.mutate(),
            92..=96 => self.named(),
            97 => self.move_d(),
            _ => self.check_query(),
        }
    }

    /// Moves `D`'s storage to a random kind: a backend with both kinds moves it, the
    /// others refuse any kind but their own; no answer changes (the next comparison of the
    /// whole world checks every value).
    fn move_d(&mut self) {
        let kind = match self.rng.index(2) {
            0 => StorageKind::Table,
            _ => StorageKind::Sparse,
        };
        let was = self.world.storage_kind::<D<SD>>();
        match self.world.set_storage::<D<SD>>(kind) {
            Ok(()) => assert_eq!(self.world.storage_kind::<D<SD>>(), Some(kind)),
            Err(EcsError::Storage { .. }) => {
                assert_ne!(was, Some(kind), "a move to the kind it has is nothing");
                assert_eq!(self.world.storage_kind::<D<SD>>(), was);
            }
            Err(other) => panic!("set_storage: {other}"),
        }
    }

    fn pick(&mut self) -> Option<Entity> {
        if self.handles.is_empty() {
            return None;
        }
        // Live and stale handles alike: stale ones must be answered with None/Err.
        let i = self.rng.index(self.handles.len());
        Some(self.handles[i])
    }

    fn random_expected(&mut self) -> Expected {
        let n = self.rng.next_u64();
        Expected {
            a: (n & 1 != 0).then_some(n as u32 >> 8),
            b: (n & 2 != 0).then(|| format!("b{}", n % 1000)),
            tag: n & 4 != 0,
            d: (n & 8 != 0).then_some([n as u8, (n >> 8) as u8, 7]),
            named: BTreeMap::new(),
        }
    }

    fn spawn_one(&mut self) {
        let e = self.random_expected();
        let entity = match (&e.a, &e.b, e.tag, &e.d) {
            (None, None, false, None) => self.world.spawn(()),
            (Some(a), None, false, None) => self.world.spawn((A::<SA>(*a),)),
            (Some(a), Some(b), false, None) => self.world.spawn((A::<SA>(*a), B::<SB>(b.clone()))),
            (None, Some(b), true, None) => self.world.spawn((B::<SB>(b.clone()), Tag::<ST>)),
            (Some(a), Some(b), true, Some(d)) => {
                self.world
                    .spawn((A::<SA>(*a), B::<SB>(b.clone()), Tag::<ST>, D::<SD>(*d)))
            }
            (a, b, tag, d) => {
                // Other shapes: spawn empty, then insert one by one (walks the layouts).
                let entity = self.world.spawn(());
                let w = &mut self.world;
                a.map(|v| w.insert(entity, A::<SA>(v)).unwrap());
                b.clone().map(|v| w.insert(entity, B::<SB>(v)).unwrap());
                tag.then(|| w.insert(entity, Tag::<ST>).unwrap());
                d.map(|v| w.insert(entity, D::<SD>(v)).unwrap());
                entity
            }
        };
        assert!(
            !self.model.contains_key(&entity),
            "fresh handle {entity:?} aliases a live one"
        );
        self.model.insert(entity, e);
        self.handles.push(entity);
    }

    fn spawn_batch(&mut self) {
        let n = self.rng.index(8) + 1;
        let base = self.rng.next_u64() as u32;
        let spawned = self
            .world
            .spawn_batch(
                (0..n as u32).map(|i| (A::<SA>(base.wrapping_add(i)), D::<SD>([i as u8; 3]))),
            )
            .to_vec();
        assert_eq!(spawned.len(), n);
        for (i, entity) in spawned.into_iter().enumerate() {
            let e = Expected {
                a: Some(base.wrapping_add(i as u32)),
                d: Some([i as u8; 3]),
                ..Expected::default()
            };
            assert!(self.model.insert(entity, e).is_none());
            self.handles.push(entity);
        }
    }

    fn despawn(&mut self) {
        let Some(entity) = self.pick() else { return };
        let result = self.world.despawn(entity);
        self.links.despawn(entity);
        match self.model.remove(&entity) {
            Some(_) => assert_eq!(result, Ok(())),
            None => assert_eq!(result, Err(EcsError::NoSuchEntity(entity))),
        }
    }

    fn insert(&mut self) {
        let Some(entity) = self.pick() else { return };
        let value = self.random_expected();
        let fresh_a = self.rng.next_u64() as u32;
        let alive = self.model.contains_key(&entity);
        let which = self.rng.index(6);
        let stale = EcsError::NoSuchEntity(entity);
        let expected = self.model.get_mut(&entity);
        match which {
            0 => {
                let r = self.world.insert(entity, A::<SA>(fresh_a));
                match expected {
                    Some(e) => assert_eq!(r, Ok(e.a.replace(fresh_a).map(A))),
                    None => assert_eq!(r.err(), Some(stale)),
                }
            }
            1 => {
                let v = value.b.unwrap_or_else(|| String::from("bb"));
                let r = self.world.insert(entity, B::<SB>(v.clone()));
                match expected {
                    Some(e) => assert_eq!(r, Ok(e.b.replace(v).map(B))),
                    None => assert_eq!(r.err(), Some(stale)),
                }
            }
            2 => {
                let r = self.world.insert(entity, Tag::<ST>);
                match expected {
                    Some(e) => {
                        assert_eq!(r, Ok(std::mem::replace(&mut e.tag, true).then_some(Tag)))
                    }
                    None => assert_eq!(r.err(), Some(stale)),
                }
            }
            3 => {
                let v = [which as u8, 1, 2];
                let r = self.world.insert(entity, D::<SD>(v));
                match expected {
                    Some(e) => assert_eq!(r, Ok(e.d.replace(v).map(D))),
                    None => assert_eq!(r.err(), Some(stale)),
                }
            }
            4 => {
                let (a, d) = (fresh_a, [fresh_a as u8, 4, 4]);
                let r = self.world.insert(
                    entity,
                    AD {
                        a: A::<SA>(a),
                        d: D::<SD>(d),
                    },
                );
                match expected {
                    Some(e) => assert_eq!(r, Ok((e.a.replace(a).map(A), e.d.replace(d).map(D)))),
                    None => assert_eq!(r.err(), Some(stale)),
                }
            }
            _ => {
                let v = value.b.unwrap_or_else(|| String::from("bt"));
                let r = self
                    .world
                    .insert(entity, BT(B::<SB>(v.clone()), (Tag::<ST>,)));
                match expected {
                    Some(e) => {
                        let had_tag = std::mem::replace(&mut e.tag, true);
                        assert_eq!(r, Ok((e.b.replace(v).map(B), (had_tag.then_some(Tag),))));
                    }
                    None => assert_eq!(r.err(), Some(stale)),
                }
            }
        }
        assert_eq!(self.world.contains(entity), alive);
    }

    fn remove(&mut self) {
        let Some(entity) = self.pick() else { return };
        let which = self.rng.index(6);
        let Some(e) = self.model.get_mut(&entity) else {
            assert_eq!(
                self.world.remove::<A<SA>>(entity),
                Err(EcsError::NoSuchEntity(entity))
            );
            assert_eq!(
                self.world.remove::<AD<SA, SD>>(entity),
                Err(EcsError::NoSuchEntity(entity))
            );
            return;
        };
        match which {
            0 => assert_eq!(
                self.world.remove::<A<SA>>(entity).ok().map(|a| a.0),
                e.a.take()
            ),
            1 => assert_eq!(
                self.world.remove::<B<SB>>(entity).ok().map(|b| b.0),
                e.b.take()
            ),
            2 => assert_eq!(
                self.world.remove::<Tag<ST>>(entity).is_ok(),
                std::mem::take(&mut e.tag)
            ),
            3 => assert_eq!(
                self.world.remove::<D<SD>>(entity).ok().map(|d| d.0),
                e.d.take()
            ),
            // Bundles: all or nothing, the first missing component named.
            4 => {
                let r = self.world.remove::<AD<SA, SD>>(entity);
                match (e.a, e.d) {
                    (Some(a), Some(d)) => {
                        assert_eq!(r, Ok(AD { a: A(a), d: D(d) }));
                        (e.a, e.d) = (None, None);
                    }
                    (None, _) => assert_eq!(r, Err(missing::<A<SA>>(entity))),
                    (Some(_), None) => assert_eq!(r, Err(missing::<D<SD>>(entity))),
                }
            }
            _ => {
                let r = self.world.remove::<BT<SB, ST>>(entity);
                match (&e.b, e.tag) {
                    (Some(b), true) => {
                        assert_eq!(r, Ok(BT(B(b.clone()), (Tag,))));
                        (e.b, e.tag) = (None, false);
                    }
                    (None, _) => assert_eq!(r, Err(missing::<B<SB>>(entity))),
                    (Some(_), false) => assert_eq!(r, Err(missing::<Tag<ST>>(entity))),
                }
            }
        }
    }

    /// Despawns an entity holding `A` and `D`, handing them back; any other is left alone.
    fn take(&mut self) {
        let Some(entity) = self.pick() else { return };
        let r = self.world.take::<(A<SA>, D<SD>)>(entity);
        match self.model.get(&entity) {
            None => assert_eq!(r, Err(EcsError::NoSuchEntity(entity))),
            Some(Expected {
                a: Some(a),
                d: Some(d),
                ..
            }) => {
                assert_eq!(r, Ok((A(*a), D(*d))));
                self.model.remove(&entity);
                self.links.despawn(entity);
            }
            Some(Expected { a: None, .. }) => assert_eq!(r, Err(missing::<A<SA>>(entity))),
            Some(_) => assert_eq!(r, Err(missing::<D<SD>>(entity))),
        }
        assert_eq!(
            self.world.contains(entity),
            self.model.contains_key(&entity)
        );
    }

    fn check_one(&mut self) {
        let Some(entity) = self.pick() else { return };
        let e = self.model.get(&entity).cloned();
        let alive = e.is_some();
        assert_eq!(self.world.contains(entity), alive);
        let e = e.unwrap_or_default();
        assert_eq!(self.world.get::<A<SA>>(entity).map(|a| a.0), e.a);
        assert_eq!(self.world.get::<B<SB>>(entity).map(|b| &b.0), e.b.as_ref());
        assert_eq!(self.world.has::<Tag<ST>>(entity), e.tag);
        assert_eq!(self.world.get::<D<SD>>(entity).map(|d| d.0), e.d);
        for name in NAMES {
            let a = self
                .world
                .get_named::<A<SA>>(entity, name)
                .map(|a| Named::A(a.0));
            let d = self
                .world
                .get_named::<D<SD>>(entity, name)
                .map(|d| Named::D(d.0));
            assert_eq!(a.or(d), e.named.get(name).copied(), "{name}");
            let found = self.world.find(entity, name).is_some();
            let held = e.named.contains_key(name) || (name == "A" && e.a.is_some());
            assert_eq!(found, held, "{name}");
        }
        if alive {
            assert_eq!(Self::named_of(&self.world, entity), e.named);
        }
        self.check_gets(entity, alive.then_some(&e));
    }

    /// `QueryState::get` and `QueryView::get` for `entity`, which the model holds as `e`
    /// (`None`: not alive).
    fn check_gets(&mut self, entity: Entity, e: Option<&Expected>) {
        let (world, gets) = (&self.world, &mut self.gets);
        // Typed queries see the unnamed components only.
        let unnamed = e.map(|e| Expected {
            named: BTreeMap::new(),
            ..e.clone()
        });
        let e = unnamed.as_ref();
        let got = owned_all(gets.all.get(world, entity));
        assert_eq!(got.as_ref(), e);
        assert_eq!(owned_all(gets.all.view(world).get(entity)), got, "view");
        let a_and_d = |x: Option<(Entity, &A<SA>, &D<SD>)>| x.map(|(x, a, d)| (x, a.0, d.0));
        let got = a_and_d(gets.a_and_d.get(world, entity));
        assert_eq!(got, e.and_then(|e| Some((entity, e.a?, e.d?))));
        assert_eq!(a_and_d(gets.a_and_d.view(world).get(entity)), got, "view");
        let got = gets.with_tag.get(world, entity);
        assert_eq!(got, e.filter(|e| e.tag).map(|_| entity));
        assert_eq!(gets.with_tag.view(world).get(entity), got, "view");
    }

    /// A named-instance operation on a random handle, checked against the model.
    fn named(&mut self) {
        let Some(entity) = self.pick() else { return };
        let name = NAMES[self.rng.index(NAMES.len())];
        let value = self.rng.next_u64() as u32;
        let which = self.rng.index(5);
        let world = &mut self.world;
        let Some(e) = self.model.get_mut(&entity) else {
            let stale = EcsError::NoSuchEntity(entity);
            let r = world.insert_named(entity, name, A::<SA>(value));
            assert_eq!(r.err(), Some(stale.clone()));
            let r = world.remove_named::<D<SD>>(entity, name);
            assert_eq!(r.err(), Some(stale));
            assert!(world.named_instances(entity).next().is_none());
            return;
        };
        match which {
            0 | 1 => {
                let is_a = which == 0;
                let (r, new) = if is_a {
                    let r = world.insert_named(entity, name, A::<SA>(value));
                    (r.map(|old| old.map(|a| Named::A(a.0))), Named::A(value))
                } else {
                    let v = [value as u8, 3, 3];
                    let r = world.insert_named(entity, name, D::<SD>(v));
                    (r.map(|old| old.map(|d| Named::D(d.0))), Named::D(v))
                };
                if e.name_taken(name, is_a) {
                    assert!(matches!(r, Err(EcsError::NameTaken { .. })), "{r:?}");
                } else {
                    assert_eq!(r, Ok(e.named.insert(name, new)));
                }
            }
            2 => {
                let r = world.remove_named::<A<SA>>(entity, name).map(|a| a.0);
                match e.named.get(name) {
                    Some(&Named::A(v)) => {
                        assert_eq!(r, Ok(v));
                        e.named.remove(name);
                    }
                    _ => assert!(matches!(r, Err(EcsError::UnknownInstance { .. }))),
                }
            }
            3 => {
                let r = world.remove_named::<D<SD>>(entity, name).map(|d| d.0);
                match e.named.get(name) {
                    Some(&Named::D(v)) => {
                        assert_eq!(r, Ok(v));
                        e.named.remove(name);
                    }
                    _ => assert!(matches!(r, Err(EcsError::UnknownInstance { .. }))),
                }
            }
            _ => {
                let got = world.get_named_mut::<A<SA>>(entity, name).map(|mut a| {
                    a.0 = a.0.wrapping_add(1);
                    a.0
                });
                let want = match e.named.get_mut(name) {
                    Some(Named::A(v)) => {
                        *v = v.wrapping_add(1);
                        Some(*v)
                    }
                    _ => None,
                };
                assert_eq!(got, want);
            }
        }
    }

    /// The named instances of live `entity` as the model keeps them.
    fn named_of(world: &World<S>, entity: Entity) -> BTreeMap<&'static str, Named> {
        let a_id = world.component_id::<A<SA>>();
        world
            .named_instances(entity)
            .map(|instance| {
                let name = *NAMES
                    .iter()
                    .find(|n| **n == instance.name)
                    .expect("a model name");
                let value = if Some(instance.of) == a_id {
                    Named::A(world.get_named::<A<SA>>(entity, name).expect("listed").0)
                } else {
                    Named::D(world.get_named::<D<SD>>(entity, name).expect("listed").0)
                };
                (name, value)
            })
            .collect()
    }

    fn mutate(&mut self) {
        let Some(entity) = self.pick() else { return };
        let step = |a: &mut u32| {
            *a = a.wrapping_mul(3).wrapping_add(1);
            *a
        };
        let got = self.world.get_mut::<A<SA>>(entity).map(|a| step(&mut a.0));
        let expected = self
            .model
            .get_mut(&entity)
            .and_then(|e| e.a.as_mut())
            .map(step);
        assert_eq!(got, expected);
    }

    fn check_query(&mut self) {
        match self.rng.index(4) {
            0 => {
                let mut got: Vec<(Entity, u32)> = self
                    .world
                    .query::<(Entity, &A<SA>)>()
                    .map(|(e, a)| (e, a.0))
                    .collect();
                let mut want: Vec<(Entity, u32)> = self
                    .model
                    .iter()
                    .filter_map(|(e, x)| x.a.map(|a| (*e, a)))
                    .collect();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want);
            }
            1 => {
                let got: u64 = self
                    .world
                    .query_filtered::<&A<SA>, (With<B<SB>>, Without<Tag<ST>>)>()
                    .map(|a| a.0 as u64)
                    .sum();
                let want: u64 = self
                    .model
                    .values()
                    .filter(|x| x.b.is_some() && !x.tag)
                    .filter_map(|x| x.a.map(u64::from))
                    .sum();
                assert_eq!(got, want);
            }
            2 => {
                let mut got: Vec<(Entity, Option<String>, [u8; 3])> = self
                    .world
                    .query::<(Entity, Option<&B<SB>>, &D<SD>)>()
                    .map(|(e, b, d)| (e, b.map(|b| b.0.clone()), d.0))
                    .collect();
                let mut want: Vec<(Entity, Option<String>, [u8; 3])> = self
                    .model
                    .iter()
                    .filter_map(|(e, x)| x.d.map(|d| (*e, x.b.clone(), d)))
                    .collect();
                got.sort_unstable_by_key(|x| x.0);
                want.sort_unstable_by_key(|x| x.0);
                assert_eq!(got, want);
            }
            _ => {
                self.world
                    .query_filtered::<&mut A<SA>, With<D<SD>>>()
                    .for_each(|a| a.0 = a.0.wrapping_add(5));
                for x in self.model.values_mut().filter(|x| x.d.is_some()) {
                    if let Some(a) = x.a.as_mut() {
                        *a = a.wrapping_add(5);
                    }
                }
            }
        }
    }

    /// A hierarchy operation: link, unlink, spawn a child or despawn a subtree.
    fn relate(&mut self) {
        let (Some(e), Some(p)) = (self.pick(), self.pick()) else {
            return;
        };
        let live = |h: &Self, x: Entity| h.model.contains_key(&x);
        match self.rng.index(6) {
            0..=2 => {
                let result = self.world.set_parent(e, p);
                if !live(self, e) || !live(self, p) {
                    assert!(matches!(result, Err(EcsError::NoSuchEntity(_))));
                } else if self.links.is_self_or_ancestor(e, p) {
                    assert_eq!(
                        result,
                        Err(EcsError::HierarchyCycle {
                            child: e,
                            parent: p
                        })
                    );
                } else {
                    assert_eq!(result, Ok(()));
                    self.links.set_parent(e, p);
                }
            }
            3 => {
                let result = self.world.remove_parent(e);
                if live(self, e) {
                    assert_eq!(result, Ok(self.links.parent(e)));
                    self.links.unlink(e);
                } else {
                    assert_eq!(result, Err(EcsError::NoSuchEntity(e)));
                }
            }
            4 => {
                let value = self.rng.next_u64() as u32;
                match self.world.spawn_child(p, A::<SA>(value)) {
                    Ok(child) => {
                        let expected = Expected {
                            a: Some(value),
                            ..Expected::default()
                        };
                        assert!(self.model.insert(child, expected).is_none());
                        self.links.set_parent(child, p);
                        self.handles.push(child);
                    }
                    Err(err) => {
                        assert!(!live(self, p));
                        assert_eq!(err, EcsError::NoSuchEntity(p));
                    }
                }
            }
            _ => {
                let result = self.world.despawn_recursive(e);
                if live(self, e) {
                    assert_eq!(result, Ok(()));
                    for gone in self.links.despawn_recursive(e) {
                        assert!(self.model.remove(&gone).is_some());
                    }
                } else {
                    assert_eq!(result, Err(EcsError::NoSuchEntity(e)));
                }
            }
        }
    }

    fn compare_whole_world(&mut self) {
        assert_eq!(self.world.len(), self.model.len());
        let mut seen = HashMap::new();
        for (entity, a, b, tag, d) in self.world.query::<(
            Entity,
            Option<&A<SA>>,
            Option<&B<SB>>,
            Option<&Tag<ST>>,
            Option<&D<SD>>,
        )>() {
            let got = Expected {
                a: a.map(|a| a.0),
                b: b.map(|b| b.0.clone()),
                tag: tag.is_some(),
                d: d.map(|d| d.0),
                named: BTreeMap::new(),
            };
            assert!(
                seen.insert(entity, got).is_none(),
                "{entity:?} yielded twice"
            );
        }
        for (entity, got) in seen.iter_mut() {
            got.named = Self::named_of(&self.world, *entity);
        }
        assert_eq!(seen, self.model);
        self.links.compare(&self.world, self.model.keys().copied());
        // Each named instance of `A` iterates through a run-time query like any component.
        for name in NAMES {
            let id = self.world.instance_id::<A<SA>>(name);
            let query = ecs_core::query::DynQuery::new().read(id);
            let mut got = Vec::new();
            let mut state = self.world.dyn_query(&query).unwrap();
            state.for_each(&self.world, |item| {
                got.push((item.entity(), item.get::<A<SA>>(0).unwrap().0));
            });
            got.sort_unstable();
            let mut want: Vec<(Entity, u32)> = self
                .model
                .iter()
                .filter_map(|(e, x)| match x.named.get(name) {
                    Some(&Named::A(v)) => Some((*e, v)),
                    _ => None,
                })
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "instances {name}");
        }
        for entity in &self.handles {
            assert_eq!(
                self.world.contains(*entity),
                self.model.contains_key(entity)
            );
        }
    }
}
