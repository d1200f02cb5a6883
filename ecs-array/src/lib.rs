//! # ecs-array
//!
//! A fifth storage backend, [`ArrayStorage`], written only against `ecs-core`'s public API:
//! the worked example of the guide's "Write your own backend" chapter, and one more runner
//! in the benchmark report.
//!
//! Every component lives in one array indexed by entity index, with a bit per slot saying
//! whether it holds a value (a `Vec<Option<T>>` per component, type-erased):
//!
//! ```text
//!   entity index:   0    1    2    3    4
//!   Position:     [ p0 | p1 |  - | p3 | p4 ]   present 1 1 0 1 1
//!   Velocity:     [ v0 |  - |  - | v3 | v4 ]   present 1 0 0 1 1
//!   query (&Position, &Velocity): runs [0] and [3, 4], each a dense loop
//! ```
//!
//! * **Adding or removing a component** writes or empties one slot: no value moves, no
//!   table splits, however often components come and go.
//! * **Random access** is an index into the array and a generation check.
//! * **Queries** walk the runs of consecutive entity indices holding every component they
//!   require ([`chunk`]), found 64 entities at a time from the presence bits; inside a run,
//!   each required component is a plain array.
//! * **Memory** is the price: each component's array reaches the highest entity index that
//!   ever held it, so a component held by a few entities with high indices costs as much as
//!   one held by all. The report's memory numbers show it beside tables and sparse sets.
//!
//! ```
//! use ecs_core::{Component, World};
//! use ecs_array::ArrayStorage;
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct Health(u32);
//! #[derive(Component)]
//! struct Poisoned;
//!
//! let mut world = World::<ArrayStorage>::new();
//! let e = world.spawn((Health(10),));
//! let before = world.get::<Health>(e).map(|h| h as *const Health);
//! world.insert(e, Poisoned).unwrap(); // one slot written in Poisoned's array
//! assert_eq!(world.get::<Health>(e).map(|h| h as *const Health), before, "nothing moved");
//! world.query::<(&mut Health, &Poisoned)>().for_each(|(h, _)| h.0 -= 1);
//! assert_eq!(world.get::<Health>(e), Some(&Health(9)));
//! ```

mod bits;
pub mod chunk;
pub mod column;
mod storage;

pub use chunk::{ArrayChunk, ArrayChunks, ArrayQueryCache};
pub use column::Column;
pub use storage::ArrayStorage;

#[cfg(test)]
mod tests;

// The guide chapter lives in `docs/` so it reads on its own in the repository; included
// here, its snippets run as doctests of this crate.
#[doc = include_str!("../../docs/backend.md")]
pub mod guide {}
