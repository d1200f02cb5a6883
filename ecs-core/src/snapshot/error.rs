//! [`SnapshotError`]: what is wrong with a snapshot, and where.

use std::fmt;

use crate::entity::Entity;

/// Why a snapshot could not be loaded, and where in it the problem is.
///
/// Loading is all or nothing: whenever [`SnapshotRegistry::load`](super::SnapshotRegistry::load)
/// answers with this error, the target world is exactly as it was before the call.
///
/// ```
/// # use ecs_core::{World, Component, testing::VecStorage};
/// # use ecs_core::snapshot::{SnapshotRegistry, SnapshotErrorKind};
/// # use serde::{Serialize, Deserialize};
/// #[derive(Component, Serialize, Deserialize)]
/// struct Hp(u32);
/// let registry = SnapshotRegistry::new().component::<Hp>("Hp");
/// let mut world = World::<VecStorage>::new();
/// let text = r#"{"format":1,"entities":["0v1"],"components":[{"name":"Mana","instance":null,"rows":[[0,1]],"values":[3]}],"hierarchy":[],"resources":[]}"#;
/// let err = registry.load(&mut world, &mut serde_json::Deserializer::from_str(text)).unwrap_err();
/// assert_eq!(err.kind(), &SnapshotErrorKind::UnknownComponent("Mana".into()));
/// assert_eq!(err.location(), "components[0]");
/// assert!(world.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    kind: SnapshotErrorKind,
    location: String,
}

impl SnapshotError {
    pub(crate) fn new(kind: SnapshotErrorKind, location: impl Into<String>) -> SnapshotError {
        SnapshotError {
            kind,
            location: location.into(),
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> &SnapshotErrorKind {
        &self.kind
    }

    /// Where: a path into the snapshot such as `components[2] ("Position").values[17]`
    /// (empty for the snapshot as a whole).
    pub fn location(&self) -> &str {
        &self.location
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "snapshot: {}", self.kind)
        } else {
            write!(f, "snapshot at {}: {}", self.location, self.kind)
        }
    }
}

impl std::error::Error for SnapshotError {}

/// The kinds of [`SnapshotError`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotErrorKind {
    /// The input is not a snapshot of this layout: truncated, malformed, a value of the
    /// wrong type, a field missing or out of order. Carries the format's own message.
    Format(String),
    /// The snapshot was written in a layout version this crate does not read.
    Version {
        /// The version found.
        found: u32,
        /// The version this crate reads and writes.
        supported: u32,
    },
    /// A column names a component the registry does not know.
    UnknownComponent(String),
    /// The snapshot holds a resource the registry does not know.
    UnknownResource(String),
    /// Two columns hold the same component (and instance name).
    DuplicateColumn(String),
    /// The snapshot holds one resource twice.
    DuplicateResource(String),
    /// The entity list names one handle twice.
    DuplicateEntity(Entity),
    /// A row (a position in the entity list) is beyond the end of the list.
    RowOutOfRange {
        /// The row.
        row: u64,
        /// How many entities the snapshot lists.
        entities: usize,
    },
    /// A run of rows is empty.
    EmptyRun,
    /// A column gives one entity (the row) two values.
    DuplicateRow(u32),
    /// A column's values do not match its rows in number.
    ValueCount {
        /// How many rows the column lists.
        rows: usize,
        /// How many values it holds (`rows + 1` meaning "more than rows").
        values: usize,
    },
    /// A value holds a handle of an entity the snapshot does not list.
    DanglingEntity(Entity),
    /// One entity (the row) would hold two components under the same instance name.
    NameTaken {
        /// The row of the entity.
        row: u32,
        /// The name.
        name: String,
    },
    /// The parent links do not form a forest: a child listed twice, an entity its own
    /// parent, or a cycle.
    Hierarchy(String),
    /// A run-time component's codec refused its bytes.
    Codec(String),
    /// A run-time component is registered in the target world with another layout than
    /// the registry's descriptor.
    LayoutMismatch(String),
    /// A run-time component is registered in the target world with the registry's name and
    /// layout but another drop nature: one has a drop function and the other has none, so
    /// the registry's values (plain bytes, or its codec's) are not values of the world's
    /// component.
    DropMismatch {
        /// The run-time component's name.
        component: String,
        /// Whether the registry's descriptor has a drop function (the world's then has none).
        registry_drops: bool,
    },
}

impl fmt::Display for SnapshotErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotErrorKind::Format(message) => write!(f, "malformed: {message}"),
            SnapshotErrorKind::Version { found, supported } => write!(
                f,
                "layout version {found} (this crate reads version {supported})"
            ),
            SnapshotErrorKind::UnknownComponent(name) => {
                write!(f, "component {name:?} is not in the registry")
            }
            SnapshotErrorKind::UnknownResource(name) => {
                write!(f, "resource {name:?} is not in the registry")
            }
            SnapshotErrorKind::DuplicateColumn(name) => {
                write!(f, "a second column for component {name}")
            }
            SnapshotErrorKind::DuplicateResource(name) => {
                write!(f, "resource {name:?} appears twice")
            }
            SnapshotErrorKind::DuplicateEntity(entity) => {
                write!(f, "entity {entity} is listed twice")
            }
            SnapshotErrorKind::RowOutOfRange { row, entities } => write!(
                f,
                "row {row} is out of range (the snapshot lists {entities} entities)"
            ),
            SnapshotErrorKind::EmptyRun => f.write_str("a run of rows has length 0"),
            SnapshotErrorKind::DuplicateRow(row) => {
                write!(f, "row {row} is given two values")
            }
            SnapshotErrorKind::ValueCount { rows, values } if values > rows => {
                write!(f, "more values than its {rows} rows")
            }
            SnapshotErrorKind::ValueCount { rows, values } => {
                write!(f, "{values} values for {rows} rows")
            }
            SnapshotErrorKind::DanglingEntity(entity) => write!(
                f,
                "refers to entity {entity}, which the snapshot does not list"
            ),
            SnapshotErrorKind::NameTaken { row, name } => write!(
                f,
                "the entity at row {row} holds two components named {name:?}"
            ),
            SnapshotErrorKind::Hierarchy(what) => write!(f, "hierarchy: {what}"),
            SnapshotErrorKind::Codec(message) => write!(f, "codec refused the bytes: {message}"),
            SnapshotErrorKind::LayoutMismatch(name) => write!(
                f,
                "run-time component {name:?} has another layout in the target world"
            ),
            SnapshotErrorKind::DropMismatch {
                component,
                registry_drops,
            } => {
                let (registry, world) = if *registry_drops {
                    ("has a drop function", "is plain data")
                } else {
                    ("is plain data", "has a drop function")
                };
                write!(
                    f,
                    "run-time component {component:?} {registry} in the registry but {world} in \
                     the target world: its values are not the world's"
                )
            }
        }
    }
}
