//! Components and their registry.
//!
//! A component type is registered once per world into a dense [`ComponentId`]; the registry
//! keeps what a type-erased storage needs to hold values of it: the [`Layout`], the drop
//! function and a name for messages. Components can also be defined at run time (a name, a
//! layout and a drop function) for scripting and property systems; those have no Rust type
//! and are reached by [`ComponentId`] and raw pointers only.

use std::alloc::Layout;
use std::any::{type_name, TypeId};
use std::borrow::Cow;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use hashbrown::HashMap;

use crate::error::EcsError;
use crate::named::{NameId, Names};
use crate::properties::Property;
use crate::world::{StateKey, WorldId};

pub mod hooks;
pub mod mutability;
pub mod required;

pub use hooks::{ComponentHooks, HookContext, HookFn, Lifecycle};
pub(crate) use hooks::{Reaction, Reactions};

pub use mutability::{
    tracks_changes, Immutable, Mutability, Mutable, MutableComponent, Tracked, TrackedComponent,
    Writable, Write,
};
pub use required::{Requirement, Requirements};

/// Where a component type wants its values kept, read by backends that can choose per type.
///
/// Only a backend that holds both kinds of storage (the hybrid world) reads it; the archetype
/// backend keeps everything in tables and the sparse backend everything in sparse sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StorageKind {
    /// Archetype tables: dense columns, fast iteration, costly add/remove.
    Table,
    /// Sparse sets: cheap add/remove, lookups when joined with other components.
    Sparse,
}

/// A type that can be stored on an entity.
///
/// Derive it (`#[derive(Component)]`), or implement it naming how the type is written:
/// `impl Component for MyType { type Mutability = Mutable; }`. Override
/// [`Component::STORAGE`] to pick sparse-set storage in a hybrid world. The choices are
/// compile-time facts, so that a query's fetch resolves to "column + row" or "sparse
/// lookup", and to a plain reference or a change-recording guard, when it is monomorphised;
/// a type declared [`Component::MOVABLE`] gives up the first (its storage may change at run
/// time, so its reads ask where it is kept).
///
/// [`Component::Mutability`] says how values are written (see [`mutability`]): in place
/// through `&mut T` ([`Mutable`]), in place through a change-recording [`Mut<T>`](crate::Mut)
/// that the [`Changed`](crate::Changed) and [`Added`](crate::Added) filters read
/// ([`Tracked`]), or only replaced whole ([`Immutable`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component",
    label = "not a component",
    note = "add `#[derive(Component)]` to its definition (or `impl Component for {Self} {{ type \
            Mutability = Mutable; }}`); a struct field holding a nested bundle is marked \
            `#[bundle]`"
)]
pub trait Component: Send + Sync + 'static {
    /// How values are written: [`Mutable`] (plain `&mut T`, nothing recorded), [`Tracked`]
    /// (`&mut T` in a query and `get_mut` give a [`Mut<T>`](crate::Mut) that records the
    /// first write for the change filters) or [`Immutable`] (never written in place). The
    /// derive picks `Mutable`, `Tracked` with `#[component(track_changes)]`, and
    /// `Immutable` with `#[component(immutable)]`.
    type Mutability: Mutability;

    /// The storage this type asks for where the backend offers a choice.
    const STORAGE: StorageKind = StorageKind::Table;

    /// Whether the type may change storage while the world runs
    /// ([`World::set_storage`](crate::World::set_storage), on the hybrid backend). False by
    /// default: a type that never moves is read through code that knows its storage at
    /// compile time (a table column or a sparse look-up, chosen when the query is
    /// monomorphised). A movable type is read by asking where it is kept now, a look-up
    /// per read where the backend has both kinds. `#[component(movable)]` on the derive
    /// sets it.
    const MOVABLE: bool = false;

    /// The fields a scripting layer may read and write by name
    /// ([`World::get_property`](crate::World::get_property)); `None` (the default) for a type
    /// without properties. `#[component(properties)]` on the derive lists every field (see
    /// [`crate::properties`]).
    const PROPERTIES: Option<&'static [Property<Self>]> = None;

    /// Whether [`Component::requirements`] names any component: spawning or inserting a
    /// bundle none of whose types requires anything skips the requirement check at compile
    /// time. The derive sets it with `#[component(requires(..))]`.
    const REQUIRES: bool = false;

    /// How [`World::clone_entity`](crate::World::clone_entity) copies a value; `None` (the
    /// default): the type is left out of copies. `#[component(clone)]` on the derive, for a
    /// type that is `Clone`, sets it to [`clone_value`].
    const CLONE: Option<CloneFn> = None;

    /// The lifecycle hooks of this type (see [`hooks`]); none by default.
    /// `#[component(on_add = path, on_remove = path)]` on the derive sets them (`on_add`,
    /// `on_insert`, `on_replace`, `on_remove`, `on_despawn`), each a
    /// `fn(HookWorld<'_>, HookContext)`.
    const HOOKS: ComponentHooks = ComponentHooks::NONE;

    /// Names the components an entity holding this one must hold too, each with the
    /// constructor of the value the world adds when the entity lacks it (see
    /// [`required`]). Nothing by default; `#[component(requires(Pos, Vel = Vel(1.0)))]` on the
    /// derive requires `Pos` (made by `Default`) and `Vel` (made by the expression).
    fn requirements(_requirements: &mut Requirements<'_>) {}
}

