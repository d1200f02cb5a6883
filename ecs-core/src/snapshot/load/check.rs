//! The checks that need the whole snapshot: instance names unique per entity, parent links
//! forming a forest, and no handle inside a value naming an entity the snapshot lacks.

use hashbrown::HashMap;

use std::cell::Cell;

use super::de::{render, Part};
use super::{Run, Staged, StagedColumn};
use crate::entity::Entity;
use crate::snapshot::error::{SnapshotError, SnapshotErrorKind};
use crate::snapshot::registry::{Codec, ComponentKind, SnapshotRegistry};

/// Every check of a read snapshot, in order.
pub(super) fn check<L>(
    registry: &SnapshotRegistry<L>,
    staged: &mut Staged,
) -> Result<(), SnapshotError> {
    names(registry, &staged.columns)?;
    links(&staged.links, staged.entities.len())?;
    references(registry, staged)
}

/// The location `components[i] ("Name")` plus `rest`.
fn column_at<L>(
    registry: &SnapshotRegistry<L>,
    i: usize,
    column: &StagedColumn,
    rest: &[Part],
) -> String {
    let mut parts = vec![
        Part::Field("components"),
        Part::Index(i),
        Part::Name(registry.components[column.entry].name.to_string()),
    ];
    parts.extend(rest.iter().map(|p| match p {
        Part::Field(f) => Part::Field(f),
        Part::Index(i) => Part::Index(*i),
        Part::Name(n) => Part::Name(n.clone()),
    }));
    render(&parts)
}

/// No entity holds two named instances under one name (`World::insert_named` refuses the
/// second). A named instance called like an unnamed typed component the entity holds is
/// fine: the instance shadows the type's name, in the world as in the snapshot.
fn names<L>(registry: &SnapshotRegistry<L>, columns: &[StagedColumn]) -> Result<(), SnapshotError> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, column) in columns.iter().enumerate() {
        if let Some(name) = &column.instance {
            by_name.entry(name).or_default().push(i);
        }
    }
    for (name, holders) in by_name {
        if holders.len() < 2 {
            continue;
        }
        // Each column's runs are disjoint, so any overlap is between two columns.
        let mut runs: Vec<(Run, usize)> = holders
            .iter()
            .flat_map(|&c| columns[c].runs.iter().map(move |&run| (run, c)))
            .collect();
        runs.sort_unstable_by_key(|(run, _)| run.start);
        for pair in runs.windows(2) {
            let ((a, ca), (b, cb)) = (pair[0], pair[1]);
            if a.end() > b.start {
                let later = ca.max(cb);
                let kind = SnapshotErrorKind::NameTaken {
                    row: b.start,
                    name: name.to_owned(),
                };
                return Err(SnapshotError::new(
                    kind,
                    column_at(registry, later, &columns[later], &[]),
                ));
            }
        }
    }
    Ok(())
}

/// The parent links form a forest over the `n` rows: rows in range, no entity its own
/// parent or given two, no cycle.
fn links(links: &[(u32, u32)], n: usize) -> Result<(), SnapshotError> {
    if links.is_empty() {
        return Ok(());
    }
    const NO_PARENT: u32 = u32::MAX;
    let at = |i: usize| render(&[Part::Field("hierarchy"), Part::Index(i)]);
    let mut parent_of = vec![NO_PARENT; n];
    for (i, &(child, parent)) in links.iter().enumerate() {
        let out = [child, parent].into_iter().find(|&row| row as usize >= n);
        if let Some(row) = out {
            let kind = SnapshotErrorKind::RowOutOfRange {
                row: u64::from(row),
                entities: n,
            };
            return Err(SnapshotError::new(kind, at(i)));
        }
        let what = if child == parent {
            format!("the entity at row {child} is its own parent")
        } else if parent_of[child as usize] != NO_PARENT {
            format!("the entity at row {child} is given a second parent")
        } else {
            parent_of[child as usize] = parent;
            continue;
        };
        return Err(SnapshotError::new(
            SnapshotErrorKind::Hierarchy(what),
            at(i),
        ));
    }
    // Walk up from each child; a walk meeting a row of its own path has found a cycle.
    const UNSEEN: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNSEEN; n];
    let mut path = Vec::new();
    for (i, &(child, _)) in links.iter().enumerate() {
        let mut row = child;
        while row != NO_PARENT && state[row as usize] == UNSEEN {
            state[row as usize] = ON_PATH;
            path.push(row);
            row = parent_of[row as usize];
        }
        if row != NO_PARENT && state[row as usize] == ON_PATH {
            let what = format!("the parent links through row {row} form a cycle");
            return Err(SnapshotError::new(
                SnapshotErrorKind::Hierarchy(what),
                at(i),
            ));
        }
        for done in path.drain(..) {
            state[done as usize] = DONE;
        }
    }
    Ok(())
}

/// Every handle inside a value names an entity of the snapshot (each value is mapped with
/// a mapper that only looks the handle up).
fn references<L>(registry: &SnapshotRegistry<L>, staged: &mut Staged) -> Result<(), SnapshotError> {
    let (entities, index) = (&staged.entities, &staged.index);
    for (i, column) in staged.columns.iter_mut().enumerate() {
        let dangling: Cell<Option<Entity>> = Cell::new(None);
        let mut lookup = |e: Entity| {
            if dangling.get().is_none() && index.position(entities, e).is_none() {
                dangling.set(Some(e));
            }
            e
        };
        for value in 0..column.values.len() {
            // SAFETY: `value < len`: an initialised value of the column's component, which
            // the mapper only reads handles of (it answers each handle unchanged).
            let ptr = unsafe { column.values.get_unchecked(value) };
            match &registry.components[column.entry].kind {
                ComponentKind::Typed(info) => match info.map {
                    // SAFETY: the column holds values of the entry's type (read with it).
                    Some(map) => unsafe { map(ptr, 1, &mut lookup) },
                    None => break,
                },
                ComponentKind::Dynamic(info) => match info.codec.0 {
                    Codec::Functions {
                        map_entities: Some(map),
                        ..
                    } => {
                        // SAFETY: an initialised value of the run-time component, writable.
                        unsafe { map(ptr, &mut lookup) }
                    }
                    _ => break,
                },
            }
            if let Some(entity) = dangling.get() {
                let at = column_at(
                    registry,
                    i,
                    column,
                    &[Part::Field("values"), Part::Index(value)],
                );
                return Err(SnapshotError::new(
                    SnapshotErrorKind::DanglingEntity(entity),
                    at,
                ));
            }
        }
    }
    Ok(())
}
