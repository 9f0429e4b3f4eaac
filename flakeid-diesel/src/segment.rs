//! Values handed out in segments by a row of the application's database,
//! through Diesel: dense IDs, DecimalId generator IDs and short-key
//! indices that survive restarts without repeating.
//!
//! The protocol, its guarantees and its defaults are described in
//! [`flakeid_segment`]; the SQL is [`SegmentSql`]'s.
//! This module runs it on a synchronous Diesel connection (PostgreSQL,
//! MySQL/MariaDB, SQLite) and fetches the next segment in a thread with a
//! connection of its own, opened (and reopened after an error) by a
//! function you give.
//!
//! The table comes from a migration shipped with this crate, in
//! `migrations/<backend>/00000000000002_create_flakeid_segments/` (copy it
//! into your migrations directory for the Diesel CLI), as the
//! [`MIGRATIONS`] source for `diesel_migrations`'
//! `run_pending_migrations`, or run at once by [`create_table`].
//!
//! ```
//! use diesel::{Connection, SqliteConnection};
//! use flakeid_diesel::flakeid_segment::SegmentOptions;
//!
//! let dir = std::env::temp_dir().join(format!("flakeid-diesel-segment-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let url = dir.join("app.db").display().to_string();
//! let mut conn = SqliteConnection::establish(&url)?;
//! flakeid_diesel::segment::create_table(&mut conn)?;
//!
//! let connect_url = url.clone();
//! let ids = flakeid_diesel::segment::start(
//!     move || SqliteConnection::establish(&connect_url),
//!     SegmentOptions::new("orders").step(100),
//! )?;
//! assert_eq!(ids.next_value()?, 1);
//! assert_eq!(ids.next_value()?, 2);
//! assert!(flakeid_diesel::segment::max_id(&mut conn, "orders")? >= Some(100));
//! # drop(ids);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use diesel::connection::{Connection, LoadConnection};
use diesel::result::{ConnectionResult, QueryResult};
use flakeid_core::Clock;
use flakeid_segment::{SegmentError, SegmentIds, SegmentOptions, SegmentSql, SqlSegmentStore};

use crate::backend::DieselBackend;
use crate::executor::{DieselExecutor, OnConnection};
use crate::migration::TableMigration;

/// The segment store on Diesel connections opened by a function.
pub type DieselSegmentStore<C> = SqlSegmentStore<DieselExecutor<C>>;

/// A segment store (table `flakeid_segments`) whose connections `connect`
/// opens; a statement takes as long as its connection lets it (for a
/// deadline on each, [`start`] or [`DieselExecutor::with_deadline`]).
pub fn store<C>(connect: impl Fn() -> ConnectionResult<C> + Send + 'static) -> DieselSegmentStore<C>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: DieselBackend,
{
    SqlSegmentStore::new(DieselExecutor::new(connect))
}

/// Fetches the first segment of the row `options` name (in the table
/// `flakeid_segments`, creating the row if need be) and starts the thread
/// that fetches the next ones, on a connection `connect` opens (not one of
/// the application's: a prefetch must not wait for a busy pool).
///
/// Every statement of a fetch answers within the options'
/// [`fetch_time_limit`](SegmentOptions::fetch_time_limit): one that hangs
/// (a one-sided network partition: a blackholed or stalled connection)
/// fails then, counts as a failed fetch (retried after
/// [`retry_every`](SegmentOptions::retry_every)), and its connection is
/// given up; the next statement opens a fresh one (see
/// [`DieselExecutor::with_deadline`]). So once the network is back, values
/// flow again within the retry interval plus that limit. A statement given
/// up may still have advanced the row: its values are skipped, never handed
/// out twice.
///
/// # Errors
/// See [`SegmentOptions::start`].
pub fn start<C, K>(
    connect: impl Fn() -> ConnectionResult<C> + Send + Sync + 'static,
    options: SegmentOptions<K>,
) -> Result<SegmentIds, SegmentError>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: DieselBackend,
    K: Clock,
{
    let deadline = options.fetch_time_limit();
    options.start(SqlSegmentStore::new(DieselExecutor::with_deadline(
        connect, deadline,
    )))
}

/// The row `name`'s `max_id` (the last value handed out), for operators.
///
/// # Errors
/// The database's error.
pub fn max_id<C>(conn: &mut C, name: &str) -> QueryResult<Option<i64>>
where
    C: LoadConnection + Send,
    C::Backend: DieselBackend,
{
    SqlSegmentStore::new(OnConnection(conn)).max_id(name)
}

/// Creates the segment table `flakeid_segments` if it does not exist: the
/// migration's `up.sql` run at once, safe from any number of processes at
/// the same moment (see [`TableMigration`]).
///
/// # Errors
/// The database's error.
pub fn create_table<C: Connection<Backend: DieselBackend>>(conn: &mut C) -> QueryResult<()> {
    MIGRATIONS.create_table(conn)
}

/// The segment table's migration (see [`TableMigration`]).
pub const MIGRATIONS: TableMigration = TableMigration::new(
    "00000000000002",
    "create_flakeid_segments",
    |d| SegmentSql::new(d).create_table(),
    |d| SegmentSql::new(d).drop_table(),
);
