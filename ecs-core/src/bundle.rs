//! Bundles: the sets of components `spawn` and `insert` take and `remove` and `take` hand back.
//!
//! A bundle is one of:
//! * a single component (`impl<T: Component> Bundle for T`);
//! * a tuple of up to 16 bundles, `(A, B)` or `(A, (B, C))`;
//! * a struct with `#[derive(Bundle)]`, whose fields are components or `#[bundle]` nested
//!   bundles.
//!
//! Nested bundles *flatten*: `(A, (B, C))` holds the components `A`, `B`, `C`, as field 0, 1
//! and 2 of one list, so storing one costs what storing the flat tuple `(A, B, C)` costs. A
//! component type may appear only once in that list.
//!
//! A bundle type is resolved once per world into a [`BundleInfo`] (its component ids in field
//! order, checked for duplicates); backends key their per-bundle caches (the target archetype,
//! the column of each field) by [`BundleId`], so spawning a known bundle resolves its layout
//! once per bundle type, not once per entity.

use std::any::TypeId;
use std::ptr::NonNull;

use crate::component::{Component, ComponentId, Components, Reactions, TypeIdMap, TypeSlots};
use crate::error::EcsError;

/// Receives the values of a bundle one by one, typed.
///
/// Backends implement it to write each value straight into its column or sparse set.
pub trait BundleVisitor {
    /// Takes ownership of field `index` (of the flattened field list) of the bundle.
    fn visit<T: Component>(&mut self, index: usize, value: T);
}

/// A visitor that hands a nested bundle's fields on to another visitor, shifted by `first`:
/// the index the nested bundle's first field has in the enclosing bundle's flattened list.
///
/// The tuple impls and `#[derive(Bundle)]` visit a nested bundle through it; the shift is a
/// constant once inlined, so a nested bundle is stored as fast as a flat one.
///
/// ```
/// use ecs_core::bundle::{Bundle, BundleVisitor, OffsetVisitor};
/// use ecs_core::Component;
/// #[derive(Component)]
/// struct A;
/// #[derive(Component)]
/// struct B;
///
/// struct Indices(Vec<usize>);
/// impl BundleVisitor for Indices {
///     fn visit<T: Component>(&mut self, index: usize, _value: T) {
///         self.0.push(index);
///     }
/// }
/// let mut seen = Indices(Vec::new());
/// // As if (A, B) were the fields 3 and 4 of an enclosing bundle.
/// (A, B).visit(&mut OffsetVisitor::new(&mut seen, 3));
/// assert_eq!(seen.0, vec![3, 4]);
/// ```
pub struct OffsetVisitor<'a, V: BundleVisitor> {
    inner: &'a mut V,
    first: usize,
}

impl<'a, V: BundleVisitor> OffsetVisitor<'a, V> {
    /// Forwards to `inner`, adding `first` to every index.
    #[inline(always)]
    pub fn new(inner: &'a mut V, first: usize) -> Self {
        OffsetVisitor { inner, first }
    }
}

impl<V: BundleVisitor> BundleVisitor for OffsetVisitor<'_, V> {
    #[inline(always)]
    fn visit<T: Component>(&mut self, index: usize, value: T) {
        self.inner.visit(self.first + index, value);
    }
}

/// Receives the values of a bundle being inserted, one by one, and hands back what each
/// replaced ([`World::insert`](crate::World::insert) implements it for one entity).
///
/// ```
/// use ecs_core::bundle::{Bundle, ComponentInserter};
/// use ecs_core::Component;
/// #[derive(Component)]
/// struct A(u8);
/// #[derive(Component)]
/// struct B(u8);
///
/// /// Stores nothing: records the types and hands every value back as "replaced".
/// struct Names(Vec<&'static str>);
/// impl ComponentInserter for Names {
///     fn insert<T: Component>(&mut self, value: T) -> Option<T> {
///         self.0.push(std::any::type_name::<T>());
///         Some(value)
///     }
/// }
/// let mut names = Names(Vec::new());
/// let (a, b) = (A(1), B(2)).insert_into(&mut names);
/// assert_eq!(a.unwrap().0 + b.unwrap().0, 3);
/// assert!(names.0[0].ends_with("A") && names.0[1].ends_with("B"));
/// ```
pub trait ComponentInserter {
    /// Stores `value` as the target's `T`, returning the `T` it replaced.
    fn insert<T: Component>(&mut self, value: T) -> Option<T>;
}

