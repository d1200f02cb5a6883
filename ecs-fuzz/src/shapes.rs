//! The query shapes the fuzzer runs, by number.
//!
//! A query's type is fixed at compile time, so the fuzzer cannot draw a random one: it draws
//! a number from this list. The list is written to cover, for every pool type of either
//! storage kind, each role a slot can have (fetched `&T`, `&mut T` / `Mut<T>`, `Option<&T>`,
//! `Option<&mut T>`, `With<T>`, `Without<T>`, inside `Or`), with the never-stored `Ghost`
//! types in each role beside stored types, table and sparse mixes, queries requiring nothing,
//! contradictions, change filters and aliasing queries (which every backend must refuse).
//! Each shape costs compile time (it is built for five backends), so the list stays curated
//! rather than a full cross product.

use ecs_core::{Added, Changed, Entity, Mut, Or, With, Without};

use crate::components::{A0, A1, B0, B1, D0, D1, G0, G1, H0, H1, T0, T1};
use crate::query::{FuzzData, FuzzFilter};

/// Something done with one query shape: called with the shape's types.
pub trait ShapeVisitor {
    /// What the visit returns.
    type Output;
    /// Visits the shape `Q` filtered by `F`.
    fn visit<Q: FuzzData, F: FuzzFilter>(self) -> Self::Output;
}

macro_rules! shapes {
    ($($index:literal => $q:ty, $f:ty;)*) => {
        /// Number of query shapes.
        pub const SHAPES: usize = [$($index),*].len();

        /// Calls `visitor` with shape number `index % SHAPES`.
        pub fn visit_shape<V: ShapeVisitor>(index: usize, visitor: V) -> V::Output {
            match index % SHAPES {
                $($index => visitor.visit::<$q, $f>(),)*
                _ => unreachable!("index is reduced modulo SHAPES"),
            }
        }

        /// The shape's query type, for messages.
        pub fn shape_name(index: usize) -> &'static str {
            match index % SHAPES {
                $($index => concat!(stringify!($q), " / ", stringify!($f)),)*
                _ => unreachable!("index is reduced modulo SHAPES"),
            }
        }
    };
}

type E = Entity;

