//! The bundles the fuzzer spawns and the owning groups it asks for, each by number.
//!
//! Bundles cover the empty bundle, single components of either kind, mixes of table and
//! sparse components, tracked components, and one bundle holding every stored type.
//! Groups cover what the sparse backend accepts, what the hybrid backend accepts (sparse
//! components only), single-component and overlapping requests (always refused) and groups
//! naming never-stored types.

use ecs_core::Bundle;

use crate::components::{canonical, PoolComponent, Row, ROW_LEN};

/// A bundle the fuzzer can build from a seed, and the model row it stands for.
pub trait FuzzBundle: Bundle {
    /// The bundle; field `i` holds the value `seed + i`.
    fn make(seed: u32) -> Self;
    /// The model's row for `make(seed)`.
    fn row(seed: u32) -> Row;
}

impl FuzzBundle for () {
    fn make(_: u32) -> Self {}
    fn row(_: u32) -> Row {
        [None; ROW_LEN]
    }
}

macro_rules! tuple_bundle {
    ($($name:ident $index:tt),*) => {
        impl<$($name: PoolComponent),*> FuzzBundle for ($($name,)*) {
            fn make(seed: u32) -> Self {
                ($($name::make(seed.wrapping_add($index)),)*)
            }
            fn row(seed: u32) -> Row {
                let mut row = [None; ROW_LEN];
                $(row[$name::SLOT] = Some(canonical::<$name>(seed.wrapping_add($index)));)*
                row
            }
        }
    };
}

tuple_bundle!(C0 0);
tuple_bundle!(C0 0, C1 1);
tuple_bundle!(C0 0, C1 1, C2 2);
tuple_bundle!(C0 0, C1 1, C2 2, C3 3);
tuple_bundle!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9);

/// Number of bundles [`with_bundle!`](crate::with_bundle) knows.
pub const BUNDLES: usize = 16;

/// Runs `$body` with `$b` naming bundle number `$index % BUNDLES`.
#[macro_export]
macro_rules! with_bundle {
    ($index:expr, $b:ident => $body:expr) => {{
        #[allow(unused_imports)]
        use $crate::components::{A0, A1, B0, B1, D0, D1, H0, H1, T0, T1};
        match $index as usize % $crate::bundles::BUNDLES {
            0 => {
                type $b = ();
                $body
            }
            1 => {
                type $b = (A0,);
                $body
            }
            2 => {
                type $b = (A1,);
                $body
            }
            3 => {
                type $b = (A0, B0);
                $body
            }
            4 => {
                type $b = (A1, B1, T1);
                $body
            }
            5 => {
                type $b = (A0, A1, B0, B1, T0, T1, D0, D1, H0, H1);
                $body
            }
            6 => {
                type $b = (H0,);
                $body
            }
            7 => {
                type $b = (H1, T1);
                $body
            }
            8 => {
                type $b = (D1, A0);
                $body
            }
            9 => {
                type $b = (B1, D0, H1);
                $body
            }
            10 => {
                type $b = (T0, T1);
                $body
            }
            11 => {
                type $b = (H0, A0, D1);
                $body
            }
            12 => {
                type $b = (D0,);
                $body
            }
            13 => {
                type $b = (B0, T0, H1, A1);
                $body
            }
            14 => {
                type $b = (T1,);
                $body
            }
            _ => {
                type $b = (A1, D1, H0);
                $body
            }
        }
    }};
}

/// The pool slots of each group request, in the order of [`with_group!`](crate::with_group).
pub const GROUPS: [&[usize]; 10] = [
    &[1, 3],
    &[5, 7],
    &[0, 2],
    &[1],
    &[9, 1],
    &[1, 0],
    &[11, 5],
    &[7, 3, 9],
    &[11, 10],
    &[3, 9],
];

/// Runs `$body` with `$b` naming group request number `$index % GROUPS.len()`.
#[macro_export]
macro_rules! with_group {
    ($index:expr, $b:ident => $body:expr) => {{
        use $crate::components::{A0, A1, B0, B1, D1, G0, G1, H1, T1};
        match $index as usize % $crate::bundles::GROUPS.len() {
            0 => {
                type $b = (A1, B1);
                $body
            }
            1 => {
                type $b = (T1, D1);
                $body
            }
            2 => {
                type $b = (A0, B0);
                $body
            }
            3 => {
                type $b = (A1,);
                $body
            }
            4 => {
                type $b = (H1, A1);
                $body
            }
            5 => {
                type $b = (A1, A0);
                $body
            }
            6 => {
                type $b = (G1, T1);
                $body
            }
            7 => {
                type $b = (D1, B1, H1);
                $body
            }
            8 => {
                type $b = (G1, G0);
                $body
            }
            _ => {
                type $b = (B1, H1);
                $body
            }
        }
    }};
}

/// Which group requests a backend accepts, as documented on `World::group`: the sparse
/// backend groups any two or more components no other group owns; the hybrid backend the
/// same, but sparse components only (a table component is refused first); the reference and
/// archetype backends keep no groups.
#[derive(Clone, Debug, Default)]
pub struct GroupModel {
    owned: Vec<usize>,
}

impl GroupModel {
    /// Whether a group owns `slot`.
    pub fn owns(&self, slot: usize) -> bool {
        self.owned.contains(&slot)
    }

    /// Whether the request for `slots` succeeds; records the group if it does. `in_tables`
    /// says which slots the backend keeps in tables now (a group takes none of them).
    pub fn request(&mut self, slots: &[usize], in_tables: impl Fn(usize) -> bool) -> bool {
        if slots.iter().any(|&s| in_tables(s)) {
            return false;
        }
        if slots.len() < 2 || slots.iter().any(|s| self.owned.contains(s)) {
            return false;
        }
        self.owned.extend_from_slice(slots);
        true
    }
}
