//! Systems, the parallel schedule, commands and resources, on every backend.
//!
//! Each test is a generic `fn name<S: Storage>()`; [`suite!`](crate::suite) runs it on a
//! backend.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::prelude::*;
use ecs_core::storage::Storage;

#[derive(Debug, Clone, Copy, PartialEq)]
struct A(f32);
impl Component for A {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, Clone, Copy, PartialEq)]
struct B(f32);
impl Component for B {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, Clone, Copy, PartialEq)]
struct C(f32);
impl Component for C {
    type Mutability = ecs_core::Tracked;
}
#[derive(Debug, Clone, Copy, PartialEq)]
struct D(f32);
impl Component for D {
    type Mutability = ecs_core::Mutable;
}
#[derive(Debug, Clone, Copy, PartialEq)]
struct E(f32);
impl Component for E {
    type Mutability = ecs_core::Mutable;
}

#[derive(Debug, Default, PartialEq)]
struct Frame(u32);
#[derive(Debug, Default, PartialEq)]
struct Stats {
    changed_c: u32,
    sum_b: f32,
}

fn swap_ab<S: Storage>(mut q: Query<'_, '_, (&mut A, &mut B), (), S>) {
    q.for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}
fn swap_cd<S: Storage>(mut q: Query<'_, '_, (Mut<C>, &mut D), (), S>) {
    q.for_each(|(mut c, d)| {
        if d.0 > c.0 {
            std::mem::swap(&mut c.0, &mut d.0);
        }
    });
}
fn add_ce<S: Storage>(mut q: Query<'_, '_, (Mut<C>, &E), (), S>, frame: Res<Frame>) {
    q.for_each(|(mut c, e)| c.0 += e.0 * frame.0 as f32);
}
fn count_changed_c<S: Storage>(q: Query<'_, '_, &C, Changed<C>, S>, mut stats: ResMut<Stats>) {
    stats.changed_c += q.iter().count() as u32;
}
fn sum_b<S: Storage>(q: Query<'_, '_, &B, (), S>, mut stats: ResMut<Stats>) {
    stats.sum_b = q.iter().map(|b| b.0).sum();
}
fn spawn_from_e<S: Storage>(q: Query<'_, '_, (Entity, &E), Without<D>, S>, mut commands: Commands) {
    for (entity, e) in q.iter() {
        if e.0 > 3.0 {
            commands.insert(entity, (D(0.0),));
            commands.spawn((A(e.0), B(-e.0)));
        }
    }
}
fn tick(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

/// A world with overlapping component sets (the community `schedule` shape, plus a tracked C).
fn populated<S: Storage>() -> World<S> {
    let n = if cfg!(miri) { 6 } else { 300 };
    let mut world = World::<S>::new();
    world.insert_resource(Frame(1));
    world.insert_resource(Stats::default());
    let f = |i: usize, k: usize| (i * 5 + k) as f32 * 0.5;
    world.spawn_batch((0..n).map(|i| (A(f(i, 0)), B(f(i, 1)))));
    world.spawn_batch((0..n).map(|i| (A(f(i, 0)), B(f(i, 1)), C(f(i, 2)))));
    world.spawn_batch((0..n).map(|i| (A(f(i, 0)), B(f(i, 1)), C(f(i, 2)), D(f(i, 3)))));
    world.spawn_batch((0..n).map(|i| (A(f(i, 0)), C(f(i, 2)), E(f(i % 9, 4)))));
    world
}

fn schedule<S: Storage>() -> Schedule<S> {
    let mut s = Schedule::<S>::new();
    s.add_system(swap_ab::<S>);
    s.add_system(swap_cd::<S>);
    s.add_system(count_changed_c::<S>);
    s.add_system(add_ce::<S>);
    s.add_system(sum_b::<S>);
    s.add_system(spawn_from_e::<S>);
    s.add_system(tick);
    s
}

/// Every entity's components, as comparable values (handles differ between runs when
/// parallel systems reserve ids in another order).
type Row = (Option<A>, Option<B>, Option<C>, Option<D>, Option<E>);
fn snapshot<S: Storage>(world: &mut World<S>) -> Vec<String> {
    let mut rows: Vec<String> = world
        .query::<(Option<&A>, Option<&B>, Option<&C>, Option<&D>, Option<&E>)>()
        .map(|(a, b, c, d, e)| -> Row {
            (a.copied(), b.copied(), c.copied(), d.copied(), e.copied())
        })
        .map(|row| format!("{row:?}"))
        .collect();
    rows.sort();
    rows
}

/// A schedule run in parallel leaves the same components and resources, frame after frame, as
/// the same schedule run sequentially: parallelism must never change a program's results.
pub fn parallel_schedule_equals_sequential<S: Storage>() {
    let frames = if cfg!(miri) { 2 } else { 6 };
    let (mut par_world, mut seq_world) = (populated::<S>(), populated::<S>());
    let mut par = schedule::<S>();
    let mut seq = schedule::<S>();
    seq.set_parallel(false);
    for _ in 0..frames {
        par.run(&mut par_world);
        seq.run(&mut seq_world);
    }
    assert_eq!(par_world.len(), seq_world.len());
    assert_eq!(snapshot(&mut par_world), snapshot(&mut seq_world));
    assert_eq!(par_world.resource::<Stats>(), seq_world.resource::<Stats>());
    assert_eq!(par_world.resource::<Frame>(), seq_world.resource::<Frame>());
    assert!(par_world.resource::<Stats>().unwrap().changed_c > 0);
}

/// The schedule groups systems into waves from the components and resources their parameters
/// read and write, so systems with disjoint access share a wave and conflicting ones are ordered.
pub fn waves_come_from_parameter_types<S: Storage>() {
    let mut world = populated::<S>();
    let mut s = schedule::<S>();
    s.initialize(&mut world).unwrap();
    let id = |name: &str| s.id_of(name).unwrap_or_else(|| panic!("{name}"));
    let (ab, cd, count, ce, sum, spawn, tick) = (
        id("swap_ab"),
        id("swap_cd"),
        id("count_changed_c"),
        id("add_ce"),
        id("sum_b"),
        id("spawn_from_e"),
        id("tick"),
    );
    let waves = s.waves().unwrap();
    let wave_of = |x| waves.iter().position(|w| w.contains(&x)).unwrap();
    // swap_ab (w A, B) and swap_cd (w C, D) are disjoint; spawn_from_e reads E only.
    assert_eq!(wave_of(ab), 0);
    assert_eq!(wave_of(cd), 0);
    assert_eq!(wave_of(spawn), 0);
    // count_changed_c watches C, which swap_cd writes: after it.
    assert_eq!(wave_of(count), 1);
    // add_ce writes C after the watcher; sum_b reads B (swap_ab) and writes Stats (count).
    assert_eq!(wave_of(ce), 2);
    assert_eq!(wave_of(sum), 2);
    // tick writes Frame, which add_ce reads.
    assert_eq!(wave_of(tick), 3);
    assert_eq!(waves.len(), 4);
}

/// Commands queued by systems are not visible during the run and are all applied at its end,
/// and `World::apply` is the same sync point outside a schedule.
pub fn commands_apply_at_the_sync_point<S: Storage>() {
    #[derive(Default)]
    struct Spawned(Vec<Entity>);
    fn spawner(mut commands: Commands, mut spawned: ResMut<Spawned>) {
        if spawned.0.is_empty() {
            let e = commands.spawn((A(1.0),));
            commands.insert(e, (B(2.0),));
            commands.insert_resource(Frame(42));
            spawned.0.push(e);
        }
    }
    fn counter<S: Storage>(q: Query<'_, '_, &A, (), S>, mut stats: ResMut<Stats>) {
        stats.sum_b = q.iter().count() as f32;
    }
    fn despawner<S: Storage>(q: Query<'_, '_, Entity, With<B>, S>, mut commands: Commands) {
        for e in q.iter() {
            commands.despawn(e);
        }
    }
    let mut world = World::<S>::new();
    world.insert_resource(Spawned::default());
    world.insert_resource(Stats::default());
    let mut s = Schedule::<S>::new();
    s.add_system(spawner);
    s.add_system(counter::<S>);
    s.run(&mut world);
    assert_eq!(
        world.resource::<Stats>().unwrap().sum_b,
        0.0,
        "not visible during the run"
    );
    let e = world.resource::<Spawned>().unwrap().0[0];
    assert_eq!(
        world.get::<B>(e),
        Some(&B(2.0)),
        "applied at the end of the run"
    );
    assert_eq!(world.resource::<Frame>(), Some(&Frame(42)));
    s.run(&mut world);
    assert_eq!(world.resource::<Stats>().unwrap().sum_b, 1.0);

    let despawn_id = s.add_system(despawner::<S>);
    s.run(&mut world);
    assert!(!world.contains(e));
    s.disable(despawn_id);

    // The explicit sync point outside a schedule.
    let mut queue = CommandQueue::new();
    let reserved = Commands::new(&mut queue, &world).spawn((A(0.0),));
    let direct = world.spawn((A(1.0),)); // flushes the reservation first
    world.apply(&mut queue);
    assert!(world.has::<A>(reserved) && world.has::<A>(direct));
}

/// `Option<Res<T>>` and `Option<ResMut<T>>` see a resource only once it exists, and a system
/// requiring a missing resource panics with the resource's name.
pub fn resources_as_parameters<S: Storage>() {
    fn read_opt(frame: Option<Res<Frame>>, mut stats: ResMut<Stats>) {
        stats.changed_c = frame.map_or(0, |f| f.0);
    }
    fn bump(frame: Option<ResMut<Frame>>) {
        if let Some(mut f) = frame {
            f.0 += 10;
        }
    }
    let mut world = World::<S>::new();
    world.insert_resource(Stats::default());
    let mut s = Schedule::<S>::new();
    s.add_system(read_opt);
    s.add_system(bump);
    s.run(&mut world);
    assert_eq!(world.resource::<Stats>().unwrap().changed_c, 0);
    world.insert_resource(Frame(1));
    s.run(&mut world);
    s.run(&mut world);
    assert_eq!(world.resource::<Stats>().unwrap().changed_c, 11);
    assert_eq!(world.resource::<Frame>(), Some(&Frame(21)));

    // A required resource that is missing makes the system panic with its name.
    let mut strict = Schedule::<S>::new();
    strict.add_system(tick);
    world.remove_resource::<Frame>();
    let err = catch_unwind(AssertUnwindSafe(|| strict.run(&mut world))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("Frame"), "{msg}");
}

/// A system whose own parameters alias, a mutable and a shared query on one component or `Res`
/// and `ResMut` of one resource, is refused with an error naming it; two shared reads are fine.
pub fn conflicting_parameters_are_rejected<S: Storage>() {
    fn aliasing<S: Storage>(_: Query<'_, '_, &mut A, (), S>, _: Query<'_, '_, &A, (), S>) {}
    fn res_twice(_: Res<Frame>, _: ResMut<Frame>) {}
    fn fine<S: Storage>(_: Query<'_, '_, &A, (), S>, _: Query<'_, '_, &A, With<B>, S>) {}
    fn expect_conflict<S: Storage, M>(system: impl IntoSystem<S, M>, name: &str) {
        let mut world = World::<S>::new();
        let mut s = Schedule::<S>::new();
        s.add_system(system);
        match s.try_run(&mut world) {
            Err(EcsError::SystemConflict { system, reason }) => {
                assert!(system.contains(name), "{system}: {reason}");
            }
            other => panic!("{name}: expected a conflict, got {other:?}"),
        }
    }
    expect_conflict(aliasing::<S>, "aliasing");
    expect_conflict::<S, _>(res_twice, "res_twice");
    let mut world = World::<S>::new();
    let mut s = Schedule::<S>::new();
    s.add_system(fine::<S>);
    s.try_run(&mut world).unwrap();
}

/// A system added under a name can be found by it, and a disabled system does not run until it
/// is enabled again.
pub fn disable_and_enable_by_name_and_id<S: Storage>() {
    let mut world = World::<S>::new();
    world.insert_resource(Frame(0));
    let mut s = Schedule::<S>::new();
    let id = s.add_named_system("clock", tick);
    assert_eq!(s.id_of("clock"), Some(id));
    assert_eq!(s.name(id), "clock");
    s.run(&mut world);
    s.disable(s.id_of("clock").unwrap());
    assert!(!s.is_enabled(id));
    s.run(&mut world);
    s.enable(id);
    s.run(&mut world);
    assert_eq!(world.resource::<Frame>(), Some(&Frame(2)));
    assert_eq!(s.len(), 1);
    assert!(s.id_of("nope").is_none());
}

/// When a system panics, the other systems' commands are applied, the panicking system's are
/// discarded, its completed writes stand, and the world stays usable.
pub fn panicking_system_leaves_world_consistent<S: Storage>() {
    fn spawn_one(mut commands: Commands) {
        commands.spawn((A(1.0),));
    }
    fn spawn_then_panic<S: Storage>(mut q: Query<'_, '_, &mut B, (), S>, mut commands: Commands) {
        commands.spawn((B(5.0),));
        q.for_each(|b| b.0 = 9.0);
        panic!("boom");
    }
    let mut world = World::<S>::new();
    world.spawn((B(0.0),));
    let mut s = Schedule::<S>::new();
    s.add_system(spawn_one);
    s.add_system(spawn_then_panic::<S>);
    let result = catch_unwind(AssertUnwindSafe(|| s.run(&mut world)));
    assert!(result.is_err());
    // The healthy system's commands applied; the panicking one's discarded, its reserved
    // entity gone; its completed writes stand.
    assert_eq!(world.query::<&A>().count(), 1);
    assert_eq!(
        world.query::<&B>().map(|b| b.0).collect::<Vec<_>>(),
        vec![9.0]
    );
    assert_eq!(world.len(), 2);
    // The world and the schedule still work.
    world.spawn((A(0.0),));
    assert_eq!(world.query::<&A>().count(), 2);
}

/// `par_for_each` and `par_for_each_batched` inside systems give the same results as the
/// sequential loops.
pub fn par_for_each_in_systems<S: Storage>() {
    fn heavy<S: Storage>(mut q: Query<'_, '_, (&mut A, &B), (), S>) {
        q.par_for_each(|(a, b)| {
            for _ in 0..10 {
                a.0 = (a.0 * 0.5 + b.0).sqrt();
            }
        });
    }
    fn batched<S: Storage>(mut q: Query<'_, '_, Mut<C>, (), S>) {
        q.par_for_each_batched(BatchSize::Rows(3), |mut c| c.0 += 1.0);
    }
    let mut par_world = populated::<S>();
    let mut seq_world = populated::<S>();
    let mut s = Schedule::<S>::new();
    s.add_system(heavy::<S>);
    s.add_system(batched::<S>);
    s.run(&mut par_world);
    seq_world.query::<(&mut A, &B)>().for_each(|(a, b)| {
        for _ in 0..10 {
            a.0 = (a.0 * 0.5 + b.0).sqrt();
        }
    });
    seq_world.query::<Mut<C>>().for_each(|mut c| c.0 += 1.0);
    assert_eq!(snapshot(&mut par_world), snapshot(&mut seq_world));
}

/// Parallel iteration under every batch policy visits each row exactly once across tables, and
/// on a partly consumed iterator it visits only the rows left.
pub fn par_for_each_visits_every_row_once<S: Storage>() {
    use ecs_core::query::par::PARALLEL_MIN_ROWS;
    // Two tables (archetype) / two driving sets, more rows than `Auto` keeps sequential.
    let n = PARALLEL_MIN_ROWS / 2 + if cfg!(miri) { 8 } else { 3_000 };
    let mut world = World::<S>::new();
    world.spawn_batch((0..n).map(|i| (A(i as f32), B(0.0))));
    world.spawn_batch((0..n).map(|i| (A((n + i) as f32),)));
    let policies = [
        BatchSize::Auto,
        BatchSize::Measured,
        BatchSize::Rows(if cfg!(miri) { 512 } else { 7 }),
    ];
    for batch in policies {
        world
            .query::<&mut A>()
            .par_for_each_batched(batch, |a| a.0 += 0.25);
    }
    // A partly consumed iterator hands out only what is left.
    let mut iter = world.query::<&mut A>();
    let first = iter.next().map(|a| {
        a.0 += 100.0;
        a.0
    });
    iter.par_for_each(|a| a.0 += 1.0);
    let mut values: Vec<f32> = world.query::<&A>().map(|a| a.0).collect();
    values.sort_by(f32::total_cmp);
    let mut expected: Vec<f32> = (0..2 * n).map(|i| i as f32 + 1.75).collect();
    let moved = expected
        .iter()
        .position(|&v| Some(v + 99.0) == first)
        .expect("the first item was one of them");
    expected[moved] += 99.0;
    expected.sort_by(f32::total_cmp);
    assert_eq!(values, expected);
}

/// A system waits only for the systems it conflicts with, not for a whole earlier wave: a chain
/// of two systems runs to its end while a long system of the first wave is still running.
pub fn a_chain_runs_beside_a_long_system<S: Storage>() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    /// Set by `last`; `long` waits for it.
    #[derive(Default)]
    struct Signal(AtomicBool);
    // `long` (wave 0) waits until `last` (wave 1, after `first`) has run. Waves as barriers
    // would make `last` wait for `long`, and `long` would time out.
    fn long<S: Storage>(_q: Query<'_, '_, &mut A, (), S>, signal: Res<Signal>) {
        let start = Instant::now();
        while !signal.0.load(Ordering::Acquire) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "`last` did not run while `long` was running"
            );
            std::thread::yield_now();
        }
    }
    fn first<S: Storage>(mut q: Query<'_, '_, &mut D, (), S>) {
        q.for_each(|d| d.0 += 1.0);
    }
    fn last<S: Storage>(mut q: Query<'_, '_, &mut D, (), S>, signal: Res<Signal>) {
        q.for_each(|d| d.0 *= 2.0);
        signal.0.store(true, Ordering::Release);
    }
    let mut world = World::<S>::new();
    world.insert_resource(Signal::default());
    world.spawn((A(0.0), D(1.0)));
    let mut s = Schedule::<S>::new();
    let ids = [
        s.add_system(long::<S>),
        s.add_system(first::<S>),
        s.add_system(last::<S>),
    ];
    s.initialize(&mut world).unwrap();
    assert_eq!(s.waves().unwrap(), vec![vec![ids[0], ids[1]], vec![ids[2]]]);
    s.run(&mut world);
    // `last` ran after `first`, as their conflict demands.
    assert_eq!(world.query::<&D>().next().map(|d| d.0), Some(4.0));
}