shapes! {
    // One required component of each type.
    0 => (E, &'static A0), ();
    1 => (E, &'static A1), ();
    2 => (E, &'static B0), ();
    3 => (E, &'static B1), ();
    4 => (E, &'static T0), ();
    5 => (E, &'static T1), ();
    6 => (E, &'static D0), ();
    7 => (E, &'static D1), ();
    8 => (E, &'static H0), ();
    9 => (E, &'static H1), ();
    10 => (E, &'static G0), ();
    11 => (E, &'static G1), ();
    // Never-stored types required beside stored ones, fetched or filtered.
    12 => (E, &'static A0, &'static mut G0), ();
    13 => (E, &'static A1, &'static mut G0), ();
    14 => (E, &'static A0, &'static G1), ();
    15 => (E, &'static A1, &'static mut G1), ();
    16 => (&'static A0,), With<G0>;
    17 => (&'static A1,), With<G0>;
    18 => (&'static A0,), With<G1>;
    19 => (E,), With<G0>;
    20 => (E, &'static B0), (With<G0>, Without<T0>);
    21 => (E, &'static G0), With<A0>;
    22 => (E, &'static mut G1), With<A1>;
    23 => (E, Option<&'static G0>, &'static A0), ();
    24 => (E, Option<&'static G1>, &'static A1), ();
    25 => (E, Option<&'static mut G0>), With<B0>;
    26 => (E, &'static A0), Without<G0>;
    27 => (E, &'static A1), Without<G1>;
    28 => (E,), Without<G0>;
    29 => (E,), (Without<G1>, Without<G0>);
    // Table and sparse mixes.
    30 => (E, &'static A0, &'static A1), ();
    31 => (E, &'static mut A0, &'static A1), ();
    32 => (E, &'static A0, &'static mut A1), ();
    33 => (E, &'static B0, &'static B1, &'static T0), ();
    34 => (E, &'static mut B1, &'static D0), ();
    35 => (E, &'static T1, &'static T0), ();
    36 => (E, &'static D0, &'static mut D1), ();
    37 => (E, &'static A0, Option<&'static B1>), ();
    38 => (E, &'static A1, Option<&'static B0>, Option<&'static D1>), ();
    39 => (E, Option<&'static mut A0>, &'static T1), ();
    40 => (E, Option<&'static mut B1>, &'static A0), ();
    41 => (E, &'static A0), With<B1>;
    42 => (E, &'static A1), With<B0>;
    43 => (E, &'static A0), Without<T1>;
    44 => (E, &'static A1), Without<T0>;
    45 => (E, &'static mut D0), (With<A1>, Without<B0>);
    46 => (E, &'static D1), (With<T0>, Without<T1>);
    47 => (E, &'static A0, &'static H0), ();
    48 => (E, &'static H1, &'static A0), ();
    49 => (E, Mut<'static, H0>, &'static A1), ();
    50 => (E, Mut<'static, H1>, Option<&'static B0>), ();
    // Requiring nothing: entities without components (no table row) must be found too.
    51 => (E,), ();
    52 => (E, Option<&'static A0>), ();
    53 => (E, Option<&'static A1>, Option<&'static T0>), ();
    54 => (E, Option<&'static G0>, Option<&'static G1>), ();
    55 => (E,), With<T1>;
    56 => (E,), Without<A0>;
    57 => (E, Option<&'static D0>), Without<D1>;
    58 => (E,), (With<T0>, With<T1>);
    // Or.
    59 => (E,), Or<(With<A0>, With<A1>)>;
    60 => (E, &'static B0), Or<(With<T0>, With<T1>)>;
    61 => (E, &'static A1), Or<(Without<B1>, With<D0>)>;
    62 => (E, Option<&'static A0>), Or<(With<G0>, With<T1>)>;
    63 => (E,), Or<(With<G0>, With<G1>)>;
    64 => (E, &'static D0), Or<(With<G1>, Without<A0>)>;
    65 => (E, &'static mut A1), Or<(With<B0>, With<B1>, With<H0>)>;
    // Contradictions, wide fetches, no entity in the item.
    66 => (E, &'static A0), (With<A0>, Without<A0>);
    67 => (E, &'static T0), Without<T0>;
    68 => (&'static A0, &'static A0), ();
    69 => (E, &'static A0, &'static B0, &'static T0, &'static D0, &'static H0), ();
    70 => (E, &'static A1, &'static B1, &'static T1, &'static D1, &'static H1), ();
    71 => (
        E,
        Option<&'static A0>,
        Option<&'static A1>,
        Option<&'static B0>,
        Option<&'static B1>,
        Option<&'static H0>,
    ), ();
    72 => (&'static A0,), ();
    73 => (&'static B1,), With<A0>;
    74 => (&'static mut D1,), ();
    75 => (Option<&'static T1>,), ();
    // Aliasing: refused by every backend.
    76 => (&'static mut A0, &'static A0), ();
    77 => (E, &'static A1, &'static mut A1), ();
    78 => (&'static mut B0, Option<&'static B0>), ();
    79 => (Mut<'static, H0>, &'static H0), ();
    // Change filters (the world keeps each state: a reader across operations).
    80 => (E,), Changed<H0>;
    81 => (E, &'static H1), Added<H1>;
    82 => (E,), Or<(Changed<H0>, Changed<H1>)>;
    83 => (E, &'static A0), (Changed<H0>, Without<T0>);
    84 => (E,), Or<(Added<H1>, With<B1>)>;
    85 => (E, Mut<'static, H0>), Changed<H0>;
    86 => (E, &'static H0), (Added<H0>, With<A1>);
    87 => (E, Option<&'static H1>), Or<(Changed<H1>, Without<A0>)>;
    88 => (E, &'static G0), Changed<H0>;
    89 => (E, Mut<'static, H1>, &'static G1), Added<H1>;
}
