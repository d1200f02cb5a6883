//! [`QueryData`]: what a query yields per entity, and how each part fetches its value.

use std::marker::PhantomData;
use std::ptr::NonNull;

use super::QueryBuilder;
use crate::component::Component;
use crate::entity::Entity;
use crate::storage::{ColumnAccess, QueryChunk, SlotRole, SparseLookup, Storage};

/// A query's per-entity item: `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>`, `Entity`, and
/// tuples of up to 12 of these.
///
/// # Safety
/// * `init` must record in the builder every component the fetch reads (`read`) or writes
///   (`write`), so that aliasing is rejected before iteration.
/// * `fetch_row` may only be called for a row of the chunk the fetch was made from, at most
///   once per row while its previous items live; it must only touch that row's values.
pub unsafe trait QueryData {
    /// The value yielded for one entity, borrowing the world for `'w`.
    type Item<'w>;
    /// Component ids and slot indices, computed once per query.
    type State: Send + Sync + 'static;
    /// Per-chunk state: resolved column pointers.
    type Fetch<'w, S: Storage + 'w>;

    /// Registers the slots and access of this part of the query.
    fn init(builder: &mut QueryBuilder<'_>) -> Self::State;

    /// Resolves the chunk's columns for this part.
    ///
    /// # Safety
    /// `chunk` comes from the descriptor built with this `state`.
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(
        state: &Self::State,
        chunk: &S::Chunk<'w>,
    ) -> Self::Fetch<'w, S>;

    /// The item for `row` (whose entity is `entity`), or `None` if that entity lacks a required
    /// component (possible only through sparse look-ups).
    ///
    /// # Safety
    /// `row` is below the chunk's length; see the trait's contract.
    unsafe fn fetch_row<'w, S: Storage + 'w>(
        fetch: &mut Self::Fetch<'w, S>,
        row: usize,
        entity: Entity,
    ) -> Option<Self::Item<'w>>;
}

/// Queries that only read, and may run on a shared `&World`.
///
/// # Safety
/// The implementing query writes nothing.
pub unsafe trait ReadOnlyQueryData: QueryData {}

/// One slot's resolved access within a chunk.
///
/// `dense` is null unless the chunk holds the component densely.
pub struct ColumnFetch<'w, S: Storage + 'w> {
    dense: *mut u8,
    sparse: Option<&'w S::Lookup>,
}

impl<'w, S: Storage + 'w> ColumnFetch<'w, S> {
    /// Resolves slot `slot` of `chunk`.
    #[inline]
    pub fn new(chunk: &S::Chunk<'w>, slot: usize) -> Self {
        match chunk.column(slot) {
            ColumnAccess::Dense(ptr) => ColumnFetch {
                dense: ptr.as_ptr(),
                sparse: None,
            },
            ColumnAccess::Sparse(lookup) => ColumnFetch {
                dense: std::ptr::null_mut(),
                sparse: Some(lookup),
            },
            ColumnAccess::Absent => ColumnFetch {
                dense: std::ptr::null_mut(),
                sparse: None,
            },
        }
    }

    /// Pointer to the row's `T` for a *required* slot.
    ///
    /// # Safety
    /// `row` is within the chunk; `T` is the slot's component type.
    #[inline(always)]
    pub unsafe fn required<T: Component>(&self, row: usize, entity: Entity) -> Option<NonNull<T>> {
        if S::is_dense::<T>() || !self.dense.is_null() {
            debug_assert!(
                !self.dense.is_null(),
                "dense backend answered no column for a required slot"
            );
            // SAFETY: a dense column holds `T` for every row of the chunk; `row` is in bounds.
            return Some(unsafe { NonNull::new_unchecked(self.dense.cast::<T>().add(row)) });
        }
        self.lookup(entity)
    }

    /// Pointer to the row's `T` for an *optional* slot (`None` when absent).
    ///
    /// # Safety
    /// As for [`ColumnFetch::required`].
    #[inline(always)]
    pub unsafe fn optional<T: Component>(&self, row: usize, entity: Entity) -> Option<NonNull<T>> {
        if !self.dense.is_null() {
            // SAFETY: as in `required`.
            return Some(unsafe { NonNull::new_unchecked(self.dense.cast::<T>().add(row)) });
        }
        if S::is_dense::<T>() {
            return None;
        }
        self.lookup(entity)
    }

    /// Whether the row has the component (for filters); `dense_answer` is what a dense column
    /// means (present), absence without look-up means absent.
    #[inline(always)]
    pub fn has<T: Component>(&self, entity: Entity) -> bool {
        if !self.dense.is_null() {
            return true;
        }
        match self.sparse {
            Some(lookup) if !S::is_dense::<T>() => lookup.contains(entity),
            _ => false,
        }
    }

    #[inline]
    fn lookup<T>(&self, entity: Entity) -> Option<NonNull<T>> {
        self.sparse?.lookup(entity).map(NonNull::cast)
    }
}