/// Hands out the values a bundle is rebuilt from, one by one
/// ([`World::remove`](crate::World::remove) and [`World::take`](crate::World::take)
/// implement it for one entity).
///
/// ```
/// use std::any::Any;
/// use ecs_core::bundle::{Bundle, ComponentSource};
/// use ecs_core::{Component, EcsError, Entity};
/// #[derive(Component, Debug, PartialEq)]
/// struct A(u8);
/// #[derive(Component, Debug, PartialEq)]
/// struct B(u8);
///
/// /// Loose values, handed out by type.
/// struct Bag(Vec<Box<dyn Any>>);
/// impl ComponentSource for Bag {
///     fn take<T: Component>(&mut self) -> Result<T, EcsError> {
///         let missing = EcsError::MissingComponent {
///             entity: Entity::new(0, 1).unwrap(),
///             component: std::any::type_name::<T>().into(),
///         };
///         let at = self.0.iter().position(|v| v.is::<T>()).ok_or(missing)?;
///         Ok(*self.0.swap_remove(at).downcast::<T>().unwrap())
///     }
/// }
/// let mut bag = Bag(vec![Box::new(B(2)), Box::new(A(1))]);
/// assert_eq!(<(A, B)>::take_from(&mut bag).unwrap(), (A(1), B(2)));
/// assert!(A::take_from(&mut bag).is_err(), "the bag is empty");
/// ```
pub trait ComponentSource {
    /// Takes the source's `T`.
    ///
    /// # Errors
    /// When the source has no `T` (a world's entity answers
    /// [`EcsError::MissingComponent`]).
    fn take<T: Component>(&mut self) -> Result<T, EcsError>;
}

/// A set of components spawned, inserted, removed or taken together: a component, a tuple of
/// bundles (up to 16), or a struct with `#[derive(Bundle)]` (see the [module docs](self)).
///
/// ```
/// use ecs_core::{Bundle, Component, World, testing::VecStorage};
/// #[derive(Component, Debug, PartialEq)]
/// struct Pos(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Vel(f32);
/// #[derive(Bundle)]
/// struct Body { pos: Pos, vel: Vel }
///
/// assert_eq!(<Body as Bundle>::COUNT, 2);
/// assert_eq!(<(Pos, (Vel,))>::COUNT, 2);
/// let mut world = World::<VecStorage>::new();
/// let e = world.spawn(Body { pos: Pos(0.0), vel: Vel(1.0) });
/// let replaced: (Option<Pos>, Option<Vel>) = world.insert(e, (Pos(2.0), Vel(3.0))).unwrap();
/// assert_eq!(replaced, (Some(Pos(0.0)), Some(Vel(1.0))));
/// ```
///
/// # Safety
/// Backends write the value of field `i` into the storage of component `i` without checking
/// its type, so an implementation promises:
/// * [`Bundle::COUNT`] is the number of ids [`Bundle::component_ids`] appends;
/// * [`Bundle::component_ids`] changes the registry it is handed only by registering
///   components (through [`Components::register`] and the other `register` methods): every
///   id already handed out keeps its meaning, which the storage relies on for its columns;
/// * [`Bundle::visit`] calls the visitor exactly once for each index in `0..COUNT`, in
///   increasing order, handing over at index `i` a value of the type whose id
///   `component_ids` appended at position `i`;
/// * [`Bundle::value_ptrs`] appends `COUNT` pointers, the `i`-th to the value inside the
///   bundle that `visit` hands over at index `i` (pointers to distinct values, none
///   overlapping another).
///
/// [`Bundle::insert_into`] and [`Bundle::take_from`] are typed and cannot break memory safety;
/// for [`World::remove`](crate::World::remove) to be all or nothing they must insert or take
/// exactly the components `component_ids` lists, once each (the tuple impls and the derive
/// do).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle",
    label = "not a bundle",
    note = "a bundle is a component, a tuple of bundles, or a struct with `#[derive(Bundle)]`; \
            a type of yours in it that is meant to be a component needs \
            `#[derive(Component)]`"
)]
pub unsafe trait Bundle: Sized + Send + Sync + 'static {
    /// Number of components, nested bundles flattened.
    const COUNT: usize;

    /// Whether any field's type tracks changes
    /// ([`tracks_changes`](crate::component::tracks_changes)): spawning a bundle without one
    /// skips change bookkeeping at compile time.
    const TRACKS_CHANGES: bool = true;

    /// Whether any field's type requires other components
    /// ([`Component::REQUIRES`]): spawning or inserting a
    /// bundle without one skips the requirement check at compile time.
    const REQUIRES: bool = true;

    /// Whether registering the bundle's types can give the world its first lifecycle hook:
    /// a field's type has hooks ([`Component::HOOKS`]) or requires components (which may).
    /// A world checks its reaction flag after resolving such a bundle only.
    const HOOKED: bool = true;

    /// What [`World::insert`](crate::World::insert) hands back: for a component `T`,
    /// `Option<T>` (the value it replaced, if the entity had one); for a tuple or a derived
    /// struct, a tuple of its fields' `Replaced`, in field order.
    type Replaced;

    /// Registers the bundle's components and appends their ids, in field order.
    fn component_ids(components: &mut Components, out: &mut Vec<ComponentId>);
    /// Hands every field to the visitor.
    fn visit(self, visitor: &mut impl BundleVisitor);
    /// Hands every field to the inserter, in field order, collecting what each replaced.
    fn insert_into(self, inserter: &mut impl ComponentInserter) -> Self::Replaced;
    /// Builds the bundle from values taken from `source`, in field order.
    ///
    /// # Errors
    /// The first error of [`ComponentSource::take`]; values taken before it are dropped.
    fn take_from(source: &mut impl ComponentSource) -> Result<Self, EcsError>;

    /// Calls `out` with a pointer to each component value inside `*this`, in field order
    /// (the order of [`Bundle::component_ids`]): how a type-erased caller (a queued command)
    /// hands all of a bundle's values to the storage at once, moving each out exactly where
    /// it is.
    ///
    /// # Safety
    /// `this` points to a bundle, valid for reads and writes while the pointers are used.
    unsafe fn value_ptrs(this: NonNull<Self>, out: &mut dyn FnMut(NonNull<u8>));
}

