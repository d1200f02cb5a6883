//! hecs on the snapshot workloads, through its column serializer
//! (`hecs::serialize::column`, feature `column-serialize`) with the same format as ours
//! (postcard) and the same components: a context naming each component type, as hecs's
//! documentation shows.
//!
//! This is hecs's fastest documented path: its documentation calls the column serializer
//! "fast" and "efficient, compact", and its other one (`serialize::row`, one entity at a
//! time) "less efficient". Saving writes each archetype's columns whole; loading spawns each
//! archetype's entities as one column batch (`World::spawn_column_batch_at`), with no
//! per-entity insert.

use hecs::serialize::column::{
    deserialize, deserialize_column, serialize, try_serialize, try_serialize_id,
    DeserializeContext, SerializeContext,
};
use hecs::{Archetype, ColumnBatchBuilder, ColumnBatchType, World};
use serde::de::SeqAccess;
use serde::ser::SerializeTuple;
use serde::{Deserialize, Serialize, Serializer};

use super::hecs::HecsPeer;
use super::SnapshotPeer;
use crate::components::*;
use crate::workload::{prepared_with_bytes, Prepared};
use crate::workloads::community::insert_bundle;
use crate::workloads::snapshot::{body, body_digest, bundle_digest, copy_checksum};

/// The stable ids of the components in a snapshot.
#[derive(Serialize, Deserialize, Clone, Copy)]
enum Id {
    Transform,
    Position,
    Rotation,
    Velocity,
    Health,
}

/// hecs's serialization context: every component type the workloads store.
#[derive(Default)]
struct Context {
    components: Vec<Id>,
}

impl SerializeContext for Context {
    fn component_count(&self, archetype: &Archetype) -> usize {
        usize::from(archetype.has::<Transform>())
            + usize::from(archetype.has::<Position>())
            + usize::from(archetype.has::<Rotation>())
            + usize::from(archetype.has::<Velocity>())
            + usize::from(archetype.has::<Health>())
    }

    fn serialize_component_ids<S: SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        try_serialize_id::<Transform, _, _>(archetype, &Id::Transform, &mut out)?;
        try_serialize_id::<Position, _, _>(archetype, &Id::Position, &mut out)?;
        try_serialize_id::<Rotation, _, _>(archetype, &Id::Rotation, &mut out)?;
        try_serialize_id::<Velocity, _, _>(archetype, &Id::Velocity, &mut out)?;
        try_serialize_id::<Health, _, _>(archetype, &Id::Health, &mut out)?;
        out.end()
    }

    fn serialize_components<S: SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        try_serialize::<Transform, _>(archetype, &mut out)?;
        try_serialize::<Position, _>(archetype, &mut out)?;
        try_serialize::<Rotation, _>(archetype, &mut out)?;
        try_serialize::<Velocity, _>(archetype, &mut out)?;
        try_serialize::<Health, _>(archetype, &mut out)?;
        out.end()
    }
}

impl DeserializeContext for Context {
    fn deserialize_component_ids<'de, A: SeqAccess<'de>>(
        &mut self,
        mut seq: A,
    ) -> Result<ColumnBatchType, A::Error> {
        self.components.clear();
        let mut batch = ColumnBatchType::new();
        while let Some(id) = seq.next_element()? {
            match id {
                Id::Transform => batch.add::<Transform>(),
                Id::Position => batch.add::<Position>(),
                Id::Rotation => batch.add::<Rotation>(),
                Id::Velocity => batch.add::<Velocity>(),
                Id::Health => batch.add::<Health>(),
            };
            self.components.push(id);
        }
        Ok(batch)
    }

    fn deserialize_components<'de, A: SeqAccess<'de>>(
        &mut self,
        entity_count: u32,
        mut seq: A,
        batch: &mut ColumnBatchBuilder,
    ) -> Result<(), A::Error> {
        for component in &self.components {
            match component {
                Id::Transform => deserialize_column::<Transform, _>(entity_count, &mut seq, batch)?,
                Id::Position => deserialize_column::<Position, _>(entity_count, &mut seq, batch)?,
                Id::Rotation => deserialize_column::<Rotation, _>(entity_count, &mut seq, batch)?,
                Id::Velocity => deserialize_column::<Velocity, _>(entity_count, &mut seq, batch)?,
                Id::Health => deserialize_column::<Health, _>(entity_count, &mut seq, batch)?,
            }
        }
        Ok(())
    }
}

/// A hecs world as serde data (its column layout).
struct Columns<'a>(&'a World);

impl Serialize for Columns<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(self.0, &mut Context::default(), serializer)
    }
}

fn save(world: &World) -> Vec<u8> {
    postcard::to_allocvec(&Columns(world)).expect("a hecs world saves")
}

fn load(bytes: &[u8]) -> World {
    deserialize(
        &mut Context::default(),
        &mut postcard::Deserializer::from_bytes(bytes),
    )
    .expect("a saved hecs world loads")
}

fn world_body_digest(world: &mut World) -> u64 {
    body_digest(
        world
            .query_mut::<(&Position, &Velocity, &Health)>()
            .into_iter(),
    )
}

fn world_bundle_digest(world: &mut World) -> u64 {
    bundle_digest(
        world
            .query_mut::<(&Transform, &Position, &Rotation, &Velocity)>()
            .into_iter(),
    )
}

impl SnapshotPeer for HecsPeer {
    fn serialize(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(insert_bundle)).for_each(drop);
        let expected = world_bundle_digest(&mut world);
        prepared_with_bytes(
            (world, None::<World>, 0usize),
            |(world, copy, len)| {
                let bytes = save(world);
                *len = bytes.len();
                *copy = Some(load(&bytes));
            },
            move |(_, copy, _)| {
                copy_checksum(copy.as_mut().map_or(0, world_bundle_digest), expected)
            },
            |(_, _, len)| *len as u64,
        )
    }

    fn snapshot_save(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(body)).for_each(drop);
        prepared_with_bytes(
            (world, Vec::<u8>::new()),
            |(world, bytes)| *bytes = save(world),
            |(_, bytes)| world_body_digest(&mut load(bytes)),
            |(_, bytes)| bytes.len() as u64,
        )
    }

    fn snapshot_load(self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        world.spawn_batch((0..n).map(body)).for_each(drop);
        let bytes = save(&world);
        drop(world);
        prepared_with_bytes(
            (bytes, None::<World>),
            |(bytes, copy)| *copy = Some(load(bytes)),
            |(_, copy)| copy.as_mut().map_or(0, world_body_digest),
            |(bytes, _)| bytes.len() as u64,
        )
    }
}
