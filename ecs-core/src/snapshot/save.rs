//! Saving: [`SaveWorld`] serializes a world straight from its storage, column by column.
//!
//! Nothing is copied out first: each column is walked twice through the storage's own query
//! chunks (the archetype backend's table columns, a sparse set's dense array), once for the
//! rows it covers (entity positions only, to write them as runs) and once to serialize its
//! values in place.

use std::ptr::NonNull;

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::nonfinite::NonFiniteValue;
use super::registry::{Codec, ComponentKind, DynamicInfo, Entries, SnapshotRegistry, TypedVisitor};
use super::FORMAT;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::resource::Resource;
use crate::storage::{ColumnAccess, QueryChunk, QueryDescriptor, SlotRole, SparseLookup, Storage};
use crate::world::World;

/// A world as a snapshot: serialize it with any serde format (returned by
/// [`SnapshotRegistry::save`]). Serializing borrows the world and writes it as it is.
pub struct SaveWorld<'w, L, S: Storage> {
    registry: &'w SnapshotRegistry<L>,
    world: &'w World<S>,
}

impl<L: Entries> SnapshotRegistry<L> {
    /// The world as a snapshot of the components and resources this registry names, its
    /// entities (every live entity, with the components it holds of those) and their
    /// parent links. Serialize the result with any serde format:
    /// `serde_json::to_string(&registry.save(&world))`, `postcard::to_allocvec(..)`.
    ///
    /// The layout, in serde's data model (JSON field names shown):
    /// ```text
    /// { format: 1,
    ///   entities: [handle, ...],                         // every live entity (*)
    ///   components: [ { name, instance, rows: [[first, count], ...], values: [...] }, ... ],
    ///   hierarchy: [[child, parent], ...],               // rows; each parent's children in order
    ///   resources: [ { name, value }, ... ] }
    /// ```
    /// A column's rows are runs of positions in `entities`; its values follow them in order.
    /// (*) In binary formats (`Serializer::is_human_readable` false) the entity list is one
    /// byte string packing each handle as two LEB128 varints: its index minus the previous
    /// handle's (wrapping modulo 2^32), then its generation (2 bytes for most handles).
    /// Entities are written in the order [`Entities::alive`](crate::entities::Entities::alive)
    /// lists them, columns in registration order (a component's named instances after it,
    /// by instance name), so saving the same world twice writes the same bytes.
    pub fn save<'w, S: Storage>(&'w self, world: &'w World<S>) -> SaveWorld<'w, L, S> {
        SaveWorld {
            registry: self,
            world,
        }
    }
}

impl<L: Entries, S: Storage> Serialize for SaveWorld<'_, L, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let plan = plan(self.registry, self.world).map_err(Ser::Error::custom)?;
        let mut out = serializer.serialize_struct("Snapshot", 5)?;
        out.serialize_field("format", &FORMAT)?;
        out.serialize_field("entities", &EntityList(self.world.entities().alive()))?;
        out.serialize_field(
            "components",
            &Columns {
                registry: self.registry,
                world: self.world,
                plan: &plan,
            },
        )?;
        out.serialize_field("hierarchy", &Links(self.world))?;
        out.serialize_field(
            "resources",
            &SavedResources {
                registry: self.registry,
                world: self.world,
            },
        )?;
        out.end()
    }
}

/// The `entities` field: the handles as a list (`"3v1"` each) in human-readable formats;
/// in binary ones one byte string of the packed handles (see `packed`: usually 2 bytes a
/// handle, one copy into the output where a list would take one format call per handle).
struct EntityList<'w>(&'w [Entity]);

impl Serialize for EntityList<'_> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        if serializer.is_human_readable() {
            return self.0.serialize(serializer);
        }
        let mut bytes = Vec::new();
        super::packed::pack(self.0, &mut bytes);
        serializer.serialize_bytes(&bytes)
    }
}

/// One column to write: a registry entry's component (or one of its named instances) and
/// the rows holding it.
struct Planned<'w> {
    entry: usize,
    id: ComponentId,
    instance: Option<&'w str>,
    /// Where the values are, in row order.
    pieces: Vec<Piece>,
    /// The rows as written: the pieces' rows, adjacent ones merged.
    runs: Vec<(u32, u32)>,
    count: usize,
}

