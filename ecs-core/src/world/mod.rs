//! [`World`]: the user-facing API, identical on every storage backend.
//!
//! Bundles onto and off an entity (`insert`, `remove`, `take`) are in the `insert_remove`
//! module; the by-id API (raw pointers and bytes) in the `by_id` module; resources in
//! [`crate::resource`]; deferred commands in [`crate::commands`].

mod by_id;
mod clone;
mod entity_access;
mod entity_ref;
mod hook_world;
mod insert_remove;
mod layout;
mod lifecycle;
mod load;
mod named;
mod properties;
mod required;
mod storage_kind;

pub use entity_ref::{EntityMut, EntityRef};
pub use hook_world::HookWorld;
pub(crate) use lifecycle::HoldReactions;
pub use lifecycle::MAX_EVENT_DEPTH;
pub use named::NamedInstance;

use std::any::{Any, TypeId};
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::bundle::{Bundle, BundleInfo, Bundles};
use crate::change::{ChangeKind, ChangeLog, ChangeStore, Mut};
use crate::component::{
    tracks_changes, Component, ComponentDescriptor, ComponentId, ComponentInfo, Components,
    MutableComponent, TypeIdMap, TypeSlots, Writable, Write,
};
use crate::entities::Entities;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::hierarchy::LinkIds;
use crate::named::EntityIndex;
use crate::query::{QueryData, QueryFilter, QueryIter, QueryState};
use crate::resource::Resources;
use crate::storage::Storage;

/// A unique id per world, so a [`QueryState`] is never used with a world it was not built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WorldId(u64);

impl WorldId {
    /// An id no world gets (ids count up from 0), for registries built without a world.
    #[cfg(test)]
    pub(crate) const TEST: WorldId = WorldId(u64::MAX >> 2);
}

/// What a query state records of the world it was built against: the world's id, and
/// whether [`Disabled`](crate::Disabled) was registered (from then on a state must leave
/// disabled entities out). Kept in the registry, so one comparison per run or look-up tells
/// a state it is in the right world *and* up to date: a state built before the first
/// registration differs only in that bit, and brings itself up to date (see
/// [`crate::disabled`]). A state may also set the `checks` bit, which no registry's key
/// has, so that its look-ups take their checking path on the same one comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StateKey(u64);

impl StateKey {
    /// Set once `Disabled` is registered.
    const HIDING: u64 = 1;
    /// Set only in a query state's copy: its look-ups check something before fetching.
    const CHECKS: u64 = 2;

    /// The key of `world` with nothing disabled yet.
    pub(crate) fn new(world: WorldId) -> StateKey {
        StateKey(world.0 << 2)
    }

    /// This key once `Disabled` is registered.
    pub(crate) fn hiding(self) -> StateKey {
        StateKey(self.0 | Self::HIDING)
    }

    /// This key with the `checks` bit set as `checks` says.
    pub(crate) fn with_checks(self, checks: bool) -> StateKey {
        StateKey(self.0 & !Self::CHECKS | if checks { Self::CHECKS } else { 0 })
    }

    /// This key without the `checks` bit: the registry's key it was made from.
    #[inline(always)]
    pub(crate) fn registry(self) -> StateKey {
        StateKey(self.0 & !Self::CHECKS)
    }

    /// The world's id.
    #[inline(always)]
    pub(crate) fn world(self) -> WorldId {
        WorldId(self.0 >> 2)
    }
}

impl Default for StateKey {
    fn default() -> Self {
        StateKey::new(WorldId(0))
    }
}

/// Entities and their components, kept in storage backend `S`.
///
/// # Invariants
/// * An entity is in `storage` if and only if it is live in `entities`. Entities reserved
///   through `&self` ([`World::reserve_entity`]) are not live until the next `&mut`
///   operation flushes them, which also stores them (with no components).
/// * Every `BundleInfo` and query state was built against `components`.
/// * `changes` holds logs for every tracked component that was ever stored or named by a
///   query state, created before anything can reach them through `&self` (the states
///   [`World::query_ref`] builds through `&self` never begin a run, so never read a log).
/// * `components` has the stand-in no entity holds at id 0 (see [`World::query_ref`]).
/// * `index` lists, for each live entity's slot, exactly the named instances the storage
///   holds for it (none for a free slot).
/// * The allocator's attention flag is set exactly when some component has a hook or an
///   observer (`components.reactions().any()`), from the end of every operation that can
///   register a type or change a reaction (`World::sync_reactions`); from the same points,
///   every resolved bundle's flag says whether one of its components, or one it requires,
///   has a hook or an observer (`Bundles::refresh_reactions`).
/// * `hook_commands` is empty between public operations (a panic's leftovers are dropped
///   by the next one), and `held_stores` is `None` outside a multi-step operation.
pub struct World<S: Storage> {
    id: WorldId,
    entities: Entities,
    components: Components,
    bundles: Bundles,
    storage: S,
    queries: QueryStates,
    changes: ChangeStore,
    pub(crate) resources: Resources,
    /// The relationship components' ids once the world has linked two entities; `None`
    /// while no entity has a relationship, so despawning checks for links only where they
    /// can exist (see [`crate::hierarchy`]).
    pub(crate) hierarchy: Option<LinkIds>,
    index: EntityIndex,
    /// Commands that did nothing when a system's queue was applied, until the schedule
    /// collects them (see [`crate::commands::SkippedCommand`]); empty outside a sync point.
    pub(crate) skipped_commands: Vec<crate::commands::SkippedCommand>,
    /// Commands queued by lifecycle hooks and observers, applied when the operation that
    /// ran them ends ([`World::settle`]); empty between operations.
    pub(crate) hook_commands: crate::commands::CommandQueue,
    /// How many [`World::settle`] calls are applying commands below this one.
    settle_depth: usize,
    /// While `Some`, the `on_add`/`on_insert` reactions of what is stored wait here, and
    /// nothing settles: an operation of several steps (a child spawned then linked) runs
    /// them once it is whole ([`World::with_reactions_held`]).
    held_stores: Option<Vec<lifecycle::HeldStore>>,
    /// The entities of the last `spawn_batch` whose reactions ran (what it returns then);
    /// empty otherwise.
    last_batch: Vec<Entity>,
    /// The observers (see [`crate::observer`]); `None` until the first is registered.
    #[cfg(feature = "schedule")]
    pub(crate) observers: Option<Box<crate::observer::Observers<S>>>,
    /// The event being handed to observers while they run (read by their
    /// [`On`](crate::observer::On) parameter through `&World`); `None` otherwise.
    #[cfg(feature = "schedule")]
    pub(crate) trigger: Option<crate::observer::TriggerState>,
    /// The user event whose observers' commands are being applied, for messages.
    #[cfg(feature = "schedule")]
    pub(crate) last_event: Option<&'static str>,
}

