//! The loom model check of flakeid-core's generator, in a crate of its own.
//!
//! `tests/loom.rs` runs under `RUSTFLAGS="--cfg loom"`, which rebuilds every
//! dependency in a target dir of its own; this crate depends only on
//! flakeid-core (no default features) and loom, so that build stays small.
//! Without `--cfg loom` the same scenarios run on real threads as a stress
//! test, in the workspace's `cargo test`:
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p flakeid-loom-tests --test loom --profile loom --target-dir target/loom
//! ```
