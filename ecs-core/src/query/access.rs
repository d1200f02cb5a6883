//! What a query reads and writes, and the builder that records it.

use crate::change::ChangeKind;
use crate::component::{Component, ComponentId, Components, UNSTORED};
use crate::error::EcsError;
use crate::storage::{QueryDescriptor, SlotRole};

/// The components a query reads and writes, and those whose changes it watches.
///
/// Used to reject aliasing queries (`(&mut A, &A)`) and to decide which systems may run in
/// parallel. *Watching* (`Changed<T>`, `Added<T>`) reads `T`'s change log, not its values: it
/// never aliases a write in the same query (`Query<Mut<T>, Changed<T>>` is fine), but between
/// two systems it counts as a read, so a watcher never runs beside a writer and what it sees
/// does not depend on thread timing.
///
/// It also keeps what every matched entity must have (`with`: required slots outside an
/// `Or`) and must not have (`without`: excluded slots outside an `Or`). Two queries where one
/// requires a component the other excludes never meet the same entity, so they never
/// conflict ([`Access::is_disjoint`]), as in `Query<&mut Pos, With<Child>>` beside
/// `Query<&Pos, Without<Child>>`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    reads: Vec<ComponentId>,
    writes: Vec<ComponentId>,
    watches: Vec<ComponentId>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
}

impl Access {
    /// Components read (and not written).
    pub fn reads(&self) -> &[ComponentId] {
        &self.reads
    }

    /// Components written.
    pub fn writes(&self) -> &[ComponentId] {
        &self.writes
    }

    /// Components whose changes are watched by a change filter.
    pub fn watches(&self) -> &[ComponentId] {
        &self.watches
    }

    /// Components every matched entity has (required slots outside an `Or`).
    pub fn with(&self) -> &[ComponentId] {
        &self.with
    }

    /// Components no matched entity has (excluded slots outside an `Or`).
    pub fn without(&self) -> &[ComponentId] {
        &self.without
    }

    /// Whether `component` is read or watched (anything but written).
    fn observes(&self, component: &ComponentId) -> bool {
        self.reads.contains(component) || self.watches.contains(component)
    }

    /// Whether no entity can match both queries: one requires a component the other
    /// excludes.
    pub fn is_disjoint(&self, other: &Access) -> bool {
        self.with.iter().any(|c| other.without.contains(c))
            || self.without.iter().any(|c| other.with.contains(c))
    }

    /// Whether two accesses may not run at the same time: one writes what the other reads,
    /// watches or writes, and some entity could match both (see [`Access::is_disjoint`]).
    pub fn conflicts_with(&self, other: &Access) -> bool {
        self.first_conflict(other).is_some()
    }

    /// The first component two accesses conflict on (see [`Access::conflicts_with`]).
    pub fn first_conflict(&self, other: &Access) -> Option<ComponentId> {
        if self.is_disjoint(other) {
            return None;
        }
        let mine = self
            .writes
            .iter()
            .find(|c| other.observes(c) || other.writes.contains(c));
        mine.or_else(|| other.writes.iter().find(|c| self.observes(c)))
            .copied()
    }

    /// Adds `other`'s components to this access (read, written and watched; what matched
    /// entities must or must not have is not merged: the union of two queries has no such
    /// promise).
    pub fn extend(&mut self, other: &Access) {
        for (mine, theirs) in [
            (&mut self.reads, &other.reads),
            (&mut self.writes, &other.writes),
            (&mut self.watches, &other.watches),
        ] {
            for c in theirs {
                if !mine.contains(c) {
                    mine.push(*c);
                }
            }
        }
    }

    /// Every component named, in any role.
    pub fn components(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.reads
            .iter()
            .chain(&self.writes)
            .chain(&self.watches)
            .copied()
    }
}