/// The dense id of a component within one world's registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(u32);

impl ComponentId {
    /// Builds an id from its index (ids are handed out densely from 0; a world's id 0 is a
    /// private stand-in no entity holds, its own components start at 1).
    #[inline]
    pub const fn new(index: u32) -> ComponentId {
        ComponentId(index)
    }

    /// The id as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Clones a component value into an uninitialised buffer (see [`Component::CLONE`]).
///
/// # Safety
/// The first pointer points to an initialised value of the component the function was
/// registered with, which nothing writes while it runs; the second is valid for a write of
/// one, aligned, and holds no value.
pub type CloneFn = unsafe fn(std::ptr::NonNull<u8>, std::ptr::NonNull<u8>);

/// Clones the `T` at `src` into the uninitialised buffer `dst`: what
/// `#[component(clone)]` registers as [`Component::CLONE`].
///
/// # Safety
/// `src` points to an initialised `T` that nothing writes while this runs; `dst` is valid
/// for a write of a `T`, aligned, and holds no value.
pub unsafe fn clone_value<T: Component + Clone>(
    src: std::ptr::NonNull<u8>,
    dst: std::ptr::NonNull<u8>,
) {
    // SAFETY: the caller's promises.
    unsafe {
        let value = (*src.cast::<T>().as_ptr()).clone();
        dst.cast::<T>().as_ptr().write(value);
    }
}

/// Drops a value of the component's type in place.
///
/// # Safety
/// The pointer must point to an initialised, properly aligned value of the component the
/// function was registered with; the value must not be used afterwards.
pub type DropFn = unsafe fn(*mut u8);

/// Everything a type-erased storage needs to know about one component.
#[derive(Clone, Debug)]
pub struct ComponentInfo {
    id: ComponentId,
    name: Cow<'static, str>,
    layout: Layout,
    drop: Option<DropFn>,
    type_id: Option<TypeId>,
    storage: StorageKind,
    tracks_changes: bool,
    mutable: bool,
    movable: bool,
    instance: Option<Instance>,
    properties: Option<&'static [Property]>,
}

/// What a named instance's component id stands for: a component type and an instance name
/// (see [`World::insert_named`](crate::World::insert_named)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    of: ComponentId,
    name: NameId,
}

impl Instance {
    /// The component (type) the instance is a value of.
    #[inline]
    pub fn of(&self) -> ComponentId {
        self.of
    }
    /// The instance's name (its text: [`Components::names`]).
    #[inline]
    pub fn name(&self) -> NameId {
        self.name
    }
}

