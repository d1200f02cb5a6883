//! `SparseStorage`: the [`Storage`] backend made of one [`SparseSet`] per component type.
//!
//! ```text
//!   sets (by ComponentId index, no hashing)
//!   [ Some(Position set) | None | Some(Velocity set) | Some(Frozen set) ]
//!            |                          |                    |
//!      3 entities                 2 entities            1 entity
//! ```
//!
//! An entity has no record of its own here: "which components does e have" is answered
//! set by set. That makes adding or removing one component O(1) and independent of the
//! others (no row moves between tables; a component owned by a group adds one swap in each
//! of the group's sets), and makes `despawn` visit every set, O(number of
//! component types) — cheap while types number in the tens or hundreds, and it needs no
//! per-entity allocation. Queries are answered in `query.rs`.

use std::ptr::NonNull;

use ecs_core::bundle::{Bundle, BundleInfo, BundleVisitor};
use ecs_core::component::{Component, ComponentId, Components, StorageKind};
use ecs_core::layout::{ComponentBytes, GroupLayout, StorageLayout};
use ecs_core::storage::{
    spawn_columns_by_entity, ByEntity, ColumnValues, QueryDescriptor, Storage,
};
use ecs_core::unwind::for_each_completing;
use ecs_core::{EcsError, Entity};

use crate::group::Group;
use crate::holders::{Holders, TRACK_FROM};
use crate::query::{Driver, SparseChunk, SparseChunks};
use crate::sparse_set::SparseSet;

/// Every component's values in its own sparse set.
///
/// # Invariants
/// * `sets[i]`, when `Some`, holds values of the component with index `i` (created from its
///   registered info), and only entities the world holds live.
/// * Every group in `groups` keeps the [`Group`] invariant over `sets`; `owner[c]` is the
///   index in `groups` of the group owning component `c` (at most one), `None` otherwise.
/// * `set_count` is the number of `Some` in `sets`; `holders` is `Some` once it reached
///   `TRACK_FROM`, and then keeps the `Holders` invariant over `sets` (every entity a set
///   holds has that set's bit), with masks wide enough for `sets` (up to 256 ids: see
///   `Holders::too_narrow_for`), so a despawn asks only the sets that hold the entity.
#[derive(Default)]
pub struct SparseStorage {
    sets: Vec<Option<SparseSet>>,
    groups: Vec<Group>,
    owner: Vec<Option<usize>>,
    set_count: usize,
    /// Which sets may hold each entity, kept once there are many sets, so a despawn asks
    /// those sets only (see the `holders` module).
    holders: Option<Holders>,
}

impl SparseStorage {
    /// An empty storage; allocates nothing.
    pub const fn new() -> SparseStorage {
        SparseStorage {
            sets: Vec::new(),
            groups: Vec::new(),
            owner: Vec::new(),
            set_count: 0,
            holders: None,
        }
    }

    /// The owning groups (see [`World::group`](ecs_core::World::group)).
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The group owning `component`, if any.
    #[inline]
    fn owner(&self, component: ComponentId) -> Option<usize> {
        self.owner.get(component.index()).copied().flatten()
    }

    /// After `entity` gained `component`: joins its group's packed range if now complete.
    #[inline(always)]
    fn gained(&mut self, entity: Entity, component: ComponentId) {
        if let Some(holders) = &mut self.holders {
            holders.mark(entity, component);
        }
        if let Some(g) = self.owner(component) {
            self.groups[g].enter(&mut self.sets, entity);
        }
    }

    /// Records in the holders (when kept) that the sets of `components` may hold `entity`.
    #[inline]
    fn mark_all(&mut self, entity: Entity, components: &[ComponentId]) {
        if let Some(holders) = &mut self.holders {
            holders.mark_all(entity, components);
        }
    }

