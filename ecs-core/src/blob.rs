//! `BlobVec`: a growable array of values whose type is known only by layout and drop function.
//!
//! This is the untyped bottom layer both backends build on: an archetype column and a sparse
//! set's dense data are each one `BlobVec`. It knows nothing of entities or rows; the layers
//! above keep those parallel to it.
//!
//! The buffer is a raw allocation (never a `Vec<u8>`), so pointers handed out from `&self` may
//! be written through by queries holding `&mut World` without violating aliasing rules:
//! the bytes are not behind the `&BlobVec` borrow.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use crate::component::{ComponentInfo, DropFn};

/// A type-erased `Vec`.
///
/// # Invariants
/// * `item.size()` is a multiple of `item.align()` (the layout is padded on construction).
/// * If `item.size() == 0` or `cap == 0`, `ptr` is dangling but aligned to `item.align()`
///   and nothing is allocated; zero-sized items report `cap == usize::MAX`.
/// * Otherwise `ptr` was allocated with `array_layout(item, cap)` by the global allocator.
/// * Items `0..len` are initialised values of the component; `len <= cap`.
pub struct BlobVec {
    item: Layout,
    drop: Option<DropFn>,
    ptr: NonNull<u8>,
    len: usize,
    cap: usize,
}

// SAFETY: every value enters a BlobVec through an `unsafe` push (`push`, `push_unchecked`,
// `push_from`, `push_from_unchecked`), whose contract makes the caller promise the value may
// be used and dropped on any thread, as a `Send + Sync` type's may. The world's callers keep
// it: typed values are of `Component` types (`Send + Sync` by the trait's bounds); a run-time
// value enters a world only as plain bytes (`insert_bytes`: no drop function, so no state but
// its bytes) or through the `unsafe fn World::insert_by_id`, which asks the same promise of
// its caller. A BlobVec has no shared interior state.
unsafe impl Send for BlobVec {}
// SAFETY: as above; `&BlobVec` only reads the header fields.
unsafe impl Sync for BlobVec {}

impl BlobVec {
    /// An empty array of items with this layout and drop function.
    pub fn new(item: Layout, drop: Option<DropFn>) -> BlobVec {
        let item = item.pad_to_align();
        BlobVec {
            item,
            drop,
            ptr: dangling(item.align()),
            len: 0,
            cap: if item.size() == 0 { usize::MAX } else { 0 },
        }
    }

    /// An empty array for a registered component.
    pub fn for_component(info: &ComponentInfo) -> BlobVec {
        BlobVec::new(info.layout(), info.drop_fn())
    }

