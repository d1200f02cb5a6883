//! [`EntityIndex`]: which component holds an entity's instance of a given name, kept as a
//! prototype chain (the entity-index design the "Components by name" workloads of
//! docs/workloads.md measure against the hash-map index it replaces).
//!
//! An entity's named instances, in the order they were added, form a chain of
//! *prototypes*: the empty prototype `P0`, then `P0 + (Transform, "Transform")`, then that
//! plus `(RenderData, "Fog")`, and so on. Each prototype is stored once, as
//! `{base, component, name}`, and every entity built the same way (from the same template)
//! refers to the same last prototype, so the index costs two bytes per entity slot plus a
//! registry that grows with the number of distinct compositions, not with entities:
//!
//! ```text
//!   prototypes (registry, shared)                       per entity slot (dense u32 array)
//!   P0 = []                                             slot 0 -> P3
//!   P1 = P0 + (Transform, "Transform")                  slot 1 -> P3
//!   P2 = P1 + (RenderData, "Fog")                       slot 2 -> P5
//!   P3 = P2 + (RenderData, "Vignette")                  slot 3 -> P0 (no named instance)
//!   P4 = P1 + (RenderData2, "Fog")
//!   P5 = P4 + (RenderData2, "Vignette")
//! ```
//!
//! * **add** an instance: the entity moves from `P` to the prototype keyed
//!   `mix(key(P), mix(hash(component), hash(name)))`, created on first use as
//!   `{P, component, name}`. The key is the original design's hash mix; it is the hash of a table of
//!   prototype ids, and a hit is confirmed by comparing `{base, component, name}`, so two
//!   compositions whose keys collide stay apart. Where the original design
//!   kept `Map<Prototype, Description>` and walked it by key, a prototype here names its base by
//!   dense id, so walking the chain is an array read per step (the original design's "cache
//!   the base prototype index").
//! * **find** `(entity, name)`: read the entity's prototype from its slot and walk towards
//!   `P0` until the name matches. Where the original design kept `Map<Entity, Prototype>` (most of its
//!   index memory), the slot array is indexed by the entity's index: 2 bytes per slot (in
//!   4 KiB pages allocated on first use, so no growth slack; 4 bytes once the registry
//!   holds 65,536 prototypes, see [`SlotPages`]), no hashing.
//! * **remove** an instance: walk to the link that added it and re-add the links above it
//!   on top of its base, so the entity's chain holds exactly its instances (no stale
//!   answer); despawn moves the entity to `P0`.
//! * **reclaim**: each prototype counts its users (entities at it, and prototypes built on
//!   it). One whose count falls to zero is *unused*: it is kept, so the next entity built
//!   from the same template finds it again, until unused prototypes outnumber used ones
//!   (and are at least [`SWEEP_MIN`]); then one pass over the registry frees every unused
//!   one (which may make its base unused in turn) and their ids are reused. The registry
//!   therefore stays within about twice what the live entities need.
//!   [`EntityIndex::collect_garbage`] sweeps on demand.

use hashbrown::HashTable;

use super::names::NameId;
use super::slots::SlotPages;
use crate::component::ComponentId;

/// Unused prototypes are swept once there are at least this many and more than used ones.
pub const SWEEP_MIN: u32 = 64;

/// The id of the empty prototype `P0`, which every entity starts at.
const EMPTY: u32 = 0;

/// `refs` of a freed prototype (its id is on the free list).
const DEAD: u32 = u32::MAX;

/// One link of a chain: `base` plus the instance `name` of `component`.
#[derive(Clone, Copy, Debug)]
struct Prototype {
    base: u32,
    component: ComponentId,
    name: NameId,
    /// `mix(key(base), mix(hash(component), hash(name)))`, folded to 32 bits.
    key: u32,
    /// Entities at this prototype plus prototypes whose base it is; [`DEAD`] when freed.
    refs: u32,
}

