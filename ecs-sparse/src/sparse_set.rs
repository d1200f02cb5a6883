//! `SparseSet`: the values of one component, packed, with O(1) insert, look-up and removal.
//!
//! Three arrays kept in step (the classic sparse set; docs/workloads.md measures it against
//! archetype tables):
//!
//! ```text
//!                 sparse (paged, by entity index)          dense entities     dense data
//!   index:    0     1     2     3     4     5          pos:  0     1     2      0   1   2
//!          [  ∅  | 2v1 |  ∅  | 0v1 | 1v2 |  ∅  ]           [ 3v1 | 4v2 | 1v1 ]  [ c3| c4| c1]
//!                   |           |     |                        ^     ^     ^
//!                   |           +-----|------------------------+     |     |
//!                   |                 +------------------------------+     |
//!                   +------------------------------------------------------+
//!
//!   A sparse entry "p v g" is the dense position p and the entity's generation g.
//!
//!   remove 3v1 (swap-remove): pos = sparse[3] = 0; the last row (1v1, c1) moves into pos 0,
//!   sparse[1] = 0v1, sparse[3] = ∅, length 2. No gap is left and the freed slot is the next
//!   one written: memory is reused, never leaked.
//!
//!          [  ∅  | 0v1 |  ∅  |  ∅  | 1v2 |  ∅  ]           [ 1v1 | 4v2 ]        [ c1| c4]
//! ```
//!
//! * **contains / get**: the entry at `e.index()` must carry `e`'s generation, so a stale
//!   handle whose index was reused by a newer entity reads as absent, without reading the
//!   dense entity array (one dependent cache miss fewer than comparing `entities[pos]`).
//! * **insert**: append to both dense arrays, point the sparse entry at the new position.
//! * **remove**: swap-remove from both dense arrays and repair the moved entity's entry.
//!
//! The component's values live in a [`BlobVec`] (a raw allocation), so pointers handed out
//! through `&SparseSet` may be written by a query holding the world exclusively. Iterating a
//! single component is a plain loop over the dense arrays; the price of sparse sets is paid
//! by joins, which look each driving entity up in the other components' sets.

use std::alloc::Layout;
use std::ptr::NonNull;

use ecs_core::blob::{push_within_capacity, BlobVec};
use ecs_core::component::{ComponentId, ComponentInfo, Components};
use ecs_core::layout::{ComponentBytes, StorageUnit, UnitKind};
use ecs_core::storage::SparseLookup;
use ecs_core::Entity;

use crate::sparse_array::{offset_in_page, page_of, SparseArray, ABSENT};

/// The sparse entry of `entity` at dense position `pos`: its generation in the high half,
/// the position in the low half.
#[inline]
fn slot_of(entity: Entity, pos: usize) -> u64 {
    (u64::from(entity.generation()) << 32) | pos as u64
}

/// The most values a set holds: every position is then below `u32::MAX - 1`, so it fits the
/// low half of a sparse entry.
const MAX_VALUES: usize = u32::MAX as usize - 1;

/// The panic of an insert whose index the set already holds under another generation (or,
/// for the inserts that do not replace, under any).
#[cold]
#[inline(never)]
#[track_caller]
fn already_held(entity: Entity) -> ! {
    panic!(
        "entity index {} is already in the sparse set (inserting {entity:?})",
        entity.index()
    )
}

