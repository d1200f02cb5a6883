//! The archetype graph: find a table by component set, and remember where adding or removing
//! one component from a table leads.
//!
//! Inserting component `C` into an entity of table `T` moves it to the table for
//! `components(T) ∪ {C}`. Finding that table means building the new sorted set and hashing
//! all of it. Programs do the same structural change over and over (every bullet gains
//! `Lifetime`, every hit entity gains `Damaged`), so each table keeps *edges*: for a component,
//! the table one insert away and the table one removal away. After the first time, a move is
//! one small hash look-up keyed by a single component id.
//!
//! ```text
//!               +Position                   +Velocity
//!   ┌────┐  ──────────────▶  ┌──────────┐  ──────────────▶  ┌─────────────────────┐
//!   │ {} │                   │{Position}│                   │ {Position,Velocity} │
//!   └────┘  ◀──────────────  └──────────┘  ◀──────────────  └─────────────────────┘
//!    │  ▲       -Position                      -Velocity         ▲          │
//!    │  │ -Velocity         ┌──────────┐        +Position        │          │ -Position
//!    │  └────────────────── │{Velocity}│ ────────────────────────┘          │
//!    └────────────────────▶ └──────────┘ ◀──────────────────────────────────┘
//!         +Velocity
//! ```
//!
//! Put simply: every table is a node keyed by its sorted component set; an edge labelled
//! `+C`/`-C` is created the first time that move happens and cached on both ends (if
//! `T + C = U` then `U - C = T`), so the reverse move is known without ever being computed.

use hashbrown::HashMap;

use ecs_core::component::{ComponentId, ComponentIdMap};

use crate::table::TableId;

/// Where one component leads from one table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edge {
    /// The table for this table's set plus the component, once known.
    pub add: Option<TableId>,
    /// The table for this table's set minus the component, once known.
    pub remove: Option<TableId>,
}

/// Table lookup by component set, and the cached edges between tables.
///
/// # Invariants
/// * `by_set` maps every table's sorted component set to its id, and holds nothing else.
/// * `edges[t]` exists for every table `t`; `edges[t][c].add == Some(u)` only if `u`'s set is
///   `t`'s plus `c` (with `c` not in `t`), and `edges[u][c].remove == Some(t)` likewise.
#[derive(Debug, Default)]
pub struct ArchetypeGraph {
    by_set: HashMap<Box<[ComponentId]>, TableId>,
    edges: Vec<ComponentIdMap<Edge>>,
    set_lookups: usize,
}

impl ArchetypeGraph {
    /// The table whose component set is `set` (sorted, without duplicates), if one exists.
    ///
    /// Hashes the whole set; counted in [`ArchetypeGraph::set_lookups`].
    pub(crate) fn find(&mut self, set: &[ComponentId]) -> Option<TableId> {
        self.set_lookups += 1;
        self.by_set.get(set).copied()
    }

    /// Registers table `id` (the next id) under its sorted component set.
    pub(crate) fn add_table(&mut self, set: Box<[ComponentId]>, id: TableId) {
        debug_assert_eq!(id.index(), self.edges.len(), "tables are added in id order");
        let previous = self.by_set.insert(set, id);
        debug_assert!(previous.is_none(), "two tables for one component set");
        self.edges.push(ComponentIdMap::default());
    }

    /// The cached edge of `component` from table `from` (both ends unknown if never taken).
    #[inline]
    pub fn edge(&self, from: TableId, component: ComponentId) -> Edge {
        self.edges[from.index()]
            .get(&component)
            .copied()
            .unwrap_or_default()
    }

    /// Caches that adding `component` to table `from` leads to `to`, and so that removing it
    /// from `to` leads back to `from`.
    pub(crate) fn cache_add_edge(&mut self, from: TableId, component: ComponentId, to: TableId) {
        debug_assert_ne!(from, to);
        self.edges[from.index()].entry(component).or_default().add = Some(to);
        self.edges[to.index()].entry(component).or_default().remove = Some(from);
    }

