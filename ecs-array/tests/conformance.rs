//! The conformance suite (every behaviour the world promises, see `ecs-conformance`) on
//! slot arrays.

ecs_conformance::suite!(ecs_array::ArrayStorage, track_allocations);
