//! [`Schedule`]: runs systems, in parallel where their accesses allow.
//!
//! Systems are kept in the order they were added. Two *conflict* when one writes a component
//! or resource the other reads, watches or writes ([`SystemAccess::conflicts_with`](crate::system::SystemAccess::conflicts_with)).
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
//! **Ordering.** Without constraints, conflicting systems run in the order they were added.
//! [`Schedule::configure`] adds constraints (`before`/`after` another system or a labelled
//! set, `in_set`), and [`Schedule::configure_set`] orders whole sets; the schedule runs the
//! systems in a topological order of the constraints that keeps insertion order wherever
//! the constraints leave it free (the waves above are computed over that order). A system
//! also waits for every system a constraint puts before it, conflicting or not. Constraints
//! that form a cycle are an error ([`EcsError::ScheduleCycle`]) naming the systems of one
//! cycle. A disabled system's constraints are set aside with it.
//!
//! **Run conditions** (`run_if`, on a system or a set) are asked while no system runs, at
//! the start of a run (or of the part after an exclusive system): a system whose condition
//! says no is skipped this time, and the systems after it run as if it had.
//!
//! **Exclusive systems** (functions of `&mut World`) run alone: the systems before them in
//! the order finish and their commands are applied first, and the systems after them start
//! only once they returned.
//!
//! The sync point is the end of [`Schedule::run`] (and before every exclusive system): every
//! system's deferred work (its [`Commands`](crate::Commands)) is applied then, in the
//! schedule's order. Then [events](crate::event) move on: the older buffer of every event
//! type is dropped.
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
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe, Location};

use parking_lot::Mutex;

use crate::error::EcsError;
use crate::storage::Storage;
use crate::system::{IntoSystem, System};
use crate::world::{World, WorldId};

pub mod errors;
mod plan;
mod tuples;

pub use errors::{ErrorHandler, RunError, RunErrorKind};
use plan::{Node, Plan, Segment};
pub use tuples::{Chain, ChainSystems, IntoSystems};

/// A system's handle in its [`Schedule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemId(usize);

impl SystemId {
    /// The position of the system in insertion order.
    pub fn index(self) -> usize {
        self.0
    }
}

/// A condition deciding, each run, whether a system (or every system of a set) runs.
type Condition<S> = Box<dyn Fn(&World<S>) -> bool + Send + Sync>;

struct Entry<S: Storage> {
    system: Box<dyn System<S>>,
    name: Cow<'static, str>,
    enabled: bool,
    /// Ordering and run conditions of this system.
    constraints: Constraints<S>,
    /// The labelled sets the system is in.
    sets: Vec<&'static str>,
    /// Where a trace being recorded keeps this system's index (see
    /// [`World::trace_system`]).
    trace_slot: u64,
}

impl<S: Storage> Entry<S> {
    /// Records, when `world` records, that the ops that follow come from this system.
    #[inline]
    fn trace_enter(&mut self, world: &mut World<S>) {
        if S::TRACED {
            world.trace_system(Some((&self.name, &mut self.trace_slot)));
        }
    }
}

/// Ordering constraints and run conditions, of one system or of a set.
struct Constraints<S: Storage> {
    /// Systems and sets this one runs before / after.
    before: Vec<Target>,
    after: Vec<Target>,
    conditions: Vec<Condition<S>>,
}

impl<S: Storage> Default for Constraints<S> {
    fn default() -> Self {
        Constraints {
            before: Vec::new(),
            after: Vec::new(),
            conditions: Vec::new(),
        }
    }
}

impl<S: Storage> Constraints<S> {
    /// Whether every condition answers true for `world`.
    fn allow(&self, world: &World<S>) -> bool {
        self.conditions.iter().all(|c| c(world))
    }
}

/// What an ordering constraint names: one system, or every system of a labelled set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// One system.
    System(SystemId),
    /// Every system in the set with this label ([`SystemConfig::in_set`]).
    Set(&'static str),
}

impl From<SystemId> for Target {
    fn from(id: SystemId) -> Target {
        Target::System(id)
    }
}