    /// Number of initialised items.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no item is stored.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Items that fit without reallocating.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The (padded) layout of one item.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.item
    }

    /// Heap bytes owned by the array.
    pub fn memory_usage(&self) -> usize {
        if self.item.size() == 0 {
            0
        } else {
            self.cap * self.item.size()
        }
    }

    /// Pointer to item 0 (dangling when empty); item `i` is at `i * item_layout().size()`.
    #[inline]
    pub fn base_ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Pointer to item `index`.
    ///
    /// # Safety
    /// `index <= self.capacity()` (any index for zero-sized items), so the offset stays within
    /// the allocation. Reading or dropping through the pointer needs an initialised item
    /// there; writing one needs `index < self.capacity()`.
    #[inline]
    pub unsafe fn get_unchecked(&self, index: usize) -> NonNull<u8> {
        debug_assert!(index <= self.cap || self.item.size() == 0);
        // SAFETY: the caller keeps `index` within the allocation, so the offset stays in bounds.
        unsafe { self.ptr.add(index * self.item.size()) }
    }

    /// Makes room for `additional` more items.
    #[inline]
    pub fn reserve(&mut self, additional: usize) {
        let needed = self.len.checked_add(additional).expect("capacity overflow");
        if needed > self.cap {
            let first = min_capacity(self.item.size());
            self.grow_to(needed.max(self.cap.saturating_mul(2)).max(first));
        }
    }

    /// Makes room for exactly `additional` more items (no doubling).
    #[inline]
    pub fn reserve_exact(&mut self, additional: usize) {
        let needed = self.len.checked_add(additional).expect("capacity overflow");
        if needed > self.cap {
            self.grow_to(needed);
        }
    }

    #[cold]
    fn grow_to(&mut self, new_cap: usize) {
        debug_assert!(self.item.size() != 0 && new_cap > self.cap);
        let new_layout = array_layout(self.item, new_cap);
        let new_ptr = if self.cap == 0 {
            // SAFETY: `new_layout` has non-zero size (item size > 0, new_cap > 0).
            unsafe { alloc::alloc(new_layout) }
        } else {
            // SAFETY: `ptr` was allocated with `array_layout(item, cap)` (type invariant) and
            // the new size is non-zero and fits `isize` (checked by `array_layout`).
            unsafe {
                alloc::realloc(
                    self.ptr.as_ptr(),
                    array_layout(self.item, self.cap),
                    new_layout.size(),
                )
            }
        };
        // Only publish the new buffer once it exists: on failure nothing has changed.
        self.ptr = NonNull::new(new_ptr).unwrap_or_else(|| alloc::handle_alloc_error(new_layout));
        self.cap = new_cap;
    }

    /// Appends an item by copying its bytes from `src`, taking ownership of the value.
    ///
    /// # Safety
    /// `src` points to an initialised value of this array's component, which the caller must
    /// not use or drop afterwards; it does not overlap this array's buffer; it may be used and
    /// dropped on any thread (as a `Send + Sync` type's: see the `Send`/`Sync` impls).
    #[inline]
    pub unsafe fn push_from(&mut self, src: NonNull<u8>) {
        self.reserve(1);
        // SAFETY: `reserve` made `len < cap`, so slot `len` is writable.
        let dst = unsafe { self.get_unchecked(self.len) };
        // SAFETY: `src` is a valid item (caller) and `dst` a writable slot; they do not overlap.
        unsafe { copy_item(src.as_ptr(), dst.as_ptr(), self.item.size()) };
        self.len += 1;
    }

    /// [`BlobVec::push_from`] without the capacity check, for callers that reserved room
    /// (a row move reserves once for every column).
    ///
    /// # Safety
    /// As for `push_from`, and `len() < capacity()`.
    #[inline]
    pub unsafe fn push_from_unchecked(&mut self, src: NonNull<u8>) {
        debug_assert!(self.len < self.cap || self.item.size() == 0);
        // SAFETY: `len < cap` (caller), so slot `len` is writable.
        let dst = unsafe { self.get_unchecked(self.len) };
        // SAFETY: `src` is a valid item (caller) and `dst` a writable slot; they do not overlap.
        unsafe { copy_item(src.as_ptr(), dst.as_ptr(), self.item.size()) };
        self.len += 1;
    }

    /// Appends a typed value.
    ///
    /// # Safety
    /// `T` must be the type this array was created for, and `Send + Sync` (or its values
    /// otherwise safe to use and drop on any thread: see the `Send`/`Sync` impls).
    #[inline]
    pub unsafe fn push<T>(&mut self, value: T) {
        debug_assert_eq!(Layout::new::<T>().pad_to_align(), self.item);
        self.reserve(1);
        // SAFETY: slot `len` is within capacity and `T` is the item type (caller).
        unsafe { self.get_unchecked(self.len).cast::<T>().write(value) };
        self.len += 1;
    }

    /// [`BlobVec::push`] without the capacity check, for callers that reserved room (a batch
    /// reserves once for many values).
    ///
    /// # Safety
    /// As for `push`, and `len() < capacity()`.
    #[inline(always)]
    pub unsafe fn push_unchecked<T>(&mut self, value: T) {
        debug_assert_eq!(Layout::new::<T>().pad_to_align(), self.item);
        debug_assert!(self.len < self.cap || self.item.size() == 0);
        // Addressed as a `*mut T`: the item size is then a constant, not a load and a
        // multiply per push (a batch spawn pushes every value of every row through here).
        // SAFETY: `T` is the item type (caller), whose padded layout is the item layout, so
        // slot `len` starts `len` `T`s past `ptr`; it is within capacity (caller) and
        // aligned (`ptr` is; a zero-sized `T` does not move it).
        unsafe { self.ptr.as_ptr().cast::<T>().add(self.len).write(value) };
        self.len += 1;
    }

    /// Appends `count` items by copying them from `src` in one block, taking ownership of
    /// the values (what moving a whole column of loaded values into a table or set does: one
    /// `memcpy` instead of one call per item).
    ///
    /// # Safety
    /// `src` points to `count` initialised values of this array's component, laid out as
    /// this array lays them out (`item_layout().size()` apart), which the caller must not use
    /// or drop afterwards; they do not overlap this array's buffer; they may be used and
    /// dropped on any thread (as for [`BlobVec::push_from`]).
    pub unsafe fn append_raw(&mut self, src: NonNull<u8>, count: usize) {
        self.reserve(count);
        // SAFETY: `reserve` made room for `count` items from slot `len` on.
        let dst = unsafe { self.get_unchecked(self.len) };
        let bytes = self.item.size() * count;
        // SAFETY: `src` holds `count` items of this layout (caller) and `dst` has room for
        // them; the ranges do not overlap (caller).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_ptr(), bytes) };
        self.len += count;
    }

    /// Builds one item in place with `init`, which is given the uninitialised slot after the
    /// last item and must initialise it fully when it answers `Ok`; on `Err` the slot is not
    /// counted, so `init` drops anything it wrote there before answering `Err` (or it
    /// leaks). A loader decodes a value straight into the array this way, with no
    /// temporary.
    ///
    /// # Safety
    /// On `Ok`, `init` has written a valid value of this array's component into the slot,
    /// which may be used and dropped on any thread (as for [`BlobVec::push_from`]).
    #[inline]
    pub unsafe fn push_with<E>(
        &mut self,
        init: impl FnOnce(NonNull<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.reserve(1);
        // SAFETY: `reserve` made room for one more item; `init` as the caller promises.
        unsafe { self.push_with_unchecked(init) }
    }

    /// [`BlobVec::push_with`] into room already reserved: a loop that reserved for all its
    /// items once checks no capacity per item.
    ///
    /// # Safety
    /// As for [`BlobVec::push_with`], and `len() < capacity()`.
    #[inline(always)]
    pub unsafe fn push_with_unchecked<E>(
        &mut self,
        init: impl FnOnce(NonNull<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        debug_assert!(self.len < self.capacity());
        // SAFETY: slot `len` is below the capacity (caller), so writable.
        let slot = unsafe { self.get_unchecked(self.len) };
        init(slot)?;
        self.len += 1;
        Ok(())
    }

    /// Exchanges the two arrays' buffers (items, length and capacity); each array keeps its
    /// item layout and drop function. A loader hands a whole buffer of values to an empty
    /// column this way instead of copying them.
    ///
    /// # Panics
    /// If the item layouts differ.
    ///
    /// # Safety
    /// Both arrays hold values of the same component, so each one's drop function drops the
    /// other's values.
    pub unsafe fn swap_buffers(&mut self, other: &mut BlobVec) {
        assert_eq!(self.item, other.item, "buffers of different item layouts");
        std::mem::swap(&mut self.ptr, &mut other.ptr);
        std::mem::swap(&mut self.cap, &mut other.cap);
        std::mem::swap(&mut self.len, &mut other.len);
    }

    /// Forgets every item without dropping it: for a caller that has moved the values out
    /// (bytewise, e.g. with [`BlobVec::append_raw`] into another array). Leaks values that
    /// were not moved out, which is safe but wasteful.
    pub fn forget_all(&mut self) {
        self.len = 0;
    }

    /// Drops the items from `len` on, keeping the first `len`; does nothing if there are not
    /// more than `len`. Every item is dropped even if one's `Drop` panics.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let old = std::mem::replace(&mut self.len, len);
        let Some(drop) = self.drop else { return };
        let (ptr, size) = (self.ptr, self.item.size());
        crate::unwind::for_each_completing(len..old, |i| {
            // SAFETY: items `len..old` were initialised and, with `len` already lowered, are
            // dropped here exactly once.
            unsafe { drop(ptr.add(i * size).as_ptr()) }
        });
    }

    /// Exchanges items `a` and `b` (bytewise; both stay owned by the vector).
    ///
    /// # Safety
    /// `a < self.len()` and `b < self.len()`.
    #[inline]
    pub unsafe fn swap_unchecked(&mut self, a: usize, b: usize) {
        debug_assert!(a < self.len && b < self.len);
        if a != b {
            // SAFETY: both indices are below `len` (caller), so both items are in bounds, and
            // distinct items of one buffer do not overlap.
            unsafe {
                std::ptr::swap_nonoverlapping(
                    self.get_unchecked(a).as_ptr(),
                    self.get_unchecked(b).as_ptr(),
                    self.item.size(),
                );
            }
        }
    }

    /// Removes item `index` without dropping it, moving the last item into its place.
    /// Used once the value has been moved out (to another column or to the caller).
    ///
    /// # Safety
    /// `index < self.len()`; the value at `index` has already been moved out.
    #[inline]
    pub unsafe fn swap_remove_forget_unchecked(&mut self, index: usize) {
        debug_assert!(index < self.len);
        self.len -= 1;
        if index != self.len {
            // SAFETY: both indices are below the old length, so both slots are in bounds and
            // distinct; the last item is moved into the vacated slot.
            unsafe {
                let last = self.get_unchecked(self.len);
                let hole = self.get_unchecked(index);
                copy_item(last.as_ptr(), hole.as_ptr(), self.item.size());
            }
        }
    }

    /// Moves item `index` onto the end of `dst` and fills the hole with the last item: the
    /// item then belongs to `dst` (nothing is dropped). One step of moving a table row, with
    /// the item size dispatched once for both copies.
    ///
    /// # Safety
    /// `index < self.len()`; `dst` is another array of this array's item layout (the same
    /// component) with room for one more item (`dst.len() < dst.capacity()`).
    #[inline(always)]
    pub unsafe fn move_to_unchecked(&mut self, index: usize, dst: &mut BlobVec) {
        debug_assert!(index < self.len);
        debug_assert_eq!(self.item, dst.item);
        debug_assert!(dst.len < dst.cap);
        self.len -= 1;
        // SAFETY: `index` and the old last index `len` are below the old length and
        // `dst.len` is below `dst`'s capacity (caller), so all three slots are in bounds;
        // `dst` is another allocation (a distinct array), so the item's copy out does not
        // overlap, and the last item's copy into the hole moves between distinct slots
        // (skipped when the item taken was the last).
        unsafe {
            let hole = self.get_unchecked(index).as_ptr();
            let out = dst.get_unchecked(dst.len).as_ptr();
            let last = self.get_unchecked(self.len).as_ptr();
            move_out_and_fill(hole, out, last, index != self.len, self.item.size());
        }
        dst.len += 1;
    }

    /// Takes item `index` out as a `T` and fills the hole with the last item: what
    /// [`BlobVec::swap_remove_into_unchecked`] does, with both copies sized at compile time.
    ///
    /// # Safety
    /// `index < self.len()`; the items are `T`s (the array's layout is `T`'s).
    #[inline]
    pub unsafe fn swap_remove_typed_unchecked<T>(&mut self, index: usize) -> T {
        debug_assert!(index < self.len);
        debug_assert_eq!(self.item, Layout::new::<T>().pad_to_align());
        let items = self.ptr.as_ptr().cast::<T>();
        self.len -= 1;
        // SAFETY: `index` and the old last index `len` are below the old length, so both
        // slots are in bounds (for a zero-sized `T` every slot is the aligned dangling
        // pointer, valid for zero-sized reads and writes); the items are initialised `T`s
        // (caller). The value at `index` is moved out, then the last item is moved into its
        // slot when they differ; the last slot is past the new length.
        unsafe {
            let value = items.add(index).read();
            if index != self.len {
                std::ptr::copy_nonoverlapping(items.add(self.len), items.add(index), 1);
            }
            value
        }
    }

    /// Moves item `index` into `dst` and fills the hole with the last item.
    ///
    /// # Safety
    /// `index < self.len()`; `dst` is valid for writing one item and does not overlap the buffer.
    #[inline]
    pub unsafe fn swap_remove_into_unchecked(&mut self, index: usize, dst: NonNull<u8>) {
        // SAFETY: `index < len` (caller), `dst` is a writable, disjoint slot (caller).
        unsafe {
            let src = self.get_unchecked(index);
            copy_item(src.as_ptr(), dst.as_ptr(), self.item.size());
            self.swap_remove_forget_unchecked(index);
        }
    }

    /// Moves item `index` into `dst` and shifts every later item down one place, so the
    /// items keep their order: `len - index - 1` items move (order-preserving removal,
    /// O(n) where swap-removal is O(1); the removal-order workloads of docs/workloads.md
    /// measure both).
    ///
    /// # Safety
    /// `index < self.len()`; `dst` is valid for writing one item and does not overlap the buffer.
    pub unsafe fn remove_shift_into_unchecked(&mut self, index: usize, dst: NonNull<u8>) {
        debug_assert!(index < self.len);
        let size = self.item.size();
        let tail = self.len - index - 1;
        // SAFETY: `index < len` (caller), so the item is in bounds; `dst` is a writable slot
        // outside the buffer (caller). The tail, items `index + 1 .. len`, is in bounds and
        // moves one item down with an overlapping copy; afterwards items `0 .. len - 1` are
        // initialised, the moved-out value is no longer counted, and the last slot's stale
        // bytes are past the new length.
        unsafe {
            let hole = self.get_unchecked(index);
            copy_item(hole.as_ptr(), dst.as_ptr(), size);
            if tail > 0 && size > 0 {
                let next = self.get_unchecked(index + 1);
                std::ptr::copy(next.as_ptr(), hole.as_ptr(), tail * size);
            }
        }
        self.len -= 1;
    }

    /// Drops item `index` and fills the hole with the last item.
    ///
    /// The array is consistent even if the drop panics: the length is lowered before the drop
    /// runs and a guard moves the last item into the hole while the panic unwinds.
    ///
    /// # Safety
    /// `index < self.len()`.
    // Inlined for the values that need no drop (a despawn removes one per column): the
    // guarded drop path stays out of line.
    #[inline]
    pub unsafe fn swap_remove_and_drop_unchecked(&mut self, index: usize) {
        debug_assert!(index < self.len);
        match self.drop {
            // SAFETY: `index < len` (caller); the value needs no drop, so forgetting it is fine.
            None => unsafe { self.swap_remove_forget_unchecked(index) },
            // SAFETY: forwarded contract; `drop` is this array's drop function.
            Some(drop) => unsafe { self.swap_remove_and_drop_with(index, drop) },
        }
    }

    /// [`BlobVec::swap_remove_and_drop_unchecked`] for values with a drop function.
    ///
    /// # Safety
    /// `index < self.len()`; `drop` is `self.drop`'s function.
    #[inline(never)]
    unsafe fn swap_remove_and_drop_with(&mut self, index: usize, drop: DropFn) {
        struct FillHole<'a> {
            vec: &'a mut BlobVec,
            index: usize,
        }
        impl Drop for FillHole<'_> {
            fn drop(&mut self) {
                let (vec, index) = (&mut *self.vec, self.index);
                if index != vec.len {
                    // SAFETY: `len` was lowered, so slot `len` is the old last item and
                    // `index < len` is a distinct slot whose value has just been dropped.
                    unsafe {
                        let last = vec.get_unchecked(vec.len);
                        let hole = vec.get_unchecked(index);
                        copy_item(last.as_ptr(), hole.as_ptr(), vec.item.size());
                    }
                }
            }
        }
        self.len -= 1;
        let guard = FillHole { vec: self, index };
        // SAFETY: item `index` was initialised (it was below the old length) and is no longer
        // counted in `len`, so it is dropped exactly once.
        unsafe { drop(guard.vec.get_unchecked(index).as_ptr()) };
    }

    /// Drops every item. If a drop panics the remaining items are still dropped and the array
    /// is left empty (the length is cleared before any drop runs).
    pub fn clear(&mut self) {
        self.truncate(0);
    }
}

