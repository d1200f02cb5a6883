//! [`SnapshotRegistry`]: which components and resources a snapshot holds, under which
//! stable names, and how each is written and read.
//!
//! # Why the registry's type grows with each typed registration
//! Writing a `T` through a serializer `S` runs `T::serialize::<S>`, code that exists only
//! where both types are known at compile time. A registry filled at run time would have to
//! erase `S` (a virtual call per primitive written: measured several times slower than a
//! direct call on a column of small values). So each typed registration returns a registry
//! whose type lists the types registered so far (`SnapshotRegistry<((), Typed<A>)>`, ...),
//! and a save or load walks that list with code generated for the format it is given. Write
//! the registry once (`fn registry() -> SnapshotRegistry<impl Entries>`) and keep it.
//! Everything that does not depend on the format (names, layouts, entity remapping) is kept
//! beside the list as plain data.

use std::alloc::Layout;
use std::any::{type_name, Any, TypeId};
use std::marker::PhantomData;
use std::ptr::NonNull;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::error::SnapshotErrorKind;
use super::map::{EntityMapper, MapEntities};
use crate::component::{Component, ComponentDescriptor, ComponentId, Components};
use crate::resource::{Resource, Resources};

/// The components and resources a snapshot holds, each under a stable name (the name in
/// the snapshot: it must not change when the Rust type is renamed or moved, which a
/// `type_name` or `TypeId` would).
///
/// Typed components and resources are added with the consuming builder methods (each
/// returns the registry with the type added to its type, see the [module docs](crate::snapshot));
/// run-time components with [`SnapshotRegistry::dynamic`]. Save with
/// [`SnapshotRegistry::save`], load with [`SnapshotRegistry::load`]. Components the
/// registry does not name are left out of a save; the relationships ([`ChildOf`](crate::ChildOf),
/// [`Children`](crate::Children)) are always saved, as parent links.
///
/// ```
/// use ecs_core::{Component, Entity, MapEntities, World, testing::VecStorage};
/// use ecs_core::snapshot::{Entries, SnapshotRegistry};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
/// struct Position(f32, f32);
/// #[derive(Component, Serialize, Deserialize, MapEntities)]
/// struct Follows(Entity);
/// #[derive(Serialize, Deserialize)]
/// struct Tick(u64);
///
/// fn registry() -> SnapshotRegistry<impl Entries> {
///     SnapshotRegistry::new()
///         .component::<Position>("Position")
///         .component_with_entities::<Follows>("Follows")
///         .resource::<Tick>("Tick")
/// }
///
/// let mut world = World::<VecStorage>::new();
/// let leader = world.spawn(Position(0.0, 0.0));
/// world.spawn((Position(1.0, 0.0), Follows(leader)));
/// world.insert_resource(Tick(7));
/// let bytes = postcard::to_allocvec(&registry().save(&world)).unwrap();
///
/// let mut copy = World::<VecStorage>::new();
/// let map = registry().load(&mut copy, &mut postcard::Deserializer::from_bytes(&bytes)).unwrap();
/// let new_leader = map.get(leader).unwrap();
/// let follower = copy.query::<(Entity, &Follows)>().map(|(e, _)| e).next().unwrap();
/// assert_eq!(copy.get::<Follows>(follower).unwrap().0, new_leader);
/// assert_eq!(copy.resource::<Tick>().unwrap().0, 7);
/// ```
pub struct SnapshotRegistry<L = ()> {
    pub(super) list: L,
    pub(super) components: Vec<ComponentEntry>,
    pub(super) resources: Vec<ResourceEntry>,
}

impl Default for SnapshotRegistry<()> {
    fn default() -> Self {
        SnapshotRegistry::new()
    }
}

impl SnapshotRegistry<()> {
    /// A registry naming nothing (a save of it holds the entities and their parent links).
    pub fn new() -> SnapshotRegistry<()> {
        SnapshotRegistry {
            list: (),
            components: Vec::new(),
            resources: Vec::new(),
        }
    }
}

impl<L: Entries> SnapshotRegistry<L> {
    /// Adds component `T` under `name`. Its named instances are saved too, under the same
    /// name and their instance names.
    ///
    /// # Panics
    /// If `name` or `T` is already registered as a component.
    pub fn component<T: Component + Serialize + DeserializeOwned>(
        self,
        name: &str,
    ) -> SnapshotRegistry<(L, Typed<T>)> {
        self.typed::<T>(name, None)
    }