/// State of a single-component fetch: its slot index.
#[doc(hidden)]
pub struct SlotState<T>(usize, PhantomData<fn() -> T>);

macro_rules! component_fetch {
    ($ty:ty, $item:ty, $role:expr, $access:ident, $get:ident, |$p:ident| $make:expr) => {
        // SAFETY: records its one component as read or write; `fetch_row` touches only the
        // given row's value.
        unsafe impl<T: Component> QueryData for $ty {
            type Item<'w> = $item;
            type State = SlotState<T>;
            type Fetch<'w, S: Storage + 'w> = ColumnFetch<'w, S>;

            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                let id = builder.components().register::<T>();
                builder.$access(id);
                SlotState(builder.slot(id, $role), PhantomData)
            }

            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &Self::State,
                chunk: &S::Chunk<'w>,
            ) -> Self::Fetch<'w, S> {
                ColumnFetch::new(chunk, state.0)
            }

            #[inline(always)]
            unsafe fn fetch_row<'w, S: Storage + 'w>(
                fetch: &mut Self::Fetch<'w, S>,
                row: usize,
                entity: Entity,
            ) -> Option<Self::Item<'w>> {
                // SAFETY: `row` is in the chunk (caller); the slot holds `T`.
                let ptr = unsafe { fetch.$get::<T>(row, entity) };
                #[allow(unused_unsafe)]
                // SAFETY: the pointer is to this row's initialised `T`; the access recorded in
                // `init` guarantees no other part of the query aliases it, and each row is
                // fetched once, so the reference is unique (for `&mut`) for `'w`.
                unsafe {
                    let $p = ptr;
                    $make
                }
            }
        }
    };
}

component_fetch!(&T, &'w T, SlotRole::Required, read, required, |p| Some(
    &*p?.as_ptr()
));
component_fetch!(
    &mut T,
    &'w mut T,
    SlotRole::Required,
    write,
    required,
    |p| Some(&mut *p?.as_ptr())
);
component_fetch!(
    Option<&T>,
    Option<&'w T>,
    SlotRole::Optional,
    read,
    optional,
    |p| Some(p.map(|p| &*p.as_ptr()))
);
component_fetch!(
    Option<&mut T>,
    Option<&'w mut T>,
    SlotRole::Optional,
    write,
    optional,
    |p| Some(p.map(|p| &mut *p.as_ptr()))
);

// SAFETY: `&T` and `Option<&T>` only read.
unsafe impl<T: Component> ReadOnlyQueryData for &T {}
// SAFETY: as above.
unsafe impl<T: Component> ReadOnlyQueryData for Option<&T> {}

// SAFETY: touches no component.
unsafe impl QueryData for Entity {
    type Item<'w> = Entity;
    type State = ();
    type Fetch<'w, S: Storage + 'w> = ();

    fn init(_: &mut QueryBuilder<'_>) {}

    #[inline]
    unsafe fn fetch_chunk<'w, S: Storage + 'w>(_: &(), _: &S::Chunk<'w>) -> Self::Fetch<'w, S> {}

    #[inline(always)]
    unsafe fn fetch_row<'w, S: Storage + 'w>(
        _: &mut (),
        _: usize,
        entity: Entity,
    ) -> Option<Entity> {
        Some(entity)
    }
}
// SAFETY: reads nothing but the handle.
unsafe impl ReadOnlyQueryData for Entity {}

macro_rules! tuple_query {
    ($($name:ident $index:tt),*) => {
        // SAFETY: each part records its own access; rows are forwarded unchanged.
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            type Item<'w> = ($($name::Item<'w>,)*);
            type State = ($($name::State,)*);
            type Fetch<'w, S: Storage + 'w> = ($($name::Fetch<'w, S>,)*);

            #[allow(unused_variables, clippy::unused_unit)]
            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                ($($name::init(builder),)*)
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(state: &Self::State, chunk: &S::Chunk<'w>) -> Self::Fetch<'w, S> {
                // SAFETY: forwarded contract.
                unsafe { ($($name::fetch_chunk::<S>(&state.$index, chunk),)*) }
            }

            #[allow(unused_variables, unused_unsafe, clippy::unused_unit)]
            #[inline(always)]
            unsafe fn fetch_row<'w, S: Storage + 'w>(fetch: &mut Self::Fetch<'w, S>, row: usize, entity: Entity) -> Option<Self::Item<'w>> {
                // SAFETY: forwarded contract.
                unsafe { Some(($($name::fetch_row::<S>(&mut fetch.$index, row, entity)?,)*)) }
            }
        }
        // SAFETY: every part is read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

tuple_query!();
tuple_query!(A 0);
tuple_query!(A 0, B 1);
tuple_query!(A 0, B 1, C 2);
tuple_query!(A 0, B 1, C 2, D 3);
tuple_query!(A 0, B 1, C 2, D 3, E 4);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_query!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
