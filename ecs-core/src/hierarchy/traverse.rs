//! Reading the hierarchy: [`World::parent`], [`World::children`], [`World::ancestors`],
//! [`World::descendants`]. Each follows the links by entity look-up and allocates nothing.

use std::iter::FusedIterator;

use super::{ChildOf, Children, Link, LinkIds};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{EntityPlace, Storage};
use crate::world::World;

impl<S: Storage> World<S> {
    /// `entity`'s parent, if it has one.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let root = world.spawn(());
    /// let leaf = world.spawn_child(root, ()).unwrap();
    /// assert_eq!(world.parent(leaf), Ok(Some(root)));
    /// assert_eq!(world.parent(root), Ok(None));
    /// ```
    pub fn parent(&self, entity: Entity) -> Result<Option<Entity>, EcsError> {
        self.check(entity)?;
        Ok(self
            .hierarchy
            .and_then(|ids| self.link_of(ids, entity))
            .map(|l| l.parent))
    }

    /// `entity`'s children, in the order they were added.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let root = world.spawn(());
    /// let a = world.spawn_child(root, ()).unwrap();
    /// let b = world.spawn_child(root, ()).unwrap();
    /// let children = world.children(root).unwrap();
    /// assert_eq!(children.len(), 2);
    /// assert_eq!(children.collect::<Vec<_>>(), [a, b]);
    /// ```
    pub fn children(&self, entity: Entity) -> Result<ChildIter<'_, S>, EcsError> {
        self.check(entity)?;
        let head = self
            .hierarchy
            .and_then(|ids| Some((ids, self.head_of(ids, entity)?)));
        Ok(match head {
            Some((ids, (first, _, count))) => ChildIter {
                world: self,
                ids: Some(ids),
                next: Some(first),
                left: count as usize,
            },
            None => ChildIter {
                world: self,
                ids: None,
                next: None,
                left: 0,
            },
        })
    }

    /// `entity`'s parent, its parent's parent, and so on up to a root.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let a = world.spawn(());
    /// let b = world.spawn_child(a, ()).unwrap();
    /// let c = world.spawn_child(b, ()).unwrap();
    /// assert_eq!(world.ancestors(c).unwrap().collect::<Vec<_>>(), [b, a]);
    /// ```
    pub fn ancestors(&self, entity: Entity) -> Result<Ancestors<'_, S>, EcsError> {
        self.check(entity)?;
        let next = self.parent(entity)?;
        Ok(Ancestors {
            world: self,
            ids: self.hierarchy,
            next,
        })
    }

    /// Every descendant of `entity` (not `entity` itself), depth-first: a child, then its
    /// descendants, then the next child. Siblings come in the order they were added. The
    /// walk allocates nothing: it remembers the next siblings of the last few levels it
    /// went down in a small fixed buffer, and only below that depth (when the buffer has
    /// dropped a level) climbs back up through the parent links to find its way on. On a
    /// table backend it also remembers where the links of the table it read last are, so
    /// an entity in the same table as the one before costs its record and its links only.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a stale handle.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let root = world.spawn(());
    /// let a = world.spawn_child(root, ()).unwrap();
    /// let a1 = world.spawn_child(a, ()).unwrap();
    /// let b = world.spawn_child(root, ()).unwrap();
    /// assert_eq!(world.descendants(root).unwrap().collect::<Vec<_>>(), [a, a1, b]);
    /// ```
    pub fn descendants(&self, entity: Entity) -> Result<Descendants<'_, S>, EcsError> {
        self.check(entity)?;
        let ids = self.hierarchy;
        let next = ids.and_then(|ids| self.head_of(ids, entity).map(|(first, _, _)| first));
        Ok(Descendants {
            world: self,
            ids,
            root: entity,
            next,
            pending: Pending::new(entity),
            rows: LinkRows::empty(),
        })
    }
}

/// Both links read through `place`: its first child and its `ChildOf`.
#[inline]
fn links_in<P: EntityPlace>(ids: LinkIds, place: &P) -> (Option<Entity>, Option<Link>) {
    let children = place.ptr_of::<Children>(ids.children);
    let child_of = place.ptr_of::<ChildOf>(ids.child_of);
    // SAFETY: the place's pointers are the storage's pointers to the entity's initialised
    // `Children` / `ChildOf` (components `ids.children` / `ids.child_of`), valid while the
    // storage's borrow lasts.
    unsafe {
        read_links(
            children.map(|p| p.as_ptr().cast::<Children>().cast_const()),
            child_of.map(|p| p.as_ptr().cast::<ChildOf>().cast_const()),
        )
    }
}