/// The values of one component, keyed by entity.
///
/// # Invariants
/// * **Parallel dense arrays**: `entities.len() == data.len()`; `data` item `p` is the
///   component value of `entities[p]`, an initialised value of `component`'s layout.
/// * **Sparse and dense agree**: for every position `p`,
///   `sparse.get(entities[p].index()) == Some(slot(entities[p], p))`, where
///   `slot_of` packs the entity's generation (high 32 bits) beside the position (low 32);
///   every non-absent sparse entry for index `i` holds a position `p < len` with
///   `entities[p].index() == i` and the generation of `entities[p]`. Hence no two dense
///   entities share an index, and a handle whose index *and* generation match the entry is
///   the held entity: `dense_index` validates a handle without reading `entities` (one
///   dependent cache miss fewer on every look-up by handle).
/// * **Positions fit**: `len <= MAX_VALUES < u32::MAX`, so every position is a `u32`.
/// * **No entry is absent**: a packed entry's high half is a handle's generation, never 0
///   (`Entity::new` refuses 0), so no entry equals [`ABSENT`] (0), and an absent entry's
///   high half (0) equals no handle's generation: comparing generations alone tells a held
///   handle from an absent index or a stale handle.
/// * **Room**: `room <= entities.capacity()`, `room <= data.capacity()` and
///   `room <= MAX_VALUES`. A `Vec`'s capacity only shrinks when asked to, and nothing here
///   asks; the one step that replaces `data`'s buffer (`extend_from` adopting a caller's
///   buffer) sets `room` to 0. So `len < room` proves there is space for one more value in
///   both dense arrays and that the new position fits, in one comparison. `room` may go stale
///   low (a growth it did not see), which costs a call to `grow_for_one`, never a write out
///   of bounds.
///
/// Every mutating method re-establishes these before running user code (a value's `Drop`),
/// so a panicking `Drop` leaves the set consistent.
pub struct SparseSet {
    component: ComponentId,
    sparse: SparseArray,
    entities: Vec<Entity>,
    data: BlobVec,
    /// Values both dense arrays have space for (see the invariant above).
    room: usize,
}

impl SparseSet {
    /// An empty set for the component `info` describes; allocates nothing.
    pub fn new(info: &ComponentInfo) -> SparseSet {
        SparseSet {
            component: info.id(),
            sparse: SparseArray::new(),
            entities: Vec::new(),
            data: BlobVec::for_component(info),
            room: 0,
        }
    }

    /// The component whose values the set holds.
    #[inline]
    pub fn component(&self) -> ComponentId {
        self.component
    }

    /// The component, by reference (a chunk's one-element list of dense components).
    #[inline]
    pub(crate) fn component_ref(&self) -> &ComponentId {
        &self.component
    }

    /// Number of entities in the set.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// True when no entity is in the set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entities in dense order: entity `i` owns the value at
    /// `data_ptr() + i * item_layout().size()`.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// Pointer to the first value (dangling when empty or zero-sized); values are packed at
    /// `item_layout().size()` strides, parallel to [`SparseSet::entities`].
    #[inline]
    pub fn data_ptr(&self) -> NonNull<u8> {
        self.data.base_ptr()
    }