impl From<&'static str> for Target {
    fn from(label: &'static str) -> Target {
        Target::Set(label)
    }
}

/// A labelled set's own constraints and conditions.
struct SetConfig<S: Storage> {
    label: &'static str,
    constraints: Constraints<S>,
}

/// An ordered set of systems run together on one world (see the [module docs](self)).
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::testing::VecStorage;
/// #[derive(Component)]
/// struct Pos(f32);
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
///
/// Ordering, sets and run conditions:
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::testing::VecStorage;
/// #[derive(Default)]
/// struct Log(Vec<&'static str>);
/// struct Paused(bool);
/// fn input(mut log: ResMut<Log>) { log.0.push("input"); }
/// fn physics(mut log: ResMut<Log>) { log.0.push("physics"); }
/// fn render(mut log: ResMut<Log>) { log.0.push("render"); }
///
/// let mut world = World::<VecStorage>::new();
/// world.insert_resource(Log::default());
/// world.insert_resource(Paused(false));
/// let mut schedule = Schedule::<VecStorage>::new();
/// let render = schedule.add_system(render);
/// let physics = schedule.add_system(physics);
/// let input = schedule.add_system(input);
/// schedule.configure(physics).in_set("simulation").before(render);
/// schedule.configure(input).before("simulation");
/// schedule.configure_set("simulation").run_if(|w| !w.resource::<Paused>().unwrap().0);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().unwrap().0, ["input", "physics", "render"]);
/// world.insert_resource(Paused(true));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().unwrap().0.len(), 5, "physics skipped when paused");
/// ```
pub struct Schedule<S: Storage> {
    entries: Vec<Entry<S>>,
    sets: Vec<SetConfig<S>>,
    /// Cached order of the enabled systems; `None` after a change.
    plan: Option<Plan>,
    world: Option<WorldId>,
    parallel: bool,
    /// Per-run buffers kept between runs, so a run allocates nothing of its own beyond what
    /// the parallel executor needs.
    scratch: Scratch,
    /// Where [`Schedule::run`] sends each problem of a run.
    error_handler: ErrorHandler,
    /// Problems of the run in progress (empty between runs).
    run_errors: Vec<RunError>,
    /// Problems of every run so far.
    error_count: u64,
}

/// The buffers of one segment's run: whether each of its systems is skipped (a run
/// condition said no), and the panic each one raised. Emptied after every segment.
#[derive(Default)]
struct Scratch {
    skip: Vec<bool>,
    panics: Vec<Mutex<Panic>>,
}

impl<S: Storage> Default for Schedule<S> {
    fn default() -> Self {
        Schedule::new()
    }
}

/// Configures one system of a schedule: ordering, sets, run conditions
/// ([`Schedule::configure`]). Each call returns the configuration for chaining.
pub struct SystemConfig<'a, S: Storage> {
    entry: &'a mut Entry<S>,
}

impl<S: Storage> SystemConfig<'_, S> {
    /// The system runs before `target` (a system, or every system of a set) starts.
    pub fn before(self, target: impl Into<Target>) -> Self {
        self.entry.constraints.before.push(target.into());
        self
    }

    /// The system starts after `target` (a system, or every system of a set) finished.
    pub fn after(self, target: impl Into<Target>) -> Self {
        self.entry.constraints.after.push(target.into());
        self
    }

    /// Puts the system in the set labelled `label` (sets need no declaration).
    pub fn in_set(self, label: &'static str) -> Self {
        if !self.entry.sets.contains(&label) {
            self.entry.sets.push(label);
        }
        self
    }

    /// The system runs only in the runs where `condition` answers true. Conditions are asked
    /// while no system runs (at the start of the run, or of the part after an exclusive
    /// system), with the whole world to read. A skipped system's dependents still run.
    pub fn run_if(self, condition: impl Fn(&World<S>) -> bool + Send + Sync + 'static) -> Self {
        self.entry.constraints.conditions.push(Box::new(condition));
        self
    }
}

/// Configures a labelled set of a schedule ([`Schedule::configure_set`]).
pub struct SetConfigurator<'a, S: Storage> {
    set: &'a mut Constraints<S>,
}

