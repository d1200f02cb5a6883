//! ecs-archetype backend.
