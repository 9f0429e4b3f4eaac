//! flakeid-lease's tests that need no process of their own (one binary:
//! one link step). The process-wide generator on a leased node runs in
//! `global_process.rs`, a binary of its own; the seeded simulations of the
//! protocol, which drive its private steps, are unit tests
//! (`tests/unit/`, run by `cargo test -p flakeid-lease --lib`).

mod capacity;
mod fleet;
mod lease;
mod node_table;
mod runtime;
mod sql;
mod support;
#[cfg(feature = "metrics")]
mod telemetry;
