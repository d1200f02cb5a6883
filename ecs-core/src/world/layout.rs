//! [`World::layout`]: the world's memory described unit by unit (see [`crate::layout`]).

use crate::layout::{AllocatorLayout, ChangeLogLayout, ComponentBytes, WorldLayout};
use crate::storage::Storage;
use crate::world::World;

impl<S: Storage> World<S> {
    /// What this world's memory holds: the entity allocator, every table or sparse set of
    /// the backend with its components, rows, capacity, sparse pages and bytes, its groups,
    /// the change logs, and bytes per component type. `Display` prints it as a table;
    /// its [`bytes`](WorldLayout::bytes) are [`World::memory_usage`].
    ///
    /// The same program gives a different layout on each backend: that difference is what
    /// the storage choice is.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn((Pos(1.0),));
    /// let layout = world.layout();
    /// assert_eq!(layout.bytes(), world.memory_usage());
    /// assert_eq!(layout.entities.live, 1);
    /// println!("{layout}");
    /// ```
    pub fn layout(&self) -> WorldLayout {
        let entities = self.entities();
        let changes = self.changes();
        let change_logs = changes
            .tracked()
            .map(|(id, logs)| ChangeLogLayout {
                component: ComponentBytes::new(id, self.components(), logs.memory_usage()),
                retained: logs.retained(),
            })
            .collect();
        WorldLayout {
            backend: S::NAME,
            entities: AllocatorLayout {
                live: entities.len(),
                free: entities.index_bound() - entities.len() - entities.retired(),
                retired: entities.retired(),
                bytes: entities.memory_usage(),
            },
            storage: self.storage().layout(self.components()),
            change_logs,
            change_log_table: changes.table_bytes(),
        }
    }
}
