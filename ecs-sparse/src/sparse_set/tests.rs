//! Unit tests of `SparseSet`: one generic body over every kind of element, plus the drop,
//! panic, stale-handle and memory cases.

use super::*;
use std::cell::Cell;
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use ecs_core::component::{ComponentDescriptor, Components, DropFn};
use ecs_core::StorageKind;

/// Enough entities to cross a sparse page; fewer under Miri, which is slow.
const N: u32 = if cfg!(miri) { 40 } else { 3000 };

unsafe fn drop_as<T>(ptr: *mut u8) {
    // SAFETY: each set built by `set_for::<T>` only holds `T` values.
    unsafe { std::ptr::drop_in_place(ptr.cast::<T>()) }
}

/// A set for any Rust type `T` (registered as a run-time component, so test types need not
/// be `Send + Sync` and may hold an `Rc` drop counter).
fn set_for<T>() -> SparseSet {
    let mut components = Components::default();
    let id = components.register_dynamic(ComponentDescriptor {
        name: std::any::type_name::<T>().into(),
        layout: Layout::new::<T>(),
        drop: std::mem::needs_drop::<T>().then_some(drop_as::<T> as DropFn),
        storage: StorageKind::Sparse,
    });
    SparseSet::new(components.info(id))
}

fn entity(index: u32, generation: u32) -> Entity {
    Entity::new(index, generation).unwrap()
}

/// Spreads test indices over several pages, out of order.
fn index_of(i: u32) -> u32 {
    (i * 7919) % (N * 3)
}

/// Reads `entity`'s value as a `T`.
fn value<T>(set: &SparseSet, entity: Entity) -> Option<&T> {
    // SAFETY: the tests only read sets created for `T`, and the set is not mutated while
    // the reference lives (it borrows `set`).
    set.get_ptr(entity)
        .map(|p| unsafe { p.cast::<T>().as_ref() })
}

/// Checks every documented invariant of the set.
fn assert_consistent(set: &SparseSet) {
    assert_eq!(set.entities.len(), set.data.len(), "parallel dense arrays");
    for (pos, &e) in set.entities().iter().enumerate() {
        assert_eq!(
            set.sparse.get(e.index()),
            Some(slot_of(e, pos)),
            "sparse -> dense (generation beside the position)"
        );
        assert_eq!(set.dense_index(e), Some(pos));
        let expected = set.data_ptr().as_ptr() as usize + pos * set.item_layout().size();
        assert_eq!(set.get_ptr(e).unwrap().as_ptr() as usize, expected);
    }
    let mut indices: Vec<u32> = set.entities().iter().map(|e| e.index()).collect();
    indices.sort_unstable();
    indices.dedup();
    assert_eq!(indices.len(), set.len(), "no index twice");
    assert!(
        set.room <= set.entities.capacity()
            && set.room <= set.data.capacity()
            && set.room <= MAX_VALUES,
        "room {} within both capacities ({}, {})",
        set.room,
        set.entities.capacity(),
        set.data.capacity()
    );
}