/// Rows `start..start + len` of a column, whose values are rows `row..row + len` of the
/// storage's chunk number `chunk` (in the order the storage yields its chunks).
#[derive(Clone, Copy, Debug)]
struct Piece {
    start: u32,
    len: u32,
    chunk: u32,
    row: u32,
}

/// Every column the save writes, in order, with its rows; or why the world cannot be saved
/// with this registry (a run-time component whose drop nature differs from the entry's:
/// saving it would read a value with the wrong codec, or a value with padding as plain
/// bytes; skipping it would lose it).
fn plan<'w, L, S: Storage>(
    registry: &SnapshotRegistry<L>,
    world: &'w World<S>,
) -> Result<Vec<Planned<'w>>, String> {
    let components = world.components();
    let mut bases: Vec<Option<ComponentId>> = Vec::with_capacity(registry.components.len());
    for entry in &registry.components {
        bases.push(match &entry.kind {
            ComponentKind::Typed(info) => components.id_of(info.type_id),
            ComponentKind::Dynamic(info) => {
                if let Some(c) = components.iter().find(|c| info.matches(c)) {
                    Some(c.id())
                } else if components.iter().any(|c| info.same_place(c)) {
                    return Err(format!(
                        "component {:?}: {}",
                        entry.name,
                        info.drop_mismatch()
                    ));
                } else {
                    None
                }
            }
        });
    }
    let mut columns: Vec<Planned<'w>> = Vec::new();
    let mut runs = RunCache::default();
    for (entry, base) in bases.iter().enumerate() {
        let Some(base) = *base else { continue };
        columns.push(planned(world, &mut runs, entry, base, None));
        let mut instances: Vec<Planned<'w>> = components
            .iter()
            .filter_map(|info| {
                let instance = info.instance().filter(|i| i.of() == base)?;
                let name = components.names().text(instance.name());
                Some(planned(world, &mut runs, entry, info.id(), Some(name)))
            })
            .collect();
        instances.sort_by(|a, b| a.instance.cmp(&b.instance));
        columns.extend(instances);
    }
    columns.retain(|c| c.count > 0);
    Ok(columns)
}

/// Where component `id`'s values are, in row order (rows are positions in the entity list):
/// so a save writes the same bytes whatever order the storage keeps them in, and a diff of
/// two saves shows changed values, not moved rows.
fn planned<'w, S: Storage>(
    world: &World<S>,
    runs_seen: &mut RunCache,
    entry: usize,
    id: ComponentId,
    instance: Option<&'w str>,
) -> Planned<'w> {
    let entities = world.entities();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut count = 0usize;
    with_chunks(world, id, |chunks| {
        for (chunk, &(rows, access)) in chunks.iter().enumerate() {
            if let (ColumnAccess::Dense(_), Some(start)) = (access, runs_seen.start(entities, rows))
            {
                // The chunk's entities are a run of the entity list: one piece, no look-ups
                // (a table or set filled by one batch spawn, or by a load).
                pieces.push(Piece {
                    start: start as u32,
                    len: rows.len() as u32,
                    chunk: chunk as u32,
                    row: 0,
                });
                count += rows.len();
                continue;
            }
            for (row, &entity) in rows.iter().enumerate() {
                if let ColumnAccess::Sparse(lookup) = access {
                    if !lookup.contains(entity) {
                        continue;
                    }
                }
                let start = entities
                    .position(entity)
                    .expect("the storage holds live entities") as u32;
                let (chunk, row) = (chunk as u32, row as u32);
                match pieces.last_mut() {
                    Some(p)
                        if p.chunk == chunk && p.row + p.len == row && p.start + p.len == start =>
                    {
                        p.len += 1
                    }
                    _ => pieces.push(Piece {
                        start,
                        len: 1,
                        chunk,
                        row,
                    }),
                }
                count += 1;
            }
        }
    });
    pieces.sort_unstable_by_key(|p| p.start);
    let mut runs: Vec<(u32, u32)> = Vec::with_capacity(pieces.len());
    for p in &pieces {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == p.start => *len += p.len,
            _ => runs.push((p.start, p.len)),
        }
    }
    Planned {
        entry,
        id,
        instance,
        pieces,
        runs,
        count,
    }
}