impl<S: Storage> Default for World<S> {
    fn default() -> Self {
        World::new()
    }
}

impl<S: Storage> World<S> {
    /// An empty world.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let world = World::<VecStorage>::new();
    /// assert!(world.is_empty());
    /// ```
    pub fn new() -> World<S> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = WorldId(NEXT.fetch_add(1, Ordering::Relaxed));
        World {
            id,
            entities: Entities::new(),
            components: Components::with_unstored(id),
            bundles: Bundles::default(),
            storage: S::default(),
            queries: QueryStates::default(),
            changes: ChangeStore::default(),
            resources: Resources::default(),
            hierarchy: None,
            index: EntityIndex::default(),
            skipped_commands: Vec::new(),
            hook_commands: crate::commands::CommandQueue::new(),
            settle_depth: 0,
            held_stores: None,
            last_batch: Vec::new(),
            #[cfg(feature = "schedule")]
            observers: None,
            #[cfg(feature = "schedule")]
            trigger: None,
            #[cfg(feature = "schedule")]
            last_event: None,
        }
    }

    /// This world's id.
    pub fn id(&self) -> WorldId {
        self.id
    }

    /// The entity allocator (read-only).
    pub fn entities(&self) -> &Entities {
        &self.entities
    }

    /// The component registry (read-only). Its id 0 is a private type with no values,
    /// registered by every world, that [`World::query_ref`] names in place of component
    /// types the world never registered; the world's own components start at 1.
    pub fn components(&self) -> &Components {
        &self.components
    }

    pub(crate) fn components_mut(&mut self) -> &mut Components {
        &mut self.components
    }

    /// The storage, writable (crate-internal: callers keep the entity set and the storage
    /// in step).
    pub(crate) fn storage_mut(&mut self) -> &mut S {
        &mut self.storage
    }

    /// The storage, writable, beside the registry its `unsafe` calls take.
    pub(crate) fn storage_and_components(&mut self) -> (&mut S, &Components) {
        (&mut self.storage, &self.components)
    }

    /// The change logs, writable.
    pub(crate) fn changes_mut(&mut self) -> &mut ChangeStore {
        &mut self.changes
    }

    /// The change logs of tracked components (read-only; see [`crate::change`]).
    ///
    /// ```
    /// # use ecs_core::{World, Component, Changed, change::ChangeKind, testing::VecStorage};
    /// #[derive(Component)]
    /// #[component(track_changes)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(1),));
    /// let mut hurt = world.query_state::<&Hp, Changed<Hp>>().unwrap();
    /// hurt.iter(&world).for_each(drop);
    /// world.get_mut_tracked::<Hp>(e).unwrap().0 = 0;
    /// let log = world.changes().log(world.component_id::<Hp>().unwrap(), ChangeKind::Changed);
    /// assert_eq!(log.unwrap().retained(), 1);
    /// ```
    pub fn changes(&self) -> &ChangeStore {
        &self.changes
    }

    /// Creates the change logs of the tracked components among `ids`.
    pub(crate) fn ensure_change_logs(&mut self, ids: impl Iterator<Item = ComponentId>) {
        for id in ids {
            if self.components.info(id).tracks_changes() {
                self.changes.ensure(id);
            }
        }
    }

    /// The storage backend (read-only: changes go through the world so the entity set and the
    /// storage stay in step).
    pub fn storage(&self) -> &S {
        &self.storage
    }

    /// Number of live entities.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(());
    /// assert_eq!(world.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// True when no entity is live.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// assert!(World::<VecStorage>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Whether `entity` is live in this world.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.despawn(e).unwrap();
    /// assert!(!world.contains(e));
    /// ```
    pub fn contains(&self, entity: Entity) -> bool {
        self.entities.contains(entity)
    }

    /// Creates an entity with the components of `bundle`: a component, a tuple of bundles
    /// or a `#[derive(Bundle)]` struct (see [`Bundle`]), and the components its types
    /// require that the bundle does not bring (see
    /// [`Component::requirements`]; also added by `insert`,
    /// `spawn_batch` and commands).
    ///
    /// # Panics
    /// If the bundle names one component type twice: no entity can hold both; if its types
    /// are in a requirement cycle (see [`World::register_component`]); if a required
    /// component's constructor panics (the entity then holds the bundle alone).
    ///
    /// ```
    /// # use ecs_core::{World, Component, Bundle, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Vel(f32);
    /// #[derive(Bundle)]
    /// struct Body { pos: Pos, vel: Vel }
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Pos(0.0), Vel(1.0)));
    /// assert!(world.has::<Vel>(e));
    /// let f = world.spawn(Body { pos: Pos(0.0), vel: Vel(1.0) });
    /// assert!(world.has::<Pos>(f) && world.has::<Vel>(f));
    /// ```
    // Always inlined: the body is a few checks around the storage's own spawn, and out of
    // line a loop of `spawn(())` paid a call and three saved registers per entity.
    #[inline(always)]
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        // One test on the fast path: reserved entities to flush, or something that reacts
        // (see `World::enter`); a bundle whose types may bring hooks always asks.
        if self.reacting::<B>() {
            let mut bundle = std::mem::ManuallyDrop::new(bundle);
            // SAFETY: a `B`, handed over and never dropped here.
            return unsafe { self.spawn_reacting::<B>(NonNull::from(&mut *bundle)) };
        }
        let info = self.bundles.info::<B>(&mut self.components);
        let entity = self.entities.alloc();
        // SAFETY: `entity` was just allocated: live, and not held (the storage holds exactly
        // the live entities: the type's invariant); `info` is `self.bundles`' resolution of
        // `B` against `self.components`, the registry every storage call is given.
        unsafe { self.storage.spawn(entity, bundle, info, &self.components) };
        if B::TRACKS_CHANGES {
            Self::record_added(&mut self.changes, &self.components, info, entity);
        }
        if B::REQUIRES {
            let bundle = info.id();
            self.add_required_of(entity, bundle);
        }
        entity
    }

    /// [`World::spawn`] where something reacts: an empty entity gets the bundle as a
    /// queued command's would (through the storage's type-erased insert, so the typed
    /// spawn keeps the fast path as its one caller), then the reactions run.
    ///
    /// # Safety
    /// `bundle` points to a `B` this call takes over (the caller must not use or drop it
    /// afterwards).
    #[cold]
    #[inline(never)]
    pub(crate) unsafe fn spawn_reacting<B: Bundle>(&mut self, bundle: NonNull<B>) -> Entity {
        // Refuses a bundle naming a component twice before anything is spawned.
        self.bundles.info::<B>(&mut self.components);
        // Empty first (no reaction: no component), reserved entities flushed by now.
        let empty = self.bundles.info::<()>(&mut self.components);
        // Not `alloc`: its one caller is the fast path, where it is inlined.
        self.entities.reserve(1);
        let entity = self.entities.alloc_reserved();
        // SAFETY: `entity` was just allocated: live and not held; `empty` is `()`'s
        // resolution against the registry.
        unsafe { self.storage.spawn(entity, (), empty, &self.components) };
        // SAFETY: the caller's `B`, described by `B`'s own type, handed over (the entity is
        // live, so `insert_queued` moves the values in; the caller never drops them).
        let stored = unsafe {
            self.insert_queued(entity, &crate::bundle::BundleType::of::<B>(), bundle.cast())
        };
        debug_assert!(stored, "the entity was just spawned");
        entity
    }

    /// [`World::attend`], and for a bundle whose types may bring hooks, resolves it first
    /// (registering its types) and brings the reaction flag in step: whether something
    /// reacts anywhere in the world.
    #[cold]
    #[inline(never)]
    pub(crate) fn attend_registering<B: Bundle>(&mut self) -> bool {
        self.attend();
        if B::HOOKED {
            self.bundles.info::<B>(&mut self.components);
            self.sync_reactions();
        }
        self.reacts()
    }

    /// [`World::attend_registering`] for an operation whose reactions concern the bundle's
    /// own components (spawn, insert, remove): whether one of them, or one they require,
    /// reacts. A bundle of other types takes the fast path again, so a hook on one type
    /// leaves the others' operations as they were but for this call.
    #[cold]
    #[inline(never)]
    pub(crate) fn attend_to<B: Bundle>(&mut self) -> bool {
        if !self.attend_registering::<B>() {
            return false;
        }
        let id = self.bundles.info::<B>(&mut self.components).id();
        self.bundles.bundle_reacts(id)
    }

    /// Whether an operation on bundle `B` (spawn, insert, remove) takes its reacting path:
    /// the fast path's one test ([`World::needs_attention`]), then, when something reacts
    /// elsewhere in the world, the bundle's own cached flag, so a hook on one type costs
    /// other types' operations a call and a few loads, not the reacting path.
    #[inline(always)]
    pub(crate) fn reacting<B: Bundle>(&mut self) -> bool {
        (B::HOOKED || self.needs_attention()) && self.reacting_attended::<B>()
    }

    /// [`World::reacting`] past its first test: out of line and cold, so that the fast path
    /// of a world where nothing reacts compiles as it did (inlined, the bundle's look-up
    /// changed the fast path's code and cost up to 2.8 % of an insert-heavy workload).
    #[cold]
    #[inline(never)]
    fn reacting_attended<B: Bundle>(&mut self) -> bool {
        !self.quiet::<B>() && self.attend_to::<B>()
    }

    /// Whether nothing needs attending to for bundle `B`: no reserved entity to flush, no
    /// command left by a hook that panicked, and `B` resolved before with nothing in it
    /// (or required by it) that reacts.
    #[inline(always)]
    fn quiet<B: Bundle>(&mut self) -> bool {
        !B::HOOKED
            && !self.entities.has_reserved()
            && self.hook_commands.is_empty()
            && self.bundles.known_quiet::<B>()
    }

    /// Logs the tracked components of a just-stored bundle as added.
    fn record_added(
        changes: &mut ChangeStore,
        components: &Components,
        info: &BundleInfo,
        entity: Entity,
    ) {
        for &id in info.components() {
            if components.info(id).tracks_changes() {
                changes.on_added(id, entity);
            }
        }
    }

    /// Spawns one entity per bundle, resolving the bundle type and reserving room once, and
    /// returns the new entities in bundle order.
    ///
    /// The returned slice borrows the world (it is the allocator's record of the batch, so
    /// returning it costs nothing); copy it with `.to_vec()` to keep the handles while
    /// changing the world. hecs and bevy_ecs likewise return an iterator that borrows the world.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Id(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let entities = world.spawn_batch((0..100).map(|i| (Id(i),))).to_vec();
    /// assert_eq!(entities.len(), 100);
    /// assert_eq!(world.get::<Id>(entities[7]).map(|id| id.0), Some(7));
    /// ```
    pub fn spawn_batch<B: Bundle, I: IntoIterator<Item = B>>(&mut self, bundles: I) -> &[Entity] {
        let reacting = self.reacting::<B>();
        let start = self.entities.len();
        self.spawn_batch_now(bundles);
        if reacting {
            let id = self.bundles.info::<B>(&mut self.components).id();
            return self.after_spawn_batch(start, id);
        }
        &self.entities.alive()[start..]
    }

    /// [`World::spawn_batch`] once reserved entities are flushed.
    fn spawn_batch_now<B: Bundle, I: IntoIterator<Item = B>>(&mut self, bundles: I) {
        let iter = bundles.into_iter();
        let info = self.bundles.info::<B>(&mut self.components);
        let additional = iter.size_hint().0;
        self.entities.reserve(additional);
        // SAFETY: `info` is `B`'s resolution against `self.components`, the registry.
        unsafe { self.storage.reserve(info, &self.components, additional) };
        // `alloc` hands out the slot at the end of the live range, so the batch's entities
        // end up as the live range's tail, in order (the `Entities` invariant).
        let start = self.entities.len();
        let entities = &mut self.entities;
        let batch = HintedBatch {
            inner: iter.map(|bundle| (entities.alloc_reserved(), bundle)),
            remaining: additional,
        };
        // SAFETY: every entity is freshly allocated (live, distinct, not held: the type's
        // invariant); `info` is `B`'s resolution against `self.components`, the registry.
        unsafe { self.storage.spawn_batch(batch, info, &self.components) };
        let spawned = &self.entities.alive()[start..];
        if B::TRACKS_CHANGES {
            for &entity in spawned {
                Self::record_added(&mut self.changes, &self.components, info, entity);
            }
        }
        if B::REQUIRES {
            let bundle = info.id();
            for i in start..self.entities.len() {
                let entity = self.entities.alive()[i];
                self.add_required_of(entity, bundle);
            }
        }
    }

    /// [`World::after_spawn`] for the batch at `start..` of the live list. Hooks may not
    /// despawn, and commands wait for the end, so the batch stays where it is throughout.
    /// Returns the batch: kept aside, since the commands applied at the end may spawn and
    /// despawn, which moves entities in the allocator's live list.
    #[cold]
    #[inline(never)]
    fn after_spawn_batch(&mut self, start: usize, bundle: crate::bundle::BundleId) -> &[Entity] {
        let ids = self.bundles.components_of(bundle).to_vec();
        let batch = self.entities.alive()[start..].to_vec();
        for &entity in &batch {
            self.fire_stored(entity, &ids, &[]);
        }
        self.settle();
        self.last_batch = batch;
        &self.last_batch
    }

    /// Removes an entity and drops its components.
    ///
    /// Relationships stay exact: a child is unlinked from its parent, and the children of a
    /// parent become roots (their [`ChildOf`](crate::hierarchy::ChildOf) is removed). To
    /// despawn a whole subtree, use [`World::despawn_recursive`].
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, EcsError, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// assert_eq!(world.despawn(e), Ok(()));
    /// assert_eq!(world.despawn(e), Err(EcsError::NoSuchEntity(e)));
    /// ```
    #[inline]
    pub fn despawn(&mut self, entity: Entity) -> Result<(), EcsError> {
        if self.needs_attention() && self.attend() {
            return self.despawn_reacting(entity);
        }
        self.despawn_now(entity)
    }

    /// [`World::despawn`] where something reacts: the hooks and observers run first, with
    /// the entity whole; what they queued is applied after.
    #[cold]
    #[inline(never)]
    fn despawn_reacting(&mut self, entity: Entity) -> Result<(), EcsError> {
        self.check(entity)?;
        if !self.holds_reacting(entity) {
            // Nothing of this entity reacts: despawned as in a world without reactions.
            return self.despawn_now(entity);
        }
        self.before_despawn(entity);
        let despawned = self.despawn_now(entity);
        self.settle();
        despawned
    }

    /// The body of [`World::despawn`] once reactions are done.
    #[inline(always)]
    fn despawn_now(&mut self, entity: Entity) -> Result<(), EcsError> {
        // Links first (one branch for a world that never linked two entities), so no child
        // is left naming a dead parent; see `crate::hierarchy` for the policy. Out of line,
        // so the common path stays small enough to inline into the caller's loop.
        if self.hierarchy.is_some() {
            self.detach_for_despawn(entity);
        }
        // Free the handle first: if a component's Drop panics, the entity is already gone
        // everywhere and the storage finishes removing it while unwinding.
        if !self.entities.free(entity) {
            return Err(EcsError::NoSuchEntity(entity));
        }
        self.index.release(entity.index());
        self.storage.despawn(entity);
        Ok(())
    }

    /// Unlinks `entity` (if live) from its parent and children before a despawn.
    #[cold]
    #[inline(never)]
    fn detach_for_despawn(&mut self, entity: Entity) {
        if let Some(ids) = self.hierarchy {
            if self.entities.contains(entity) {
                self.detach(ids, entity);
            }
        }
    }

    /// Despawns live `entity` without looking at its links (the recursive despawn keeps
    /// them itself). Freed first, as in [`World::despawn`]. A handle that is not live (which
    /// exact links never name) is left alone: nothing of the entity now holding its slot
    /// (its index entry, its components) is touched.
    pub(crate) fn despawn_unlinked(&mut self, entity: Entity) {
        let freed = self.entities.free(entity);
        debug_assert!(freed, "despawn_unlinked of a live entity");
        if freed {
            self.index.release(entity.index());
            self.storage.despawn(entity);
        }
    }

    /// Despawns every entity; all handles become stale. Registered components stay.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.clear();
    /// assert!(world.is_empty() && !world.contains(e));
    /// ```
    pub fn clear(&mut self) {
        let reacting = self.enter();
        if reacting {
            // Every entity's despawn reactions, with the world whole, before anything goes.
            for entity in self.entities.alive().to_vec() {
                self.before_despawn(entity);
            }
        }
        self.entities.clear();
        self.index.release_all();
        self.storage.clear();
        if reacting {
            self.settle();
        }
    }

    /// A shared reference to `entity`'s `T`; `None` if the entity is stale or has no `T`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Name(&'static str);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Name("crate"),));
    /// assert_eq!(world.get::<Name>(e).map(|n| n.0), Some("crate"));
    /// ```
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        if S::TRACED && self.is_tracing() {
            self.trace_get_of::<T>(entity, false);
        }
        let ptr = self.get_ptr::<T>(entity)?;
        // SAFETY: the storage returned a valid pointer to the entity's `T`; `&self` keeps the
        // world (and so the value) from being mutated while the reference lives.
        Some(unsafe { ptr.as_ref() })
    }

    /// Mutable access to `entity`'s `T`; `None` if the entity is stale or has no `T`.
    ///
    /// What it hands out follows `T`'s [`Component::Mutability`]: a plain `&mut T` for a
    /// [`Mutable`](crate::Mutable) type, a [`Mut<T>`] guard that records the first write for
    /// [`Changed<T>`](crate::Changed) for a [`Tracked`](crate::Tracked) one. An
    /// [`Immutable`](crate::Immutable) type cannot be borrowed mutably (a compile error):
    /// replace its value with [`World::insert`].
    ///
    /// ```
    /// # use ecs_core::{World, Component, Changed, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// #[component(track_changes)]
    /// struct Pos(f32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(3), Pos(0.0)));
    /// let mut moved = world.query_state::<&Pos, Changed<Pos>>().unwrap();
    /// moved.iter(&world).for_each(drop); // first run: sees the spawn
    /// world.get_mut::<Hp>(e).unwrap().0 -= 1; // a plain `&mut Hp`
    /// world.get_mut::<Pos>(e).unwrap().0 += 1.0; // a `Mut<Pos>`: the write is recorded
    /// assert_eq!(world.get::<Hp>(e).unwrap().0, 2);
    /// assert_eq!(moved.iter(&world).count(), 1);
    /// ```
    ///
    /// ```compile_fail,E0277
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// #[component(immutable)]
    /// struct Seed(u64);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(Seed(7));
    /// world.get_mut::<Seed>(e); // error: `Seed` is immutable
    /// ```
    pub fn get_mut<T: MutableComponent>(&mut self, entity: Entity) -> Option<Write<'_, T>> {
        let (value, log) = self.value_and_log::<T>(entity)?;
        Some(<T::Mutability as Writable>::write(
            value,
            <T::Mutability as Writable>::log(log),
            entity,
        ))
    }

    /// A [`Mut`] guard on `entity`'s `T`, which records a change on the first write for a
    /// type that tracks changes (and is a plain reference otherwise); `None` if the entity
    /// is stale or has no `T`. [`World::get_mut`] hands out the same guard for a tracked
    /// type; this form suits code generic over the type's tracking.
    ///
    /// ```
    /// # use ecs_core::{World, Component, Changed, testing::VecStorage};
    /// #[derive(Component)]
    /// #[component(track_changes)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(3),));
    /// let mut hurt = world.query_state::<&Hp, Changed<Hp>>().unwrap();
    /// hurt.iter(&world).for_each(drop); // first run: sees the spawn
    /// world.get_mut_tracked::<Hp>(e).unwrap().0 -= 1;
    /// assert_eq!(hurt.iter(&world).map(|hp| hp.0).collect::<Vec<_>>(), vec![2]);
    /// ```
    pub fn get_mut_tracked<T: MutableComponent>(&mut self, entity: Entity) -> Option<Mut<'_, T>> {
        let (value, log) = self.value_and_log::<T>(entity)?;
        Some(Mut::new(value, log, entity))
    }

    /// `entity`'s `T`, writable, and `T`'s changed log when `T` tracks changes.
    #[inline]
    fn value_and_log<T: Component>(
        &mut self,
        entity: Entity,
    ) -> Option<(&mut T, Option<&ChangeLog>)> {
        if S::TRACED && self.is_tracing() {
            self.trace_get_of::<T>(entity, true);
        }
        let mut ptr = self.get_ptr::<T>(entity)?;
        let log = if tracks_changes::<T>() {
            let id = self.components.id::<T>()?;
            Some(self.changes.ensure(id).get(ChangeKind::Changed) as &_)
        } else {
            None
        };
        // SAFETY: the storage returned a valid pointer to the entity's `T`, and `&mut self`
        // makes the reference unique while it lives; the log is a different field than the
        // storage.
        Some((unsafe { ptr.as_mut() }, log))
    }

    // No `entities.contains` check: the storage holds exactly the live entities and compares
    // whole handles (a `Storage` contract), so a stale handle already gets `None` there. On a
    // shuffled look-up that check was two more dependent cache misses per call.
    #[inline]
    fn get_ptr<T: Component>(&self, entity: Entity) -> Option<NonNull<T>> {
        let id = self.components.id::<T>()?;
        self.storage.get_ptr_of::<T>(entity, id).map(NonNull::cast)
    }

    /// Whether `entity` is live and has a `T`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Tag;
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Tag,));
    /// assert!(world.has::<Tag>(e));
    /// ```
    pub fn has<T: Component>(&self, entity: Entity) -> bool {
        if S::TRACED && self.is_tracing() {
            self.trace_get_of::<T>(entity, false);
        }
        match self.components.id::<T>() {
            Some(id) => self.storage.get_ptr_of::<T>(entity, id).is_some(),
            None => false,
        }
    }

    /// Makes the components of `B` an *owning group* (EnTT's term): the storage keeps the
    /// entities holding all of them packed at the front of each component's array, in the
    /// same order, so a query requiring every one of them walks parallel arrays instead of
    /// joining by look-up. The price is paid on structural change: adding or removing an
    /// owned component swaps the entity into or out of the packed range.
    ///
    /// The sparse backend groups any components; the hybrid backend groups sparse
    /// components (its sparse half keeps the group); the archetype backend has none, as its
    /// tables keep an archetype's components together already.
    ///
    /// # Errors
    /// [`EcsError::Group`] when the backend has no groups, `B` has fewer than two distinct
    /// components, one of them is owned by another group, or the backend cannot group one of
    /// them (a table component in the hybrid backend).
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Vel(f32);
    /// let mut world = World::<VecStorage>::new();
    /// // The reference backend has no groups:
    /// assert!(matches!(world.group::<(Pos, Vel)>(), Err(EcsError::Group { .. })));
    /// ```
    pub fn group<B: Bundle>(&mut self) -> Result<(), EcsError> {
        self.flush();
        let info = self.bundles.info::<B>(&mut self.components);
        // SAFETY: the bundle's components were registered in `self.components`, the registry.
        let grouped = unsafe { self.storage.group(info.components(), &self.components) };
        // Resolving may have registered the world's first hooked type.
        self.sync_reactions();
        grouped
    }

    /// Reorders `T`'s values to follow the tables' rows, where `T` lives outside the
    /// tables: in the hybrid backend, a sparse `T` whose set no longer runs in the tables'
    /// order (entities moved between tables since `T` was added) makes every query joining
    /// `T` with table components look `T` up row by row. After this call each table's rows
    /// find their `T`s side by side again and the join reads them like a column, until
    /// entities move again; call it after building a level, or once a frame before the
    /// joins if entities move often. O(n log n) in `T`'s values.
    ///
    /// Returns whether anything was reordered: false on the archetype and sparse backends
    /// (nothing to align with), for a table component, a component never stored, and a
    /// sparse component owned by a group (the group keeps its own order). Values, change
    /// ticks and every query's results stay the same; only the order of a query over `T`
    /// alone may change.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Pos(1.0),));
    /// // The reference backend keeps no tables to align with:
    /// assert!(!world.align_with_tables::<Pos>());
    /// ```
    pub fn align_with_tables<T: Component>(&mut self) -> bool {
        match self.components.id::<T>() {
            Some(id) => self.align_with_tables_by_id(id),
            None => {
                self.flush();
                false
            }
        }
    }

    /// [`World::align_with_tables`] by component id (run-time and named components too);
    /// false for an id this world did not hand out.
    pub fn align_with_tables_by_id(&mut self, id: ComponentId) -> bool {
        self.flush();
        if self.components.get(id).is_none() {
            return false;
        }
        if S::TRACED {
            self.trace_align(id);
        }
        self.storage.align_with_tables(id)
    }

    /// Iterates every entity matching `Q` (see [`QueryData`]), with `for_each` as the fast path.
    ///
    /// The query's state is cached in the world, so calling this every frame only examines
    /// storage layout created since the previous call.
    ///
    /// # Panics
    /// If `Q` aliases a component (`(&mut A, &A)`); see [`World::try_query_filtered`].
    ///
    /// ```
    /// # use ecs_core::{World, Component, Entity, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Vel(f32);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Pos(0.0), Vel(2.0)));
    /// world.query::<(&mut Pos, &Vel)>().for_each(|(p, v)| p.0 += v.0);
    /// let total: f32 = world.query::<&Pos>().map(|p| p.0).sum();
    /// assert_eq!(total, 2.0);
    /// ```
    #[inline]
    pub fn query<Q: QueryData + 'static>(&mut self) -> QueryIter<'_, Q, (), S> {
        self.query_filtered::<Q, ()>()
    }

    /// Like [`World::query`] with a filter `F` (`With<T>`, `Without<T>`, tuples of them).
    ///
    /// # Panics
    /// If `Q` aliases a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, With, Without, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Frozen;
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Pos(0.0),));
    /// world.spawn((Pos(0.0), Frozen));
    /// assert_eq!(world.query_filtered::<&Pos, Without<Frozen>>().count(), 1);
    /// assert_eq!(world.query_filtered::<&Pos, With<Frozen>>().count(), 1);
    /// ```
    #[inline]
    pub fn query_filtered<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
    ) -> QueryIter<'_, Q, F, S> {
        let index = self
            .query_index::<Q, F>()
            .unwrap_or_else(|err| panic!("{err}"));
        self.query_at::<Q, F>(index)
    }

    /// Like [`World::query`], reporting an aliasing query as an error instead of panicking.
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when `Q` would alias a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct A(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(A(1));
    /// assert_eq!(world.try_query::<&A>().unwrap().count(), 1);
    /// let err = world.try_query::<(&mut A, &A)>().err().unwrap();
    /// assert!(matches!(err, EcsError::QueryConflict { .. }));
    /// ```
    #[inline]
    pub fn try_query<Q: QueryData + 'static>(
        &mut self,
    ) -> Result<QueryIter<'_, Q, (), S>, EcsError> {
        self.try_query_filtered::<Q, ()>()
    }

    /// Like [`World::query_filtered`], reporting an aliasing query as an error.
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when `Q` would alias a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, testing::VecStorage};
    /// #[derive(Component)]
    /// struct A;
    /// let mut world = World::<VecStorage>::new();
    /// let err = world.try_query_filtered::<(&mut A, &A), ()>().err().unwrap();
    /// assert!(matches!(err, EcsError::QueryConflict { .. }));
    /// ```
    #[inline]
    pub fn try_query_filtered<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
    ) -> Result<QueryIter<'_, Q, F, S>, EcsError> {
        let index = self.query_index::<Q, F>()?;
        Ok(self.query_at::<Q, F>(index))
    }

    /// Where the cached state of `Q` filtered by `F` is, made on first use. Only the index
    /// passes through the `Result`: the iterator is built once, in the caller's place (a
    /// `Result` of the iterator cost a copy of it on every query).
    #[inline]
    fn query_index<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
    ) -> Result<usize, EcsError> {
        match self.queries.index(TypeId::of::<QueryState<Q, F, S>>()) {
            Some(index) => Ok(index),
            None => self.new_query_state::<Q, F>(),
        }
    }

    /// Builds and caches the state of `Q` filtered by `F`; returns its index.
    #[cold]
    fn new_query_state<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
    ) -> Result<usize, EcsError> {
        let state = QueryState::<Q, F, S>::new(self)?;
        let key = TypeId::of::<QueryState<Q, F, S>>();
        Ok(self.queries.insert(key, Box::new(state)))
    }

    /// A run of the cached state at `index` (from [`World::query_index`]).
    #[inline]
    fn query_at<Q: QueryData + 'static, F: QueryFilter + 'static>(
        &mut self,
        index: usize,
    ) -> QueryIter<'_, Q, F, S> {
        let state = self.queries.states[index].downcast_mut::<QueryState<Q, F, S>>();
        let state = state.expect("query cache holds the state under its own type");
        let world = WorldView {
            entities: &self.entities,
            components: &self.components,
            storage: &self.storage,
            changes: &self.changes,
        };
        // SAFETY: `&mut self` is held for the iterator's lifetime, so nothing else accesses
        // the storage; `state` is a separate field from the storage and entities.
        unsafe { state.iter_view(world) }
    }

    /// A reusable query state for `Q` filtered by `F` (what a system keeps between runs).
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when `Q` would alias a component.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Hp(1),));
    /// let mut state = world.query_state::<&Hp, ()>().unwrap();
    /// assert_eq!(state.iter(&world).count(), 1);
    /// ```
    pub fn query_state<Q: QueryData, F: QueryFilter>(
        &mut self,
    ) -> Result<QueryState<Q, F, S>, EcsError> {
        QueryState::new(self)
    }

    /// The id of `T`, registering it if needed (and the components it requires, see
    /// [`Component::requirements`]).
    ///
    /// # Panics
    /// If registering `T` finds a requirement cycle (`A` requires `B`, which requires `A`),
    /// naming it; so does every later spawn or insert of a bundle holding or requiring a
    /// type of the cycle.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct A;
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_component::<A>();
    /// assert_eq!(world.component_id::<A>(), Some(id));
    /// ```
    pub fn register_component<T: Component>(&mut self) -> ComponentId {
        let id = self.components.register::<T>();
        self.sync_reactions();
        id
    }

    /// Registers a component defined at run time (name, layout, drop function).
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use std::alloc::Layout;
    /// let mut world = World::<VecStorage>::new();
    /// let fog = world.register_dynamic(ComponentDescriptor {
    ///     name: "Fog".into(),
    ///     layout: Layout::new::<[f32; 2]>(),
    ///     drop: None,
    ///     storage: StorageKind::Table,
    /// });
    /// assert_eq!(world.component_info(fog).unwrap().name(), "Fog");
    /// ```
    pub fn register_dynamic(&mut self, descriptor: ComponentDescriptor) -> ComponentId {
        self.components.register_dynamic(descriptor)
    }

    /// [`World::register_dynamic`] for a component whose changes are tracked: `Added` and
    /// `Changed` filters ([`DynFilter`](crate::query::DynFilter)) see its additions and the
    /// writes through [`World::get_bytes_mut`] and written query terms.
    pub fn register_dynamic_tracked(&mut self, descriptor: ComponentDescriptor) -> ComponentId {
        self.components.register_dynamic_tracked(descriptor)
    }

    /// The id of `T`, if registered.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct A;
    /// assert_eq!(World::<VecStorage>::new().component_id::<A>(), None);
    /// ```
    pub fn component_id<T: Component>(&self) -> Option<ComponentId> {
        self.components.id::<T>()
    }

    /// What the registry knows about `id`.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct A(u64);
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_component::<A>();
    /// assert_eq!(world.component_info(id).unwrap().layout().size(), 8);
    /// ```
    pub fn component_info(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.components.get(id)
    }

    /// Heap bytes held by the entity allocator, the storage and the change logs.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(());
    /// assert!(world.memory_usage() > 0);
    /// ```
    pub fn memory_usage(&self) -> usize {
        self.entities.memory_usage() + self.storage.memory_usage() + self.changes.memory_usage()
    }

    pub(crate) fn check(&self, entity: Entity) -> Result<(), EcsError> {
        if self.entities.contains(entity) {
            Ok(())
        } else {
            Err(EcsError::NoSuchEntity(entity))
        }
    }
}

