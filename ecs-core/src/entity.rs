//! The entity handle.
//!
//! An [`Entity`] is a 32-bit *index* (a slot in the allocator, reused after the entity dies)
//! and a 32-bit *generation* (how many times that slot has been handed out), packed into one
//! `u64`. The generation is what makes a stale handle detectable: once an entity is despawned
//! its slot's generation moves on, so the old handle no longer compares equal to the live one.
//! The world's allocator hands out generations up to 65,535 and then retires the slot (see
//! [`MAX_GENERATION`](crate::entities::MAX_GENERATION)), which keeps its liveness check to
//! one two-byte read.

use std::fmt;
use std::num::NonZeroU64;

/// A handle to an entity: a 32-bit index and a 32-bit generation in one `u64`.
///
/// The generation is never zero, so `Option<Entity>` is as small as `Entity`.
/// Handles are plain values: copying one does not keep the entity alive, and every
/// [`World`](crate::World) API checks that a handle is still live before using it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Entity(NonZeroU64);

impl Entity {
    /// A handle no world ever hands out (index `u32::MAX`, which the allocator never uses,
    /// and the largest generation): a value for a field that must hold some `Entity` before
    /// the real one is known. Every world API answers it as a stale handle.
    ///
    /// ```
    /// # use ecs_core::{Entity, World, EcsError, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(());
    /// assert!(!world.contains(Entity::PLACEHOLDER));
    /// assert_eq!(world.despawn(Entity::PLACEHOLDER), Err(EcsError::NoSuchEntity(Entity::PLACEHOLDER)));
    /// ```
    pub const PLACEHOLDER: Entity = match Entity::new(u32::MAX, u32::MAX) {
        Some(entity) => entity,
        None => panic!("a non-zero generation makes a handle"),
    };

    /// Whether two runs of handles are the same, compared as one block of memory (`memcmp`):
    /// sparse storages check whether two sets hold a run of entities in the same order.
    #[inline]
    pub fn same_run(a: &[Entity], b: &[Entity]) -> bool {
        // SAFETY: `Entity` is `repr(transparent)` over `NonZeroU64`, itself `repr(transparent)`
        // over `u64`, so a slice of handles is a valid slice of `u64`s of the same length.
        let bits =
            |s: &[Entity]| unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u64>(), s.len()) };
        bits(a) == bits(b)
    }

    /// Builds a handle from its parts.
    ///
    /// Returns `None` when `generation` is zero (no live entity ever has generation 0).
    #[inline]
    pub const fn new(index: u32, generation: u32) -> Option<Entity> {
        match NonZeroU64::new(((generation as u64) << 32) | index as u64) {
            Some(bits) if generation != 0 => Some(Entity(bits)),
            _ => None,
        }
    }

    /// The slot index: dense, small, reused after despawn. Storages index arrays with it.
    #[inline]
    pub const fn index(self) -> u32 {
        self.0.get() as u32
    }

    /// How many times the slot has been handed out (starting at 1).
    #[inline]
    pub const fn generation(self) -> u32 {
        (self.0.get() >> 32) as u32
    }

    /// The packed `u64` form (generation in the high half), e.g. for serialization.
    #[inline]
    pub const fn to_bits(self) -> u64 {
        self.0.get()
    }

    /// Rebuilds a handle from [`Entity::to_bits`]; `None` when the generation half is zero.
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Entity> {
        Entity::new(bits as u32, (bits >> 32) as u32)
    }

    /// The first handle of `entities` equal to an earlier one, if any: what requests for
    /// several mutable items at once check before handing any out.
    ///
    /// Pairwise for a few handles (no allocation); through a hash set beyond
    /// [`Entity::PAIRWISE_REPEATS`], so a long request stays linear.
    pub(crate) fn first_repeated(entities: &[Entity]) -> Option<Entity> {
        if entities.len() <= Self::PAIRWISE_REPEATS {
            return entities
                .iter()
                .enumerate()
                .find(|&(i, e)| entities[..i].contains(e))
                .map(|(_, &e)| e);
        }
        let mut seen = std::collections::HashSet::with_capacity(entities.len());
        entities.iter().copied().find(|&e| !seen.insert(e))
    }

    /// Up to this many handles, [`Entity::first_repeated`] compares every pair.
    const PAIRWISE_REPEATS: usize = 16;
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index(), self.generation())
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_run_compares_index_and_generation() {
        let e = |i, g| Entity::new(i, g).unwrap();
        let run = [e(1, 1), e(2, 1), e(3, 4)];
        assert!(Entity::same_run(&run, &[e(1, 1), e(2, 1), e(3, 4)]));
        assert!(
            !Entity::same_run(&run, &[e(1, 1), e(2, 1), e(3, 5)]),
            "generation"
        );
        assert!(
            !Entity::same_run(&run, &[e(1, 1), e(3, 4), e(2, 1)]),
            "order"
        );
        assert!(!Entity::same_run(&run, &run[..2]), "length");
        assert!(Entity::same_run(&[], &[]));
    }

    #[test]
    fn first_repeated_names_the_first_handle_seen_before() {
        let e = |i| Entity::new(i, 1).unwrap();
        assert_eq!(Entity::first_repeated(&[]), None);
        assert_eq!(Entity::first_repeated(&[e(1), e(2), e(3)]), None);
        assert_eq!(
            Entity::first_repeated(&[e(1), e(2), e(2), e(1)]),
            Some(e(2))
        );
        // Same index, other generation: a different handle.
        assert_eq!(
            Entity::first_repeated(&[e(1), Entity::new(1, 2).unwrap()]),
            None
        );
        // Beyond the pairwise limit: the hash set answers the same way.
        let mut long: Vec<Entity> = (0..40).map(e).collect();
        assert_eq!(Entity::first_repeated(&long), None);
        long.push(e(30));
        long.push(e(5));
        assert_eq!(Entity::first_repeated(&long), Some(e(30)));
    }

    #[test]
    fn parts_round_trip() {
        let e = Entity::new(7, 3).unwrap();
        assert_eq!((e.index(), e.generation()), (7, 3));
        assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
        assert_eq!(format!("{e:?}"), "7v3");
    }

    #[test]
    fn generation_zero_is_not_an_entity() {
        assert_eq!(Entity::new(5, 0), None);
        assert_eq!(Entity::from_bits(5), None);
        assert_eq!(std::mem::size_of::<Option<Entity>>(), 8);
    }

    #[test]
    fn extreme_parts() {
        let e = Entity::new(u32::MAX, u32::MAX).unwrap();
        assert_eq!((e.index(), e.generation()), (u32::MAX, u32::MAX));
    }
}
