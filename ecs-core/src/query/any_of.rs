//! [`AnyOf<(A, B, ..)>`]: the entities holding at least one of several components, each
//! fetched if present.

use std::marker::PhantomData;

use super::fetch::SlotState;
use super::{DynFilter, FetchContext, QueryBuilder, QueryData, ReadOnlyQueryData};
use crate::component::{Component, ComponentId, MutableComponent};
use crate::entity::Entity;
use crate::storage::Storage;
use crate::Mut;

/// A query item fetching each part of the tuple that the entity holds, as an `Option`, for
/// the entities that hold at least one: `AnyOf<(&A, &mut B)>` yields
/// `(Option<&A>, Option<Write<B>>)` and skips the entities with neither. It is
/// `(Option<&A>, Option<&mut B>)` filtered by `Or<(With<A>, With<B>)>`, in one part.
///
/// Parts are `&T`, `&mut T` and `Mut<T>`, up to eight. Like an `Or` filter, it rules no
/// table or set out by itself: a query whose only part is an `AnyOf` looks at every entity
/// and skips those that hold none of the parts. Put a required part beside it when the
/// program has one.
///
/// ```
/// # use ecs_core::{World, Component, query::AnyOf, testing::VecStorage};
/// #[derive(Component)]
/// struct Sword(u32);
/// #[derive(Component)]
/// struct Bow(u32);
/// let mut world = World::<VecStorage>::new();
/// world.spawn((Sword(3),));
/// world.spawn((Bow(2),));
/// world.spawn((Sword(1), Bow(1)));
/// world.spawn(());
/// let mut reach: Vec<u32> = world
///     .query::<AnyOf<(&Sword, &Bow)>>()
///     .map(|(sword, bow)| sword.map_or(0, |s| s.0) + bow.map_or(0, |b| b.0 * 10))
///     .collect();
/// reach.sort();
/// assert_eq!(reach, [3, 11, 20]);
/// ```
pub struct AnyOf<T>(PhantomData<fn() -> T>);

/// A part of an [`AnyOf`]: a query item with an optional form.
pub trait AnyOfPart {
    /// The part as an optional fetch (`Option<&T>` for `&T`).
    type Optional: QueryData;

    /// Whether the optional item holds a value.
    fn is_present(item: &<Self::Optional as QueryData>::Item<'_>) -> bool;

    /// The component the part fetches.
    fn component(state: &<Self::Optional as QueryData>::State) -> ComponentId;
}

impl<T: Component> AnyOfPart for &T {
    type Optional = Option<&'static T>;

    fn is_present(item: &Option<&T>) -> bool {
        item.is_some()
    }

    fn component(state: &SlotState<T>) -> ComponentId {
        state.id
    }
}

impl<T: MutableComponent> AnyOfPart for &mut T {
    type Optional = Option<&'static mut T>;

    fn is_present(item: &<Option<&'static mut T> as QueryData>::Item<'_>) -> bool {
        item.is_some()
    }

    fn component(state: &SlotState<T>) -> ComponentId {
        state.id
    }
}

impl<T: MutableComponent> AnyOfPart for Mut<'_, T> {
    type Optional = Option<Mut<'static, T>>;

    fn is_present(item: &Option<Mut<'_, T>>) -> bool {
        item.is_some()
    }

    fn component(state: &SlotState<T>) -> ComponentId {
        state.id
    }
}

macro_rules! any_of {
    ($($name:ident $index:tt),*) => {
        // SAFETY: each part records its own access and fetches through its optional form
        // (which reads only its own row's value); a row is yielded when at least one part
        // holds a value, skipped otherwise. `is_dense_chunk` keeps its default (`false`):
        // every row is asked.
        unsafe impl<$($name: AnyOfPart),*> QueryData for AnyOf<($($name,)*)> {
            type Item<'w> = ($(<$name::Optional as QueryData>::Item<'w>,)*);
            type State = ($(<$name::Optional as QueryData>::State,)*);
            type Fetch<'w, S: Storage + 'w> = ($(<$name::Optional as QueryData>::Fetch<'w, S>,)*);

            fn init(builder: &mut QueryBuilder<'_>) -> Self::State {
                ($(<$name::Optional as QueryData>::init(builder),)*)
            }

            fn conditions(state: &Self::State, out: &mut Vec<DynFilter>) {
                out.push(DynFilter::Or(vec![$(DynFilter::With($name::component(&state.$index))),*]));
            }

            #[inline(always)]
            unsafe fn fetch_chunk<'w, S: Storage + 'w>(
                state: &Self::State,
                chunk: &S::Chunk<'w>,
                ctx: FetchContext<'w, S>,
            ) -> Self::Fetch<'w, S> {
                // SAFETY: forwarded contract.
                unsafe { ($(<$name::Optional as QueryData>::fetch_chunk::<S>(&state.$index, chunk, ctx),)*) }
            }

            #[inline(always)]
            unsafe fn fetch_row<'w, S: Storage + 'w>(
                fetch: &mut Self::Fetch<'w, S>,
                row: usize,
                entity: Entity,
            ) -> Option<Self::Item<'w>> {
                // SAFETY: forwarded contract; an optional part answers `Some` on every row.
                let item = unsafe {
                    ($(<$name::Optional as QueryData>::fetch_row::<S>(&mut fetch.$index, row, entity)?,)*)
                };
                (false $(|| $name::is_present(&item.$index))*).then_some(item)
            }

            #[inline]
            unsafe fn fetch_entity<'w, S: Storage + 'w>(
                state: &Self::State,
                ctx: FetchContext<'w, S>,
                place: &S::Place<'w>,
                entity: Entity,
            ) -> Option<Self::Item<'w>> {
                // SAFETY: forwarded contract.
                let item = unsafe {
                    ($(<$name::Optional as QueryData>::fetch_entity::<S>(&state.$index, ctx, place, entity)?,)*)
                };
                (false $(|| $name::is_present(&item.$index))*).then_some(item)
            }
        }

        // SAFETY: every part only reads.
        unsafe impl<$($name: AnyOfPart<Optional: ReadOnlyQueryData>),*> ReadOnlyQueryData
            for AnyOf<($($name,)*)>
        {
        }
    };
}

any_of!(A 0);
any_of!(A 0, B 1);
any_of!(A 0, B 1, C 2);
any_of!(A 0, B 1, C 2, D 3);
any_of!(A 0, B 1, C 2, D 3, E 4);
any_of!(A 0, B 1, C 2, D 3, E 4, F 5);
any_of!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
any_of!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