    /// Before `entity` loses `component`: leaves its group's packed range.
    #[inline]
    fn losing(&mut self, entity: Entity, component: ComponentId) {
        if let Some(g) = self.owner(component) {
            self.groups[g].leave(&mut self.sets, entity);
        }
    }

    /// The set of `component`, if a value of it was ever stored (or room reserved).
    #[inline]
    pub fn set(&self, component: ComponentId) -> Option<&SparseSet> {
        self.sets.get(component.index())?.as_ref()
    }

    /// Reorders `component`'s set by `key` (see [`SparseSet::sort_by_key`]); false, with
    /// nothing changed, when no set exists for it or a group owns it (the group decides the
    /// order of its sets: its entities packed at the front).
    pub fn sort_set_by_key(
        &mut self,
        component: ComponentId,
        key: impl FnMut(Entity) -> u64,
    ) -> bool {
        if self.owner(component).is_some() {
            return false;
        }
        match self.existing_set_mut(component) {
            Some(set) => {
                set.sort_by_key(key);
                true
            }
            None => false,
        }
    }

    /// Whether an owning group owns `component` (a group decides its sets' order and
    /// keeps only sparse components).
    pub fn is_grouped(&self, component: ComponentId) -> bool {
        self.owner(component).is_some()
    }

    /// Makes room for `entities` (none of them holding it yet) to gain `component`: its
    /// set created, its dense arrays reserved, each entity's sparse page and holder slot
    /// allocated. After this, inserting exactly those entities allocates nothing, so a
    /// storage moving many values into the set does all its allocating before the first
    /// move.
    pub fn reserve_for(
        &mut self,
        component: ComponentId,
        entities: &[Entity],
        components: &Components,
    ) {
        let set = self.set_mut(component, components);
        set.reserve(entities.len());
        for &entity in entities {
            set.reserve_entry(entity);
        }
        if let Some(holders) = &mut self.holders {
            for &entity in entities {
                holders.reserve_for(entity);
            }
        }
    }

    /// How many sets exist (a storage with none holds no value).
    #[inline]
    pub fn set_count(&self) -> usize {
        self.set_count
    }

    /// Every set that exists, in component-id order.
    pub fn sets(&self) -> impl Iterator<Item = &SparseSet> {
        self.sets.iter().flatten()
    }

    #[inline]
    fn existing_set_mut(&mut self, component: ComponentId) -> Option<&mut SparseSet> {
        self.sets.get_mut(component.index())?.as_mut()
    }

    /// The set of `component`, created from its registered info on first use.
    #[inline(always)]
    fn set_mut(&mut self, component: ComponentId, components: &Components) -> &mut SparseSet {
        // Checked with a shared look-up, then read again with nothing written between: the
        // compiler folds the two, so the path every insert takes checks once.
        if !matches!(self.sets.get(component.index()), Some(Some(_))) {
            self.create_set(component, components);
        }
        match self.sets.get_mut(component.index()) {
            Some(Some(set)) => set,
            _ => unreachable!("the set of {component:?} was created above"),
        }
    }

    /// Creates the set of `component`; with the [`TRACK_FROM`]th set, starts keeping holders,
    /// and rebuilds them wider when the set's id is beyond their masks' width.
    #[cold]
    fn create_set(&mut self, component: ComponentId, components: &Components) {
        if component.index() >= self.sets.len() {
            self.sets.resize_with(component.index() + 1, || None);
        }
        self.sets[component.index()] = Some(SparseSet::new(components.info(component)));
        self.set_count += 1;
        let rebuild = match &self.holders {
            None => self.set_count >= TRACK_FROM,
            Some(holders) => holders.too_narrow_for(self.sets.len()),
        };
        if rebuild {
            self.holders = Some(Holders::build(&self.sets));
        }
    }
}

/// Writes each value of a spawned bundle straight into its component's set.
struct BundleWriter<'a> {
    storage: &'a mut SparseStorage,
    entity: Entity,
    ids: &'a [ComponentId],
    components: &'a Components,
}