/// The prototype-chain entity index of one world.
///
/// # Invariants
/// * `prototypes[EMPTY]` is `P0` (never freed, never in `table`); every other id is either
///   live (`refs != DEAD`, in `table` under its key, its base live) or dead (on `free`).
/// * No two live prototypes have the same `{base, component, name}`.
/// * `of_entity.get(i)` is a live prototype; its chain names each
///   instance of the entity at slot `i` once, and no name twice.
/// * A live prototype's `refs` counts the slots at it and the live prototypes based on it;
///   `unused` counts the live prototypes other than `P0` whose `refs` is 0.
#[derive(Debug)]
pub struct EntityIndex {
    of_entity: SlotPages,
    prototypes: Vec<Prototype>,
    table: HashTable<u32>,
    free: Vec<u32>,
    unused: u32,
    /// The links above a removed one, while they are re-added (kept to avoid allocating).
    scratch: Vec<(ComponentId, NameId)>,
}

impl Default for EntityIndex {
    fn default() -> Self {
        EntityIndex {
            of_entity: SlotPages::default(),
            prototypes: vec![Prototype {
                base: EMPTY,
                component: ComponentId::new(0),
                name: NameId::default(),
                key: 0,
                refs: 0,
            }],
            table: HashTable::new(),
            free: Vec::new(),
            unused: 0,
            scratch: Vec::new(),
        }
    }
}

/// Mixes two hashes (a multiply-xorshift; any good 64-bit mixer serves).
#[inline]
fn mix(a: u64, b: u64) -> u64 {
    let x = (a ^ b.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 31)
}

/// The key of the prototype `{base, component, name}` given its base's key.
#[inline]
fn key_of(base_key: u32, component: ComponentId, name: NameId) -> u32 {
    let link = mix(component.index() as u64, u64::from(name.get()) | (1 << 40));
    let k = mix(u64::from(base_key), link);
    (k ^ (k >> 32)) as u32
}

/// The table hash of a key: spread over 64 bits so the table's control bytes vary.
#[inline]
fn hash_of(key: u32) -> u64 {
    mix(u64::from(key), 0)
}

impl EntityIndex {
    /// The component holding the instance `name` of the entity at slot `slot`.
    #[inline]
    pub fn find(&self, slot: u32, name: NameId) -> Option<ComponentId> {
        let mut p = self.prototype_of(slot);
        while p != EMPTY {
            let proto = &self.prototypes[p as usize];
            if proto.name == name {
                return Some(proto.component);
            }
            p = proto.base;
        }
        None
    }

