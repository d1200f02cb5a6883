//! Applying a checked snapshot to a world: one check against the world, then steps that
//! cannot fail.
//!
//! The rows are cut into *segments* at every run boundary of every column: within a
//! segment each column covers every row or none, and the covered values are contiguous in
//! the column's buffer. Each segment is stored with one [`Storage::spawn_columns`] call, so
//! a snapshot of one component set (the common case) is one call moving each column's
//! values into place in one block.

use super::de::{render, Part};
use super::{Staged, StagedColumn};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::snapshot::error::{SnapshotError, SnapshotErrorKind};
use crate::snapshot::map::{EntityMap, Handles};
use crate::snapshot::registry::{Codec, ComponentKind, Entries, SnapshotRegistry};
use crate::storage::{ColumnValues, Storage};
use crate::world::World;

/// Commits `staged` (read and checked by `registry`) to `world`.
pub(super) fn commit<L: Entries, S: Storage>(
    registry: &SnapshotRegistry<L>,
    world: &mut World<S>,
    mut staged: Staged,
) -> Result<EntityMap, SnapshotError> {
    check_layouts(registry, world, &staged.columns)?;
    // Nothing below can fail; only user code (`MapEntities`, a replaced resource's `Drop`)
    // can panic, before the entities are allocated or after they are all stored.
    let ids = resolve(registry, world, &staged.columns);
    // Registering may have given the world its first hooked type.
    world.sync_reactions();
    let n = staged.entities.len();
    let base = world.prepare_loaded(n);
    remap(registry, &mut staged, world.entities().upcoming(n));
    world.alloc_loaded(n);
    // The loaded entities are rows `base..base + n` of the world's live list.
    store(world, base, &mut staged.columns, &ids);
    for column in &mut staged.columns {
        // Every value was moved into the storage by `store`.
        column.values.forget_all();
    }
    record(world, base, &staged.columns, &ids);
    for &(child, parent) in &staged.links {
        let alive = world.entities().alive();
        let (child, parent) = (alive[base + child as usize], alive[base + parent as usize]);
        world.link_loaded(child, parent);
    }
    for resource in staged.resources {
        let entry = &registry.resources[resource.entry];
        world
            .resources
            .insert_boxed(entry.type_id, entry.type_name, resource.value);
    }
    let new = Handles::of(&world.entities().alive()[base..base + n]);
    let map = EntityMap::new(staged.entities, new, staged.index);
    if world.reacts() {
        // The load is whole (links and resources in) before any hook sees it.
        world.after_load(base, n);
    }
    Ok(map)
}

/// A run-time component registered in the world under the registry's name must be the
/// registry's: the same layout (the loaded values would not fit another) and the same drop
/// nature (plain bytes, or the codec's values, are not values of a component that drops
/// differently).
fn check_layouts<L, S: Storage>(
    registry: &SnapshotRegistry<L>,
    world: &World<S>,
    columns: &[StagedColumn],
) -> Result<(), SnapshotError> {
    for (i, column) in columns.iter().enumerate() {
        let entry = &registry.components[column.entry];
        let ComponentKind::Dynamic(info) = &entry.kind else {
            continue;
        };
        let runtime = |c: &&crate::component::ComponentInfo| {
            c.type_id().is_none() && c.instance().is_none() && c.name() == info.descriptor.name
        };
        let components = world.components();
        let named: Vec<_> = components.iter().filter(runtime).collect();
        if named.is_empty() || named.iter().any(|c| info.matches(c)) {
            continue;
        }
        let kind = if named.iter().any(|c| info.same_place(c)) {
            info.drop_mismatch()
        } else {
            SnapshotErrorKind::LayoutMismatch(info.descriptor.name.to_string())
        };
        let at = render(&[
            Part::Field("components"),
            Part::Index(i),
            Part::Name(entry.name.to_string()),
        ]);
        return Err(SnapshotError::new(kind, at));
    }
    Ok(())
}

/// The world's component id of each column, registering components and instances the
/// world lacks.
fn resolve<L, S: Storage>(
    registry: &SnapshotRegistry<L>,
    world: &mut World<S>,
    columns: &[StagedColumn],
) -> Vec<ComponentId> {
    let ids: Vec<ComponentId> = columns
        .iter()
        .map(|column| {
            let base = match &registry.components[column.entry].kind {
                ComponentKind::Typed(info) => (info.register)(world.components_mut()),
                ComponentKind::Dynamic(info) => {
                    let found = world.components().iter().find(|c| info.matches(c));
                    match found {
                        Some(c) => c.id(),
                        None => world.register_dynamic(info.descriptor.clone()),
                    }
                }
            };
            match &column.instance {
                None => base,
                Some(name) => world
                    .register_instance(base, name)
                    .expect("a component of the registry can have named instances"),
            }
        })
        .collect();
    debug_assert!(
        {
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            sorted.windows(2).all(|w| w[0] != w[1])
        },
        "distinct columns are distinct components"
    );
    ids
}