// SAFETY: one component: one id, and one visit, at index 0, as `T`.
unsafe impl<T: Component> Bundle for T {
    const COUNT: usize = 1;
    const TRACKS_CHANGES: bool = crate::component::tracks_changes::<T>();
    const REQUIRES: bool = T::REQUIRES;
    const HOOKED: bool = T::HOOKS.any() || T::REQUIRES;
    type Replaced = Option<T>;

    fn component_ids(components: &mut Components, out: &mut Vec<ComponentId>) {
        out.push(components.register::<T>());
    }
    #[inline(always)]
    fn visit(self, visitor: &mut impl BundleVisitor) {
        visitor.visit::<T>(0, self);
    }
    #[inline(always)]
    fn insert_into(self, inserter: &mut impl ComponentInserter) -> Option<T> {
        inserter.insert(self)
    }
    #[inline(always)]
    fn take_from(source: &mut impl ComponentSource) -> Result<T, EcsError> {
        source.take::<T>()
    }
    #[inline(always)]
    unsafe fn value_ptrs(this: NonNull<T>, out: &mut dyn FnMut(NonNull<u8>)) {
        out(this.cast());
    }
}

/// The dense id of a bundle type within one world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BundleId(u32);

impl BundleId {
    /// The id as an array index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The bundle types a world has resolved, by type.
///
/// # Invariant
/// `by_type[TypeId::of::<B>()] == i` exactly when `infos[i]` is `B`'s info (whose id is `i`);
/// `recent` fronts `by_type` (see [`TypeSlots`]). `infos[0]` is the empty bundle `()`'s
/// (resolved when the set is made: it names no component, so it needs no registry).
#[derive(Debug)]
pub(crate) struct Bundles {
    infos: Vec<BundleInfo>,
    by_type: TypeIdMap<u32>,
    /// Fast path in front of `by_type`: every spawn resolves its bundle type.
    recent: TypeSlots,
    /// For each bundle whose types require components beyond its own: those, transitively,
    /// nearest first (see [`crate::component::required`]). Beside `infos`, so a world
    /// without requirements holds nothing for them.
    required: Vec<(BundleId, std::sync::Arc<[crate::component::Requirement]>)>,
    /// [`Reactions::changes`] when every bundle's `reacts` flag was last brought in step.
    reactions_seen: u64,
}

impl Default for Bundles {
    fn default() -> Self {
        let mut by_type = TypeIdMap::default();
        by_type.insert(TypeId::of::<()>(), 0);
        Bundles {
            infos: vec![BundleInfo {
                id: BundleId(0),
                components: Box::new([]),
                reacts: false,
            }],
            by_type,
            recent: TypeSlots::default(),
            required: Vec::new(),
            reactions_seen: 0,
        }
    }
}

impl Bundles {
    /// The info of bundle `B`, resolved (and its components registered) on first use.
    ///
    /// `()`, what `spawn(())` creates an empty entity with, is answered without a look-up:
    /// the type comparison folds away when the code is generated, leaving `infos[0]`.
    ///
    /// # Panics
    /// If `B` names a component twice.
    #[inline]
    pub(crate) fn info<B: Bundle>(&mut self, components: &mut Components) -> &BundleInfo {
        if TypeId::of::<B>() == TypeId::of::<()>() {
            return &self.infos[0];
        }
        let index = match self.recent.get(TypeId::of::<B>()) {
            Some(index) => index,
            None => self.resolve::<B>(components),
        };
        &self.infos[index as usize]
    }