/// The body every element kind runs: insert, typed and raw; move out; drop; clear; reuse.
fn exercise<T: PartialEq + Debug>(make: impl Fn(u32) -> T) {
    let mut set = set_for::<T>();
    for i in 0..N {
        let e = entity(index_of(i), 1 + i % 3);
        if i % 2 == 0 {
            // SAFETY: the set holds `T`.
            unsafe { set.insert(e, make(i)) };
        } else {
            let value = std::mem::ManuallyDrop::new(make(i));
            // SAFETY: `value` is a valid `T`, handed over and never used again.
            unsafe { set.insert_from(e, NonNull::from(&*value).cast()) };
        }
    }
    assert_eq!(set.len(), N as usize);
    assert_consistent(&set);
    for i in 0..N {
        let e = entity(index_of(i), 1 + i % 3);
        assert_eq!(value::<T>(&set, e), Some(&make(i)));
        let ptr = set.get_ptr(e).unwrap().as_ptr() as usize;
        assert_eq!(ptr % std::mem::align_of::<T>(), 0, "aligned");
    }

    // Remove every third by moving it out, every third + 1 by dropping it.
    for i in (0..N).filter(|i| i % 3 != 2) {
        let e = entity(index_of(i), 1 + i % 3);
        if i % 3 == 0 {
            let mut out = std::mem::MaybeUninit::<T>::uninit();
            // SAFETY: `out` is a disjoint slot for one `T`.
            assert!(unsafe { set.remove_into(e, NonNull::from(&mut out).cast()) });
            // SAFETY: `remove_into` returned true, so it wrote a `T`.
            assert_eq!(unsafe { out.assume_init() }, make(i));
        } else {
            assert!(set.remove_and_drop(e));
        }
        assert!(!set.contains(e) && !set.remove_and_drop(e));
    }
    assert_consistent(&set);
    assert_eq!(set.len(), (0..N).filter(|i| i % 3 == 2).count());
    for i in (0..N).filter(|i| i % 3 == 2) {
        assert_eq!(
            value::<T>(&set, entity(index_of(i), 1 + i % 3)),
            Some(&make(i))
        );
    }

    set.clear();
    assert!(set.is_empty());
    assert_consistent(&set);
    assert!((0..N).all(|i| set.sparse.get(index_of(i)).is_none()));
    // SAFETY: the set holds `T`.
    unsafe { set.insert(entity(index_of(1), 9), make(1)) };
    assert_eq!(value::<T>(&set, entity(index_of(1), 9)), Some(&make(1)));
}

#[test]
fn trivial_values() {
    exercise(u64::from);
}

#[test]
fn byte_values() {
    exercise(|i| i as u8);
}

#[test]
fn values_with_drop() {
    exercise(|i| format!("value {i}"));
}

#[test]
fn zero_sized_values() {
    #[derive(PartialEq, Debug)]
    struct Marker;
    exercise(|_| Marker);
    exercise(|_| ());
}

#[test]
fn over_aligned_values() {
    #[derive(PartialEq, Debug)]
    #[repr(align(4096))]
    struct Page(u32);
    exercise(Page);
}

#[test]
fn swap_remove_moves_the_last_entity_into_the_hole() {
    let mut set = set_for::<u32>();
    let (a, b, c) = (entity(10, 1), entity(2000, 1), entity(7, 4));
    for (e, v) in [(a, 1), (b, 2), (c, 3)] {
        // SAFETY: the set holds u32.
        unsafe { set.insert(e, v) };
    }
    assert!(set.remove_and_drop(a));
    assert_eq!(set.entities(), &[c, b]);
    assert_eq!((set.dense_index(c), set.dense_index(b)), (Some(0), Some(1)));
    assert_eq!(
        (value::<u32>(&set, c), value::<u32>(&set, b)),
        (Some(&3), Some(&2))
    );
    // Removing the last one moves nothing.
    assert!(set.remove_and_drop(b));
    assert_eq!(set.entities(), &[c]);
    assert_consistent(&set);
}

#[test]
fn stale_handle_with_reused_index_is_absent() {
    let mut set = set_for::<u32>();
    let old = entity(5, 1);
    let new = entity(5, 2);
    // SAFETY: the set holds u32.
    unsafe { set.insert(new, 42) };
    assert!(set.contains(new));
    assert!(!set.contains(old));
    assert_eq!((set.get_ptr(old), set.dense_index(old)), (None, None));
    assert!(!set.remove_and_drop(old));
    let mut out = 0u32;
    // SAFETY: `out` is a disjoint u32 slot.
    assert!(!unsafe { set.remove_into(old, NonNull::from(&mut out).cast()) });
    assert_eq!((set.len(), value::<u32>(&set, new)), (1, Some(&42)));
    assert_eq!(SparseLookup::lookup(&set, old), None);
    assert!(SparseLookup::contains(&set, new));
}