    /// The layout of one value, padded to its alignment (the stride of the dense data).
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.data.item_layout()
    }

    /// The entity-index-to-position map (read-only, for inspection and memory reports).
    #[inline]
    pub fn sparse(&self) -> &SparseArray {
        &self.sparse
    }

    /// The dense position of `entity`'s value, or `None` when the set does not hold this
    /// exact handle (generation included).
    #[inline]
    pub fn dense_index(&self, entity: Entity) -> Option<usize> {
        // No absence test: an absent entry's generation half (0) matches no handle (the
        // "no entry is absent" invariant).
        let entry = self.sparse.entry(entity.index())?;
        ((entry >> 32) as u32 == entity.generation()).then_some(entry as u32 as usize)
    }

    /// Pointer to the value of `rows[0]` when the set holds all of `rows`, in that order, at
    /// consecutive positions: then the values of `rows` are packed from there, as a dense
    /// column parallel to `rows`.
    ///
    /// Sets filled together (a bundle spawned, a component added to a run of entities) keep
    /// their entities in the same order, so a join can walk them like a table. The check is
    /// one look-up and one `memcmp` of the ids (it stops at the first difference).
    pub fn aligned_with(&self, rows: &[Entity]) -> Option<NonNull<u8>> {
        let pos = self.aligned_position(rows)?;
        // SAFETY: `pos < entities.len() == data.len()` (a held entity's position).
        Some(unsafe { self.data.get_unchecked(pos) })
    }

    /// The position where the set holds all of `rows`, in that order, at consecutive
    /// positions (see [`SparseSet::aligned_with`]); what a caller keeps to skip the check
    /// while neither side changes.
    #[inline]
    pub fn aligned_position(&self, rows: &[Entity]) -> Option<usize> {
        let pos = self.dense_index(*rows.first()?)?;
        let run = self.entities.get(pos..pos.checked_add(rows.len())?)?;
        Entity::same_run(run, rows).then_some(pos)
    }

    /// Pointer to the value at position `pos` when positions `pos..pos + len` are all in the
    /// set (`len` at least 1); `None` otherwise.
    #[inline]
    pub fn run_at(&self, pos: usize, len: usize) -> Option<NonNull<u8>> {
        if len == 0 || pos.checked_add(len)? > self.len() {
            return None;
        }
        // SAFETY: `pos < pos + len <= len() == data.len()` (parallel dense arrays).
        Some(unsafe { self.data.get_unchecked(pos) })
    }

    /// Whether the set holds `entity` (a stale handle to a reused index is not held).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.dense_index(entity).is_some()
    }

    /// Pointer to `entity`'s value, valid until the set is next mutated.
    #[inline]
    pub fn get_ptr(&self, entity: Entity) -> Option<NonNull<u8>> {
        let pos = self.dense_index(entity)?;
        // SAFETY: a non-absent entry's position is below `entities.len()` (sparse and dense
        // agree), which equals `data.len()` (parallel dense arrays).
        Some(unsafe { self.data.get_unchecked(pos) })
    }

    /// Adds `entity` with a typed value.
    ///
    /// # Safety
    /// `T` is the set's component type (same layout and drop function), and its values
    /// may be used and dropped on any thread (as a `Send + Sync` type's).
    ///
    /// # Panics
    /// If the set already holds an entity with `entity`'s index (this handle or another
    /// generation of it), or already holds `u32::MAX - 1` values. The set is then unchanged
    /// and `value` is dropped.
    #[inline]
    pub unsafe fn insert<T>(&mut self, entity: Entity, value: T) {
        // SAFETY: the closure appends exactly one value, of the component's type (caller),
        // into the room `insert_with` made before calling it.
        unsafe { self.insert_with(entity, |data| data.push_unchecked(value)) }
    }

    /// Sets `entity`'s value: replaces (and returns) the old one if the set holds the entity,
    /// adds it otherwise.
    ///
    /// # Safety
    /// As for [`SparseSet::insert`].
    ///
    /// # Panics
    /// As [`SparseSet::insert`] when adding.
    ///
    /// The entity's sparse entry is found once for both cases: it is the one a new value's
    /// position is written to.
    // Always inlined: `World::insert` is this plus a few checks, and a call here saved and
    // restored six registers around a short body.
    #[inline(always)]
    pub unsafe fn insert_or_replace<T>(&mut self, entity: Entity, value: T) -> Option<T> {
        let pos = self.ensure_room();
        let slot = self.sparse.entry_mut(entity.index());
        let entry = *slot;
        if entry == ABSENT {
            // SAFETY: `pos` is the length of both dense arrays (parallel), below `room`
            // (`ensure_room`), so both have space for one more value and `pos` fits a sparse
            // entry; `T` is the component's type (caller).
            unsafe {
                self.data.push_unchecked(value);
                push_within_capacity(&mut self.entities, entity);
            }
            *slot = slot_of(entity, pos);
            return None;
        }
        if (entry >> 32) as u32 != entity.generation() {
            already_held(entity);
        }
        // SAFETY: `entry` is this handle's (generation checked): its low half is a position
        // `< data.len()` (parallel arrays), whose item is an initialised `T` (caller);
        // `replace` keeps it initialised.
        Some(unsafe {
            self.data
                .get_unchecked(entry as u32 as usize)
                .cast::<T>()
                .as_ptr()
                .replace(value)
        })
    }

    /// Adds `entity` with a value moved (bitwise) from `src`.
    ///
    /// # Safety
    /// `src` points to an initialised value of the set's component that the caller will not
    /// use or drop again, outside this set's buffer, which may be used and dropped on any thread (as a `Send + Sync` type's).
    ///
    /// # Panics
    /// As [`SparseSet::insert`]; the value at `src` is then not taken (the caller's promise
    /// not to drop it means it leaks, which is safe).
    #[inline]
    pub unsafe fn insert_from(&mut self, entity: Entity, src: NonNull<u8>) {
        // SAFETY: the closure appends exactly one value, the caller's owned, valid value,
        // into the room `insert_with` made before calling it.
        unsafe { self.insert_with(entity, |data| data.push_from_unchecked(src)) }
    }

    /// The shared body of the inserts: checks and reserves first, then performs only
    /// infallible writes, so a panic leaves the set untouched.
    ///
    /// # Safety
    /// `push` appends exactly one initialised value of the component to the array it is given
    /// (with room for one already reserved, so it does not panic).
    // Always inlined: a call here cost about a tenth of a per-entity insert in saved and
    // restored registers.
    #[inline(always)]
    unsafe fn insert_with(&mut self, entity: Entity, push: impl FnOnce(&mut BlobVec)) {
        let pos = self.ensure_room();
        let slot = self.sparse.entry_mut(entity.index());
        if *slot != ABSENT {
            already_held(entity);
        }
        // SAFETY: `pos` is the length of both dense arrays (parallel), below `room`
        // (`ensure_room`): both have space for one more value and `pos` fits a sparse entry. `push`
        // appends one value of the component (caller) and does not panic.
        unsafe {
            push(&mut self.data);
            push_within_capacity(&mut self.entities, entity);
        }
        *slot = slot_of(entity, pos);
    }

    /// The position of the next value, with space for it in both dense arrays: `len <
    /// room` afterwards. The inserts' shared preamble; the check is one comparison, the
    /// growth out of line.
    ///
    /// # Panics
    /// As [`SparseSet::grow_for_one`].
    #[inline(always)]
    fn ensure_room(&mut self) -> usize {
        let pos = self.entities.len();
        if pos >= self.room {
            self.grow_for_one();
        }
        pos
    }

    /// Makes space for one more value in both dense arrays and renews `room`.
    ///
    /// # Panics
    /// If the set already holds [`MAX_VALUES`] values (nothing is changed then).
    #[cold]
    #[inline(never)]
    fn grow_for_one(&mut self) {
        assert!(
            self.entities.len() < MAX_VALUES,
            "a sparse set holds at most u32::MAX - 1 values"
        );
        self.reserve(1);
    }

    /// Appends `value` as a *pending* row: a value whose entity is linked later, by
    /// [`SparseSet::link_pending`]. A batch spawn writes every value first and then links
    /// each set's entities in one pass over its two index arrays, instead of touching all
    /// three arrays of every set for each entity.
    ///
    /// # Safety
    /// As for [`SparseSet::insert`]; the data array has room (see [`SparseSet::reserve`]);
    /// until `link_pending` runs, no other method is called on the set (its dense arrays are
    /// not parallel meanwhile).
    #[inline(always)]
    pub(crate) unsafe fn push_pending<T>(&mut self, value: T) {
        // SAFETY: forwarded contract.
        unsafe { self.data.push_unchecked(value) };
    }

    /// Links the pending rows to `batch` in order (pending row `i` is `batch[i]`'s value) and
    /// drops any pending row left without an entity, so the dense arrays are parallel again.
    ///
    /// # Panics
    /// If the set already holds an index of `batch` (or `batch` repeats one), or would pass
    /// `u32::MAX - 1` values: the pending rows from that entity on are dropped first, so the
    /// set is consistent and holds the rows linked before it.
    pub(crate) fn link_pending(&mut self, batch: &[Entity]) {
        let pending = self.data.len() - self.entities.len();
        let batch = &batch[..pending.min(batch.len())];
        // Reserved first, so the append below cannot allocate (or fail) after the sparse
        // entries point at the new positions.
        ecs_core::blob::reserve_amortized(&mut self.entities, batch.len());
        let start = self.entities.len();
        // Rows from `start` on get positions below `MAX_VALUES` while `linked < fits`.
        let fits = MAX_VALUES - start;
        let mut linked = 0;
        let mut refused = None;
        // In runs of entities whose indices share a sparse page (a batch's fresh indices are
        // consecutive, so a run is usually a whole page): one page look-up per run.
        'runs: while linked < batch.len() {
            let page_index = page_of(batch[linked].index());
            let page = self.sparse.page_mut(page_index);
            for &entity in &batch[linked..] {
                if page_of(entity.index()) != page_index {
                    continue 'runs;
                }
                let pos = start + linked;
                let slot = &mut page[offset_in_page(entity.index())];
                if *slot != ABSENT || linked >= fits {
                    refused = Some(entity);
                    break 'runs;
                }
                *slot = slot_of(entity, pos);
                linked += 1;
            }
        }
        // The entries written above point at exactly these positions: the arrays agree again
        // (no user code ran in between).
        self.entities.extend_from_slice(&batch[..linked]);
        self.data.truncate(self.entities.len());
        if let Some(entity) = refused {
            panic!(
                "entity index {} is already in the sparse set, or the set is full (linking \
                 {entity:?})",
                entity.index()
            );
        }
    }

    /// Appends `entities` with their values (value `i` is `entities[i]`'s), copied in one
    /// block, or, when the set is empty and the caller offers the buffer holding them, with
    /// that buffer swapped in whole: the values as pending rows, then one linking pass.
    ///
    /// # Panics
    /// If the set holds an index of `entities` already, or `entities` repeats one (the
    /// values not yet linked are dropped first, so the set stays consistent).
    ///
    /// # Safety
    /// `values` points to `entities.len()` initialised values of the set's component, laid
    /// out as the set lays them out, outside the set, usable on any thread, handed over
    /// (the caller never uses or drops them again); `buffer`, if given, holds exactly those
    /// values (and is left holding what the caller must forget). No rows are pending.
    pub unsafe fn extend_from(
        &mut self,
        entities: &[Entity],
        values: NonNull<u8>,
        buffer: Option<&mut BlobVec>,
    ) {
        debug_assert_eq!(self.data.len(), self.entities.len(), "no pending rows");
        match buffer {
            Some(buffer) if self.data.is_empty() => {
                // The adopted buffer may be smaller than the one it replaces: `room` is
                // renewed by the next insert that needs it.
                self.room = 0;
                // SAFETY: the set is empty, so the caller gets an empty buffer back; both
                // hold values of the set's component; the adopted values are pending rows.
                unsafe { self.data.swap_buffers(buffer) }
            }
            // SAFETY: forwarded contract; the appended values are pending rows until linked.
            _ => unsafe { self.data.append_raw(values, entities.len()) },
        }
        self.link_pending(entities);
    }

    /// Exchanges the entities (and values) at dense positions `a` and `b`, repairing both
    /// sparse entries: what owning groups use to pack their entities at the front.
    ///
    /// # Panics
    /// If `a` or `b` is not below [`SparseSet::len`].
    pub fn swap_positions(&mut self, a: usize, b: usize) {
        assert!(
            a < self.len() && b < self.len(),
            "swap_positions out of range"
        );
        if a == b {
            return;
        }
        self.entities.swap(a, b);
        // SAFETY: both positions are below `entities.len() == data.len()` (just checked;
        // parallel dense arrays), and swapping both arrays alike keeps them parallel.
        unsafe { self.data.swap_unchecked(a, b) };
        for pos in [a, b] {
            let entity = self.entities[pos];
            // The entity is in the set, so its page exists: no allocation here.
            *self.sparse.entry_mut(entity.index()) = slot_of(entity, pos);
        }
    }

    /// Reorders the set so that its entities run in ascending `key` order (ties keep their
    /// current order), moving each value with its entity: what aligns a set with another
    /// storage's rows, so a join can walk both in step. O(n log n) to sort the keys, then at
    /// most one [`SparseSet::swap_positions`] per entity.
    pub fn sort_by_key(&mut self, mut key: impl FnMut(Entity) -> u64) {
        let keys: Vec<u64> = self.entities.iter().map(|&e| key(e)).collect();
        let mut order: Vec<u32> = (0..keys.len() as u32).collect();
        // Stable: entities with equal keys keep their relative order.
        order.sort_by_key(|&p| keys[p as usize]);
        // `order[i]` is the position (before sorting) of the entity that must end at `i`;
        // `now[p]` is where the entity first at `p` sits now, `at[i]` who sits at `i` now.
        let mut now: Vec<u32> = (0..keys.len() as u32).collect();
        let mut at = now.clone();
        for (i, &wanted) in order.iter().enumerate() {
            let from = now[wanted as usize] as usize;
            if from != i {
                self.swap_positions(i, from);
                let displaced = at[i];
                at[from] = displaced;
                now[displaced as usize] = from as u32;
                at[i] = wanted;
                now[wanted as usize] = i as u32;
            }
        }
    }

    /// Removes `entity` from the index and the entity array, and returns the position of its
    /// value, which the caller must then swap-remove from `data` (the last value moves into
    /// the hole, mirroring what happened to `entities`).
    #[inline(always)]
    fn unlink(&mut self, entity: Entity) -> Option<usize> {
        // One look-up of the entry, both to check the handle and to clear it.
        let slot = self.sparse.existing_entry_mut(entity.index())?;
        let entry = *slot;
        // Also rejects an absent entry (its generation half, 0, matches no handle).
        if (entry >> 32) as u32 != entity.generation() {
            return None;
        }
        *slot = ABSENT;
        let pos = entry as u32 as usize;
        let last = self.entities.len() - 1;
        // SAFETY: `entry` is held (generation checked), so its position is below
        // `entities.len()` (sparse and dense agree): `pos <= last`, both in bounds. The last
        // entity moves into the hole (a copy onto itself when `pos == last`) and the length
        // drops by one: `Vec::swap_remove` without its bounds check.
        let moved = unsafe {
            let base = self.entities.as_mut_ptr();
            let moved = *base.add(last);
            *base.add(pos) = moved;
            self.entities.set_len(last);
            moved
        };
        if pos != last {
            // `moved` is in the set, so its page exists.
            if let Some(slot) = self.sparse.existing_entry_mut(moved.index()) {
                *slot = slot_of(moved, pos);
            }
        }
        Some(pos)
    }

    /// Moves `entity`'s value into `dst` and removes the entity (swap-remove); false, with
    /// nothing written, when the set does not hold it.
    ///
    /// # Safety
    /// `dst` is valid for writing one value of the component and does not overlap the set's
    /// buffer.
    #[inline]
    pub unsafe fn remove_into(&mut self, entity: Entity, dst: NonNull<u8>) -> bool {
        let Some(pos) = self.unlink(entity) else {
            return false;
        };
        // SAFETY: `pos` was below the old length of both dense arrays (parallel), so it is
        // below `data.len()`; `dst` is a disjoint, writable slot (caller). The data array
        // swap-removes exactly as `unlink` did on `entities`, restoring the parallel arrays.
        unsafe { self.data.swap_remove_into_unchecked(pos, dst) };
        true
    }

    /// Removes `entity` and returns its value (swap-remove), `None` when the set does not
    /// hold it: [`SparseSet::remove_into`] with the value's type known.
    ///
    /// # Safety
    /// The set's component is `T`.
    #[inline]
    pub unsafe fn remove_typed<T>(&mut self, entity: Entity) -> Option<T> {
        let pos = self.unlink(entity)?;
        // SAFETY: as in `remove_into`, `pos < data.len()` and `data` swap-removes exactly as
        // `unlink` did on `entities`; the items are `T`s (caller).
        Some(unsafe { self.data.swap_remove_typed_unchecked::<T>(pos) })
    }

    /// Moves `entity`'s value into `dst` and removes the entity by shifting every later
    /// entity and value down one place, so the dense order is kept (O(len − position), where
    /// [`SparseSet::remove_into`] is O(1)); false, with nothing written, when the set does
    /// not hold it.
    ///
    /// Not for a set owned by a group: the group's packed prefix would move.
    ///
    /// # Safety
    /// As for [`SparseSet::remove_into`].
    pub(crate) unsafe fn remove_ordered_into(&mut self, entity: Entity, dst: NonNull<u8>) -> bool {
        let Some(pos) = self.dense_index(entity) else {
            return false;
        };
        self.sparse.remove(entity.index());
        self.entities.remove(pos);
        for (p, moved) in self.entities.iter().enumerate().skip(pos) {
            // `moved` is in the set, so its page exists: no allocation here.
            *self.sparse.entry_mut(moved.index()) = slot_of(*moved, p);
        }
        // SAFETY: `pos` was below the old length of both dense arrays (parallel), so it is
        // below `data.len()`; `dst` is a disjoint, writable slot (caller). The data array
        // shifts exactly as `entities` did, restoring the parallel arrays, and the entries
        // rewritten above point at the shifted positions.
        unsafe { self.data.remove_shift_into_unchecked(pos, dst) };
        true
    }

    /// Removes `entity` and drops its value; false when the set does not hold it.
    ///
    /// The index and entity array are updated before the value's `Drop` runs, and the data
    /// array fills the hole even if that `Drop` panics, so the set stays consistent.
    pub fn remove_and_drop(&mut self, entity: Entity) -> bool {
        let Some(pos) = self.unlink(entity) else {
            return false;
        };
        // SAFETY: as in `remove_into`, `pos < data.len()`; `swap_remove_and_drop_unchecked`
        // moves the last value into `pos` even when the drop panics, so `data` stays parallel
        // to `entities`.
        unsafe { self.data.swap_remove_and_drop_unchecked(pos) };
        true
    }

    /// Removes every entity and drops every value. Pages and buffers are kept for reuse.
    ///
    /// The index and entity array are emptied first; if a value's `Drop` panics, the other
    /// values are still dropped and the set is left empty.
    pub fn clear(&mut self) {
        for entity in self.entities.drain(..) {
            self.sparse.remove(entity.index());
        }
        self.data.clear();
    }

    /// Allocates the sparse page that `entity`'s entry lives on (its entry unchanged), so
    /// that inserting the entity later allocates no page.
    pub fn reserve_entry(&mut self, entity: Entity) {
        self.sparse.entry_mut(entity.index());
    }

    /// Makes room for `additional` more entities in the dense arrays (the sparse pages
    /// depend on which indices arrive, so they are allocated as they are touched).
    pub fn reserve(&mut self, additional: usize) {
        ecs_core::blob::reserve_amortized(&mut self.entities, additional);
        self.data.reserve(additional);
        self.room = self
            .entities
            .capacity()
            .min(self.data.capacity())
            .min(MAX_VALUES);
    }

    /// The set as one unit of a [`StorageLayout`](ecs_core::layout::StorageLayout): its
    /// length, the capacity of its dense arrays, the sparse pages it touched, the bytes of
    /// its values and all its bytes ([`SparseSet::memory_usage`]).
    pub fn layout(&self, components: &Components) -> StorageUnit {
        StorageUnit {
            kind: UnitKind::SparseSet,
            components: vec![ComponentBytes::new(
                self.component,
                components,
                self.data.memory_usage(),
            )],
            rows: self.len(),
            capacity: self.entities.capacity(),
            pages: Some(self.sparse.page_count()),
            bytes: self.memory_usage(),
        }
    }

    /// Heap bytes: sparse pages and page table, dense entities, dense data.
    pub fn memory_usage(&self) -> usize {
        self.sparse.memory_usage()
            + self.entities.capacity() * std::mem::size_of::<Entity>()
            + self.data.memory_usage()
    }
}

