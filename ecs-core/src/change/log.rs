//! [`ChangeLog`]: an append-only list of entities, read by many cursors.
//!
//! See the [module docs](crate::change) for the picture. This file keeps the log's three
//! rules in one place:
//!
//! * **append** (`mark`): skip when the entity's latest entry is still ahead of every reader
//!   (at or after the newest cursor) and still names this entity (same generation); else
//!   push and remember the position in `latest`. Nothing is recorded while no reader exists.
//! * **read** (`window` + `is_latest`): a reader walks the entries from its cursor to the
//!   end captured when its run began, and takes an entry only if it is the entity's latest,
//!   so an entity marked several times is reported once, at its last mark.
//! * **trim**: a reader's cursor is the start of its latest window, which stays readable
//!   until its next run (random access answers for that window between runs); entries below
//!   the lowest live cursor can never be read again and are dropped from the front. Cursors
//!   are `Arc<AtomicU64>`s held by query states ([`Reader`]); the log keeps only `Weak`s, so
//!   a dropped query state stops holding the log back.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::{Mutex, MutexGuard};

use crate::entity::Entity;

/// `latest[i]` for an entity index that has no entry.
const NO_ENTRY: u64 = u64::MAX;

/// Below this many retained entries, appends never pause to look for dead readers.
const MIN_TRIM_CHECK: usize = 1024;

/// A reader of one [`ChangeLog`]: its cursor, which holds the log back from trimming the
/// reader's latest window, and where that window ended.
///
/// # Invariant
/// `seen` is at or after the cursor and at most the log's end: `cursor..seen` is the
/// reader's latest window (empty before its first advance).
#[derive(Debug)]
pub struct Reader {
    cursor: Arc<AtomicU64>,
    seen: u64,
}

/// An append-only log of the entities whose component was added (or changed), shared by
/// every query that filters on it. Marking is thread-safe (one uncontended lock per mark).
///
/// Positions count every entry ever appended and are never reused, so a reader's cursor is
/// just a position: "I have seen everything before this".
pub struct ChangeLog {
    inner: Mutex<LogInner>,
}

/// The log's state, behind its lock.
///
/// # Invariants
/// * `entries[i]` is the entry at position `base + i`; positions below `base` were trimmed.
/// * `latest[e.index()]` is `NO_ENTRY` or the position of the last entry appended for an
///   entity with that index (which may have been trimmed since: check `>= base`).
/// * Every live reader's cursor (the start of its latest window) is in `base..=end()`;
///   `newest_cursor` is at least the end of every live reader's latest window (it is the
///   largest window end ever handed out).
pub struct LogInner {
    entries: VecDeque<Entity>,
    base: u64,
    latest: Vec<u64>,
    readers: Vec<Weak<AtomicU64>>,
    newest_cursor: u64,
    trim_check_at: usize,
}

impl Default for ChangeLog {
    fn default() -> Self {
        ChangeLog {
            inner: Mutex::new(LogInner {
                entries: VecDeque::new(),
                base: 0,
                latest: Vec::new(),
                readers: Vec::new(),
                newest_cursor: 0,
                trim_check_at: MIN_TRIM_CHECK,
            }),
        }
    }
}

impl ChangeLog {
    /// Records that `entity` changed (no-op while no reader exists, or when the entity's
    /// previous mark has not been read by anyone yet).
    #[inline]
    pub fn mark(&self, entity: Entity) {
        self.inner.lock().mark(entity);
    }

    /// Like [`ChangeLog::mark`] without taking the lock (the caller holds the log exclusively).
    #[inline]
    pub(crate) fn mark_mut(&mut self, entity: Entity) {
        self.inner.get_mut().mark(entity);
    }

    /// Entries currently kept (appended and not yet trimmed).
    pub fn retained(&self) -> usize {
        self.inner.lock().entries.len()
    }

    /// Readers (query states with a change filter on this log) that are still alive.
    pub fn readers(&self) -> usize {
        let inner = self.inner.lock();
        inner
            .readers
            .iter()
            .filter(|r| r.strong_count() > 0)
            .count()
    }

    /// Heap bytes held by the log.
    pub fn memory_usage(&self) -> usize {
        let inner = self.inner.lock();
        inner.entries.capacity() * size_of::<Entity>()
            + inner.latest.capacity() * size_of::<u64>()
            + inner.readers.capacity() * size_of::<Weak<AtomicU64>>()
    }