/// Rewrites every handle inside the values to the loaded entity's (all were found in the
/// snapshot by the checks).
fn remap<L>(registry: &SnapshotRegistry<L>, staged: &mut Staged, new: &[Entity]) {
    let (old, index) = (&staged.entities, &staged.index);
    let mut mapper = |e: Entity| match index.position(old, e) {
        Some(row) => new[row],
        None => e,
    };
    for column in &mut staged.columns {
        let count = column.values.len();
        if count == 0 {
            continue;
        }
        // SAFETY: the buffer's first value, followed by `count - 1` more (`count > 0`).
        let base = unsafe { column.values.get_unchecked(0) };
        match &registry.components[column.entry].kind {
            ComponentKind::Typed(info) => {
                if let Some(map) = info.map {
                    // SAFETY: `count` initialised values of the entry's type at `base`,
                    // writable (the staging buffer is ours).
                    unsafe { map(base, count, &mut mapper) }
                }
            }
            ComponentKind::Dynamic(info) => {
                if let Codec::Functions {
                    map_entities: Some(map),
                    ..
                } = info.codec.0
                {
                    let size = info.layout.size();
                    for value in 0..count {
                        // SAFETY: value `value` of the buffer, initialised and writable.
                        unsafe { map(base.add(value * size), &mut mapper) }
                    }
                }
            }
        }
    }
}

/// Stores the loaded entities, one [`Storage::spawn_columns`] call per segment (see the
/// module docs).
fn store<S: Storage>(
    world: &mut World<S>,
    base: usize,
    columns: &mut [StagedColumn],
    ids: &[ComponentId],
) {
    let n = world.entities().len() - base;
    let runs: usize = columns.iter().map(|c| c.runs.len()).sum();
    let mut bounds: Vec<u32> = Vec::with_capacity(2 + 2 * runs);
    bounds.extend([0, n as u32]);
    for column in columns.iter() {
        bounds.extend(column.runs.iter().flat_map(|r| [r.start, r.end()]));
    }
    bounds.sort_unstable();
    bounds.dedup();
    let mut cursors = vec![0usize; columns.len()];
    for pair in bounds.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        let mut parts: Vec<ColumnValues<'_>> = Vec::with_capacity(columns.len());
        for (c, column) in columns.iter_mut().enumerate() {
            let cursor = &mut cursors[c];
            while column.runs.get(*cursor).is_some_and(|r| r.end() <= start) {
                *cursor += 1;
            }
            if let Some(run) = column.runs.get(*cursor).filter(|r| r.start <= start) {
                // The run covers the whole segment (every run boundary is a segment
                // boundary), so its values for these rows are contiguous from here.
                let value = run.offset + (start - run.start);
                // SAFETY: `value + (end - start) <= run.offset + run.len <= len`.
                let values = unsafe { column.values.get_unchecked(value as usize) };
                // The whole buffer is exactly this segment's values: the storage may take it.
                let whole = value == 0 && (end - start) as usize == column.values.len();
                parts.push(ColumnValues {
                    component: ids[c],
                    values,
                    buffer: whole.then_some(&mut column.values),
                });
            }
        }
        // SAFETY: the segment's entities were allocated and not stored (segments are
        // disjoint); the column ids are distinct (`resolve`); each pointer starts the
        // segment's `end - start` values of its column, initialised (the checks matched
        // values to rows) and handed over here once, since segments do not overlap (the
        // caller forgets them afterwards).
        unsafe { world.store_loaded(base + start as usize..base + end as usize, &mut parts) };
    }
}

/// Change logs (loaded components count as added) and the entity index (named instances).
fn record<S: Storage>(
    world: &mut World<S>,
    base: usize,
    columns: &[StagedColumn],
    ids: &[ComponentId],
) {
    for (column, &id) in columns.iter().zip(ids) {
        let tracked = world.components().info(id).tracks_changes();
        let named = column.instance.is_some();
        if !tracked && !named {
            continue;
        }
        for run in &column.runs {
            for row in run.start as usize..run.end() as usize {
                let entity = world.entities().alive()[base + row];
                if tracked {
                    world.changes_mut().on_added(id, entity);
                }
                if named {
                    world.index_loaded(entity, id);
                }
            }
        }
    }
}