impl BundleVisitor for BundleWriter<'_> {
    #[inline]
    fn visit<T: Component>(&mut self, index: usize, value: T) {
        let set = self.storage.set_mut(self.ids[index], self.components);
        // SAFETY: the set was made from the registry's info for `ids[index]`; `ids` are the
        // bundle's components in field order (`spawn`'s contract) and `visit` hands field
        // `index` over as its type `T` (the `Bundle` contract), so that component is `T`.
        unsafe { set.insert(self.entity, value) };
    }
}

/// The sets of a batch's bundle, taken out of the storage in field order while the batch is
/// written, so one entity's values go to several sets through plain `&mut`.
///
/// Values are pushed as pending rows and the batch's entities collected in `batch`; on drop
/// (at the end of the batch, or while unwinding from a panicking bundle iterator) every set
/// is put back and its pending rows linked to `batch`, so no set and no value is lost.
///
/// # Invariant
/// `sets[i]` is the set of `ids[i]` (its slot in the storage is `None` meanwhile), and each
/// holds one pending row per entity of `batch` (in order), or more only while a bundle is
/// being visited; `batch` has room for one more entity whenever `room > 0`, and so does the
/// data array of every set.
struct TakenSets<'a> {
    storage: &'a mut SparseStorage,
    ids: &'a [ComponentId],
    sets: Vec<SparseSet>,
    batch: Vec<Entity>,
    room: usize,
}

impl<'a> TakenSets<'a> {
    /// Takes the sets of `ids` (distinct, as `BundleInfo` guarantees), creating missing ones.
    fn take(
        storage: &'a mut SparseStorage,
        ids: &'a [ComponentId],
        components: &Components,
    ) -> Self {
        // Create every missing set first: nothing is taken until nothing more can fail.
        for &id in ids {
            storage.set_mut(id, components);
        }
        let sets = ids
            .iter()
            .map(|&id| {
                storage.sets[id.index()]
                    .take()
                    .expect("`set_mut` created the set and `ids` are distinct")
            })
            .collect();
        TakenSets {
            storage,
            ids,
            sets,
            batch: Vec::new(),
            room: 0,
        }
    }

    /// Writes one entity's bundle as pending rows, reserving room for `more` further entities
    /// (the iterator's lower bound) when the last reservation is used up.
    #[inline]
    fn write<B: Bundle>(&mut self, entity: Entity, bundle: B, more: usize) {
        if self.room == 0 {
            self.room = more.saturating_add(1);
            self.batch.reserve(self.room);
            for set in &mut self.sets {
                set.reserve(self.room);
            }
        }
        bundle.visit(&mut BatchWriter {
            sets: &mut self.sets,
        });
        self.room -= 1;
        // Room was reserved: this push does not reallocate.
        self.batch.push(entity);
    }
}

impl Drop for TakenSets<'_> {
    /// Puts every set back before linking any, so a refused link (a batch entity the set
    /// already holds: only a caller breaking `spawn_batch`'s contract) loses no set; that
    /// panic aborts if the batch was already unwinding, as any double panic does.
    fn drop(&mut self) {
        for (&id, set) in self.ids.iter().zip(self.sets.drain(..)) {
            self.storage.sets[id.index()] = Some(set);
        }
        if let Some(holders) = &mut self.storage.holders {
            for &entity in &self.batch {
                holders.mark_all(entity, self.ids);
            }
        }
        let (sets, batch) = (&mut self.storage.sets, &self.batch);
        for_each_completing(self.ids.iter(), |id| {
            if let Some(set) = sets[id.index()].as_mut() {
                set.link_pending(batch);
            }
        });
    }
}

/// Pushes each value of one bundle of a batch onto its (taken) set as a pending row.
struct BatchWriter<'a> {
    sets: &'a mut [SparseSet],
}