impl<S: Storage> SetConfigurator<'_, S> {
    /// Every system of the set runs before `target` starts.
    pub fn before(self, target: impl Into<Target>) -> Self {
        self.set.before.push(target.into());
        self
    }

    /// Every system of the set starts after `target` finished.
    pub fn after(self, target: impl Into<Target>) -> Self {
        self.set.after.push(target.into());
        self
    }

    /// Every system of the set runs only when `condition` answers true (see
    /// [`SystemConfig::run_if`]).
    pub fn run_if(self, condition: impl Fn(&World<S>) -> bool + Send + Sync + 'static) -> Self {
        self.set.conditions.push(Box::new(condition));
        self
    }
}

impl<S: Storage> Schedule<S> {
    /// An empty schedule that runs non-conflicting systems in parallel.
    pub fn new() -> Self {
        Schedule {
            entries: Vec::new(),
            sets: Vec::new(),
            plan: None,
            world: None,
            parallel: true,
            scratch: Scratch::default(),
            error_handler: errors::log_error,
            run_errors: Vec::new(),
            error_count: 0,
        }
    }

    /// Sets what [`Schedule::run`] does with each problem found while systems run (see
    /// [`errors`]): [`errors::log_error`] (the default: one line on standard error, the run
    /// goes on), [`errors::panic_on_error`], [`errors::ignore_error`], or a function of your
    /// own. [`Schedule::try_run`] returns the problems instead.
    ///
    /// ```
    /// # use ecs_core::prelude::*;
    /// # use ecs_core::testing::VecStorage;
    /// use ecs_core::schedule::{errors, RunErrorKind};
    /// #[derive(Component)]
    /// struct Doomed;
    /// fn reap(doomed: Query<Entity, With<Doomed>, VecStorage>, mut commands: Commands) {
    ///     for e in doomed.iter() {
    ///         commands.despawn(e);
    ///     }
    /// }
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(Doomed);
    /// let mut schedule = Schedule::new();
    /// schedule.add_named_system("reap", reap);
    /// schedule.add_named_system("reap again", reap); // despawns the same entities
    /// schedule.set_error_handler(errors::ignore_error);
    /// schedule.run(&mut world);
    /// assert_eq!(schedule.error_count(), 1, "the second despawn did nothing: counted");
    ///
    /// world.spawn(Doomed);
    /// let err = schedule.try_run(&mut world).unwrap_err();
    /// let EcsError::Run(problems) = err else { panic!("{err}") };
    /// assert_eq!(problems[0].system, "reap again");
    /// assert!(matches!(&problems[0].kind, RunErrorKind::Command(c) if c.command == "despawn"));
    /// ```
    pub fn set_error_handler(&mut self, handler: ErrorHandler) -> &mut Self {
        self.error_handler = handler;
        self
    }

    /// How many problems the runs so far found (every [`RunError`], whatever the handler
    /// did with it).
    pub fn error_count(&self) -> u64 {
        self.error_count
    }
    /// Whether non-conflicting systems run in parallel (the default) or all run one after
    /// the other in insertion order (same results: for comparison and debugging).
    pub fn set_parallel(&mut self, parallel: bool) -> &mut Self {
        self.parallel = parallel;
        self
    }

    /// Adds a system after the others; its name is its function path, or for a closure
    /// `closure at src/main.rs:42:5` (where it was added).
    #[track_caller]
    pub fn add_system<M, I: IntoSystem<S, M>>(&mut self, system: I) -> SystemId {
        self.add_system_at(system, Location::caller())
    }

    /// [`Schedule::add_system`], naming a closure after `location`.
    fn add_system_at<M, I: IntoSystem<S, M>>(
        &mut self,
        system: I,
        location: &'static Location<'static>,
    ) -> SystemId {
        let system = system.into_system();
        let name = readable_name(system.name(), location);
        self.push(Box::new(system), name)
    }

