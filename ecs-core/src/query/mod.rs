//! Queries: typed views over every entity that has a set of components.
//!
//! A query type `Q` ([`QueryData`]: `&T`, `&mut T`, `Option<&T>`, `Entity` and tuples of them)
//! and a filter `F` ([`QueryFilter`]: `With<T>`, `Without<T>` and tuples) are turned once into
//! a [`QueryState`]: a [`QueryDescriptor`](crate::storage::QueryDescriptor) for the storage,
//! the components read and written ([`Access`], checked for aliasing before any reference
//! exists) and the backend's cache of matched tables. Iteration walks the storage's chunks;
//! per chunk each fetch resolves its column once, per row it is a pointer offset (dense) or a
//! sparse look-up, decided at compile time where the backend allows.

mod access;
mod fetch;
mod filter;
mod state;

pub use access::{Access, QueryBuilder};
pub use fetch::{ColumnFetch, QueryData, ReadOnlyQueryData};
pub use filter::{QueryFilter, With, Without};
pub use state::{QueryIter, QueryState};