#[test]
fn absent_indices_match_no_handle_of_any_generation() {
    // Look-ups and removals compare generations only: an absent entry (0) must answer
    // `None` to every handle, the largest generations included, on a written page (index 6,
    // beside a held one) and on a page never written (index 5000).
    let mut set = set_for::<u32>();
    // SAFETY: the set holds u32.
    unsafe { set.insert(entity(5, 1), 7) };
    for index in [6, 1023, 5000] {
        for generation in [1, 2, u16::MAX as u32, u32::MAX - 1, u32::MAX] {
            let e = entity(index, generation);
            assert_eq!((set.dense_index(e), set.get_ptr(e)), (None, None), "{e:?}");
            assert!(!set.contains(e) && !set.remove_and_drop(e), "{e:?}");
            assert_eq!(SparseLookup::lookup(&set, e), None);
        }
    }
    for generation in [2, u32::MAX] {
        assert!(!set.remove_and_drop(entity(5, generation)));
    }
    assert_eq!((set.len(), value::<u32>(&set, entity(5, 1))), (1, Some(&7)));
    assert_consistent(&set);
}

#[test]
fn second_insert_of_an_index_panics_and_changes_nothing() {
    let counter = Rc::new(());
    let mut set = set_for::<Rc<()>>();
    // SAFETY: the set holds Rc<()>.
    unsafe { set.insert(entity(3, 1), counter.clone()) };
    for generation in [1, 2] {
        let value = counter.clone();
        // SAFETY: the set holds Rc<()>.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe {
            set.insert(entity(3, generation), value)
        }));
        assert!(result.is_err());
    }
    assert_eq!(
        Rc::strong_count(&counter),
        2,
        "rejected values were dropped"
    );
    assert_eq!(set.entities(), &[entity(3, 1)]);
    assert_consistent(&set);
}

/// Pushes one pending `Rc` per entity of `batch` (reserving room first).
fn push_pending_rcs(set: &mut SparseSet, counter: &Rc<()>, count: usize) {
    set.reserve(count);
    for _ in 0..count {
        // SAFETY: the set holds Rc<()>, room was reserved, and only pending pushes follow
        // until the caller links.
        unsafe { set.push_pending(counter.clone()) };
    }
}

#[test]
fn pending_rows_link_to_the_batch_in_order() {
    let counter = Rc::new(());
    let mut set = set_for::<Rc<()>>();
    // SAFETY: the set holds Rc<()>.
    unsafe { set.insert(entity(5, 1), counter.clone()) };
    let batch: Vec<Entity> = (0..N).map(|i| entity(index_of(i) + 7, 2)).collect();
    let batch: Vec<Entity> = batch
        .into_iter()
        .filter(|e| e.index() != 5)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    push_pending_rcs(&mut set, &counter, batch.len());
    set.link_pending(&batch);
    assert_consistent(&set);
    assert_eq!(&set.entities()[1..], &batch[..]);
    assert_eq!(Rc::strong_count(&counter), batch.len() + 2);
}

#[test]
fn a_batch_hopping_between_pages_links_in_batch_order() {
    use crate::sparse_array::PAGE_SIZE;
    let page = PAGE_SIZE as u32;
    let counter = Rc::new(());
    let mut set = set_for::<Rc<()>>();
    // Runs of one page, a page revisited after another, and an index on a far page.
    let indices = [0, 1, page + 3, page + 4, 2, 5 * page, 3, page + 5];
    let batch: Vec<Entity> = indices.iter().map(|&i| entity(i, 1)).collect();
    push_pending_rcs(&mut set, &counter, batch.len());
    set.link_pending(&batch);
    assert_consistent(&set);
    assert_eq!(set.entities(), &batch[..]);
    for (pos, e) in batch.iter().enumerate() {
        assert_eq!(set.dense_index(*e), Some(pos));
    }
    // A refusal in a later run of a page: the rows linked before it stay, in order.
    let counter = Rc::new(());
    let mut set = set_for::<Rc<()>>();
    let batch = [entity(1, 1), entity(page, 1), entity(2, 1), entity(page, 1)];
    push_pending_rcs(&mut set, &counter, batch.len());
    let result = catch_unwind(AssertUnwindSafe(|| set.link_pending(&batch)));
    assert!(result.is_err());
    assert_consistent(&set);
    assert_eq!(set.entities(), &batch[..3]);
    assert_eq!(Rc::strong_count(&counter), 4, "the refused row was dropped");
}