    /// Adds component `T`, whose values hold entity handles, under `name`: a load rewrites
    /// each handle to the loaded entity's ([`MapEntities`]), and refuses a snapshot whose
    /// values name an entity it does not list.
    ///
    /// # Panics
    /// If `name` or `T` is already registered as a component.
    pub fn component_with_entities<T>(self, name: &str) -> SnapshotRegistry<(L, Typed<T>)>
    where
        T: Component + Serialize + DeserializeOwned + MapEntities,
    {
        self.typed::<T>(name, Some(map_column::<T>))
    }

    fn typed<T: Component + Serialize + DeserializeOwned>(
        mut self,
        name: &str,
        map: Option<MapColumnFn>,
    ) -> SnapshotRegistry<(L, Typed<T>)> {
        self.check_new_component(name, Some(TypeId::of::<T>()));
        self.components.push(ComponentEntry {
            name: name.into(),
            kind: ComponentKind::Typed(TypedInfo {
                slot: L::LEN,
                type_id: TypeId::of::<T>(),
                register: Components::register::<T>,
                map,
            }),
        });
        SnapshotRegistry {
            list: (self.list, Typed(PhantomData)),
            components: self.components,
            resources: self.resources,
        }
    }

    /// Adds resource `R` under `name` (resources are saved only when registered). Loading a
    /// snapshot that holds it replaces the world's `R`.
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a resource.
    pub fn resource<R: Resource + Serialize + DeserializeOwned>(
        mut self,
        name: &str,
    ) -> SnapshotRegistry<(L, TypedResource<R>)> {
        assert!(
            self.resources
                .iter()
                .all(|r| &*r.name != name && r.type_id != TypeId::of::<R>()),
            "resource name {name:?} or type {} registered twice",
            type_name::<R>()
        );
        self.resources.push(ResourceEntry {
            name: name.into(),
            slot: L::LEN,
            type_id: TypeId::of::<R>(),
            type_name: type_name::<R>(),
            contains: Resources::contains::<R>,
        });
        SnapshotRegistry {
            list: (self.list, TypedResource(PhantomData)),
            components: self.components,
            resources: self.resources,
        }
    }

    /// Adds a run-time component (no Rust type) under `name`. A world's component is this
    /// one when it is a run-time component registered with the descriptor's name and
    /// layout (give run-time components distinct names); a load registers it in the target
    /// world if it is missing there. Its values are written as byte strings by `codec`.
    ///
    /// # Panics
    /// If `name` is already registered as a component, another run-time entry has the same
    /// descriptor name and layout, or `codec` is [`DynamicCodec::plain_bytes`] for a
    /// descriptor with a drop function.
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use ecs_core::snapshot::{DynamicCodec, SnapshotRegistry};
    /// # use std::alloc::Layout;
    /// let fog = ComponentDescriptor {
    ///     name: "Fog".into(), layout: Layout::new::<f32>(), drop: None, storage: StorageKind::Table,
    /// };
    /// let registry = SnapshotRegistry::new().dynamic("Fog", fog.clone(), DynamicCodec::plain_bytes());
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_dynamic(fog);
    /// let e = world.spawn(());
    /// world.insert_bytes(e, id, &0.25f32.to_ne_bytes()).unwrap();
    /// let json = serde_json::to_string(&registry.save(&world)).unwrap();
    ///
    /// let mut copy = World::<VecStorage>::new(); // "Fog" is registered by the load
    /// let map = registry.load(&mut copy, &mut serde_json::Deserializer::from_str(&json)).unwrap();
    /// let id = copy.components().iter().find(|c| c.name() == "Fog").unwrap().id();
    /// assert_eq!(copy.get_bytes(map.get(e).unwrap(), id), Some(&0.25f32.to_ne_bytes()[..]));
    /// ```
    pub fn dynamic(
        mut self,
        name: &str,
        descriptor: ComponentDescriptor,
        codec: DynamicCodec,
    ) -> Self {
        self.add_dynamic(name, descriptor, codec);
        self
    }

    /// [`SnapshotRegistry::dynamic`] through `&mut self`, for registering in a loop.
    ///
    /// # Panics
    /// As [`SnapshotRegistry::dynamic`].
    pub fn add_dynamic(
        &mut self,
        name: &str,
        descriptor: ComponentDescriptor,
        codec: DynamicCodec,
    ) {
        self.check_new_component(name, None);
        let layout = descriptor.layout.pad_to_align();
        for entry in &self.components {
            if let ComponentKind::Dynamic(other) = &entry.kind {
                assert!(
                    !(other.descriptor.name == descriptor.name && other.layout == layout),
                    "run-time components {:?} and {name:?} both describe {:?} with one layout: \
                     a world's component would be both",
                    entry.name,
                    descriptor.name
                );
            }
        }
        assert!(
            !(codec.is_plain_bytes() && descriptor.drop.is_some()),
            "DynamicCodec::plain_bytes for {name:?}, whose descriptor has a drop function: \
             its bytes are not plain data"
        );
        self.components.push(ComponentEntry {
            name: name.into(),
            kind: ComponentKind::Dynamic(DynamicInfo {
                layout,
                descriptor,
                codec,
            }),
        });
    }

