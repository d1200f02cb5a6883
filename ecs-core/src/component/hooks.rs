//! Lifecycle hooks: a function per component type run when a value of that type is added
//! to, replaced on, or removed from an entity.
//!
//! A hook is how a component keeps something outside itself right: an index of entities by
//! name, a count, a dependent value on another entity. It is declared with the derive
//! (`#[component(on_add = path, on_remove = path)]`, see [`Component::HOOKS`](super::Component::HOOKS)) or set at run
//! time ([`World::set_hook`](crate::World::set_hook),
//! [`World::set_hook_by_id`](crate::World::set_hook_by_id), for run-time and named
//! components too).
//!
//! # When each runs
//! | hook | runs | the value is |
//! |---|---|---|
//! | `on_add` | the entity did not have the component and now has it | stored |
//! | `on_insert` | after every store: new or replacing | stored |
//! | `on_replace` | before a stored value is overwritten or removed | still stored (the old one) |
//! | `on_remove` | before the component leaves the entity (remove, take, despawn, clear) | still stored |
//! | `on_despawn` | before the entity is despawned (also `take`, `despawn_recursive`, `clear`) | still stored |
//!
//! For one operation, the order is: `on_despawn` (a despawn), `on_replace`, then the change,
//! then `on_add`, then `on_insert`. A bundle is stored whole (with the components it
//! requires) before any `on_add` runs, so a hook sees its siblings; an entity spawned as a
//! child, or cloned, is linked to its parent first. Within one moment the components go
//! in a fixed order: an insert's `on_replace` and `on_insert` in the bundle's field order
//! (then the components the entity got through requirements), every other moment in the
//! order the components began to react (their first hook or observer). Every path that adds or removes fires them: spawn,
//! spawn_batch, insert, remove, take, despawn, despawn_recursive, commands, the by-id and
//! named-instance API, clone, snapshot load and `clear`. Relationship components
//! ([`ChildOf`](crate::ChildOf), [`Children`](crate::Children)) take no hooks.
//!
//! # What a hook may do
//! A hook gets a [`HookWorld`](crate::world::HookWorld): it reads and writes components of
//! any entity, reads and writes resources, and queues [`Commands`](crate::Commands), which
//! run when the operation that fired the hook is over. It cannot spawn, insert, remove or
//! despawn directly (`HookWorld` has no such method: the operation in flight holds places
//! in the storage that a structural change would move).
//!
//! If a hook panics, the world stays consistent: hooks run only where the storage is whole
//! (before a removal starts, after a store ends), so the panic leaves the operation done or
//! not begun for each component.

use crate::entity::Entity;

use super::ComponentId;

/// The moment of a component's life a hook (or an observer) reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lifecycle {
    /// The entity got a component it did not have.
    Add,
    /// A value was stored: new, or replacing the old one.
    Insert,
    /// A stored value is about to be overwritten or removed.
    Replace,
    /// The component is about to leave the entity.
    Remove,
    /// The entity is about to be despawned.
    Despawn,
}

impl Lifecycle {
    /// Every moment, in the order of [`Lifecycle::bit`].
    pub const ALL: [Lifecycle; 5] = [
        Lifecycle::Add,
        Lifecycle::Insert,
        Lifecycle::Replace,
        Lifecycle::Remove,
        Lifecycle::Despawn,
    ];

    /// One bit per moment, for sets of them.
    pub const fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The name used in messages and in the derive (`on_add`, ...).
    pub const fn hook_name(self) -> &'static str {
        match self {
            Lifecycle::Add => "on_add",
            Lifecycle::Insert => "on_insert",
            Lifecycle::Replace => "on_replace",
            Lifecycle::Remove => "on_remove",
            Lifecycle::Despawn => "on_despawn",
        }
    }
}

/// What a hook is told: which entity, which component, which moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookContext {
    /// The entity whose component it is.
    pub entity: Entity,
    /// The component (its id in this world).
    pub component: ComponentId,
    /// The moment.
    pub event: Lifecycle,
}

/// A lifecycle hook: a plain function (no captured state: it is registered per component
/// type and may be declared in a `const`).
pub type HookFn = fn(crate::world::HookWorld<'_>, HookContext);

/// `Some(hook)`: how the derive fills a [`ComponentHooks`] slot, so that a function of the
/// wrong signature is reported at its path in the attribute.
#[doc(hidden)]
pub const fn hook(hook: HookFn) -> Option<HookFn> {
    Some(hook)
}

/// The hooks of one component type, one slot per [`Lifecycle`] moment.
///
/// ```
/// # use ecs_core::component::{ComponentHooks, HookContext};
/// # use ecs_core::world::HookWorld;
/// fn count(_: HookWorld<'_>, _: HookContext) {}
/// const HOOKS: ComponentHooks = ComponentHooks { on_add: Some(count), ..ComponentHooks::NONE };
/// assert!(HOOKS.any() && ComponentHooks::NONE.is_empty());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ComponentHooks {
    /// Run when the entity gets the component it did not have.
    pub on_add: Option<HookFn>,
    /// Run after every store, new or replacing.
    pub on_insert: Option<HookFn>,
    /// Run before a stored value is overwritten or removed.
    pub on_replace: Option<HookFn>,
    /// Run before the component leaves the entity.
    pub on_remove: Option<HookFn>,
    /// Run before the entity is despawned.
    pub on_despawn: Option<HookFn>,
}

impl ComponentHooks {
    /// No hook at all (the default of [`Component::HOOKS`](super::Component::HOOKS)).
    pub const NONE: ComponentHooks = ComponentHooks {
        on_add: None,
        on_insert: None,
        on_replace: None,
        on_remove: None,
        on_despawn: None,
    };

