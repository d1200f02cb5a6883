//! What must not compile, and what the compiler says about it: each case in
//! `compile_fail/` fails with exactly the `.stderr` beside it (regenerate with
//! `TRYBUILD=overwrite cargo test -p ecs-compile-fail` after reading the new text).
//!
//! The borrow rules (no reference escapes a query's closure, no two `&mut` to one value, no
//! non-`Send` data in parallel code) and the messages that point at the user's line.
//!
//! Some messages name the storage type of the selected backend: the cases are built against
//! `ecs` with its default feature (archetype), the one ECS crate this crate depends on,
//! whatever features other workspace members turn on.

#[test]
fn compile_fail() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile_fail/*.rs");
}

/// Checks that only a full build finds: a plain `&mut T` of a change-tracked type and
/// `Changed<T>` of an untracked one are compile-time assertions evaluated when the generic
/// code is instantiated. Each error must point at the user's line (the note "the above error
/// was encountered while instantiating" names the call in the case file). The passing case
/// makes the harness build instead of only type-checking.
#[test]
fn const_checks() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/const_checks/tracked_done_right.rs");
    cases.compile_fail("tests/const_checks/*_of_*.rs");
}