impl ComponentInfo {
    /// The component's id.
    #[inline]
    pub fn id(&self) -> ComponentId {
        self.id
    }
    /// The Rust type name, or the name given at run-time registration.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Size and alignment of one value.
    #[inline]
    pub fn layout(&self) -> Layout {
        self.layout
    }
    /// The drop function; `None` when values need no drop.
    #[inline]
    pub fn drop_fn(&self) -> Option<DropFn> {
        self.drop
    }
    /// The Rust type, for components registered from a type.
    pub fn type_id(&self) -> Option<TypeId> {
        self.type_id
    }
    /// The storage the component asked for (see [`StorageKind`]), or the one it was moved
    /// to since ([`World::set_storage`](crate::World::set_storage)).
    #[inline]
    pub fn storage(&self) -> StorageKind {
        self.storage
    }
    /// Whether the component may change storage at run time: [`Component::MOVABLE`] for a
    /// Rust type and its named instances, always for run-time components (which are read
    /// by id, never through code that assumed their storage).
    #[inline]
    pub fn movable(&self) -> bool {
        self.movable
    }
    /// Whether additions and writes are recorded for change filters
    /// ([`Mutability::TRACK_CHANGES`] of the type's [`Component::Mutability`]; always false
    /// for run-time components).
    #[inline]
    pub fn tracks_changes(&self) -> bool {
        self.tracks_changes
    }
    /// Whether values may be written in place: false for an [`Immutable`] type (and its
    /// named instances), which run-time writes (`DynQuery`, properties) refuse; true for
    /// run-time components.
    #[inline]
    pub fn is_mutable(&self) -> bool {
        self.mutable
    }
    /// For a named instance's id, the component it is an instance of and its name; `None`
    /// for a component type (and for run-time components).
    #[inline]
    pub fn instance(&self) -> Option<Instance> {
        self.instance
    }
    /// The component's properties ([`Component::PROPERTIES`]; named instances share their
    /// type's); `None` when it has none.
    #[inline]
    pub fn properties(&self) -> Option<&'static [Property]> {
        self.properties
    }
}

/// Describes a component defined at run time (no Rust type).
#[derive(Clone, Debug)]
pub struct ComponentDescriptor {
    /// A name for messages and look-ups; need not be unique.
    pub name: Cow<'static, str>,
    /// Size and alignment of one value; the size is padded up to the alignment at
    /// registration (a `Layout::from_size_align(3, 4)` component is stored in 4 bytes).
    pub layout: Layout,
    /// How to drop a value; `None` for plain data.
    pub drop: Option<DropFn>,
    /// Where the component wants to live in a hybrid world.
    pub storage: StorageKind,
}

/// A `Hasher` for `TypeId` keys: a `TypeId` is already a well-mixed hash, so its bits are
/// used directly instead of being hashed again on every component look-up.
#[derive(Default)]
pub struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only reached if TypeId hashes as bytes: fold them in.
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(buf);
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(5) ^ n;
    }
    #[inline]
    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64 ^ (n >> 64) as u64);
    }
}

/// A map keyed by `TypeId` using [`TypeIdHasher`].
pub type TypeIdMap<V> = HashMap<TypeId, V, BuildHasherDefault<TypeIdHasher>>;

/// A `Hasher` for [`ComponentId`] keys: ids are small dense integers, so one multiply by an
/// odd constant (Fibonacci hashing) spreads them over the table's buckets and tag bits; a
/// general-purpose hash costs several times that on every archetype-graph edge look-up.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only reached for keys that do not hash as one integer: fold the bytes in.
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by [`ComponentId`] using [`IdHasher`].
pub type ComponentIdMap<V> = HashMap<ComponentId, V, BuildHasherDefault<IdHasher>>;

/// The component registry of one world.
///
/// Besides one id per component type (and per run-time component) it keeps the names
/// things are found by: one id per named instance, i.e. per (component, instance name) pair
/// ([`Components::register_instance`]), and each Rust type's short name (`Transform` for
/// `game::Transform`), by which an unnamed component is found.
///
/// # Invariants
/// * `instances[(of, name)] == id` exactly when `infos[id].instance` is
///   `Some(Instance { of, name })`; such an `of` is never itself an instance.
/// * Once `type_names_indexed` is set (by the first named instance), `type_names[n]` lists
///   the Rust types whose short name is `names.text(n)`; before that `type_names` and
///   `names` are empty, and a type is found by its short name by scanning `infos`.
#[derive(Default, Debug)]
pub struct Components {
    infos: Vec<ComponentInfo>,
    by_type: TypeIdMap<ComponentId>,
    recent: TypeSlots,
    names: Names,
    instances: HashMap<(ComponentId, NameId), ComponentId>,
    /// The short-name index of Rust types, built when the first named instance is registered
    /// so that a world that never names anything pays nothing for names (no interning, no
    /// allocation when a type is registered).
    type_names: HashMap<NameId, Vec<ComponentId>>,
    type_names_indexed: bool,
    /// The clone function of each type that has one ([`Component::CLONE`]).
    clones: Vec<(ComponentId, CloneFn)>,
    /// The components each type requires, for the types that require any (see
    /// [`required`]): kept beside `infos`, so a world without requirements holds nothing
    /// for them.
    requirements: Vec<(ComponentId, std::sync::Arc<[Requirement]>)>,
    /// The components found in a requirement cycle, with the cycle named: a bundle holding
    /// or requiring one is refused every time (see [`required`]).
    requirement_cycles: Vec<(ComponentId, std::sync::Arc<str>)>,
    /// Hooks and observed moments per component (see [`hooks`]); empty while nothing
    /// reacts.
    reactions: Reactions,
    /// [`Disabled`](crate::Disabled)'s id once registered: from then on every query that
    /// does not name it leaves out the entities holding it (see [`crate::disabled`]).
    disabled: Option<ComponentId>,
    /// The world's id and whether `disabled` is set: what a query state compares to know it
    /// was built against this registry as it is (see [`StateKey`]).
    key: StateKey,
}

