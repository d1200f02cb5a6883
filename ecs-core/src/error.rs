//! Errors are values: every fallible world operation says what went wrong.

use std::borrow::Cow;
use std::fmt;

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::properties::PropertyKind;

/// What went wrong in a world operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EcsError {
    /// The handle is stale (despawned) or was never handed out by this world.
    NoSuchEntity(Entity),
    /// The entity is live but has no such component. For a bundle
    /// ([`World::remove`](crate::World::remove), [`World::take`](crate::World::take)): the
    /// first of its components, in field order, the entity lacks; nothing was removed.
    MissingComponent {
        /// The entity asked about.
        entity: Entity,
        /// The component's name (borrowed for Rust types, so a failed typed `remove` on a
        /// hot path does not allocate).
        component: Cow<'static, str>,
    },
    /// The id was not handed out by this world's registry.
    UnknownComponent(ComponentId),
    /// The operation needs plain bytes, but the component is a Rust type or has a drop
    /// function, so arbitrary bytes could break its invariants.
    NotPlainData(String),
    /// A byte slice's length does not match the component's size.
    SizeMismatch {
        /// The component's name.
        component: String,
        /// Its size in bytes.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A query would hand out two references to one component, one of them mutable.
    QueryConflict {
        /// The component accessed twice.
        component: String,
    },
    /// An owning group could not be made: the backend has none, the components are fewer
    /// than two or already owned by another group, or the backend cannot group one of them
    /// (a table component in the hybrid backend).
    Group {
        /// Why.
        reason: String,
    },
    /// A system's parameters access the same data in conflicting ways (two queries, one
    /// writing a component the other reads; `Res<R>` beside `ResMut<R>`).
    SystemConflict {
        /// The system's name.
        system: String,
        /// What conflicts.
        reason: String,
    },
    /// One entity was named twice in a request for several mutable items at once
    /// ([`World::get_many_mut`](crate::World::get_many_mut),
    /// [`QueryState::get_many_mut`](crate::QueryState::get_many_mut)): the two items would be
    /// two `&mut` to the same value.
    DuplicateEntity(Entity),
    /// The entity is live but does not match the query: it lacks a component the query
    /// requires, or fails its filter.
    QueryMismatch {
        /// The entity asked about.
        entity: Entity,
        /// The query's type (and filter, if it has one).
        query: String,
    },
    /// A query expected to match exactly one entity ([`World::query_single`](
    /// crate::World::query_single), [`QueryState::single`](crate::QueryState::single))
    /// matched none or several.
    QuerySingle {
        /// How many entities matched: `0`, or `2` for "at least two" (the search stops at
        /// the second).
        found: usize,
        /// The query's type (and filter, if it has one).
        query: String,
    },
    /// A system needs a resource the world does not hold (`Res<R>`, `ResMut<R>`, an event
    /// reader or writer of events never added).
    MissingResource {
        /// The system's name (empty when not known).
        system: String,
        /// The resource's type.
        resource: String,
    },
    /// A schedule's ordering constraints form a cycle: each system of it must run before
    /// the next, and the last before the first.
    ScheduleCycle {
        /// The systems of one cycle, in order.
        systems: Vec<String>,
    },
    /// An ordering constraint of a schedule that cannot mean what it says (see
    /// [`Schedule::build`](crate::Schedule::build)).
    ScheduleConstraint {
        /// The system (or `set "label"`) the constraint is on.
        system: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Making `child` a child of `parent` would make it its own ancestor: `parent` is
    /// `child` itself or one of its descendants. Nothing was changed.
    HierarchyCycle {
        /// The entity that was to get a parent.
        child: Entity,
        /// The parent it was to get.
        parent: Entity,
    },
    /// The operation would add or remove a relationship component
    /// ([`ChildOf`](crate::hierarchy::ChildOf), [`Children`](crate::hierarchy::Children))
    /// directly, which would leave its links dangling; they change only through the
    /// hierarchy API ([`World::set_parent`](crate::World::set_parent),
    /// [`World::remove_parent`](crate::World::remove_parent), despawning). Nothing was
    /// changed.
    HierarchyComponent {
        /// The entity asked about.
        entity: Entity,
        /// The relationship component's name.
        component: &'static str,
    },
    /// A trace could not be started or finished (see [`crate::trace`]).
    Trace {
        /// Why.
        reason: String,
    },
    /// Several errors at once (a schedule reports every problem it finds before running).
    Many(Vec<EcsError>),
    /// The problems a schedule's run found while its systems ran (the run went on; see
    /// [`Schedule::try_run`](crate::Schedule::try_run)).
    #[cfg(feature = "schedule")]
    Run(Vec<crate::schedule::RunError>),
    /// The entity already holds a component instance under this name, of another component
    /// (names are unique per entity across all types; see
    /// [`World::insert_named`](crate::World::insert_named)).
    NameTaken {
        /// The entity.
        entity: Entity,
        /// The name asked for.
        name: String,
        /// The component holding the name now.
        holder: String,
    },
    /// The live entity holds no instance of that name (of that type, where one was given).
    UnknownInstance {
        /// The entity asked about.
        entity: Entity,
        /// The instance name asked for.
        name: String,
    },
    /// The component has properties, but none of this name.
    UnknownProperty {
        /// The component (instance) asked about.
        component: String,
        /// The property name asked for.
        property: String,
    },
    /// The component has no properties (it does not opt in with `#[component(properties)]`).
    NoProperties(String),
    /// A property value of the wrong type.
    PropertyType {
        /// The component (instance).
        component: String,
        /// The property.
        property: String,
        /// The property's type.
        expected: PropertyKind,
        /// The type of the value given.
        found: PropertyKind,
    },
    /// A change filter (`Added`, `Changed`) names a component that does not track changes.
    Untracked(String),
    /// A write (a run-time query's written term, a property set) names a component that is
    /// immutable ([`Immutable`](crate::Immutable)): its values are only replaced whole, with
    /// `insert`. Nothing was changed.
    Immutable(String),
    /// A store keyed by entity index already holds this index under another generation
    /// (`held`): one of the two handles is stale. Nothing was stored.
    IndexTaken {
        /// The handle the store holds.
        held: Entity,
        /// The handle given.
        given: Entity,
    },
    /// A lifecycle hook could not be set (see [`crate::component::hooks`]).
    Hook {
        /// The component's name.
        component: String,
        /// Why.
        reason: String,
    },
    /// An observer could not be registered, or failed (see [`crate::observer`]).
    Observer {
        /// The observer's name.
        observer: String,
        /// Why.
        reason: String,
    },
    /// Events triggered events (through observers' commands) more than `limit` times in a
    /// chain; the rest of the chain was dropped.
    EventDepth {
        /// The event that would have gone past the limit.
        event: String,
        /// The limit.
        limit: usize,
    },
    /// A component's storage could not be changed
    /// ([`World::set_storage`](crate::World::set_storage)): the backend keeps every
    /// component in one kind of storage, the type is not movable, or an owning group holds
    /// it. Nothing moved.
    Storage {
        /// The component's name.
        component: String,
        /// Why.
        reason: String,
    },
}

impl EcsError {
    /// `Ok` for no error, the error itself for one, [`EcsError::Many`] for several.
    ///
    /// # Errors
    /// As said.
    pub fn all(mut errors: Vec<EcsError>) -> Result<(), EcsError> {
        match errors.len() {
            0 => Ok(()),
            1 => Err(errors.remove(0)),
            _ => Err(EcsError::Many(errors)),
        }
    }
}

impl fmt::Display for EcsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EcsError::NoSuchEntity(e) => write!(f, "entity {e:?} does not exist (despawned or from another world)"),
            EcsError::MissingComponent { entity, component } => {
                write!(f, "entity {entity:?} has no component {component}")
            }
            EcsError::UnknownComponent(id) => write!(f, "component id {} is not registered in this world", id.index()),
            EcsError::NotPlainData(name) => write!(
                f,
                "component {name} is not plain data (it has a Rust type or a drop function); use the typed API"
            ),
            EcsError::SizeMismatch { component, expected, actual } => {
                write!(f, "component {component} is {expected} bytes, got {actual}")
            }
            EcsError::QueryConflict { component } => write!(
                f,
                "query accesses {component} mutably and a second time; split it into two queries or use one &mut"
            ),
            EcsError::Group { reason } => write!(f, "cannot make the group: {reason}"),
            EcsError::SystemConflict { system, reason } => {
                write!(f, "system {system} cannot run: {reason}")
            }
            EcsError::DuplicateEntity(e) => write!(
                f,
                "entity {e:?} is named more than once in a request for mutable access (the two items would alias)"
            ),
            EcsError::QueryMismatch { entity, query } => write!(
                f,
                "entity {entity:?} does not match query {query} (it lacks a required component or fails the filter)"
            ),
            EcsError::QuerySingle { found, query } => {
                let found = if *found == 0 { "none" } else { "at least two" };
                write!(f, "expected exactly one entity matching query {query}, found {found}")
            }
            EcsError::MissingResource { system, resource } => write!(
                f,
                "system {system} needs resource {resource}, which the world does not hold: insert it \
                 with `World::insert_resource` (events: `World::add_event`), or take `Option<Res<_>>`"
            ),
            EcsError::ScheduleCycle { systems } => write!(
                f,
                "the ordering constraints form a cycle: {} runs before {} again",
                systems.join(" runs before "),
                systems.first().map_or("", String::as_str)
            ),
            EcsError::ScheduleConstraint { system, reason } => {
                write!(f, "ordering constraint of {system} ignored: {reason}")
            }
            EcsError::HierarchyCycle { child, parent } => write!(
                f,
                "entity {parent:?} cannot be the parent of {child:?}: it is {child:?} or one of its descendants, \
                 so {child:?} would become its own ancestor"
            ),
            EcsError::HierarchyComponent { entity, component } => write!(
                f,
                "component {component} of entity {entity:?} is kept by the hierarchy; change it with \
                 `set_parent`, `remove_parent` or a despawn"
            ),
            EcsError::NameTaken { entity, name, holder } => write!(
                f,
                "entity {entity:?} already has an instance named \"{name}\" ({holder}); names are unique per entity"
            ),
            EcsError::UnknownInstance { entity, name } => {
                write!(f, "entity {entity:?} has no component instance named \"{name}\"")
            }
            EcsError::UnknownProperty { component, property } => {
                write!(f, "component {component} has no property \"{property}\"")
            }
            EcsError::NoProperties(component) => write!(
                f,
                "component {component} has no properties (opt in with #[component(properties)])"
            ),
            EcsError::PropertyType { component, property, expected, found } => write!(
                f,
                "property \"{property}\" of {component} is {} {expected}, not {} {found}",
                expected.article(),
                found.article()
            ),
            EcsError::IndexTaken { held, given } => write!(
                f,
                "cannot store {given:?}: its index is held by {held:?} (one of the two handles is stale)"
            ),
            EcsError::Hook { component, reason } => {
                write!(f, "cannot set a hook of component {component}: {reason}")
            }
            EcsError::Observer { observer, reason } => write!(f, "observer {observer}: {reason}"),
            EcsError::EventDepth { event, limit } => write!(
                f,
                "event {event} was triggered more than {limit} levels deep (observers triggering \
                 observers); the rest of the chain was dropped"
            ),
            EcsError::Storage { component, reason } => {
                write!(f, "cannot change the storage of {component}: {reason}")
            }
            EcsError::Untracked(component) => write!(
                f,
                "component {component} does not track changes, so Added/Changed cannot filter on it"
            ),
            EcsError::Immutable(component) => write!(
                f,
                "component {component} is immutable: replace its value with `insert` instead of \
                 writing it in place"
            ),
            #[cfg(feature = "schedule")]
            EcsError::Run(errors) => {
                write!(f, "{} problem(s) while the systems ran:", errors.len())?;
                for err in errors {
                    write!(f, "\n  - {err}")?;
                }
                Ok(())
            }
            EcsError::Trace { reason } => write!(f, "{reason}"),
            EcsError::Many(errors) => {
                write!(f, "{} errors:", errors.len())?;
                for err in errors {
                    write!(f, "\n  - {err}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for EcsError {}