/// An entity's first child and its `ChildOf`, read once each from where its `Children` and
/// `ChildOf` are (`None`: it has none): the one place both walks' paths (through a place,
/// through remembered arrays) read links.
///
/// # Safety
/// Each pointer given points to the entity's initialised value, valid for the read.
#[inline(always)]
unsafe fn read_links(
    children: Option<*const Children>,
    child_of: Option<*const ChildOf>,
) -> (Option<Entity>, Option<Link>) {
    // SAFETY: an initialised `Children` (caller).
    let first = children.map(|p| unsafe { &*p }.first);
    // SAFETY: an initialised `ChildOf` (caller).
    let link = child_of.map(|p| Link::of(unsafe { &*p }));
    (first, link)
}

/// The link arrays of the chunk [`Descendants`] read last: its key
/// ([`EntityPlace::chunk_row`]) and where row 0's `Children` and `ChildOf` would be, so that
/// row `r`'s are `r` values further (`None`: the chunk lacks that component).
///
/// A walk's entities mostly share a few tables (leaves, inner nodes), and reading an entity
/// through its chunk's remembered arrays skips the table's column look-ups: the step from
/// one entity to the next becomes its record, then its links.
///
/// # Invariant
/// A `LinkRows` belongs to one [`Descendants`] (a private field, filled only by its `links`
/// from places of its world and with its `ids`). While `key` is `Some(k)`, for every place
/// of that world answering `chunk_row() == Some((k, r))`,
/// `children.map(|b| b.wrapping_add(r))` is its `ptr_of::<Children>(ids.children)`, in the
/// same allocation as the pointer it was computed from, and `child_of` likewise for
/// `ChildOf`. It holds because both are computed from such a place (the `Storage`
/// contract's "Rows" promise, which covers the link types when they are `is_dense` in the
/// storage, checked before filling), and the walk holds the world shared, so no column
/// moves while it lasts.
struct LinkRows {
    key: Option<usize>,
    children: Option<*const Children>,
    child_of: Option<*const ChildOf>,
}

// SAFETY: the pointers only read `Children` / `ChildOf` values (both `Send + Sync`) of the
// world the walk borrows shared; moving or sharing them with the walk is what moving or
// sharing the walk's `&World` already allows, so they keep `Descendants` as `Send` and
// `Sync` as it was without them.
unsafe impl Send for LinkRows {}
// SAFETY: as above.
unsafe impl Sync for LinkRows {}

impl LinkRows {
    /// Remembers nothing.
    fn empty() -> LinkRows {
        LinkRows {
            key: None,
            children: None,
            child_of: None,
        }
    }

    /// The arrays of the chunk `place` is in, at `key` and `row`. Only for a storage where
    /// both link types are `is_dense` (the invariant's condition).
    #[inline]
    fn of<P: EntityPlace>(ids: LinkIds, place: &P, key: usize, row: usize) -> LinkRows {
        // Row 0 of the same array: in bounds, as the place's own row exists; wrapping only so
        // that the subtraction needs no proof here.
        LinkRows {
            key: Some(key),
            children: place
                .ptr_of::<Children>(ids.children)
                .map(|p| p.as_ptr().cast::<Children>().cast_const().wrapping_sub(row)),
            child_of: place
                .ptr_of::<ChildOf>(ids.child_of)
                .map(|p| p.as_ptr().cast::<ChildOf>().cast_const().wrapping_sub(row)),
        }
    }
}

/// The children of one entity, in the order they were added ([`World::children`]).
pub struct ChildIter<'w, S: Storage> {
    world: &'w World<S>,
    ids: Option<LinkIds>,
    next: Option<Entity>,
    left: usize,
}

impl<S: Storage> Iterator for ChildIter<'_, S> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let child = self.next?;
        let ids = self.ids?;
        self.next = self.world.link_of(ids, child).and_then(|l| l.next);
        self.left -= 1;
        Some(child)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<S: Storage> ExactSizeIterator for ChildIter<'_, S> {}
impl<S: Storage> FusedIterator for ChildIter<'_, S> {}

/// The ancestors of one entity, nearest first ([`World::ancestors`]).
pub struct Ancestors<'w, S: Storage> {
    world: &'w World<S>,
    ids: Option<LinkIds>,
    next: Option<Entity>,
}

impl<S: Storage> Iterator for Ancestors<'_, S> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let at = self.next?;
        self.next = self
            .ids
            .and_then(|ids| self.world.link_of(ids, at))
            .map(|l| l.parent);
        Some(at)
    }
}

impl<S: Storage> FusedIterator for Ancestors<'_, S> {}

/// The descendants of one entity, depth-first ([`World::descendants`]).
pub struct Descendants<'w, S: Storage> {
    world: &'w World<S>,
    ids: Option<LinkIds>,
    root: Entity,
    next: Option<Entity>,
    /// The next siblings of the entities the walk went down into, nearest last.
    pending: Pending,
    /// The link arrays of the chunk read last.
    rows: LinkRows,
}

