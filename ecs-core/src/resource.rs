//! Resources: typed singletons stored in the world (a clock, a score, an asset cache).
//!
//! At most one value per type. [`World::resource`] and [`World::resource_mut`] reach them
//! through the world's borrow; systems name them with [`Res<R>`] / [`ResMut<R>`], and the
//! schedule uses those declarations like component access: a `ResMut<R>` system never runs
//! beside another system naming `R`.
//!
//! No lock: every path to a `&mut R` either holds `&mut World` or is a system parameter
//! fetched by the schedule under its access check (the `unsafe` [`Resources::get_mut_unchecked`]
//! contract). A lock per resource would be paid on every access to guard against what the
//! access check already rules out.

use std::any::{type_name, Any, TypeId};
use std::cell::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::component::TypeIdMap;
use crate::storage::Storage;
use crate::world::World;

/// A type that can be stored as a resource: any `Send + Sync + 'static` type.
pub trait Resource: Send + Sync + 'static {}
impl<T: Send + Sync + 'static> Resource for T {}

/// One stored resource.
struct ResourceCell {
    value: UnsafeCell<Box<dyn Any + Send + Sync>>,
    name: &'static str,
}

// SAFETY: the value is `Send + Sync`; the cell is only written through `&mut Resources` or
// `get_mut_unchecked`, whose contract excludes every concurrent access to that resource.
unsafe impl Sync for ResourceCell {}

/// The resources of one world, by type.
#[derive(Default)]
pub struct Resources {
    cells: TypeIdMap<ResourceCell>,
}

impl Resources {
    /// Stores `value`, returning the value of the same type it replaces.
    pub fn insert<R: Resource>(&mut self, value: R) -> Option<R> {
        let old = self.insert_boxed(TypeId::of::<R>(), type_name::<R>(), Box::new(value));
        old.map(|old| *old.downcast::<R>().expect("stored under its own TypeId"))
    }

    /// Stores a boxed value under `type_id` (which must be the value's type).
    pub(crate) fn insert_boxed(
        &mut self,
        type_id: TypeId,
        name: &'static str,
        value: Box<dyn Any + Send + Sync>,
    ) -> Option<Box<dyn Any + Send + Sync>> {
        debug_assert_eq!((*value).type_id(), type_id);
        let cell = ResourceCell {
            value: UnsafeCell::new(value),
            name,
        };
        self.cells
            .insert(type_id, cell)
            .map(|old| old.value.into_inner())
    }

    /// Removes and returns the `R`.
    pub fn remove<R: Resource>(&mut self) -> Option<R> {
        let cell = self.cells.remove(&TypeId::of::<R>())?;
        Some(
            *cell
                .value
                .into_inner()
                .downcast::<R>()
                .expect("stored under its own TypeId"),
        )
    }

    /// Removes the resource of type `type_id`, dropping it.
    pub(crate) fn remove_by_type_id(&mut self, type_id: TypeId) -> bool {
        self.cells.remove(&type_id).is_some()
    }

    /// Whether an `R` is stored.
    pub fn contains<R: Resource>(&self) -> bool {
        self.cells.contains_key(&TypeId::of::<R>())
    }

    /// The `R`, shared.
    pub fn get<R: Resource>(&self) -> Option<&R> {
        let cell = self.cells.get(&TypeId::of::<R>())?;
        // SAFETY: no `&mut R` exists: those need `&mut self` (excluded by our `&self`) or
        // `get_mut_unchecked`, whose caller promised no concurrent access to `R`.
        let value = unsafe { &*cell.value.get() };
        value.downcast_ref::<R>()
    }

    /// The `R`, exclusive.
    pub fn get_mut<R: Resource>(&mut self) -> Option<&mut R> {
        let cell = self.cells.get_mut(&TypeId::of::<R>())?;
        cell.value.get_mut().downcast_mut::<R>()
    }

    /// The `R`, exclusive, through a shared reference.
    ///
    /// # Safety
    /// While the returned reference lives, nothing else reads or writes this `R` (no other
    /// `get`, `get_mut_unchecked`, or `&mut Resources`).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get_mut_unchecked<R: Resource>(&self) -> Option<&mut R> {
        let cell = self.cells.get(&TypeId::of::<R>())?;
        // SAFETY: exclusive access to this cell's value is the caller's promise.
        let value = unsafe { &mut *cell.value.get() };
        value.downcast_mut::<R>()
    }

    /// Number of resources.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// True when no resource is stored.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.cells.values().map(|c| c.name))
            .finish()
    }
}

