//! Benchmarks of flakeid's generator against its peers.
//!
//! The `compare` binary prints one table; `db` (the database benchmark),
//! `lease_load`, `segments` and `async_generation` print theirs; see `BENCHMARKS.md` at the
//! repository root for what each column measures and for results.
//!
//! * [`args`] — the binaries' flag values.
//! * [`measure`] — generic measurements over any ID source; each checks
//!   that what it measured is unique and increasing.
//! * [`subjects`] — the compared generators (flakeid, ferroid, snowflaked,
//!   uuid v7, ulid) and how each is driven.
//! * [`report`] — rounds of measurements, the machine description and the table.
//! * [`db`] — the database benchmark (`--bin db`): insert speed and
//!   primary-key size against database-assigned keys and UUIDs.
//! * [`lease_load`] — many node-lease holders starting at once against one
//!   store (the `lease_load` binary: 1,024 holders on PostgreSQL).
//! * [`asynchronous`] — async against blocking generation (the
//!   `async_generation` binary): the cost when no wait is needed, and how
//!   long each holds up a current-thread runtime when waits are forced.
//! * [`time_range`] — rows of a time range by a range of the primary key
//!   against a `created_at` index (the `time_range` binary).
//!
//! The `seaorm_save` binary measures SeaORM's `save` against `insert` of
//! keys `assign_id` gave, and what the remembered keys' lookup costs.

pub mod args;
pub mod asynchronous;
pub mod db;
pub mod lease_load;
pub mod measure;
pub mod report;
pub mod subjects;
pub mod time_range;

use core::fmt::Display;
use std::process::ExitCode;

use flakeid_core::{ConfigError, GenerateError};

/// Why a benchmark run failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A generator issued an ID not greater than the one before it.
    #[error("ID {next} issued after {previous} (call {position}) is not greater")]
    NotIncreasing {
        /// The earlier ID.
        previous: String,
        /// The later ID.
        next: String,
        /// Index of the later ID in its run.
        position: u64,
    },
    /// Two threads received the same ID.
    #[error("ID {0} was issued twice")]
    Duplicate(String),
    /// A measuring thread panicked.
    #[error("a measuring thread panicked")]
    ThreadPanicked,
    /// flakeid failed to issue an ID.
    #[error("flakeid failed to issue an ID: {0}")]
    Generate(#[from] GenerateError),
    /// An ID type failed to issue an ID.
    #[error("{0}")]
    IdGenerate(#[from] flakeid_core::IdGenerateError),
    /// flakeid rejected its configuration.
    #[error("flakeid rejected the configuration: {0}")]
    Config(#[from] ConfigError),
    /// flakeid could not lease a node.
    #[error("flakeid could not lease a node: {0}")]
    Lease(#[from] flakeid_lease::LeaseError),
    /// A command-line argument or size was unusable.
    #[error("{0}")]
    Argument(String),
}

/// A benchmark binary's exit status: success, or failure with the error
/// on standard error (`error: …`).
pub fn exit_status(result: Result<(), impl Display>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `run` to the end on a multi-threaded tokio runtime of
/// `worker_threads` threads (tokio's default for `None`); the exit status
/// as [`exit_status`] gives it, a runtime that does not start included.
pub fn exit_status_on_tokio<E: Display>(
    worker_threads: Option<usize>,
    run: impl Future<Output = Result<(), E>>,
) -> ExitCode {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = worker_threads {
        builder.worker_threads(n);
    }
    match builder.enable_all().build() {
        Ok(runtime) => exit_status(runtime.block_on(run)),
        Err(e) => exit_status(Err(format!("cannot start the tokio runtime: {e}"))),
    }
}