/// A panicking system skips the systems that wait for it, directly or through others, while
/// independent systems still run, in parallel and sequential schedules alike.
pub fn a_panic_skips_exactly_the_systems_waiting_for_it<S: Storage>() {
    fn boom<S: Storage>(_q: Query<'_, '_, &mut A, (), S>) {
        panic!("boom");
    }
    fn after_boom<S: Storage>(mut q: Query<'_, '_, &mut A, (), S>) {
        q.for_each(|a| a.0 = -1.0);
    }
    fn after_after<S: Storage>(mut q: Query<'_, '_, (&A, &mut D), (), S>) {
        q.for_each(|(_, d)| d.0 = -1.0);
    }
    fn beside<S: Storage>(mut q: Query<'_, '_, &mut B, (), S>) {
        q.for_each(|b| b.0 += 1.0);
    }
    fn after_beside<S: Storage>(mut q: Query<'_, '_, &mut B, (), S>) {
        q.for_each(|b| b.0 *= 10.0);
    }
    for parallel in [true, false] {
        for _ in 0..if parallel { 20 } else { 1 } {
            let mut world = World::<S>::new();
            world.spawn((A(1.0), B(1.0), D(1.0)));
            let mut s = Schedule::<S>::new();
            s.set_parallel(parallel);
            s.add_system(boom::<S>);
            s.add_system(beside::<S>);
            s.add_system(after_boom::<S>);
            s.add_system(after_beside::<S>);
            s.add_system(after_after::<S>);
            let result = catch_unwind(AssertUnwindSafe(|| s.run(&mut world)));
            assert!(result.is_err(), "the panic resumes after the sync point");
            // `after_boom` waits for `boom` (A) and `after_after` for `after_boom` (A):
            // skipped. `beside` and `after_beside` (B) wait for nothing that failed: ran.
            let row = world
                .query::<(&A, &B, &D)>()
                .next()
                .map(|(a, b, d)| (a.0, b.0, d.0));
            assert_eq!(row, Some((1.0, 20.0, 1.0)), "parallel: {parallel}");
        }
    }
}

