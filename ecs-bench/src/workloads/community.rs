//! The community-standard set: the shapes of ecs_bench_suite (simple_insert, simple_iter,
//! fragmented_iter, heavy_compute, add_remove, schedule; serialize lives with the snapshot
//! workloads).

use ecs_core::{BatchSize, Entity, Query, Storage, World};
use rayon::prelude::*;

use super::matrix::{invert, transform_vector3};
use super::{info, sizes, Builtin, InfoExt};
use crate::components::*;
use crate::workload::{prepared, DynWorkload, Prepared, Workload, WorkloadInfo};

/// The community workloads.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    vec![
        Box::new(SimpleInsert(
            info(
                Builtin::SimpleInsert,
                "new world, spawn entities with (Transform, Position, Rotation, Velocity)",
                sizes(10_000, 10_000, 200),
                "entities",
            )
            .baseline(),
        )),
        Box::new(SimpleIter(
            info(
                Builtin::SimpleIter,
                "one pass of (&Velocity, &mut Position), pos += vel",
                sizes(10_000, 10_000, 200),
                "entities",
            )
            .repeatable()
            .baseline(),
            Pass::Sequential,
        )),
        Box::new(SimpleIter(
            info(
                Builtin::SimpleIterGrouped,
                "simple_iter with an owning group over (Velocity, Position) (sparse backend only)",
                sizes(10_000, 10_000, 200),
                "entities",
            )
            .repeatable()
            .baseline()
            .only_on(&["sparse"]),
            Pass::Grouped,
        )),
        Box::new(SimpleIter(
            info(
                Builtin::SmallIterSeq,
                "simple_iter over a few hundred entities, sequential for_each",
                sizes(300, 300, 50),
                "entities",
            )
            .repeatable()
            .baseline(),
            Pass::Sequential,
        )),
        Box::new(SimpleIter(
            info(
                Builtin::SmallIterPar,
                "simple_iter over a few hundred entities through par_for_each (default batching)",
                sizes(300, 300, 50),
                "entities",
            )
            .repeatable()
            .baseline()
            .note("compare with small_iter_seq: par_for_each must not be slower on small queries"),
            Pass::Parallel,
        )),
        Box::new(FragmentedIter(
            info(
                Builtin::FragmentedIter,
                "26 letter types × n entities with (letter, Data); one pass of &mut Data, ×2",
                sizes(20, 20, 4),
                "entities per letter",
            )
            .repeatable()
            .baseline(),
        )),
        Box::new(HeavyCompute(
            info(
                Builtin::HeavyCompute,
                "in parallel (par_for_each), invert each entity's 4×4 Transform 100 times",
                sizes(1_000, 1_000, 16),
                "entities",
            )
            .repeatable()
            .baseline()
            .note(
                "backends: `par_for_each_batched(BatchSize::Measured)` over the query; \
                 baseline: rayon `par_iter_mut` over a `Vec`",
            ),
        )),
        Box::new(AddRemove(
            info(
                Builtin::AddRemove,
                "entities with A; add B to every one, then remove B from every one",
                sizes(10_000, 10_000, 200),
                "entities",
            )
            .repeatable(),
            Hook::None,
        )),
        Box::new(AddRemove(
            info(
                Builtin::AddRemoveHooked,
                "add_remove in a world where another component type has a hook",
                sizes(10_000, 10_000, 200),
                "entities",
            )
            .repeatable()
            .note(
                "a hook on one type must not slow other types' operations: compare with add_remove",
            ),
            Hook::Elsewhere,
        )),
        Box::new(Schedule(
            info(
                Builtin::Schedule,
                "a Schedule of three systems swapping (A,B), (C,D), (C,E) over 4 groups of n \
                 entities",
                sizes(10_000, 10_000, 100),
                "entities per group",
            )
            .repeatable()
            .baseline()
            .note(
                "backends: `ecs_core::Schedule` (ab beside cd, ce once cd is done); baseline: \
                 the same three loops, ab on the calling thread beside cd then ce on a rayon \
                 task (`rayon::in_place_scope`)",
            ),
        )),
    ]
}

