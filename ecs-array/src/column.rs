//! [`Column`]: one component's values in a slot array indexed by entity index.
//!
//! ```text
//!   entity index:    0     1     2     3     4     5
//!   present:         1     0     1     1     0     0      (a bit per slot)
//!   generations:     1     -     3     1     -     -      (whose value each slot holds)
//!   values:        [ a  |  ?  |  c  |  d  |  ?  |  ?  ]   (one raw allocation)
//! ```
//!
//! Adding a component writes its slot and sets its bit; removing one clears the bit and
//! moves the value out. No other value ever moves, so a pointer to a value stays valid
//! until the array grows (a `&mut` call). The price is memory: the array reaches the
//! highest entity index that ever held the component, whoever holds it now.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use ecs_core::blob::dangling;
use ecs_core::component::{ComponentInfo, DropFn};
use ecs_core::entity::Entity;
use ecs_core::storage::SparseLookup;
use ecs_core::unwind::for_each_completing;

use crate::bits::Bits;

/// One component's values (see the module docs).
///
/// # Invariants
/// * `data` is an allocation of `capacity` items of layout `item` made by the global
///   allocator, or, when `capacity` is 0 or `item` is zero-sized, `dangling(item.align())`
///   (a zero-sized item has `capacity == usize::MAX` from the start: every slot exists).
/// * `present` holds exactly the slots that hold an initialised value of the component
///   (`item` its layout, `drop` its drop function, as the registry describes it), every one
///   below `capacity` and below `generations.len()`; `generations[i]` is the generation of
///   the entity whose value slot `i` holds. `count` is the number of slots in `present`.
/// * The values are owned by the column: each is dropped once, by `drop_slot`,
///   `clear` or the column's `Drop`, or moved out once by `take_into`.
///   They are values of a `Send + Sync` component type (or a run-time component the world
///   registered as such), which is why the column is `Send` and `Sync`.
pub struct Column {
    data: NonNull<u8>,
    capacity: usize,
    item: Layout,
    drop: Option<DropFn>,
    present: Bits,
    generations: Vec<u32>,
    count: usize,
}

// SAFETY: the column owns its values, which are `Send + Sync` (the type's invariants); the
// raw pointer is only an owned allocation.
unsafe impl Send for Column {}
// SAFETY: as for `Send`; `&self` methods only read bookkeeping and hand out pointers.
unsafe impl Sync for Column {}

impl Column {
    /// An empty column for the component `info` describes.
    pub fn new(info: &ComponentInfo) -> Column {
        let item = info.layout();
        Column {
            data: dangling(item.align()),
            capacity: if item.size() == 0 { usize::MAX } else { 0 },
            item,
            drop: info.drop_fn(),
            present: Bits::default(),
            generations: Vec::new(),
            count: 0,
        }
    }

    /// How many entities hold the component.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no entity holds it.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Slots the array has room for (the highest index it can hold, plus one); for a
    /// zero-sized component, the slots its generation array covers.
    pub fn slots(&self) -> usize {
        if self.item.size() == 0 {
            self.generations.len()
        } else {
            self.capacity
        }
    }

    /// Whether slot `index` holds a value.
    #[inline]
    pub(crate) fn is_present(&self, index: usize) -> bool {
        self.present.contains(index)
    }

    /// The present bits: word `w`, bit `b` is slot `w * 64 + b`.
    #[inline]
    pub(crate) fn present_word(&self, word: usize) -> u64 {
        self.present.word(word)
    }

    /// Pointer to slot `index` (initialised or not).
    ///
    /// # Safety
    /// `index < capacity`, so the offset stays inside the allocation.
    #[inline]
    pub(crate) unsafe fn slot(&self, index: usize) -> NonNull<u8> {
        // SAFETY: `index < capacity` (caller), so `index * size` is inside the allocation
        // of `capacity` items (or 0 for a zero-sized item).
        unsafe { self.data.add(index * self.item.size()) }
    }

    /// Makes room for slot `index`.
    fn ensure(&mut self, index: usize) {
        if self.generations.len() <= index {
            self.generations.resize(index + 1, 0);
        }
        if index < self.capacity {
            return;
        }
        let wanted = (index + 1).next_power_of_two().max(8);
        let new_layout = array_layout(self.item, wanted);
        // SAFETY: `new_layout` has a non-zero size (the item is not zero-sized: its capacity
        // would be `usize::MAX`), and for a reallocation the old layout is the one the
        // allocation was made with (`capacity` items of `item`), the alignment unchanged.
        let data = unsafe {
            if self.capacity == 0 {
                alloc::alloc(new_layout)
            } else {
                let old = array_layout(self.item, self.capacity);
                alloc::realloc(self.data.as_ptr(), old, new_layout.size())
            }
        };
        let Some(data) = NonNull::new(data) else {
            alloc::handle_alloc_error(new_layout)
        };
        // A reallocation moved the values bitwise, which is how Rust moves any value.
        self.data = data;
        self.capacity = wanted;
    }

