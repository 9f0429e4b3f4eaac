//! The SQL that flakeid's database-backed crates share: the dialects, the
//! statements with their bound values, the one seam through which an ORM
//! runs them, and the lock that lets every replica migrate at start-up.
//!
//! Most applications never name this crate: `flakeid-seaorm` (feature
//! `sql`, which its `lease`, `segment` and `migration` features turn on)
//! and `flakeid-diesel` implement its executor traits on their connections
//! and re-export it. Depend on it directly to run flakeid's SQL through a
//! database library of your own (implement [`SqlExecutor`] or
//! [`AsyncSqlExecutor`] once), or to write a crate that keeps its state in
//! the application's database as flakeid's own do.
//!
//! * [`Dialect`] — quoting, placeholders, string literals, scripts and the
//!   database's clock for PostgreSQL, MySQL/MariaDB and SQLite.
//! * [`SqlStatement`] — a statement, its values in placeholder order and
//!   the columns a query returns, written with a [`SqlWriter`];
//!   [`SqlValue`], [`SqlType`] and [`SqlRow`] — what is bound and read.
//! * [`SqlExecutor`] / [`AsyncSqlExecutor`] — what an ORM crate
//!   implements to run the statements on blocking / async connections,
//!   answering [`Executed`] or rows; a statement that failed is a
//!   [`StoreError`].
//! * [`MemoryRows`] and [`Outage`] — the rows of the in-memory stores that
//!   tests use instead of a database, and a switch that cuts a handle off
//!   from them as a network partition would.
//! * [`MigrationLock`] — the lock a migration run holds, so that every
//!   replica may run its migrations at start-up ([`MigrationLockTimeout`]
//!   when it is not free in time).
//!
//! Each table's statements live with the crate that uses the table: the
//! lease table's in `flakeid-lease` (`LeaseSql`), the segment table's in
//! `flakeid-segment` (`SegmentSql`), the per-location counters' in
//! `flakeid-schemes` (`LocationRange`), the database ID function's in
//! `flakeid-id-function`, the adoption of existing tables' in
//! `flakeid-adopt`. An executor runs them as given; it writes no SQL of
//! its own.
//!
//! Every statement built from a name you supply quotes it for its database
//! ([`Dialect::identifier`]) or refuses it with a [`SqlNameError`] that
//! names the object, the name and the database.
//!
//! ```
//! use flakeid_sql::{Dialect, SqlNameError, SqlValue, SqlWriter};
//!
//! // A statement for one database: the table's name quoted, the value bound.
//! let dialect = Dialect::Postgres;
//! let table = dialect.identifier("counter table", "counters")?;
//! let mut sql = SqlWriter::new(dialect);
//! sql.push("UPDATE ").push(&table).push(" SET n = n + 1 WHERE name = ");
//! sql.bind(SqlValue::Text("orders".into()));
//! let statement = sql.finish();
//! assert_eq!(statement.sql, r#"UPDATE "counters" SET n = n + 1 WHERE name = $1"#);
//! assert_eq!(statement.values, [SqlValue::Text("orders".into())]);
//!
//! // A name the database would not keep as given is refused, not changed.
//! let refused = Dialect::MySql.identifier("counter table", "counters ");
//! assert!(matches!(refused, Err(SqlNameError::TrailingSpace { .. })));
//! # Ok::<(), SqlNameError>(())
//! ```
//!
//! The crate has no features. It builds on `flakeid-core`, whose
//! [`Clock`](flakeid_core::Clock) stands for the database's clock in
//! [`MemoryRows`].
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod dialect;
mod error;
mod executor;
mod migration_lock;
mod statement;

pub use dialect::{
    DDL_LOCK_KEY, Dialect, MYSQL_MAX_MESSAGE_CHARS, MYSQL_MAX_NAME_CHARS, POSTGRES_MAX_NAME_BYTES,
};
pub use error::SqlNameError;
pub use executor::{
    AsyncSqlExecutor, Executed, MemoryRows, Outage, SqlExecutor, SqlRow, StoreError, Unreachable,
};
pub use migration_lock::{MigrationLock, MigrationLockTimeout};
pub use statement::{SqlStatement, SqlType, SqlValue, SqlWriter};

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
