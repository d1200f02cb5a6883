//! [`QueryWalk`]: how a backend answers one query — the runs of rows (chunks) it hands the
//! query, and for each slot whether its values sit in a dense column of the chunk, are
//! looked up row by row, or are absent. The same query gives a different walk on each
//! backend; that difference is the iteration-locality trade-off, counted rather than timed.
//!
//! ```text
//!   (&A, &B) over entities {A}, {A,B}, {A,B,C}
//!   archetype: chunk {A,B} rows 0..n: A dense, B dense     chunk {A,B,C}: A dense, B dense
//!   sparse:    one chunk = B's set (the smaller): B dense, A dense if A's set holds those
//!              entities in the same order, else looked up per row
//! ```

use super::{QueryData, QueryFilter, QueryState};
use crate::component::ComponentId;
use crate::layout::{format_count, ComponentBytes};
use crate::storage::{ColumnAccess, QueryChunk, SlotRole, Storage};
use crate::world::World;

/// How one query slot was reached, counted over the chunks of a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotWalk {
    /// The slot's component.
    pub component: ComponentId,
    /// Its name (a Rust type's short name).
    pub name: String,
    /// What the query asks of it.
    pub role: SlotRole,
    /// Chunks where every row's value sat in a dense column (a plain indexed loop).
    pub dense: usize,
    /// Chunks where values were looked up by entity, row by row.
    pub looked_up: usize,
    /// Chunks where no row had the component.
    pub absent: usize,
}

/// What a backend hands one query (see the module docs). Made by [`QueryState::walk`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryWalk {
    /// Runs of rows walked.
    pub chunks: usize,
    /// Rows in them, before per-row checks (a row whose looked-up slot is missing is walked
    /// but not yielded).
    pub rows: usize,
    /// Every slot of the query, in the order the query names them.
    pub slots: Vec<SlotWalk>,
}

impl std::fmt::Display for QueryWalk {
    /// `16 chunks, 4,096 rows; A dense in 16, B looked up in 16`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let chunks = if self.chunks == 1 { "chunk" } else { "chunks" };
        write!(
            f,
            "{} {chunks}, {} rows",
            format_count(self.chunks),
            format_count(self.rows)
        )?;
        let slots: Vec<String> = self
            .slots
            .iter()
            .filter(|s| s.role != SlotRole::Excluded)
            .map(|s| {
                let mut ways = Vec::new();
                for (n, how) in [
                    (s.dense, "dense"),
                    (s.looked_up, "looked up"),
                    (s.absent, "absent"),
                ] {
                    if n > 0 {
                        ways.push(format!("{how} in {}", format_count(n)));
                    }
                }
                format!("{} {}", s.name, ways.join(", "))
            })
            .collect();
        if !slots.is_empty() {
            write!(f, "; {}", slots.join("; "))?;
        }
        Ok(())
    }
}

impl<Q: QueryData, F: QueryFilter, S: Storage> QueryState<Q, F, S> {
    /// Walks the chunks the backend hands this query now, counting rows and how each slot
    /// is reached (see [`QueryWalk`]), without reading a value and without starting a run
    /// (change filters are not moved). A change-filtered run that is driven by its change
    /// logs visits the logged entities instead of these chunks.
    ///
    /// # Panics
    /// If `world` is not the world this state was created for.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct A(u8);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((A(1),));
    /// world.spawn((A(2),));
    /// let mut state = world.query_state::<&A, ()>().unwrap();
    /// let walk = state.walk(&world);
    /// assert_eq!((walk.chunks, walk.rows), (1, 2));
    /// ```
    pub fn walk(&mut self, world: &World<S>) -> QueryWalk {
        self.update_cache(world.view());
        let mut slots: Vec<SlotWalk> = self
            .descriptor
            .slots()
            .iter()
            .map(|slot| SlotWalk {
                component: slot.component,
                name: ComponentBytes::new(slot.component, world.components(), 0).name,
                role: slot.role,
                dense: 0,
                looked_up: 0,
                absent: 0,
            })
            .collect();
        let (mut chunks, mut rows) = (0, 0);
        let storage = world.storage();
        for chunk in storage.query_chunks(&self.cache, &self.descriptor, world.entities().alive()) {
            chunks += 1;
            rows += chunk.entities().len();
            for (index, slot) in slots.iter_mut().enumerate() {
                match chunk.column(index) {
                    ColumnAccess::Dense(_) => slot.dense += 1,
                    ColumnAccess::Sparse(_) => slot.looked_up += 1,
                    ColumnAccess::Absent => slot.absent += 1,
                }
            }
        }
        QueryWalk {
            chunks,
            rows,
            slots,
        }
    }
}