/// `{:?}` is one line (backend, entity and component counts, bytes); `{:#?}` adds the whole
/// [`World::layout`].
/// The entities and bundles a batch spawn hands the storage, with a size hint that never
/// calls the user's iterator: the storage asks for the hint while it spawns (to reserve
/// room), and a hint that panicked there would leave an entity allocated but not stored.
/// The user's lower bound is read once, before anything is allocated; this counts it down.
struct HintedBatch<I> {
    inner: I,
    /// The user's lower bound minus what was yielded since.
    remaining: usize,
}

impl<I: Iterator> Iterator for HintedBatch<I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next()?;
        self.remaining = self.remaining.saturating_sub(1);
        Some(item)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, None)
    }
}

impl<S: Storage> fmt::Debug for World<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let alternate = f.alternate();
        let mut s = f.debug_struct("World");
        s.field("backend", &S::NAME)
            .field("entities", &self.entities.len())
            .field("components", &self.components.len())
            .field("memory_usage", &self.memory_usage());
        if alternate {
            s.field("layout", &self.layout());
        }
        s.finish()
    }
}

/// The parts of a world a running query borrows (shared), so that a query can run while
/// the world's query cache is borrowed mutably.
pub struct WorldView<'w, S: Storage> {
    entities: &'w Entities,
    components: &'w Components,
    storage: &'w S,
    changes: &'w ChangeStore,
}