pub(crate) fn insert_bundle(i: usize) -> (Transform, Position, Rotation, Velocity) {
    let x = i as f32;
    (
        Transform::rotation_x(1.2, [x, 0.0, 0.0]),
        Position([x, 1.0, 0.0]),
        Rotation([0.0, 0.0, x * 0.5]),
        Velocity([1.0, 0.5, (i % 7) as f32]),
    )
}

pub(crate) fn position_digest(positions: impl Iterator<Item = [f32; 3]>) -> u64 {
    let mut digest = Digest::default();
    let mut count = 0;
    for p in positions {
        digest.add_f32s(&p);
        count += 1;
    }
    digest.finish(count)
}

fn world_positions<S: Storage>(world: &mut World<S>) -> u64 {
    let mut digest = Digest::default();
    let count = world.query::<&Position>().fold(0, |n, p| {
        digest.add_f32s(&p.0);
        n + 1
    });
    digest.finish(count)
}

/// `simple_insert`.
pub struct SimpleInsert(WorkloadInfo);

impl Workload for SimpleInsert {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        prepared(
            None::<World<S>>,
            move |slot| {
                let mut world = World::<S>::new();
                world.spawn_batch((0..n).map(insert_bundle));
                *slot = Some(world);
            },
            |slot| slot.as_mut().map_or(0, world_positions),
        )
    }

    fn prepare_baseline(&self, n: usize) -> Option<Box<dyn Prepared>> {
        type Columns = (Vec<Transform>, Vec<Position>, Vec<Rotation>, Vec<Velocity>);
        Some(prepared(
            None::<Columns>,
            move |slot| {
                let mut columns: Columns = (
                    Vec::with_capacity(n),
                    Vec::with_capacity(n),
                    Vec::with_capacity(n),
                    Vec::with_capacity(n),
                );
                for (t, p, r, v) in (0..n).map(insert_bundle) {
                    columns.0.push(t);
                    columns.1.push(p);
                    columns.2.push(r);
                    columns.3.push(v);
                }
                *slot = Some(columns);
            },
            |slot| {
                let positions = slot.as_ref().map(|c| c.1.clone()).unwrap_or_default();
                position_digest(positions.into_iter().map(|p| p.0))
            },
        ))
    }
}

/// `simple_iter` and its variants.
pub struct SimpleIter(WorkloadInfo, Pass);

/// How a [`SimpleIter`] variant runs its pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// `for_each`.
    Sequential,
    /// `par_for_each` with default batching.
    Parallel,
    /// `for_each` in a world with an owning group over the two components (only on
    /// backends that have groups).
    Grouped,
}

impl Workload for SimpleIter {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<S>::new();
        if self.1 == Pass::Grouped {
            world
                .group::<(Velocity, Position)>()
                .expect("the grouped variant runs only on backends with groups");
        }
        world.spawn_batch((0..n).map(insert_bundle));
        let step = |(v, p): (&Velocity, &mut Position)| {
            p.0[0] += v.0[0];
            p.0[1] += v.0[1];
            p.0[2] += v.0[2];
        };
        if self.1 == Pass::Parallel {
            prepared(
                world,
                move |world| {
                    world
                        .query::<(&Velocity, &mut Position)>()
                        .par_for_each(step)
                },
                world_positions,
            )
        } else {
            prepared(
                world,
                move |world| world.query::<(&Velocity, &mut Position)>().for_each(step),
                world_positions,
            )
        }
    }

    fn prepare_baseline(&self, n: usize) -> Option<Box<dyn Prepared>> {
        let (velocities, positions): (Vec<Velocity>, Vec<Position>) =
            (0..n).map(insert_bundle).map(|(_, p, _, v)| (v, p)).unzip();
        Some(prepared(
            (velocities, positions),
            |(velocities, positions)| {
                for (v, p) in velocities.iter().zip(positions.iter_mut()) {
                    p.0[0] += v.0[0];
                    p.0[1] += v.0[1];
                    p.0[2] += v.0[2];
                }
            },
            |(_, positions)| position_digest(positions.iter().map(|p| p.0)),
        ))
    }
}

/// `fragmented_iter`.
pub struct FragmentedIter(WorkloadInfo);