    /// Adds several systems at once: a tuple of up to 16 systems, in order, or the same
    /// tuple with [`.chain()`](ChainSystems::chain), which also orders each one before the
    /// next (whatever their accesses). Returns their ids in order.
    ///
    /// ```
    /// # use ecs_core::prelude::*;
    /// # use ecs_core::testing::VecStorage;
    /// #[derive(Default)]
    /// struct Log(Vec<&'static str>);
    /// fn read(log: Res<Log>) { let _ = log.0.len(); }
    /// fn a(mut log: ResMut<Log>) { log.0.push("a"); }
    /// fn b(mut log: ResMut<Log>) { log.0.push("b"); }
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Log::default());
    /// let mut schedule = Schedule::new();
    /// let ids = schedule.add_systems((b, a).chain()); // b, then a
    /// let more = schedule.add_systems((read, |log: Res<Log>| assert!(log.0.len() <= 2)));
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().unwrap().0, ["b", "a"]);
    /// assert_eq!(ids.len() + more.len(), 4);
    /// assert!(schedule.name(more[1]).starts_with("closure at "), "{}", schedule.name(more[1]));
    /// ```
    #[track_caller]
    pub fn add_systems<M, I: IntoSystems<S, M>>(&mut self, systems: I) -> Vec<SystemId> {
        systems.add_to(self, Location::caller())
    }

    /// Adds a system under a name of your choice (see [`Schedule::id_of`]).
    pub fn add_named_system<M, I: IntoSystem<S, M>>(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        system: I,
    ) -> SystemId {
        self.push(Box::new(system.into_system()), name.into())
    }

    fn push(&mut self, system: Box<dyn System<S>>, name: Cow<'static, str>) -> SystemId {
        self.entries.push(Entry {
            system,
            name,
            enabled: true,
            constraints: Constraints::default(),
            sets: Vec::new(),
            trace_slot: 0,
        });
        self.plan = None;
        SystemId(self.entries.len() - 1)
    }

    /// Configures a system: ordering constraints, sets, run conditions.
    ///
    /// # Panics
    /// For an id from another schedule.
    pub fn configure(&mut self, id: SystemId) -> SystemConfig<'_, S> {
        self.plan = None;
        SystemConfig {
            entry: &mut self.entries[id.0],
        }
    }

    /// Configures the set labelled `label`: ordering against systems and other sets, and
    /// run conditions for all its systems.
    pub fn configure_set(&mut self, label: &'static str) -> SetConfigurator<'_, S> {
        self.plan = None;
        let index = match self.sets.iter().position(|s| s.label == label) {
            Some(index) => index,
            None => {
                self.sets.push(SetConfig {
                    label,
                    constraints: Constraints::default(),
                });
                self.sets.len() - 1
            }
        };
        SetConfigurator {
            set: &mut self.sets[index].constraints,
        }
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
    /// Every system's initialisation error ([`EcsError::SystemConflict`] for parameters
    /// that conflict), together in [`EcsError::Many`] when there are several; the systems
    /// that could be initialised are.
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
        let mut errors = Vec::new();
        for entry in &mut self.entries {
            if !entry.system.is_initialized() {
                match entry.system.initialize(world) {
                    Ok(()) if entry.system.access().observes().is_some() => {
                        // An observer runs when its event is triggered, never in waves.
                        entry.enabled = false;
                        errors.push(EcsError::SystemConflict {
                            system: entry.name.to_string(),
                            reason: "it takes an `On<..>` parameter: it is an observer, \
                                     registered with `World::observe`; it stays disabled here"
                                .to_owned(),
                        });
                    }
                    Ok(()) => self.plan = None,
                    Err(err) => errors.push(err),
                }
            }
        }
        EcsError::all(errors)
    }

    /// The waves the enabled systems run in (see the module docs), once initialised.
    ///
    /// # Errors
    /// [`EcsError::ScheduleCycle`] when the ordering constraints contradict each other.
    pub fn waves(&mut self) -> Result<Vec<Vec<SystemId>>, EcsError> {
        let plan = self.take_plan()?;
        let waves = plan
            .waves
            .iter()
            .map(|wave| wave.iter().map(|&i| SystemId(i)).collect())
            .collect();
        self.plan = Some(plan);
        Ok(waves)
    }

    /// The cached plan, built if needed; put it back with `self.plan = Some(..)`.
    fn take_plan(&mut self) -> Result<Plan, EcsError> {
        if let Some(plan) = self.plan.take() {
            return Ok(plan);
        }
        let nodes: Vec<Node<'_>> = self
            .entries
            .iter()
            .map(|e| Node {
                access: (e.enabled && e.system.is_initialized()).then(|| e.system.access()),
                name: &e.name,
            })
            .collect();
        Plan::new(&nodes, &self.ordering_edges())
    }

    /// Ordering constraints that cannot mean what they say: a system ordered before or after
    /// itself (or a set it is in), a set ordered against itself, and sets named in
    /// constraints (or configured) that no system is in (a typo, or a system not added).
    fn check_constraints(&self) -> Vec<EcsError> {
        let mut errors = Vec::new();
        let has_members = |label: &str| self.entries.iter().any(|e| e.sets.contains(&label));
        let errors_out = &mut errors;
        let mut check = |owner: &str, own: Target, in_sets: &[&'static str], c: &Constraints<S>| {
            for &target in c.before.iter().chain(&c.after) {
                let reason = match target {
                    t if t == own => Some("it is ordered before or after itself".to_owned()),
                    Target::Set(label) if in_sets.contains(&label) => Some(format!(
                        "it is ordered against set \"{label}\", which it is in"
                    )),
                    Target::Set(label) if !has_members(label) => Some(format!(
                        "it is ordered against set \"{label}\", which no system is in"
                    )),
                    _ => None,
                };
                if let Some(reason) = reason {
                    errors_out.push(EcsError::ScheduleConstraint {
                        system: owner.to_owned(),
                        reason,
                    });
                }
            }
        };
        for (i, entry) in self.entries.iter().enumerate() {
            check(
                &entry.name,
                Target::System(SystemId(i)),
                &entry.sets,
                &entry.constraints,
            );
        }
        for set in &self.sets {
            let owner = format!("set \"{}\"", set.label);
            check(&owner, Target::Set(set.label), &[], &set.constraints);
        }
        for set in self.sets.iter().filter(|set| !has_members(set.label)) {
            errors.push(EcsError::ScheduleConstraint {
                system: format!("set \"{}\"", set.label),
                reason: "no system is in it (configured, but no system was added to it)".to_owned(),
            });
        }
        errors
    }

    /// Every explicit "runs before" pair, with sets expanded to their systems.
    fn ordering_edges(&self) -> Vec<(usize, usize)> {
        let members = |target: Target| -> Vec<usize> {
            match target {
                Target::System(id) => vec![id.0],
                Target::Set(label) => (0..self.entries.len())
                    .filter(|&i| self.entries[i].sets.contains(&label))
                    .collect(),
            }
        };
        let mut edges = Vec::new();
        let mut add = |from: &[usize], before: &[Target], after: &[Target]| {
            for &target in before {
                for b in members(target) {
                    edges.extend(from.iter().map(|&a| (a, b)));
                }
            }
            for &target in after {
                for a in members(target) {
                    edges.extend(from.iter().map(|&b| (a, b)));
                }
            }
        };
        for (i, entry) in self.entries.iter().enumerate() {
            add(&[i], &entry.constraints.before, &entry.constraints.after);
        }
        for set in &self.sets {
            let c = &set.constraints;
            add(&members(Target::Set(set.label)), &c.before, &c.after);
        }
        edges
    }

    /// Takes the commands entry `i`'s sync point skipped as the run's problems.
    fn collect_skipped(&mut self, i: usize, world: &mut World<S>) {
        if world.skipped_commands.is_empty() {
            return;
        }
        let system = &self.entries[i].name;
        self.run_errors
            .extend(world.skipped_commands.drain(..).map(|skipped| RunError {
                system: system.to_string(),
                kind: RunErrorKind::Command(skipped),
            }));
    }

    /// Takes the error entry `i`'s system returned, if it failed, as a problem of the run.
    fn collect_failure(&mut self, i: usize) {
        if let Some(error) = self.entries[i].system.take_failure() {
            self.run_errors.push(RunError {
                system: self.entries[i].name.to_string(),
                kind: RunErrorKind::Failed(crate::system::Failure::new(error)),
            });
        }
    }

    /// Whether entry `i` runs this time: its conditions and its sets' all answer true.
    fn should_run(&self, i: usize, world: &World<S>) -> bool {
        let entry = &self.entries[i];
        entry.constraints.allow(world)
            && self
                .sets
                .iter()
                .filter(|set| entry.sets.contains(&set.label))
                .all(|set| set.constraints.allow(world))
    }

    /// Runs every enabled system once, then applies their commands (the sync point).
    ///
    /// # Panics
    /// With the error [`Schedule::try_run`] would return, if the schedule ran on another
    /// world before, and with the panic of a system that panicked (after the sync point, see
    /// the module docs).
    /// Problems found while the systems run (a command that did nothing, ...) do not stop
    /// the run: each is handed to the schedule's error handler afterwards (see
    /// [`Schedule::set_error_handler`]; by default a line on standard error).
    pub fn run(&mut self, world: &mut World<S>) {
        match self.run_collecting(world) {
            Ok(errors) => {
                for error in &errors {
                    (self.error_handler)(error);
                }
            }
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`Schedule::run`], reporting what keeps systems from running as an error,
    /// before any system runs.
    ///
    /// # Errors
    /// Every problem found, together in [`EcsError::Many`] when there are several: systems
    /// whose parameters conflict ([`EcsError::SystemConflict`]), resources a system needs
    /// that do not exist ([`EcsError::MissingResource`]), ordering constraints that form a
    /// cycle ([`EcsError::ScheduleCycle`]).
    ///
    /// Problems found while the systems ran do not stop the run; they are returned once it is
    /// over, all in [`EcsError::Run`] (the run's effects stay).
    pub fn try_run(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        match errors::as_error(self.run_collecting(world)?) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// Checks everything that would keep the schedule from running on `world`, without
    /// running a system: what [`Schedule::try_run`] checks first, for a program that wants
    /// every problem at start-up (systems are initialised here, as by
    /// [`Schedule::initialize`]).
    ///
    /// # Errors
    /// Every problem found, together in [`EcsError::Many`] when there are several: systems
    /// whose own parameters conflict ([`EcsError::SystemConflict`]), resources and events a
    /// system needs that the world does not hold ([`EcsError::MissingResource`]), ordering
    /// constraints that form a cycle ([`EcsError::ScheduleCycle`]), a system ordered
    /// against itself or against a set no system is in, a set configured with no system in
    /// it ([`EcsError::ScheduleConstraint`]).
    ///
    /// ```
    /// # use ecs_core::prelude::*;
    /// # use ecs_core::testing::VecStorage;
    /// struct Gravity(f32);
    /// fn fall(g: Res<Gravity>) { let _ = g.0; }
    /// fn draw() {}
    /// let mut world = World::<VecStorage>::new();
    /// let mut schedule = Schedule::new();
    /// let fall = schedule.add_system(fall);
    /// let draw = schedule.add_system(draw);
    /// schedule.configure(draw).before(draw).after("physics");
    /// let err = schedule.build(&mut world).unwrap_err();
    /// let EcsError::Many(problems) = err else { panic!("{err}") };
    /// assert_eq!(problems.len(), 3, "{problems:?}"); // the missing Gravity, draw twice
    /// world.insert_resource(Gravity(9.8));
    /// schedule.configure(fall).in_set("physics");
    /// let _ = draw;
    /// ```
    pub fn build(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        let plan = self.prepare(world)?;
        self.plan = Some(plan);
        Ok(())
    }

    /// [`Schedule::build`], keeping the plan for the run.
    fn prepare(&mut self, world: &mut World<S>) -> Result<Plan, EcsError> {
        // Problems are gathered, not returned one at a time: a system whose parameters
        // conflict stays out of the plan, and the others are still checked.
        let mut errors = Vec::new();
        if let Err(err) = self.initialize(world) {
            flatten_into(err, &mut errors);
        }
        world.flush();
        // Constraints change only through `add_system`/`configure`, which drop the cached
        // plan: with a plan cached, they were checked when it was made.
        if self.plan.is_none() {
            errors.extend(self.check_constraints());
        }
        let plan = self.take_plan();
        // Every enabled system is checked against the world, planned or not (a cycle keeps
        // the plan from being made, not the other problems from being found).
        errors.extend(
            self.entries
                .iter()
                .filter(|e| e.enabled && e.system.is_initialized())
                .filter_map(|e| e.system.validate(world).err()),
        );
        let plan = match plan {
            Ok(plan) => plan,
            Err(err) => {
                flatten_into(err, &mut errors);
                return EcsError::all(errors).map(|()| unreachable!("a plan error was added"));
            }
        };
        if !errors.is_empty() {
            // Not cached: the next run checks everything again.
            return EcsError::all(errors).map(|()| unreachable!("errors is not empty"));
        }
        Ok(plan)
    }

    /// Runs the schedule, returning the problems found while the systems ran (counted), or
    /// the error that kept them from running.
    fn run_collecting(&mut self, world: &mut World<S>) -> Result<Vec<RunError>, EcsError> {
        let plan = self.prepare(world)?;
        let result = self.run_segments(&plan, world);
        self.plan = Some(plan);
        let run_errors = std::mem::take(&mut self.run_errors);
        self.error_count += run_errors.len() as u64;
        if let Err(payload) = result {
            // The panic goes on; what was found before it still reaches the handler.
            for error in &run_errors {
                (self.error_handler)(error);
            }
            resume_unwind(payload);
        }
        world.update_events();
        if S::TRACED {
            world.trace_system(None);
            world.trace_frame();
        }
        Ok(run_errors)
    }

    /// Runs the plan's segments in order, each followed by its sync point and its exclusive
    /// system; stops after a segment in which a system panicked (every later system waits
    /// for it), returning the first panic.
    fn run_segments(
        &mut self,
        plan: &Plan,
        world: &mut World<S>,
    ) -> Result<(), Box<dyn Any + Send>> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = plan
            .segments
            .iter()
            .try_for_each(|segment| self.run_segment(segment, world, &mut scratch));
        self.scratch = scratch;
        result
    }

    /// One segment: its systems (those whose conditions allow), the sync point in plan order,
    /// then its exclusive system.
    fn run_segment(
        &mut self,
        segment: &Segment,
        world: &mut World<S>,
        scratch: &mut Scratch,
    ) -> Result<(), Box<dyn Any + Send>> {
        let Scratch { skip, panics } = scratch;
        skip.clear();
        skip.extend(segment.systems.iter().map(|&i| !self.should_run(i, world)));
        panics.clear();
        panics.resize_with(segment.systems.len(), || Mutex::new(None));
        // While a trace is recorded, one system at a time: each op is then attributed to
        // the system that made it, and the trace's order is the plan's.
        if self.parallel && !(S::TRACED && world.is_tracing()) {
            run_parallel(segment, &mut self.entries, skip, world, panics);
        } else {
            run_in_order(segment, &mut self.entries, skip, world, panics);
        }
        // The sync point, in plan order.
        let mut first_panic = None;
        for ((&i, panic), &skipped) in segment.systems.iter().zip(panics.iter_mut()).zip(&*skip) {
            let system = &mut self.entries[i].system;
            match panic.get_mut().take() {
                Some(payload) => {
                    system.discard(world);
                    first_panic.get_or_insert(payload);
                }
                None if !skipped => {
                    self.entries[i].trace_enter(world);
                    let system = &mut self.entries[i].system;
                    system.apply(world);
                    self.collect_skipped(i, world);
                    self.collect_failure(i);
                }
                None => {}
            }
        }
        if let Some(payload) = first_panic {
            return Err(payload);
        }
        if let Some(x) = segment.exclusive.filter(|&x| self.should_run(x, world)) {
            self.entries[x].trace_enter(world);
            let system = &mut self.entries[x].system;
            match catch_unwind(AssertUnwindSafe(|| system.run(world)))? {
                Ok(()) => {}
                // An exclusive system that failed: a problem of the run, under the name
                // the schedule knows it by.
                Err(EcsError::Run(problems)) => {
                    let name = self.entries[x].name.to_string();
                    self.run_errors
                        .extend(problems.into_iter().map(|problem| RunError {
                            system: name.clone(),
                            ..problem
                        }));
                }
                Err(err) => panic!("an exclusive system is always initialised: {err}"),
            }
        }
        Ok(())
    }
}

/// Runs a segment's systems one after the other in plan order, skipping those that wait for
/// a system that panicked (the same systems `run_parallel` skips) and those whose conditions
/// said no.
fn run_in_order<S: Storage>(
    segment: &Segment,
    entries: &mut [Entry<S>],
    skip: &[bool],
    world: &mut World<S>,
    panics: &mut [Mutex<Panic>],
) {
    let mut blocked = vec![false; segment.systems.len()];
    for (k, &i) in segment.systems.iter().enumerate() {
        let panic = panics[k].get_mut();
        if !blocked[k] && !skip[k] {
            entries[i].trace_enter(world);
            *panic = run_caught(entries[i].system.as_mut(), world);
        }
        if blocked[k] || panic.is_some() {
            // Dependents come later in plan order, so this reaches them in time.
            for &d in &segment.dependents[k] {
                blocked[d] = true;
            }
        }
    }
}

/// A caught panic's payload, if the system panicked.
type Panic = Option<Box<dyn Any + Send>>;

/// Runs a segment's systems on rayon, each once the systems it waits for have finished,
/// recording panics; the systems that wait for a panicked one are skipped, and so are those
/// whose conditions said no (their dependents still run).
fn run_parallel<S: Storage>(
    segment: &Segment,
    entries: &mut [Entry<S>],
    skip: &[bool],
    world: &World<S>,
    panics: &[Mutex<Panic>],
) {
    // One slot per entry of the schedule; the job for the segment's `k`-th system takes the
    // slot of `segment.systems[k]` (distinct indices). A job runs once (`run_graph`), so the
    // locks are never contended, only there to hand the `&mut`s across threads safely.
    let slots: Vec<Mutex<&mut Entry<S>>> = entries.iter_mut().map(Mutex::new).collect();
    crate::parallel::run_graph(&segment.dependents, &segment.waits, segment.roots(), |k| {
        if skip[k] {
            return true;
        }
        let mut entry = slots[segment.systems[k]].lock();
        let panic = run_caught(entry.system.as_mut(), world);
        let ok = panic.is_none();
        *panics[k].lock() = panic;
        ok
    });
}

/// A system's name for messages: its function path, or for a closure (whose type name is
/// `main::{{closure}}` whatever it does) `closure at file:line:column` of the line that
/// added it.
fn readable_name(name: &str, location: &Location<'_>) -> Cow<'static, str> {
    if name.contains("{{closure}}") {
        Cow::Owned(format!("closure at {location}"))
    } else {
        Cow::Owned(name.to_owned())
    }
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

/// Appends `err` to `errors`, unpacking [`EcsError::Many`] so a report lists each problem
/// once at the top level.
fn flatten_into(err: EcsError, errors: &mut Vec<EcsError>) {
    match err {
        EcsError::Many(many) => errors.extend(many),
        err => errors.push(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::{Component, Components};
    use crate::system::SystemAccess;

    /// The waves of `systems` (`None`: not planned), in insertion order without constraints.
    fn build_waves(systems: &[Option<&SystemAccess>]) -> Vec<Vec<usize>> {
        let nodes: Vec<Node<'_>> = systems
            .iter()
            .map(|&access| Node { access, name: "s" })
            .collect();
        Plan::new(&nodes, &[]).unwrap().waves
    }
    use crate::query::QueryBuilder;

    struct Pos;
    impl Component for Pos {
        type Mutability = crate::component::Mutable;
    }
    struct Vel;
    impl Component for Vel {
        type Mutability = crate::component::Mutable;
    }
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
