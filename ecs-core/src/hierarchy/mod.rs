//! Parent/child relationships kept in two opt-in components, with no allocation per parent.
//!
//! An entity with no relationship holds neither component and pays nothing: entity records
//! are the same size as without this module, and a world that never links two entities
//! despawns without looking for links. A child holds a [`ChildOf`]: its parent and its
//! neighbours among the parent's children. A parent holds a [`Children`]: its first and last
//! child and how many it has. The children of a parent are a doubly linked list threaded
//! through their own `ChildOf` components, so no parent owns a `Vec`:
//!
//! ```text
//!   parent P: Children { first: A, last: C, count: 3 }
//!                        │                 │
//!                        ▼                 ▼
//!   A: ChildOf { parent: P, prev: -, next: B }
//!   B: ChildOf { parent: P, prev: A, next: C }
//!   C: ChildOf { parent: P, prev: B, next: - }
//! ```
//!
//! Appending a child, unlinking one and reparenting are O(1) writes to at most four
//! components (plus an ancestor walk for the cycle check); children come back in the order
//! they were added. Traversal ([`World::children`], [`World::ancestors`],
//! [`World::descendants`]) follows the links by entity look-up and allocates nothing: the
//! depth-first walk keeps the next siblings of its last 32 levels in a fixed buffer inside
//! the iterator, and climbs back up through `ChildOf::parent` only for levels beyond it.
//!
//! # Which storage each component asks for
//! Only the hybrid backend reads the choice ([`Component::STORAGE`]); the others keep every
//! component in their one kind of storage.
//! * [`ChildOf`] is a **table** component: a child keeps its parent for most of its life,
//!   and queries iterate it beside the child's other data (`Query<(&Transform, &ChildOf)>`),
//!   which a table column serves densely. Reparenting rewrites it in place, so only the
//!   first parent and [`World::remove_parent`] move a row.
//! * [`Children`] is a **table** component too. It comes and goes with a parent's first and
//!   last child, which in a sparse set would spare the parent's row a move; measured on the
//!   hybrid backend, that saving does not show: the benchmark's `relationship` workload
//!   (2,110 entities linked, written and despawned recursively, 500 times) took the same
//!   time within the run-to-run noise (1.04-1.11× the archetype backend with tables,
//!   1.10-1.11× with a sparse set) and peaked at 188 KiB with tables against 210 KiB with
//!   a sparse set (its index pages); depth-first traversal was within 3 % either way. A
//!   parent moves once, when its first child arrives, not once per child.
//!
//! # Rules the world keeps
//! * No dangling link: [`World::despawn`] of a child unlinks it from its parent; of a parent
//!   makes its children roots (their `ChildOf` is removed). [`World::despawn_recursive`]
//!   despawns a whole subtree instead. [`World::take`] behaves as `despawn`.
//! * No cycle: [`World::set_parent`] refuses a parent that is the child or one of its
//!   descendants ([`EcsError::HierarchyCycle`](crate::EcsError::HierarchyCycle)), leaving the
//!   world unchanged.
//! * The components are kept by this API only. Both are [`Immutable`]: no `&mut ChildOf` or
//!   `&mut Children` can be had outside this module (`get_mut`, `&mut T` and `Mut<T>` in
//!   queries, `EntityMut`, `get_many_mut` fail to compile; a run-time query that writes one
//!   is refused with [`EcsError::Immutable`](crate::EcsError::Immutable)). Their fields are
//!   private and they cannot be cloned, so no value can be made outside this module, and
//!   removing one directly ([`World::remove`], [`World::take`] of a bundle naming it,
//!   `remove_by_id`, a `remove` command) is refused with
//!   [`EcsError::HierarchyComponent`](crate::EcsError::HierarchyComponent).
//!
//! ```compile_fail,E0277
//! # use ecs_core::{World, hierarchy::Children, testing::VecStorage};
//! let mut world = World::<VecStorage>::new();
//! let parent = world.spawn(());
//! world.spawn_child(parent, ()).unwrap();
//! let children = world.get_mut::<Children>(parent); // error: `Children` is immutable
//! ```
//!
//! # Change tracking
//! [`ChildOf`] tracks changes: [`Added<ChildOf>`](crate::Added) sees an entity that got a
//! parent, [`Changed<ChildOf>`](crate::Changed) one that got a parent or moved to another.
//! Keeping the sibling links up to date when a neighbour comes or goes is not a change.
//!
//! # Plain data
//! Both components hold only [`Entity`] handles (and a count). A snapshot saves the links
//! as (child, parent) rows and rebuilds both components through this module when it loads.
//!
//! ```
//! # use ecs_core::{World, Component, testing::VecStorage};
//! # use ecs_core::hierarchy::ChildOf;
//! #[derive(Component)]
//! struct Name(&'static str);
//!
//! let mut world = World::<VecStorage>::new();
//! let ship = world.spawn(Name("ship"));
//! let turret = world.spawn_child(ship, Name("turret")).unwrap();
//! let gun = world.spawn_child(turret, Name("gun")).unwrap();
//! let radar = world.spawn(Name("radar"));
//! world.set_parent(radar, ship).unwrap();
//!
//! assert_eq!(world.parent(gun), Ok(Some(turret)));
//! assert_eq!(world.children(ship).unwrap().collect::<Vec<_>>(), [turret, radar]);
//! assert_eq!(world.descendants(ship).unwrap().collect::<Vec<_>>(), [turret, gun, radar]);
//! assert_eq!(world.ancestors(gun).unwrap().collect::<Vec<_>>(), [turret, ship]);
//! assert!(world.set_parent(ship, gun).is_err(), "a cycle");
//!
//! // Children with their parent's data, through a query.
//! let mut pairs = Vec::new();
//! for (name, link) in world.query::<(&Name, &ChildOf)>() {
//!     pairs.push((name.0, link.parent()));
//! }
//! assert_eq!(pairs.len(), 3);
//!
//! world.despawn_recursive(turret).unwrap();
//! assert!(!world.contains(gun));
//! assert_eq!(world.children(ship).unwrap().collect::<Vec<_>>(), [radar]);
//! ```