/// A direct-mapped cache in front of a `TypeId` map (`Components::by_type`, the world's
/// bundle map): slot `slot_of(T)` holds `T`'s value if `T` was the first type remembered in
/// that slot.
///
/// `World::get::<T>` resolves `T`'s id on every call; `T`'s slot is a compile-time constant,
/// so a hit is one 16-byte comparison and one load, where the hash map probe was a group
/// scan. A miss (two types sharing a slot) falls back to the map.
///
/// # Invariant
/// Every slot holds either `(TypeId::of::<Vacant>(), 0)` or `(TypeId::of::<T>(), v)` where `v`
/// is `T`'s value in the map the cache fronts (values never change once remembered).
#[derive(Clone)]
pub(crate) struct TypeSlots([(TypeId, u32); TYPE_SLOTS]);

/// Slots in [`TypeSlots`]: a power of two.
const TYPE_SLOTS: usize = 64;

/// The key of an empty [`TypeSlots`] slot; private, so never a registered component.
struct Vacant;

impl Default for TypeSlots {
    fn default() -> Self {
        TypeSlots([(TypeId::of::<Vacant>(), 0); TYPE_SLOTS])
    }
}

impl std::fmt::Debug for TypeSlots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self
            .0
            .iter()
            .filter(|(k, _)| *k != TypeId::of::<Vacant>())
            .count();
        write!(f, "TypeSlots({used} of {TYPE_SLOTS} used)")
    }
}

impl TypeSlots {
    /// The slot of `key`: the top bits of its hash.
    #[inline(always)]
    fn slot_of(key: TypeId) -> usize {
        let mut hasher = TypeIdHasher::default();
        key.hash(&mut hasher);
        (hasher.finish() >> (64 - TYPE_SLOTS.trailing_zeros())) as usize
    }

    /// `key`'s value, if `key` owns its slot.
    #[inline(always)]
    pub(crate) fn get(&self, key: TypeId) -> Option<u32> {
        let (k, value) = self.0[Self::slot_of(key)];
        (k == key).then_some(value)
    }

    /// Remembers `key`'s value if its slot is still vacant.
    pub(crate) fn remember(&mut self, key: TypeId, value: u32) {
        let slot = &mut self.0[Self::slot_of(key)];
        if slot.0 == TypeId::of::<Vacant>() {
            *slot = (key, value);
        }
    }
}

impl Components {
    /// The id of `T`, registering it on first use.
    #[inline]
    pub fn register<T: Component>(&mut self) -> ComponentId {
        match self.id::<T>() {
            Some(id) => id,
            None => self.register_new::<T>(),
        }
    }