    #[cold]
    #[inline(never)]
    fn resolve<B: Bundle>(&mut self, components: &mut Components) -> u32 {
        self.resolve_erased(&BundleType::of::<B>(), components)
    }

    /// The components bundle `id`'s types require beyond its own (transitively, nearest
    /// first), which the world adds to an entity that gets the bundle and lacks them.
    pub(crate) fn required(
        &self,
        id: BundleId,
    ) -> Option<&std::sync::Arc<[crate::component::Requirement]>> {
        self.required
            .iter()
            .find(|(of, _)| *of == id)
            .map(|(_, list)| list)
    }

    /// Whether bundle `B`, resolved before, is known to have no component (nor required
    /// one) that reacts: `false` when it reacts or was not resolved yet (or not lately:
    /// the fast slots only are asked), and the caller asks the slow way.
    #[inline(always)]
    pub(crate) fn known_quiet<B: Bundle>(&self) -> bool {
        if TypeId::of::<B>() == TypeId::of::<()>() {
            return true;
        }
        self.recent
            .get(TypeId::of::<B>())
            .is_some_and(|index| !self.infos[index as usize].reacts)
    }

    /// Whether bundle `id` reacts, as last refreshed (see [`BundleInfo`]'s `reacts`).
    #[inline]
    pub(crate) fn bundle_reacts(&self, id: BundleId) -> bool {
        self.infos[id.index()].reacts
    }

    /// Brings every bundle's reaction flag in step with `reactions` (the world calls it
    /// wherever its reactions may have changed).
    pub(crate) fn refresh_reactions(&mut self, reactions: &Reactions) {
        if self.reactions_seen == reactions.changes() {
            return;
        }
        self.reactions_seen = reactions.changes();
        for i in 0..self.infos.len() {
            let reacts = self.reacts(&self.infos[i], reactions);
            self.infos[i].reacts = reacts;
        }
    }

    /// Whether a component of `info`, or one it requires, has a hook or an observer.
    fn reacts(&self, info: &BundleInfo, reactions: &Reactions) -> bool {
        if !reactions.any() {
            return false;
        }
        let reacting = |id: ComponentId| reactions.get(id).is_some();
        info.components.iter().any(|&c| reacting(c))
            || self
                .required(info.id)
                .is_some_and(|required| required.iter().any(|r| reacting(r.id())))
    }

    /// The components of bundle `id`, in field order.
    pub(crate) fn components_of(&self, id: BundleId) -> &[ComponentId] {
        self.infos[id.index()].components()
    }

    /// [`Bundles::info`] for a bundle type known only at run time (a queued command's).
    ///
    /// # Panics
    /// If the bundle names a component twice.
    pub(crate) fn info_erased(
        &mut self,
        ty: &BundleType,
        components: &mut Components,
    ) -> &BundleInfo {
        let index = match self.recent.get(ty.key) {
            Some(index) => index,
            None => self.resolve_erased(ty, components),
        };
        &self.infos[index as usize]
    }

