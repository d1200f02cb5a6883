//! The entity allocator: a pre-linked sparse set of entity slots.
//!
//! This is a sparse set "whose unused ids are pre-linked" (the structural-change workloads
//! of docs/workloads.md come from the design that describes it): both arrays are kept
//! fully bound to each other, so the first unused dense element already names the next id to
//! hand out and allocation is a single read. We extend it with generations (the dense array
//! stores whole [`Entity`] handles) and with a third region for retired slots.
//!
//! ```text
//!            alive            free (pre-linked)     retired
//!   dense: [ 3v1  0v2  5v1 | 1v3  4v2  2v1       | 6vMAX ]      position -> Entity
//!            0    1    2     3    4    5           6
//!   sparse:  0->1  1->3  2->5  3->0  4->4  5->2  6->6           index -> position
//!                           ^ alive = 3        ^ free_end = 6
//! ```
//!
//! * **allocate**: hand out `dense[alive]` (its generation was already bumped when it was
//!   freed) and move the boundary: O(1). With no free slot, push a fresh index.
//! * **free**: swap the entity with the last live one, move the boundary back and bump the
//!   stored generation, so the handle the caller holds is stale from now on: O(1).
//! * **is_alive**: `stamps[index] == generation`: one read. A third array, indexed like
//!   `sparse`, holds each slot's generation while it is live and 0 otherwise (a handle's
//!   generation is never 0). Checking through the other two arrays would be two dependent
//!   reads, `dense[sparse[index]] == entity`, each a cache miss when handles come in random
//!   order; every look-up by handle (`has`, `find`, `insert`, `despawn`) starts with this
//!   check.
//!
//! Generations are 16 bits wide in practice: a slot whose generation reaches
//! [`MAX_GENERATION`] (65,535) is *retired* when freed: it moves into the retired region and
//! is never handed out again, so no live entity can ever compare equal to an old handle.
//! This costs one index (14 bytes) per 65,535 reuses of a slot, and keeps the stamp at two
//! bytes a slot: 14 bytes per entity in all, where a 32-bit stamp would make it 16.
//!
//! # Reserving ids through `&self`
//! Deferred spawns ([`Commands`](crate::Commands), possibly from several systems on several
//! threads) need an id before the world can be mutated. Because free slots are pre-linked,
//! the *n*-th id that `alloc` will hand out is known without changing anything, so a
//! reservation is one atomic increment of a counter (hecs's reserve/flush, made simpler by
//! the pre-linking):
//!
//! ```text
//!                alive   free (pre-linked)    retired          fresh (not in the arrays yet)
//!   dense:  [ 3v1  0v2 | 1v3  4v2  2v1       | 5vMAX ]   len 6
//!                        ^ alive = 2          ^ free_end = 5
//!   reserved = 5:
//!     #0 -> dense[alive + 0] = 1v3      #3 -> index len + 0 = 6, generation 1 = 6v1
//!     #1 -> dense[alive + 1] = 4v2      #4 -> index len + 1 = 7, generation 1 = 7v1
//!     #2 -> dense[alive + 2] = 2v1
//! ```
//!
//! **flush** (`&mut self`, done by the world before any operation that allocates or frees)
//! calls `alloc` `reserved` times: it hands out exactly the same handles, in the same order,
//! and resets the counter. O(1) per reservation, and nothing is allocated until the flush.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::blob::push_within_capacity;
use crate::entity::Entity;

/// The last generation a slot may carry; a slot freed at this generation is retired. It
/// fits the two-byte liveness stamp (see the module docs).
#[cfg(not(test))]
pub const MAX_GENERATION: u32 = u16::MAX as u32;
/// The last generation a slot may carry; lowered in this crate's unit tests so that the
/// retirement path is exercised.
#[cfg(test)]
pub const MAX_GENERATION: u32 = 3;

/// The stamp of a slot that holds no live entity (no handle has generation 0).
const NOT_LIVE: u16 = 0;