#[test]
fn pending_rows_without_an_entity_are_dropped() {
    let counter = Rc::new(());
    let mut set = set_for::<Rc<()>>();
    push_pending_rcs(&mut set, &counter, 5);
    set.link_pending(&[entity(1, 1), entity(2, 1)]);
    assert_consistent(&set);
    assert_eq!(set.entities(), &[entity(1, 1), entity(2, 1)]);
    assert_eq!(
        Rc::strong_count(&counter),
        3,
        "three unlinked values dropped"
    );
}

#[test]
fn linking_a_held_or_repeated_index_panics_and_keeps_the_rows_before_it() {
    for refused in [entity(3, 2), entity(8, 1)] {
        let counter = Rc::new(());
        let mut set = set_for::<Rc<()>>();
        // SAFETY: the set holds Rc<()>.
        unsafe { set.insert(entity(3, 1), counter.clone()) };
        push_pending_rcs(&mut set, &counter, 4);
        // `entity(3, 2)`: the set holds index 3; `entity(8, 1)` repeats within the batch.
        let batch = [entity(8, 1), refused, entity(9, 1), entity(10, 1)];
        let result = catch_unwind(AssertUnwindSafe(|| set.link_pending(&batch)));
        assert!(result.is_err());
        assert_consistent(&set);
        assert_eq!(set.entities(), &[entity(3, 1), entity(8, 1)]);
        assert_eq!(
            Rc::strong_count(&counter),
            3,
            "the refused rows were dropped"
        );
    }
}

#[test]
fn every_value_is_dropped_exactly_once() {
    let counter = Rc::new(());
    let live = |extra: usize| Rc::strong_count(&counter) - 1 - extra;
    let mut set = set_for::<Rc<()>>();
    for i in 0..N {
        // SAFETY: the set holds Rc<()>.
        unsafe { set.insert(entity(index_of(i), 1), counter.clone()) };
    }
    assert_eq!(live(0), N as usize);
    assert!(set.remove_and_drop(entity(index_of(0), 1)));
    assert_eq!(live(0), N as usize - 1);
    let mut out = std::mem::MaybeUninit::<Rc<()>>::uninit();
    // SAFETY: `out` is a disjoint slot for one Rc.
    assert!(unsafe { set.remove_into(entity(index_of(1), 1), NonNull::from(&mut out).cast()) });
    assert_eq!(live(1), N as usize - 2, "moved out, not dropped");
    // SAFETY: `remove_into` wrote an Rc into `out`.
    drop(unsafe { out.assume_init() });
    assert_eq!(live(0), N as usize - 2);
    set.clear();
    assert_eq!(live(0), 0);
    for i in 0..4 {
        // SAFETY: the set holds Rc<()>.
        unsafe { set.insert(entity(i, 2), counter.clone()) };
    }
    drop(set);
    assert_eq!(Rc::strong_count(&counter), 1);
}

/// Counts its drops and panics in `Drop` when told to.
struct PanicOnDrop {
    panic: bool,
    id: u32,
    drops: Rc<Cell<u32>>,
}

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
        if self.panic {
            panic!("drop of {} panicked", self.id);
        }
    }
}

fn panicky_set(count: u32, panicking: impl Fn(u32) -> bool) -> (SparseSet, Rc<Cell<u32>>) {
    let drops = Rc::new(Cell::new(0));
    let mut set = set_for::<PanicOnDrop>();
    for id in 0..count {
        let value = PanicOnDrop {
            panic: panicking(id),
            id,
            drops: drops.clone(),
        };
        // SAFETY: the set holds PanicOnDrop.
        unsafe { set.insert(entity(id * 100, 1), value) };
    }
    (set, drops)
}

