//! Misuse of `#[flake_id]` with real SeaORM models is a precise compile
//! error; each message is pinned in `tests/ui/*.stderr` (regenerate with
//! `TRYBUILD=overwrite`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
