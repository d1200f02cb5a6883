//! How a component type may be written: [`Mutability`] and its three kinds.
//!
//! Each component type names one kind in [`Component::Mutability`], and the compiler holds
//! every access to it: the kind decides what `&mut T` in a query and
//! [`World::get_mut`](crate::World::get_mut) hand out, or whether they compile at all.
//!
//! | kind | `&mut T` in a query, `get_mut` | `Added<T>` / `Changed<T>` |
//! |---|---|---|
//! | [`Mutable`] (the derive's default) | a plain `&mut T` | do not compile: nothing is recorded |
//! | [`Tracked`] (`#[component(track_changes)]`) | a [`Mut<T>`] that records the first write | see additions and writes |
//! | [`Immutable`] (`#[component(immutable)]`) | do not compile: the value is only replaced whole, with `insert` | with `Immutable<Tracked>`: see additions and replacements |
//!
//! Deciding it by type, not by a flag read at run time, is what lets a query's fetch of an
//! untracked `&mut T` be the bare pointer it always was, and what makes a mistake (a write
//! to an immutable type, a change filter on a type that records nothing) an error of
//! `cargo check` at the user's line, not a panic or a silent miss.

use std::marker::PhantomData;

use super::Component;
use crate::change::{ChangeLog, Mut};
use crate::entity::Entity;

/// The kind of a component's [`Component::Mutability`]: [`Mutable`], [`Tracked`] or
/// [`Immutable`]. Sealed: those three are all there is.
pub trait Mutability: sealed::Sealed + Send + Sync + 'static {
    /// Whether the world records additions and writes (or, for an immutable type,
    /// replacements) for the [`Added`](crate::Added) / [`Changed`](crate::Changed) filters.
    const TRACK_CHANGES: bool;
    /// Whether values may be written in place (false for [`Immutable`]): what run-time
    /// paths (`DynQuery` writes, properties) check, where the type system cannot.
    const MUTABLE: bool;
}

/// A kind whose values may be written in place, and what a mutable access to one is.
#[diagnostic::on_unimplemented(
    message = "this component is immutable: it cannot be borrowed mutably",
    label = "an immutable component",
    note = "an immutable component (`#[component(immutable)]`, `type Mutability = Immutable`) is \
            replaced whole with `insert`, never written in place; `ChildOf` and `Children` \
            change only through the hierarchy API (`set_parent`, `remove_parent`, ...)"
)]
pub trait Writable: Mutability {
    /// The mutable access to a `T`: `&'w mut T`, or a [`Mut<'w, T>`] that records the write.
    type Write<'w, T: Component + 'w>: std::ops::DerefMut<Target = T>;

    /// What a query's fetch keeps to record writes: `()` for a kind that records nothing
    /// (so an untracked `&mut T` fetch is the bare column, no bigger), the changed log for
    /// a tracked one.
    type Log<'w>: Copy + Send + Sync;

    /// The fetch's [`Writable::Log`] from `T`'s changed log (`None` for an untracked type).
    fn log<'w>(changed: Option<&'w ChangeLog>) -> Self::Log<'w>;

    /// The changed log a [`Writable::Log`] holds, for a [`Mut<T>`] guard.
    fn changed<'w>(log: Self::Log<'w>) -> Option<&'w ChangeLog>;

    /// Wraps `value`, which is `entity`'s `T`, recording writes in `log`.
    fn write<'w, T: Component>(
        value: &'w mut T,
        log: Self::Log<'w>,
        entity: Entity,
    ) -> Self::Write<'w, T>;
}

/// A kind that records additions (and writes or replacements) for the change filters.
#[diagnostic::on_unimplemented(
    message = "this component does not track changes",
    label = "records no changes",
    note = "`Added<T>`, `Changed<T>`, `Ref<T>` and their run-time forms need a type that \
            tracks changes: add `#[component(track_changes)]` to its derive (or \
            `type Mutability = Tracked;` to its `impl Component`)"
)]
pub trait RecordsChanges: Mutability {}

/// Written in place through a plain `&mut T`; nothing is recorded (the default of
/// `#[derive(Component)]`).
#[derive(Debug)]
pub struct Mutable;

/// Written in place through a [`Mut<T>`] guard, which records the first write for the
/// [`Changed`](crate::Changed) filter; additions are recorded for [`Added`](crate::Added).
/// `&mut T` in a query and [`World::get_mut`](crate::World::get_mut) hand out that guard.
#[derive(Debug)]
pub struct Tracked;