    fn check_new_component(&self, name: &str, type_id: Option<TypeId>) {
        for entry in &self.components {
            assert!(
                &*entry.name != name,
                "component name {name:?} registered twice"
            );
            if let (ComponentKind::Typed(info), Some(t)) = (&entry.kind, type_id) {
                assert!(
                    info.type_id != t,
                    "component type of {name:?} registered twice"
                );
            }
        }
    }

    /// The component entry named `name`.
    pub(super) fn component_named(&self, name: &str) -> Option<usize> {
        self.components.iter().position(|c| &*c.name == name)
    }

    /// The resource entry named `name`.
    pub(super) fn resource_named(&self, name: &str) -> Option<usize> {
        self.resources.iter().position(|r| &*r.name == name)
    }
}

/// How a run-time component's values are written and read: as byte strings (the format
/// writes byte strings as it writes any bytes: an array of numbers in JSON, a length and
/// the bytes in binary formats).
///
/// Two kinds, made by their constructors: [`DynamicCodec::plain_bytes`] for plain data (safe:
/// the world itself copies the bytes), and [`DynamicCodec::functions`] for the caller's own
/// encoding (`unsafe` to make: the loader trusts the functions to build valid values).
#[derive(Clone, Copy, Debug)]
pub struct DynamicCodec(pub(super) Codec);

/// The kinds of [`DynamicCodec`], readable inside the snapshot module only (so the
/// functions' promises are always made through [`DynamicCodec::functions`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Codec {
    /// The value's own bytes.
    PlainBytes,
    /// The caller's functions, with the promises of [`DynamicCodec::functions`].
    Functions {
        save: SaveFn,
        load: LoadFn,
        map_entities: Option<MapValueFn>,
    },
}

/// Appends the bytes of the value at `value` to `out` (see [`DynamicCodec::functions`]).
pub type SaveFn = unsafe fn(value: NonNull<u8>, out: &mut Vec<u8>);

/// Builds a value from `bytes` at `out`, or says why it cannot (see
/// [`DynamicCodec::functions`]).
pub type LoadFn = unsafe fn(bytes: &[u8], out: NonNull<u8>) -> Result<(), String>;

/// Rewrites the handles inside the value at `value` (see [`DynamicCodec::functions`]).
pub type MapValueFn = unsafe fn(value: NonNull<u8>, mapper: &mut dyn EntityMapper);

impl DynamicCodec {
    /// For plain-data components (no drop function, any bytes a valid value, no handles
    /// inside): the value's own bytes, as [`World::get_bytes`](crate::World::get_bytes)
    /// gives them. A load refuses a byte string of another length than the component's
    /// size. The bytes are the machine's: load them on a machine of the same byte order.
    pub fn plain_bytes() -> DynamicCodec {
        DynamicCodec(Codec::PlainBytes)
    }