impl Drop for BlobVec {
    fn drop(&mut self) {
        struct Dealloc<'a>(&'a mut BlobVec);
        impl Drop for Dealloc<'_> {
            fn drop(&mut self) {
                let v = &mut *self.0;
                if v.item.size() != 0 && v.cap != 0 {
                    // SAFETY: `ptr` was allocated with this layout (type invariant).
                    unsafe { alloc::dealloc(v.ptr.as_ptr(), array_layout(v.item, v.cap)) };
                }
            }
        }
        // Free the buffer even if an item's drop panics.
        let guard = Dealloc(self);
        guard.0.clear();
    }
}

impl std::fmt::Debug for BlobVec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobVec")
            .field("item", &self.item)
            .field("len", &self.len)
            .field("cap", &self.cap)
            .finish()
    }
}

/// A heap buffer for one value of a run-time layout, freed on drop: where a value waits
/// while it is moved by layout alone (the world's by-id API, a storage moving values between
/// its halves). It never drops what it holds unless told to ([`ValueBuffer::drop_value`]).
pub struct ValueBuffer {
    pub(crate) ptr: NonNull<u8>,
    layout: Layout,
}

impl ValueBuffer {
    /// The buffer: room for one value of the layout, aligned for it.
    #[inline]
    pub fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// A buffer for one value of `layout` (no allocation for a zero-sized one).
    pub fn new(layout: Layout) -> ValueBuffer {
        let ptr = if layout.size() == 0 {
            dangling(layout.align())
        } else {
            // SAFETY: the layout has non-zero size.
            NonNull::new(unsafe { alloc::alloc(layout) })
                .unwrap_or_else(|| alloc::handle_alloc_error(layout))
        };
        ValueBuffer { ptr, layout }
    }