/// The stamp of live `entity`'s slot: its generation, which fits (`<= MAX_GENERATION`).
#[inline(always)]
fn stamp(entity: Entity) -> u16 {
    debug_assert!(entity.generation() <= MAX_GENERATION);
    entity.generation() as u16
}

/// Allocates, frees and validates [`Entity`] handles in O(1).
///
/// # Invariants
/// * `sparse.len() == dense.len()`, and the two arrays are inverse permutations:
///   `sparse[dense[p].index()] == p` for every position `p`.
/// * `alive <= free_end <= dense.len()`; positions `..alive` hold live entities,
///   `alive..free_end` free slots carrying the generation they will be handed out with,
///   `free_end..` retired slots that are never handed out again.
/// * Every generation in `dense` is in `1..=MAX_GENERATION`.
/// * `stamps.len() == sparse.len()`; `stamps[i]` is the generation of the entity with index
///   `i` when it is live (its position is below `alive`), else 0.
/// * `reserved & RESERVED` ids have been handed out by [`Entities::reserve_entity`] since
///   the last flush: they are the next that many results of `alloc`, and `alloc`/`free` are
///   only called when that count is 0. Bit `ATTENTION` of `reserved` is the owner's flag
///   ([`Entities::set_attention`]), never changed by reserving or flushing.
/// * `room` is at most the capacity of each of the three arrays, and at most `u32::MAX`.
///   No array's capacity ever shrinks (nothing here shrinks or replaces them after
///   construction), so a `room` made as the least of the three capacities stays true while
///   they grow; it only goes stale low, which costs a `grow_slots` call, never a write out
///   of bounds. An index below `room` is below `u32::MAX`: it fits a handle and is not the
///   one index no slot may have.
#[derive(Default)]
pub struct Entities {
    dense: Vec<Entity>,
    sparse: Vec<u32>,
    stamps: Vec<u16>,
    alive: u32,
    free_end: u32,
    /// Slots every array has capacity for: a fresh slot at a position below it is written
    /// into all three without a capacity check each.
    room: usize,
    /// The count of reserved ids (the low bits) and the owner's attention flag (the top
    /// bit): one word, so the one test every `&mut` world operation makes first covers both.
    reserved: AtomicU64,
}

/// The bit of `Entities::reserved` that holds the owner's attention flag.
const ATTENTION: u64 = 1 << 63;
/// The bits of `Entities::reserved` that count reserved ids.
const RESERVED: u64 = ATTENTION - 1;

impl Clone for Entities {
    fn clone(&self) -> Self {
        Entities {
            dense: self.dense.clone(),
            sparse: self.sparse.clone(),
            stamps: self.stamps.clone(),
            alive: self.alive,
            free_end: self.free_end,
            // The clones' capacities are their own: the first fresh slot measures them.
            room: 0,
            reserved: AtomicU64::new(self.reserved.load(Ordering::Relaxed)),
        }
    }
}

impl Entities {
    /// An empty allocator.
    pub const fn new() -> Entities {
        Entities {
            dense: Vec::new(),
            sparse: Vec::new(),
            stamps: Vec::new(),
            alive: 0,
            free_end: 0,
            room: 0,
            reserved: AtomicU64::new(0),
        }
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.alive as usize
    }