    /// The caller's encoding: `save` writes a value's bytes, `load` builds a value from
    /// them, and `map_entities` (for a component holding entity handles) rewrites the
    /// handles inside a value when a load gives the entities new ones (then a load also
    /// refuses handles the snapshot does not list).
    ///
    /// The codec is used for every world component the registry entry matches: a run-time
    /// component with the entry's descriptor name, layout and drop nature (a drop function
    /// or none); a load refuses a world component whose drop nature differs
    /// ([`SnapshotErrorKind::DropMismatch`](super::SnapshotErrorKind::DropMismatch)).
    ///
    /// # Safety
    /// The world trusts what the functions do, so each must keep these promises for every
    /// value of every component the entry matches:
    /// * `save` is called with a pointer to an initialised value, for reading only; it must
    ///   not write through it.
    /// * `load` is called with `out` valid for writing one value of the component's layout
    ///   (uninitialised). When it returns `Ok`, it must have written a valid value there:
    ///   one the component's drop function (if any) may drop, that `save` and
    ///   `map_entities` may be called with, and, for a component without a drop function,
    ///   whose every byte is initialised ([`World::get_bytes`](crate::World::get_bytes)
    ///   hands them out). The value may be moved to, shared with, used and dropped on any
    ///   thread, as a `Send + Sync` type's. On `Err` it must leave nothing that needs
    ///   dropping. A `load` that returns `Ok` without writing commits uninitialised memory.
    /// * `map_entities` is called with a pointer to an initialised value, for writing; it
    ///   may only replace handles inside it, leaving a valid value.
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use ecs_core::snapshot::{DynamicCodec, SnapshotRegistry};
    /// # use std::alloc::Layout;
    /// # use std::ptr::NonNull;
    /// // A `u32` stored big-endian in snapshots, whatever the machine.
    /// unsafe fn save(value: NonNull<u8>, out: &mut Vec<u8>) {
    ///     // SAFETY: `value` is an initialised `u32` (the codec's contract).
    ///     out.extend_from_slice(&unsafe { value.cast::<u32>().read() }.to_be_bytes());
    /// }
    /// unsafe fn load(bytes: &[u8], out: NonNull<u8>) -> Result<(), String> {
    ///     let bytes: [u8; 4] = bytes.try_into().map_err(|_| "a u32 is 4 bytes".to_string())?;
    ///     // SAFETY: `out` is writable room for one `u32` (the codec's contract).
    ///     unsafe { out.cast::<u32>().write(u32::from_be_bytes(bytes)) };
    ///     Ok(())
    /// }
    /// let counter = ComponentDescriptor {
    ///     name: "Counter".into(), layout: Layout::new::<u32>(), drop: None,
    ///     storage: StorageKind::Table,
    /// };
    /// // SAFETY: `save` only reads; `load` writes a whole `u32` (any bits are a valid `u32`)
    /// // before answering `Ok`; "Counter" values are `u32`s wherever this entry is used.
    /// let codec = unsafe { DynamicCodec::functions(save, load, None) };
    /// let registry = SnapshotRegistry::new().dynamic("Counter", counter.clone(), codec);
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_dynamic(counter);
    /// let e = world.spawn(());
    /// world.insert_bytes(e, id, &7u32.to_ne_bytes()).unwrap();
    /// let json = serde_json::to_string(&registry.save(&world)).unwrap();
    /// assert!(json.contains("[0,0,0,7]"), "{json}");
    /// let mut copy = World::<VecStorage>::new();
    /// let map = registry.load(&mut copy, &mut serde_json::Deserializer::from_str(&json)).unwrap();
    /// let id = copy.components().iter().find(|c| c.name() == "Counter").unwrap().id();
    /// assert_eq!(copy.get_bytes(map.get(e).unwrap(), id), Some(&7u32.to_ne_bytes()[..]));
    /// ```
    pub unsafe fn functions(
        save: SaveFn,
        load: LoadFn,
        map_entities: Option<MapValueFn>,
    ) -> DynamicCodec {
        DynamicCodec(Codec::Functions {
            save,
            load,
            map_entities,
        })
    }

    /// Whether this is [`DynamicCodec::plain_bytes`].
    pub fn is_plain_bytes(&self) -> bool {
        matches!(self.0, Codec::PlainBytes)
    }
}

/// Rewrites the handles in `count` consecutive values starting at `base`.
///
/// # Safety
/// `base` points to `count` initialised values of the entry's type, writable.
pub(super) type MapColumnFn =
    unsafe fn(base: NonNull<u8>, count: usize, mapper: &mut dyn EntityMapper);

/// [`MapColumnFn`] for `T`.
///
/// # Safety
/// As for [`MapColumnFn`], with the values `T`s.
unsafe fn map_column<T: MapEntities>(
    base: NonNull<u8>,
    count: usize,
    mapper: &mut dyn EntityMapper,
) {
    // SAFETY: `count` initialised `T`s at `base`, writable and not aliased (caller).
    let values = unsafe { std::slice::from_raw_parts_mut(base.cast::<T>().as_ptr(), count) };
    for value in values {
        value.map_entities(mapper);
    }
}

/// One component the registry names.
pub(super) struct ComponentEntry {
    pub(super) name: Box<str>,
    pub(super) kind: ComponentKind,
}

/// A typed or a run-time component.
pub(super) enum ComponentKind {
    Typed(TypedInfo),
    Dynamic(DynamicInfo),
}

/// What a save and a load need of a typed component besides its serde code.
pub(super) struct TypedInfo {
    /// Its place in the type list ([`Entries::dispatch`]).
    pub(super) slot: usize,
    pub(super) type_id: TypeId,
    pub(super) register: fn(&mut Components) -> ComponentId,
    pub(super) map: Option<MapColumnFn>,
}