    /// Drops the value held; the buffer is freed afterwards even if the drop panics.
    ///
    /// # Safety
    /// The buffer holds an initialised value that `drop` is the drop function of.
    pub unsafe fn drop_value(self, drop: Option<DropFn>) {
        if let Some(drop) = drop {
            // SAFETY: the buffer holds an initialised value of this drop function (caller);
            // `self` is dropped afterwards (also on unwind), freeing the buffer.
            unsafe { drop(self.ptr.as_ptr()) };
        }
    }
}

impl Drop for ValueBuffer {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: allocated in `new` with this non-zero-size layout.
            unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}

/// A dangling pointer with the given alignment (what a zero-sized or empty buffer uses).
#[inline]
pub fn dangling(align: usize) -> NonNull<u8> {
    // SAFETY: `Layout` guarantees a power-of-two alignment, which is never zero. Using
    // `without_provenance` keeps the pointer valid for zero-sized accesses only.
    unsafe { NonNull::new_unchecked(std::ptr::without_provenance_mut(align)) }
}

/// The capacity a growing array of `item_size`-byte items jumps to first: about 512 bytes'
/// worth (rounded down to a power of two, so doubling lands on powers of two), and at least
/// 4 items.
///
/// `Vec` starts at 4 items and doubles, so a column of 4-byte values reallocates six times
/// before it holds 128 of them; every table, sparse set and entity array starting near 512
/// bytes saves those early reallocations (the structural-change workloads count allocations) for at most 512
/// bytes of slack per array.
#[inline]
pub const fn min_capacity(item_size: usize) -> usize {
    if item_size == 0 || item_size >= 128 {
        return 4;
    }
    let items = 512 / item_size;
    1 << (usize::BITS - 1 - items.leading_zeros())
}

