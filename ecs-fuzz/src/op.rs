//! [`Op`]: one step of a fuzzed run, as data.
//!
//! Every field is a small number the runner resolves against the current state (an entity
//! *target* indexes the list of every handle handed out so far, live or stale; a *component*
//! indexes the pool, a *shape* the query list), so any sequence of ops is valid: libFuzzer
//! can mutate bytes freely and a shrunk sequence still means something.

use arbitrary::Arbitrary;

use crate::bundles::{BUNDLES, GROUPS};
use crate::components::POOL;
use crate::readers::READERS;
use crate::shapes::SHAPES;

/// One operation, applied to every backend and to the model.
#[derive(Arbitrary, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `World::spawn` of bundle number `bundle` (see `bundles.rs`), values from `seed`.
    Spawn {
        /// Index into the bundle list.
        bundle: u8,
        /// First component value; each next field gets one more.
        seed: u32,
    },
    /// `World::spawn_batch` of `count % 16 + 1` bundles of one type (16 times as many in a
    /// wide run).
    SpawnBatch {
        /// Index into the bundle list.
        bundle: u8,
        /// Batch size (mod 16, plus one).
        count: u8,
        /// First bundle's seed; each next bundle's is one more.
        seed: u32,
    },
    /// `World::despawn`, on a live or stale handle.
    Despawn {
        /// Handle index.
        target: u16,
    },
    /// `World::insert` of a non-ghost pool component.
    Insert {
        /// Handle index.
        target: u16,
        /// Pool slot (ghosts are mapped to a stored type).
        component: u8,
        /// The value's model number.
        value: u32,
    },
    /// `World::remove` (any pool type, ghosts included).
    Remove {
        /// Handle index.
        target: u16,
        /// Pool slot.
        component: u8,
    },
    /// `World::get`, `has` and `contains`.
    Get {
        /// Handle index.
        target: u16,
        /// Pool slot.
        component: u8,
    },
    /// A write through `get_mut` (untracked types) or `get_mut_tracked`; `how` picks a
    /// plain write, `set_changed`, `bypass_change_detection` or a read through the guard.
    GetMut {
        /// Handle index.
        target: u16,
        /// Pool slot.
        component: u8,
        /// Kind of access for tracked types.
        how: u8,
    },
    /// Iterates query shape `shape` through `World::try_query_filtered` (the world's cached
    /// state); `style % 16` picks `next`-stepping, `for_each`, a few `next`s then
    /// `for_each`, `count`, or one `next` then `par_for_each_batched`.
    Query {
        /// Index into the shape list.
        shape: u16,
        /// Iteration style.
        style: u8,
    },
    /// `QueryState::get_mut` / `QueryView` on a fresh state of shape `shape`.
    QueryGet {
        /// Index into the shape list.
        shape: u16,
        /// Handle index.
        target: u16,
        /// Plain `get` or a mutable view.
        style: u8,
    },
    /// Removes a pool component from every entity holding it (a type stored, then all
    /// removed).
    Purge {
        /// Pool slot.
        component: u8,
    },
    /// `World::clear`.
    Clear,
    /// `World::group` of group number `group` (see `bundles.rs`).
    Group {
        /// Index into the group list.
        group: u8,
    },
    /// Queues a command into the pending `CommandQueue`.
    Queue(Command),
    /// `World::apply` of the pending queue (the sync point outside a schedule).
    ApplyCommands,
    /// One run of persistent change reader `reader`.
    RunReader {
        /// Index into the reader list.
        reader: u8,
    },
    /// `QueryState::get` on persistent change reader `reader`.
    ReaderGet {
        /// Index into the reader list.
        reader: u8,
        /// Handle index.
        target: u16,
    },
    /// Runs the schedule; first flips system `toggle % 8` on or off when it names one.
    RunSchedule {
        /// Run in parallel or in insertion order.
        parallel: bool,
        /// A system index to enable or disable (values above the system count: none).
        toggle: u8,
    },
    /// Compares the whole world (every entity, every component) with the model.
    Compare,
    /// The by-id API on run-time component `which % 2`: `insert_bytes`, `remove_by_id` or
    /// `get_bytes` (by `action % 3`).
    Dynamic {
        /// Handle index.
        target: u16,
        /// Which run-time component (0: table, 1: sparse).
        which: u8,
        /// What to do.
        action: u8,
        /// The value's model number (for `insert_bytes`).
        value: u32,
    },
    /// A parent link: `set_parent(child, parent)` (`how % 4` of 0 or 1), `remove_parent`
    /// (2) or `despawn_recursive` of `child` (3).
    Link {
        /// Handle index of the child.
        child: u16,
        /// Handle index of the parent.
        parent: u16,
        /// Which link operation.
        how: u8,
    },
    /// Disables two entities (`World::disable`; stale and reserved handles too), runs query
    /// shape `shape` as [`Op::Query`] does (`style` below 16) or as [`Op::QueryGet`] does on
    /// the first of them (16 and up), then enables them again: every query path must leave
    /// disabled entities out, on every backend, in the middle of any churn.
    Hidden {
        /// Handle indices of the entities disabled.
        targets: [u16; 2],
        /// Index into the shape list.
        shape: u16,
        /// Iteration style (`Op::Query`'s below 16, a look-up from 16).
        style: u8,
    },
    /// Required components: inserts a `Needs` of either side on `target` (`how % 4` of 0
    /// or 1), inserts it beside an `A` valued `value` the requirement must not overwrite
    /// (2), or spawns one beside an `Hp` valued `value` (3). The components it requires are
    /// added where missing, on every backend as in the model.
    Require {
        /// Handle index.
        target: u16,
        /// Which operation.
        how: u8,
        /// The value the caller gives.
        value: u32,
    },
    /// A run-time attempt to write `target`'s link components (a run-time query writing
    /// them, `remove_by_id`, `insert_by_id` of a copied link), which every backend must
    /// refuse the same way, leaving the links as they were.
    TamperLinks {
        /// Handle index.
        target: u16,
        /// Which attempt.
        how: u8,
    },
}