macro_rules! spawn_letters {
    ($world:expr, $n:expr, $($letter:ident),*) => {
        $( $world.spawn_batch((0..$n).map(|_| ($letter(0.0), Data(1.0)))); )*
    };
}

pub(crate) fn data_digest(values: impl Iterator<Item = f32>) -> u64 {
    let mut digest = Digest::default();
    let mut count = 0;
    for v in values {
        digest.add_f32s(&[v]);
        count += 1;
    }
    digest.finish(count)
}

impl Workload for FragmentedIter {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    // `St`, not `S`: the letter component `S` is spawned below.
    fn prepare<St: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<St>::new();
        spawn_letters!(
            world, n, A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z
        );
        prepared(
            world,
            |world| world.query::<&mut Data>().for_each(|d| d.0 *= 2.0),
            |world| {
                let values: Vec<f32> = world.query::<&Data>().map(|d| d.0).collect();
                data_digest(values.into_iter())
            },
        )
    }

    fn prepare_baseline(&self, n: usize) -> Option<Box<dyn Prepared>> {
        Some(prepared(
            vec![Data(1.0); 26 * n],
            |data| data.iter_mut().for_each(|d| d.0 *= 2.0),
            |data| data_digest(data.iter().map(|d| d.0)),
        ))
    }
}

/// `heavy_compute`.
pub struct HeavyCompute(WorkloadInfo);

/// heavy_compute's per-entity work, shared by every runner.
#[inline]
pub(crate) fn heavy_body(position: &mut Position, transform: &mut Transform) {
    for _ in 0..100 {
        transform.0 = invert(&transform.0);
    }
    position.0 = transform_vector3(&transform.0, position.0);
}

pub(crate) fn heavy_digest<'a>(items: impl Iterator<Item = (&'a Position, &'a Transform)>) -> u64 {
    let mut digest = Digest::default();
    let mut count = 0;
    for (p, t) in items {
        digest.add(hash_f32s(&p.0) ^ mix(hash_f32s(&t.0)));
        count += 1;
    }
    digest.finish(count)
}

impl Workload for HeavyCompute {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<S>::new();
        world.spawn_batch((0..n).map(insert_bundle));
        prepared(
            world,
            |world| {
                // 100 inversions per row: heavy enough that even 1,000 rows are worth
                // splitting, so the batch size comes from timing the first rows.
                world
                    .query::<(&mut Position, &mut Transform)>()
                    .par_for_each_batched(BatchSize::Measured, |(p, t)| heavy_body(p, t));
            },
            |world| {
                let items: Vec<(Position, Transform)> = world
                    .query::<(&Position, &Transform)>()
                    .map(|(p, t)| (*p, *t))
                    .collect();
                heavy_digest(items.iter().map(|(p, t)| (p, t)))
            },
        )
    }

    fn prepare_baseline(&self, n: usize) -> Option<Box<dyn Prepared>> {
        let items: Vec<(Position, Transform)> = (0..n)
            .map(insert_bundle)
            .map(|(t, p, _, _)| (p, t))
            .collect();
        Some(prepared(
            items,
            |items| items.par_iter_mut().for_each(|(p, t)| heavy_body(p, t)),
            |items| heavy_digest(items.iter().map(|(p, t)| (p, t))),
        ))
    }
}

/// `add_remove`, and `add_remove_hooked` (the same with a hook on an unrelated type).
pub struct AddRemove(WorkloadInfo, Hook);

/// Whether [`AddRemove`]'s world has a lifecycle hook, and where.
#[derive(Clone, Copy)]
pub enum Hook {
    /// No hook: nothing in the world reacts.
    None,
    /// An `on_add` hook on [`Elsewhere`], a type the workload never adds: every operation
    /// of the body runs in a world where something reacts, on types that do not.
    Elsewhere,
}

/// The component `add_remove_hooked` gives a hook and never adds.
#[derive(Clone, Copy, Debug)]
pub struct Elsewhere;
impl ecs_core::Component for Elsewhere {
    type Mutability = ecs_core::Mutable;
}

/// `add_remove_hooked`'s hook: never called (nothing gets an [`Elsewhere`]).
fn never_called(_: ecs_core::world::HookWorld<'_>, _: ecs_core::component::HookContext) {
    unreachable!("add_remove_hooked adds no Elsewhere")
}