impl<S: Storage> Iterator for Descendants<'_, S> {
    type Item = Entity;

    // Always inlined: a walk's caller does a little work per entity, so a call per step
    // (which the compiler chose for the bench crate in one codegen unit) cost 13-40 % of
    // the walk.
    #[inline(always)]
    fn next(&mut self) -> Option<Entity> {
        let at = self.next?;
        let ids = self.ids?;
        let (first_child, link) = self.links(ids, at);
        let sibling = link.and_then(|l| l.next).filter(|_| at != self.root);
        self.next = match first_child {
            Some(child) => {
                // `at`'s next sibling comes after `at`'s subtree.
                if let Some(sibling) = sibling {
                    self.pending.push(sibling);
                }
                Some(child)
            }
            None if at == self.root => None,
            None => sibling.or_else(|| self.after_leaf(ids, at, link)),
        };
        Some(at)
    }
}

impl<S: Storage> Descendants<'_, S> {
    /// Both links of `at` (an entity of the walk; `ids` the walk's): its first child and its
    /// `ChildOf`, read through the arrays the walk remembers when `at` is in the chunk read
    /// last (see [`LinkRows`]), else through its place, remembering that chunk's arrays.
    #[inline(always)]
    fn links(&mut self, ids: LinkIds, at: Entity) -> (Option<Entity>, Option<Link>) {
        let Some(place) = self.world.storage().place(at) else {
            return (None, None);
        };
        let keyed = if S::is_dense::<Children>() && S::is_dense::<ChildOf>() {
            place.chunk_row()
        } else {
            None
        };
        let Some((key, row)) = keyed.map(|at| (at.key.index(), at.row as usize)) else {
            return links_in(ids, &place);
        };
        if self.rows.key != Some(key) {
            self.rows = LinkRows::of(ids, &place, key, row);
        }
        // SAFETY: `self.rows` holds `key`, so by its invariant (filled from a place of this
        // walk's world, with the walk's `ids`) these are `place`'s `ptr_of` answers: the
        // entity's initialised `Children` / `ChildOf`, valid while the walk's `&World` lasts.
        unsafe {
            read_links(
                self.rows.children.map(|base| base.wrapping_add(row)),
                self.rows.child_of.map(|base| base.wrapping_add(row)),
            )
        }
    }

    /// The entity after leaf `at`, which has no next sibling: the next sibling of the
    /// nearest ancestor that has one, remembered when the walk went down into it, or found
    /// by climbing when the buffer dropped it.
    #[inline]
    fn after_leaf(&mut self, ids: LinkIds, at: Entity, link: Option<Link>) -> Option<Entity> {
        match self.pending.pop() {
            Some(sibling) => Some(sibling),
            None if self.pending.dropped => self.after_subtree(ids, at, link),
            None => None,
        }
    }

    /// The entity after the subtree of `at` (whose links are `link`): its next sibling, or
    /// the next sibling of the nearest ancestor below the root that has one.
    #[cold]
    fn after_subtree(
        &self,
        ids: LinkIds,
        mut at: Entity,
        mut link: Option<Link>,
    ) -> Option<Entity> {
        loop {
            if at == self.root {
                return None;
            }
            let l = link?;
            if l.next.is_some() {
                return l.next;
            }
            at = l.parent;
            link = self.world.link_of(ids, at);
        }
    }
}

impl<S: Storage> FusedIterator for Descendants<'_, S> {}

/// Levels of next siblings [`Descendants`] remembers.
const PENDING: usize = 32;

/// A stack of the last [`PENDING`] next siblings pushed; pushing onto a full stack drops the
/// oldest and sets `dropped`.
///
/// # Invariant
/// `len <= PENDING`; the entries are `buf[(end - len) % PENDING .. end % PENDING]`
/// (cyclically), the last pushed at `(end - 1) % PENDING`.
struct Pending {
    buf: [Entity; PENDING],
    end: usize,
    len: usize,
    /// Whether an entry was ever dropped: an empty stack then no longer means the walk is
    /// over, and the walk climbs to find its way on.
    dropped: bool,
}

impl Pending {
    /// An empty stack (`fill` is any entity: no slot is read before it is written).
    fn new(fill: Entity) -> Pending {
        Pending {
            buf: [fill; PENDING],
            end: 0,
            len: 0,
            dropped: false,
        }
    }

    #[inline]
    fn push(&mut self, entity: Entity) {
        self.buf[self.end % PENDING] = entity;
        self.end = self.end.wrapping_add(1);
        if self.len == PENDING {
            self.dropped = true;
        } else {
            self.len += 1;
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<Entity> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        self.end = self.end.wrapping_sub(1);
        Some(self.buf[self.end % PENDING])
    }
}