impl<S: Storage> Clone for WorldView<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Storage> Copy for WorldView<'_, S> {}

impl<'w, S: Storage> WorldView<'w, S> {
    /// The world's id.
    #[inline]
    pub fn id(&self) -> WorldId {
        self.components.key().world()
    }
    /// What a query state built now would record (see [`StateKey`]): read from the
    /// registry, so a view stays four pointers.
    #[inline(always)]
    pub(crate) fn key(&self) -> StateKey {
        self.components.key()
    }
    /// The entity allocator.
    #[inline]
    pub fn entities(&self) -> &'w Entities {
        self.entities
    }
    /// The component registry.
    #[inline]
    pub fn components(&self) -> &'w Components {
        self.components
    }
    /// The storage backend.
    #[inline]
    pub fn storage(&self) -> &'w S {
        self.storage
    }
    /// The change logs.
    #[inline]
    pub fn changes(&self) -> &'w ChangeStore {
        self.changes
    }
}

impl<S: Storage> World<S> {
    /// The parts of the world a query run borrows.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn(());
    /// assert_eq!(world.view().entities().len(), 1);
    /// assert_eq!(world.view().id(), world.id());
    /// ```
    pub fn view(&self) -> WorldView<'_, S> {
        WorldView {
            entities: &self.entities,
            components: &self.components,
            storage: &self.storage,
            changes: &self.changes,
        }
    }

    /// Hands out an entity id through a shared reference, for deferred spawning
    /// ([`Commands`](crate::Commands)). The entity becomes live, with no components, at the
    /// next `&mut` operation (or [`World::flush`]); until then [`World::contains`] is false.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.reserve_entity();
    /// assert!(!world.contains(e));
    /// world.flush();
    /// assert!(world.contains(e));
    /// ```
    pub fn reserve_entity(&self) -> Entity {
        self.entities.reserve_entity()
    }

    /// Makes every reserved entity live (and stored, with no components). Every `&mut`
    /// operation that creates, frees or changes entities does this first.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let reserved = world.reserve_entity();
    /// let spawned = world.spawn(()); // flushes first: `reserved` keeps its id
    /// assert!(world.contains(reserved) && world.contains(spawned));
    /// assert_ne!(reserved, spawned);
    /// ```
    #[inline]
    pub fn flush(&mut self) {
        if self.needs_attention() && self.entities.has_reserved() {
            self.flush_reserved();
        }
    }

    /// What every structural operation does first: flushes reserved entities and answers
    /// whether something reacts to structural changes (a hook or an observer; see
    /// [`World::reacts`]). Both ride on one word of the allocator
    /// ([`Entities::needs_attention`]), so a world where nothing is reserved and nothing
    /// reacts pays the one test `flush` always made.
    #[inline(always)]
    pub(crate) fn enter(&mut self) -> bool {
        if self.needs_attention() {
            self.attend()
        } else {
            false
        }
    }

    /// Whether entities are reserved or something reacts: the one test of every
    /// structural operation's fast path (see [`World::enter`]).
    #[inline(always)]
    pub(crate) fn needs_attention(&mut self) -> bool {
        debug_assert_eq!(
            self.entities.attention(),
            self.reacts(),
            "the reaction flag is kept in step with the registry (World::sync_reactions)"
        );
        self.entities.needs_attention()
    }

    /// [`World::enter`]'s slow path.
    #[cold]
    #[inline(never)]
    pub(crate) fn attend(&mut self) -> bool {
        if self.entities.has_reserved() {
            self.flush_reserved();
        }
        if !self.hook_commands.is_empty() && self.held_stores.is_none() {
            // Left by an operation a hook or an observer panicked out of: its deferred
            // work is dropped, as a panicking system's commands are.
            self.discard_hook_commands();
        }
        self.reacts()
    }

    /// Mirrors "something reacts" into the allocator's attention flag; called wherever
    /// the registry may have gained its first hook or observer (registering a type with
    /// hooks, setting a hook, adding an observer).
    #[inline]
    pub(crate) fn sync_reactions(&mut self) {
        let on = self.components.reactions().any();
        self.entities.set_attention(on);
        self.bundles.refresh_reactions(self.components.reactions());
    }

    #[cold]
    fn flush_reserved(&mut self) {
        let info = self.bundles.info::<()>(&mut self.components);
        let (storage, components) = (&mut self.storage, &self.components);
        self.entities
            // SAFETY: each reserved entity becomes live here and was never stored; `info` is
            // `()`'s resolution against `components`, the registry.
            .flush(|entity| unsafe { storage.spawn(entity, (), info, components) });
    }
}