/// A run-time component's descriptor (layout padded) and codec.
pub(super) struct DynamicInfo {
    pub(super) descriptor: ComponentDescriptor,
    pub(super) layout: Layout,
    pub(super) codec: DynamicCodec,
}

impl DynamicInfo {
    /// Whether `info` (from a world's registry) is this run-time component: a run-time
    /// component of the descriptor's name, layout and drop nature (the codec's promises and
    /// plain bytes' validity hold only for values of such a component).
    pub(super) fn matches(&self, info: &crate::component::ComponentInfo) -> bool {
        self.same_place(info) && info.drop_fn().is_some() == self.descriptor.drop.is_some()
    }

    /// Whether `info` is a run-time component of the descriptor's name and layout, whatever
    /// its drop nature (one that differs only there is refused, not taken for another).
    pub(super) fn same_place(&self, info: &crate::component::ComponentInfo) -> bool {
        info.type_id().is_none()
            && info.instance().is_none()
            && info.name() == self.descriptor.name
            && info.layout() == self.layout
    }

    /// What a mismatch of drop nature with `info` (of [`DynamicInfo::same_place`]) is.
    pub(super) fn drop_mismatch(&self) -> SnapshotErrorKind {
        SnapshotErrorKind::DropMismatch {
            component: self.descriptor.name.to_string(),
            registry_drops: self.descriptor.drop.is_some(),
        }
    }
}

/// One resource the registry names.
pub(super) struct ResourceEntry {
    pub(super) name: Box<str>,
    pub(super) slot: usize,
    pub(super) type_id: TypeId,
    pub(super) type_name: &'static str,
    pub(super) contains: fn(&Resources) -> bool,
}

/// The typed registrations of a [`SnapshotRegistry`], as a list in its type: `()` for none,
/// `(L, E)` for list `L` followed by entry `E` ([`Typed`] or [`TypedResource`]).
///
/// Implemented by this module only; name it as `SnapshotRegistry<impl Entries>`.
pub trait Entries: sealed::Sealed + Send + Sync + 'static {
    /// The number of entries.
    const LEN: usize;

    /// Calls `visitor` with the type of entry `slot`.
    #[doc(hidden)]
    fn dispatch<V: TypedVisitor>(&self, slot: usize, visitor: V) -> V::Output;
}

/// A typed component entry of [`Entries`].
pub struct Typed<T>(PhantomData<fn() -> T>);

/// A typed resource entry of [`Entries`].
pub struct TypedResource<R>(PhantomData<fn() -> R>);

/// Code to run with an entry's type (what [`Entries::dispatch`] calls).
#[doc(hidden)]
pub trait TypedVisitor {
    /// What the visit returns.
    type Output;
    /// The entry is component `T`.
    fn component<T: Component + Serialize + DeserializeOwned>(self) -> Self::Output;
    /// The entry is resource `R`.
    fn resource<R: Resource + Serialize + DeserializeOwned>(self) -> Self::Output;
}

/// An entry of the list: knows how to call a visitor with its type.
#[doc(hidden)]
pub trait Entry: Send + Sync + 'static {
    /// Calls the visitor's method for this entry's type.
    fn accept<V: TypedVisitor>(visitor: V) -> V::Output;
}

impl<T: Component + Serialize + DeserializeOwned> Entry for Typed<T> {
    fn accept<V: TypedVisitor>(visitor: V) -> V::Output {
        visitor.component::<T>()
    }
}

impl<R: Resource + Serialize + DeserializeOwned> Entry for TypedResource<R> {
    fn accept<V: TypedVisitor>(visitor: V) -> V::Output {
        visitor.resource::<R>()
    }
}

impl Entries for () {
    const LEN: usize = 0;

    fn dispatch<V: TypedVisitor>(&self, slot: usize, _: V) -> V::Output {
        unreachable!("entry {slot} is not in the type list (entries come from the registry)")
    }
}

impl<L: Entries, E: Entry> Entries for (L, E) {
    const LEN: usize = L::LEN + 1;

    #[inline]
    fn dispatch<V: TypedVisitor>(&self, slot: usize, visitor: V) -> V::Output {
        if slot == L::LEN {
            E::accept(visitor)
        } else {
            self.0.dispatch(slot, visitor)
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
    impl<L: Sealed, E> Sealed for (L, E) {}
}

/// A value of any resource type, for the loader's staging.
pub(super) type BoxedResource = Box<dyn Any + Send + Sync>;