impl BundleVisitor for BatchWriter<'_> {
    #[inline(always)]
    fn visit<T: Component>(&mut self, index: usize, value: T) {
        // SAFETY: `sets[index]` is the set of field `index`'s component (`TakenSets::take`
        // follows `BundleInfo::components`, which is in field order), whose type the `Bundle`
        // contract says is `T`; its data array has room (`TakenSets` invariant, `write`
        // reserved); only pending pushes reach a taken set until `link_pending`.
        unsafe { self.sets[index].push_pending(value) };
    }
}

// SAFETY: the `Storage` contract, point by point:
// * Values live in each set's `BlobVec`, a raw allocation outside any `&self` borrow;
//   `get_ptr` answers from the set's dense data, and distinct (entity, component) pairs are
//   distinct slots (one set per component, one position per entity in a set).
// * `query_chunks` yields at most one chunk, whose entities are one set's dense entities (all
//   of them, or a group's packed prefix) or the `alive` slice: each entity at most once. The
//   driving set is a required component's, so every matching entity is in it; a driving
//   group's components are all required, and every entity holding them all is in its prefix
//   (`Group` invariant). `Dense` pointers are the data of the driving set, or of each owned
//   set of the driving group, parallel to the chunk's entities (same invariant), or of
//   another set at the run where it holds exactly the chunk's entities in order
//   (`aligned_with` compared them), so also parallel. Other slots are `Sparse` look-ups
//   that answer only for entities the set holds, or `Absent` when no set exists; a required
//   slot is never `Absent` (no chunk is yielded then).
// * `is_dense` is false for every type, so the dense-only promises do not apply.
// * `place` is a `ByEntity` (reads are `get_ptr`); no chunk has a key, no entity a row.
// * Every value moved in is dropped once (`despawn`, `clear`, the sets' `Drop`) or moved out
//   once (`remove_into`); the sets stay consistent when a `Drop` panics, and
//   `for_each_completing` keeps despawn/clear going through the remaining sets.
unsafe impl Storage for SparseStorage {
    const NAME: &'static str = "sparse";
    type Lookup = SparseSet;
    type Chunk<'a> = SparseChunk<'a>;
    type Chunks<'a> = SparseChunks<'a>;
    type QueryCache = ();
    type Place<'a> = ByEntity<'a, SparseStorage>;

    #[inline]
    fn is_dense<T: Component>() -> bool {
        false
    }

    #[inline]
    unsafe fn spawn<B: Bundle>(
        &mut self,
        entity: Entity,
        bundle: B,
        info: &BundleInfo,
        components: &Components,
    ) {
        if B::COUNT == 0 {
            return; // nothing is kept for an entity without components
        }
        bundle.visit(&mut BundleWriter {
            storage: self,
            entity,
            ids: info.components(),
            components,
        });
        self.mark_all(entity, info.components());
        if !self.groups.is_empty() {
            for &id in info.components() {
                self.gained(entity, id);
            }
        }
    }

    /// Resolves the bundle's sets once and writes each bundle straight into them; with
    /// owning groups, each entity is spawned on its own so the groups see every arrival.
    unsafe fn spawn_batch<B: Bundle>(
        &mut self,
        batch: impl Iterator<Item = (Entity, B)>,
        info: &BundleInfo,
        components: &Components,
    ) {
        if !self.groups.is_empty() {
            for (entity, bundle) in batch {
                // SAFETY: forwarded contract, per entity.
                unsafe { self.spawn(entity, bundle, info, components) };
            }
            return;
        }
        let mut taken = TakenSets::take(self, info.components(), components);
        let mut batch = batch;
        while let Some((entity, bundle)) = batch.next() {
            taken.write(entity, bundle, batch.size_hint().0);
        }
    }

