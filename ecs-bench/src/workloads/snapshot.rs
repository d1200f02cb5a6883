//! World snapshots (`ecs_core::snapshot`): the community set's `serialize` (a small world
//! to a snapshot and back, checked equal) and a million entities saved and loaded in the
//! binary format (postcard), with throughput. hecs runs the same three on its column
//! serializer with the same format (feature `peers`).

use ecs_core::snapshot::{Entries, SnapshotRegistry};
use ecs_core::{Storage, World};

use super::community::insert_bundle;
use super::{info, sizes, Builtin, InfoExt};
use crate::components::*;
use crate::workload::{prepared_with_bytes, DynWorkload, Prepared, Workload, WorkloadInfo};

/// The snapshot workloads.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    vec![
        Box::new(Serialize(
            info(
                Builtin::Serialize,
                "whole world (Transform, Position, Rotation, Velocity) to a postcard snapshot \
                 and back into a new world, checked equal",
                sizes(1_000, 1_000, 50),
                "entities",
            )
            .repeatable(),
        )),
        Box::new(Save(
            info(
                Builtin::SnapshotSave,
                "save a world of (Position, Velocity, Health) to postcard bytes (MB/s of output)",
                sizes(1_000_000, 100_000, 500),
                "entities",
            )
            .repeatable(),
        )),
        Box::new(Load(
            info(
                Builtin::SnapshotLoad,
                "load postcard bytes of (Position, Velocity, Health) into a new world (MB/s of \
                 input)",
                sizes(1_000_000, 100_000, 500),
                "entities",
            )
            .repeatable(),
        )),
    ]
}

/// The registry of the `serialize` workload's components.
pub fn bundle_registry() -> SnapshotRegistry<impl Entries> {
    SnapshotRegistry::new()
        .component::<Transform>("Transform")
        .component::<Position>("Position")
        .component::<Rotation>("Rotation")
        .component::<Velocity>("Velocity")
}

/// The registry of the million-entity workloads' components.
pub fn body_registry() -> SnapshotRegistry<impl Entries> {
    SnapshotRegistry::new()
        .component::<Position>("Position")
        .component::<Velocity>("Velocity")
        .component::<Health>("Health")
}

/// Entity `i`'s components in the million-entity workloads.
pub fn body(i: usize) -> (Position, Velocity, Health) {
    let x = i as f32;
    (
        Position([x, 1.0, -x]),
        Velocity([1.0, 0.5, (i % 7) as f32]),
        Health((i % 1_000) as u32),
    )
}

/// The digest of one entity's (Position, Velocity, Health), any order of entities.
pub(crate) fn body_digest<'a>(
    items: impl Iterator<Item = (&'a Position, &'a Velocity, &'a Health)>,
) -> u64 {
    let mut digest = Digest::default();
    let mut count = 0;
    for (p, v, h) in items {
        digest.add(hash_f32s(&p.0) ^ mix(hash_f32s(&v.0)) ^ mix(mix(u64::from(h.0))));
        count += 1;
    }
    digest.finish(count)
}

/// The digest of the `serialize` workload's components.
pub(crate) fn bundle_digest<'a>(
    items: impl Iterator<Item = (&'a Transform, &'a Position, &'a Rotation, &'a Velocity)>,
) -> u64 {
    let mut digest = Digest::default();
    let mut count = 0;
    for (t, p, r, v) in items {
        digest.add(
            hash_f32s(&t.0) ^ mix(hash_f32s(&p.0)) ^ mix(mix(hash_f32s(&r.0))) ^ hash_f32s(&v.0),
        );
        count += 1;
    }
    digest.finish(count)
}

/// The checksum of a round trip's copy: its digest when it equals the original's
/// (`expected`), 0 when the copy differs, so a wrong load never passes the checksum check.
pub(crate) fn copy_checksum(digest: u64, expected: u64) -> u64 {
    if digest == expected {
        digest
    } else {
        0
    }
}

/// A world of `n` entities of [`body`], what `snapshot_save` and `snapshot_load` start from.
fn body_world<S: Storage>(n: usize) -> World<S> {
    let mut world = World::<S>::new();
    world.spawn_batch((0..n).map(body));
    world
}

fn world_bundle_digest<S: Storage>(world: &mut World<S>) -> u64 {
    bundle_digest(world.query::<(&Transform, &Position, &Rotation, &Velocity)>())
}

fn world_body_digest<S: Storage>(world: &mut World<S>) -> u64 {
    body_digest(world.query::<(&Position, &Velocity, &Health)>())
}

/// `serialize`.
pub struct Serialize(WorkloadInfo);

impl Workload for Serialize {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let mut world = World::<S>::new();
        world.spawn_batch((0..n).map(insert_bundle));
        let expected = world_bundle_digest(&mut world);
        let registry = bundle_registry();
        prepared_with_bytes(
            (world, None::<World<S>>, 0usize),
            move |(world, copy, len)| {
                let bytes = postcard::to_allocvec(&registry.save(world)).expect("a world saves");
                let mut loaded = World::<S>::new();
                registry
                    .load(&mut loaded, &mut postcard::Deserializer::from_bytes(&bytes))
                    .expect("a saved world loads");
                *len = bytes.len();
                *copy = Some(loaded);
            },
            move |(_, copy, _)| {
                copy_checksum(copy.as_mut().map_or(0, world_bundle_digest), expected)
            },
            |(_, _, len)| *len as u64,
        )
    }
}

/// `snapshot_save`.
pub struct Save(WorkloadInfo);

impl Workload for Save {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let world = body_world::<S>(n);
        let registry = body_registry();
        let check = body_registry();
        prepared_with_bytes(
            (world, Vec::<u8>::new()),
            move |(world, bytes)| {
                *bytes = postcard::to_allocvec(&registry.save(world)).expect("a world saves");
            },
            move |(_, bytes)| {
                let mut loaded = World::<S>::new();
                match check.load(&mut loaded, &mut postcard::Deserializer::from_bytes(bytes)) {
                    Ok(_) => world_body_digest(&mut loaded),
                    Err(_) => 0,
                }
            },
            |(_, bytes)| bytes.len() as u64,
        )
    }
}

/// `snapshot_load`.
pub struct Load(WorkloadInfo);

impl Workload for Load {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, n: usize) -> Box<dyn Prepared> {
        let world = body_world::<S>(n);
        let registry = body_registry();
        let bytes = postcard::to_allocvec(&registry.save(&world)).expect("a world saves");
        drop(world);
        prepared_with_bytes(
            (bytes, None::<World<S>>),
            move |(bytes, copy)| {
                let mut loaded = World::<S>::new();
                registry
                    .load(&mut loaded, &mut postcard::Deserializer::from_bytes(bytes))
                    .expect("a saved world loads");
                *copy = Some(loaded);
            },
            |(_, copy)| copy.as_mut().map_or(0, world_body_digest),
            |(bytes, _)| bytes.len() as u64,
        )
    }
}