    /// True when no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.alive == 0
    }

    /// The live entities, densely packed, in no particular order.
    #[inline]
    pub fn alive(&self) -> &[Entity] {
        &self.dense[..self.alive as usize]
    }

    /// Where live `entity` is in [`Entities::alive`] (`None` for a stale or foreign
    /// handle): one read, no search. A snapshot lists entities in that order and refers to
    /// them by position.
    #[inline]
    pub fn position(&self, entity: Entity) -> Option<usize> {
        let pos = *self.sparse.get(entity.index() as usize)?;
        (pos < self.alive && self.dense[pos as usize] == entity).then_some(pos as usize)
    }

    /// The handles the next `n` calls to [`Entities::alloc`] hand out, in order, without
    /// handing them out: a loader maps references to them before it changes the world.
    ///
    /// # Panics
    /// Unless [`Entities::reserve`] linked at least `n` free slots (and nothing was
    /// reserved through `&self` since).
    pub fn upcoming(&self, n: usize) -> &[Entity] {
        let start = self.alive as usize;
        assert!(
            start + n <= self.free_end as usize
                && self.reserved.load(Ordering::Relaxed) & RESERVED == 0,
            "reserve the slots first"
        );
        &self.dense[start..start + n]
    }

    /// Hands out the `n` handles [`Entities::upcoming`] tells, at once: they become the
    /// tail of [`Entities::alive`], in order, exactly as `n` calls to [`Entities::alloc`]
    /// would leave them (one step instead of `n`).
    ///
    /// # Panics
    /// Unless [`Entities::reserve`] linked at least `n` free slots (and nothing was
    /// reserved through `&self` since).
    pub fn alloc_upcoming(&mut self, n: usize) {
        let start = self.alive as usize;
        let n = self.upcoming(n).len();
        for &entity in &self.dense[start..start + n] {
            self.stamps[entity.index() as usize] = stamp(entity);
        }
        self.alive += n as u32;
    }

    /// One past the largest index ever handed out: storages size per-index arrays by it.
    #[inline]
    pub fn index_bound(&self) -> usize {
        self.dense.len()
    }

    /// Number of slots retired because their generation ran out.
    pub fn retired(&self) -> usize {
        self.dense.len() - self.free_end as usize
    }

    /// Whether `entity` is live (its slot is in use *and* carries this generation): one
    /// read of the slot's stamp.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        match self.stamps.get(entity.index() as usize) {
            Some(&stamp) => u32::from(stamp) == entity.generation(),
            None => false,
        }
    }

    /// Makes sure the next `additional` calls to [`Entities::alloc`] find a pre-linked free
    /// slot, so each is a read and an increment: the fresh indices they need are linked into
    /// the free region now, in one pass over both arrays (what a batch spawn wants, instead
    /// of growing both arrays one entity at a time).
    ///
    /// The linked slots are ordinary free slots (generation 1, handed out in index order),
    /// so handing out fewer than `additional` leaks nothing: the rest wait for later spawns.
    ///
    /// # Panics
    /// When the fresh indices would exhaust the index space (as `alloc`).
    pub fn reserve(&mut self, additional: usize) {
        debug_assert_eq!(
            *self.reserved.get_mut() & RESERVED,
            0,
            "flush reservations first"
        );
        let free = (self.free_end - self.alive) as usize;
        let fresh = additional.saturating_sub(free);
        if fresh == 0 {
            return;
        }
        let start = self.dense.len();
        let end = start
            .checked_add(fresh)
            .filter(|&end| end <= u32::MAX as usize)
            .expect("entity index space exhausted (2^32 - 1 slots in use or retired)");
        // `end <= u32::MAX`, so every index below it fits a `u32` and is not `u32::MAX`.
        let (start, end) = (start as u32, end as u32);
        self.dense.reserve(fresh);
        self.sparse.reserve(fresh);
        self.stamps.reserve(fresh);
        self.measure_room();
        self.dense
            .extend((start..end).map(|i| Entity::new(i, 1).expect("generation 1 is non-zero")));
        self.sparse.extend(start..end);
        self.stamps.resize(end as usize, NOT_LIVE);
        if self.free_end == start {
            self.free_end = end;
            return;
        }
        // Retired slots sit between the free region and the fresh ones: move them behind.
        for index in start..end {
            self.swap_positions(self.free_end, index);
            self.free_end += 1;
        }
    }

    /// Hands out a live entity: a recycled slot if one is free, else a fresh index. The
    /// entity becomes the last of [`Entities::alive`] (so a run of `alloc`s is the tail of
    /// the live range, in order: what `World::spawn_batch` returns).
    ///
    /// # Panics
    /// When all 2^32 indices are in use or retired (the handle space is exhausted).
    // Always inlined: a spawn is a few instructions around it (the compiler otherwise
    // weighs it against each caller and was seen to leave it out of line everywhere).
    #[inline(always)]
    pub fn alloc(&mut self) -> Entity {
        match self.alloc_linked() {
            Some(entity) => entity,
            None => self.alloc_fresh(),
        }
    }

    /// The next pre-linked free slot, if any (recycled, or linked by `reserve`).
    #[inline(always)]
    fn alloc_linked(&mut self) -> Option<Entity> {
        debug_assert_eq!(
            *self.reserved.get_mut() & RESERVED,
            0,
            "flush reservations first"
        );
        if self.alive == self.free_end {
            return None;
        }
        let entity = self.dense[self.alive as usize];
        self.stamps[entity.index() as usize] = stamp(entity);
        self.alive += 1;
        Some(entity)
    }

    /// [`Entities::alloc`] for a loop that reserved first ([`Entities::reserve`]): the
    /// pre-linked path is a read and an increment, and the fresh-index path (only taken
    /// when the loop outruns its reservation) stays out of line, so the whole call inlines
    /// into the loop. `alloc` keeps both paths inline for single spawns into a growing world.
    #[inline(always)]
    pub fn alloc_reserved(&mut self) -> Entity {
        match self.alloc_linked() {
            Some(entity) => entity,
            None => self.alloc_fresh_outlined(),
        }
    }

    #[inline(never)]
    fn alloc_fresh_outlined(&mut self) -> Entity {
        self.alloc_fresh()
    }

    // Not `#[cold]`: every spawn into a growing world comes here, so it is inlined into
    // `alloc` (out of line, a call's register saves were a large share of its cost).
    #[inline(always)]
    fn alloc_fresh(&mut self) -> Entity {
        let len = self.dense.len();
        if len >= self.room {
            self.grow_slots();
        }
        // `len < room <= u32::MAX` (the type's invariant): the index fits and is not
        // `u32::MAX`.
        let index = len as u32;
        let entity = Entity::new(index, 1).expect("generation 1 is non-zero");
        // SAFETY: the three arrays have length `index` (`dense.len()`; the lengths are equal,
        // the type's invariant), and `index < room <= ` each one's capacity (`grow_slots`
        // made room for one more, and `room` never exceeds a capacity: the type's invariant).
        unsafe {
            push_within_capacity(&mut self.dense, entity);
            push_within_capacity(&mut self.sparse, index);
            push_within_capacity(&mut self.stamps, stamp(entity));
        }
        // The fresh slot sits after the retired region; bring it to the boundary.
        if self.free_end != index {
            self.swap_positions(self.free_end, index);
        }
        self.alive += 1;
        self.free_end += 1;
        entity
    }

    /// Makes room for one more slot in each of the three arrays (with the amortised growth
    /// of [`BlobVec`](crate::blob::BlobVec)); out of line, so the spawn path stays short.
    ///
    /// # Panics
    /// When the arrays already hold `u32::MAX` slots (every index in use or retired).
    #[cold]
    fn grow_slots(&mut self) {
        assert!(
            self.dense.len() < u32::MAX as usize,
            "entity index space exhausted (2^32 - 1 slots in use or retired)"
        );
        crate::blob::reserve_amortized(&mut self.dense, 1);
        crate::blob::reserve_amortized(&mut self.sparse, 1);
        crate::blob::reserve_amortized(&mut self.stamps, 1);
        self.measure_room();
    }

    /// Sets `room` to the least of the three capacities and `u32::MAX` (the type's
    /// invariant).
    fn measure_room(&mut self) {
        self.room = self
            .dense
            .capacity()
            .min(self.sparse.capacity())
            .min(self.stamps.capacity())
            .min(u32::MAX as usize);
    }

    /// Frees a live entity; returns false (and changes nothing) if it is not live.
    #[inline]
    pub fn free(&mut self, entity: Entity) -> bool {
        debug_assert_eq!(
            *self.reserved.get_mut() & RESERVED,
            0,
            "flush reservations first"
        );
        if !self.contains(entity) {
            return false;
        }
        let pos = self.sparse[entity.index() as usize];
        self.stamps[entity.index() as usize] = NOT_LIVE;
        self.alive -= 1;
        self.swap_positions(pos, self.alive);
        match entity.generation() {
            MAX_GENERATION => self.retire_at_boundary(),
            generation => {
                self.dense[self.alive as usize] =
                    Entity::new(entity.index(), generation + 1).expect("generation + 1 > 0");
            }
        }
        true
    }

    /// Moves the free slot at position `alive` into the retired region.
    #[cold]
    fn retire_at_boundary(&mut self) {
        self.free_end -= 1;
        self.swap_positions(self.alive, self.free_end);
    }

    /// Hands out an id through `&self` (see the module docs); it becomes live at the next
    /// [`Entities::flush`], which must come before any other `alloc` or `free`.
    ///
    /// # Panics
    /// When the index space is exhausted (as `alloc`).
    pub fn reserve_entity(&self) -> Entity {
        let n = self.reserved.fetch_add(1, Ordering::Relaxed) & RESERVED;
        let free = u64::from(self.free_end - self.alive);
        if n < free {
            return self.dense[(u64::from(self.alive) + n) as usize];
        }
        let index = u32::try_from(self.dense.len() as u64 + (n - free))
            .ok()
            .filter(|&i| i != u32::MAX)
            .expect("entity index space exhausted (2^32 - 1 slots in use or retired)");
        Entity::new(index, 1).expect("generation 1 is non-zero")
    }

    /// Whether ids were reserved since the last flush.
    #[inline]
    pub fn has_reserved(&mut self) -> bool {
        *self.reserved.get_mut() & RESERVED != 0
    }

    /// Whether ids were reserved since the last flush or the owner's flag is set
    /// ([`Entities::set_attention`]): one load and one test, what a world's `&mut`
    /// operations ask first.
    #[inline(always)]
    pub fn needs_attention(&mut self) -> bool {
        *self.reserved.get_mut() != 0
    }

    /// Sets or clears the owner's flag, which [`Entities::needs_attention`] reports until
    /// cleared (a world sets it while something reacts to structural changes, so the
    /// check it already makes for reserved ids also sends it down its slow path).
    pub fn set_attention(&mut self, on: bool) {
        let word = self.reserved.get_mut();
        *word = (*word & RESERVED) | if on { ATTENTION } else { 0 };
    }

    /// The owner's flag ([`Entities::set_attention`]).
    pub fn attention(&self) -> bool {
        self.reserved.load(Ordering::Relaxed) & ATTENTION != 0
    }

    /// Makes every reserved id live, in reservation order, calling `on_live` for each.
    pub fn flush(&mut self, mut on_live: impl FnMut(Entity)) {
        let word = self.reserved.get_mut();
        let reserved = *word & RESERVED;
        *word &= ATTENTION;
        for _ in 0..reserved {
            let entity = self.alloc();
            on_live(entity);
        }
    }

    /// Frees every live entity (each handle becomes stale).
    pub fn clear(&mut self) {
        while let Some(&entity) = self.alive().last() {
            self.free(entity);
        }
    }

    /// Heap bytes held by the allocator.
    pub fn memory_usage(&self) -> usize {
        self.dense.capacity() * std::mem::size_of::<Entity>()
            + self.sparse.capacity() * std::mem::size_of::<u32>()
            + self.stamps.capacity() * std::mem::size_of::<u16>()
    }

    /// Swaps two dense positions and repairs the sparse array (keeps both bound).
    #[inline]
    fn swap_positions(&mut self, a: u32, b: u32) {
        if a == b {
            return;
        }
        self.dense.swap(a as usize, b as usize);
        self.sparse[self.dense[a as usize].index() as usize] = a;
        self.sparse[self.dense[b as usize].index() as usize] = b;
    }
}

