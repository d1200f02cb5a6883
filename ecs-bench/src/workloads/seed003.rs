//! Seed 003 (jecs thesis, "Implementation of ECS in Scripting"): random access, insertion
//! walking the archetype graph, and queries over 1–4 components in a world with many
//! archetypes. The thesis reports relative results only (Jade vs Matter), so there is no
//! absolute anchor.

use ecs_conformance::kit::Rng;
use ecs_core::{Entity, Storage, World};

use super::{info, sizes, Builtin, InfoExt};
use crate::components::*;
use crate::workload::{prepared, DynWorkload, Prepared, Workload, WorkloadInfo};

/// The shuffle seed of random_access.
pub const SHUFFLE_SEED: u64 = 0x5EED_0003;

/// The seed 003 workloads.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    let mut all: Vec<Box<dyn DynWorkload>> = vec![
        Box::new(RandomAccess(
            info(
                Builtin::RandomAccess,
                "get 3 components in one call per shuffled entity handle (the seed's \
                 `get(e, a, b, c)`); entities spread over 8 archetypes",
                sizes(100_000, 10_000, 200),
                "entities",
            )
            .repeatable()
            .baseline(),
        )),
        Box::new(Insertion(info(
            Builtin::Insertion,
            "add 8 components one at a time to each empty entity (walks the archetype graph)",
            sizes(10_000, 5_000, 100),
            "entities",
        ))),
    ];
    let queries = [
        Builtin::Query1,
        Builtin::Query2,
        Builtin::Query3,
        Builtin::Query4,
    ];
    for (arity, workload) in (1..=4).zip(queries) {
        let description = match arity {
            1 => "one pass of a query over 1 component in a world of 256 archetypes".to_string(),
            _ => format!(
                "one pass of a query over {arity} components in a world of 256 archetypes, \
                 after asking the world once to align `B` with the tables \
                 (`World::align_with_tables`: the hybrid reorders B's sparse set to follow the \
                 tables' rows; the other backends have nothing to align)"
            ),
        };
        all.push(Box::new(ManyArchetypeQuery {
            arity,
            aligned: arity > 1,
            info: info(
                workload,
                description,
                sizes(100_000, 10_000, 256),
                "entities",
            )
            .repeatable(),
        }));
    }
    all.push(Box::new(ManyArchetypeQuery {
        arity: 2,
        aligned: false,
        info: info(
            Builtin::Query2Unaligned,
            "query_2 without the alignment: `B` was added at spawn and the entities then moved \
             between tables, so in the hybrid B's set follows no table and the join looks `B` \
             up row by row (what the alignment saves)",
            sizes(100_000, 10_000, 256),
            "entities",
        )
        .repeatable(),
    }));
    all
}

/// Spawns entity `i` of random_access into one of 8 archetypes: `|bundle| spawn` is expanded
/// once per letter, with `bundle` bound to `(Position, Velocity, Rotation, letter)`, so every
/// runner (ours and the peers) builds the same layout.
macro_rules! spawn_by_archetype {
    ($i:expr, |$bundle:ident| $spawn:expr) => {
        spawn_by_archetype!(@arms $i, $bundle, $spawn,
            [0 => A, 1 => B, 2 => C, 3 => D, 4 => E, 5 => F, 6 => G, 7 => H])
    };
    (@arms $i:expr, $bundle:ident, $spawn:expr, [$($k:literal => $letter:ident),*]) => {
        match $i % 8 {
            $($k => {
                let (p, v, r) = $crate::workloads::seed003::access_bundle($i);
                let $bundle = (p, v, r, $crate::components::$letter(0.0));
                $spawn
            })*
            _ => unreachable!(),
        }
    };
}
// The peers build their random_access worlds with it too.
#[cfg_attr(not(feature = "peers"), allow(unused_imports))]
pub(crate) use spawn_by_archetype;

/// The (Position, Velocity, Rotation) of random_access's entity `i`.
pub(crate) fn access_bundle(i: usize) -> (Position, Velocity, Rotation) {
    let x = i as f32;
    (
        Position([x, 0.0, 0.0]),
        Velocity([0.0, x * 0.5, 0.0]),
        Rotation([0.0, 0.0, x * 0.25]),
    )
}

