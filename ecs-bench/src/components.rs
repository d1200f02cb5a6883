//! The benchmark components named in docs/workloads.md, and the checksum helpers over them.
//!
//! All are plain `Copy` data so the hand-written baselines can hold the same values. Checksums
//! are *order-independent* (a wrapping sum of per-value hashes): backends iterate in different
//! orders, and an order-dependent digest would flag that as a disagreement.

use ecs_core::Component;

/// A 4×4 column-major matrix, as in the community suite's heavy_compute.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(
    feature = "peers",
    derive(bevy_ecs::component::Component, shipyard::Component)
)]
pub struct Transform(pub [f32; 16]);
impl Component for Transform {
    type Mutability = ecs_core::Mutable;
}

/// A point in space.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(
    feature = "peers",
    derive(bevy_ecs::component::Component, shipyard::Component)
)]
pub struct Position(pub [f32; 3]);
impl Component for Position {
    type Mutability = ecs_core::Mutable;
}

/// Euler angles.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(
    feature = "peers",
    derive(bevy_ecs::component::Component, shipyard::Component)
)]
pub struct Rotation(pub [f32; 3]);
impl Component for Rotation {
    type Mutability = ecs_core::Mutable;
}

/// Change of position per step.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(
    feature = "peers",
    derive(bevy_ecs::component::Component, shipyard::Component)
)]
pub struct Velocity(pub [f32; 3]);
impl Component for Velocity {
    type Mutability = ecs_core::Mutable;
}

/// Hit points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(
    feature = "peers",
    derive(bevy_ecs::component::Component, shipyard::Component)
)]
pub struct Health(pub u32);
impl Component for Health {
    type Mutability = ecs_core::Mutable;
}

/// The payload of the fragmented_iter workload.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(
    feature = "peers",
    derive(bevy_ecs::component::Component, shipyard::Component)
)]
pub struct Data(pub f32);
impl Component for Data {
    type Mutability = ecs_core::Mutable;
}

macro_rules! letters {
    ($($name:ident),*) => {$(
        #[doc = concat!("Letter component `", stringify!($name), "` (a newtype over `f32`).")]
        #[derive(Clone, Copy, Debug, PartialEq, Default)]
        #[cfg_attr(feature = "peers", derive(bevy_ecs::component::Component, shipyard::Component))]
        pub struct $name(pub f32);
        impl Component for $name { type Mutability = ecs_core::Mutable; }
    )*};
}
letters!(A, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);

/// Letter component `B` (a newtype over `f32`), the one component that asks for sparse-set
/// storage: add_remove toggles it on every entity, the churn sparse sets exist for. Only the
/// hybrid backend reads the choice; it then runs add_remove at sparse-set cost and pays a
/// sparse look-up where queries join `B` with table components and B's set does not follow
/// the tables (schedule, query_2_unaligned; query_2..4 align it first).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(
    feature = "peers",
    derive(bevy_ecs::component::Component, shipyard::Component)
)]
pub struct B(pub f32);
impl Component for B {
    type Mutability = ecs_core::Mutable;
    const STORAGE: ecs_core::StorageKind = ecs_core::StorageKind::Sparse;
}

/// specs keeps every benchmark component in a `VecStorage` (a value slot per entity index and
/// a bitset), its densest storage and the one its docs recommend for components most
/// entities have.
#[cfg(feature = "peers")]
macro_rules! specs_components {
    ($($name:ident),*) => {$(
        impl specs::Component for $name {
            type Storage = specs::VecStorage<Self>;
        }
    )*};
}
#[cfg(feature = "peers")]
specs_components!(
    Transform, Position, Rotation, Velocity, Health, Data, A, B, C, D, E, F, G, H, I, J, K, L, M,
    N, O, P, Q, R, S, T, U, V, W, X, Y, Z
);

/// Seed 002: a crate's position. Tracks changes (`TRACK_CHANGES`), so writes through
/// `Mut<CratePos>` are logged for `Changed<CratePos>`. A separate type from [`Position`] on
/// purpose: the community workloads keep an untracked position, which pays nothing for
/// tracking.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct CratePos(pub [f32; 3]);
impl Component for CratePos {
    type Mutability = ecs_core::Tracked;
}

/// Seed 002: a crate's sprite animation (current frame and playback speed). Tracks changes.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Animation {
    /// Current frame of the sprite sheet.
    pub frame: u32,
    /// Frames per tick.
    pub speed: f32,
}
impl Component for Animation {
    type Mutability = ecs_core::Tracked;
}

/// Seed 002: a crate's collision box (axis-aligned, relative to its position) and layer mask.
/// Untracked: crates never change shape.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Collision {
    /// Half extents of the box.
    pub half_extents: [f32; 2],
    /// Which collision layers it is on (walls, attackable, ...).
    pub layers: u32,
}
impl Component for Collision {
    type Mutability = ecs_core::Mutable;
}

/// A component of `8 * WORDS` bytes (alignment 8), for seed 004's size sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blob<const WORDS: usize>(pub [u64; WORDS]);
impl<const WORDS: usize> Component for Blob<WORDS> {
    type Mutability = ecs_core::Mutable;
}

impl<const WORDS: usize> Default for Blob<WORDS> {
    fn default() -> Self {
        Blob([0; WORDS])
    }
}

impl Transform {
    /// A rotation of `angle` radians about the X axis followed by a translation: always
    /// invertible, as bevy's heavy_compute uses.
    pub fn rotation_x(angle: f32, translation: [f32; 3]) -> Transform {
        let (s, c) = angle.sin_cos();
        #[rustfmt::skip]
        let m = [
            1.0, 0.0, 0.0, 0.0,
            0.0, c,   s,   0.0,
            0.0, -s,  c,   0.0,
            translation[0], translation[1], translation[2], 1.0,
        ];
        Transform(m)
    }
}

/// A well-mixed 64-bit hash of one value (the shared generator's SplitMix64 finaliser).
pub use ecs_conformance::kit::rng::mix;

/// Hash of a float slice, bit-exact.
#[inline]
pub fn hash_f32s(values: &[f32]) -> u64 {
    values
        .iter()
        .fold(0x51_7cc1_b727_220a, |h, v| mix(h ^ u64::from(v.to_bits())))
}

/// An order-independent digest: add per-item hashes with [`Digest::add`] in any order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Digest(pub u64);

impl Digest {
    /// Adds one item's hash.
    #[inline]
    pub fn add(&mut self, item_hash: u64) {
        self.0 = self.0.wrapping_add(mix(item_hash));
    }

    /// Adds one item given as floats.
    #[inline]
    pub fn add_f32s(&mut self, values: &[f32]) {
        self.add(hash_f32s(values));
    }

    /// The digest with a count folded in (so "nothing happened" never matches by accident).
    pub fn finish(self, count: usize) -> u64 {
        mix(self.0 ^ mix(count as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_order_independent() {
        let mut a = Digest::default();
        let mut b = Digest::default();
        for x in [1.0f32, 2.0, 3.5] {
            a.add_f32s(&[x]);
        }
        for x in [3.5f32, 1.0, 2.0] {
            b.add_f32s(&[x]);
        }
        assert_eq!(a.finish(3), b.finish(3));
        assert_ne!(a.finish(3), a.finish(2));
    }

    #[test]
    fn blob_sizes() {
        assert_eq!(std::mem::size_of::<Blob<1>>(), 8);
        assert_eq!(std::mem::size_of::<Blob<16>>(), 128);
    }
}
