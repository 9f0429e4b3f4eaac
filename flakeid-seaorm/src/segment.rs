//! Values handed out in segments by a row of the application's database,
//! through SeaORM (feature `segment`): dense IDs, DecimalId generator IDs
//! and short-key indices that survive restarts without repeating.
//!
//! The protocol, its guarantees and its defaults are described in
//! [`flakeid_segment`]; the SQL is [`SegmentSql`]'s.
//! This module runs it on a SeaORM connection (PostgreSQL, MySQL/MariaDB,
//! SQLite) and fetches the next segment in a tokio task.
//!
//! ```
//! use flakeid_segment::SegmentOptions;
//! use sea_orm::Database;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let db = Database::connect("sqlite::memory:").await?;
//! flakeid_seaorm::segment::create_table(&db).await?; // or add `Migration` to your Migrator
//! let ids = flakeid_seaorm::segment::start(&db, SegmentOptions::new("orders").step(100)).await?;
//! assert_eq!(ids.next_value()?, 1);
//! assert_eq!(flakeid_seaorm::segment::max_id(&db, "orders").await?, Some(100));
//! # Ok(())
//! # }
//! ```

use flakeid_core::Clock;
use flakeid_segment::{SegmentError, SegmentIds, SegmentOptions, SegmentSql, SqlSegmentStore};
use sea_orm::{ConnectionTrait, DbErr};

use crate::backend::SeaOrmExecutor;
use crate::table::FlakeTable;

/// The segment store on a SeaORM connection.
pub type SeaOrmSegmentStore = SqlSegmentStore<SeaOrmExecutor>;

/// Creates the segment table `flakeid_segments` if it does not exist. Any
/// number of processes may run it at once (on PostgreSQL the statement
/// takes an advisory lock; on SQLite sqlx waits for another process's
/// write, 5 s by default).
///
/// # Errors
/// The database's error.
pub async fn create_table<C: ConnectionTrait>(db: &C) -> Result<(), DbErr> {
    SEGMENTS.create(db).await
}

/// Fetches the first segment of the row `options` name (in the table
/// `flakeid_segments`, creating the row if need be) and spawns the tokio
/// task that fetches the next ones. Call it from within a tokio runtime;
/// the task ends when the source is stopped or dropped.
///
/// # Errors
/// See [`SegmentOptions::start_async`].
pub async fn start<C: Clock>(
    db: &sea_orm::DatabaseConnection,
    options: SegmentOptions<C>,
) -> Result<SegmentIds, SegmentError> {
    options
        .start_on_tokio(SqlSegmentStore::new_async(SeaOrmExecutor::new(db.clone())))
        .await
}

/// The row `name`'s `max_id` (the last value handed out), for operators.
///
/// # Errors
/// The database's error.
pub async fn max_id(db: &sea_orm::DatabaseConnection, name: &str) -> Result<Option<i64>, DbErr> {
    SqlSegmentStore::new_async(SeaOrmExecutor::new(db.clone()))
        .max_id_async(name)
        .await
}

#[cfg(feature = "migration")]
crate::table::table_migration! {
    /// A migration creating the segment table (feature `migration`); add
    /// it to your `Migrator` and run that with [`crate::migration::up`].
    Migration = SEGMENTS
}

const SEGMENTS: FlakeTable = FlakeTable {
    migration: "m00000000_000002_create_flakeid_segments",
    create: |d| SegmentSql::new(d).create_table(),
    drop: |d| SegmentSql::new(d).drop_table(),
};
