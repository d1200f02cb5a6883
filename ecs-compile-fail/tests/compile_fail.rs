//! What must not compile, and what the compiler says about it: each case in
//! `compile_fail/` fails with exactly the `.stderr` beside it (regenerate with
//! `TRYBUILD=overwrite cargo test -p ecs-compile-fail` after reading the new text).
//!
//! The borrow rules (no reference escapes a query's closure, no two `&mut` to one value, no
//! non-`Send` data in parallel code), what a component's kind forbids (a write to an
//! immutable component or to the hierarchy's links, a change filter on a type that records
//! no changes: trait bounds, so `cargo check` reports them at the user's line, in a closure
//! system too) and the messages that point at the user's line.
//!
//! Some messages name the storage type of the selected backend: the cases are built against
//! `ecs` with its default feature (archetype), the one ECS crate this crate depends on,
//! whatever features other workspace members turn on.

#[test]
fn compile_fail() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile_fail/*.rs");
}

/// What must build and run: the forms the failing cases should have used.
#[test]
fn pass() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/pass/*.rs");
}
