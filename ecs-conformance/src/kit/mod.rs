//! What the workspace's tests, fuzzers and benchmark generators share: a seeded generator
//! ([`rng`]), drop counting ([`drops`]), a model of parent links ([`links`]), an allocator
//! that remembers the largest request ([`largest`]), and the snapshot recipes: a component
//! pool covering every kind of column, its registry, worlds built from random steps, and
//! dumps that compare worlds ([`snapshot`]).

pub mod drops;
pub mod largest;
pub mod links;
pub mod rng;
pub mod snapshot;

pub use rng::Rng;
