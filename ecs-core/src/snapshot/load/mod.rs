//! Loading: read into staging ([`de`]), check everything ([`check`]), then commit in a step
//! that cannot fail ([`commit`]). A snapshot that fails anywhere before the commit leaves the
//! world exactly as it was: the read and the checks never touch it.

mod check;
mod commit;
mod de;

use serde::Deserializer;

use super::error::SnapshotError;
use super::map::{EntityMap, Handles, OldIndex};
use super::registry::{BoxedResource, Entries, SnapshotRegistry};
use crate::blob::BlobVec;
use crate::storage::Storage;
use crate::world::World;

/// A snapshot read and checked, not yet applied to a world (from
/// [`SnapshotRegistry::read`]). Its values are held in staging buffers; dropping it drops
/// them.
pub struct StagedSnapshot<'r, L> {
    registry: &'r SnapshotRegistry<L>,
    staged: Staged,
}

impl<L> std::fmt::Debug for StagedSnapshot<'_, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagedSnapshot")
            .field("entities", &self.staged.entities.len())
            .field("columns", &self.staged.columns.len())
            .field("links", &self.staged.links.len())
            .field("resources", &self.staged.resources.len())
            .finish()
    }
}

impl<L: Entries> StagedSnapshot<'_, L> {
    /// How many entities the snapshot lists.
    pub fn len(&self) -> usize {
        self.staged.entities.len()
    }

    /// True when the snapshot lists no entity.
    pub fn is_empty(&self) -> bool {
        self.staged.entities.len() == 0
    }

    /// Adds the snapshot's entities to `world` with new handles (merging: the world's own
    /// entities stay as they are), their components, named instances and parent links, and
    /// sets its resources. Returns which loaded entity each saved handle became.
    ///
    /// # Errors
    /// [`SnapshotErrorKind::LayoutMismatch`](super::SnapshotErrorKind::LayoutMismatch) when
    /// a run-time component of the registry is registered in `world` with another layout;
    /// the world is then unchanged. Everything else was checked by the read.
    pub fn commit<S: Storage>(self, world: &mut World<S>) -> Result<EntityMap, SnapshotError> {
        commit::commit(self.registry, world, self.staged)
    }
}

impl<L: Entries> SnapshotRegistry<L> {
    /// Loads a snapshot (written by [`SnapshotRegistry::save`] with a registry naming the
    /// same components under the same names) into `world`, all or nothing: on any error the
    /// world is exactly as before. Returns which loaded entity each saved handle became.
    ///
    /// `world` may hold entities already: the snapshot's are added beside them with new
    /// handles, and each handle inside a value is rewritten to the loaded entity's (for
    /// components registered with [`SnapshotRegistry::component_with_entities`]). Loaded
    /// components count as added for `Added`/`Changed` filters; a loaded resource replaces
    /// the world's.
    ///
    /// Trailing input after the snapshot is not read; to refuse it, use
    /// [`SnapshotRegistry::read`], then the format's own end check (`serde_json`'s
    /// `Deserializer::end`), then [`StagedSnapshot::commit`].
    ///
    /// # Errors
    /// A [`SnapshotError`] naming what is wrong and where: malformed or truncated input,
    /// values of the wrong type, unknown component or resource names, duplicate entities,
    /// columns or rows, rows out of range, value counts that disagree with the rows,
    /// handles of entities the snapshot does not list, two instances of one entity under one
    /// name, parent links that are not a forest, codec errors of run-time components.
    ///
    /// # Panics
    /// If the world's entity index space (2^32 slots) cannot hold the loaded entities, as
    /// spawning that many would.
    pub fn load<'de, S: Storage, D: Deserializer<'de>>(
        &self,
        world: &mut World<S>,
        deserializer: D,
    ) -> Result<EntityMap, SnapshotError> {
        self.read(deserializer)?.commit(world)
    }

    /// Reads and checks a snapshot without touching any world: the first half of
    /// [`SnapshotRegistry::load`], for callers that want to check the input's end (or
    /// decide where to load) before committing.
    ///
    /// # Errors
    /// As [`SnapshotRegistry::load`].
    pub fn read<'de, D: Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<StagedSnapshot<'_, L>, SnapshotError> {
        let ctx = de::Ctx::new(self);
        let read = serde::de::DeserializeSeed::deserialize(de::SnapshotSeed(&ctx), deserializer);
        let mut staged = match read {
            Ok(staged) => staged,
            Err(err) => return Err(ctx.into_error(err.to_string())),
        };
        check::check(self, &mut staged)?;
        Ok(StagedSnapshot {
            registry: self,
            staged,
        })
    }
}

/// Everything read from a snapshot, before it is applied.
struct Staged {
    /// The saved handles, in the snapshot's order (a row is a position here).
    entities: Handles,
    /// Saved handle to row.
    index: OldIndex,
    columns: Vec<StagedColumn>,
    /// `(child row, parent row)`, each parent's children in order.
    links: Vec<(u32, u32)>,
    resources: Vec<StagedResource>,
}

/// One column's values and the rows they belong to.
struct StagedColumn {
    /// The registry's component entry.
    entry: usize,
    instance: Option<Box<str>>,
    /// Disjoint runs of rows, sorted by first row.
    runs: Vec<Run>,
    /// The values, in the snapshot's order (the runs' `offset`s index them).
    values: BlobVec,
}

/// Rows `start..start + len` of a column, whose values are `offset..offset + len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: u32,
    len: u32,
    offset: u32,
}

impl Run {
    fn end(&self) -> u32 {
        self.start + self.len
    }
}

/// One resource's value and its registry entry.
struct StagedResource {
    entry: usize,
    value: BoxedResource,
}
