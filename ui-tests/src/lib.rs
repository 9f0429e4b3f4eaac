//! Compile-error tests of `#[flake_id]` and of the SeaORM and Diesel
//! adapters, in one crate.
//!
//! Each case in `tests/ui/<crate>/` is a program that must not compile; the
//! compiler's message is pinned in the `.stderr` file beside it. Run them
//! with `cargo test -p flakeid-ui-tests`; after a deliberate change of a
//! message, regenerate with `FLAKEID_UI=overwrite` and review the diff.
//!
//! The cases are type-checked by `rustc` itself against the dependencies
//! the test binary was built with (the same `.rlib` files: nothing is
//! compiled a second time for them), found by `flakeid_rustc_args::rustc_args!`.
