//! What a trace did with each component, counted from the ops alone (the same on every
//! backend): the numbers that say why one layout wins on this program.

use std::collections::BTreeMap;

use ecs_core::component::StorageKind;
use ecs_core::storage::SlotRole;
use ecs_core::trace::{Op, SlotAccess, Trace};
use serde::Serialize;

/// One component's use in a trace.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ComponentUse {
    /// The component's name.
    pub name: String,
    /// Bytes per value.
    pub size: u32,
    /// Where the program declared it lives (`table` or `sparse`).
    pub declared: &'static str,
    /// Whether the program tracks its changes.
    pub tracked: bool,
    /// Values added: spawned with an entity or inserted.
    pub adds: u64,
    /// Values removed: by a remove, or with a despawned entity.
    pub removes: u64,
    /// Rows of query runs that fetched it for reading.
    pub rows_read: u64,
    /// Rows of query runs that fetched it for writing.
    pub rows_written: u64,
    /// Look-ups of one entity's value (`get`, `get_mut`, a query's `get`).
    pub gets: u64,
    /// Values marked changed by writes (a tracked component): what change filters see.
    pub changes: u64,
    /// For each other component required beside it in a query, the rows of those runs:
    /// what a sparse set pays for in look-ups and a table gets for free.
    pub joined_with: BTreeMap<String, u64>,
}

/// A trace's totals and each component's use.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Ops in the trace.
    pub ops: u64,
    /// Bytes of the encoded op stream.
    pub op_bytes: usize,
    /// Frames.
    pub frames: u64,
    /// Entities spawned.
    pub spawned: u64,
    /// Query runs.
    pub query_runs: u64,
    /// Each component, in the trace's order.
    pub components: Vec<ComponentUse>,
}

/// Counts what `trace` did with each component.
pub fn summarize(trace: &Trace) -> Summary {
    let mut uses: Vec<ComponentUse> = trace
        .components()
        .iter()
        .map(|c| ComponentUse {
            name: c.name.clone(),
            size: c.size,
            declared: match c.storage {
                StorageKind::Table => "table",
                StorageKind::Sparse => "sparse",
            },
            tracked: c.tracks_changes,
            ..ComponentUse::default()
        })
        .collect();
    let mut summary = Summary {
        ops: trace.op_count(),
        op_bytes: trace.op_bytes(),
        frames: trace.frames(),
        ..Summary::default()
    };
    // What each entity holds, by ordinal (slot 0: no entity), for despawns.
    let mut held: Vec<Vec<u32>> = vec![Vec::new()];
    for op in trace.ops() {
        match op {
            Op::Spawn { set, count } | Op::SpawnColumns { set, count } => {
                let set = &trace.sets()[set as usize];
                for &c in set {
                    uses[c as usize].adds += u64::from(count);
                }
                summary.spawned += u64::from(count);
                held.extend((0..count).map(|_| set.clone()));
            }
            Op::Insert { entity, component } => {
                uses[component as usize].adds += 1;
                hold(&mut held, entity, component);
            }
            Op::InsertMany { entity, set } => {
                for &c in &trace.sets()[set as usize] {
                    uses[c as usize].adds += 1;
                    hold(&mut held, entity, c);
                }
            }
            Op::Remove { entity, component } => {
                uses[component as usize].removes += 1;
                if let Some(set) = held.get_mut(entity as usize) {
                    set.retain(|&c| c != component);
                }
            }
            Op::Despawn { entity } => {
                if let Some(set) = held.get_mut(entity as usize) {
                    for c in std::mem::take(set) {
                        uses[c as usize].removes += 1;
                    }
                }
            }
            Op::Clear => {
                for set in &mut held {
                    for c in std::mem::take(set) {
                        uses[c as usize].removes += 1;
                    }
                }
            }
            Op::Query { shape, rows, .. } => {
                summary.query_runs += 1;
                let shape = &trace.shapes()[shape as usize];
                let required: Vec<u32> = shape
                    .slots
                    .iter()
                    .filter(|s| s.role == SlotRole::Required)
                    .map(|s| s.component)
                    .collect();
                for slot in &shape.slots {
                    let usage = &mut uses[slot.component as usize];
                    match slot.access {
                        SlotAccess::Read => usage.rows_read += rows,
                        SlotAccess::Write => usage.rows_written += rows,
                        SlotAccess::Filter => {}
                    }
                    if slot.role != SlotRole::Required {
                        continue;
                    }
                    for &other in required.iter().filter(|&&o| o != slot.component) {
                        let name = trace.components()[other as usize].name.clone();
                        *uses[slot.component as usize]
                            .joined_with
                            .entry(name)
                            .or_default() += rows;
                    }
                }
            }
            Op::Get { component, .. } => uses[component as usize].gets += 1,
            Op::Changed { component, .. } => uses[component as usize].changes += 1,
            Op::Frame | Op::System(_) | Op::Align { .. } => {}
        }
    }
    summary.components = uses;
    summary
}

fn hold(held: &mut [Vec<u32>], entity: u32, component: u32) {
    if let Some(set) = held.get_mut(entity as usize) {
        if !set.contains(&component) {
            set.push(component);
        }
    }
}
