//! Persistent change readers: `QueryState`s with `Added<T>` / `Changed<T>` filters, kept for
//! a whole run as a system keeps its queries, so each run reports what changed since that
//! state's previous run.
//!
//! They cover the three ways a change-filtered run iterates (see `ecs_core::change`): the
//! first run scans; later runs are driven by the logs when every match must come from them,
//! and scan with a membership check otherwise (`Or<(Added<T>, With<U>)>`). One of them writes
//! through `Mut<T>` on the component it watches, so its own writes show up in its next run.

use ecs_core::{Added, Changed, Entity, Mut, Or, QueryState, Storage, With, Without, World};

use crate::components::{A1, B1, H0, H1, T0};
use crate::query::{FuzzData, FuzzFilter};
use crate::shapes::ShapeVisitor;

/// Something done with one persistent reader of a world on backend `S`.
pub trait ReaderVisitor<S: Storage> {
    /// What the visit returns.
    type Output;
    /// Visits the reader's state.
    fn visit<Q: FuzzData, F: FuzzFilter>(self, state: &mut QueryState<Q, F, S>) -> Self::Output;
}

macro_rules! readers {
    ($($index:literal => $field:ident: $q:ty, $f:ty;)*) => {
        /// The persistent readers of one world.
        pub struct Readers<S: Storage> {
            $(
                #[doc = concat!("`QueryState<", stringify!($q), ", ", stringify!($f), ">`")]
                pub $field: QueryState<$q, $f, S>,
            )*
        }

        impl<S: Storage> Readers<S> {
            /// Builds every reader for `world`.
            pub fn new(world: &mut World<S>) -> Self {
                Readers {
                    $($field: world.query_state().expect("reader queries do not alias"),)*
                }
            }

            /// Calls `visitor` with reader number `index % READERS`.
            pub fn visit<V: ReaderVisitor<S>>(&mut self, index: usize, visitor: V) -> V::Output {
                match index % READERS {
                    $($index => visitor.visit(&mut self.$field),)*
                    _ => unreachable!("index is reduced modulo READERS"),
                }
            }
        }

        /// Number of readers.
        pub const READERS: usize = [$($index),*].len();

        /// Calls `visitor` with the query and filter types of reader number
        /// `index % READERS` (for the model, which has no `QueryState`).
        pub fn visit_reader_types<V: ShapeVisitor>(index: usize, visitor: V) -> V::Output {
            match index % READERS {
                $($index => visitor.visit::<$q, $f>(),)*
                _ => unreachable!("index is reduced modulo READERS"),
            }
        }
    };
}

readers! {
    0 => changed_h0: (Entity,), Changed<H0>;
    1 => added_h1: (Entity, &'static H1, Option<&'static A1>), Added<H1>;
    2 => changed_either: (Entity,), Or<(Changed<H0>, Changed<H1>)>;
    3 => bump_h1: (Entity, Mut<'static, H1>), (Changed<H1>, Without<T0>);
    4 => added_or_b1: (Entity, Option<&'static H0>), Or<(Added<H0>, With<B1>)>;
    5 => both: (Entity,), (Changed<H0>, Added<H1>);
}
