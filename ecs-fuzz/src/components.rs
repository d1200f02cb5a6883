//! The component pool every fuzzed world draws from.
//!
//! Six component shapes, each generic over a `const SPARSE: bool` that picks its
//! [`StorageKind`] (as the conformance model does), so one world holds table and sparse
//! components at once and the hybrid backend meets every mix:
//!
//! | shape | what it exercises |
//! |---|---|
//! | [`A`] | plain 4-byte data |
//! | [`B`] | owns heap memory (a `String`): moves and drops must be exact |
//! | [`Tag`] | zero-sized |
//! | [`D`] | odd size, alignment 1; movable (`World::set_storage`) |
//! | [`Hp`] | tracks changes (`Added<T>`, `Changed<T>`, `Mut<T>`) |
//! | [`Ghost`] | never stored by any operation: queries naming it must match nothing |
//!
//! The model keeps one `u32` per (entity, pool slot); [`PoolComponent`] converts between that
//! number and a component value, and defines the one write every mutable access performs.

use ecs_core::component::MutableComponent;
use ecs_core::{Component, StorageKind};

/// Number of component types in the pool (six shapes, each table and sparse).
pub const POOL: usize = 12;

/// Run-time (dynamic) components, after the pool in a [`Row`]: one table, one sparse.
pub const DYNAMIC: usize = 2;

/// Length of a model [`Row`]: the pool, then the dynamic components.
pub const ROW_LEN: usize = POOL + DYNAMIC;

/// What the model holds for one entity: the value of each pool component it has, then of
/// each dynamic component.
pub type Row = [Option<u32>; ROW_LEN];

/// The bytes of dynamic component `which` (0: 5 bytes, table; 1: 8 bytes, sparse) for the
/// model number `v`.
pub fn dynamic_bytes(which: usize, v: u32) -> Vec<u8> {
    match which {
        0 => {
            let mut bytes = v.to_le_bytes().to_vec();
            bytes.push(0x5A);
            bytes
        }
        _ => (u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .to_le_bytes()
            .to_vec(),
    }
}

/// The model number whose [`dynamic_bytes`] are `bytes`, if any.
pub fn dynamic_value(which: usize, bytes: &[u8]) -> Option<u32> {
    let v = match which {
        0 => u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?),
        _ => {
            let x = u64::from_le_bytes(bytes.try_into().ok()?);
            // The inverse of the odd multiplier modulo 2^64.
            x.wrapping_mul(0xF1DE_83E1_9937_733D) as u32
        }
    };
    (dynamic_bytes(which, v) == bytes).then_some(v)
}

/// The storage kind a `SPARSE` flag asks for.
pub const fn kind(sparse: bool) -> StorageKind {
    if sparse {
        StorageKind::Sparse
    } else {
        StorageKind::Table
    }
}

/// A component of the pool: its slot in a model [`Row`] and its conversion to and from the
/// model's number.
///
/// `T::make(v).value()` is the canonical form of `v` for `T` (a `Tag` is always 0, a `D`
/// keeps 24 bits), and `T::make(T::make(v).value())` equals `T::make(v)`.
pub trait PoolComponent: MutableComponent + Sized {
    /// Index of this type in a [`Row`] (and in [`POOL_NAMES`]).
    const SLOT: usize;
    /// A value built from the model's number.
    fn make(v: u32) -> Self;
    /// The model's number for this value.
    fn value(&self) -> u32;
    /// The write every mutable access (`&mut T`, `Mut<T>`, `get_mut`) performs.
    fn write(&mut self);
}

/// The canonical model number of `v` as a `T`.
pub fn canonical<T: PoolComponent>(v: u32) -> u32 {
    T::make(v).value()
}

/// The model number after [`PoolComponent::write`] on the value `v`.
pub fn written<T: PoolComponent>(v: u32) -> u32 {
    let mut c = T::make(v);
    c.write();
    c.value()
}

/// Names of the pool's types by slot, for messages.
pub const POOL_NAMES: [&str; POOL] = [
    "A<table>",
    "A<sparse>",
    "B<table>",
    "B<sparse>",
    "Tag<table>",
    "Tag<sparse>",
    "D<table>",
    "D<sparse>",
    "Hp<table>",
    "Hp<sparse>",
    "Ghost<table>",
    "Ghost<sparse>",
];

