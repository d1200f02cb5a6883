//! [`Op`]: one step of a fuzzed run, as data.
//!
//! Every field is a small number the runner resolves against the current state (an entity
//! *target* indexes the list of every handle handed out so far, live or stale; a *component*
//! indexes the pool, a *shape* the query list), so any sequence of ops is valid: libFuzzer
//! can mutate bytes freely and a shrunk sequence still means something.

use arbitrary::Arbitrary;

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
    /// Iterates query shape `shape` through `World::query_filtered` (the world's cached
    /// state); `style` picks `next`-stepping, `for_each` or `count`.
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
}