    #[cold]
    fn register_new<T: Component>(&mut self) -> ComponentId {
        let id = self.push(ComponentDescriptor {
            name: Cow::Borrowed(type_name::<T>()),
            layout: Layout::new::<T>(),
            drop: std::mem::needs_drop::<T>().then_some(drop_ptr::<T> as DropFn),
            storage: T::STORAGE,
        });
        let info = &mut self.infos[id.index()];
        info.type_id = Some(TypeId::of::<T>());
        info.tracks_changes = tracks_changes::<T>();
        info.mutable = <T::Mutability as Mutability>::MUTABLE;
        info.movable = T::MOVABLE;
        info.properties = T::PROPERTIES.map(Property::erase);
        self.by_type.insert(TypeId::of::<T>(), id);
        self.recent.remember(TypeId::of::<T>(), id.0);
        if self.type_names_indexed {
            self.index_type_name(id);
        }
        if let Some(clone) = T::CLONE {
            self.clones.push((id, clone));
        }
        if T::REQUIRES {
            self.register_requirements::<T>(id);
        }
        if T::HOOKS.any() {
            let count = self.infos.len();
            self.reactions.update(id, count, |r| r.hooks = T::HOOKS);
        }
        if TypeId::of::<T>() == TypeId::of::<crate::Disabled>() {
            self.disabled = Some(id);
            self.key = self.key.hiding();
        }
        id
    }

    /// [`Disabled`](crate::Disabled)'s id, once something registered it (a query naming it,
    /// [`World::disable`](crate::World::disable), an insert): until then no entity can be
    /// disabled, and queries check nothing.
    #[inline]
    pub fn disabled(&self) -> Option<ComponentId> {
        self.disabled
    }

    /// What a query state built against this registry now records (see [`StateKey`]).
    #[inline(always)]
    pub(crate) fn key(&self) -> StateKey {
        self.key
    }

    /// Builds the short-name index of the Rust types registered so far (once).
    fn index_type_names(&mut self) {
        if !self.type_names_indexed {
            self.type_names_indexed = true;
            for i in 0..self.infos.len() {
                self.index_type_name(ComponentId(i as u32));
            }
        }
    }

    /// Adds `id` to the short-name index if it is a Rust type (not a named instance, not a
    /// run-time component, not the world's stand-in).
    fn index_type_name(&mut self, id: ComponentId) {
        let info = &self.infos[id.index()];
        if info.type_id.is_some() && info.instance.is_none() && id != UNSTORED {
            let short = self.names.intern(short_type_name(&info.name));
            self.type_names.entry(short).or_default().push(id);
        }
    }

    /// Registers a run-time component; every call makes a new, distinct component.
    pub fn register_dynamic(&mut self, descriptor: ComponentDescriptor) -> ComponentId {
        self.push(descriptor)
    }

    /// [`Components::register_dynamic`] for a component whose changes are tracked (as
    /// `#[component(track_changes)]` does for a Rust type): `Added` and `Changed` filters
    /// on it see its additions and writes.
    pub fn register_dynamic_tracked(&mut self, descriptor: ComponentDescriptor) -> ComponentId {
        let id = self.push(descriptor);
        self.infos[id.index()].tracks_changes = true;
        id
    }

    /// Records that `id`'s values are kept as `kind` from now on: what
    /// [`World::set_storage`](crate::World::set_storage) writes once the storage has moved
    /// them, so every plan made afterwards reads the new kind.
    pub(crate) fn set_storage(&mut self, id: ComponentId, kind: StorageKind) {
        self.infos[id.index()].storage = kind;
    }

    fn push(&mut self, d: ComponentDescriptor) -> ComponentId {
        let index = u32::try_from(self.infos.len()).expect("more than 2^32 component types");
        let id = ComponentId(index);
        self.infos.push(ComponentInfo {
            id,
            name: d.name,
            // Padded so that every buffer sized from the registry matches a storage slot.
            layout: d.layout.pad_to_align(),
            drop: d.drop,
            type_id: None,
            storage: d.storage,
            tracks_changes: false,
            mutable: true,
            movable: true,
            instance: None,
            properties: None,
        });
        self.reactions.grow(self.infos.len());
        id
    }