    /// The `(component, name)` of every instance of the entity at slot `slot`, the most
    /// recently added first.
    pub fn instances(&self, slot: u32) -> impl Iterator<Item = (ComponentId, NameId)> + '_ {
        let mut p = self.prototype_of(slot);
        std::iter::from_fn(move || {
            (p != EMPTY).then(|| {
                let proto = &self.prototypes[p as usize];
                p = proto.base;
                (proto.component, proto.name)
            })
        })
    }

    /// Records that the entity at `slot` gained the instance `name` of `component`. The
    /// caller makes sure the entity has no instance of that name yet.
    pub fn add(&mut self, slot: u32, component: ComponentId, name: NameId) {
        debug_assert!(self.find(slot, name).is_none(), "name already indexed");
        let next = self.link(self.prototype_of(slot), component, name);
        self.move_entity(slot, next);
        self.maybe_sweep();
    }

    /// Records that the entity at `slot` lost its instance `name`; false if it had none.
    pub fn remove(&mut self, slot: u32, name: NameId) -> bool {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let mut p = self.prototype_of(slot);
        while p != EMPTY && self.prototypes[p as usize].name != name {
            let proto = &self.prototypes[p as usize];
            scratch.push((proto.component, proto.name));
            p = proto.base;
        }
        let found = p != EMPTY;
        if found {
            let mut rebuilt = self.prototypes[p as usize].base;
            for &(component, name) in scratch.iter().rev() {
                rebuilt = self.link(rebuilt, component, name);
            }
            self.move_entity(slot, rebuilt);
            self.maybe_sweep();
        }
        self.scratch = scratch;
        found
    }

    /// Forgets every instance of the entity at `slot` (it was despawned).
    #[inline]
    pub fn release(&mut self, slot: u32) {
        if self.prototype_of(slot) != EMPTY {
            self.move_entity(slot, EMPTY);
            self.maybe_sweep();
        }
    }

    /// Forgets every entity's instances (the world was cleared); the registry keeps the
    /// prototypes (unused now) for reuse until they are swept.
    pub fn release_all(&mut self) {
        for slot in self.of_entity.occupied() {
            self.move_entity(slot, EMPTY);
        }
        self.maybe_sweep();
    }

    /// Frees every unused prototype now; returns how many were freed.
    pub fn collect_garbage(&mut self) -> usize {
        let mut freed = 0;
        let mut work: Vec<u32> = (1..self.prototypes.len() as u32)
            .filter(|&p| self.prototypes[p as usize].refs == 0)
            .collect();
        while let Some(p) = work.pop() {
            let proto = self.prototypes[p as usize];
            let hash = hash_of(proto.key);
            if let Ok(entry) = self.table.find_entry(hash, |&id| id == p) {
                entry.remove();
            }
            self.prototypes[p as usize].refs = DEAD;
            self.free.push(p);
            self.unused -= 1;
            freed += 1;
            if proto.base != EMPTY && self.release_ref(proto.base) {
                work.push(proto.base);
            }
        }
        freed
    }

    /// Prototypes in the registry (used and unused; not counting `P0`).
    pub fn prototypes(&self) -> usize {
        self.prototypes.len() - 1 - self.free.len()
    }

    /// Prototypes in the registry with no user: no entity at them and none built on them
    /// (kept for reuse until swept; freeing one may leave its base without users).
    pub fn unused_prototypes(&self) -> usize {
        self.unused as usize
    }

    /// Heap bytes of the prototype registry: the prototypes, their table and free list.
    pub fn registry_bytes(&self) -> usize {
        self.prototypes.capacity() * size_of::<Prototype>()
            + self.table.allocation_size()
            + self.free.capacity() * size_of::<u32>()
            + self.scratch.capacity() * size_of::<(ComponentId, NameId)>()
    }

    /// Heap bytes of the per-entity-slot array (2 bytes per slot of the pages in use, and
    /// the page table).
    pub fn slot_bytes(&self) -> usize {
        self.of_entity.bytes()
    }

    /// Heap bytes held by the whole index.
    pub fn memory_usage(&self) -> usize {
        self.registry_bytes() + self.slot_bytes()
    }

    #[inline]
    fn prototype_of(&self, slot: u32) -> u32 {
        self.of_entity.get(slot)
    }

    /// The prototype `base + (component, name)`, created (unused) on first use.
    fn link(&mut self, base: u32, component: ComponentId, name: NameId) -> u32 {
        let key = key_of(self.prototypes[base as usize].key, component, name);
        let prototypes = &self.prototypes;
        let same = |&id: &u32| {
            let p = &prototypes[id as usize];
            p.base == base && p.component == component && p.name == name
        };
        if let Some(&id) = self.table.find(hash_of(key), same) {
            return id;
        }
        let proto = Prototype {
            base,
            component,
            name,
            key,
            refs: 0,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.prototypes[id as usize] = proto;
                id
            }
            None => {
                let id = u32::try_from(self.prototypes.len()).expect("2^32 prototypes");
                self.prototypes.push(proto);
                id
            }
        };
        self.unused += 1;
        if base != EMPTY {
            self.add_ref(base);
        }
        let prototypes = &self.prototypes;
        self.table
            .insert_unique(hash_of(key), id, |&id| hash_of(prototypes[id as usize].key));
        id
    }

    /// Moves the entity at `slot` to prototype `next`.
    fn move_entity(&mut self, slot: u32, next: u32) {
        let previous = self.of_entity.set(slot, next);
        if next != EMPTY {
            self.add_ref(next);
        }
        if previous != EMPTY {
            self.release_ref(previous);
        }
    }

    fn add_ref(&mut self, p: u32) {
        let refs = &mut self.prototypes[p as usize].refs;
        debug_assert_ne!(*refs, DEAD);
        if *refs == 0 {
            self.unused -= 1;
        }
        *refs += 1;
    }

    /// Drops one reference to `p`; true if it became unused.
    fn release_ref(&mut self, p: u32) -> bool {
        let refs = &mut self.prototypes[p as usize].refs;
        debug_assert!(*refs != 0 && *refs != DEAD);
        *refs -= 1;
        let now_unused = *refs == 0;
        if now_unused {
            self.unused += 1;
        }
        now_unused
    }

    fn maybe_sweep(&mut self) {
        let used = self.prototypes() as u32 - self.unused;
        if self.unused >= SWEEP_MIN && self.unused > used {
            self.collect_garbage();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(i: u32) -> ComponentId {
        ComponentId::new(i)
    }

    fn names() -> (NameId, NameId, NameId) {
        let mut names = crate::named::Names::default();
        (
            names.intern("Transform"),
            names.intern("Fog"),
            names.intern("Vignette"),
        )
    }

    #[test]
    fn entities_built_alike_share_prototypes() {
        let (transform, fog, vignette) = names();
        let mut index = EntityIndex::default();
        for slot in 0..3 {
            index.add(slot, c(1), transform);
            let render = if slot == 2 { c(3) } else { c(2) };
            index.add(slot, render, fog);
            index.add(slot, render, vignette);
        }
        // P1, P2, P3 shared by slots 0 and 1; P4, P5 for slot 2 (the picture above).
        assert_eq!(index.prototypes(), 5);
        assert_eq!(index.of_entity.get(0), index.of_entity.get(1));
        assert_eq!(index.find(0, fog), Some(c(2)));
        assert_eq!(index.find(2, vignette), Some(c(3)));
        assert_eq!(index.find(2, transform), Some(c(1)));
        let listed: Vec<_> = index.instances(2).collect();
        assert_eq!(
            listed,
            vec![(c(3), vignette), (c(3), fog), (c(1), transform)]
        );
        assert_eq!(
            index.find(7, fog),
            None,
            "a slot past the array has nothing"
        );
    }

    #[test]
    fn remove_rebuilds_the_chain_above_the_link() {
        let (transform, fog, vignette) = names();
        let mut index = EntityIndex::default();
        for slot in 0..2 {
            index.add(slot, c(1), transform);
            index.add(slot, c(2), fog);
            index.add(slot, c(2), vignette);
        }
        assert!(index.remove(0, fog));
        assert!(!index.remove(0, fog), "already gone");
        assert_eq!(index.find(0, fog), None);
        assert_eq!(index.find(0, vignette), Some(c(2)));
        assert_eq!(index.find(0, transform), Some(c(1)));
        assert_eq!(
            index.find(1, fog),
            Some(c(2)),
            "the other entity keeps its chain"
        );
        index.release(1);
        assert_eq!(index.find(1, transform), None);
        // Slot 0 uses P1 + Vignette; slot 1's P3 is unused (kept), and P2 is used by P3
        // only, so freeing P3 frees P2 too.
        assert_eq!(index.unused_prototypes(), 1);
        assert_eq!(index.collect_garbage(), 2);
        assert_eq!(index.prototypes(), 2);
        assert_eq!(index.find(0, vignette), Some(c(2)));
    }

    #[test]
    fn unused_prototypes_are_swept_and_ids_reused() {
        let mut names = crate::named::Names::default();
        let mut index = EntityIndex::default();
        // Every entity a composition of its own, despawned at once: garbage piles up, and
        // is swept when it outnumbers what is used. Under Miri, enough rounds for four
        // sweeps.
        let rounds = if cfg!(miri) { 5 * SWEEP_MIN } else { 1000 };
        for i in 0..rounds {
            let name = names.intern(&format!("n{i}"));
            index.add(0, c(1), name);
            index.release(0);
            assert!(
                index.prototypes() <= 2 * SWEEP_MIN as usize + 2,
                "round {i}"
            );
        }
        index.release_all();
        index.collect_garbage();
        assert_eq!(index.prototypes(), 0);
        assert!(
            index.prototypes.len() <= 2 * SWEEP_MIN as usize + 3,
            "ids were reused"
        );
    }

    #[test]
    fn colliding_keys_stay_apart() {
        // Many compositions: whatever keys collide, a find answers each entity's own.
        let mut names = crate::named::Names::default();
        let ids: Vec<NameId> = (0..50).map(|i| names.intern(&format!("x{i}"))).collect();
        let mut index = EntityIndex::default();
        for slot in 0..200u32 {
            for k in 0..(slot % 7 + 1) {
                let name = ids[((slot + k * 13) % 50) as usize];
                if index.find(slot, name).is_none() {
                    index.add(slot, c(slot % 5 + k), name);
                }
            }
        }
        for slot in 0..200u32 {
            for k in 0..(slot % 7 + 1) {
                let name = ids[((slot + k * 13) % 50) as usize];
                assert!(index.find(slot, name).is_some());
            }
        }
    }
}
