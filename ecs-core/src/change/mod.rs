//! Change tracking: which entities had a tracked component added or written since a given
//! query (a system) last ran — with a cost that follows the number of changes, not the
//! number of entities.
//!
//! A component type opts in with `#[component(track_changes)]` on its derive (its
//! [`Component::Mutability`](crate::Component::Mutability) is then
//! [`Tracked`](crate::Tracked)); other types pay nothing (no tick or flag anywhere).
//! For each tracked component the world keeps two [`ChangeLog`]s, *added* and *changed*
//! (spawning or inserting a new value appends to both; a write through [`Mut`] or
//! [`Mut::set_changed`] to *changed* only). The logs live in the world, beside the storage, so
//! every backend gets the same tracking without a line of backend code.
//!
//! ```text
//!  ChangeLog for Changed<Position>          positions never reused: a cursor is a position
//!
//!  base=40                                   end=47
//!   |   40   41   42   43   44   45   46     |
//!   +----+----+----+----+----+----+----+    append -->
//!   | 7v1| 2v1| 9v3| 2v1| 5v1| 7v1| 3v2|
//!   +----+----+----+----+----+----+----+
//!   ^ trimmed below the lowest live cursor
//!        ^ cursor of system A (reads 41..47 on its next run)
//!                            ^ cursor of system B (reads 44..47)
//!
//!  latest (by entity index): 2 -> 43, 3 -> 46, 5 -> 44, 7 -> 45, 9 -> 42
//! ```
//!
//! * **Mark**: append the entity, unless its latest entry is at or after the newest cursor
//!   (no reader has passed it yet, so everyone will see it anyway) and still names the same
//!   generation. Entity 7 above was appended twice because B had read position 40 when 7
//!   changed again; a third write now would be skipped.
//! * **Read**: a reader's run reads its window `cursor..end` and yields an entry only if it
//!   is the entity's latest (A yields 2 at 43, not at 41), so each entity at most once per run;
//!   the cursor moves to `end` when the run begins, so changes made *during* the run (by the
//!   system itself) are seen on its next run. Nothing is lost while a system is disabled:
//!   its cursor simply stays where it was.
//! * **Trim**: a reader's cursor stays at the start of its latest window until its next run
//!   (random access through [`QueryState::get`](crate::QueryState::get) answers for that
//!   window between runs), and entries below the lowest live cursor are dropped. Cursors
//!   are `Arc<AtomicU64>`s owned by the query states; the log holds `Weak`s, so dropping a
//!   query state releases the log. While no reader exists, nothing is recorded at all.
//!
//! A *run* is one system run (its `Query` parameters begin their runs when the system's
//! arguments are fetched, so iterating a query twice in one system run sees the same
//! window), or one `iter`/`iter_mut` call on a [`QueryState`](crate::QueryState) or
//! `World::query_filtered`.
//!
//! A reader's first run has no cursor yet: it sees every matching entity (a system that never
//! ran has not seen anything), then registers at the log's end. Later runs are driven by the
//! log: the query fetches the window's entities by look-up, skipping dead ones and ones that
//! no longer match, so a run costs O(changes since the last run), not O(entities). This is
//! a per-system dirty list without one list per system: systems share the log and keep only
//! a cursor each.
//!
//! Why a lock: writes through [`Mut`] may come from several threads at once (a
//! `par_for_each` over a tracked component), so appending needs synchronisation. One
//! `parking_lot::Mutex` per log is enough: the schedule never runs a writer of a component
//! beside another system writing or watching it, so outside `par_for_each` a log's lock is
//! uncontended, and it costs one atomic swap per *first* write of a guard (later writes
//! through the same guard do not mark again). Lock-free alternatives (per-thread buffers
//! merged at the end of a batch) would save little here and complicate de-duplication.
//! A reader takes the locks of all the logs its filter names, in one global order
//! (component id, then kind), once per run; a writer only ever holds one lock at a time, so
//! there is no lock-order cycle.

mod guard;
mod log;
mod run;

pub use guard::Mut;
pub(crate) use log::LogInner;
pub use log::{ChangeLog, Reader};
pub(crate) use run::RunFilter;
pub use run::{ChangeProbe, ChangeRun};

use crate::component::ComponentId;
use crate::entity::Entity;

/// Which of a tracked component's two logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// The component was added to the entity (spawn, or insert of a component it lacked).
    Added,
    /// The component was added or written.
    Changed,
}

/// The two logs of one tracked component.
#[derive(Default)]
pub struct TrackedLogs {
    added: ChangeLog,
    changed: ChangeLog,
}

impl TrackedLogs {
    /// Heap bytes of both logs.
    pub fn memory_usage(&self) -> usize {
        self.added.memory_usage() + self.changed.memory_usage()
    }

    /// Entries both logs keep for readers that have not seen them yet.
    pub fn retained(&self) -> usize {
        self.added.retained() + self.changed.retained()
    }

    /// The log of `kind`.
    #[inline]
    pub fn get(&self, kind: ChangeKind) -> &ChangeLog {
        match kind {
            ChangeKind::Added => &self.added,
            ChangeKind::Changed => &self.changed,
        }
    }
}

/// The change logs of every tracked component of a world, indexed by component id.
///
/// Logs are created (with `&mut`) before anything can mark them through `&`: when a tracked
/// component is first stored, and when a query state naming it is built.
#[derive(Default)]
pub struct ChangeStore {
    logs: Vec<Option<TrackedLogs>>,
}

impl ChangeStore {
    /// Creates the logs of tracked component `id` if they do not exist yet.
    #[inline]
    pub fn ensure(&mut self, id: ComponentId) -> &mut TrackedLogs {
        if self.logs.len() <= id.index() {
            self.logs.resize_with(id.index() + 1, || None);
        }
        self.logs[id.index()].get_or_insert_with(TrackedLogs::default)
    }

    /// The logs of `id`, if it is tracked and has been stored or queried.
    #[inline]
    pub fn logs(&self, id: ComponentId) -> Option<&TrackedLogs> {
        self.logs.get(id.index())?.as_ref()
    }

    /// The `kind` log of `id` (see [`ChangeStore::logs`]).
    #[inline]
    pub fn log(&self, id: ComponentId, kind: ChangeKind) -> Option<&ChangeLog> {
        self.logs(id).map(|logs| logs.get(kind))
    }

    /// Records that `entity` gained component `id` (added and changed).
    pub(crate) fn on_added(&mut self, id: ComponentId, entity: Entity) {
        let logs = self.ensure(id);
        logs.added.mark_mut(entity);
        logs.changed.mark_mut(entity);
    }

    /// Records that `entity`'s component `id` was written.
    pub(crate) fn on_changed(&mut self, id: ComponentId, entity: Entity) {
        self.ensure(id).changed.mark_mut(entity);
    }

    /// Heap bytes held by every log.
    pub fn memory_usage(&self) -> usize {
        self.table_bytes() + self.tracked().map(|(_, l)| l.memory_usage()).sum::<usize>()
    }

    /// Heap bytes of the table of logs itself (one slot per component id up to the largest
    /// tracked one), without the logs.
    pub fn table_bytes(&self) -> usize {
        self.logs.capacity() * size_of::<Option<TrackedLogs>>()
    }

    /// Every tracked component whose logs exist, with its logs, in id order.
    pub fn tracked(&self) -> impl Iterator<Item = (ComponentId, &TrackedLogs)> {
        self.logs
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Some((ComponentId::new(i as u32), l.as_ref()?)))
    }
}