impl<S: Storage> World<S> {
    /// Stores a resource (a singleton by type), returning the one it replaces.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// struct Score(u32);
    /// let mut world = World::<VecStorage>::new();
    /// assert!(world.insert_resource(Score(1)).is_none());
    /// assert_eq!(world.insert_resource(Score(2)).map(|s| s.0), Some(1));
    /// ```
    pub fn insert_resource<R: Resource>(&mut self, value: R) -> Option<R> {
        self.resources.insert(value)
    }

    /// The resource of type `R`, if stored.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// struct Gravity(f32);
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Gravity(9.8));
    /// assert_eq!(world.resource::<Gravity>().map(|g| g.0), Some(9.8));
    /// ```
    pub fn resource<R: Resource>(&self) -> Option<&R> {
        self.resources.get::<R>()
    }

    /// The resource of type `R`, mutably.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// struct Score(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Score(0));
    /// world.resource_mut::<Score>().unwrap().0 += 5;
    /// assert_eq!(world.resource::<Score>().unwrap().0, 5);
    /// ```
    pub fn resource_mut<R: Resource>(&mut self) -> Option<&mut R> {
        self.resources.get_mut::<R>()
    }

    /// Removes and returns the resource of type `R`.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// struct Score(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Score(3));
    /// assert_eq!(world.remove_resource::<Score>().map(|s| s.0), Some(3));
    /// assert!(!world.contains_resource::<Score>());
    /// ```
    pub fn remove_resource<R: Resource>(&mut self) -> Option<R> {
        self.resources.remove::<R>()
    }

    /// Whether a resource of type `R` is stored.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// struct Paused;
    /// let mut world = World::<VecStorage>::new();
    /// world.insert_resource(Paused);
    /// assert!(world.contains_resource::<Paused>());
    /// ```
    pub fn contains_resource<R: Resource>(&self) -> bool {
        self.resources.contains::<R>()
    }

    /// Every resource (read-only), e.g. for the system parameters [`Res`] and [`ResMut`].
    pub fn resources(&self) -> &Resources {
        &self.resources
    }
}

/// Shared access to resource `R`, as a system parameter.
///
/// # Panics
/// The system panics when it runs and no `R` is stored.
pub struct Res<'w, R: Resource> {
    pub(crate) value: &'w R,
}

/// Exclusive access to resource `R`, as a system parameter.
///
/// # Panics
/// The system panics when it runs and no `R` is stored.
pub struct ResMut<'w, R: Resource> {
    pub(crate) value: &'w mut R,
}

impl<R: Resource> Deref for Res<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        self.value
    }
}

impl<R: Resource> Deref for ResMut<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        self.value
    }
}

impl<R: Resource> DerefMut for ResMut<'_, R> {
    fn deref_mut(&mut self) -> &mut R {
        self.value
    }
}

impl<R: Resource + fmt::Debug> fmt::Debug for Res<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<R: Resource + fmt::Debug> fmt::Debug for ResMut<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Score(u32);

    #[test]
    fn insert_get_remove() {
        let mut r = Resources::default();
        assert!(r.is_empty());
        assert_eq!(r.insert(Score(1)), None);
        assert_eq!(r.insert(Score(2)), Some(Score(1)));
        r.get_mut::<Score>().unwrap().0 += 1;
        assert_eq!(r.get::<Score>(), Some(&Score(3)));
        assert_eq!(r.len(), 1);
        assert!(format!("{r:?}").contains("Score"));
        assert_eq!(r.remove::<Score>(), Some(Score(3)));
        assert!(!r.contains::<Score>());
    }

    #[test]
    fn unchecked_exclusive_access() {
        let mut r = Resources::default();
        r.insert(Score(1));
        r.insert(String::from("x"));
        let shared = &r;
        // SAFETY: no other access to either resource while these references live.
        let (score, text) = unsafe {
            (
                shared.get_mut_unchecked::<Score>().unwrap(),
                shared.get_mut_unchecked::<String>().unwrap(),
            )
        };
        score.0 = 7;
        text.push('y');
        assert_eq!(r.get::<Score>(), Some(&Score(7)));
        assert_eq!(r.get::<String>().map(String::as_str), Some("xy"));
    }
}