/// add_remove's checksum: the removed values, the number of runs, and the entities left
/// with `A` and without `B`.
pub(crate) fn add_remove_checksum(removed: Digest, runs: usize, without_b: usize) -> u64 {
    mix(removed.finish(runs) ^ without_b as u64)
}

struct AddRemoveState<S: Storage> {
    world: World<S>,
    entities: Vec<Entity>,
    removed: Digest,
    runs: usize,
}

impl Workload for AddRemove {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<S>::new();
        if let Hook::Elsewhere = self.1 {
            world
                .set_hook::<Elsewhere>(ecs_core::component::Lifecycle::Add, never_called)
                .expect("a plain component takes hooks");
        }
        let entities = world.spawn_batch((0..n).map(|i| (A(i as f32),))).to_vec();
        prepared(
            AddRemoveState {
                world,
                entities,
                removed: Digest::default(),
                runs: 0,
            },
            |s| {
                for &e in &s.entities {
                    s.world.insert(e, B(1.0)).expect("live entity");
                }
                for &e in &s.entities {
                    let b = s.world.remove::<B>(e).expect("B was just added");
                    s.removed.add(u64::from(b.0.to_bits()));
                }
                s.runs += 1;
            },
            |s| {
                let without_b = s.world.query_filtered::<&A, ecs_core::Without<B>>().count();
                add_remove_checksum(s.removed, s.runs, without_b)
            },
        )
    }
}

/// `schedule`: the three systems of ecs_bench_suite on an [`ecs_core::Schedule`]. `ab`
/// writes (A, B) and `cd` writes (C, D), so they share the first wave and run in parallel;
/// `ce` writes C and E, conflicts with `cd` and runs in the second wave: it starts as soon
/// as `cd` is done (possibly while `ab` still runs).
pub struct Schedule(WorkloadInfo);

pub(crate) fn value(i: usize, k: usize) -> f32 {
    (i * 4 + k) as f32
}

fn system_ab<S: Storage>(mut q: Query<'_, '_, (&mut A, &mut B), (), S>) {
    q.for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}

fn system_cd<S: Storage>(mut q: Query<'_, '_, (&mut C, &mut D), (), S>) {
    q.for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
}

fn system_ce<S: Storage>(mut q: Query<'_, '_, (&mut C, &mut E), (), S>) {
    q.for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
}

/// The three systems, in ecs_bench_suite's order, on a schedule initialised for `world`.
fn build_schedule<S: Storage>(world: &mut World<S>) -> ecs_core::Schedule<S> {
    let mut schedule = ecs_core::Schedule::<S>::new();
    schedule.add_system(system_ab::<S>);
    schedule.add_system(system_cd::<S>);
    schedule.add_system(system_ce::<S>);
    schedule
        .initialize(world)
        .expect("the schedule's systems do not conflict internally");
    schedule
}

/// One entity's letters A..E (absent ones as `None`), hashed.
pub(crate) fn schedule_item_hash(values: [Option<f32>; 5]) -> u64 {
    values.iter().fold(0, |h, v| {
        mix(h ^ v.map_or(u64::MAX, |x| u64::from(x.to_bits())))
    })
}

/// One schedule entity's letters, as [`schedule_digest`] takes them: its A and B values and
/// its C, D and E where it has them.
pub(crate) fn letters(
    a: f32,
    b: f32,
    c: Option<&C>,
    d: Option<&D>,
    e: Option<&E>,
) -> [Option<f32>; 5] {
    [
        Some(a),
        Some(b),
        c.map(|c| c.0),
        d.map(|d| d.0),
        e.map(|e| e.0),
    ]
}

/// The schedule checksum: every entity's [`letters`], hashed, with their count.
pub(crate) fn schedule_digest(entities: impl Iterator<Item = [Option<f32>; 5]>) -> u64 {
    let mut digest = Digest::default();
    let count = entities.fold(0, |count, values| {
        digest.add(schedule_item_hash(values));
        count + 1
    });
    digest.finish(count)
}

