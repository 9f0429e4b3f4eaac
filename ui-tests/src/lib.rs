//! Compile-error tests of `#[flake_id]` and of the SeaORM and Diesel
//! adapters, in one crate.
//!
//! Each case in `tests/ui/<crate>/` is a program that must not compile; the
//! compiler's message is pinned in the `.stderr` file beside it. Run them
//! with `cargo test -p flakeid-ui-tests`; after a deliberate change of a
//! message, regenerate with `TRYBUILD=overwrite` and review the diff.
//!
//! trybuild checks the cases in a project of its own under
//! `target/tests/trybuild/`, with this crate's dev-dependencies.