/// Appends `value` to `vec` without checking its capacity: for a caller whose one check
/// covers several arrays (the entity allocator's three, a sparse set's two).
///
/// # Safety
/// `vec.len() < vec.capacity()`.
#[inline(always)]
pub unsafe fn push_within_capacity<T>(vec: &mut Vec<T>, value: T) {
    let len = vec.len();
    debug_assert!(len < vec.capacity());
    // SAFETY: the caller guarantees room for one more element, so position `len` is inside
    // the allocation and uninitialised; writing it first makes `len + 1` elements
    // initialised before the length says so.
    unsafe {
        vec.as_mut_ptr().add(len).write(value);
        vec.set_len(len + 1);
    }
}

/// `v.reserve(additional)` with the growth policy of [`BlobVec`]: at least double, and at
/// least [`min_capacity`] items.
#[inline]
pub fn reserve_amortized<T>(v: &mut Vec<T>, additional: usize) {
    if v.capacity() - v.len() < additional {
        grow_vec(v, additional);
    }
}

#[cold]
fn grow_vec<T>(v: &mut Vec<T>, additional: usize) {
    let target = (v.len() + additional)
        .max(v.capacity() * 2)
        .max(min_capacity(std::mem::size_of::<T>()));
    v.reserve_exact(target - v.len());
}

/// Copies one item of `size` bytes from `src` to `dst`.
///
/// Item sizes are only known at run time here, so a plain `copy_nonoverlapping` becomes a
/// call to `memcpy` even for a 4-byte component; moving rows between tables copies one item
/// per column, and those calls dominated structural changes. The common small sizes are
/// copied inline.
///
/// # Safety
/// `src` is valid for reading and `dst` for writing `size` bytes; the ranges do not overlap.
#[inline(always)]
pub unsafe fn copy_item(src: *const u8, dst: *mut u8, size: usize) {
    // SAFETY: each arm copies exactly `size` bytes (the caller's contract).
    unsafe {
        match size {
            0 => {}
            4 => fixed::<4>(src, dst),
            8 => fixed::<8>(src, dst),
            12 => fixed::<12>(src, dst),
            16 => fixed::<16>(src, dst),
            24 => fixed::<24>(src, dst),
            32 => fixed::<32>(src, dst),
            _ => std::ptr::copy_nonoverlapping(src, dst, size),
        }
    }
}

/// Copies `N` bytes with one unaligned load and store.
///
/// Through `MaybeUninit`, not `[u8; N]`: the bytes may be padding (uninitialised) or parts of
/// pointers, and only a `MaybeUninit` copy carries both over unchanged (a byte array would
/// read uninitialised memory and strip pointer provenance; Miri caught the latter on a moved
/// `String`).
///
/// # Safety
/// `src` is valid for reading and `dst` for writing `N` bytes; the ranges do not overlap.
#[inline(always)]
unsafe fn fixed<const N: usize>(src: *const u8, dst: *mut u8) {
    type Bytes<const N: usize> = std::mem::MaybeUninit<[u8; N]>;
    // SAFETY: `src` / `dst` are valid for `N` bytes (caller); unaligned accesses need no
    // alignment, and a `MaybeUninit` may hold any bytes.
    unsafe {
        dst.cast::<Bytes<N>>()
            .write_unaligned(src.cast::<Bytes<N>>().read_unaligned())
    }
}