mod link;
mod recursive;
mod traverse;

pub use traverse::{Ancestors, ChildIter, Descendants};

use std::ptr::NonNull;

use crate::component::{Component, ComponentId, Immutable, StorageKind, Tracked};
use crate::entity::Entity;
use crate::storage::Storage;
use crate::world::World;

/// On a child: its parent, and its neighbours among the parent's children (in the order
/// they were added). Present exactly while the entity has a parent.
///
/// Read it in queries (`Query<(&T, &ChildOf)>`, `With<ChildOf>`, `Changed<ChildOf>`); change
/// it through [`World::set_parent`] and [`World::remove_parent`] (see the
/// [module docs](self) for why it cannot be written directly).
#[derive(Debug, PartialEq, Eq)]
pub struct ChildOf {
    parent: Entity,
    prev: Option<Entity>,
    next: Option<Entity>,
}

impl Component for ChildOf {
    /// Never borrowed mutably outside this module, so no code but the hierarchy's can break
    /// the links; tracked, so `Added`/`Changed<ChildOf>` see entities that got or changed
    /// their parent.
    type Mutability = Immutable<Tracked>;
    /// Iterated beside a child's other data; rewritten in place on reparenting.
    const STORAGE: StorageKind = StorageKind::Table;
}

impl ChildOf {
    /// The parent.
    #[inline]
    pub fn parent(&self) -> Entity {
        self.parent
    }

    /// The sibling added just before this child, if any.
    #[inline]
    pub fn prev_sibling(&self) -> Option<Entity> {
        self.prev
    }

    /// The sibling added just after this child, if any.
    #[inline]
    pub fn next_sibling(&self) -> Option<Entity> {
        self.next
    }
}

/// On a parent: its first and last child and how many it has. Present exactly while the
/// entity has at least one child; walk the children with [`World::children`].
#[derive(Debug, PartialEq, Eq)]
pub struct Children {
    first: Entity,
    last: Entity,
    count: u32,
}

impl Component for Children {
    /// Never borrowed mutably outside this module (see `ChildOf`).
    type Mutability = Immutable;
    /// A table, as `ChildOf`: the parent's row moves once, when its first child arrives,
    /// which measured cheaper than keeping the component in a sparse set (module docs).
    const STORAGE: StorageKind = StorageKind::Table;
}

impl Children {
    /// The child added first (of those still here).
    #[inline]
    pub fn first(&self) -> Entity {
        self.first
    }

    /// The child added last.
    #[inline]
    pub fn last(&self) -> Entity {
        self.last
    }

