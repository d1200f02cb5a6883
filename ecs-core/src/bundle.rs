//! Bundles: the tuples of components `spawn` takes.
//!
//! A bundle type is resolved once per world into a [`BundleInfo`] (its component ids in tuple
//! order, checked for duplicates); backends key their per-bundle caches (the target archetype,
//! the column of each field) by [`BundleId`], so spawning a known bundle resolves its layout
//! once per bundle type, not once per entity.

use std::any::TypeId;

use crate::component::{Component, ComponentId, Components, TypeIdMap, TypeSlots};

/// Receives the values of a bundle one by one, typed.
///
/// Backends implement it to write each value straight into its column or sparse set.
pub trait BundleVisitor {
    /// Takes ownership of field `index` (tuple order) of the bundle.
    fn visit<T: Component>(&mut self, index: usize, value: T);
}

/// A set of components spawned or inserted together: tuples of up to 16 components.
///
/// # Safety
/// [`Bundle::component_ids`] registers and appends `T_i`'s id for each field `i` (of type
/// `T_i`), in field order, the same on every call; [`Bundle::visit`] calls
/// `visitor.visit::<T_i>(i, field_i)` exactly once per field, in that order. Backends write
/// the value they are handed with index `i` into the storage of the bundle's `i`-th
/// component without checking its type.
pub unsafe trait Bundle: Send + Sync + 'static {
    /// Whether any field's type tracks changes ([`Component::TRACK_CHANGES`]): spawning a
    /// bundle without one skips change bookkeeping at compile time.
    const TRACKS_CHANGES: bool = true;

    /// Registers the bundle's components and appends their ids, in field order.
    fn component_ids(components: &mut Components, out: &mut Vec<ComponentId>);
    /// Hands every field to the visitor.
    fn visit(self, visitor: &mut impl BundleVisitor);
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
/// `recent` fronts `by_type` (see [`TypeSlots`]).
#[derive(Default, Debug)]
pub(crate) struct Bundles {
    infos: Vec<BundleInfo>,
    by_type: TypeIdMap<u32>,
    /// Fast path in front of `by_type`: every spawn resolves its bundle type.
    recent: TypeSlots,
}

impl Bundles {
    /// The info of bundle `B`, resolved (and its components registered) on first use.
    ///
    /// # Panics
    /// If `B` names a component twice.
    #[inline]
    pub(crate) fn info<B: Bundle>(&mut self, components: &mut Components) -> &BundleInfo {
        let index = match self.recent.get(TypeId::of::<B>()) {
            Some(index) => index,
            None => self.resolve::<B>(components),
        };
        &self.infos[index as usize]
    }

    #[cold]
    #[inline(never)]
    fn resolve<B: Bundle>(&mut self, components: &mut Components) -> u32 {
        let key = TypeId::of::<B>();
        if let Some(&index) = self.by_type.get(&key) {
            return index;
        }
        let index = u32::try_from(self.infos.len()).expect("more than 2^32 bundle types");
        let info = BundleInfo::new::<B>(index, components).unwrap_or_else(|name| {
            panic!(
                "bundle {} names component {name} twice",
                std::any::type_name::<B>()
            )
        });
        self.infos.push(info);
        self.by_type.insert(key, index);
        self.recent.remember(key, index);
        index
    }
}

/// A bundle type resolved against a world's registry.
#[derive(Clone, Debug)]
pub struct BundleInfo {
    id: BundleId,
    components: Box<[ComponentId]>,
}

impl BundleInfo {
    /// Resolves bundle `B` as the bundle with id `index`.
    ///
    /// Returns the name of a component that appears twice, which no entity can hold.
    pub fn new<B: Bundle>(index: u32, components: &mut Components) -> Result<BundleInfo, String> {
        let mut ids = Vec::new();
        B::component_ids(components, &mut ids);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(components.info(w[0]).name().to_owned());
        }
        Ok(BundleInfo {
            id: BundleId(index),
            components: ids.into_boxed_slice(),
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
        // SAFETY: ids are registered and values visited in the same field order and types.
        unsafe impl<$($name: Component),*> Bundle for ($($name,)*) {
            const TRACKS_CHANGES: bool = false $(|| $name::TRACK_CHANGES)*;

            #[allow(unused_variables)]
            fn component_ids(components: &mut Components, out: &mut Vec<ComponentId>) {
                $(out.push(components.register::<$name>());)*
            }
            #[allow(unused_variables)]
            #[inline(always)]
            fn visit(self, visitor: &mut impl BundleVisitor) {
                $(visitor.visit::<$name>($index, self.$index);)*
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
    impl Component for X {}
    struct Y;
    impl Component for Y {}

    #[test]
    fn ids_in_field_order_and_duplicates_rejected() {
        let mut c = Components::default();
        let y = c.register::<Y>();
        let info = BundleInfo::new::<(X, Y)>(0, &mut c).unwrap();
        assert_eq!(info.components(), &[c.id::<X>().unwrap(), y]);
        let err = BundleInfo::new::<(X, Y, X)>(1, &mut c).unwrap_err();
        assert!(err.ends_with("X"));
    }

    #[test]
    fn visit_order_matches() {
        struct Rec(Vec<usize>);
        impl BundleVisitor for Rec {
            fn visit<T: Component>(&mut self, index: usize, _value: T) {
                self.0.push(index);
            }
        }
        let mut r = Rec(Vec::new());
        (X(1), Y, X(2)).visit(&mut r);
        assert_eq!(r.0, vec![0, 1, 2]);
        let _ = X(0).0;
    }
}