/// The pool slot of `D<table>` (`D<sparse>` is the next): the movable pair.
pub const D_TABLE: usize = 6;

/// Whether the pool type at `slot` tracks changes (the `Hp` pair).
pub const fn tracked(slot: usize) -> bool {
    slot == Hp::<false>::SLOT || slot == Hp::<true>::SLOT
}

/// Whether the pool type at `slot` is a `Ghost` (never stored).
pub const fn ghost(slot: usize) -> bool {
    slot >= Ghost::<false>::SLOT
}

/// Plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct A<const SPARSE: bool>(pub u32);

/// Owns heap memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct B<const SPARSE: bool>(pub String);

/// Zero-sized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag<const SPARSE: bool>;

/// Odd size (3 bytes), alignment 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct D<const SPARSE: bool>(pub [u8; 3]);

/// Tracks changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hp<const SPARSE: bool>(pub u32);

/// Never stored by any fuzzer operation; only named by queries, `get`, `remove` and groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ghost<const SPARSE: bool>(pub u64);

impl<const SPARSE: bool> Component for A<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = kind(SPARSE);
}
impl<const SPARSE: bool> Component for B<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = kind(SPARSE);
}
impl<const SPARSE: bool> Component for Tag<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = kind(SPARSE);
}
/// Movable: `World::set_storage` may move it (the fuzzer's storage moves pick it and the
/// run-time components), so the hybrid reads it by asking where it is kept.
impl<const SPARSE: bool> Component for D<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = kind(SPARSE);
    const MOVABLE: bool = true;
}
impl<const SPARSE: bool> Component for Hp<SPARSE> {
    const STORAGE: StorageKind = kind(SPARSE);
    type Mutability = ecs_core::Tracked;
}
impl<const SPARSE: bool> Component for Ghost<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = kind(SPARSE);
}

impl<const SPARSE: bool> PoolComponent for A<SPARSE> {
    const SLOT: usize = SPARSE as usize;
    fn make(v: u32) -> Self {
        A(v)
    }
    fn value(&self) -> u32 {
        self.0
    }
    fn write(&mut self) {
        self.0 = self.0.wrapping_mul(3).wrapping_add(1);
    }
}

impl<const SPARSE: bool> PoolComponent for B<SPARSE> {
    const SLOT: usize = 2 + SPARSE as usize;
    fn make(v: u32) -> Self {
        B(v.to_string())
    }
    fn value(&self) -> u32 {
        self.0.parse().expect("a B holds the decimal form of a u32")
    }
    fn write(&mut self) {
        // A new allocation of another length: the old string must be freed exactly once.
        self.0 = (self.value() / 3 + 1_000_003).to_string();
    }
}

impl<const SPARSE: bool> PoolComponent for Tag<SPARSE> {
    const SLOT: usize = 4 + SPARSE as usize;
    fn make(_: u32) -> Self {
        Tag
    }
    fn value(&self) -> u32 {
        0
    }
    fn write(&mut self) {
        *self = Tag;
    }
}

impl<const SPARSE: bool> PoolComponent for D<SPARSE> {
    const SLOT: usize = 6 + SPARSE as usize;
    fn make(v: u32) -> Self {
        let [a, b, c, _] = v.to_le_bytes();
        D([a, b, c])
    }
    fn value(&self) -> u32 {
        let [a, b, c] = self.0;
        u32::from_le_bytes([a, b, c, 0])
    }
    fn write(&mut self) {
        self.0[0] = self.0[0].wrapping_add(1);
        self.0.rotate_left(1);
    }
}

impl<const SPARSE: bool> PoolComponent for Hp<SPARSE> {
    const SLOT: usize = 8 + SPARSE as usize;
    fn make(v: u32) -> Self {
        Hp(v)
    }
    fn value(&self) -> u32 {
        self.0
    }
    fn write(&mut self) {
        self.0 = self.0.wrapping_add(1);
    }
}

impl<const SPARSE: bool> PoolComponent for Ghost<SPARSE> {
    const SLOT: usize = 10 + SPARSE as usize;
    fn make(v: u32) -> Self {
        Ghost(u64::from(v))
    }
    fn value(&self) -> u32 {
        self.0 as u32
    }
    fn write(&mut self) {
        self.0 = self.0.wrapping_add(5) & u64::from(u32::MAX);
    }
}