    fn resolve_erased(&mut self, ty: &BundleType, components: &mut Components) -> u32 {
        if let Some(&index) = self.by_type.get(&ty.key) {
            return index;
        }
        let index = u32::try_from(self.infos.len()).expect("more than 2^32 bundle types");
        let info = BundleInfo::of_type(ty, index, components)
            .unwrap_or_else(|name| panic!("bundle {} names component {name} twice", ty.name));
        let required = components.required_by(info.components());
        if let Some(cycle) = components.requirement_cycle_among(info.components(), &required) {
            crate::component::required::refuse_cycle(cycle);
        }
        if !required.is_empty() {
            self.required.push((info.id(), required.into()));
        }
        let mut info = info;
        info.reacts = self.reacts(&info, components.reactions());
        self.infos.push(info);
        self.by_type.insert(ty.key, index);
        self.recent.remember(ty.key, index);
        index
    }
}

/// A component named twice in `ids`, if any: pairwise for a bundle of a few components (no
/// allocation), through a sorted copy beyond.
fn first_repeated(ids: &[ComponentId]) -> Option<ComponentId> {
    const PAIRWISE: usize = 16;
    if ids.len() <= PAIRWISE {
        return ids
            .iter()
            .enumerate()
            .find(|&(i, id)| ids[..i].contains(id))
            .map(|(_, &id)| id);
    }
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

/// What the world needs of a bundle type whose Rust type is forgotten (a queued command's):
/// its identity, its components' registration, and where its values are inside a value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BundleType {
    pub(crate) key: TypeId,
    pub(crate) name: &'static str,
    pub(crate) count: usize,
    pub(crate) component_ids: fn(&mut Components, &mut Vec<ComponentId>),
    /// [`Bundle::value_ptrs`] of the type, on an erased pointer.
    pub(crate) value_ptrs: ValuePtrsFn,
    /// [`Bundle::REQUIRES`] of the type.
    pub(crate) requires: bool,
    /// [`Bundle::HOOKED`] of the type.
    pub(crate) hooked: bool,
}

/// [`Bundle::value_ptrs`] of a forgotten bundle type.
///
/// # Safety
/// As for [`Bundle::value_ptrs`], the pointer being to a bundle of the function's type.
pub(crate) type ValuePtrsFn = unsafe fn(NonNull<u8>, &mut dyn FnMut(NonNull<u8>));

impl BundleType {
    /// Bundle `B`'s description.
    pub(crate) fn of<B: Bundle>() -> BundleType {
        /// `B::value_ptrs` on a pointer to a `B`.
        ///
        /// # Safety
        /// As for [`Bundle::value_ptrs`], `this` pointing to a `B`.
        unsafe fn value_ptrs<B: Bundle>(this: NonNull<u8>, out: &mut dyn FnMut(NonNull<u8>)) {
            // SAFETY: forwarded contract.
            unsafe { B::value_ptrs(this.cast(), out) }
        }
        BundleType {
            key: TypeId::of::<B>(),
            name: std::any::type_name::<B>(),
            count: B::COUNT,
            component_ids: B::component_ids,
            value_ptrs: value_ptrs::<B>,
            requires: B::REQUIRES,
            hooked: B::HOOKED,
        }
    }
}

/// A bundle type resolved against a world's registry.
#[derive(Clone, Debug)]
pub struct BundleInfo {
    id: BundleId,
    components: Box<[ComponentId]>,
    /// Whether one of the bundle's components, or one it requires, has a hook or an
    /// observer: kept by [`Bundles::refresh_reactions`] whenever the world's reactions
    /// change, so an operation on a bundle that does not react leaves the reacting path
    /// after a few loads.
    reacts: bool,
}

impl BundleInfo {
    /// Resolves bundle `B` as the bundle with id `index`.
    ///
    /// Returns the name of a component that appears twice, which no entity can hold.
    pub fn new<B: Bundle>(index: u32, components: &mut Components) -> Result<BundleInfo, String> {
        BundleInfo::of_type(&BundleType::of::<B>(), index, components)
    }

