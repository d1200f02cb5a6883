//! [`Schedule`]: runs systems, in parallel where their accesses allow.
//!
//! Systems are kept in the order they were added. Two *conflict* when one writes a component
//! or resource the other reads, watches or writes ([`SystemAccess::conflicts_with`]).
//! The schedule groups the enabled systems into *waves*: a system goes into the wave after
//! the last earlier system it conflicts with, so
//!
//! ```text
//!   added:   A: w Pos   B: r Vel, w Score   C: r Pos   D: w Vel   E: r Score   F: w Pos, r Vel
//!
//!   wave 0:  A  B        nothing earlier conflicts
//!   wave 1:  C  D  E     C reads what A writes; D writes what B reads; E reads what B writes
//!   wave 2:  F           F writes what C reads and reads what D writes (both in wave 1)
//! ```
//!
//! (wave of a system = 1 + the largest wave of an earlier system it conflicts with, or 0), so
//! conflicting systems always run in the order they were added.
//!
//! Whether two systems conflict is read from [`System::access`], which the schedule trusts:
//! that is why [`System`] is an `unsafe trait` (function systems implement it for you).
//!
//! Waves describe the order; they are not barriers. At run time a system starts as soon as
//! every earlier system it conflicts with has finished ([`crate::parallel::run_graph`]), on
//! the thread that finished the last of them when it can: above, D may start while A (wave
//! 0) still runs, and a long system in one wave never holds back an unrelated chain
//! (`cd -> ce` runs beside a long `ab`, where waves would make `ce` wait for `ab` too).
//!
//! The sync point is the end of [`Schedule::run`]: every system's deferred work (its
//! [`Commands`](crate::Commands)) is applied then, in the order the systems were added.
//!
//! A system that panics is caught; the systems that wait for it (directly or through
//! others) are skipped, every other system still runs (in parallel and in sequential mode
//! alike, whatever the timing), the commands of the systems that ran are applied and the
//! panicking system's are discarded (entities it reserved are despawned), and then the
//! panic resumes. The world is left consistent: systems cannot change its structure while
//! they run, and every component write they made is a complete write of a valid value. (The panicking system's change filters
//! had already moved their cursors when its run began: the changes of that run are not
//! reported to it again.)

use std::any::Any;
use std::borrow::Cow;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use parking_lot::Mutex;

use crate::error::EcsError;
use crate::storage::Storage;
use crate::system::{IntoSystem, System, SystemAccess};
use crate::world::{World, WorldId};

/// A system's handle in its [`Schedule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemId(usize);

impl SystemId {
    /// The position of the system in insertion order.
    pub fn index(self) -> usize {
        self.0
    }
}

struct Entry<S: Storage> {
    system: Box<dyn System<S>>,
    name: Cow<'static, str>,
    enabled: bool,
}

/// An ordered set of systems run together on one world (see the [module docs](self)).
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::testing::VecStorage;
/// struct Pos(f32);
/// impl Component for Pos {}
/// struct Total(f32);
///
/// fn step(mut q: Query<&mut Pos, (), VecStorage>) {
///     q.for_each(|p| p.0 += 1.0);
/// }
/// fn sum(mut q: Query<&Pos, (), VecStorage>, mut total: ResMut<Total>) {
///     total.0 = q.iter().map(|p| p.0).sum();
/// }
///
/// let mut world = World::<VecStorage>::new();
/// world.insert_resource(Total(0.0));
/// world.spawn((Pos(0.0),));
/// let mut schedule = Schedule::new();
/// schedule.add_system(step);
/// let sum_id = schedule.add_system(sum);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Total>().unwrap().0, 1.0);
/// schedule.disable(sum_id);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Total>().unwrap().0, 1.0, "sum did not run");
/// ```
pub struct Schedule<S: Storage> {
    entries: Vec<Entry<S>>,
    /// Cached order of the enabled systems; `None` after a change.
    plan: Option<Plan>,
    world: Option<WorldId>,
    parallel: bool,
}

impl<S: Storage> Default for Schedule<S> {
    fn default() -> Self {
        Schedule::new()
    }
}

impl<S: Storage> Schedule<S> {
    /// An empty schedule that runs non-conflicting systems in parallel.
    pub fn new() -> Self {
        Schedule {
            entries: Vec::new(),
            plan: None,
            world: None,
            parallel: true,
        }
    }