impl SparseLookup for SparseSet {
    #[inline]
    fn lookup(&self, entity: Entity) -> Option<NonNull<u8>> {
        self.get_ptr(entity)
    }

    #[inline]
    fn holds_none(&self) -> bool {
        self.is_empty()
    }

    /// Checks position `hint` first: sets filled by the same spawns keep their entities in
    /// runs of the same order, and comparing one entity in a sequentially walked array is
    /// cheaper than the paged look-up.
    #[inline]
    fn lookup_hinted(&self, hint: usize, entity: Entity) -> Option<(NonNull<u8>, usize)> {
        let pos = if self.entities.get(hint) == Some(&entity) {
            hint
        } else {
            self.dense_index(entity)?
        };
        // SAFETY: `pos < entities.len() == data.len()`: either checked just above, or a
        // non-absent entry's position (sparse and dense agree; parallel dense arrays).
        Some((unsafe { self.data.get_unchecked(pos) }, pos))
    }

    #[inline]
    fn contains(&self, entity: Entity) -> bool {
        SparseSet::contains(self, entity)
    }
}

impl std::fmt::Debug for SparseSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseSet")
            .field("component", &self.component)
            .field("len", &self.len())
            .field("sparse", &self.sparse)
            .field("data", &self.data)
            .finish()
    }
}

#[cfg(test)]
mod tests;