/// A deferred world change queued through `Commands`.
#[derive(Arbitrary, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// `Commands::spawn` of bundle number `bundle`.
    Spawn {
        /// Index into the bundle list.
        bundle: u8,
        /// Values as for [`Op::Spawn`].
        seed: u32,
    },
    /// `Commands::insert` of one component.
    Insert {
        /// Handle index.
        target: u16,
        /// Pool slot (ghosts are mapped to a stored type).
        component: u8,
        /// The value's model number.
        value: u32,
    },
    /// `Commands::remove`.
    Remove {
        /// Handle index.
        target: u16,
        /// Pool slot.
        component: u8,
    },
    /// `Commands::despawn`.
    Despawn {
        /// Handle index.
        target: u16,
    },
    /// `Commands::insert` of a whole bundle (new and replaced components at once).
    InsertBundle {
        /// Handle index.
        target: u16,
        /// Index into the bundle list.
        bundle: u8,
        /// Values as for [`Op::Spawn`].
        seed: u32,
    },
}

/// Reduces a number the runner only uses modulo `m` (as a `u8` field).
fn small(x: u8, m: usize) -> u8 {
    (usize::from(x) % m) as u8
}

/// Reduces a number the runner only uses modulo `m` (as a `u16` field).
fn small16(x: u16, m: usize) -> u16 {
    (usize::from(x) % m) as u16
}

impl Op {
    /// The same operation with every number the runner reduces modulo a list length (bundle,
    /// component, shape, style, group, reader, system) written in its reduced form: it does
    /// exactly the same thing, and reads better in a regression test. Entity targets are
    /// left alone (they are reduced modulo the number of handles, which changes as the run
    /// goes).
    pub fn normalized(&self) -> Op {
        match *self {
            Op::Spawn { bundle, seed } => Op::Spawn {
                bundle: small(bundle, BUNDLES),
                seed,
            },
            Op::SpawnBatch {
                bundle,
                count,
                seed,
            } => Op::SpawnBatch {
                bundle: small(bundle, BUNDLES),
                count: count % 16,
                seed,
            },
            Op::Insert {
                target,
                component,
                value,
            } => Op::Insert {
                target,
                component: small(component, POOL),
                value,
            },
            Op::Remove { target, component } => Op::Remove {
                target,
                component: small(component, POOL),
            },
            Op::Get { target, component } => Op::Get {
                target,
                component: small(component, POOL),
            },
            Op::GetMut {
                target,
                component,
                how,
            } => Op::GetMut {
                target,
                component: small(component, POOL),
                how: how % 8,
            },
            Op::Query { shape, style } => Op::Query {
                shape: small16(shape, SHAPES),
                style: style % 16,
            },
            Op::QueryGet {
                shape,
                target,
                style,
            } => Op::QueryGet {
                shape: small16(shape, SHAPES),
                target,
                style: style % 2,
            },
            Op::Hidden {
                targets,
                shape,
                style,
            } => Op::Hidden {
                targets,
                shape: small16(shape, SHAPES),
                style: if style < 16 { style } else { 16 + style % 2 },
            },
            Op::Purge { component } => Op::Purge {
                component: small(component, POOL),
            },
            Op::Group { group } => Op::Group {
                group: small(group, GROUPS.len()),
            },
            Op::Queue(ref command) => Op::Queue(command.normalized()),
            Op::RunReader { reader } => Op::RunReader {
                reader: small(reader, READERS),
            },
            Op::ReaderGet { reader, target } => Op::ReaderGet {
                reader: small(reader, READERS),
                target,
            },
            Op::RunSchedule { parallel, toggle } => Op::RunSchedule {
                parallel,
                toggle: toggle % 16,
            },
            Op::Dynamic {
                target,
                which,
                action,
                value,
            } => Op::Dynamic {
                target,
                which: which % 2,
                action: action % 3,
                value,
            },
            Op::Link { child, parent, how } => Op::Link {
                child,
                parent,
                how: how % 4,
            },
            Op::TamperLinks { target, how } => Op::TamperLinks {
                target,
                how: how % 6,
            },
            Op::Require { target, how, value } => Op::Require {
                target,
                how: how % 4,
                value,
            },
            ref other => other.clone(),
        }
    }
}

impl Command {
    /// See [`Op::normalized`].
    pub fn normalized(&self) -> Command {
        match *self {
            Command::Spawn { bundle, seed } => Command::Spawn {
                bundle: small(bundle, BUNDLES),
                seed,
            },
            Command::Insert {
                target,
                component,
                value,
            } => Command::Insert {
                target,
                component: small(component, POOL),
                value,
            },
            Command::Remove { target, component } => Command::Remove {
                target,
                component: small(component, POOL),
            },
            Command::InsertBundle {
                target,
                bundle,
                seed,
            } => Command::InsertBundle {
                target,
                bundle: small(bundle, BUNDLES),
                seed,
            },
            ref other => other.clone(),
        }
    }
}
