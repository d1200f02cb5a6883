//! [`Mut`]: a mutable access that records a change when, and only when, it writes.

use std::fmt;
use std::ops::{Deref, DerefMut};

use super::ChangeLog;
use crate::component::Component;
use crate::entity::Entity;

/// A mutable reference to an entity's `T` that marks the component changed on the first
/// write (the first [`DerefMut`]), or by hand with [`Mut::set_changed`].
///
/// Reading through it ([`Deref`]) is not a change. For a type that does not track changes
/// (its [`Component::Mutability`] is [`Mutable`](crate::Mutable)) the guard is a plain
/// reference: the marking branch is removed at compile time.
///
/// Obtain one from a query (`Query<Mut<T>>`, `world.query::<Mut<T>>()`) or from
/// [`World::get_mut_tracked`](crate::World::get_mut_tracked).
///
/// ```
/// # use ecs_core::{World, Component, Mut, Changed, testing::VecStorage};
/// #[derive(Component)]
/// #[component(track_changes)]
/// struct Hp(u32);
/// let mut world = World::<VecStorage>::new();
/// let e = world.spawn((Hp(10),));
/// let mut changed = world.query_state::<&Hp, Changed<Hp>>().unwrap();
/// assert_eq!(changed.iter(&world).count(), 1, "first run: everything is new");
///
/// let hp = world.get_mut_tracked::<Hp>(e).unwrap();
/// assert_eq!(hp.0, 10); // a read is not a change
/// drop(hp);
/// assert_eq!(changed.iter(&world).count(), 0);
///
/// world.get_mut_tracked::<Hp>(e).unwrap().0 -= 2; // a write is
/// assert_eq!(changed.iter(&world).count(), 1);
/// ```
pub struct Mut<'w, T: Component> {
    value: &'w mut T,
    /// Where to record the change; `None` once recorded (or for untracked types).
    pending: Option<(&'w ChangeLog, Entity)>,
}

impl<'w, T: Component> Mut<'w, T> {
    /// Wraps `value`, which is `entity`'s component; writes are recorded in `log`.
    ///
    /// `log` must be `T`'s *changed* log for tracking to be meaningful; `None` makes a guard
    /// that never records (right for untracked types).
    #[inline(always)]
    pub fn new(value: &'w mut T, log: Option<&'w ChangeLog>, entity: Entity) -> Mut<'w, T> {
        Mut {
            value,
            pending: if crate::component::tracks_changes::<T>() {
                log.map(|log| (log, entity))
            } else {
                None
            },
        }
    }

    /// Marks the component changed without writing it (e.g. after changing something it
    /// refers to). Marking twice is the same as once.
    #[inline]
    pub fn set_changed(&mut self) {
        if crate::component::tracks_changes::<T>() {
            if let Some((log, entity)) = self.pending.take() {
                log.mark(entity);
            }
        }
    }

    /// The reference, without recording a change: for writes that systems watching this
    /// component must not react to (caches, bookkeeping).
    #[inline]
    pub fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }

    /// The reference for the rest of `'w`, recording a change now (the caller can write at
    /// any later point).
    #[inline]
    pub fn into_inner(mut self) -> &'w mut T {
        self.set_changed();
        self.value
    }
}

impl<T: Component> Deref for Mut<'_, T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: Component> DerefMut for Mut<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

impl<T: Component + fmt::Debug> fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Mut").field(&self.value).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::ChangeKind;

    struct Tracked(u32);
    impl Component for Tracked {
        type Mutability = crate::component::Tracked;
    }
    struct Plain(u32);
    impl Component for Plain {
        type Mutability = crate::component::Mutable;
    }

    fn setup() -> (super::super::TrackedLogs, super::super::Reader) {
        let logs = super::super::TrackedLogs::default();
        let cursor = logs.get(ChangeKind::Changed).lock().register_reader();
        (logs, cursor)
    }

    #[test]
    fn marks_on_first_write_only() {
        let (logs, _cursor) = setup();
        let log = logs.get(ChangeKind::Changed);
        let e = Entity::new(1, 1).unwrap();
        let mut value = Tracked(1);
        let mut guard = Mut::new(&mut value, Some(log), e);
        assert_eq!(guard.0, 1);
        assert_eq!(log.retained(), 0, "a read is not a change");
        guard.0 = 2;
        guard.0 = 3;
        assert_eq!(log.retained(), 1);
        assert_eq!(value.0, 3);
    }

    #[test]
    fn bypass_and_by_hand() {
        let (logs, _cursor) = setup();
        let log = logs.get(ChangeKind::Changed);
        let e = Entity::new(1, 1).unwrap();
        let mut value = Tracked(1);
        let mut guard = Mut::new(&mut value, Some(log), e);
        guard.bypass_change_detection().0 = 5;
        assert_eq!(log.retained(), 0);
        guard.set_changed();
        assert_eq!(log.retained(), 1);
    }

    #[test]
    fn untracked_types_never_mark() {
        let (logs, _cursor) = setup();
        let log = logs.get(ChangeKind::Changed);
        let mut value = Plain(1);
        let mut guard = Mut::new(&mut value, Some(log), Entity::new(1, 1).unwrap());
        guard.0 = 2;
        guard.set_changed();
        assert_eq!(log.retained(), 0);
        assert_eq!(value.0, 2);
    }
}