    /// Locks the log for a reader's bookkeeping.
    pub(crate) fn lock(&self) -> MutexGuard<'_, LogInner> {
        self.inner.lock()
    }
}

impl LogInner {
    /// One past the last position appended.
    #[inline]
    pub(crate) fn end(&self) -> u64 {
        self.base + self.entries.len() as u64
    }

    #[inline]
    fn latest_of(&self, entity: Entity) -> u64 {
        self.latest
            .get(entity.index() as usize)
            .copied()
            .unwrap_or(NO_ENTRY)
    }

    /// The entity at `position`, which must be in `base..end()`.
    #[inline]
    pub(crate) fn entry(&self, position: u64) -> Entity {
        self.entries[(position - self.base) as usize]
    }

    /// Whether `entity`'s latest entry is at or after `position`, and not trimmed.
    #[inline]
    fn latest_at_or_after(&self, entity: Entity, position: u64) -> bool {
        let latest = self.latest_of(entity);
        latest != NO_ENTRY
            && latest >= position
            && latest >= self.base
            && self.entry(latest) == entity
    }

    /// Whether `entity` (this generation) was marked at or after `cursor`.
    #[inline]
    pub(crate) fn changed_since(&self, entity: Entity, cursor: u64) -> bool {
        self.latest_at_or_after(entity, cursor)
    }

    /// Whether the entry at `position` (holding `entity`) is that entity's latest.
    #[inline]
    pub(crate) fn is_latest(&self, position: u64, entity: Entity) -> bool {
        self.latest_of(entity) == position
    }

    fn mark(&mut self, entity: Entity) {
        if self.readers.is_empty() {
            return;
        }
        // Every reader will still read the previous entry: a second one adds nothing.
        if self.latest_at_or_after(entity, self.newest_cursor) {
            return;
        }
        let index = entity.index() as usize;
        if self.latest.len() <= index {
            self.latest.resize(index + 1, NO_ENTRY);
        }
        self.latest[index] = self.end();
        self.entries.push_back(entity);
        if self.entries.len() >= self.trim_check_at {
            self.trim();
        }
    }

    /// Registers a new reader that has seen everything up to now.
    pub(crate) fn register_reader(&mut self) -> Reader {
        let end = self.end();
        let cursor = Arc::new(AtomicU64::new(end));
        self.readers.push(Arc::downgrade(&cursor));
        self.newest_cursor = end;
        Reader { cursor, seen: end }
    }

    /// Starts `reader`'s next window, `seen..end` (`seen`: where its previous window ended,
    /// or where it registered), and returns it. The reader's cursor moves to the window's
    /// start, so the window stays readable until the reader's next advance; what every
    /// reader has left behind is trimmed first.
    pub(crate) fn advance(&mut self, reader: &mut Reader) -> (u64, u64) {
        let old = reader.seen;
        reader.cursor.store(old, Ordering::Relaxed);
        self.trim();
        let new = self.end();
        reader.seen = new;
        self.newest_cursor = new;
        (old, new)
    }

    /// Drops dead readers and every entry below the lowest live cursor.
    fn trim(&mut self) {
        let mut lowest = self.end();
        self.readers.retain(|reader| match reader.upgrade() {
            Some(cursor) => {
                lowest = lowest.min(cursor.load(Ordering::Relaxed));
                true
            }
            None => false,
        });
        let drop = (lowest.saturating_sub(self.base) as usize).min(self.entries.len());
        self.entries.drain(..drop);
        self.base += drop as u64;
        if self.readers.is_empty() {
            // Nobody will read again: release the per-entity index too.
            self.latest = Vec::new();
            self.entries.shrink_to_fit();
        }
        self.trim_check_at = (self.entries.len() * 2).max(MIN_TRIM_CHECK);
    }

    /// The entities at positions `from..to` (a reader's window), with their positions.
    pub(crate) fn window(&self, from: u64, to: u64) -> impl Iterator<Item = (u64, Entity)> + '_ {
        debug_assert!(self.base <= from && from <= to && to <= self.end());
        let start = (from - self.base) as usize;
        let end = (to - self.base) as usize;
        self.entries
            .range(start..end)
            .enumerate()
            .map(move |(i, &entity)| (from + i as u64, entity))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(index: u32, generation: u32) -> Entity {
        Entity::new(index, generation).unwrap()
    }