/// The order random_access visits entities in: spawn indices, shuffled with [`SHUFFLE_SEED`].
pub(crate) fn shuffled_order(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    Rng::new(SHUFFLE_SEED).shuffle(&mut order);
    order
}

/// What random_access adds to its sum for one entity.
#[inline]
pub(crate) fn access_term(p: &Position, v: &Velocity, r: &Rotation) -> f64 {
    f64::from(p.0[0] + v.0[1] + r.0[2])
}

/// random_access's checksum of one pass's sum over `n` entities.
pub(crate) fn access_checksum(sum: f64, n: usize) -> u64 {
    mix(sum.to_bits() ^ n as u64)
}

/// `random_access`.
pub struct RandomAccess(WorkloadInfo);

struct AccessState<W> {
    store: W,
    handles: Vec<Entity>,
    sum: f64,
}

impl Workload for RandomAccess {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    // `St`, not `S`: the letter component `S` is in scope.
    /// One `get` per entity on a `QueryView` made once per pass: the entity is found once for
    /// its three components (the seed's multi-component `get`), each table's columns once
    /// per pass. Every peer uses its own equivalent (hecs `View`, bevy `Query::get`,
    /// shipyard's view tuple).
    fn prepare<St: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<St>::new();
        let entities: Vec<Entity> = (0..n)
            .map(|i| spawn_by_archetype!(i, |bundle| world.spawn(bundle)))
            .collect();
        let handles = shuffled_order(n).into_iter().map(|i| entities[i]).collect();
        let get = world
            .query_state::<(&Position, &Velocity, &Rotation), ()>()
            .expect("no aliasing");
        prepared(
            AccessState {
                store: (world, get),
                handles,
                sum: 0.0,
            },
            |s| {
                let (world, get) = &mut s.store;
                let view = get.view(world);
                let mut sum = 0.0f64;
                for &e in &s.handles {
                    let (p, v, r) = view.get(e).expect("has all three");
                    sum += access_term(p, v, r);
                }
                s.sum = sum;
            },
            |s| access_checksum(s.sum, s.handles.len()),
        )
    }

    fn prepare_baseline(&self, n: usize) -> Option<Box<dyn Prepared>> {
        let columns: (Vec<Position>, Vec<Velocity>, Vec<Rotation>) = (
            (0..n).map(|i| access_bundle(i).0).collect(),
            (0..n).map(|i| access_bundle(i).1).collect(),
            (0..n).map(|i| access_bundle(i).2).collect(),
        );
        Some(prepared(
            AccessState {
                store: columns,
                handles: Vec::new(),
                sum: 0.0,
            },
            {
                let order = shuffled_order(n);
                move |s| {
                    let mut sum = 0.0f64;
                    for &i in &order {
                        let (p, v, r) = (&s.store.0[i], &s.store.1[i], &s.store.2[i]);
                        sum += access_term(p, v, r);
                    }
                    s.sum = sum;
                }
            },
            move |s| access_checksum(s.sum, n),
        ))
    }
}

/// `insertion`.
pub struct Insertion(WorkloadInfo);

struct InsertionState<St: Storage> {
    world: World<St>,
    entities: Vec<Entity>,
}

impl Workload for Insertion {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<St: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<St>::new();
        let entities = (0..n).map(|_| world.spawn(())).collect();
        prepared(
            InsertionState { world, entities },
            |s| {
                for (i, &e) in s.entities.iter().enumerate() {
                    let x = i as f32;
                    let w = &mut s.world;
                    w.insert(e, A(x)).expect("live");
                    w.insert(e, B(x)).expect("live");
                    w.insert(e, C(x)).expect("live");
                    w.insert(e, D(x)).expect("live");
                    w.insert(e, E(x)).expect("live");
                    w.insert(e, F(x)).expect("live");
                    w.insert(e, G(x)).expect("live");
                    w.insert(e, H(x)).expect("live");
                }
            },
            |s| {
                let mut digest = Digest::default();
                type All<'a> = (&'a A, &'a B, &'a C, &'a D, &'a E, &'a F, &'a G, &'a H);
                let count = s
                    .world
                    .query::<All>()
                    .fold(0, |n, (a, b, c, d, e, f, g, h)| {
                        digest.add_f32s(&[a.0, b.0, c.0, d.0, e.0, f.0, g.0, h.0]);
                        n + 1
                    });
                digest.finish(count)
            },
        )
    }
}

