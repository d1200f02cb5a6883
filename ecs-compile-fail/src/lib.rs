//! Compile-fail tests for the `ecs` facade; the crate has no API.
//!
//! `tests/compile_fail.rs` builds each case under `tests/compile_fail/` and
//! `tests/const_checks/` with trybuild and compares the compiler's output with the `.stderr`
//! file beside it: the borrow rules a query or system enforces at compile time, and the
//! messages that point at the user's line. The cases use `ecs` with its default backend
//! (archetype), whose storage type some messages name.
