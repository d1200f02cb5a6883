//! The suite's components: plain data, heap-owning, zero-sized, drop-tracked (the kit's
//! [`Ledger`]) and panicking on drop.

use ecs_core::Component;

/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct A(pub u32);
impl Component for A {
    type Mutability = ecs_core::Mutable;
}

/// Owns heap memory (dropping it frees).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct B(pub String);
impl Component for B {
    type Mutability = ecs_core::Mutable;
}

/// Zero-sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag;
impl Component for Tag {
    type Mutability = ecs_core::Mutable;
}

/// Three bytes, alignment one (an odd size in every column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct D(pub [u8; 3]);
impl Component for D {
    type Mutability = ecs_core::Mutable;
}

pub use crate::kit::drops::{Ledger, Tracked, Tracked2};

/// Panics in `Drop` while armed (disarms first, so it panics once).
#[derive(Debug)]
pub struct Bomb {
    /// Whether its drop panics.
    pub armed: bool,
}
impl Component for Bomb {
    type Mutability = ecs_core::Mutable;
}

impl Drop for Bomb {
    fn drop(&mut self) {
        if std::mem::take(&mut self.armed) {
            panic!("Bomb dropped while armed (intentional)");
        }
    }
}

/// Scales an operation count down under Miri, which is ~1000x slower.
pub fn size(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}