    /// Whether non-conflicting systems run in parallel (the default) or all run one after
    /// the other in insertion order (same results: for comparison and debugging).
    pub fn set_parallel(&mut self, parallel: bool) -> &mut Self {
        self.parallel = parallel;
        self
    }

    /// Adds a system after the others; its name is its function path.
    pub fn add_system<M>(&mut self, system: impl IntoSystem<S, M>) -> SystemId {
        let system = system.into_system();
        let name = Cow::Owned(system.name().to_owned());
        self.push(Box::new(system), name)
    }

    /// Adds a system under a name of your choice (see [`Schedule::id_of`]).
    pub fn add_named_system<M>(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        system: impl IntoSystem<S, M>,
    ) -> SystemId {
        self.push(Box::new(system.into_system()), name.into())
    }

    fn push(&mut self, system: Box<dyn System<S>>, name: Cow<'static, str>) -> SystemId {
        self.entries.push(Entry {
            system,
            name,
            enabled: true,
        });
        self.plan = None;
        SystemId(self.entries.len() - 1)
    }

    /// Number of systems (enabled or not).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no system was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first system with this name: its full name (a function's path, or the name given
    /// to [`Schedule::add_named_system`]) or its short name (the last path segment, without
    /// generic arguments: `render` for `game::render<Backend>`).
    pub fn id_of(&self, name: &str) -> Option<SystemId> {
        self.entries
            .iter()
            .position(|e| e.name == name || short_name(&e.name) == name)
            .map(SystemId)
    }

    /// The system's name.
    ///
    /// # Panics
    /// For an id from another schedule.
    pub fn name(&self, id: SystemId) -> &str {
        &self.entries[id.0].name
    }

    /// Stops running the system until it is enabled again. Its change filters keep their
    /// cursors, so when re-enabled it sees every change made while it was off.
    ///
    /// # Panics
    /// For an id from another schedule.
    pub fn disable(&mut self, id: SystemId) {
        self.set_enabled(id, false);
    }

    /// Runs the system again (see [`Schedule::disable`]).
    ///
    /// # Panics
    /// For an id from another schedule.
    pub fn enable(&mut self, id: SystemId) {
        self.set_enabled(id, true);
    }

    /// Enables or disables a system.
    ///
    /// # Panics
    /// For an id from another schedule.
    pub fn set_enabled(&mut self, id: SystemId, enabled: bool) {
        let entry = &mut self.entries[id.0];
        if entry.enabled != enabled {
            entry.enabled = enabled;
            self.plan = None;
        }
    }

    /// Whether the system runs.
    ///
    /// # Panics
    /// For an id from another schedule.
    pub fn is_enabled(&self, id: SystemId) -> bool {
        self.entries[id.0].enabled
    }

    /// Initialises every system for `world` (done by `run`; needed before [`Schedule::waves`]).
    ///
    /// # Errors
    /// [`EcsError::SystemConflict`] for a system whose parameters conflict.
    ///
    /// # Panics
    /// If the schedule already ran on another world.
    pub fn initialize(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        let id = *self.world.get_or_insert(world.id());
        assert_eq!(
            id,
            world.id(),
            "a Schedule runs on the world it first ran on; build another for this world"
        );
        for entry in &mut self.entries {
            if !entry.system.is_initialized() {
                entry.system.initialize(world)?;
                self.plan = None;
            }
        }
        Ok(())
    }

    /// The waves the enabled systems run in (see the module docs), once initialised.
    pub fn waves(&mut self) -> Vec<Vec<SystemId>> {
        let plan = self.take_plan();
        let waves = plan
            .waves
            .iter()
            .map(|wave| wave.iter().map(|&i| SystemId(i)).collect())
            .collect();
        self.plan = Some(plan);
        waves
    }

    /// The cached plan, built if needed; put it back with `self.plan = Some(..)`.
    fn take_plan(&mut self) -> Plan {
        self.plan.take().unwrap_or_else(|| {
            let systems: Vec<_> = self
                .entries
                .iter()
                .map(|e| (e.enabled && e.system.is_initialized()).then(|| e.system.access()))
                .collect();
            Plan::new(&systems)
        })
    }

    /// Runs every enabled system once, then applies their commands (the sync point).
    ///
    /// # Panics
    /// If a system's parameters conflict (see [`Schedule::try_run`]), if the schedule ran on
    /// another world before, and with the panic of a system that panicked (after the sync
    /// point, see the module docs).
    pub fn run(&mut self, world: &mut World<S>) {
        if let Err(err) = self.try_run(world) {
            panic!("{err}");
        }
    }

