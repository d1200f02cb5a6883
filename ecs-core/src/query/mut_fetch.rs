//! The query items that write: `&mut T`, [`Mut<T>`](crate::Mut) and their `Option`s.
//!
//! All four fetch a column and, for a type that tracks changes, its changed log; `&mut T`
//! hands out what `T`'s [`Writable`] kind says (a plain reference, or a `Mut<T>`), `Mut<T>`
//! always the guard. Immutable types implement none of them.

use std::ptr::NonNull;

use super::fetch::SlotState;
use super::{ColumnFetch, FetchContext, QueryBuilder, QueryData};
use crate::change::{ChangeKind, ChangeLog, Mut};
use crate::component::{Component, ComponentId, MutableComponent, Writable, Write};
use crate::entity::Entity;
use crate::storage::{EntityPlace, SlotRole, Storage};

/// Per-chunk state of a writing item of a `W`-kind component: the column and what records
/// writes (`()` for an untracked type, so its fetch is the column alone; the changed log for
/// a tracked one).
#[doc(hidden)]
pub struct MutFetch<'w, S: Storage + 'w, W: Writable> {
    column: ColumnFetch<'w, S>,
    log: W::Log<'w>,
}

impl<S: Storage, W: Writable> Clone for MutFetch<'_, S, W> {
    #[inline]
    fn clone(&self) -> Self {
        MutFetch {
            column: self.column.clone(),
            log: self.log,
        }
    }
}

/// `T`'s changed log, or `None` for an untracked type (folded at compile time).
#[inline]
fn changed_log<'w, T: Component, S: Storage>(
    id: ComponentId,
    ctx: FetchContext<'w, S>,
) -> Option<&'w ChangeLog> {
    if crate::component::tracks_changes::<T>() {
        let log = ctx.changes().log(id, ChangeKind::Changed);
        Some(log.expect("change logs are created when the query state is built"))
    } else {
        None
    }
}

macro_rules! mut_fetch {
    ($ty:ty, $item:ty, $role:expr, $get:ident, $dense:ident, |$p:ident, $log:ident, $e:ident| $make:expr, $missing:expr) => {
        // SAFETY: records its one component as written; `fetch_row` touches only the given
        // row's value and `fetch_entity` only the entity's; the fetch holds a storage pointer,
        // a `Sync` look-up and a shared reference to the (`Sync`) change log.
        // `is_dense_chunk` is the column's `is_dense`, as for `&mut T`: `fetch_row` then
        // answers `Some` on every row.
        unsafe impl<'a, T: MutableComponent> QueryData for $ty {
            type Item<'w> = $item;
            type State = SlotState<T>;
            type Fetch<'w, S: Storage + 'w> = MutFetch<'w, S, T::Mutability>;

            fn init(builder: &mut QueryBuilder<'_>) -> SlotState<T> {
                SlotState::init(builder, true, $role)
            }

            #[inline(always)]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &SlotState<T>,
                chunk: &S::Chunk<'w>,
                ctx: FetchContext<'w, S>,
            ) -> MutFetch<'w, S, T::Mutability> {
                MutFetch {
                    // SAFETY: `state.slot` is a slot of the descriptor built with `state`,
                    // which `chunk` was made for (this function's contract).
                    column: unsafe { ColumnFetch::new_unchecked(chunk, state.slot) },
                    log: <T::Mutability as Writable>::log(changed_log::<T, S>(state.id, ctx)),
                }
            }

            #[inline(always)]
            unsafe fn fetch_row<'w, S: Storage + 'w>(
                fetch: &mut MutFetch<'w, S, T::Mutability>,
                row: usize,
                $e: Entity,
            ) -> Option<$item> {
                // SAFETY: `row` is in the chunk (caller); the slot holds `T`, in the role
                // `init` gave it (`required` is called only for a `Required` slot: a query
                // item is never inside an `Or`, the one place roles are relaxed).
                let $p = unsafe { fetch.column.$get::<T>(row, $e) };
                let $log = fetch.log;
                #[allow(unused_unsafe)]
                // SAFETY: the pointer is this row's initialised `T`; the access recorded in
                // `init` means nothing else in the query aliases it and each row is fetched
                // once, so the reference is unique for `'w`.
                unsafe {
                    $make
                }
            }

            #[inline(always)]
            fn is_dense_chunk<'w, S: Storage + 'w>(fetch: &MutFetch<'w, S, T::Mutability>) -> bool {
                fetch.column.is_dense::<T>()
            }

            #[inline(always)]
            unsafe fn fetch_dense_row<'w, S: Storage + 'w>(
                fetch: &mut MutFetch<'w, S, T::Mutability>,
                row: usize,
                $e: Entity,
            ) -> $item {
                // SAFETY: as in `fetch_row`; the chunk is dense for this slot (caller).
                let $p = unsafe { fetch.column.$dense::<T>(row) };
                let $log = fetch.log;
                #[allow(unused_unsafe)]
                // SAFETY: as in `fetch_row`.
                let item = || unsafe { $make };
                // SAFETY: the pointer is present (required slot) or the item is an `Option`
                // (optional slot), so `$make` answers `Some`.
                unsafe { item().unwrap_unchecked() }
            }

            #[inline]
            #[allow(clippy::question_mark)] // `$missing` is not always `None`
            unsafe fn fetch_entity<'w, S: Storage + 'w>(
                state: &SlotState<T>,
                ctx: FetchContext<'w, S>,
                place: &S::Place<'w>,
                $e: Entity,
            ) -> Option<$item> {
                let $p = place.ptr_of::<T>(state.id).map(NonNull::cast::<T>);
                if $p.is_none() {
                    return $missing;
                }
                let $log = <T::Mutability as Writable>::log(changed_log::<T, S>(state.id, ctx));
                #[allow(unused_unsafe)]
                // SAFETY: the storage returned the entity's initialised `T`; the caller
                // guarantees nothing else accesses it for `'w`.
                unsafe {
                    $make
                }
            }
        }
    };
}

mut_fetch!(
    &'a mut T,
    Write<'w, T>,
    SlotRole::Required,
    required,
    dense_required,
    |p, log, entity| Some(<T::Mutability as Writable>::write(
        &mut *p?.as_ptr(),
        log,
        entity
    )),
    None
);
mut_fetch!(
    Option<&'a mut T>,
    Option<Write<'w, T>>,
    SlotRole::Optional,
    optional,
    dense_optional,
    |p, log, entity| Some(p.map(|p| <T::Mutability as Writable>::write(
        &mut *p.as_ptr(),
        log,
        entity
    ))),
    Some(None)
);
mut_fetch!(
    Mut<'a, T>,
    Mut<'w, T>,
    SlotRole::Required,
    required,
    dense_required,
    |p, log, entity| Some(Mut::new(
        &mut *p?.as_ptr(),
        <T::Mutability as Writable>::changed(log),
        entity
    )),
    None
);
mut_fetch!(
    Option<Mut<'a, T>>,
    Option<Mut<'w, T>>,
    SlotRole::Optional,
    optional,
    dense_optional,
    |p, log, entity| Some(p.map(|p| Mut::new(
        &mut *p.as_ptr(),
        <T::Mutability as Writable>::changed(log),
        entity
    ))),
    Some(None)
);