/// Never written in place: a value changes only by being replaced whole
/// ([`World::insert`](crate::World::insert)), so code that keeps something in step with it
/// (an index, the hierarchy's links) sees every change. `Immutable<Tracked>` also records
/// additions and replacements for the change filters.
#[derive(Debug)]
pub struct Immutable<R = Mutable>(PhantomData<fn() -> R>);

impl Mutability for Mutable {
    const TRACK_CHANGES: bool = false;
    const MUTABLE: bool = true;
}

impl Mutability for Tracked {
    const TRACK_CHANGES: bool = true;
    const MUTABLE: bool = true;
}

impl Mutability for Immutable<Mutable> {
    const TRACK_CHANGES: bool = false;
    const MUTABLE: bool = false;
}

impl Mutability for Immutable<Tracked> {
    const TRACK_CHANGES: bool = true;
    const MUTABLE: bool = false;
}

impl Writable for Mutable {
    type Write<'w, T: Component + 'w> = &'w mut T;
    type Log<'w> = ();

    #[inline(always)]
    fn log(_: Option<&ChangeLog>) {}

    #[inline(always)]
    fn changed<'w>((): ()) -> Option<&'w ChangeLog> {
        None
    }

    #[inline(always)]
    fn write<T: Component>(value: &mut T, (): (), _: Entity) -> &mut T {
        value
    }
}

impl Writable for Tracked {
    type Write<'w, T: Component + 'w> = Mut<'w, T>;
    type Log<'w> = Option<&'w ChangeLog>;

    #[inline(always)]
    fn log(changed: Option<&ChangeLog>) -> Option<&ChangeLog> {
        changed
    }

    #[inline(always)]
    fn changed<'w>(log: Self::Log<'w>) -> Option<&'w ChangeLog> {
        log
    }

    #[inline(always)]
    fn write<'w, T: Component>(
        value: &'w mut T,
        log: Option<&'w ChangeLog>,
        entity: Entity,
    ) -> Mut<'w, T> {
        Mut::new(value, log, entity)
    }
}

impl RecordsChanges for Tracked {}
impl RecordsChanges for Immutable<Tracked> {}

/// A component that may be written in place ([`Mutable`] or [`Tracked`]): what `&mut T`,
/// [`Mut<T>`] and `get_mut` ask of `T`. Implemented for every such type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is immutable: it cannot be borrowed mutably",
    label = "an immutable component",
    note = "an immutable component is replaced whole with `insert`, never written in place; \
            `ChildOf` and `Children` change only through the hierarchy API (`set_parent`, \
            `remove_parent`, `despawn_recursive`)"
)]
pub trait MutableComponent: Component<Mutability: Writable> {}

impl<T: Component<Mutability: Writable>> MutableComponent for T {}

/// A component whose additions and changes are recorded ([`Tracked`] or
/// `Immutable<Tracked>`): what [`Added<T>`](crate::Added), [`Changed<T>`](crate::Changed)
/// and `get_mut_tracked`'s callers watching them ask of `T`. Implemented for every such type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not track changes",
    label = "records no changes",
    note = "`Added<T>`, `Changed<T>` and `Ref<T>` need a type that tracks changes: add \
            `#[component(track_changes)]` to its derive (or `type Mutability = Tracked;` to its \
            `impl Component`)"
)]
pub trait TrackedComponent: Component<Mutability: RecordsChanges> {}

impl<T: Component<Mutability: RecordsChanges>> TrackedComponent for T {}

/// What a mutable access to a `T` is: `&'w mut T` for a [`Mutable`] type, [`Mut<'w, T>`] for
/// a [`Tracked`] one (the item of `&mut T` in a query, the answer of
/// [`World::get_mut`](crate::World::get_mut)).
pub type Write<'w, T> = <<T as Component>::Mutability as Writable>::Write<'w, T>;

/// Whether `T` records additions and changes ([`Mutability::TRACK_CHANGES`] of its kind).
#[inline(always)]
pub const fn tracks_changes<T: Component>() -> bool {
    <T::Mutability as Mutability>::TRACK_CHANGES
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Mutable {}
    impl Sealed for super::Tracked {}
    impl Sealed for super::Immutable<super::Mutable> {}
    impl Sealed for super::Immutable<super::Tracked> {}
}