    /// One append per set; with owning groups, entity by entity, so the groups see every
    /// arrival.
    unsafe fn spawn_columns(
        &mut self,
        entities: &[Entity],
        columns: &mut [ColumnValues<'_>],
        empty: &BundleInfo,
        components: &Components,
    ) {
        if !self.groups.is_empty() {
            // SAFETY: forwarded contract.
            return unsafe { spawn_columns_by_entity(self, entities, columns, empty, components) };
        }
        for column in columns.iter_mut() {
            let set = self.set_mut(column.component, components);
            // SAFETY: the set was made from the registry's info for the component; the
            // values are `entities.len()` owned values of it, the buffer (if any) exactly
            // those (caller); the entities are not held, so not in the set.
            unsafe { set.extend_from(entities, column.values, column.buffer.as_deref_mut()) };
        }
        // The holders (kept from TRACK_FROM sets on, maybe started by a set made above) learn
        // that the entities are in these sets, as a spawn's would.
        if let Some(holders) = &mut self.holders {
            let ids: Vec<ComponentId> = columns.iter().map(|c| c.component).collect();
            for &entity in entities {
                holders.mark_all(entity, &ids);
            }
        }
    }

    unsafe fn group(
        &mut self,
        owned: &[ComponentId],
        components: &Components,
    ) -> Result<(), EcsError> {
        let mut owned = owned.to_vec();
        owned.sort_unstable();
        owned.dedup();
        if owned.len() < 2 {
            return Err(EcsError::Group {
                reason: "a group owns at least two distinct components".into(),
            });
        }
        if let Some(&taken) = owned.iter().find(|&&c| self.owner(c).is_some()) {
            return Err(EcsError::Group {
                reason: format!(
                    "{} is already owned by another group",
                    components.info(taken).name()
                ),
            });
        }
        for &c in &owned {
            self.set_mut(c, components);
        }
        let mut group = Group::new(owned.into_boxed_slice());
        group.fill(&mut self.sets);
        let index = self.groups.len();
        for &c in group.owned() {
            if self.owner.len() <= c.index() {
                self.owner.resize(c.index() + 1, None);
            }
            self.owner[c.index()] = Some(index);
        }
        self.groups.push(group);
        Ok(())
    }

    unsafe fn reserve(&mut self, info: &BundleInfo, components: &Components, additional: usize) {
        for &id in info.components() {
            self.set_mut(id, components).reserve(additional);
        }
    }

    /// Removes the entity from every set holding it. An entity keeps no list of its
    /// components here, so this asks every set (O(component types)), or, once the storage
    /// keeps holders (many sets), only the sets the entity's mask names.
    fn despawn(&mut self, entity: Entity) {
        if self.sets.is_empty() {
            return;
        }
        for group in &mut self.groups {
            group.leave(&mut self.sets, entity);
        }
        let sets = &mut self.sets;
        let Some(holders) = &mut self.holders else {
            for_each_completing(sets.iter_mut().flatten(), |set| {
                set.remove_and_drop(entity);
            });
            return;
        };
        let candidates = holders.take(entity).candidates(sets.len());
        for_each_completing(candidates, |i| {
            if let Some(set) = &mut sets[i] {
                set.remove_and_drop(entity);
            }
        });
    }

    #[inline]
    fn get_ptr(&self, entity: Entity, component: ComponentId) -> Option<NonNull<u8>> {
        self.set(component)?.get_ptr(entity)
    }

    /// No per-entity record to find: each read goes to its component's set.
    #[inline]
    fn place(&self, entity: Entity) -> Option<ByEntity<'_, SparseStorage>> {
        Some(ByEntity::new(self, entity))
    }

    #[inline]
    fn contains(&self, entity: Entity, component: ComponentId) -> bool {
        self.set(component).is_some_and(|set| set.contains(entity))
    }