#[test]
fn panicking_drop_on_remove_leaves_the_set_consistent() {
    let (mut set, drops) = panicky_set(5, |id| id == 1);
    let victim = entity(100, 1);
    let result = catch_unwind(AssertUnwindSafe(|| set.remove_and_drop(victim)));
    assert!(result.is_err());
    assert_eq!((drops.get(), set.len()), (1, 4));
    assert!(!set.contains(victim));
    assert_consistent(&set);
    for id in [0, 2, 3, 4] {
        assert_eq!(
            value::<PanicOnDrop>(&set, entity(id * 100, 1)).unwrap().id,
            id
        );
    }
    // The set keeps working and drops the rest exactly once.
    assert!(set.remove_and_drop(entity(0, 1)));
    drop(set);
    assert_eq!(drops.get(), 5);
}

#[test]
fn panicking_drop_on_clear_still_drops_the_rest() {
    let (mut set, drops) = panicky_set(6, |id| id == 2);
    assert!(catch_unwind(AssertUnwindSafe(|| set.clear())).is_err());
    assert_eq!((drops.get(), set.len()), (6, 0));
    assert_consistent(&set);
    assert!((0..6).all(|id| set.sparse.get(id * 100).is_none()));
    drop(set);
    assert_eq!(drops.get(), 6, "nothing dropped twice");
}

#[test]
fn memory_counts_pages_dense_and_data() {
    let mut set = set_for::<u64>();
    assert_eq!(set.memory_usage(), 0);
    // SAFETY: the set holds u64.
    unsafe { set.insert(entity(100_000, 1), 5u64) };
    assert_eq!(set.sparse().page_count(), 1);
    let expected = set.sparse().memory_usage()
        + set.entities.capacity() * std::mem::size_of::<Entity>()
        + set.data.capacity() * 8;
    assert_eq!(set.memory_usage(), expected);
    assert!(
        set.memory_usage() < 12 * 1024,
        "one 8 KiB page, not 100,000 entries"
    );
}

#[test]
fn churn_reuses_memory() {
    let mut set = set_for::<[u64; 4]>();
    let fill = |set: &mut SparseSet, generation: u32| {
        for i in 0..N {
            // SAFETY: the set holds [u64; 4].
            unsafe { set.insert(entity(i, generation), [u64::from(i); 4]) };
        }
        for i in (0..N).rev() {
            assert!(set.remove_and_drop(entity(i, generation)));
        }
    };
    fill(&mut set, 1);
    let after_first = set.memory_usage();
    for generation in 2..6 {
        fill(&mut set, generation);
    }
    assert_eq!(set.memory_usage(), after_first);
    assert!(set.is_empty());
}

#[test]
fn reserve_prevents_reallocation() {
    let mut set = set_for::<u32>();
    set.reserve(N as usize);
    let data = set.data_ptr();
    for i in 0..N {
        // SAFETY: the set holds u32.
        unsafe { set.insert(entity(i, 1), i) };
    }
    assert_eq!(set.data_ptr(), data);
}

#[test]
fn hinted_lookup_agrees_with_lookup_whatever_the_hint() {
    use ecs_core::storage::SparseLookup;
    let mut set = set_for::<u32>();
    for i in 0..20u32 {
        // SAFETY: the set holds u32.
        unsafe { set.insert(entity(index_of(i), 1), i) };
    }
    let stale = entity(index_of(3), 2);
    for i in 0..20u32 {
        let e = entity(index_of(i), 1);
        let expected = set.lookup(e);
        for hint in [i as usize, 0, 19, 20, usize::MAX, (i as usize + 5) % 20] {
            let (ptr, pos) = set.lookup_hinted(hint, e).expect("held");
            assert_eq!(Some(ptr), expected);
            assert_eq!(
                set.entities()[pos],
                e,
                "the position returned is the entity's"
            );
        }
    }
    // A stale handle misses even when the hint points at its index's live entity.
    let live_pos = set.dense_index(entity(index_of(3), 1)).unwrap();
    assert_eq!(set.lookup_hinted(live_pos, stale), None);
    assert_eq!(set.lookup_hinted(live_pos, entity(999_999, 1)), None);
    assert_consistent(&set);
}

