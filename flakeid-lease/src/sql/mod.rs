//! The lease table's SQL (see [the lease protocol](crate::LeaseOptions#the-lease-protocol)) and the
//! store that runs it.
//!
//! [`LeaseSql`] writes every statement for one dialect; [`SqlLeaseStore`]
//! implements [`LeaseStore`](crate::LeaseStore) and [`AsyncLeaseStore`](crate::AsyncLeaseStore) on top of an
//! executor that runs a statement and returns the rows affected or the
//! rows read ([`SqlExecutor`](flakeid_sql::SqlExecutor), [`AsyncSqlExecutor`](flakeid_sql::AsyncSqlExecutor)). `flakeid-diesel`
//! and `flakeid-seaorm` provide the executors.
//!
//! Lease times are the database's clock in Unix milliseconds:
//!
//! | dialect | `<db now>` |
//! |---|---|
//! | PostgreSQL | `CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)` |
//! | MySQL/MariaDB | `CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 AS SIGNED)` (independent of the session time zone) |
//! | SQLite | `CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)` |
//!
//! ```
//! use flakeid_lease::LeaseSql;
//! use flakeid_sql::Dialect;
//!
//! let sql = LeaseSql::new(Dialect::Sqlite);
//! assert_eq!(
//!     sql.create_table(),
//!     "CREATE TABLE IF NOT EXISTS \"flakeid_nodes\" (\
//!      \"space\" VARCHAR(191) NOT NULL, \
//!      \"node_id\" INTEGER NOT NULL, \
//!      \"owner\" VARCHAR(64) NULL, \
//!      \"fence\" BIGINT NOT NULL DEFAULT 0, \
//!      \"lease_until\" BIGINT NOT NULL DEFAULT 0, \
//!      \"high_water\" BIGINT NOT NULL DEFAULT 0, \
//!      \"holder\" VARCHAR(255) NULL, \
//!      PRIMARY KEY (\"space\", \"node_id\"))",
//! );
//! // On PostgreSQL the same statement runs under an advisory lock, so that
//! // replicas creating the table at once all succeed.
//! assert!(LeaseSql::new(Dialect::Postgres)
//!     .create_table()
//!     .starts_with("DO $flakeid$ BEGIN PERFORM pg_advisory_xact_lock("));
//! ```

mod row;
mod statements;
mod store;

pub use statements::LeaseSql;
pub use store::SqlLeaseStore;

#[cfg(test)]
#[path = "../../tests/unit/sql.rs"]
mod tests;
