//! Owning groups: components whose sets keep the entities holding *all* of them packed at
//! the front, in one order, so a query requiring them walks parallel arrays (EnTT's
//! "full-owning group").
//!
//! ```text
//!   group (Position, Velocity), len 2
//!
//!   Position entities  [ e4 | e1 | e7 | e2 ]      e4, e1: have both, same positions
//!   Velocity entities  [ e4 | e1 | e9 ]           e7, e2, e9: outside the group
//!                       \_______/
//!                       the group: Dense columns of a query over (Position, Velocity)
//! ```
//!
//! * **An entity completes the group** (gains the last owned component it lacked): in every
//!   owned set it is swapped with the entity at position `len`, then `len` grows by one.
//! * **An entity leaves the group** (is about to lose an owned component, or be despawned):
//!   `len` shrinks by one and in every owned set it is swapped with the entity at the new
//!   `len`. The removal that follows swap-removes from a position at or past `len`, so the
//!   last entity that moves into the hole is outside the group too.
//!
//! So each structural change of an owned component costs one swap per owned set; a query
//! over the group pays no look-up per row. Components outside any group are untouched.

use ecs_core::component::ComponentId;
use ecs_core::Entity;

use crate::sparse_set::SparseSet;

/// One owning group.
///
/// # Invariant
/// (Kept by [`SparseStorage`](crate::SparseStorage), which owns the sets.) Every owned set
/// exists; for every position `p < len`, all owned sets hold the same entity at `p`; and an
/// entity is at a position below `len` in the owned sets exactly when it holds every owned
/// component.
#[derive(Debug)]
pub struct Group {
    owned: Box<[ComponentId]>,
    len: usize,
}

impl Group {
    /// An empty group over `owned` (at least two distinct components).
    pub(crate) fn new(owned: Box<[ComponentId]>) -> Group {
        debug_assert!(owned.len() >= 2);
        Group { owned, len: 0 }
    }

    /// The owned components.
    #[inline]
    pub fn owned(&self) -> &[ComponentId] {
        &self.owned
    }

    /// How many entities hold every owned component (the packed prefix of each owned set).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no entity holds every owned component.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets every member (after every owned set was cleared).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds `entity` to the packed prefix if it now holds every owned component and is not
    /// in it yet (called after it gained an owned component).
    pub(crate) fn enter(&mut self, sets: &mut [Option<SparseSet>], entity: Entity) {
        let Some(pos) = owned_set(sets, self.owned[0]).dense_index(entity) else {
            return;
        };
        let holds_all = || {
            self.owned[1..]
                .iter()
                .all(|&c| owned_set(sets, c).contains(entity))
        };
        if pos < self.len || !holds_all() {
            return;
        }
        self.move_to(sets, entity, self.len);
        self.len += 1;
    }

    /// Takes `entity` out of the packed prefix if it is in it (called before it loses an
    /// owned component or is despawned).
    pub(crate) fn leave(&mut self, sets: &mut [Option<SparseSet>], entity: Entity) {
        match owned_set(sets, self.owned[0]).dense_index(entity) {
            Some(pos) if pos < self.len => {}
            _ => return,
        }
        self.len -= 1;
        self.move_to(sets, entity, self.len);
    }

    /// Swaps `entity` (which holds every owned component) to position `pos` in every owned
    /// set: the one step both entering and leaving the packed range take.
    fn move_to(&self, sets: &mut [Option<SparseSet>], entity: Entity, pos: usize) {
        for &c in self.owned.iter() {
            let set = owned_set_mut(sets, c);
            let at = set
                .dense_index(entity)
                .expect("holds every owned component");
            set.swap_positions(at, pos);
        }
    }

    /// Packs every entity already holding all owned components (when the group is made).
    pub(crate) fn fill(&mut self, sets: &mut [Option<SparseSet>]) {
        self.len = 0;
        let smallest = self
            .owned
            .iter()
            .map(|&c| owned_set(sets, c))
            .min_by_key(|set| set.len())
            .expect("a group owns at least two components");
        let candidates = smallest.entities().to_vec();
        for entity in candidates {
            self.enter(sets, entity);
        }
    }
}

/// The set of an owned component (which exists: type invariant).
fn owned_set(sets: &[Option<SparseSet>], c: ComponentId) -> &SparseSet {
    sets[c.index()].as_ref().expect("owned sets exist")
}

fn owned_set_mut(sets: &mut [Option<SparseSet>], c: ComponentId) -> &mut SparseSet {
    sets[c.index()].as_mut().expect("owned sets exist")
}

#[cfg(test)]
mod tests;
