//! The two ways the bevy_ecs runners store letter component `B`: in a table (`B` itself, as
//! bevy's default `StorageType::Table`), or in a sparse set ([`SparseB`], declared
//! `StorageType::SparseSet`) as our hybrid backend keeps `B`. Every bevy body is generic over
//! [`BevyB`], so `bevy_ecs` and `bevy_ecs (sparse B)` run the same code on the two layouts.

use bevy_ecs::bundle::Bundle;
use bevy_ecs::component::{Component, Mutable};

use crate::components::*;

/// A bevy component holding `B`'s value (see the module docs).
pub(crate) trait BevyB: Component<Mutability = Mutable> + Copy {
    /// The component holding `x`.
    fn new(x: f32) -> Self;
    /// Its value.
    fn value(&self) -> f32;
    /// Its value, to write.
    fn value_mut(&mut self) -> &mut f32;
}

/// `B` in a sparse set: what `#[component(storage = "sparse")]` is in our hybrid backend.
#[derive(Clone, Copy, Debug, PartialEq, Component)]
#[component(storage = "SparseSet")]
pub(crate) struct SparseB(f32);

macro_rules! bevy_b {
    ($($name:ident),*) => {$(
        impl BevyB for $name {
            #[inline(always)]
            fn new(x: f32) -> Self {
                $name(x)
            }
            #[inline(always)]
            fn value(&self) -> f32 {
                self.0
            }
            #[inline(always)]
            fn value_mut(&mut self) -> &mut f32 {
                &mut self.0
            }
        }
    )*};
}
bevy_b!(B, SparseB);

/// A letter component as a bevy runner spawns it: itself, but `B` as the runner's `Bb`.
pub(crate) trait Letter<Bb> {
    /// What is spawned.
    type Stored: Bundle;
    /// The letter, as spawned.
    fn stored(self) -> Self::Stored;
}

impl<Bb: BevyB> Letter<Bb> for B {
    type Stored = Bb;
    #[inline(always)]
    fn stored(self) -> Bb {
        Bb::new(self.0)
    }
}

macro_rules! other_letters {
    ($($name:ident),*) => {$(
        impl<Bb> Letter<Bb> for $name {
            type Stored = $name;
            #[inline(always)]
            fn stored(self) -> $name {
                self
            }
        }
    )*};
}
other_letters!(A, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);

/// `letter` as the runner with `Bb` spawns it.
#[inline(always)]
pub(crate) fn stored<Bb, L: Letter<Bb>>(letter: L) -> L::Stored {
    letter.stored()
}