/// Which chunk entity slices of one save are runs of the entity list: a table's entities
/// are one slice for all its columns, compared with the list once, not once per column.
#[derive(Default)]
struct RunCache {
    /// `(slice address, length, start in the list or None)` of slices compared so far.
    seen: Vec<(*const Entity, usize, Option<usize>)>,
}

impl RunCache {
    /// Where `rows` start in the entity list, if they are a run of it in order (checked
    /// with one block compare, once per slice).
    fn start(&mut self, entities: &crate::entities::Entities, rows: &[Entity]) -> Option<usize> {
        let key = (rows.as_ptr(), rows.len());
        if let Some(&(_, _, start)) = self.seen.iter().find(|&&(p, n, _)| (p, n) == key) {
            return start;
        }
        let start = entities.position(*rows.first()?).filter(|&start| {
            let alive = entities.alive().get(start..start + rows.len());
            alive.is_some_and(|alive| Entity::same_run(alive, rows))
        });
        if self.seen.len() < 64 {
            self.seen.push((key.0, key.1, start));
        }
        start
    }
}

/// One chunk of a column: its entities, and how the column is reached in it.
type Chunk<'a, S> = (&'a [Entity], ColumnAccess<'a, <S as Storage>::Lookup>);

/// Calls `f` with the storage's chunks of the entities holding `id` (the order is the
/// storage's, the same on every call while the world is not changed).
fn with_chunks<S: Storage, R>(
    world: &World<S>,
    id: ComponentId,
    f: impl FnOnce(&[Chunk<'_, S>]) -> R,
) -> R {
    let mut descriptor = QueryDescriptor::default();
    descriptor.push(id, SlotRole::Required);
    let mut cache = S::QueryCache::default();
    let storage = world.storage();
    storage.update_query_cache(&mut cache, &descriptor, world.components());
    let chunks: Vec<Chunk<'_, S>> = storage
        .query_chunks(&cache, &descriptor, world.entities().alive())
        .map(|chunk| (chunk.entities(), chunk.column(0)))
        .collect();
    f(&chunks)
}

/// Calls `write` with a pointer to each value of `column`, in row order.
fn for_each_value<S: Storage, E>(
    world: &World<S>,
    column: &Planned<'_>,
    size: usize,
    mut write: impl FnMut(NonNull<u8>) -> Result<(), E>,
) -> Result<(), E> {
    with_chunks(world, column.id, |chunks| {
        for piece in &column.pieces {
            let (rows, access) = chunks[piece.chunk as usize];
            let range = piece.row as usize..(piece.row + piece.len) as usize;
            match access {
                ColumnAccess::Dense(base) => {
                    for row in range {
                        // SAFETY: row `row` of a dense chunk column is at `base + row * size`,
                        // initialised and valid while `&World` is borrowed.
                        write(unsafe { base.add(row * size) })?;
                    }
                }
                ColumnAccess::Sparse(lookup) => {
                    for &entity in &rows[range] {
                        write(
                            lookup
                                .lookup(entity)
                                .expect("planned rows hold the component"),
                        )?;
                    }
                }
                ColumnAccess::Absent => unreachable!("planned rows hold the component"),
            }
        }
        Ok(())
    })
}

/// The `components` field.
struct Columns<'a, 'w, L, S: Storage> {
    registry: &'a SnapshotRegistry<L>,
    world: &'w World<S>,
    plan: &'a [Planned<'w>],
}

impl<L: Entries, S: Storage> Serialize for Columns<'_, '_, L, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut seq = serializer.serialize_seq(Some(self.plan.len()))?;
        for column in self.plan {
            seq.serialize_element(&ColumnOut {
                registry: self.registry,
                world: self.world,
                column,
            })?;
        }
        seq.end()
    }
}

/// One column.
struct ColumnOut<'a, 'w, L, S: Storage> {
    registry: &'a SnapshotRegistry<L>,
    world: &'w World<S>,
    column: &'a Planned<'w>,
}

impl<L: Entries, S: Storage> Serialize for ColumnOut<'_, '_, L, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let column = self.column;
        let entry = &self.registry.components[column.entry];
        let mut out = serializer.serialize_struct("Column", 4)?;
        out.serialize_field("name", &*entry.name)?;
        out.serialize_field("instance", &column.instance)?;
        out.serialize_field("rows", &column.runs)?;
        match &entry.kind {
            ComponentKind::Typed(info) => self.registry.list.dispatch(
                info.slot,
                TypedValuesField {
                    out: &mut out,
                    world: self.world,
                    column,
                },
            )?,
            ComponentKind::Dynamic(info) => out.serialize_field(
                "values",
                &DynamicValues {
                    world: self.world,
                    column,
                    info,
                },
            )?,
        }
        out.end()
    }
}