    /// The id of the instance of `of` named `name`, registering it on first use: a
    /// component of its own with `of`'s layout, drop function, storage choice, change
    /// tracking, Rust type and properties, so every backend stores it like `of`.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] when `of` is not registered here, is itself a named
    /// instance, or is the world's private stand-in (id 0).
    pub fn register_instance(
        &mut self,
        of: ComponentId,
        name: &str,
    ) -> Result<ComponentId, EcsError> {
        let valid = self.get(of).is_some_and(|info| info.instance.is_none()) && of != UNSTORED;
        if !valid {
            return Err(EcsError::UnknownComponent(of));
        }
        self.index_type_names();
        let name_id = self.names.intern(name);
        if let Some(&id) = self.instances.get(&(of, name_id)) {
            return Ok(id);
        }
        let base = self.info(of).clone();
        let id = self.push(ComponentDescriptor {
            name: Cow::Owned(format!("{name} ({})", base.name)),
            layout: base.layout,
            drop: base.drop,
            storage: base.storage,
        });
        let info = &mut self.infos[id.index()];
        info.type_id = base.type_id;
        info.tracks_changes = base.tracks_changes;
        info.mutable = base.mutable;
        info.movable = base.movable;
        info.properties = base.properties;
        info.instance = Some(Instance { of, name: name_id });
        self.instances.insert((of, name_id), id);
        // An instance is a value of its type: it runs the type's hooks and observers.
        if let Some(&reaction) = self.reactions.get(of) {
            let count = self.infos.len();
            self.reactions.update(id, count, |r| *r = reaction);
        }
        Ok(id)
    }

    /// The components' hooks and observed moments.
    #[inline(always)]
    pub(crate) fn reactions(&self) -> &Reactions {
        &self.reactions
    }

    /// Sets `id`'s hook for `event` (and its named instances'), replacing none.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] for an id from elsewhere; [`EcsError::Hook`] when the
    /// component already has a hook for `event`, or is a named instance (its type's hooks
    /// are its own: set them on the type).
    pub(crate) fn set_hook(
        &mut self,
        id: ComponentId,
        event: Lifecycle,
        hook: HookFn,
    ) -> Result<(), EcsError> {
        let info = self.get(id).ok_or(EcsError::UnknownComponent(id))?;
        let refuse = |reason: &str| {
            Err(EcsError::Hook {
                component: info.name().to_owned(),
                reason: reason.to_owned(),
            })
        };
        if info.instance().is_some() {
            return refuse("a named instance runs its type's hooks: set the hook on the type");
        }
        if self
            .reactions
            .get(id)
            .is_some_and(|r| r.hooks.get(event).is_some())
        {
            return refuse(&format!("it already has an {} hook", event.hook_name()));
        }
        self.update_with_instances(id, |r| *r.hooks.slot_mut(event) = Some(hook));
        Ok(())
    }

    /// Sets the moments observers watch on `id` and its named instances (as
    /// [`Lifecycle::bit`]s).
    #[cfg(feature = "schedule")]
    pub(crate) fn set_observed(&mut self, id: ComponentId, bits: u8) {
        self.update_with_instances(id, |r| r.observed = bits);
    }

    /// Changes the reaction of `id` and of each of its named instances.
    fn update_with_instances(&mut self, id: ComponentId, change: impl Fn(&mut Reaction)) {
        let count = self.infos.len();
        let instances: Vec<ComponentId> = self
            .instances
            .iter()
            .filter(|((of, _), _)| *of == id)
            .map(|(_, &instance)| instance)
            .collect();
        for target in std::iter::once(id).chain(instances) {
            self.reactions.update(target, count, &change);
        }
    }

    /// The id of the instance of `of` named `name`, if registered (no allocation).
    #[inline]
    pub fn instance(&self, of: ComponentId, name: &str) -> Option<ComponentId> {
        let name = self.names.get(name)?;
        self.instances.get(&(of, name)).copied()
    }

    /// The names interned in this registry: instance names and Rust types' short names.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// The Rust component types whose short name (the type's name without its module path
    /// and generic arguments) is `name`. (Names are interned once the world has a named
    /// instance; before that no `NameId` exists, and [`Components::types_with_short_name`]
    /// finds types by text.)
    pub fn types_named(&self, name: NameId) -> &[ComponentId] {
        self.type_names.get(&name).map_or(&[], Vec::as_slice)
    }

    /// How `id` is named in tables meant for a person ([`World::layout`](crate::World::layout)):
    /// a Rust type by its short name (`Shield` for `game::Shield`), a named instance by its
    /// name and its type's short name (`Front (Shield)`), a run-time component by the name it
    /// was registered with.
    ///
    /// # Panics
    /// If `id` is not registered here.
    pub fn short_name(&self, id: ComponentId) -> String {
        let info = self.info(id);
        match info.instance() {
            Some(instance) => format!(
                "{} ({})",
                self.names.text(instance.name()),
                self.short_name(instance.of())
            ),
            None if info.type_id().is_some() => short_type_name(info.name()).to_owned(),
            None => info.name().to_owned(),
        }
    }

