//! One world per backend, with what the fuzzer keeps beside each world, and the macro that
//! runs one piece of code on all five.

use ecs_archetype::ArchetypeStorage;
use ecs_array::ArrayStorage;
use ecs_core::testing::VecStorage;
use ecs_core::trace::Traced;
use ecs_hybrid::HybridStorage;
use std::alloc::Layout;

use ecs_core::{
    CommandQueue, ComponentDescriptor, ComponentId, Schedule, Storage, StorageKind, SystemId, World,
};
use ecs_sparse::SparseStorage;

use crate::components::DYNAMIC;
use crate::readers::Readers;
use crate::systems;

/// The backends, in the order of every five-element answer: the reference first.
pub const BACKENDS: [&str; 5] = [
    "reference (VecStorage)",
    "sparse",
    "archetype",
    "hybrid",
    "array",
];

/// A world on backend `S` and the fuzzer's persistent state for it.
pub struct Lane<S: Storage> {
    /// The world.
    pub world: World<S>,
    /// Commands queued by `Op::Queue`, applied by `Op::ApplyCommands`.
    pub queue: CommandQueue,
    /// Persistent change readers.
    pub readers: Readers<S>,
    /// The schedule `Op::RunSchedule` runs.
    pub schedule: Schedule<S>,
    /// The schedule's systems, in the order they were added.
    pub systems: Vec<SystemId>,
    /// The run-time components (see [`dynamic_descriptor`]).
    pub dynamic: [ComponentId; DYNAMIC],
}

/// Run-time component `which`: plain data of 5 bytes (alignment 1) in a table, or of 8
/// bytes (alignment 8) in a sparse set; no drop function, so bytes can be written directly.
pub fn dynamic_descriptor(which: usize) -> ComponentDescriptor {
    let (name, layout, storage) = match which {
        0 => ("Dyn5<table>", Layout::new::<[u8; 5]>(), StorageKind::Table),
        _ => ("Dyn8<sparse>", Layout::new::<u64>(), StorageKind::Sparse),
    };
    ComponentDescriptor {
        name: name.into(),
        layout,
        drop: None,
        storage,
    }
}

impl<S: Storage> Lane<S> {
    /// A fresh world with its readers and schedule.
    pub fn new() -> Self {
        let mut world = World::new();
        let dynamic = [0, 1].map(|which| world.register_dynamic(dynamic_descriptor(which)));
        let readers = Readers::new(&mut world);
        let (mut schedule, systems) = systems::schedule(&mut world);
        // Skipped commands are expected here (systems act on entities others despawn);
        // the fuzzer compares how many each backend skipped instead of printing each.
        schedule.set_error_handler(ecs_core::schedule::errors::ignore_error);
        Lane {
            world,
            queue: CommandQueue::new(),
            readers,
            schedule,
            systems,
            dynamic,
        }
    }
}

impl<S: Storage> Default for Lane<S> {
    fn default() -> Self {
        Lane::new()
    }
}

/// The five lanes.
#[derive(Default)]
pub struct Lanes {
    /// `ecs_core::testing::VecStorage`, the reference, recording a trace of the run (which
    /// must then replay faithfully on the other backends).
    pub reference: Lane<Traced<VecStorage>>,
    /// `ecs_sparse::SparseStorage`.
    pub sparse: Lane<SparseStorage>,
    /// `ecs_archetype::ArchetypeStorage`.
    pub archetype: Lane<ArchetypeStorage>,
    /// `ecs_hybrid::HybridStorage`.
    pub hybrid: Lane<HybridStorage>,
    /// `ecs_array::ArrayStorage`.
    pub array: Lane<ArrayStorage>,
}

/// Evaluates `$body` once per backend with `$lane` bound to that backend's `&mut Lane<S>`,
/// recording in `$current` (a `&'static str` place) which backend runs, so a panic can be
/// attributed; yields the five results as an array in [`BACKENDS`] order.
#[macro_export]
macro_rules! on_lanes {
    ($lanes:expr, $current:expr, $lane:ident => $body:expr) => {{
        let lanes = &mut $lanes;
        $current = $crate::lanes::BACKENDS[0];
        let r0 = {
            let $lane = &mut lanes.reference;
            $body
        };
        $current = $crate::lanes::BACKENDS[1];
        let r1 = {
            let $lane = &mut lanes.sparse;
            $body
        };
        $current = $crate::lanes::BACKENDS[2];
        let r2 = {
            let $lane = &mut lanes.archetype;
            $body
        };
        $current = $crate::lanes::BACKENDS[3];
        let r3 = {
            let $lane = &mut lanes.hybrid;
            $body
        };
        $current = $crate::lanes::BACKENDS[4];
        let r4 = {
            let $lane = &mut lanes.array;
            $body
        };
        $current = "model";
        [r0, r1, r2, r3, r4]
    }};
}
