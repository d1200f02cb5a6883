//! Saving: [`SaveWorld`] serializes a world straight from its storage, column by column.
//!
//! Nothing is copied out first: each column is walked twice through the storage's own query
//! chunks (the archetype backend's table columns, a sparse set's dense array), once for the
//! rows it covers (entity positions only, to write them as runs) and once to serialize its
//! values in place.

use std::ptr::NonNull;

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::registry::{
    ComponentKind, DynamicCodec, DynamicInfo, Entries, SnapshotRegistry, TypedVisitor,
};
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
    ///   entities: [handle, ...],                         // every live entity
    ///   components: [ { name, instance, rows: [[first, count], ...], values: [...] }, ... ],
    ///   hierarchy: [[child, parent], ...],               // rows; each parent's children in order
    ///   resources: [ { name, value }, ... ] }
    /// ```
    /// A column's rows are runs of positions in `entities`; its values follow them in order.
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
        let plan = plan(self.registry, self.world);
        let mut out = serializer.serialize_struct("Snapshot", 5)?;
        out.serialize_field("format", &FORMAT)?;
        out.serialize_field("entities", self.world.entities().alive())?;
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

/// One column to write: a registry entry's component (or one of its named instances) and
/// the rows holding it.
struct Planned<'w> {
    entry: usize,
    id: ComponentId,
    instance: Option<&'w str>,
    runs: Vec<(u32, u32)>,
    count: usize,
}

/// Every column the save writes, in order, with its rows.
fn plan<'w, L, S: Storage>(
    registry: &SnapshotRegistry<L>,
    world: &'w World<S>,
) -> Vec<Planned<'w>> {
    let components = world.components();
    let mut bases: Vec<Option<ComponentId>> = registry
        .components
        .iter()
        .map(|entry| match &entry.kind {
            ComponentKind::Typed(info) => components.id_of(info.type_id),
            ComponentKind::Dynamic(info) => {
                components.iter().find(|c| info.matches(c)).map(|c| c.id())
            }
        })
        .collect();
    let mut columns: Vec<Planned<'w>> = Vec::new();
    for (entry, base) in bases.iter_mut().enumerate() {
        let Some(base) = *base else { continue };
        columns.push(planned(world, entry, base, None));
        let mut instances: Vec<Planned<'w>> = components
            .iter()
            .filter_map(|info| {
                let instance = info.instance().filter(|i| i.of() == base)?;
                let name = components.names().text(instance.name());
                Some(planned(world, entry, info.id(), Some(name)))
            })
            .collect();
        instances.sort_by(|a, b| a.instance.cmp(&b.instance));
        columns.extend(instances);
    }
    columns.retain(|c| c.count > 0);
    columns
}

/// The rows of component `id` as runs of positions in the entity list.
fn planned<'w, S: Storage>(
    world: &World<S>,
    entry: usize,
    id: ComponentId,
    instance: Option<&'w str>,
) -> Planned<'w> {
    let entities = world.entities();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let mut count = 0usize;
    let mut add = |entity: Entity| {
        let pos = entities
            .position(entity)
            .expect("the storage holds live entities") as u32;
        match runs.last_mut() {
            Some((start, len)) if *start + *len == pos => *len += 1,
            _ => runs.push((pos, 1)),
        }
        count += 1;
    };
    let _: Result<(), std::convert::Infallible> = for_each_chunk(world, id, |rows, access| {
        match access {
            ColumnAccess::Dense(_) => rows.iter().for_each(|&e| add(e)),
            ColumnAccess::Sparse(lookup) => rows
                .iter()
                .filter(|&&e| lookup.contains(e))
                .for_each(|&e| add(e)),
            ColumnAccess::Absent => {}
        }
        Ok(())
    });
    Planned {
        entry,
        id,
        instance,
        runs,
        count,
    }
}