/// What [`QueryBuilder::finish`] produces: everything a query state needs from its types.
#[derive(Debug)]
pub struct QueryPlan {
    /// The storage-facing slots.
    pub descriptor: QueryDescriptor,
    /// Components read, written and watched.
    pub access: Access,
    /// The change filters, in the order their `change_slot` indices refer to.
    pub change_slots: Vec<(ComponentId, ChangeKind)>,
    /// The change slots a query item reads (see [`QueryBuilder::item_change_slot`]), each
    /// an index into `change_slots`.
    pub item_change_slots: Vec<usize>,
    /// Whether a required slot names a type the registry does not know (only a builder that
    /// registers nothing, for [`World::query_ref`](crate::World::query_ref), finds one): no
    /// entity can match.
    pub matches_nothing: bool,
    /// The slot excluding [`Disabled`](crate::Disabled) that `finish` added because the
    /// query does not name it (see [`crate::disabled`]); `None` when it names it, or when
    /// nothing registered it yet.
    pub hidden: Option<usize>,
}

/// Collects a query's slots and access while its parts are initialised.
pub struct QueryBuilder<'c> {
    registry: Registry<'c>,
    descriptor: QueryDescriptor,
    access: Access,
    change_slots: Vec<(ComponentId, ChangeKind)>,
    item_change_slots: Vec<usize>,
    /// Depth of `Or` filters being initialised: inside one, slots cannot constrain matching.
    any_depth: usize,
    conflict: Option<EcsError>,
    /// A required slot named [`UNSTORED`] (see [`QueryPlan::matches_nothing`]).
    matches_nothing: bool,
}