#[test]
fn insert_or_replace_replaces_in_place_or_adds() {
    let mut set = set_for::<String>();
    let e = entity(5, 1);
    // SAFETY: the set holds String.
    unsafe {
        assert_eq!(set.insert_or_replace(e, "a".to_owned()), None);
        assert_eq!(
            set.insert_or_replace(e, "b".to_owned()),
            Some("a".to_owned())
        );
        assert_eq!(set.insert_or_replace(entity(6, 1), "c".to_owned()), None);
    }
    assert_eq!(set.len(), 2);
    assert_eq!(value::<String>(&set, e).map(String::as_str), Some("b"));
    assert_consistent(&set);
}

#[test]
fn sort_by_key_orders_entities_and_moves_values_with_them() {
    let mut set = set_for::<u64>();
    let entities: Vec<Entity> = (0..N).map(|i| entity(index_of(i), 1 + i % 3)).collect();
    for (i, &e) in entities.iter().enumerate() {
        // SAFETY: the set was made for `u64`.
        unsafe { set.insert(e, i as u64) };
    }
    // Keys with ties: ties must keep their current (insertion) order.
    let key = |e: Entity| u64::from(e.index() % 17);
    set.sort_by_key(key);
    assert_consistent(&set);
    assert_eq!(set.len(), entities.len());
    let order = set.entities().to_vec();
    assert!(
        order.windows(2).all(|w| key(w[0]) <= key(w[1])),
        "ascending keys"
    );
    let mut expected = entities.clone();
    expected.sort_by_key(|&e| key(e));
    assert_eq!(order, expected, "stable among equal keys");
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(
            value::<u64>(&set, e),
            Some(&(i as u64)),
            "the value follows its entity"
        );
    }
    // Sorting a sorted set moves nothing; an empty set sorts too.
    set.sort_by_key(key);
    assert_eq!(set.entities(), &order[..]);
    let mut empty = set_for::<u64>();
    empty.sort_by_key(key);
    assert_eq!(empty.len(), 0);
}

#[test]
fn adopting_a_smaller_buffer_renews_the_room_before_the_next_insert() {
    let mut set = set_for::<u64>();
    set.reserve(64);
    assert!(set.room >= 64);
    // A caller's buffer holding exactly two values: adopted whole, it replaces the set's
    // larger one.
    let mut buffer = BlobVec::new(Layout::new::<u64>(), None);
    buffer.reserve_exact(2);
    // SAFETY: the buffer holds `u64`s, with room for both values just reserved.
    unsafe {
        buffer.push(7u64);
        buffer.push(8u64);
    }
    let entities = [entity(0, 1), entity(1, 1)];
    let values = buffer.base_ptr();
    // SAFETY: `buffer` holds the two `u64` values for `entities`, handed over: the adopted
    // buffer's values become the set's, and the caller gets the set's empty buffer back.
    unsafe { set.extend_from(&entities, values, Some(&mut buffer)) };
    assert_eq!(buffer.len(), 0, "the set's empty buffer came back");
    assert!(set.data.capacity() < 64, "the smaller buffer was adopted");
    assert_consistent(&set);
    // One at a time past the adopted capacity: each insert must grow first (under Miri, a
    // stale room would write past the buffer).
    for i in 2..40u32 {
        // SAFETY: the set holds `u64`s.
        unsafe { set.insert(entity(i, 1), u64::from(i) + 7) };
        assert_consistent(&set);
    }
    for i in 0..40u32 {
        assert_eq!(value::<u64>(&set, entity(i, 1)), Some(&(u64::from(i) + 7)));
    }
}