/// Calls `visit` with each of the storage's chunks of entities holding `id`.
fn for_each_chunk<S: Storage, E>(
    world: &World<S>,
    id: ComponentId,
    mut visit: impl FnMut(&[Entity], ColumnAccess<'_, S::Lookup>) -> Result<(), E>,
) -> Result<(), E> {
    let mut descriptor = QueryDescriptor::default();
    descriptor.push(id, SlotRole::Required);
    let mut cache = S::QueryCache::default();
    let storage = world.storage();
    storage.update_query_cache(&mut cache, &descriptor, world.components());
    for chunk in storage.query_chunks(&cache, &descriptor, world.entities().alive()) {
        visit(chunk.entities(), chunk.column(0))?;
    }
    Ok(())
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
                id: self.column.id,
                count: self.column.count,
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
struct TypedValues<'w, T, S: Storage> {
    world: &'w World<S>,
    id: ComponentId,
    count: usize,
    _type: std::marker::PhantomData<fn() -> T>,
}

impl<T: Component + Serialize, S: Storage> Serialize for TypedValues<'_, T, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut seq = serializer.serialize_seq(Some(self.count))?;
        for_each_chunk(self.world, self.id, |rows, access| match access {
            ColumnAccess::Dense(base) => {
                // SAFETY: a dense chunk column holds one initialised value of component `id`
                // (a `T`: the registry's type for it) per row, contiguously from `base`,
                // valid while `&World` is borrowed (the `Storage` contract).
                let values =
                    unsafe { std::slice::from_raw_parts(base.cast::<T>().as_ptr(), rows.len()) };
                values
                    .iter()
                    .try_for_each(|value| seq.serialize_element(value))
            }
            ColumnAccess::Sparse(lookup) => {
                rows.iter()
                    .try_for_each(|&entity| match lookup.lookup(entity) {
                        // SAFETY: the look-up points to the entity's initialised `T`, valid while
                        // `&World` is borrowed.
                        Some(ptr) => seq.serialize_element(unsafe { ptr.cast::<T>().as_ref() }),
                        None => Ok(()),
                    })
            }
            ColumnAccess::Absent => Ok(()),
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
            let bytes: &[u8] = match self.info.codec {
                // SAFETY: `ptr` points to an initialised value of the plain-data component
                // (the registry refuses plain bytes for a component with a drop function),
                // whose `size` bytes are initialised (`World::insert_bytes`' rule).
                DynamicCodec::PlainBytes => unsafe {
                    std::slice::from_raw_parts(ptr.as_ptr(), size)
                },
                DynamicCodec::Functions { save, .. } => {
                    buffer.clear();
                    // SAFETY: `ptr` points to an initialised value of the component.
                    unsafe { save(ptr, &mut buffer) };
                    &buffer
                }
            };
            seq.serialize_element(&Bytes(bytes))
        };
        for_each_chunk(self.world, self.column.id, |rows, access| match access {
            ColumnAccess::Dense(base) => (0..rows.len()).try_for_each(|row| {
                // SAFETY: row `row` of a dense column is at `base + row * size`.
                write(unsafe { base.add(row * size) })
            }),
            ColumnAccess::Sparse(lookup) => rows
                .iter()
                .filter_map(|&entity| lookup.lookup(entity))
                .try_for_each(&mut write),
            ColumnAccess::Absent => Ok(()),
        })?;
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

/// The `hierarchy` field: `(child row, parent row)` pairs, each parent's children in order.
struct Links<'w, S: Storage>(&'w World<S>);

impl<S: Storage> Serialize for Links<'_, S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let world = self.0;
        let Some(ids) = world.hierarchy else {
            return serializer.serialize_seq(Some(0))?.end();
        };
        let mut children = 0usize;
        let _: Result<(), std::convert::Infallible> =
            for_each_chunk(world, ids.child_of, |rows, access| {
                children += match access {
                    ColumnAccess::Dense(_) => rows.len(),
                    ColumnAccess::Sparse(lookup) => {
                        rows.iter().filter(|&&e| lookup.contains(e)).count()
                    }
                    ColumnAccess::Absent => 0,
                };
                Ok(())
            });
        let position = |e: Entity| {
            world
                .entities()
                .position(e)
                .expect("linked entities are live") as u32
        };
        let mut seq = serializer.serialize_seq(Some(children))?;
        for_each_chunk(world, ids.children, |rows, access| {
            for &parent in rows {
                if let ColumnAccess::Sparse(lookup) = access {
                    if !lookup.contains(parent) {
                        continue;
                    }
                }
                let Ok(kids) = world.children(parent) else {
                    continue;
                };
                for child in kids {
                    seq.serialize_element(&(position(child), position(parent)))?;
                }
            }
            Ok(())
        })?;
        seq.end()
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
            Some(value) => self.out.serialize_field("value", value),
            None => Err(O::Error::custom("the resource was removed while saving")),
        }
    }
}