/// The query states `World::query` caches, one per query type.
///
/// Looked up on every `World::query` call: through the direct-mapped [`TypeSlots`] first
/// (one comparison), the map only when two query types share a slot.
///
/// # Invariant
/// `by_type[TypeId::of::<QueryState<Q, F, S>>()] == i` exactly when `states[i]` is that
/// state; `recent` fronts `by_type`.
#[derive(Default)]
struct QueryStates {
    states: Vec<Box<dyn Any + Send + Sync>>,
    by_type: TypeIdMap<usize>,
    recent: TypeSlots,
}

impl QueryStates {
    /// Where the state of the query type `key` is, if it was created.
    #[inline]
    fn index(&self, key: TypeId) -> Option<usize> {
        match self.recent.get(key) {
            Some(index) => Some(index as usize),
            None => self.by_type.get(&key).copied(),
        }
    }

    /// Stores a new state for `key`; returns its index.
    fn insert(&mut self, key: TypeId, state: Box<dyn Any + Send + Sync>) -> usize {
        let index = self.states.len();
        self.states.push(state);
        self.by_type.insert(key, index);
        if let Ok(small) = u32::try_from(index) {
            self.recent.remember(key, small);
        }
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::VecStorage;

    struct N<const I: usize>(usize);
    impl<const I: usize> Component for N<I> {
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn many_bundle_and_query_types_share_the_fast_slots_correctly() {
        // 80 bundle types and 80 query types for 64 slots: some are found through the maps.
        let mut world = World::<VecStorage>::new();
        macro_rules! each {
            ($($i:literal)*) => {
                $( world.spawn((N::<$i>($i),)); world.spawn((N::<$i>($i + 1),)); )*
                $(
                    let sum: usize = world.query::<&N<$i>>().map(|n| n.0).sum();
                    assert_eq!(sum, 2 * $i + 1, "query type {}", $i);
                )*
                // Again, now that every state exists.
                $( assert_eq!(world.query::<&N<$i>>().count(), 2); )*
            };
        }
        each!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
              30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55
              56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79);
        assert_eq!(world.len(), 160);
    }
}
