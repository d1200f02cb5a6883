//! ecs-sparse backend.