    /// [`BundleInfo::new`] from a bundle's erased description.
    fn of_type(
        ty: &BundleType,
        index: u32,
        components: &mut Components,
    ) -> Result<BundleInfo, String> {
        let mut ids = Vec::with_capacity(ty.count);
        (ty.component_ids)(components, &mut ids);
        assert_eq!(
            ids.len(),
            ty.count,
            "Bundle::COUNT of {} disagrees with its component_ids",
            ty.name
        );
        if let Some(twice) = first_repeated(&ids) {
            return Err(components.info(twice).name().to_owned());
        }
        Ok(BundleInfo {
            id: BundleId(index),
            components: ids.into_boxed_slice(),
            reacts: false,
        })
    }

    /// The bundle's id.
    #[inline]
    pub fn id(&self) -> BundleId {
        self.id
    }

    /// Component ids in field order.
    #[inline]
    pub fn components(&self) -> &[ComponentId] {
        &self.components
    }
}

macro_rules! tuple_bundle {
    ($($name:ident $index:tt),*) => {
        // SAFETY: the elements' ids are appended in element order and `COUNT` adds up the
        // elements' counts; `visit` visits each element once, in order, shifted by the counts
        // of the elements before it: the indices its own visit uses (sound, by its impl),
        // moved to where its ids are in the list.
        unsafe impl<$($name: Bundle),*> Bundle for ($($name,)*) {
            const COUNT: usize = 0 $(+ $name::COUNT)*;
            const TRACKS_CHANGES: bool = false $(|| $name::TRACKS_CHANGES)*;
            const REQUIRES: bool = false $(|| $name::REQUIRES)*;
            const HOOKED: bool = false $(|| $name::HOOKED)*;
            type Replaced = ($($name::Replaced,)*);

            #[allow(unused_variables)]
            fn component_ids(components: &mut Components, out: &mut Vec<ComponentId>) {
                $($name::component_ids(components, out);)*
            }
            #[allow(unused_variables)]
            #[inline(always)]
            fn visit(self, visitor: &mut impl BundleVisitor) {
                let first = 0;
                $(
                    self.$index.visit(&mut OffsetVisitor::new(&mut *visitor, first));
                    #[allow(unused_variables)]
                    let first = first + $name::COUNT;
                )*
            }
            #[allow(unused_variables, clippy::unused_unit)]
            #[inline(always)]
            fn insert_into(self, inserter: &mut impl ComponentInserter) -> Self::Replaced {
                ($(self.$index.insert_into(inserter),)*)
            }
            #[allow(unused_variables)]
            #[inline(always)]
            fn take_from(source: &mut impl ComponentSource) -> Result<Self, EcsError> {
                Ok(($($name::take_from(source)?,)*))
            }
            #[allow(unused_variables)]
            #[inline(always)]
            unsafe fn value_ptrs(this: NonNull<Self>, out: &mut dyn FnMut(NonNull<u8>)) {
                $(
                    // SAFETY: `this` points to a valid tuple (caller), so the address of
                    // its element is in bounds and not null; the element's own call has
                    // the same contract.
                    unsafe {
                        let element = std::ptr::addr_of_mut!((*this.as_ptr()).$index);
                        $name::value_ptrs(NonNull::new_unchecked(element), out);
                    }
                )*
            }
        }
    };
}

tuple_bundle!();
tuple_bundle!(A 0);
tuple_bundle!(A 0, B 1);
tuple_bundle!(A 0, B 1, C 2);
tuple_bundle!(A 0, B 1, C 2, D 3);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);

#[cfg(test)]
mod tests {
    use super::*;

    struct X(u8);
    impl Component for X {
        type Mutability = crate::component::Mutable;
    }
    struct Y;
    impl Component for Y {
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn ids_in_field_order_and_duplicates_rejected() {
        let mut c = Components::default();
        let y = c.register::<Y>();
        let info = BundleInfo::new::<(X, Y)>(0, &mut c).unwrap();
        assert_eq!(info.components(), &[c.id::<X>().unwrap(), y]);
        let err = BundleInfo::new::<(X, Y, X)>(1, &mut c).unwrap_err();
        assert!(err.ends_with("X"));
    }

    #[derive(crate::Component)]
    #[component(track_changes)]
    struct Z;

    #[derive(crate::Bundle)]
    struct Inner {
        y: Y,
        z: Z,
    }