    /// Like [`Schedule::run`], reporting a system whose parameters conflict as an error
    /// (before any system runs).
    ///
    /// # Errors
    /// [`EcsError::SystemConflict`].
    pub fn try_run(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        self.initialize(world)?;
        world.flush();
        let mut panics: Vec<Panic> = self.entries.iter().map(|_| None).collect();
        let plan = self.take_plan();
        if self.parallel {
            run_plan(&plan, &mut self.entries, world, &mut panics);
        } else {
            run_in_order(&plan, &mut self.entries, world, &mut panics);
        }
        self.plan = Some(plan);
        // The sync point, in insertion order.
        for (entry, panic) in self.entries.iter_mut().zip(&panics) {
            match panic {
                Some(_) => entry.system.discard(world),
                None if entry.enabled => entry.system.apply(world),
                None => {}
            }
        }
        if let Some(payload) = panics.into_iter().flatten().next() {
            resume_unwind(payload);
        }
        Ok(())
    }
}

/// Runs the enabled systems one after the other in insertion order, skipping those that
/// wait for a system that panicked or was skipped (the same systems `run_plan` skips).
fn run_in_order<S: Storage>(
    plan: &Plan,
    entries: &mut [Entry<S>],
    world: &World<S>,
    panics: &mut [Panic],
) {
    let mut skipped = vec![false; entries.len()];
    for (i, (entry, panic)) in entries.iter_mut().zip(panics.iter_mut()).enumerate() {
        if !entry.enabled {
            continue;
        }
        if !skipped[i] {
            *panic = run_caught(entry.system.as_mut(), world);
        }
        if skipped[i] || panic.is_some() {
            // Dependents come later in insertion order, so this reaches them in time.
            for &d in &plan.dependents[i] {
                skipped[d] = true;
            }
        }
    }
}

/// A caught panic's payload, if the system panicked.
type Panic = Option<Box<dyn Any + Send>>;

/// Runs the plan's systems on rayon, each once the earlier systems it conflicts with have
/// finished, recording panics; the systems that wait for a panicked one are skipped.
fn run_plan<S: Storage>(
    plan: &Plan,
    entries: &mut [Entry<S>],
    world: &World<S>,
    panics: &mut [Panic],
) {
    // Each job takes its own entry and panic slot; a job runs once (`run_graph`), so the
    // locks are never contended, only there to hand the `&mut`s across threads safely.
    let slots: Vec<Mutex<(&mut Entry<S>, &mut Panic)>> = entries
        .iter_mut()
        .zip(panics.iter_mut())
        .map(Mutex::new)
        .collect();
    let roots = plan.waves.first().into_iter().flatten().copied();
    crate::parallel::run_graph(&plan.dependents, &plan.waits, roots, |i| {
        let mut slot = slots[i].lock();
        let (entry, panic) = &mut *slot;
        **panic = run_caught(entry.system.as_mut(), world);
        panic.is_none()
    });
}

/// `a::b::name<X::Y>` -> `name`.
fn short_name(name: &str) -> &str {
    let path = name.split('<').next().unwrap_or(name);
    path.rsplit("::").next().unwrap_or(path)
}

/// Runs a system through a shared world, catching a panic.
///
/// SAFETY argument for every call in this module (the `run_unsafe` contract): the system is
/// initialised (`Schedule::initialize` ran first). Two systems that conflict never run at
/// the same time: the later one waits for the earlier (`Plan`'s invariant) and `run_graph`
/// starts it only after that one finished (an acquire/release count, so its writes are
/// visible). Each touches only what its access names — the `unsafe trait System` contract,
/// which every implementation promises, hand-written or a function system's (and one
/// initialised for another world touches nothing of this one) — so no component value or
/// resource is written by one thread while another reads or writes it. The world is only
/// shared (`&World`) while systems run, so its structure cannot change; what systems share
/// beyond their access — entity reservation and the change logs — is synchronised (an
/// atomic, a mutex per log).
fn run_caught<S: Storage>(
    system: &mut dyn System<S>,
    world: &World<S>,
) -> Option<Box<dyn Any + Send>> {
    // SAFETY: see the function's documentation.
    catch_unwind(AssertUnwindSafe(|| unsafe { system.run_unsafe(world) })).err()
}