impl std::fmt::Debug for Entities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entities")
            .field("alive", &self.alive())
            .field("free", &(self.free_end - self.alive))
            .field("retired", &self.retired())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_the_tail_of_the_live_range_in_order() {
        let mut entities = Entities::default();
        let first: Vec<Entity> = (0..10).map(|_| entities.alloc()).collect();
        // Free some (recycled later), and run one slot to retirement (MAX_GENERATION is 3
        // in tests), so recycled, fresh and post-retirement slots all appear in a run.
        for &e in first.iter().step_by(3) {
            assert!(entities.free(e));
        }
        let mut last = entities.alloc();
        while last.generation() < MAX_GENERATION {
            assert!(entities.free(last));
            last = entities.alloc();
        }
        assert!(entities.free(last));
        let start = entities.len();
        let run: Vec<Entity> = (0..8).map(|_| entities.alloc()).collect();
        assert_eq!(&entities.alive()[start..], &run[..]);
    }

    fn check_invariants(e: &Entities) {
        assert_eq!(e.dense.len(), e.sparse.len());
        assert_eq!(e.stamps.len(), e.sparse.len());
        for (pos, ent) in e.dense.iter().enumerate() {
            assert_eq!(e.sparse[ent.index() as usize] as usize, pos);
            assert!((1..=MAX_GENERATION).contains(&ent.generation()));
            let live = pos < e.alive as usize;
            let expected = if live {
                ent.generation() as u16
            } else {
                NOT_LIVE
            };
            assert_eq!(e.stamps[ent.index() as usize], expected, "stamp of {ent:?}");
        }
        assert!(e.alive <= e.free_end && e.free_end as usize <= e.dense.len());
        check_room(e);
    }

    /// The room part of [`check_invariants`], in constant time: cheap enough to run after
    /// every single allocation of a long sequence (under Miri too).
    fn check_room(e: &Entities) {
        let least = e
            .dense
            .capacity()
            .min(e.sparse.capacity())
            .min(e.stamps.capacity());
        assert!(
            e.room <= least && e.room <= u32::MAX as usize,
            "room {} beyond a capacity ({least}) or the index space",
            e.room
        );
    }

    #[test]
    fn fresh_slots_grow_all_three_arrays_through_clones_and_reservations() {
        // Fresh slots are written without a capacity check per array: `room` must stay at
        // most every capacity however the arrays grew (one at a time, by a batch
        // reservation, in a clone with capacities of its own).
        let mut es = Entities::new();
        let mut handles = Vec::new();
        for round in 0..6 {
            for _ in 0..(round * 37 + 1) {
                handles.push(es.alloc());
                check_room(&es);
            }
            check_invariants(&es);
            es.reserve(round * 5 + 3);
            check_invariants(&es);
            let mut copy = es.clone();
            check_invariants(&copy);
            let more: Vec<_> = (0..(round * 11 + 2)).map(|_| copy.alloc()).collect();
            check_invariants(&copy);
            assert!(more.iter().all(|&m| copy.contains(m) && !es.contains(m)));
            es = copy;
            handles.extend(more);
        }
        assert!(handles.iter().all(|&h| es.contains(h)));
        assert_eq!(es.len(), handles.len());
    }

    #[test]
    fn alloc_free_recycles_with_new_generation() {
        let mut es = Entities::new();
        let a = es.alloc();
        let b = es.alloc();
        assert_ne!(a, b);
        assert!(es.free(a));
        assert!(!es.contains(a));
        assert!(!es.free(a), "double free is refused");
        let c = es.alloc();
        assert_eq!(c.index(), a.index());
        assert_eq!(c.generation(), a.generation() + 1);
        assert!(es.contains(b) && es.contains(c) && !es.contains(a));
        check_invariants(&es);
    }

    #[test]
    fn alive_slice_tracks_live_set() {
        let mut es = Entities::new();
        let v: Vec<_> = (0..10).map(|_| es.alloc()).collect();
        for e in v.iter().step_by(2) {
            es.free(*e);
        }
        let mut alive = es.alive().to_vec();
        alive.sort();
        let expected: Vec<_> = v.iter().skip(1).step_by(2).copied().collect();
        assert_eq!(alive, expected);
        check_invariants(&es);
    }

    #[test]
    fn exhausted_generation_retires_the_slot() {
        let mut es = Entities::new();
        let mut seen = Vec::new();
        // With MAX_GENERATION lowered to 3 in tests, slot 0 is used three times, then retired.
        for _ in 0..MAX_GENERATION {
            let e = es.alloc();
            assert_eq!(e.index(), 0);
            seen.push(e);
            es.free(e);
        }
        assert_eq!(es.retired(), 1);
        let fresh = es.alloc();
        assert_eq!(fresh.index(), 1, "retired slot is never reused");
        for old in &seen {
            assert!(!es.contains(*old));
            assert_ne!(*old, fresh);
        }
        check_invariants(&es);
    }

    #[test]
    fn fresh_slots_skip_retired_region() {
        let mut es = Entities::new();
        let a = es.alloc();
        let b = es.alloc();
        es.free(b);
        // Burn slot `a` down to retirement while `b` sits free.
        let mut cur = a;
        for _ in 0..MAX_GENERATION {
            es.free(cur);
            cur = es.alloc();
            if cur.index() != a.index() {
                break;
            }
        }
        check_invariants(&es);
        let many: Vec<_> = (0..5).map(|_| es.alloc()).collect();
        check_invariants(&es);
        for e in &many {
            assert!(es.contains(*e));
        }
        assert!(es.retired() <= 1);
    }

    /// An allocator with live, free and retired slots (generation cap 3 in tests).
    fn churned() -> Entities {
        let mut es = Entities::new();
        let v: Vec<_> = (0..6).map(|_| es.alloc()).collect();
        let mut cur = v[0];
        while cur.generation() < MAX_GENERATION {
            assert!(es.free(cur));
            cur = es.alloc();
        }
        assert!(es.free(cur));
        assert!(es.free(v[3]));
        assert_eq!(es.retired(), 1);
        es
    }

    #[test]
    fn reserve_links_fresh_slots_that_alloc_reserved_hands_out_in_alloc_order() {
        for additional in [0, 1, 2, 7] {
            let (mut plain, mut reserved) = (churned(), churned());
            reserved.reserve(additional);
            check_invariants(&reserved);
            assert_eq!(reserved.len(), plain.len(), "reserving makes nothing live");
            assert_eq!(reserved.retired(), 1, "the retired slot stays retired");
            // Two past the reservation: `alloc_reserved` falls back to a fresh index.
            for _ in 0..additional + 2 {
                assert_eq!(reserved.alloc_reserved(), plain.alloc());
            }
            check_invariants(&reserved);
        }
    }

    #[test]
    fn reserved_but_unused_slots_are_free_not_lost() {
        let mut es = Entities::new();
        es.reserve(10);
        assert_eq!((es.len(), es.index_bound()), (0, 10));
        let e = es.reserve_entity();
        es.flush(|_| {});
        assert_eq!(e.index(), 0);
        let rest: Vec<_> = (0..9).map(|_| es.alloc()).collect();
        assert_eq!(
            es.index_bound(),
            10,
            "every later spawn reuses the linked slots"
        );
        assert!(rest.iter().all(|&r| es.contains(r) && r.generation() == 1));
        check_invariants(&es);
    }

    #[test]
    fn only_live_handles_match_their_stamp() {
        let mut es = churned();
        es.reserve(3);
        let reserved = es.reserve_entity();
        assert!(
            !es.contains(reserved),
            "a reserved id is live only after the flush"
        );
        es.flush(|_| {});
        assert!(es.contains(reserved));
        check_invariants(&es);
        let live = es.alive()[0];
        for generation in [live.generation() + 1, MAX_GENERATION + 1, u32::MAX] {
            let forged = Entity::new(live.index(), generation).unwrap();
            assert!(
                !es.contains(forged),
                "generation {generation} is not the live one"
            );
        }
        let free = es.upcoming(1)[0];
        assert!(
            !es.contains(free),
            "a free slot's next handle is not live yet"
        );
        let beyond = Entity::new(es.index_bound() as u32, 1).unwrap();
        assert!(!es.contains(beyond), "an index never handed out");
        es.alloc_upcoming(1);
        assert!(es.contains(free));
        check_invariants(&es);
    }

    #[test]
    fn clear_makes_every_handle_stale() {
        let mut es = Entities::new();
        let v: Vec<_> = (0..4).map(|_| es.alloc()).collect();
        es.clear();
        assert!(es.is_empty());
        assert!(v.iter().all(|e| !es.contains(*e)));
        check_invariants(&es);
    }

    #[test]
    fn reservations_are_what_alloc_hands_out_next() {
        let mut es = Entities::new();
        let v: Vec<_> = (0..6).map(|_| es.alloc()).collect();
        es.free(v[1]);
        es.free(v[4]);
        // Two free (pre-linked) slots, then fresh indices.
        let reserved: Vec<_> = (0..4).map(|_| es.reserve_entity()).collect();
        assert!(
            reserved.iter().all(|e| !es.contains(*e)),
            "not live before the flush"
        );
        let mut flushed = Vec::new();
        es.flush(|e| flushed.push(e));
        assert_eq!(flushed, reserved);
        assert!(reserved.iter().all(|e| es.contains(*e)));
        assert!(
            !es.contains(v[1]) && !es.contains(v[4]),
            "old handles stay stale"
        );
        assert_eq!(es.len(), 8);
        assert!(!es.has_reserved());
        check_invariants(&es);
        let mut distinct = reserved.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 4);
    }

    #[test]
    fn reservation_skips_retired_slots() {
        let mut es = Entities::new();
        let mut cur = es.alloc();
        for _ in 1..MAX_GENERATION {
            es.free(cur);
            cur = es.alloc();
        }
        es.free(cur); // slot 0 retires
        assert_eq!(es.retired(), 1);
        let r = es.reserve_entity();
        assert_eq!(r.index(), 1);
        let mut flushed = Vec::new();
        es.flush(|e| flushed.push(e));
        assert_eq!(flushed, vec![r]);
        check_invariants(&es);
    }

    #[test]
    fn concurrent_reservations_are_distinct() {
        let mut es = Entities::new();
        let _keep: Vec<_> = (0..4).map(|_| es.alloc()).collect();
        es.free(_keep[2]);
        let per_thread = if cfg!(miri) { 8 } else { 500 };
        let reserved: Vec<Entity> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        (0..per_thread)
                            .map(|_| es.reserve_entity())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let mut sorted = reserved.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 4 * per_thread);
        let mut flushed = Vec::new();
        es.flush(|e| flushed.push(e));
        flushed.sort();
        assert_eq!(flushed, sorted);
        check_invariants(&es);
    }

    #[test]
    fn foreign_handles_are_not_alive() {
        let es = Entities::new();
        assert!(!es.contains(Entity::new(0, 1).unwrap()));
        assert!(!es.contains(Entity::new(u32::MAX, 9).unwrap()));
    }
}