/// A hand-written system: sums `A` through a query state it owns, declaring that read. Its
/// `unsafe impl` is the promise the schedule relies on to run it beside other systems.
struct SumA<S: Storage> {
    state: Option<QueryState<&'static A, (), S>>,
    access: ecs_core::system::SystemAccess,
    sums: Vec<f32>,
    sink: std::sync::Arc<std::sync::Mutex<Vec<f32>>>,
}

// SAFETY: `access` records the query state's access (a read of `A`), the only thing
// `run_unsafe` touches; it is set once, by the `initialize` that makes `state`, and the
// state's own world check makes a run on another world panic before touching it.
unsafe impl<S: Storage> System<S> for SumA<S> {
    fn name(&self) -> &str {
        "sum_a"
    }
    fn initialize(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        if self.state.is_none() {
            let state = world.query_state::<&A, ()>()?;
            let mut access = ecs_core::system::SystemAccess::default();
            access
                .add_query(state.access(), world.components())
                .map_err(|reason| EcsError::SystemConflict {
                    system: "sum_a".into(),
                    reason,
                })?;
            self.access = access;
            self.state = Some(state);
        }
        Ok(())
    }
    fn is_initialized(&self) -> bool {
        self.state.is_some()
    }
    fn access(&self) -> &ecs_core::system::SystemAccess {
        &self.access
    }
    unsafe fn run_unsafe(&mut self, world: &World<S>) {
        let state = self.state.as_mut().expect("initialised");
        // SAFETY: the caller guarantees nothing writes `A` (our declared read) during the
        // call, and the world's structure does not change.
        let sum = unsafe { state.iter_unchecked(world) }.map(|a| a.0).sum();
        self.sums.push(sum);
    }
    fn apply(&mut self, _: &mut World<S>) {
        self.sink.lock().unwrap().extend(self.sums.drain(..));
    }
    fn discard(&mut self, _: &mut World<S>) {
        self.sums.clear();
    }
}

