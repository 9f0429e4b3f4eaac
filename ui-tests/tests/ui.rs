//! Misuse of `#[flake_id]` is a precise compile error; each message is
//! pinned in `tests/ui/<crate>/*.stderr` (regenerate with
//! `TRYBUILD=overwrite`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    // The attribute alone, with flakeid-core.
    t.compile_fail("tests/ui/macros/*.rs");
    // With real SeaORM models.
    t.compile_fail("tests/ui/seaorm/*.rs");
    // With Diesel tables and models.
    t.compile_fail("tests/ui/diesel/*.rs");
}
