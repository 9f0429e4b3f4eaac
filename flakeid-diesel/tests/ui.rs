//! Misuse of `#[flake_id]` with Diesel models and columns is a precise
//! compile error; each message is pinned in `tests/ui/*.stderr`
//! (regenerate with `TRYBUILD=overwrite`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