/// The value of the `A` a [`Needs`] adds when its entity lacks one.
pub const REQUIRED_A: u32 = 77;
/// The value of the `Hp` a [`Needs`] adds when its entity lacks one.
pub const REQUIRED_HP: u32 = 5;

/// Requires an `A` of its own side (made as `A(REQUIRED_A)`) and an `Hp` of the other side
/// (`Hp(REQUIRED_HP)`, tracked: its addition is an `Added` mark). Not in the model's rows:
/// what the model checks are the components it brings, added only where missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Needs<const SPARSE: bool>;

impl<const SPARSE: bool> Component for Needs<SPARSE> {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = kind(SPARSE);
    const REQUIRES: bool = true;
    fn requirements(requirements: &mut ecs_core::component::Requirements<'_>) {
        requirements.require::<A<SPARSE>>(|| A(REQUIRED_A));
        if SPARSE {
            requirements.require::<Hp<false>>(|| Hp(REQUIRED_HP));
        } else {
            requirements.require::<Hp<true>>(|| Hp(REQUIRED_HP));
        }
    }
}

/// The model's slots of what a [`Needs`] of side `sparse` requires: its `A`, the other
/// side's `Hp`.
pub const fn needed_slots(sparse: bool) -> [usize; 2] {
    if sparse {
        [A::<true>::SLOT, Hp::<false>::SLOT]
    } else {
        [A::<false>::SLOT, Hp::<true>::SLOT]
    }
}

/// `A` in a table.
pub type A0 = A<false>;
/// `A` in a sparse set.
pub type A1 = A<true>;
/// `B` in a table.
pub type B0 = B<false>;
/// `B` in a sparse set.
pub type B1 = B<true>;
/// `Tag` in a table.
pub type T0 = Tag<false>;
/// `Tag` in a sparse set.
pub type T1 = Tag<true>;
/// `D` in a table.
pub type D0 = D<false>;
/// `D` in a sparse set.
pub type D1 = D<true>;
/// `Hp` in a table.
pub type H0 = Hp<false>;
/// `Hp` in a sparse set.
pub type H1 = Hp<true>;
/// `Ghost` in a table.
pub type G0 = Ghost<false>;
/// `Ghost` in a sparse set.
pub type G1 = Ghost<true>;

/// The `match` both slot macros expand to: one arm per `slot => type` pair, each binding
/// `$t` to the type and running `$body`, then `$rest` for the other slots.
#[doc(hidden)]
#[macro_export]
macro_rules! match_pool_slot {
    ($slot:expr, $t:ident => $body:expr,
     [$($n:literal => $ty:ident),*], $other:ident => $rest:expr) => {
        match $slot {
            $($n => {
                type $t = $crate::components::$ty;
                $body
            })*
            $other => $rest,
        }
    };
}

/// Runs `$body` with `$t` naming the pool type at `$slot` (any of the twelve).
#[macro_export]
macro_rules! with_pool_type {
    ($slot:expr, $t:ident => $body:expr) => {
        $crate::match_pool_slot!($slot, $t => $body,
            [0 => A0, 1 => A1, 2 => B0, 3 => B1, 4 => T0, 5 => T1, 6 => D0, 7 => D1,
             8 => H0, 9 => H1, 10 => G0],
            _other => {
                type $t = $crate::components::G1;
                $body
            })
    };
}

/// Runs `$body` with `$t` naming the untracked pool type at `$slot`, which must not be a
/// tracked (`Hp`) slot: `&mut T` access to a tracked type does not compile.
#[macro_export]
macro_rules! with_untracked_type {
    ($slot:expr, $t:ident => $body:expr) => {
        $crate::match_pool_slot!($slot, $t => $body,
            [0 => A0, 1 => A1, 2 => B0, 3 => B1, 4 => T0, 5 => T1, 6 => D0, 7 => D1,
             10 => G0, 11 => G1],
            other => unreachable!("slot {other} is tracked"))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_movable_pair_is_where_the_runner_looks() {
        assert_eq!(POOL_NAMES[D_TABLE], "D<table>");
        assert_eq!(POOL_NAMES[D_TABLE + 1], "D<sparse>");
        const { assert!(<D<false> as Component>::MOVABLE && <D<true> as Component>::MOVABLE) };
    }
}