/// Copies the item at `hole` to `out`, then (when `fill`) the item at `last` into `hole`,
/// choosing the copy for `size` once for both (see [`copy_item`]).
///
/// # Safety
/// `hole` is valid for reading and writing `size` bytes, `out` for writing and `last` for
/// reading them; `out` overlaps neither, and `last` does not overlap `hole` when `fill`.
#[inline(always)]
unsafe fn move_out_and_fill(hole: *mut u8, out: *mut u8, last: *const u8, fill: bool, size: usize) {
    /// Both copies for `N`-byte items.
    ///
    /// # Safety
    /// As for `move_out_and_fill`, with `size == N`.
    #[inline(always)]
    unsafe fn both<const N: usize>(hole: *mut u8, out: *mut u8, last: *const u8, fill: bool) {
        // SAFETY: the ranges are valid and disjoint as the caller promises.
        unsafe {
            fixed::<N>(hole, out);
            if fill {
                fixed::<N>(last, hole);
            }
        }
    }
    // SAFETY: each arm copies exactly `size` bytes per copy (the caller's contract).
    unsafe {
        match size {
            0 => {}
            4 => both::<4>(hole, out, last, fill),
            8 => both::<8>(hole, out, last, fill),
            12 => both::<12>(hole, out, last, fill),
            16 => both::<16>(hole, out, last, fill),
            24 => both::<24>(hole, out, last, fill),
            32 => both::<32>(hole, out, last, fill),
            _ => {
                std::ptr::copy_nonoverlapping(hole, out, size);
                if fill {
                    std::ptr::copy_nonoverlapping(last, hole, size);
                }
            }
        }
    }
}