fn double_a<S: Storage>(mut q: Query<'_, '_, &mut A, (), S>) {
    q.for_each(|a| a.0 *= 2.0);
}
fn read_b<S: Storage>(q: Query<'_, '_, &B, (), S>, mut stats: ResMut<Stats>) {
    stats.sum_b = q.iter().map(|b| b.0).sum();
}

/// A hand-written system that reads `A` waits for the function system writing it: its
/// declared access orders it, and under Miri the two never race. Every frame it sees the
/// values of that frame's writes.
pub fn hand_written_systems_are_ordered_by_their_declared_access<S: Storage>() {
    let n = if cfg!(miri) { 4 } else { 200 };
    let mut world = World::<S>::new();
    world.insert_resource(Stats::default());
    world.spawn_batch((0..n).map(|i| (A(1.0), B(i as f32))));
    let sink = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut s = Schedule::<S>::new();
    s.add_system(double_a::<S>);
    s.add_system(SumA::<S> {
        state: None,
        access: Default::default(),
        sums: Vec::new(),
        sink: sink.clone(),
    });
    s.add_system(read_b::<S>);
    s.initialize(&mut world).unwrap();
    let waves = s.waves().unwrap();
    assert_eq!(
        waves.len(),
        2,
        "sum_a waits for double_a; read_b runs beside: {waves:?}"
    );
    let frames = if cfg!(miri) { 2 } else { 5 };
    for _ in 0..frames {
        s.run(&mut world);
    }
    // Exact integers (Miri makes `powi` imprecise on purpose).
    let want: Vec<f32> = (1..=frames).map(|f| (n << f) as f32).collect();
    assert_eq!(*sink.lock().unwrap(), want);
}

/// A function system initialised for one world panics, before touching anything, when run
/// on another: its access names the first world's component ids.
pub fn a_system_refuses_a_world_it_was_not_initialised_for<S: Storage>() {
    let mut first = World::<S>::new();
    first.spawn((A(1.0),));
    let mut second = World::<S>::new();
    second.spawn((B(1.0), A(3.0)));
    let mut system = double_a::<S>.into_system();
    system.run(&mut first).unwrap();
    let err = catch_unwind(AssertUnwindSafe(|| system.run(&mut second))).unwrap_err();
    let message = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(message.contains("initialised for"), "{message}");
    assert_eq!(second.query::<&A>().map(|a| a.0).sum::<f32>(), 3.0);
    assert_eq!(first.query::<&A>().map(|a| a.0).sum::<f32>(), 2.0);
}

