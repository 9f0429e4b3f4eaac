//! flakeid-segment's tests that need no process of their own (one binary:
//! one link step). Short keys after `fork()` are checked in `fork.rs`, a
//! binary of its own.

mod runtime;
mod segment;
mod short_keys;
mod sql;
mod support;
#[cfg(feature = "metrics")]
mod telemetry;
mod time_bounds;