    /// Moves the value at `src` into slot `index`, for an entity of `generation`.
    ///
    /// # Safety
    /// Slot `index` holds no value; `src` points to an initialised value of the column's
    /// component, outside the column, that the caller will not use or drop again.
    pub(crate) unsafe fn write(&mut self, index: usize, generation: u32, src: NonNull<u8>) {
        self.ensure(index);
        // SAFETY: `ensure` made `index < capacity`; the slot is free (caller), and `src`
        // holds one item of the column's layout that does not overlap it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                src.as_ptr(),
                self.slot(index).as_ptr(),
                self.item.size(),
            );
        }
        self.mark(index, generation);
    }

    /// [`Column::write`] for a typed value.
    ///
    /// # Safety
    /// Slot `index` holds no value; `T` is the column's component type.
    pub(crate) unsafe fn write_typed<T>(&mut self, index: usize, generation: u32, value: T) {
        self.ensure(index);
        // SAFETY: `ensure` made `index < capacity`, and the slot is free; `T` is the
        // column's item type (caller), so the slot is aligned and sized for it.
        unsafe { self.slot(index).cast::<T>().as_ptr().write(value) };
        self.mark(index, generation);
    }

    fn mark(&mut self, index: usize, generation: u32) {
        self.present.insert(index);
        self.generations[index] = generation;
        self.count += 1;
    }

    /// Forgets slot `index`'s value (the caller has moved it out or is dropping it).
    fn unmark(&mut self, index: usize) {
        self.present.remove(index);
        self.count -= 1;
    }

    /// Moves slot `index`'s value into `dst` and empties the slot.
    ///
    /// # Safety
    /// Slot `index` holds a value; `dst` is valid for writing one item of the column's
    /// layout and does not overlap the column.
    pub(crate) unsafe fn take_into(&mut self, index: usize, dst: NonNull<u8>) {
        self.unmark(index);
        // SAFETY: a present slot is below `capacity` and initialised (type invariants);
        // `dst` is a disjoint slot for one item (caller). The slot is now unmarked, so the
        // value has exactly one owner: `dst`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.slot(index).as_ptr(),
                dst.as_ptr(),
                self.item.size(),
            );
        }
    }

    /// Drops slot `index`'s value and empties the slot. The slot is emptied first, so a
    /// panicking `Drop` leaves the column consistent (the value counts as dropped).
    ///
    /// # Safety
    /// Slot `index` holds a value.
    pub(crate) unsafe fn drop_slot(&mut self, index: usize) {
        self.unmark(index);
        if let Some(drop) = self.drop {
            // SAFETY: the slot held an initialised value (caller) that nothing else owns now
            // that it is unmarked; `drop` is its type's drop function.
            unsafe { drop(self.slot(index).as_ptr()) };
        }
    }

    /// Drops every value. If a `Drop` panics, the others are still dropped and the panic
    /// then carries on, with the column already empty.
    pub(crate) fn clear(&mut self) {
        let present = std::mem::take(&mut self.present);
        self.count = 0;
        let (data, size, drop) = (self.data, self.item.size(), self.drop);
        let Some(drop) = drop else { return };
        for_each_completing(present.ones(), |index| {
            // SAFETY: `index` was present, so it is below `capacity` and initialised; the
            // bits were taken out first, so each value is dropped here exactly once.
            unsafe { drop(data.add(index * size).as_ptr()) };
        });
    }

    /// Heap bytes held: the slot array, the present bits and the generations.
    pub fn memory_usage(&self) -> usize {
        self.value_bytes()
            + self.present.memory_usage()
            + self.generations.capacity() * std::mem::size_of::<u32>()
    }

    /// Heap bytes of the slot array alone.
    pub fn value_bytes(&self) -> usize {
        if self.item.size() == 0 {
            0
        } else {
            self.capacity * self.item.size()
        }
    }
}

impl SparseLookup for Column {
    #[inline]
    fn lookup(&self, entity: Entity) -> Option<NonNull<u8>> {
        let index = entity.index() as usize;
        if self.present.contains(index) && self.generations[index] == entity.generation() {
            // SAFETY: a present slot is below `capacity` (type invariants).
            Some(unsafe { self.slot(index) })
        } else {
            None
        }
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        // Frees the allocation even when a value's `Drop` panics during `clear`.
        struct Free(NonNull<u8>, Layout, usize);
        impl Drop for Free {
            fn drop(&mut self) {
                if self.1.size() != 0 && self.2 != 0 {
                    // SAFETY: the column's allocation, of `capacity` (`self.2`) items of
                    // `item` (`self.1`), made by the global allocator (type invariants).
                    unsafe { alloc::dealloc(self.0.as_ptr(), array_layout(self.1, self.2)) };
                }
            }
        }
        let _free = Free(self.data, self.item, self.capacity);
        self.clear();
    }
}

/// The layout of `count` items of `item` (whose size is a multiple of its alignment, as a
/// Rust type's always is).
///
/// # Panics
/// When the array would exceed `isize::MAX` bytes.
fn array_layout(item: Layout, count: usize) -> Layout {
    item.size()
        .checked_mul(count)
        .and_then(|bytes| Layout::from_size_align(bytes, item.align()).ok())
        .expect("a component array larger than the address space")
}