    /// What a reader would yield: its window's entries that are their entity's latest.
    fn read(log: &ChangeLog, reader: &mut Reader) -> Vec<Entity> {
        let mut inner = log.lock();
        let (old, new) = inner.advance(reader);
        inner
            .window(old, new)
            .filter(|&(pos, ent)| inner.is_latest(pos, ent))
            .map(|(_, ent)| ent)
            .collect()
    }

    #[test]
    fn nothing_is_recorded_without_readers() {
        let log = ChangeLog::default();
        log.mark(e(0, 1));
        assert_eq!(log.retained(), 0);
        assert_eq!(log.memory_usage(), 0);
    }

    #[test]
    fn marks_are_deduplicated_until_read() {
        let log = ChangeLog::default();
        let mut cursor = log.lock().register_reader();
        for _ in 0..5 {
            log.mark(e(3, 1));
        }
        log.mark(e(4, 1));
        assert_eq!(log.retained(), 2, "one entry per entity while unread");
        assert_eq!(read(&log, &mut cursor), vec![e(3, 1), e(4, 1)]);
        assert_eq!(
            read(&log, &mut cursor),
            vec![],
            "each change is reported once"
        );
        log.mark(e(3, 1));
        assert_eq!(read(&log, &mut cursor), vec![e(3, 1)]);
    }

    #[test]
    fn a_new_generation_is_a_new_entry() {
        let log = ChangeLog::default();
        let mut cursor = log.lock().register_reader();
        log.mark(e(3, 1));
        log.mark(e(3, 2));
        assert_eq!(log.retained(), 2);
        // Only the latest entry of index 3 is yielded; the old generation is gone anyway.
        assert_eq!(read(&log, &mut cursor), vec![e(3, 2)]);
    }

    #[test]
    fn slow_reader_sees_everything_fast_reader_once() {
        let log = ChangeLog::default();
        let mut slow = log.lock().register_reader();
        let mut fast = log.lock().register_reader();
        log.mark(e(1, 1));
        assert_eq!(read(&log, &mut fast), vec![e(1, 1)]);
        // `fast` has read entity 1's entry, so a new mark must be appended for it...
        log.mark(e(1, 1));
        log.mark(e(2, 1));
        assert_eq!(log.retained(), 3);
        // ...but `slow` still reports entity 1 once, at its latest entry.
        assert_eq!(read(&log, &mut slow), vec![e(1, 1), e(2, 1)]);
        assert_eq!(read(&log, &mut fast), vec![e(1, 1), e(2, 1)]);
    }

    #[test]
    fn trimmed_below_the_lowest_live_cursor() {
        let log = ChangeLog::default();
        let mut a = log.lock().register_reader();
        let mut b = log.lock().register_reader();
        for i in 0..10 {
            log.mark(e(i, 1));
        }
        read(&log, &mut a);
        read(&log, &mut a);
        assert_eq!(log.retained(), 10, "b has not read them yet");
        read(&log, &mut b);
        read(&log, &mut a);
        assert_eq!(
            log.retained(),
            10,
            "b's latest window stays until its next run"
        );
        read(&log, &mut b);
        assert_eq!(log.retained(), 0, "everyone has moved past them");
        for i in 0..10 {
            log.mark(e(i, 1));
        }
        drop(b);
        read(&log, &mut a);
        read(&log, &mut a);
        assert_eq!(log.retained(), 0, "a dropped reader holds nothing back");
        assert_eq!(log.readers(), 1);
    }

    #[test]
    fn dead_readers_are_noticed_by_appends() {
        let log = ChangeLog::default();
        let reader = log.lock().register_reader();
        drop(reader);
        let n = if cfg!(miri) {
            MIN_TRIM_CHECK
        } else {
            10 * MIN_TRIM_CHECK
        } as u32;
        for i in 0..n {
            log.mark(e(i, 1));
        }
        assert!(
            log.retained() < MIN_TRIM_CHECK,
            "the log does not grow without readers"
        );
        assert_eq!(log.readers(), 0);
    }

    #[test]
    fn retained_entries_stay_bounded_with_a_steady_reader() {
        let log = ChangeLog::default();
        let mut cursor = log.lock().register_reader();
        let rounds = if cfg!(miri) { 20 } else { 1000 };
        for round in 0..rounds {
            for i in 0..10 {
                log.mark(e(i, 1));
            }
            assert_eq!(read(&log, &mut cursor).len(), 10, "round {round}");
            assert!(log.retained() <= 10, "only the last window is kept");
        }
    }
}