#[derive(Default)]
struct Trace(Vec<&'static str>);

fn trace_a(mut t: ResMut<Trace>) {
    t.0.push("a");
}
fn trace_b(mut t: ResMut<Trace>) {
    t.0.push("b");
}
fn trace_c(mut t: ResMut<Trace>) {
    t.0.push("c");
}
fn trace_d(mut t: ResMut<Trace>) {
    t.0.push("d");
}

/// What one run of `schedule` on `world` traces.
fn traced<S: Storage>(schedule: &mut Schedule<S>, world: &mut World<S>) -> Vec<&'static str> {
    world.insert_resource(Trace::default());
    schedule.run(world);
    std::mem::take(&mut world.resource_mut::<Trace>().unwrap().0)
}

/// `before`/`after` between systems and sets reorder systems; everything else keeps
/// insertion order.
pub fn ordering_constraints_and_sets<S: Storage>() {
    let mut w = World::<S>::new();
    let mut s = Schedule::<S>::new();
    let a = s.add_system(trace_a);
    let b = s.add_system(trace_b);
    let c = s.add_system(trace_c);
    let d = s.add_system(trace_d);
    assert_eq!(traced(&mut s, &mut w), ["a", "b", "c", "d"]);
    s.configure(a).after(c);
    assert_eq!(traced(&mut s, &mut w), ["b", "c", "a", "d"]);
    s.configure(b).in_set("late");
    s.configure(d).in_set("late");
    s.configure_set("late").after(a);
    assert_eq!(traced(&mut s, &mut w), ["c", "a", "b", "d"]);
    s.configure_set("late").before("early");
    s.configure(c).in_set("early");
    s.configure(a).before(b);
    // c after late, late after a, a after c: a cycle.
    assert!(matches!(
        s.try_run(&mut w),
        Err(EcsError::ScheduleCycle { .. })
    ));
    let mut w = World::<S>::new();
    let mut s = Schedule::<S>::new();
    let a = s.add_system(trace_a);
    let b = s.add_system(trace_b);
    s.configure(b).before(a);
    assert_eq!(traced(&mut s, &mut w), ["b", "a"]);
    // A disabled system's constraints go with it.
    s.disable(b);
    assert_eq!(traced(&mut s, &mut w), ["a"]);
}

/// A cycle of ordering constraints is an error that names the systems in it, and no system
/// runs.
pub fn a_cycle_is_an_error_naming_its_systems<S: Storage>() {
    let mut s = Schedule::<S>::new();
    let a = s.add_system(trace_a);
    let b = s.add_system(trace_b);
    let c = s.add_system(trace_c);
    s.configure(a).before(b);
    s.configure(b).before(c);
    s.configure(c).before(a);
    let mut world = World::<S>::new();
    world.insert_resource(Trace::default());
    let err = s.try_run(&mut world).unwrap_err();
    let EcsError::ScheduleCycle { systems } = &err else {
        panic!("{err}")
    };
    let short: Vec<&str> = systems
        .iter()
        .map(|n| n.rsplit("::").next().unwrap())
        .collect();
    assert_eq!(short, ["trace_a", "trace_b", "trace_c"]);
    assert!(err.to_string().contains("trace_c runs before"), "{err}");
    assert!(
        world.resource::<Trace>().unwrap().0.is_empty(),
        "nothing ran"
    );
}

#[derive(Default)]
struct Paused(bool);

/// A run condition on a system or a set skips only those systems; a system ordered after them
/// still runs.
pub fn run_conditions_skip_systems_not_their_dependents<S: Storage>() {
    let mut s = Schedule::<S>::new();
    let a = s.add_system(trace_a);
    let b = s.add_system(trace_b);
    let c = s.add_system(trace_c);
    s.configure(a)
        .run_if(|w: &World<S>| !w.resource::<Paused>().is_some_and(|p| p.0));
    s.configure(b).in_set("sim");
    s.configure_set("sim")
        .run_if(|w: &World<S>| !w.resource::<Paused>().is_some_and(|p| p.0));
    s.configure(c).after(a).after(b);
    let mut world = World::<S>::new();
    world.insert_resource(Trace::default());
    world.insert_resource(Paused(false));
    s.run(&mut world);
    world.insert_resource(Paused(true));
    s.run(&mut world);
    assert_eq!(world.resource::<Trace>().unwrap().0, ["a", "b", "c", "c"]);
}

fn count_runs(mut runs: Local<u32>, mut total: ResMut<Frame>) {
    *runs += 1;
    total.0 += *runs;
}

/// Each copy of a system added twice keeps its own `Local` state across runs.
pub fn locals_are_per_system<S: Storage>() {
    let mut world = World::<S>::new();
    world.insert_resource(Frame(0));
    let mut s = Schedule::<S>::new();
    s.add_system(count_runs);
    s.add_system(count_runs);
    for _ in 0..3 {
        s.run(&mut world);
    }
    // Each copy counts its own runs: 2 * (1 + 2 + 3).
    assert_eq!(world.resource::<Frame>().unwrap().0, 12);
}

fn spawn_a(mut commands: Commands, mut t: ResMut<Trace>) {
    commands.spawn((A(1.0),));
    t.0.push("spawn");
}

