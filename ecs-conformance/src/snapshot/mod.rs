//! World snapshots on a backend: round trips in both formats, merging, remapped handles
//! ([`basics`]); every class of bad input, each compared before and after ([`bad_input`]);
//! and the soundness regressions, which CI also runs under Miri ([`soundness`]).
//!
//! The components, registry, recipes and dumps are [`crate::kit::snapshot`]'s, shared with
//! the fuzzers.

pub mod bad_input;
pub mod basics;
pub mod soundness;