/// Writes the `values` field of a typed column, with the entry's type.
struct TypedValuesField<'a, 'w, O, S: Storage> {
    out: &'a mut O,
    world: &'w World<S>,
    column: &'a Planned<'w>,
}

impl<O: SerializeStruct, S: Storage> TypedVisitor for TypedValuesField<'_, '_, O, S> {
    type Output = Result<(), O::Error>;

    fn component<T: Component + Serialize + serde::de::DeserializeOwned>(self) -> Self::Output {
        self.out.serialize_field(
            "values",
            &TypedValues::<T, S> {
                world: self.world,
                column: self.column,
                _type: std::marker::PhantomData,
            },
        )
    }

    fn resource<R: Resource + Serialize + serde::de::DeserializeOwned>(self) -> Self::Output {
        Err(O::Error::custom(
            "a resource entry used as a component column",
        ))
    }
}

/// A typed column's values, read in place.
struct TypedValues<'a, 'w, T, S: Storage> {
    world: &'w World<S>,
    column: &'a Planned<'w>,
    _type: std::marker::PhantomData<fn() -> T>,
}

impl<T: Component + Serialize, S: Storage> Serialize for TypedValues<'_, '_, T, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        if serializer.is_human_readable() {
            // Non-finite floats as strings (`nonfinite`): JSON has no literal for them and
            // would write `null`, which no float reads back.
            self.serialize_with(serializer, |seq, value| {
                seq.serialize_element(&NonFiniteValue(value))
            })
        } else {
            self.serialize_with(serializer, |seq, value| seq.serialize_element(value))
        }
    }
}

impl<T: Component + Serialize, S: Storage> TypedValues<'_, '_, T, S> {
    /// Writes the column's values in row order, each with `element`.
    #[inline]
    fn serialize_with<Ser: Serializer>(
        &self,
        serializer: Ser,
        mut element: impl FnMut(&mut Ser::SerializeSeq, &T) -> Result<(), Ser::Error>,
    ) -> Result<Ser::Ok, Ser::Error> {
        let column = self.column;
        let mut seq = serializer.serialize_seq(Some(column.count))?;
        with_chunks(self.world, column.id, |chunks| {
            for piece in &column.pieces {
                let (rows, access) = chunks[piece.chunk as usize];
                let range = piece.row as usize..(piece.row + piece.len) as usize;
                match access {
                    ColumnAccess::Dense(base) => {
                        // SAFETY: a dense chunk column holds one initialised value of
                        // component `id` (a `T`: the registry's type for it) per row,
                        // contiguously from `base`, valid while `&World` is borrowed (the
                        // `Storage` contract); the piece's rows are rows of the chunk.
                        let values = unsafe {
                            std::slice::from_raw_parts(base.cast::<T>().as_ptr(), rows.len())
                        };
                        values[range]
                            .iter()
                            .try_for_each(|value| element(&mut seq, value))?;
                    }
                    ColumnAccess::Sparse(lookup) => {
                        for &entity in &rows[range] {
                            let ptr = lookup
                                .lookup(entity)
                                .expect("planned rows hold the component");
                            // SAFETY: the look-up points to the entity's initialised `T`,
                            // valid while `&World` is borrowed.
                            element(&mut seq, unsafe { ptr.cast::<T>().as_ref() })?;
                        }
                    }
                    ColumnAccess::Absent => unreachable!("planned rows hold the component"),
                }
            }
            Ok(())
        })?;
        seq.end()
    }
}

/// A run-time column's values, as byte strings.
struct DynamicValues<'a, 'w, S: Storage> {
    world: &'w World<S>,
    column: &'a Planned<'w>,
    info: &'a DynamicInfo,
}