/// `query_1` … `query_4` and `query_2_unaligned`: every entity has A, B, C and D, plus one of the 256 subsets of the
/// eight letters E..L, so the queried components are spread over 256 archetypes.
/// `aligned`: the world is asked once, after it is built, to align `B` with the tables.
pub struct ManyArchetypeQuery {
    arity: usize,
    aligned: bool,
    info: WorkloadInfo,
}

/// The archetypes of query_1..4: entity `i` gets the extras of mask `i % QUERY_MASKS`.
pub(crate) const QUERY_MASKS: usize = 256;

/// The (A, B, C, D) every query_1..4 entity `i` is spawned with.
pub(crate) fn query_base(i: usize) -> (A, B, C, D) {
    let x = (i % 97) as f32 * 0.01;
    (A(x), B(x + 1.0), C(0.5), D(x * 0.5))
}

/// Inserts the extra letters (E..L) of a query_1..4 entity, one insert per letter:
/// `|letter| insert` is expanded once per letter, run when the letter's bit is in `mask`,
/// with `letter` bound to its value, so every runner (ours and the peers) builds the same
/// 256 archetypes.
macro_rules! insert_extras {
    ($mask:expr, |$letter:ident| $insert:expr) => {{
        let mask: usize = $mask;
        let x = mask as f32;
        insert_extras!(@bits mask, x, $letter, $insert,
            [0 => E, 1 => F, 2 => G, 3 => H, 4 => I, 5 => J, 6 => K, 7 => L]);
    }};
    (@bits $mask:ident, $x:ident, $letter:ident, $insert:expr,
        [$($bit:literal => $name:ident),*]) => {$(
        if $mask & (1 << $bit) != 0 {
            let $letter = $crate::components::$name($x);
            $insert;
        }
    )*};
}
#[cfg_attr(not(feature = "peers"), allow(unused_imports))]
pub(crate) use insert_extras;

/// What query_1..4 do to each matched entity's `A`, given its `B`, `C` and `D` (as many as
/// the arity reads); every runner calls these.
pub(crate) mod query_step {
    /// query_1.
    #[inline(always)]
    pub(crate) fn one(a: &mut f32) {
        *a += 1.0;
    }
    /// query_2.
    #[inline(always)]
    pub(crate) fn two(a: &mut f32, b: f32) {
        *a += b;
    }
    /// query_3.
    #[inline(always)]
    pub(crate) fn three(a: &mut f32, b: f32, c: f32) {
        *a += b * c;
    }
    /// query_4.
    #[inline(always)]
    pub(crate) fn four(a: &mut f32, b: f32, c: f32, d: f32) {
        *a += b * c - d;
    }
}

/// query_1..4's checksum: the `A` values left, with their count.
pub(crate) fn query_checksum(a_values: impl Iterator<Item = f32>) -> u64 {
    let mut digest = Digest::default();
    let count = a_values.fold(0, |n, a| {
        digest.add_f32s(&[a]);
        n + 1
    });
    digest.finish(count)
}

fn query_pass<St: Storage>(world: &mut World<St>, arity: usize) {
    use query_step::*;
    match arity {
        1 => world.query::<&mut A>().for_each(|a| one(&mut a.0)),
        2 => world
            .query::<(&mut A, &B)>()
            .for_each(|(a, b)| two(&mut a.0, b.0)),
        3 => world
            .query::<(&mut A, &B, &C)>()
            .for_each(|(a, b, c)| three(&mut a.0, b.0, c.0)),
        _ => world
            .query::<(&mut A, &B, &C, &D)>()
            .for_each(|(a, b, c, d)| four(&mut a.0, b.0, c.0, d.0)),
    }
}

impl Workload for ManyArchetypeQuery {
    fn info(&self) -> &WorkloadInfo {
        &self.info
    }

    fn prepare<St: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<St>::new();
        for i in 0..n {
            let e = world.spawn(query_base(i));
            insert_extras!(i % QUERY_MASKS, |letter| world
                .insert(e, letter)
                .expect("live entity"));
        }
        if self.aligned {
            world.align_with_tables::<B>();
        }
        let arity = self.arity;
        prepared(
            world,
            move |world| query_pass(world, arity),
            |world| query_checksum(world.query::<&A>().map(|a| a.0)),
        )
    }
}