/// The baseline's four groups, struct-of-arrays: (A, B), (A, B, C), (A, B, C, D), (A, B, C, E).
#[derive(Default)]
struct Groups {
    ab: [Vec<f32>; 2],
    abc: [Vec<f32>; 3],
    abcd: [Vec<f32>; 4],
    abce: [Vec<f32>; 4],
}

fn swap_columns(x: &mut [f32], y: &mut [f32]) {
    for (a, b) in x.iter_mut().zip(y.iter_mut()) {
        std::mem::swap(a, b);
    }
}

impl Workload for Schedule {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<S>::new();
        world.spawn_batch((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)))));
        world.spawn_batch((0..n).map(|i| (A(value(i, 0)), B(value(i, 1)), C(value(i, 2)))));
        world.spawn_batch((0..n).map(|i| {
            (
                A(value(i, 0)),
                B(value(i, 1)),
                C(value(i, 2)),
                D(value(i, 3)),
            )
        }));
        world.spawn_batch((0..n).map(|i| {
            (
                A(value(i, 0)),
                B(value(i, 1)),
                C(value(i, 2)),
                E(value(i, 3)),
            )
        }));
        let schedule = build_schedule(&mut world);
        prepared(
            (world, schedule),
            |(world, schedule)| schedule.run(world),
            |(world, _)| {
                type Letters<'a> = (&'a A, &'a B, Option<&'a C>, Option<&'a D>, Option<&'a E>);
                schedule_digest(
                    world
                        .query::<Letters>()
                        .map(|(a, b, c, d, e)| letters(a.0, b.0, c, d, e)),
                )
            },
        )
    }

    fn prepare_baseline(&self, n: usize) -> Option<Box<dyn Prepared>> {
        let column = |k: usize| (0..n).map(|i| value(i, k)).collect::<Vec<f32>>();
        let groups = Groups {
            ab: [column(0), column(1)],
            abc: [column(0), column(1), column(2)],
            abcd: [column(0), column(1), column(2), column(3)],
            abce: [column(0), column(1), column(2), column(3)],
        };
        Some(prepared(
            groups,
            |g| {
                // As the schedule runs them: ab (every group) on this thread, beside cd
                // then ce on a rayon task (ce only waits for cd).
                let [a0, b0] = &mut g.ab;
                let [a1, b1, _] = &mut g.abc;
                let [a2, b2, c2, d2] = &mut g.abcd;
                let [a3, b3, c3, e3] = &mut g.abce;
                rayon::in_place_scope(|scope| {
                    scope.spawn(|_| {
                        swap_columns(c2, d2);
                        swap_columns(c3, e3);
                    });
                    swap_columns(a0, b0);
                    swap_columns(a1, b1);
                    swap_columns(a2, b2);
                    swap_columns(a3, b3);
                });
            },
            |g| {
                let mut digest = Digest::default();
                let mut count = 0;
                let mut add = |values: [Option<f32>; 5]| {
                    digest.add(schedule_item_hash(values));
                    count += 1;
                };
                for i in 0..g.ab[0].len() {
                    add([Some(g.ab[0][i]), Some(g.ab[1][i]), None, None, None]);
                    let abc = &g.abc;
                    add([
                        Some(abc[0][i]),
                        Some(abc[1][i]),
                        Some(abc[2][i]),
                        None,
                        None,
                    ]);
                    let x = &g.abcd;
                    add([
                        Some(x[0][i]),
                        Some(x[1][i]),
                        Some(x[2][i]),
                        Some(x[3][i]),
                        None,
                    ]);
                    let y = &g.abce;
                    add([
                        Some(y[0][i]),
                        Some(y[1][i]),
                        Some(y[2][i]),
                        None,
                        Some(y[3][i]),
                    ]);
                }
                digest.finish(count)
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_runs_ab_beside_cd_then_ce() {
        let mut world = World::<ecs_core::testing::VecStorage>::new();
        let mut schedule = build_schedule(&mut world);
        let waves: Vec<Vec<usize>> = schedule
            .waves()
            .unwrap()
            .iter()
            .map(|wave| wave.iter().map(|id| id.index()).collect())
            .collect();
        assert_eq!(waves, vec![vec![0, 1], vec![2]]);
    }
}
