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

/// One table's cached edges.
///
/// # Invariant
/// `recent`, when set, is `(c, map[c])` for an edge in `map`: the last edge taken, so the
/// same structural change repeated (the usual case: every entity of a table gaining the same
/// component) skips the hash probe.
#[derive(Debug, Default)]
struct TableEdges {
    recent: Option<(ComponentId, Edge)>,
    map: ComponentIdMap<Edge>,
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
    edges: Vec<TableEdges>,
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
        self.edges.push(TableEdges::default());
    }

    /// The cached edge of `component` from table `from` (both ends unknown if never taken).
    #[inline]
    pub fn edge(&self, from: TableId, component: ComponentId) -> Edge {
        self.edges[from.index()]
            .map
            .get(&component)
            .copied()
            .unwrap_or_default()
    }

    /// [`ArchetypeGraph::edge`], remembering a known edge as the table's most recent one.
    #[inline]
    pub(crate) fn take_edge(&mut self, from: TableId, component: ComponentId) -> Edge {
        let edges = &mut self.edges[from.index()];
        if let Some((c, edge)) = edges.recent {
            if c == component {
                return edge;
            }
        }
        let edge = edges.map.get(&component).copied().unwrap_or_default();
        if edge != Edge::default() {
            edges.recent = Some((component, edge));
        }
        edge
    }

    /// Caches that adding `component` to table `from` leads to `to`, and so that removing it
    /// from `to` leads back to `from`.
    pub(crate) fn cache_add_edge(&mut self, from: TableId, component: ComponentId, to: TableId) {
        debug_assert_ne!(from, to);
        for (table, end) in [(from, true), (to, false)] {
            let edges = &mut self.edges[table.index()];
            let edge = edges.map.entry(component).or_default();
            if end {
                edge.add = Some(to);
            } else {
                edge.remove = Some(from);
            }
            // The edge changed: drop a stale copy of it.
            if edges.recent.is_some_and(|(c, _)| c == component) {
                edges.recent = None;
            }
        }
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
        self.edges.iter().map(|e| e.map.len()).sum()
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
        let edges: usize = self.edges.iter().map(|m| m.map.capacity() * edge).sum();
        self.by_set.capacity() * entry
            + sets
            + self.edges.capacity() * size_of::<TableEdges>()
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
    impl Component for A {
        type Mutability = ecs_core::Mutable;
    }
    struct B(#[allow(dead_code)] u64);
    impl Component for B {
        type Mutability = ecs_core::Mutable;
    }

    #[test]
    fn the_recent_edge_always_matches_the_map() {
        let mut components = Components::default();
        let (a, b) = (components.register::<A>(), components.register::<B>());
        let mut graph = ArchetypeGraph::default();
        let [t0, ta, tb] = [0, 1, 2].map(TableId::new);
        graph.add_table(Box::new([]), t0);
        graph.add_table(Box::new([a]), ta);
        graph.add_table(Box::new([b]), tb);
        graph.cache_add_edge(t0, a, ta);
        assert_eq!(graph.take_edge(t0, a).add, Some(ta));
        // Caching another edge of the same table leaves the recent one right.
        graph.cache_add_edge(t0, b, tb);
        for _ in 0..3 {
            assert_eq!(graph.take_edge(t0, a).add, Some(ta));
            assert_eq!(graph.take_edge(t0, b).add, Some(tb));
            assert_eq!(graph.take_edge(ta, a).remove, Some(t0));
            assert_eq!(graph.take_edge(ta, b), Edge::default(), "never taken");
        }
        for (table, c) in [(t0, a), (t0, b), (ta, a), (tb, b), (tb, a)] {
            assert_eq!(graph.take_edge(table, c), graph.edge(table, c));
        }
    }

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
