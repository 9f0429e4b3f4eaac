//! The database benchmark (`--bin db`): insert speed and primary-key size
//! of database-assigned keys, flakeid keys, UUIDv4 and UUIDv7 on PostgreSQL
//! and MariaDB/MySQL, through SeaORM, Diesel and the plain driver, from one
//! and from several concurrent writer processes.
//!
//! * [`config`] — what is compared: servers, keys, insert paths, sizes.
//! * [`schema`] — the table of each key and the ORM models that fill it.
//! * [`keys`] — where each key's values come from, and when.
//! * [`insert`] — one batch insert per path (SeaORM, Diesel, sqlx).
//! * [`worker`] — a writer process: connects, inserts, reports batch times.
//! * [`run`] — starts the servers and the writers, checks and measures what
//!   was stored.
//! * [`report`] — medians over rounds, ratios to the baseline, the tables.
//!
//! See `BENCHMARKS.md` at the repository root for how to run it and results.

pub mod config;
pub mod insert;
pub mod keys;
pub mod report;
pub mod run;
pub mod schema;
pub mod worker;

use flakeid_core::{ConfigError, GenerateError};

/// Why a database benchmark run failed.
#[derive(Debug, thiserror::Error)]
pub enum DbBenchError {
    /// A command-line argument was unusable.
    #[error("{0}")]
    Argument(String),
    /// A server could not be started or set up.
    #[error("{server}: {message}")]
    Server {
        /// The server's label.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// A statement failed.
    #[error("{context}: {message}")]
    Sql {
        /// What was being done.
        context: String,
        /// The driver's or ORM's error.
        message: String,
    },
    /// A writer process failed or reported nonsense.
    #[error("writer {writer}: {message}")]
    Writer {
        /// The writer's number (0-based).
        writer: usize,
        /// What went wrong.
        message: String,
    },
    /// What the database stored is not what the writers inserted.
    #[error("check failed for {run}: {message}")]
    Check {
        /// The run (server, key, path, writers, round).
        run: String,
        /// What did not match.
        message: String,
    },
    /// Some runs failed (each was reported as it failed); the others ran.
    #[error("{failed} of {total} runs failed")]
    RunsFailed {
        /// Runs that failed.
        failed: usize,
        /// Runs planned.
        total: usize,
    },
    /// flakeid failed to issue an ID.
    #[error("flakeid failed to issue an ID: {0}")]
    Generate(#[from] GenerateError),
    /// flakeid rejected its configuration.
    #[error("flakeid rejected the configuration: {0}")]
    Config(#[from] ConfigError),
    /// Reading or writing a pipe to a writer process failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}

impl DbBenchError {
    /// A [`DbBenchError::Sql`] for `context` from any displayable error.
    pub fn sql(context: impl Into<String>, err: impl std::fmt::Display) -> Self {
        DbBenchError::Sql {
            context: context.into(),
            message: err.to_string(),
        }
    }

    /// A [`DbBenchError::Io`] for `context`.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        DbBenchError::Io {
            context: context.into(),
            source,
        }
    }
}
