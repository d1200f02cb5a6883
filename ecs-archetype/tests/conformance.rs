//! The conformance suite (every behaviour the world promises, see `ecs-conformance`) on
//! archetype tables.

ecs_conformance::suite!(ecs_archetype::ArchetypeStorage, track_allocations);