    /// Number of tables registered.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// True when no table is registered.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// Number of edges cached over all tables (an edge known in both directions counts once
    /// per end).
    pub fn edge_count(&self) -> usize {
        self.edges.iter().map(|e| e.len()).sum()
    }

    /// How many times a whole component set was hashed to find a table: once per new
    /// structural change, never for a move along a cached edge or a spawn of a known bundle.
    pub fn set_lookups(&self) -> usize {
        self.set_lookups
    }

    /// Heap bytes held (approximate: hash map capacities times entry sizes, plus the keys).
    pub fn memory_usage(&self) -> usize {
        let entry = size_of::<(Box<[ComponentId]>, TableId)>() + 1;
        let sets: usize = self
            .by_set
            .keys()
            .map(|k| k.len() * size_of::<ComponentId>())
            .sum();
        let edge = size_of::<(ComponentId, Edge)>() + 1;
        let edges: usize = self.edges.iter().map(|m| m.capacity() * edge).sum();
        self.by_set.capacity() * entry
            + sets
            + self.edges.capacity() * size_of::<HashMap<ComponentId, Edge>>()
            + edges
    }
}

#[cfg(test)]
mod tests {
    use crate::archetypes::Archetypes;
    use crate::storage::ArchetypeStorage;
    use ecs_core::component::{Component, Components};
    use ecs_core::World;

    use super::*;

    struct A(#[allow(dead_code)] u32);
    impl Component for A {}
    struct B(#[allow(dead_code)] u64);
    impl Component for B {}

    #[test]
    fn edges_are_cached_both_ways() {
        let mut components = Components::default();
        let (a, b) = (components.register::<A>(), components.register::<B>());
        let mut archetypes = Archetypes::default();
        let t_a = archetypes.add_target(TableId::EMPTY, a, &components);
        let lookups = archetypes.graph().set_lookups();
        let tables = archetypes.tables().len();

        // Taking the same edge again hashes no set and creates no table.
        assert_eq!(archetypes.add_target(TableId::EMPTY, a, &components), t_a);
        assert_eq!(archetypes.graph().set_lookups(), lookups);
        assert_eq!(archetypes.tables().len(), tables);
        let edge = archetypes.graph().edge(TableId::EMPTY, a);
        assert_eq!(
            edge,
            Edge {
                add: Some(t_a),
                remove: None
            }
        );
        // The reverse edge was cached when the forward one was found.
        assert_eq!(archetypes.graph().edge(t_a, a).remove, Some(TableId::EMPTY));
        assert_eq!(archetypes.remove_target(t_a, a), TableId::EMPTY);
        assert_eq!(archetypes.graph().set_lookups(), lookups);

        // A second path to {A, B} finds the existing table by its set.
        let t_ab = archetypes.add_target(t_a, b, &components);
        let t_b = archetypes.add_target(TableId::EMPTY, b, &components);
        let tables = archetypes.tables().len();
        assert_eq!(archetypes.add_target(t_b, a, &components), t_ab);
        assert_eq!(archetypes.tables().len(), tables);
        assert_eq!(archetypes.remove_target(t_ab, b), t_a);
        assert_eq!(archetypes.graph().edge_count(), 8);
    }

    #[test]
    fn repeated_inserts_through_the_world_use_the_edge() {
        let mut world = World::<ArchetypeStorage>::new();
        let entities: Vec<_> = (0..10).map(|i| world.spawn((A(i),))).collect();
        world.insert(entities[0], B(0)).unwrap();
        let graph = world.storage().archetypes().graph();
        let (lookups, tables) = (graph.set_lookups(), graph.len());
        for &e in &entities[1..] {
            world.insert(e, B(1)).unwrap();
        }
        for &e in &entities {
            world.remove::<B>(e).unwrap();
        }
        let graph = world.storage().archetypes().graph();
        assert_eq!((graph.set_lookups(), graph.len()), (lookups, tables));
    }
}
