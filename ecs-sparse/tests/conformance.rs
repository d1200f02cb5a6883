//! The conformance suite (every behaviour the world promises, see `ecs-conformance`) on
//! sparse sets.

ecs_conformance::suite!(ecs_sparse::SparseStorage, track_allocations);