    /// How many children the parent has (at least one).
    #[inline]
    #[allow(clippy::len_without_is_empty)] // never empty: the component goes with the last child
    pub fn len(&self) -> usize {
        self.count as usize
    }
}

/// The two relationship components' ids in one world, registered when it first links two
/// entities. A world whose `LinkIds` is `None` has no relationship anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LinkIds {
    pub(crate) child_of: ComponentId,
    pub(crate) children: ComponentId,
}

impl LinkIds {
    /// Whether `id` is one of the two.
    #[inline]
    pub(crate) fn names(self, id: ComponentId) -> bool {
        id == self.child_of || id == self.children
    }

    /// The name of component `id` (one of the two) for an error.
    pub(crate) fn name(self, id: ComponentId) -> &'static str {
        if id == self.child_of {
            std::any::type_name::<ChildOf>()
        } else {
            std::any::type_name::<Children>()
        }
    }
}

impl<S: Storage> World<S> {
    /// The relationship components' ids, registering them (and marking the world as one
    /// with relationships) on first use.
    pub(crate) fn link_ids(&mut self) -> LinkIds {
        if let Some(ids) = self.hierarchy {
            return ids;
        }
        let ids = LinkIds {
            child_of: self.register_component::<ChildOf>(),
            children: self.register_component::<Children>(),
        };
        self.hierarchy = Some(ids);
        ids
    }

    /// `entity`'s `ChildOf`, read without the registry's type look-up but through the typed
    /// storage path (`get_ptr_of`), so a backend that knows from the type where `ChildOf`
    /// lives (the hybrid's half, a table column's stride) skips finding it by id.
    #[inline]
    fn child_of_ptr(&self, ids: LinkIds, entity: Entity) -> Option<NonNull<ChildOf>> {
        self.storage()
            .get_ptr_of::<ChildOf>(entity, ids.child_of)
            .map(NonNull::cast)
    }

    /// `entity`'s `Children`, read as [`World::child_of_ptr`] reads `ChildOf`.
    #[inline]
    fn children_ptr(&self, ids: LinkIds, entity: Entity) -> Option<NonNull<Children>> {
        self.storage()
            .get_ptr_of::<Children>(entity, ids.children)
            .map(NonNull::cast)
    }

    /// A copy of `entity`'s links as a child.
    #[inline]
    pub(crate) fn link_of(&self, ids: LinkIds, entity: Entity) -> Option<Link> {
        // SAFETY: the storage points to the entity's initialised `ChildOf` (component
        // `ids.child_of`), valid while `&self` lasts; it is read once, here.
        self.child_of_ptr(ids, entity)
            .map(|p| unsafe { Link::of(p.as_ref()) })
    }

    /// A copy of `entity`'s `Children` (first, last, count).
    #[inline]
    pub(crate) fn head_of(&self, ids: LinkIds, entity: Entity) -> Option<(Entity, Entity, u32)> {
        self.children_ptr(ids, entity).map(|p| {
            // SAFETY: as in `link_of`, for component `ids.children`.
            let c = unsafe { p.as_ref() };
            (c.first, c.last, c.count)
        })
    }

    /// `entity`'s `ChildOf`, writable, bypassing change tracking (sibling upkeep is not a
    /// change; callers that change the parent record it themselves).
    #[inline]
    fn child_of_mut(&mut self, ids: LinkIds, entity: Entity) -> Option<&mut ChildOf> {
        // SAFETY: the storage points to the entity's initialised `ChildOf`; `&mut self`
        // makes the reference unique while it lives.
        self.child_of_ptr(ids, entity)
            .map(|mut p| unsafe { p.as_mut() })
    }

    /// `entity`'s `Children`, writable.
    #[inline]
    fn children_mut(&mut self, ids: LinkIds, entity: Entity) -> Option<&mut Children> {
        // SAFETY: as in `child_of_mut`, for component `ids.children`.
        self.children_ptr(ids, entity)
            .map(|mut p| unsafe { p.as_mut() })
    }
}

/// A copy of one `ChildOf` (the links are `Copy`; the component deliberately is not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) parent: Entity,
    pub(crate) prev: Option<Entity>,
    pub(crate) next: Option<Entity>,
}

impl Link {
    fn of(c: &ChildOf) -> Link {
        Link {
            parent: c.parent,
            prev: c.prev,
            next: c.next,
        }
    }
}
