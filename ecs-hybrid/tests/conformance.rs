//! The conformance suite (every behaviour the world promises, see `ecs-conformance`) on the
//! hybrid backend.

ecs_conformance::suite!(ecs_hybrid::HybridStorage, track_allocations);