    /// The Rust component types whose short name is `text`: through the index once it is
    /// built, else by scanning the registry (a world with no named instance keeps no index).
    pub fn types_with_short_name<'a>(
        &'a self,
        text: &'a str,
    ) -> impl Iterator<Item = ComponentId> + 'a {
        let indexed = match (self.type_names_indexed, self.names.get(text)) {
            (true, Some(name)) => self.types_named(name),
            _ => &[],
        };
        let unindexed = if self.type_names_indexed {
            &[]
        } else {
            &self.infos[..]
        };
        let scanned = unindexed
            .iter()
            .filter(move |info| {
                info.type_id.is_some()
                    && info.instance.is_none()
                    && info.id != UNSTORED
                    && short_type_name(&info.name) == text
            })
            .map(|info| info.id);
        indexed.iter().copied().chain(scanned)
    }

    /// The id of `T` if it has been registered.
    #[inline]
    pub fn id<T: Component>(&self) -> Option<ComponentId> {
        match self.recent.get(TypeId::of::<T>()) {
            Some(id) => Some(ComponentId(id)),
            None => self.id_in_map::<T>(),
        }
    }

    /// The id of the Rust type whose `TypeId` is `type_id`, if registered (for a caller
    /// that holds the `TypeId` but not the type, such as a snapshot registry entry).
    pub fn id_of(&self, type_id: TypeId) -> Option<ComponentId> {
        self.by_type.get(&type_id).copied()
    }

    /// The map look-up behind [`Components::id`]'s fast slot; out of line so the fast path
    /// stays small enough to inline into every `World::get`. Generic rather than given the
    /// `TypeId`, so the fast path does not store the key to the stack for this call.
    #[cold]
    #[inline(never)]
    fn id_in_map<T: 'static>(&self) -> Option<ComponentId> {
        self.by_type.get(&TypeId::of::<T>()).copied()
    }

    /// The info of a registered component, `None` for an id from another registry.
    #[inline]
    pub fn get(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.infos.get(id.index())
    }

    /// How values of `id` are cloned ([`Component::CLONE`]): the type's own function, or
    /// for a named instance its type's; `None` when the type did not opt in.
    pub fn clone_fn(&self, id: ComponentId) -> Option<CloneFn> {
        let of = self.infos[id.index()].instance().map_or(id, |i| i.of());
        self.clones.iter().find(|(c, _)| *c == of).map(|(_, f)| *f)
    }

    /// The info of a registered component.
    ///
    /// # Panics
    /// If `id` was not handed out by this registry.
    #[inline]
    pub fn info(&self, id: ComponentId) -> &ComponentInfo {
        &self.infos[id.index()]
    }

    /// Number of registered components.
    pub fn len(&self) -> usize {
        self.infos.len()
    }

    /// True when nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.infos.is_empty()
    }

    /// All registered components, by id.
    pub fn iter(&self) -> impl Iterator<Item = &ComponentInfo> {
        self.infos.iter()
    }
}

/// A type with no values (it has no variants), registered first in every world's registry
/// at [`UNSTORED`]: since no value of it can exist, no entity ever holds one.
///
/// A query state built through a shared world ([`World::query_ref`](crate::World::query_ref))
/// cannot register the component types it names; it names this one instead of each type the
/// world never registered. A type never registered was never stored either, so in an
/// optional or excluded slot the stand-in answers exactly as the real type would (absent
/// everywhere); a required slot of such a type matches nothing, and the state does not run
/// at all. It is registered as a Rust type, so neither the by-bytes API (plain data only)
/// nor `insert_by_id` (a valid value of the type) can store one.
pub(crate) enum Unstored {}

/// The id of [`Unstored`] in every world's registry.
pub(crate) const UNSTORED: ComponentId = ComponentId(0);

impl Components {
    /// A world's registry: [`Unstored`] at [`UNSTORED`], nothing else. It is not entered in
    /// the type maps (nothing looks it up by type), so it takes no fast slot from a real type.
    pub(crate) fn with_unstored(world: WorldId) -> Components {
        // Room for the stand-in and a typical world's first few types in one allocation.
        let mut components = Components {
            infos: Vec::with_capacity(8),
            key: StateKey::new(world),
            ..Components::default()
        };
        let id = components.push(ComponentDescriptor {
            name: Cow::Borrowed(type_name::<Unstored>()),
            layout: Layout::new::<Unstored>(),
            drop: None,
            storage: StorageKind::Table,
        });
        components.infos[id.index()].type_id = Some(TypeId::of::<Unstored>());
        // Query slots of types not registered yet name the stand-in, read by code compiled
        // for a fixed kind: it never moves.
        components.infos[id.index()].movable = false;
        debug_assert_eq!(id, UNSTORED);
        components
    }
}