/// How a builder turns component types into ids.
enum Registry<'c> {
    /// Registers types on first use (a query state built with `&mut World`).
    Registering(&'c mut Components),
    /// Looks types up, naming [`UNSTORED`] for one never registered (a state built through
    /// `&World`, see [`Unstored`](crate::component::Unstored)).
    Resolving(&'c Components),
}

impl<'c> QueryBuilder<'c> {
    /// A builder registering components in `components`.
    pub fn new(components: &'c mut Components) -> QueryBuilder<'c> {
        QueryBuilder::with(Registry::Registering(components))
    }

    /// A builder that registers nothing: a type `components` does not know gets the id of
    /// the world's stand-in no entity holds ([`Unstored`](crate::component::Unstored)), and
    /// a required slot of one makes the plan match nothing. `components` must be a world's
    /// registry (made with the stand-in at [`UNSTORED`]).
    pub(crate) fn resolving(components: &'c Components) -> QueryBuilder<'c> {
        QueryBuilder::with(Registry::Resolving(components))
    }

    fn with(registry: Registry<'c>) -> QueryBuilder<'c> {
        QueryBuilder {
            registry,
            descriptor: QueryDescriptor::default(),
            access: Access::default(),
            change_slots: Vec::new(),
            item_change_slots: Vec::new(),
            any_depth: 0,
            conflict: None,
            matches_nothing: false,
        }
    }

    /// The id of `T` for this query: registered on first use, or, in a builder that
    /// registers nothing ([`World::query_ref`](crate::World::query_ref)), looked up, with a
    /// stand-in no entity holds for a type the world never registered. Query parts name
    /// their component types through this.
    pub fn register<T: Component>(&mut self) -> ComponentId {
        match &mut self.registry {
            Registry::Registering(components) => components.register::<T>(),
            Registry::Resolving(components) => components.id::<T>().unwrap_or(UNSTORED),
        }
    }

    /// The registry, to register the query's component types; prefer
    /// [`QueryBuilder::register`], which also serves builders that register nothing.
    ///
    /// # Panics
    /// In a builder that registers nothing (one resolving a query for
    /// [`World::query_ref`](crate::World::query_ref)).
    pub fn components(&mut self) -> &mut Components {
        match &mut self.registry {
            Registry::Registering(components) => components,
            Registry::Resolving(_) => panic!(
                "this query is resolved through a shared world (World::query_ref), which \
                 registers nothing: name component types with QueryBuilder::register"
            ),
        }
    }

    /// The registry, read-only.
    pub fn registry(&self) -> &Components {
        match &self.registry {
            Registry::Registering(components) => components,
            Registry::Resolving(components) => components,
        }
    }

    /// Adds a storage slot, returning its index.
    ///
    /// Inside an `Or` (see [`QueryBuilder::begin_any`]) a `Required` or `Excluded` role is
    /// recorded as `Optional`: one alternative alone cannot rule rows out, so the filter
    /// checks presence per row instead.
    pub fn slot(&mut self, component: ComponentId, role: SlotRole) -> usize {
        let role = if self.in_any() {
            SlotRole::Optional
        } else {
            role
        };
        if role == SlotRole::Required && matches!(self.registry, Registry::Resolving(_)) {
            self.matches_nothing |= component == UNSTORED;
        }
        let promised = match role {
            SlotRole::Required => Some(&mut self.access.with),
            SlotRole::Excluded => Some(&mut self.access.without),
            SlotRole::Optional => None,
        };
        if let Some(list) = promised.filter(|list| !list.contains(&component)) {
            list.push(component);
        }
        self.descriptor.push(component, role)
    }

    /// Whether slots added now are relaxed to `Optional` (inside an `Or`).
    pub fn in_any(&self) -> bool {
        self.any_depth > 0
    }

    /// Starts the alternatives of an `Or` filter.
    pub fn begin_any(&mut self) {
        self.any_depth += 1;
    }

    /// Ends the alternatives started by [`QueryBuilder::begin_any`].
    pub fn end_any(&mut self) {
        self.any_depth -= 1;
    }

    /// Records that the query watches `component`'s changes.
    pub fn watch(&mut self, component: ComponentId) {
        if !self.access.watches.contains(&component) {
            self.access.watches.push(component);
        }
    }

    /// Adds a change filter slot (a reader cursor on `component`'s `kind` log), returning
    /// its index.
    pub fn change_slot(&mut self, component: ComponentId, kind: ChangeKind) -> usize {
        self.watch(component);
        self.change_slots.push((component, kind));
        self.change_slots.len() - 1
    }

    /// Adds a change slot a query *item* reads (a [`Ref`](super::Ref)'s `is_added` or
    /// `is_changed`), returning its index: unlike a filter's, its changed set is gathered in
    /// every run after the first, also when a filter drives the run.
    pub fn item_change_slot(&mut self, component: ComponentId, kind: ChangeKind) -> usize {
        let slot = self.change_slot(component, kind);
        self.item_change_slots.push(slot);
        slot
    }

    /// Records a shared read of `component`.
    pub fn read(&mut self, component: ComponentId) {
        if self.access.writes.contains(&component) {
            self.record_conflict(component);
        } else if !self.access.reads.contains(&component) {
            self.access.reads.push(component);
        }
    }

    /// Records an exclusive write of `component`.
    pub fn write(&mut self, component: ComponentId) {
        if self.access.writes.contains(&component) || self.access.reads.contains(&component) {
            self.record_conflict(component);
        } else {
            self.access.writes.push(component);
        }
    }

    fn record_conflict(&mut self, component: ComponentId) {
        if self.conflict.is_none() {
            let name = self.registry().info(component).name().to_owned();
            self.conflict = Some(EcsError::QueryConflict { component: name });
        }
    }

    /// The descriptor, access and change slots, or the first aliasing conflict found.
    ///
    /// # Errors
    /// [`EcsError::QueryConflict`] when a component was written and accessed again.
    pub fn finish(mut self) -> Result<QueryPlan, EcsError> {
        let hidden = self
            .registry()
            .disabled()
            .and_then(|disabled| hide_disabled(&mut self.descriptor, disabled));
        match self.conflict {
            Some(err) => Err(err),
            None => Ok(QueryPlan {
                hidden,
                descriptor: self.descriptor,
                access: self.access,
                change_slots: self.change_slots,
                item_change_slots: self.item_change_slots,
                matches_nothing: self.matches_nothing,
            }),
        }
    }
}

/// Adds the slot excluding [`Disabled`](crate::Disabled) (id `disabled`) to a query's
/// `descriptor` unless a slot already names it, and returns its index.
///
/// The slot is not recorded in the query's access as a `without`: two systems are not
/// judged disjoint on account of it, so a path that forgot to skip disabled entities could
/// never make a parallel run unsound.
pub(crate) fn hide_disabled(
    descriptor: &mut QueryDescriptor,
    disabled: ComponentId,
) -> Option<usize> {
    let named = descriptor.slots().iter().any(|s| s.component == disabled);
    (!named).then(|| descriptor.push(disabled, SlotRole::Excluded))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct A;
    impl Component for A {
        type Mutability = crate::component::Mutable;
    }
    struct B;
    impl Component for B {
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn read_after_write_conflicts() {
        let mut c = Components::default();
        let a = c.register::<A>();
        let mut b = QueryBuilder::new(&mut c);
        b.write(a);
        b.read(a);
        let err = b.finish().unwrap_err();
        assert!(err.to_string().contains("A"), "{err}");
    }

    #[test]
    fn disjoint_access_is_fine() {
        let mut c = Components::default();
        let (a, bid) = (c.register::<A>(), c.register::<B>());
        let mut b = QueryBuilder::new(&mut c);
        b.read(a);
        b.read(a);
        b.write(bid);
        let access = b.finish().unwrap().access;
        assert_eq!((access.reads(), access.writes()), (&[a][..], &[bid][..]));
        let mut other = Access::default();
        other.reads.push(bid);
        assert!(access.conflicts_with(&other) && other.conflicts_with(&access));
        assert_eq!(access.first_conflict(&other), Some(bid));
        assert!(!access.conflicts_with(&Access::default()));
    }

    #[test]
    fn watching_conflicts_with_writers_elsewhere_but_not_within() {
        let mut c = Components::default();
        let a = c.register::<A>();
        let mut b = QueryBuilder::new(&mut c);
        b.write(a);
        assert_eq!(b.change_slot(a, ChangeKind::Changed), 0);
        let writer_and_watcher = b.finish().expect("Mut<A> with Changed<A> is fine");
        let mut watcher = Access::default();
        watcher.watches.push(a);
        assert!(writer_and_watcher.access.conflicts_with(&watcher));
        assert!(!watcher.conflicts_with(&watcher), "two watchers share");
        assert_eq!(
            writer_and_watcher.change_slots,
            vec![(a, ChangeKind::Changed)]
        );
    }

    #[test]
    fn resolving_registers_nothing_and_stands_in_for_unknown_types() {
        let mut c = Components::with_unstored(crate::world::WorldId::TEST);
        let a = c.register::<A>();
        let len = c.len();
        let mut b = QueryBuilder::resolving(&c);
        assert_eq!(b.register::<A>(), a);
        let unknown = b.register::<B>();
        assert_eq!(unknown, UNSTORED);
        b.slot(unknown, SlotRole::Excluded);
        b.begin_any();
        b.slot(unknown, SlotRole::Required);
        b.end_any();
        b.slot(a, SlotRole::Required);
        assert!(
            !b.finish().unwrap().matches_nothing,
            "excluded, or inside an Or"
        );
        let mut b = QueryBuilder::resolving(&c);
        let unknown = b.register::<B>();
        b.slot(unknown, SlotRole::Required);
        assert!(b.finish().unwrap().matches_nothing);
        assert_eq!(c.len(), len, "nothing registered");
        assert_eq!(c.id::<B>(), None);
        // A registering builder never reports it.
        let mut b = QueryBuilder::new(&mut c);
        let id = b.register::<B>();
        b.slot(id, SlotRole::Required);
        assert!(!b.finish().unwrap().matches_nothing);
    }

    #[test]
    #[should_panic(expected = "QueryBuilder::register")]
    fn a_resolving_builder_has_no_mutable_registry() {
        let c = Components::with_unstored(crate::world::WorldId::TEST);
        let mut b = QueryBuilder::resolving(&c);
        b.components();
    }

    #[test]
    fn slots_inside_any_are_optional() {
        let mut c = Components::default();
        let a = c.register::<A>();
        let mut b = QueryBuilder::new(&mut c);
        b.begin_any();
        b.slot(a, SlotRole::Required);
        b.end_any();
        b.slot(a, SlotRole::Excluded);
        let plan = b.finish().unwrap();
        let roles: Vec<_> = plan.descriptor.slots().iter().map(|s| s.role).collect();
        assert_eq!(roles, vec![SlotRole::Optional, SlotRole::Excluded]);
    }
}
