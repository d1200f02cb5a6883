//! The derives' error messages, checked with trybuild: each case in `ui/` must fail to
//! compile with exactly the `.stderr` beside it (regenerate with `TRYBUILD=overwrite`).

#[test]
fn derive_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