/// A type's name without its module path and generic arguments: `Transform` for
/// `game::scene::Transform<f32>`.
pub fn short_type_name(full: &str) -> &str {
    let plain = full.split('<').next().unwrap_or(full);
    plain.rsplit("::").next().unwrap_or(plain)
}

/// The [`DropFn`] of a Rust type.
///
/// # Safety
/// `ptr` must point to an initialised, aligned `T` that is not used afterwards.
unsafe fn drop_ptr<T>(ptr: *mut u8) {
    // SAFETY: the caller guarantees `ptr` is an initialised, aligned, unused-after `T`.
    unsafe { std::ptr::drop_in_place(ptr.cast::<T>()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct A;
    impl Component for A {
        type Mutability = crate::component::Mutable;
    }
    struct B(#[allow(dead_code)] String);
    impl Component for B {
        type Mutability = crate::component::Mutable;
        const STORAGE: StorageKind = StorageKind::Sparse;
    }

    struct N<const I: usize>;
    impl<const I: usize> Component for N<I> {
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn type_names_are_indexed_from_the_first_named_instance() {
        let mut c = Components::with_unstored(WorldId::TEST);
        let a = c.register::<A>();
        assert!(c.names().is_empty(), "registering a type interns nothing");
        assert_eq!(c.types_with_short_name("A").collect::<Vec<_>>(), [a]);
        assert_eq!(c.types_with_short_name("B").count(), 0);
        assert_eq!(c.types_with_short_name("Unstored").count(), 0);
        let fog = c.register_instance(a, "Fog").unwrap();
        let b = c.register::<B>();
        for (text, want) in [("A", vec![a]), ("B", vec![b]), ("Fog", vec![])] {
            assert_eq!(
                c.types_with_short_name(text).collect::<Vec<_>>(),
                want,
                "{text}"
            );
        }
        let name = c.names().get("A").expect("indexed once an instance exists");
        assert_eq!(c.types_named(name), [a]);
        assert_ne!(fog, a);
    }

    #[test]
    fn ids_stay_right_when_types_share_a_fast_slot() {
        // 80 types for 64 slots: some must share one and be answered by the map.
        let mut c = Components::default();
        let mut ids = Vec::new();
        macro_rules! each {
            ($($i:literal)*) => {
                $( ids.push(c.register::<N<$i>>()); )*
                let again = vec![$( c.id::<N<$i>>().expect("registered") ),*];
                assert_eq!(again, ids);
                $( assert_eq!(c.register::<N<$i>>(), ids[$i]); )*
            };
        }
        each!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
              30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55
              56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79);
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), 80);
        assert!(
            c.id::<A>().is_none(),
            "an unregistered type misses both the slot and map"
        );
    }

    #[test]
    fn register_is_idempotent_and_dense() {
        let mut c = Components::default();
        let a = c.register::<A>();
        let b = c.register::<B>();
        assert_eq!(c.register::<A>(), a);
        assert_eq!((a.index(), b.index()), (0, 1));
        assert_eq!(c.id::<B>(), Some(b));
        assert!(c.info(a).drop_fn().is_none());
        assert!(c.info(b).drop_fn().is_some());
        assert_eq!(c.info(b).storage(), StorageKind::Sparse);
        assert!(c.info(b).name().ends_with("B"));
    }

    #[test]
    fn dynamic_components_are_distinct() {
        let mut c = Components::default();
        let d = ComponentDescriptor {
            name: "Fog".into(),
            layout: Layout::new::<[f32; 4]>(),
            drop: None,
            storage: StorageKind::Table,
        };
        let x = c.register_dynamic(d.clone());
        let y = c.register_dynamic(d);
        assert_ne!(x, y);
        assert_eq!(c.info(x).name(), "Fog");
        assert_eq!(c.info(x).type_id(), None);
        assert!(c.get(ComponentId::new(99)).is_none());
    }
}