/// A system taking `&mut World` runs in a wave of its own, after the commands of the systems
/// before it are applied, and the systems after it see its changes.
pub fn exclusive_systems_run_alone_between_sync_points<S: Storage>() {
    fn census<S: Storage>(world: &mut World<S>) {
        // The commands of the systems before have been applied.
        let n = world.query::<&A>().count();
        world.spawn((B(n as f32),));
        world.resource_mut::<Trace>().unwrap().0.push("census");
    }
    fn read_b<S: Storage>(q: Query<'_, '_, &B, (), S>, mut t: ResMut<Trace>) {
        if q.iter().next().is_some() {
            t.0.push("saw b");
        }
    }
    let mut world = World::<S>::new();
    world.insert_resource(Trace::default());
    let mut s = Schedule::<S>::new();
    s.add_system(spawn_a);
    let x = s.add_system(census::<S>);
    s.add_system(read_b::<S>);
    s.add_system(trace_a);
    s.initialize(&mut world).unwrap();
    let waves = s.waves().unwrap();
    assert_eq!(waves.iter().position(|w| w.contains(&x)), Some(1));
    assert_eq!(
        waves[1],
        vec![x],
        "an exclusive system has a wave to itself"
    );
    s.run(&mut world);
    assert_eq!(
        world.resource::<Trace>().unwrap().0,
        ["spawn", "census", "saw b", "a"]
    );
    assert_eq!(world.query::<&B>().next().map(|b| b.0), Some(1.0));
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Child(Entity);
impl Component for Child {
    type Mutability = ecs_core::Mutable;
}

type Everyone<S> = Query<'static, 'static, (Entity, &'static A), (), S>;
type Children<S> = Query<'static, 'static, (&'static mut A, &'static Child), (), S>;

/// A child's `A` follows its parent's: two queries on `A`, one writing, used one at a time.
fn follow_parent<S: Storage>(mut set: ParamSet<(Everyone<S>, Children<S>), S>) {
    let parents: Vec<(Entity, f32)> = set.p0().iter().map(|(e, a)| (e, a.0)).collect();
    set.p1().for_each(|(a, child)| {
        if let Some(&(_, value)) = parents.iter().find(|(e, _)| *e == child.0) {
            a.0 = value;
        }
    });
}

/// A `ParamSet` lets one system hold two conflicting queries and use them one at a time, while
/// the same two queries as plain parameters are refused with an error naming `ParamSet`.
pub fn param_sets_hold_conflicting_queries<S: Storage>() {
    let mut world = World::<S>::new();
    let parent = world.spawn((A(7.0),));
    let child = world.spawn((A(0.0), Child(parent)));
    let mut s = Schedule::<S>::new();
    s.add_system(follow_parent::<S>);
    s.run(&mut world);
    assert_eq!(world.get::<A>(child), Some(&A(7.0)));
    // Without a set, the same two queries are refused (children are among everyone).
    fn both<S: Storage>(
        _: Query<'_, '_, (Entity, &A), (), S>,
        _: Query<'_, '_, (&mut A, &Child), (), S>,
    ) {
    }
    let mut s = Schedule::<S>::new();
    s.add_system(both::<S>);
    let err = s.try_run(&mut world).unwrap_err();
    assert!(err.to_string().contains("ParamSet"), "{err}");
}

/// Writes the children's A, reads the parents' A: `With`/`Without<Child>` keep them apart.
fn copy_to_children<S: Storage>(
    mut children: Query<'_, '_, &mut A, With<Child>, S>,
    parents: Query<'_, '_, &A, Without<Child>, S>,
) {
    let first = parents.iter().next().map_or(0.0, |a| a.0);
    children.for_each(|a| a.0 = first);
}
fn read_parents<S: Storage>(q: Query<'_, '_, &A, Without<Child>, S>, mut f: ResMut<Frame>) {
    f.0 = q.iter().count() as u32;
}

/// Queries kept apart by `With` and `Without` of one component do not conflict, so a system
/// writing one side runs beside a system reading the other.
pub fn disjoint_filters_do_not_conflict<S: Storage>() {
    let mut world = World::<S>::new();
    world.insert_resource(Frame(0));
    let parent = world.spawn((A(3.0),));
    let child = world.spawn((A(0.0), Child(parent)));
    let mut s = Schedule::<S>::new();
    let copy = s.add_system(copy_to_children::<S>);
    let read = s.add_system(read_parents::<S>);
    s.initialize(&mut world).unwrap();
    assert_eq!(
        s.waves().unwrap(),
        vec![vec![copy, read]],
        "they run side by side"
    );
    s.run(&mut world);
    assert_eq!(world.get::<A>(child), Some(&A(3.0)));
    assert_eq!(world.resource::<Frame>().unwrap().0, 1);
}

struct Ping(u32);

/// Each event reader sees each event exactly once, in the run it was sent if the reader runs
/// after the sender and one run later otherwise, and older events are dropped.
pub fn events_reach_each_reader_once<S: Storage>() {
    #[derive(Default)]
    struct Seen(Vec<(&'static str, u32)>);
    fn early(mut pings: EventReader<Ping>, mut seen: ResMut<Seen>) {
        seen.0.extend(pings.read().map(|p| ("early", p.0)));
    }
    fn send(mut out: EventWriter<Ping>, mut f: ResMut<Frame>) {
        f.0 += 1;
        out.send(Ping(f.0));
    }
    fn late(mut pings: EventReader<Ping>, mut seen: ResMut<Seen>) {
        seen.0.extend(pings.read().map(|p| ("late", p.0)));
    }
    let mut world = World::<S>::new();
    world.add_event::<Ping>();
    world.insert_resource(Frame(0));
    world.insert_resource(Seen::default());
    let mut s = Schedule::<S>::new();
    s.add_system(early);
    s.add_system(send);
    s.add_system(late);
    for _ in 0..3 {
        s.run(&mut world);
    }
    let seen = &world.resource::<Seen>().unwrap().0;
    // `late` sees each ping in the run it was sent, `early` one run later; nobody twice.
    assert_eq!(
        *seen,
        [
            ("late", 1),
            ("early", 1),
            ("late", 2),
            ("early", 2),
            ("late", 3)
        ]
    );
    assert_eq!(
        world.resource::<Events<Ping>>().unwrap().len(),
        1,
        "older pings dropped"
    );
}

/// `try_run` reports every missing resource and parameter conflict of the schedule in one
/// error, instead of stopping at the first.
pub fn try_run_reports_every_problem<S: Storage>() {
    struct Missing;
    fn needs(_: Res<Missing>) {}
    fn needs_mut(_: ResMut<Missing>) {}
    fn conflicting<S: Storage>(_: Query<'_, '_, &mut A, (), S>, _: Query<'_, '_, &A, (), S>) {}
    let mut world = World::<S>::new();
    let mut s = Schedule::<S>::new();
    s.add_system(needs);
    s.add_system(needs_mut);
    let err = s.try_run(&mut world).unwrap_err();
    let EcsError::Many(errors) = &err else {
        panic!("{err}")
    };
    assert_eq!(errors.len(), 2);
    assert!(
        errors
            .iter()
            .all(|e| matches!(e, EcsError::MissingResource { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("needs_mut"), "{err}");
    world.insert_resource(Missing);
    s.try_run(&mut world).unwrap();
    s.add_system(conflicting::<S>);
    assert!(matches!(
        s.try_run(&mut world),
        Err(EcsError::SystemConflict { .. })
    ));

    // A conflict and a missing resource in one schedule: both reported by one call.
    let mut world = World::<S>::new();
    let mut s = Schedule::<S>::new();
    s.add_system(conflicting::<S>);
    s.add_system(needs);
    let err = s.try_run(&mut world).unwrap_err();
    let EcsError::Many(errors) = &err else {
        panic!("expected both problems, got {err}")
    };
    assert_eq!(errors.len(), 2, "{err}");
    assert!(errors
        .iter()
        .any(|e| matches!(e, EcsError::SystemConflict { .. })));
    assert!(errors
        .iter()
        .any(|e| matches!(e, EcsError::MissingResource { .. })));
}

#[derive(Component)]
struct Doomed;

/// A command that does nothing when applied is not silent: it is counted, `run` hands it to
/// the error handler, `try_run` returns it with the system that queued it, and
/// `World::apply` returns it directly. Each kind of skip says why.
pub fn skipped_commands_reach_the_error_channel<S: Storage>() {
    use ecs_core::commands::{CommandQueue, Commands, SkippedCommand};
    use ecs_core::schedule::{errors, RunErrorKind};

    fn reap<S: Storage>(doomed: Query<Entity, With<Doomed>, S>, mut commands: Commands) {
        for e in doomed.iter() {
            commands.despawn(e);
            commands.insert(e, A(1.0));
        }
    }
    let mut world = World::<S>::new();
    let doomed = world.spawn(Doomed);
    let mut schedule = Schedule::<S>::new();
    schedule.add_named_system("first", reap::<S>);
    schedule.add_named_system("second", reap::<S>);
    schedule.set_error_handler(errors::ignore_error);
    schedule.run(&mut world);
    assert!(!world.contains(doomed));
    // "first": its insert after its own despawn; "second": both of its commands.
    assert_eq!(schedule.error_count(), 3);

    world.spawn(Doomed);
    let err = schedule.try_run(&mut world).unwrap_err();
    let EcsError::Run(problems) = err else {
        panic!("{err}")
    };
    let seen: Vec<(&str, &str)> = problems
        .iter()
        .map(|p| match &p.kind {
            RunErrorKind::Command(c) => (p.system.as_str(), c.command),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("first", "insert"),
            ("second", "despawn"),
            ("second", "insert")
        ]
    );
    assert_eq!(schedule.error_count(), 6);
    schedule.set_error_handler(errors::panic_on_error);
    world.spawn(Doomed);
    let panicked = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(
        panicked.is_err(),
        "the panicking handler panics after the run"
    );
    assert!(
        world.query::<&Doomed>().next().is_none(),
        "the run itself went through"
    );

    // Outside a schedule, `World::apply` says what each skipped command would have said.
    let (parent, child) = (world.spawn(A(0.0)), world.spawn(()));
    world.set_parent(child, parent).unwrap();
    let mut queue = CommandQueue::new();
    let mut commands = Commands::new(&mut queue, &world);
    commands.remove::<(A, B)>(parent);
    commands.set_parent(parent, child);
    commands.remove_parent(doomed);
    commands.despawn_recursive(doomed);
    let skipped: Vec<SkippedCommand> = world.apply(&mut queue);
    let kinds: Vec<(&str, bool)> = skipped
        .iter()
        .map(|s| {
            let why = match &s.error {
                EcsError::MissingComponent { .. } => s.command == "remove",
                EcsError::HierarchyCycle { .. } => s.command == "set_parent",
                EcsError::NoSuchEntity(e) => *e == doomed,
                _ => false,
            };
            (s.command, why)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("remove", true),
            ("set_parent", true),
            ("remove_parent", true),
            ("despawn_recursive", true)
        ]
    );
    assert!(world.has::<A>(parent), "the failed remove removed nothing");
}

/// `Schedule::build` finds, in one `Result`, every problem that would keep the schedule from
/// running, and runs nothing: a cycle, a system ordered before itself, a constraint naming a
/// set no system is in, a set configured with no system, a system whose own parameters
/// conflict, a missing resource and a missing event.
pub fn build_reports_every_problem_before_any_system_runs<S: Storage>() {
    struct Missing;
    #[derive(Debug)]
    struct Ping;
    #[derive(Default)]
    struct Ran(u32);
    fn needs(_: Res<Missing>, mut ran: ResMut<Ran>) {
        ran.0 += 1;
    }
    fn reads_pings(mut pings: EventReader<Ping>) {
        pings.read().for_each(drop);
    }
    fn conflicting<S: Storage>(_: Query<'_, '_, &mut A, (), S>, _: Query<'_, '_, &A, (), S>) {}
    fn tick(mut ran: ResMut<Ran>) {
        ran.0 += 1;
    }
    let mut world = World::<S>::new();
    world.insert_resource(Ran::default());
    let mut s = Schedule::<S>::new();
    let a = s.add_system(needs);
    let b = s.add_system(reads_pings);
    s.add_system(conflicting::<S>);
    let c = s.add_system(tick);
    let d = s.add_system(|mut ran: ResMut<Ran>| ran.0 += 1);
    s.configure(c).before(d);
    s.configure(d).before(c); // a cycle
    s.configure(b).before(b); // itself
    s.configure(a).after("physics"); // no system is in "physics"
    s.configure_set("render").before("ui"); // neither set has a system
    let err = s.build(&mut world).unwrap_err();
    let EcsError::Many(problems) = &err else {
        panic!("{err}")
    };
    let count = |f: fn(&EcsError) -> bool| problems.iter().filter(|e| f(e)).count();
    assert_eq!(
        count(|e| matches!(e, EcsError::MissingResource { .. })),
        2,
        "{err}"
    );
    assert_eq!(
        count(|e| matches!(e, EcsError::SystemConflict { .. })),
        1,
        "{err}"
    );
    assert_eq!(
        count(|e| matches!(e, EcsError::ScheduleCycle { .. })),
        1,
        "{err}"
    );
    // b before b; a after "physics"; set "render" before "ui"; "render" has no system.
    assert_eq!(
        count(|e| matches!(e, EcsError::ScheduleConstraint { .. })),
        4,
        "{err}"
    );
    assert!(
        err.to_string().contains("closure at "),
        "closures are named by place: {err}"
    );
    assert_eq!(world.resource::<Ran>().unwrap().0, 0, "nothing ran");
    assert!(
        s.try_run(&mut world).is_err(),
        "try_run checks the same before running"
    );
    assert_eq!(world.resource::<Ran>().unwrap().0, 0);
}

/// Systems added as a tuple run in the order given where they conflict; `.chain()` orders
/// each before the next even where they do not; closures are named where they were added.
pub fn tuples_chain_and_closure_names<S: Storage>() {
    #[derive(Default)]
    struct Log(Vec<&'static str>);
    struct Other;
    fn first(mut log: ResMut<Log>) {
        log.0.push("first");
    }
    fn second(mut log: ResMut<Log>) {
        log.0.push("second");
    }
    fn unrelated(_: Res<Other>) {}
    let mut world = World::<S>::new();
    world.insert_resource(Log::default());
    world.insert_resource(Other);
    let mut s = Schedule::<S>::new();
    let ids = s.add_systems((second, unrelated, first).chain());
    let more = s.add_systems((|mut log: ResMut<Log>| log.0.push("closure"), unrelated));
    s.run(&mut world);
    assert_eq!(
        world.resource::<Log>().unwrap().0,
        ["second", "first", "closure"]
    );
    // `unrelated` conflicts with nothing, yet the chain put it after `second`.
    let waves = s.waves().unwrap();
    let wave_of = |id| waves.iter().position(|w| w.contains(&id)).unwrap();
    assert!(wave_of(ids[0]) < wave_of(ids[1]) && wave_of(ids[1]) < wave_of(ids[2]));
    assert!(
        s.name(more[0])
            .starts_with(&format!("closure at {}:", file!())),
        "{}",
        s.name(more[0])
    );
    assert!(s.name(ids[0]).ends_with("second"), "{}", s.name(ids[0]));
}

/// An error a system of [`systems_that_fail_report_their_errors`] returns.
#[derive(Debug, PartialEq)]
struct OutOfAmmo(u32);

impl std::fmt::Display for OutOfAmmo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "out of ammo after {} shots", self.0)
    }
}

impl std::error::Error for OutOfAmmo {}

/// A system may return `Result` and use `?`: its error reaches the schedule's error
/// channel after its commands are applied (they are not lost), with the system's name, in
/// parallel and in sequence; the other systems run; `run` counts it and hands it to the
/// handler, `try_run` returns it, the original error can be downcast, and a system run on
/// its own returns it from `System::run`.
pub fn systems_that_fail_report_their_errors<S: Storage>() {
    use ecs_core::commands::Commands;
    use ecs_core::schedule::{errors, RunErrorKind};
    use ecs_core::system::{IntoSystem, System};

    fn shoot_on<S: Storage>(
        shots: Query<&A, (), S>,
        mut commands: Commands,
    ) -> Result<(), OutOfAmmo> {
        let fired = shots.iter().count() as u32;
        commands.spawn((B(fired as f32),));
        if fired > 1 {
            return Err(OutOfAmmo(fired));
        }
        Ok(())
    }
    fn parse(frame: Res<Frame>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let n: u32 = format!("{}x", frame.0).parse()?;
        let _ = n;
        Ok(())
    }
    fn count(mut frame: ResMut<Frame>) {
        frame.0 += 1;
    }
    for parallel in [true, false] {
        let mut world = World::<S>::new();
        world.insert_resource(Frame(0));
        world.spawn((A(1.0),));
        world.spawn((A(2.0),));
        let mut schedule = Schedule::<S>::new();
        schedule.set_parallel(parallel);
        schedule.add_named_system("shoot", shoot_on::<S>);
        schedule.add_named_system("parse", parse);
        schedule.add_named_system("count", count);
        schedule.set_error_handler(errors::ignore_error);
        schedule.run(&mut world);
        assert_eq!(schedule.error_count(), 2, "both failures counted");
        assert_eq!(world.resource::<Frame>().unwrap().0, 1, "the others ran");
        assert_eq!(
            world.query::<&B>().count(),
            1,
            "a failed system's commands apply"
        );

        let EcsError::Run(mut problems) = schedule.try_run(&mut world).unwrap_err() else {
            panic!("a run error")
        };
        problems.sort_by(|a, b| a.system.cmp(&b.system));
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].system, "parse");
        let RunErrorKind::Failed(failure) = &problems[1].kind else {
            panic!("{:?}", problems[1])
        };
        assert_eq!(problems[1].system, "shoot");
        assert_eq!(failure.error().downcast_ref(), Some(&OutOfAmmo(2)));
        assert_eq!(
            problems[1].to_string(),
            "system shoot failed: out of ammo after 2 shots"
        );
        assert_eq!(schedule.error_count(), 4);
        assert_eq!(world.query::<&B>().count(), 2);
    }
    // An exclusive system (`&mut World`) may fail too, under its name in the schedule.
    fn exclusive<S: Storage>(world: &mut World<S>) -> Result<(), String> {
        world.spawn((B(0.0),));
        Err("exclusive gave up".into())
    }
    let mut world = World::<S>::new();
    let mut schedule = Schedule::<S>::new();
    schedule.add_named_system("alone", exclusive::<S>);
    let EcsError::Run(problems) = schedule.try_run(&mut world).unwrap_err() else {
        panic!("a run error")
    };
    assert_eq!(problems.len(), 1);
    assert_eq!(
        problems[0].to_string(),
        "system alone failed: exclusive gave up"
    );
    assert_eq!(world.query::<&B>().count(), 1, "its work stays");
    // On its own, outside a schedule.
    let mut world = World::<S>::new();
    world.spawn((A(1.0),));
    let mut alone = IntoSystem::into_system(shoot_on::<S>);
    assert!(alone.run(&mut world).is_ok(), "one shot is fine");
    world.spawn((A(1.0),));
    let err = alone.run(&mut world).unwrap_err();
    assert!(
        err.to_string().contains("out of ammo after 2 shots"),
        "{err}"
    );
}