impl<S: Storage> Serialize for DynamicValues<'_, '_, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let size = self.info.layout.size();
        let mut buffer = Vec::new();
        let mut seq = serializer.serialize_seq(Some(self.column.count))?;
        let mut write = |ptr: NonNull<u8>| {
            let bytes: &[u8] = match self.info.codec.0 {
                // SAFETY: `ptr` points to an initialised value of the world's component,
                // which has no drop function (the entry has none: the registry refuses plain
                // bytes with one, and `plan` matched the world's component by drop nature),
                // so its `size` bytes are initialised (`World::insert_by_id`'s rule for
                // plain-data run-time components).
                Codec::PlainBytes => unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size) },
                Codec::Functions { save, .. } => {
                    buffer.clear();
                    // SAFETY: `ptr` points to an initialised value of a component the entry
                    // matches (name, layout, drop nature), which the codec's maker promised
                    // `save` reads (`DynamicCodec::functions`).
                    unsafe { save(ptr, &mut buffer) };
                    &buffer
                }
            };
            seq.serialize_element(&Bytes(bytes))
        };
        for_each_value(self.world, self.column, size, &mut write)?;
        seq.end()
    }
}

/// Bytes written as a byte string.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// The `hierarchy` field: `(child row, parent row)` pairs, parents in row order, each
/// parent's children in order.
struct Links<'w, S: Storage>(&'w World<S>);

impl<S: Storage> Serialize for Links<'_, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let world = self.0;
        let Some(ids) = world.hierarchy else {
            return serializer.serialize_seq(Some(0))?.end();
        };
        let position = |e: Entity| {
            world
                .entities()
                .position(e)
                .expect("linked entities are live") as u32
        };
        // Parents in row order, so the bytes do not depend on the storage's order.
        let mut parents: Vec<(u32, Entity)> = with_chunks(world, ids.children, |chunks| {
            let mut parents = Vec::new();
            for &(rows, access) in chunks {
                for &parent in rows {
                    if let ColumnAccess::Sparse(lookup) = access {
                        if !lookup.contains(parent) {
                            continue;
                        }
                    }
                    parents.push((position(parent), parent));
                }
            }
            parents
        });
        parents.sort_unstable_by_key(|&(row, _)| row);
        let links: Vec<(u32, u32)> = parents
            .iter()
            .flat_map(|&(row, parent)| {
                let children = world.children(parent).expect("a parent is live");
                children.map(move |child| (position(child), row))
            })
            .collect();
        links.serialize(serializer)
    }
}

/// The `resources` field.
struct SavedResources<'a, L, S: Storage> {
    registry: &'a SnapshotRegistry<L>,
    world: &'a World<S>,
}

impl<L: Entries, S: Storage> Serialize for SavedResources<'_, L, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let resources = &self.world.resources;
        let present: Vec<_> = self
            .registry
            .resources
            .iter()
            .filter(|entry| (entry.contains)(resources))
            .collect();
        let mut seq = serializer.serialize_seq(Some(present.len()))?;
        for entry in present {
            seq.serialize_element(&ResourceOut {
                registry: self.registry,
                world: self.world,
                name: &entry.name,
                slot: entry.slot,
            })?;
        }
        seq.end()
    }
}

/// One resource: `{ name, value }`.
struct ResourceOut<'a, L, S: Storage> {
    registry: &'a SnapshotRegistry<L>,
    world: &'a World<S>,
    name: &'a str,
    slot: usize,
}

impl<L: Entries, S: Storage> Serialize for ResourceOut<'_, L, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut out = serializer.serialize_struct("Resource", 2)?;
        out.serialize_field("name", self.name)?;
        self.registry.list.dispatch(
            self.slot,
            ResourceField {
                out: &mut out,
                world: self.world,
            },
        )?;
        out.end()
    }
}

/// Writes the `value` field of a resource, with the entry's type.
struct ResourceField<'a, O, S: Storage> {
    out: &'a mut O,
    world: &'a World<S>,
}

impl<O: SerializeStruct, S: Storage> TypedVisitor for ResourceField<'_, O, S> {
    type Output = Result<(), O::Error>;

    fn component<T: Component + Serialize + serde::de::DeserializeOwned>(self) -> Self::Output {
        Err(O::Error::custom("a component entry used as a resource"))
    }

    fn resource<R: Resource + Serialize + serde::de::DeserializeOwned>(self) -> Self::Output {
        match self.world.resource::<R>() {
            Some(value) => self.out.serialize_field("value", &NonFiniteValue(value)),
            None => Err(O::Error::custom("the resource was removed while saving")),
        }
    }
}
