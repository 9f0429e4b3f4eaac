//! Atomics used by the generator: `std` normally, `loom` under `--cfg loom`
//! so the model checker can explore every interleaving of the CAS loop.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU64, Ordering};