    #[derive(crate::Bundle)]
    struct Outer(X, #[bundle] Inner, #[bundle] (), #[bundle] (Y2,));

    struct Y2;
    impl Component for Y2 {
        type Mutability = crate::component::Mutable;
    }

    /// Records (index, type name) of every visit.
    struct Rec(Vec<(usize, &'static str)>);
    impl BundleVisitor for Rec {
        fn visit<T: Component>(&mut self, index: usize, _value: T) {
            self.0.push((index, std::any::type_name::<T>()));
        }
    }

    /// Visits `bundle` and checks each index names the type `component_ids` put there.
    fn check_visit_matches_ids<B: Bundle>(bundle: B) -> usize {
        let mut c = Components::default();
        let mut ids = Vec::new();
        B::component_ids(&mut c, &mut ids);
        assert_eq!(ids.len(), B::COUNT);
        let mut r = Rec(Vec::new());
        bundle.visit(&mut r);
        let indices: Vec<usize> = r.0.iter().map(|&(i, _)| i).collect();
        assert_eq!(indices, (0..B::COUNT).collect::<Vec<_>>());
        for (index, name) in r.0 {
            assert_eq!(c.info(ids[index]).name(), name, "field {index}");
        }
        B::COUNT
    }

    #[test]
    fn nested_bundles_flatten_in_field_order() {
        assert_eq!(check_visit_matches_ids((X(1), (Y, (X2, Y2)), ())), 4);
        assert_eq!(check_visit_matches_ids(((), ((),), X(0))), 1);
        assert_eq!(check_visit_matches_ids(X(3)), 1);
        let outer = Outer(X(1), Inner { y: Y, z: Z }, (), (Y2,));
        assert_eq!(check_visit_matches_ids(outer), 4);
        assert_eq!(check_visit_matches_ids(((Inner { y: Y, z: Z },), X(2))), 3);
    }

    struct X2;
    impl Component for X2 {
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn tracking_is_the_or_of_the_fields() {
        const {
            assert!(!<(X, Y)>::TRACKS_CHANGES);
            assert!(<(X, (Y, Z))>::TRACKS_CHANGES);
            assert!(<Inner as Bundle>::TRACKS_CHANGES && <Outer as Bundle>::TRACKS_CHANGES);
            assert!(!<() as Bundle>::TRACKS_CHANGES && !<X as Bundle>::TRACKS_CHANGES);
        }
    }

    #[test]
    fn nested_duplicates_rejected() {
        let mut c = Components::default();
        let err = BundleInfo::new::<(X, (Y, X))>(0, &mut c).unwrap_err();
        assert!(err.ends_with("X"));
        let err = BundleInfo::new::<(Inner, Y)>(1, &mut c).unwrap_err();
        assert!(err.ends_with("Y"), "{err}");
    }

    /// A bundle whose `COUNT` is wrong (a broken manual impl) is refused when resolved.
    struct Miscounted(X);
    // SAFETY: never visited: the test only resolves it, which must panic first.
    unsafe impl Bundle for Miscounted {
        const COUNT: usize = 2;
        type Replaced = ();
        fn component_ids(components: &mut Components, out: &mut Vec<ComponentId>) {
            out.push(components.register::<X>());
        }
        fn visit(self, visitor: &mut impl BundleVisitor) {
            visitor.visit(0, self.0);
        }
        fn insert_into(self, _: &mut impl ComponentInserter) {}
        fn take_from(source: &mut impl ComponentSource) -> Result<Self, EcsError> {
            source.take().map(Miscounted)
        }
        unsafe fn value_ptrs(this: NonNull<Self>, out: &mut dyn FnMut(NonNull<u8>)) {
            out(this.cast());
        }
    }

    #[test]
    #[should_panic(expected = "disagrees with its component_ids")]
    fn a_wrong_count_is_refused() {
        let _ = BundleInfo::new::<Miscounted>(0, &mut Components::default());
    }

    #[test]
    fn visit_order_matches() {
        struct Indices(Vec<usize>);
        impl BundleVisitor for Indices {
            fn visit<T: Component>(&mut self, index: usize, _value: T) {
                self.0.push(index);
            }
        }
        let mut r = Indices(Vec::new());
        (X(1), Y, X(2)).visit(&mut r);
        assert_eq!(r.0, vec![0, 1, 2]);
        let _ = X(0).0;
    }
}
