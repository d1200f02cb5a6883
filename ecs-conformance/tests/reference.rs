//! The conformance suite on the reference storage (`ecs_core::testing::VecStorage`), the
//! oracle every other backend's run agrees with.

ecs_conformance::suite!(ecs_core::testing::VecStorage, track_allocations);