/// The layout of `n` items.
///
/// # Panics
/// If the array would exceed `isize::MAX` bytes.
fn array_layout(item: Layout, n: usize) -> Layout {
    let size = item.size().checked_mul(n).expect("capacity overflow");
    Layout::from_size_align(size, item.align()).expect("capacity overflow")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::rc::Rc;

    unsafe fn drop_rc(ptr: *mut u8) {
        // SAFETY: test arrays only hold `Rc<Cell<u32>>` values.
        unsafe { std::ptr::drop_in_place(ptr.cast::<Rc<Cell<u32>>>()) }
    }

    fn rc_vec() -> BlobVec {
        BlobVec::new(Layout::new::<Rc<Cell<u32>>>(), Some(drop_rc))
    }

    #[test]
    fn first_capacity_is_a_power_of_two_near_512_bytes() {
        assert_eq!(min_capacity(4), 128);
        assert_eq!(min_capacity(12), 32);
        assert_eq!(min_capacity(64), 8);
        assert_eq!(
            (min_capacity(0), min_capacity(128), min_capacity(4096)),
            (4, 4, 4)
        );
        let mut v: Vec<u32> = Vec::new();
        reserve_amortized(&mut v, 1);
        assert_eq!(v.capacity(), 128);
        v.resize(128, 0);
        reserve_amortized(&mut v, 1);
        assert_eq!(v.capacity(), 256, "then doubles");
    }

    #[test]
    fn push_get_swap_remove() {
        let mut v = BlobVec::new(Layout::new::<u64>(), None);
        for i in 0..100u64 {
            // SAFETY: the array holds u64.
            unsafe { v.push(i) };
        }
        // SAFETY: index 10 < len; the array holds u64.
        unsafe {
            v.swap_remove_and_drop_unchecked(10);
            assert_eq!(*v.get_unchecked(10).cast::<u64>().as_ptr(), 99);
        }
        let mut out = 0u64;
        // SAFETY: index 0 < len; `out` is a disjoint u64 slot.
        unsafe { v.swap_remove_into_unchecked(0, NonNull::from(&mut out).cast()) };
        assert_eq!((out, v.len()), (0, 98));
    }

    #[test]
    fn typed_swap_removal_moves_each_value_out_once() {
        let values: Vec<Rc<Cell<u32>>> = (0..4).map(|i| Rc::new(Cell::new(i))).collect();
        let mut v = rc_vec();
        for value in &values {
            // SAFETY: the array holds Rc<Cell<u32>>.
            unsafe { v.push(value.clone()) };
        }
        // Middle (the last moves in), then the last item itself, then the first.
        for (index, expected, refill) in [(1, 1, 3), (2, 2, 0), (0, 0, 3)] {
            // SAFETY: `index < len`; the array holds Rc<Cell<u32>>.
            let removed = unsafe { v.swap_remove_typed_unchecked::<Rc<Cell<u32>>>(index) };
            assert_eq!(removed.get(), expected);
            drop(removed);
            if index < v.len() {
                // SAFETY: `index < len`; the array holds Rc<Cell<u32>>.
                let filled = unsafe { &*v.get_unchecked(index).cast::<Rc<Cell<u32>>>().as_ptr() };
                assert_eq!(filled.get(), refill);
            }
        }
        assert_eq!(v.len(), 1);
        drop(v);
        assert!(
            values.iter().all(|value| Rc::strong_count(value) == 1),
            "no leak, no double drop"
        );
        let mut zst = BlobVec::new(Layout::new::<()>(), None);
        // SAFETY: the array holds `()`.
        unsafe {
            zst.push(());
            zst.push(());
            zst.swap_remove_typed_unchecked::<()>(0);
        }
        assert_eq!(zst.len(), 1);
    }

    #[test]
    fn moving_to_another_array_owns_each_value_once() {
        let values: Vec<Rc<Cell<u32>>> = (0..4).map(|i| Rc::new(Cell::new(i))).collect();
        let (mut from, mut to) = (rc_vec(), rc_vec());
        for value in &values {
            // SAFETY: the array holds Rc<Cell<u32>>.
            unsafe { from.push(value.clone()) };
        }
        let read = |v: &BlobVec, i: usize| {
            // SAFETY: callers pass an index below `len` of an array of Rc<Cell<u32>>.
            unsafe { (*v.get_unchecked(i).cast::<Rc<Cell<u32>>>().as_ptr()).get() }
        };
        // Middle (the last fills the hole), the last itself, then the first.
        for (index, moved) in [(1, 1), (2, 2), (0, 0)] {
            to.reserve(1);
            // SAFETY: `index < from.len()`; `to` is another Rc<Cell<u32>> array with room.
            unsafe { from.move_to_unchecked(index, &mut to) };
            assert_eq!(read(&to, to.len() - 1), moved);
        }
        assert_eq!((from.len(), read(&from, 0)), (1, 3));
        assert_eq!(
            (0..to.len()).map(|i| read(&to, i)).collect::<Vec<_>>(),
            [1, 2, 0]
        );
        drop((from, to));
        assert!(
            values.iter().all(|value| Rc::strong_count(value) == 1),
            "no leak, no double drop"
        );
        // Sizes copied by each arm: 4, 12, 20 (the general copy) and zero-sized.
        fn round_trip<T: Copy + PartialEq + std::fmt::Debug>(a: T, b: T) {
            let (mut from, mut to) = (
                BlobVec::new(Layout::new::<T>(), None),
                BlobVec::new(Layout::new::<T>(), None),
            );
            // SAFETY: both arrays hold `T`s; `to` has room after `reserve`; index 0 < len.
            unsafe {
                from.push(a);
                from.push(b);
                to.reserve(1);
                from.move_to_unchecked(0, &mut to);
                assert_eq!(*to.get_unchecked(0).cast::<T>().as_ptr(), a);
                assert_eq!(*from.get_unchecked(0).cast::<T>().as_ptr(), b);
            }
            assert_eq!((from.len(), to.len()), (1, 1));
        }
        round_trip(1u32, 2u32);
        round_trip([1u32; 3], [2u32; 3]);
        round_trip([1u32; 5], [2u32; 5]);
        round_trip((), ());
    }

    #[test]
    fn shift_removal_keeps_order_and_owns_each_value_once() {
        let values: Vec<Rc<Cell<u32>>> = (0..5).map(|i| Rc::new(Cell::new(i))).collect();
        let mut v = rc_vec();
        for value in &values {
            // SAFETY: the array holds Rc<Cell<u32>>.
            unsafe { v.push(value.clone()) };
        }
        let mut out = std::mem::MaybeUninit::<Rc<Cell<u32>>>::uninit();
        for (index, expected) in [(1, 1), (3, 4), (0, 0)] {
            // SAFETY: `index < len`; `out` is a disjoint slot, read (moved out) just after.
            let removed = unsafe {
                v.remove_shift_into_unchecked(index, NonNull::from(&mut out).cast());
                out.assume_init_read()
            };
            assert_eq!(removed.get(), expected);
        }
        let kept: Vec<u32> = (0..v.len())
            // SAFETY: every index below `len` holds an initialised Rc<Cell<u32>>.
            .map(|i| unsafe { (*v.get_unchecked(i).cast::<Rc<Cell<u32>>>().as_ptr()).get() })
            .collect();
        assert_eq!(kept, [2, 3], "the rest keep their order");
        // SAFETY: the last index; moving the only remaining tail-less item works too.
        let last = unsafe {
            v.remove_shift_into_unchecked(1, NonNull::from(&mut out).cast());
            out.assume_init_read()
        };
        assert_eq!(last.get(), 3);
        drop(last);
        drop(v);
        assert!(
            values.iter().all(|r| Rc::strong_count(r) == 1),
            "each dropped once"
        );
    }

    #[test]
    fn drops_each_value_once() {
        let counter = Rc::new(Cell::new(0));
        let mut v = rc_vec();
        for _ in 0..10 {
            // SAFETY: the array holds Rc<Cell<u32>>.
            unsafe { v.push(counter.clone()) };
        }
        assert_eq!(Rc::strong_count(&counter), 11);
        // SAFETY: 3 < len.
        unsafe { v.swap_remove_and_drop_unchecked(3) };
        assert_eq!(Rc::strong_count(&counter), 10);
        drop(v);
        assert_eq!(Rc::strong_count(&counter), 1);
    }

    struct PanicOnDrop(bool, Rc<Cell<u32>>);
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            self.1.set(self.1.get() + 1);
            if self.0 {
                panic!("drop panicked");
            }
        }
    }
    unsafe fn drop_pod(ptr: *mut u8) {
        // SAFETY: test arrays only hold PanicOnDrop values.
        unsafe { std::ptr::drop_in_place(ptr.cast::<PanicOnDrop>()) }
    }

    #[test]
    fn panicking_drop_leaves_array_consistent() {
        let drops = Rc::new(Cell::new(0));
        let mut v = BlobVec::new(Layout::new::<PanicOnDrop>(), Some(drop_pod));
        for i in 0..4 {
            // SAFETY: the array holds PanicOnDrop.
            unsafe { v.push(PanicOnDrop(i == 1, drops.clone())) };
        }
        // SAFETY: 1 < len.
        let r = catch_unwind(AssertUnwindSafe(|| unsafe {
            v.swap_remove_and_drop_unchecked(1)
        }));
        assert!(r.is_err());
        assert_eq!((v.len(), drops.get()), (3, 1));
        // The last item moved into the hole despite the panic.
        // SAFETY: 1 < len and the array holds PanicOnDrop.
        assert!(!unsafe { &*v.get_unchecked(1).cast::<PanicOnDrop>().as_ptr() }.0);
        drop(v);
        assert_eq!(drops.get(), 4);
    }

    #[test]
    fn clear_finishes_after_panic() {
        let drops = Rc::new(Cell::new(0));
        let mut v = BlobVec::new(Layout::new::<PanicOnDrop>(), Some(drop_pod));
        for i in 0..5 {
            // SAFETY: the array holds PanicOnDrop.
            unsafe { v.push(PanicOnDrop(i == 0, drops.clone())) };
        }
        assert!(catch_unwind(AssertUnwindSafe(|| v.clear())).is_err());
        assert_eq!((v.len(), drops.get()), (0, 5));
    }

    #[test]
    fn truncate_drops_only_the_tail_and_finishes_after_panic() {
        let drops = Rc::new(Cell::new(0));
        let mut v = BlobVec::new(Layout::new::<PanicOnDrop>(), Some(drop_pod));
        v.reserve(6);
        for i in 0..6 {
            // SAFETY: the array holds PanicOnDrop and room for 6 was reserved.
            unsafe { v.push_unchecked(PanicOnDrop(i == 3, drops.clone())) };
        }
        v.truncate(9);
        assert_eq!(
            (v.len(), drops.get()),
            (6, 0),
            "a longer length changes nothing"
        );
        assert!(catch_unwind(AssertUnwindSafe(|| v.truncate(2))).is_err());
        assert_eq!(
            (v.len(), drops.get()),
            (2, 4),
            "items 2..6 dropped despite the panic"
        );
        drop(v);
        assert_eq!(drops.get(), 6);
    }

    #[test]
    fn append_raw_push_with_and_swap_buffers_move_each_value_once() {
        let counter = Rc::new(Cell::new(0));
        let mut source = rc_vec();
        for _ in 0..5 {
            // SAFETY: the array holds `Rc<Cell<u32>>`s.
            unsafe { source.push(counter.clone()) };
        }
        let mut target = rc_vec();
        // SAFETY: `source` holds 5 initialised values of the same type, forgotten below.
        unsafe { target.append_raw(source.base_ptr(), 5) };
        source.forget_all();
        assert_eq!((target.len(), Rc::strong_count(&counter)), (5, 6));
        // An `Err` from `push_with` leaves nothing behind; an `Ok` counts the value.
        // SAFETY: on `Ok` the slot holds a valid `Rc`.
        let refused = unsafe { target.push_with(|_| Err::<(), _>("no")) };
        assert_eq!((refused, target.len()), (Err("no"), 5));
        let value = counter.clone();
        // SAFETY: as above.
        unsafe {
            target
                .push_with(|slot| {
                    slot.cast::<Rc<Cell<u32>>>().write(value);
                    Ok::<(), ()>(())
                })
                .unwrap()
        };
        let mut empty = rc_vec();
        // SAFETY: both hold `Rc<Cell<u32>>`s.
        unsafe { empty.swap_buffers(&mut target) };
        assert_eq!((empty.len(), target.len()), (6, 0));
        drop(target);
        drop(empty);
        assert_eq!(Rc::strong_count(&counter), 1, "every value dropped once");
    }

    #[test]
    fn zero_sized_items_never_allocate() {
        let mut v = BlobVec::new(Layout::new::<()>(), None);
        for _ in 0..1000 {
            // SAFETY: the array holds ().
            unsafe { v.push(()) };
        }
        assert_eq!(
            (v.len(), v.memory_usage(), v.capacity()),
            (1000, 0, usize::MAX)
        );
    }

    #[test]
    fn over_aligned_items_are_aligned() {
        #[repr(align(4096))]
        struct Page(#[allow(dead_code)] u8);
        let mut v = BlobVec::new(Layout::new::<Page>(), None);
        for i in 0..3 {
            // SAFETY: the array holds Page.
            unsafe { v.push(Page(i)) };
            // SAFETY: i < len.
            let p = unsafe { v.get_unchecked(i as usize) };
            assert_eq!(p.as_ptr() as usize % 4096, 0);
        }
    }

    #[test]
    fn unpadded_dynamic_layout_is_padded() {
        let v = BlobVec::new(Layout::from_size_align(3, 4).unwrap(), None);
        assert_eq!(v.item_layout().size(), 4);
    }
}