    /// Goes to the component's set once, for both the replace and the add case. Inlined
    /// into `World::insert`: the call's saved and restored registers were a sixth of it.
    #[inline(always)]
    unsafe fn insert<T: Component>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: T,
        components: &Components,
    ) -> Option<T> {
        let set = self.set_mut(id, components);
        // SAFETY: the set was made from the registry's info for `id`, `T`'s id there (caller).
        let old = unsafe { set.insert_or_replace(entity, value) };
        if old.is_none() {
            self.gained(entity, id);
        }
        old
    }

    unsafe fn insert_new(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: NonNull<u8>,
        components: &Components,
    ) {
        let set = self.set_mut(component, components);
        // SAFETY: `value` is an owned, initialised value of `component` (caller), the set's
        // component; it lives outside the set's buffer.
        unsafe { set.insert_from(entity, value) };
        self.gained(entity, component);
    }

    #[inline]
    unsafe fn remove_into(
        &mut self,
        entity: Entity,
        component: ComponentId,
        dst: NonNull<u8>,
    ) -> bool {
        self.losing(entity, component);
        match self.existing_set_mut(component) {
            // SAFETY: `dst` is a writable slot for one value of `component`, outside the
            // storage (caller).
            Some(set) => unsafe { set.remove_into(entity, dst) },
            None => false,
        }
    }

    /// The set's typed swap-remove (no run-time-sized copies).
    #[inline(always)]
    unsafe fn remove_typed<T: Component>(&mut self, entity: Entity, id: ComponentId) -> Option<T> {
        self.losing(entity, id);
        // SAFETY: `id`'s set holds `T`s: `id` is `T`'s id or a named instance of `T`'s
        // (caller), and the set was made from that id's registered info.
        unsafe { self.existing_set_mut(id)?.remove_typed::<T>(entity) }
    }

    fn clear(&mut self) {
        self.groups.iter_mut().for_each(Group::clear);
        if let Some(holders) = &mut self.holders {
            holders.clear();
        }
        for_each_completing(self.sets.iter_mut().flatten(), SparseSet::clear);
    }

    fn update_query_cache(&self, _: &mut (), _: &QueryDescriptor, _: &Components) {}

    #[inline]
    fn query_chunks<'a>(
        &'a self,
        _: &'a (),
        descriptor: &'a QueryDescriptor,
        alive: &'a [Entity],
    ) -> SparseChunks<'a> {
        Driver::choose(self, descriptor)
            .chunk(self, descriptor, alive)
            .into_iter()
    }

    /// Every component is in a sparse set, whatever it asked for.
    fn storage_kind(&self, _: ComponentId, _: &Components) -> StorageKind {
        StorageKind::Sparse
    }

    fn memory_usage(&self) -> usize {
        self.set_table_bytes()
            + self.sets().map(SparseSet::memory_usage).sum::<usize>()
            + self.holders_bytes()
    }

    /// One unit per set, in component-id order, then the groups and the set table.
    fn layout(&self, components: &Components) -> StorageLayout {
        let mut layout = StorageLayout {
            units: self.sets().map(|set| set.layout(components)).collect(),
            groups: self
                .groups
                .iter()
                .map(|g| GroupLayout {
                    components: g
                        .owned()
                        .iter()
                        .map(|&c| ComponentBytes::new(c, components, 0).name)
                        .collect(),
                    len: g.len(),
                })
                .collect(),
            bookkeeping: Vec::new(),
        };
        layout.add_bookkeeping("sparse set table", self.set_table_bytes());
        layout.add_bookkeeping("sets holding each entity", self.holders_bytes());
        layout
    }
}

impl SparseStorage {
    /// Bytes of the table of sets (one slot per component id up to the largest stored).
    fn set_table_bytes(&self) -> usize {
        self.sets.capacity() * std::mem::size_of::<Option<SparseSet>>()
    }

    /// Bytes of the per-entity masks of the sets that may hold it (kept from 32 sets on).
    fn holders_bytes(&self) -> usize {
        self.holders.as_ref().map_or(0, Holders::memory_usage)
    }
}

impl std::fmt::Debug for SparseStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.sets()).finish()
    }
}

#[cfg(test)]
mod tests;