    /// Whether any slot holds a hook.
    pub const fn any(&self) -> bool {
        self.on_add.is_some()
            || self.on_insert.is_some()
            || self.on_replace.is_some()
            || self.on_remove.is_some()
            || self.on_despawn.is_some()
    }

    /// Whether no slot holds a hook.
    pub const fn is_empty(&self) -> bool {
        !self.any()
    }

    /// The hook of one moment.
    pub fn get(&self, event: Lifecycle) -> Option<HookFn> {
        *self.slot(event)
    }

    /// The slot of one moment, writable.
    pub fn slot_mut(&mut self, event: Lifecycle) -> &mut Option<HookFn> {
        match event {
            Lifecycle::Add => &mut self.on_add,
            Lifecycle::Insert => &mut self.on_insert,
            Lifecycle::Replace => &mut self.on_replace,
            Lifecycle::Remove => &mut self.on_remove,
            Lifecycle::Despawn => &mut self.on_despawn,
        }
    }

    fn slot(&self, event: Lifecycle) -> &Option<HookFn> {
        match event {
            Lifecycle::Add => &self.on_add,
            Lifecycle::Insert => &self.on_insert,
            Lifecycle::Replace => &self.on_replace,
            Lifecycle::Remove => &self.on_remove,
            Lifecycle::Despawn => &self.on_despawn,
        }
    }

    /// The set of moments with a hook, as [`Lifecycle::bit`]s.
    pub fn bits(&self) -> u8 {
        Lifecycle::ALL
            .iter()
            .filter(|&&event| self.get(event).is_some())
            .fold(0, |bits, event| bits | event.bit())
    }
}

/// What happens to one component at the moments of its life, in one world: its hooks and
/// which moments observers watch (see [`crate::observer`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reaction {
    pub(crate) hooks: ComponentHooks,
    /// The moments some observer watches, as [`Lifecycle::bit`]s.
    pub(crate) observed: u8,
}

impl Reaction {
    /// Whether anything reacts at all.
    pub(crate) fn any(&self) -> bool {
        self.hooks.any() || self.observed != 0
    }
}

/// The reactions of a world's components, kept beside the registry so a world where
/// nothing reacts holds nothing (an empty `Vec` allocates nothing).
///
/// # Invariants
/// `by_id` is empty, or holds one entry per registered component (grown with the
/// registry); `reactive` lists, in the order they began to react and once each, the ids whose
/// reaction is [`Reaction::any`]; `changes` counts the changes of that list.
#[derive(Debug, Default)]
pub(crate) struct Reactions {
    by_id: Vec<Reaction>,
    reactive: Vec<ComponentId>,
    changes: u64,
}

impl Reactions {
    /// Whether any component reacts to anything.
    #[inline(always)]
    pub(crate) fn any(&self) -> bool {
        !self.reactive.is_empty()
    }

    /// How many times a component began or stopped reacting: what a cache of answers
    /// derived from [`Reactions::reactive`] compares to know it is current.
    pub(crate) fn changes(&self) -> u64 {
        self.changes
    }

    /// The components that react to something.
    pub(crate) fn reactive(&self) -> &[ComponentId] {
        &self.reactive
    }

    /// `id`'s reaction, if it has one.
    pub(crate) fn get(&self, id: ComponentId) -> Option<&Reaction> {
        self.by_id.get(id.index()).filter(|r| r.any())
    }

    /// Records that component `id` was registered (of `count` so far).
    pub(crate) fn grow(&mut self, count: usize) {
        if !self.by_id.is_empty() {
            self.by_id.resize(count, Reaction::default());
        }
    }

    /// Changes `id`'s reaction with `change` (`count` components registered).
    pub(crate) fn update(
        &mut self,
        id: ComponentId,
        count: usize,
        change: impl FnOnce(&mut Reaction),
    ) {
        if self.by_id.len() < count {
            self.by_id.resize(count, Reaction::default());
        }
        let reaction = &mut self.by_id[id.index()];
        let before = reaction.any();
        change(reaction);
        match (before, reaction.any()) {
            (false, true) => self.reactive.push(id),
            (true, false) => self.reactive.retain(|&r| r != id),
            _ => return,
        }
        self.changes += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(_: crate::world::HookWorld<'_>, _: HookContext) {}

    #[test]
    fn reactions_list_each_reactive_id_once() {
        let mut reactions = Reactions::default();
        assert!(!reactions.any());
        let id = ComponentId::new(2);
        reactions.update(id, 3, |r| r.hooks.on_add = Some(hook));
        reactions.update(id, 3, |r| r.observed |= Lifecycle::Remove.bit());
        assert_eq!(reactions.reactive(), &[id]);
        let reaction = reactions.get(id).unwrap();
        assert!(reaction.hooks.on_add.is_some() && reaction.observed == Lifecycle::Remove.bit());
        assert!(reactions.get(ComponentId::new(1)).is_none());
        reactions.grow(5);
        reactions.update(id, 5, |r| *r = Reaction::default());
        assert!(!reactions.any() && reactions.get(id).is_none());
    }

    #[test]
    fn bits_name_the_slots_that_hold_a_hook() {
        let hooks = ComponentHooks {
            on_remove: Some(hook),
            on_despawn: Some(hook),
            ..ComponentHooks::NONE
        };
        assert_eq!(
            hooks.bits(),
            Lifecycle::Remove.bit() | Lifecycle::Despawn.bit()
        );
        assert_eq!(Lifecycle::Despawn.hook_name(), "on_despawn");
    }
}