/// The order the enabled systems run in, derived from their conflicts (see the module docs).
///
/// # Invariant
/// Every list is indexed by entry. `j` is in `dependents[i]` exactly when `i < j`, both are
/// enabled and they conflict; `waits[j]` is the number of lists `j` is in. The roots of
/// the graph (enabled, `waits` 0) are exactly `waves[0]`.
#[derive(Debug, Default)]
struct Plan {
    /// Enabled systems by wave (1 + the largest wave of an earlier conflicting system).
    waves: Vec<Vec<usize>>,
    /// For each system, the later systems that conflict with it and so wait for it.
    dependents: Vec<Vec<usize>>,
    /// For each system, how many earlier systems it waits for.
    waits: Vec<usize>,
}

impl Plan {
    /// The plan of `systems` (`None`: disabled or not initialised, not run).
    fn new(systems: &[Option<&SystemAccess>]) -> Plan {
        let mut plan = Plan {
            waves: Vec::new(),
            dependents: vec![Vec::new(); systems.len()],
            waits: vec![0; systems.len()],
        };
        let mut wave_of: Vec<usize> = Vec::with_capacity(systems.len());
        for (j, access) in systems.iter().enumerate() {
            let Some(access) = access else {
                wave_of.push(usize::MAX);
                continue;
            };
            let mut wave = 0;
            for i in 0..j {
                if systems[i].is_some_and(|a| a.conflicts_with(access)) {
                    wave = wave.max(wave_of[i] + 1);
                    plan.dependents[i].push(j);
                    plan.waits[j] += 1;
                }
            }
            wave_of.push(wave);
            if plan.waves.len() <= wave {
                plan.waves.resize_with(wave + 1, Vec::new);
            }
            plan.waves[wave].push(j);
        }
        plan
    }
}

/// The waves of `systems` (for tests).
#[cfg(test)]
fn build_waves(systems: &[Option<&SystemAccess>]) -> Vec<Vec<usize>> {
    Plan::new(systems).waves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::{Component, Components};
    use crate::query::QueryBuilder;

    struct Pos;
    impl Component for Pos {}
    struct Vel;
    impl Component for Vel {}
    struct Score;

    /// A system access from (component, write) pairs and (resource write) flags.
    fn access(c: &mut Components, parts: &[(&str, bool)]) -> SystemAccess {
        let mut s = SystemAccess::default();
        for &(what, write) in parts {
            match what {
                "score" if write => s.add_resource_write::<Score>().unwrap(),
                "score" => s.add_resource_read::<Score>().unwrap(),
                name => {
                    let id = if name == "pos" {
                        c.register::<Pos>()
                    } else {
                        c.register::<Vel>()
                    };
                    let mut b = QueryBuilder::new(c);
                    if write {
                        b.write(id)
                    } else {
                        b.read(id)
                    }
                    let a = b.finish().unwrap().access;
                    s.add_query(&a, c).unwrap();
                }
            }
        }
        s
    }

    #[test]
    fn waves_follow_conflicts_in_insertion_order() {
        let mut c = Components::default();
        let a = access(&mut c, &[("pos", true)]);
        let b = access(&mut c, &[("vel", false), ("score", true)]);
        let cc = access(&mut c, &[("pos", false)]);
        let d = access(&mut c, &[("vel", true)]);
        let e = access(&mut c, &[("score", false)]);
        let f = access(&mut c, &[("pos", true), ("vel", false)]);
        let systems = [Some(&a), Some(&b), Some(&cc), Some(&d), Some(&e), Some(&f)];
        assert_eq!(
            build_waves(&systems),
            vec![vec![0, 1], vec![2, 3, 4], vec![5]],
            "f writes Pos after c reads it and reads Vel after d writes it"
        );
    }

    #[test]
    fn short_names_drop_path_and_generics() {
        assert_eq!(short_name("game::render<ecs::Backend>"), "render");
        assert_eq!(short_name("tick"), "tick");
        assert_eq!(short_name("a::b::c"), "c");
    }

    #[test]
    fn disabled_systems_do_not_constrain() {
        let mut c = Components::default();
        let w = access(&mut c, &[("pos", true)]);
        let r = access(&mut c, &[("pos", false)]);
        assert_eq!(build_waves(&[Some(&w), Some(&r)]), vec![vec![0], vec![1]]);
        assert_eq!(build_waves(&[None, Some(&r)]), vec![vec![1]]);
        assert_eq!(
            build_waves(&[Some(&r), Some(&r), Some(&r)]),
            vec![vec![0, 1, 2]]
        );
        assert!(build_waves(&[]).is_empty());
    }
}
