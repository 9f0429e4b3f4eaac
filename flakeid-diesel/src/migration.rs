//! Migrations: flakeid's tables as Diesel migrations ([`lease::MIGRATIONS`](crate::lease::MIGRATIONS),
//! [`segment::MIGRATIONS`](crate::segment::MIGRATIONS)), and [`run`], which
//! makes `run_pending_migrations` safe from any number of replicas at once.
//!
//! `run_pending_migrations` is not safe from several processes at once:
//! each one creates `__diesel_schema_migrations` if it is missing (on
//! PostgreSQL all but one of them fail: `duplicate key value violates
//! unique constraint "pg_type_typname_nsp_index"`), and two that find the
//! same migration pending both apply it and both record it (a duplicate
//! key). [`run`] holds a [`MigrationLock`] for the whole run, so replicas
//! starting together apply the migrations one after another: the first
//! applies what is pending, the others find nothing left to do.
//!
//! ```
//! use diesel::{Connection, SqliteConnection};
//! use diesel_migrations::MigrationHarness;
//! use flakeid_diesel::migration::{self, MigrationLock};
//!
//! # let dir = std::env::temp_dir().join(format!("flakeid-diesel-migration-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let url = dir.join("app.db").display().to_string();
//! let mut conn = SqliteConnection::establish(&url)?;
//! // At start-up, in every replica: flakeid's tables, then your own
//! // (`embed_migrations!("migrations")`), under one lock.
//! migration::run(&mut conn, &MigrationLock::new(), |conn| {
//!     conn.run_pending_migrations(flakeid_diesel::lease::MIGRATIONS)?;
//!     conn.run_pending_migrations(flakeid_diesel::segment::MIGRATIONS)?;
//!     // conn.run_pending_migrations(MIGRATIONS)?;
//!     Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
//! })?;
//! # assert_eq!(conn.applied_migrations().map_err(|e| e.to_string())?.len(), 2);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! | database | lock, held for the whole run | the migrations run |
//! |---|---|---|
//! | PostgreSQL | a session-level advisory lock on `conn` | on `conn`, as `run_pending_migrations` runs them |
//! | MySQL/MariaDB | `GET_LOCK` on `conn` | on `conn` |
//! | SQLite | an immediate transaction (`BEGIN IMMEDIATE`) on `conn`, with a busy timeout of at least 5 s for the run (set back after) | inside it: one commit for the whole run, or nothing |
//!
//! The lock is released when `migrate` returns, fails or panics, and by
//! the database when the process dies. A replica that waits for the lock
//! longer than [`MigrationLock::wait`] (5 minutes by default) fails with
//! [`MigrationError::Lock`], naming the database and the lock (on SQLite
//! an attempt itself waits up to the busy timeout, so the wait may end up
//! to 5 s later).
//!
//! [`run`] is a blocking call on a blocking connection, like
//! `run_pending_migrations` itself: it waits for the lock by sleeping its
//! thread. From async code (diesel-async's applications included) call it
//! in `tokio::task::spawn_blocking`, on a connection of its own.

use std::fmt;
use std::time::{Duration, Instant};

use diesel::connection::{
    AnsiTransactionManager, BoxableConnection, Connection, LoadConnection, TransactionManager,
};
use diesel::migration::{
    Migration, MigrationMetadata, MigrationName, MigrationSource, MigrationVersion,
};
use diesel::result::QueryResult;
use flakeid_sql::Dialect;
use flakeid_sql::SqlExecutor as _;
pub use flakeid_sql::{MigrationLock, MigrationLockTimeout};

#[cfg(any(feature = "lease", feature = "segment"))]
use crate::backend::run_ddl;
use crate::backend::{DieselBackend, SQLITE_BUSY_TIMEOUT, is_sqlite_busy};
use crate::executor::OnConnection;

/// Why [`run`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MigrationError {
    /// The lock stayed taken for the whole wait.
    #[error(transparent)]
    Lock(#[from] MigrationLockTimeout),
    /// Taking or releasing the lock failed.
    #[error("{database}: cannot {action} the migration lock {lock:?}: {source}")]
    LockQuery {
        /// The database.
        database: Dialect,
        /// `"take"` or `"release"`.
        action: &'static str,
        /// The lock's name.
        lock: String,
        /// The database's error.
        #[source]
        source: diesel::result::Error,
    },
    /// The migrations failed (on SQLite, none of them is kept).
    #[error("migrations failed: {0}")]
    Migrate(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Runs `migrate` on `conn` while holding `lock` (see the module docs):
/// what every replica may run at start-up.
///
/// # Errors
/// [`MigrationError::Lock`] if the lock stays taken for its wait,
/// [`MigrationError::LockQuery`] if taking or releasing it fails,
/// [`MigrationError::Migrate`] with `migrate`'s error.
pub fn run<C, T, E>(
    conn: &mut C,
    lock: &MigrationLock,
    migrate: impl FnOnce(&mut C) -> Result<T, E>,
) -> Result<T, MigrationError>
where
    C: Connection<TransactionManager = AnsiTransactionManager> + LoadConnection,
    C::Backend: DieselBackend,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let dialect = <C::Backend as DieselBackend>::DIALECT;
    let take = lock.try_lock(dialect);
    let query_error = |action, source| MigrationError::LockQuery {
        database: dialect,
        action,
        lock: lock.name().to_owned(),
        source,
    };
    let mut held = Held {
        conn,
        lock,
        taken: false,
        busy_timeout: None,
    };
    if take.is_none() {
        held.raise_busy_timeout()
            .map_err(|e| query_error("take", e))?;
    }
    wait_for(lock, dialect, || match &take {
        Some(take) => OnConnection(&mut *held.conn)
            .query(take)
            .map(|rows| rows.first().and_then(|r| r.i64("locked")) == Some(1))
            .map_err(|e| query_error("take", e)),
        None => {
            match AnsiTransactionManager::begin_transaction_sql(&mut *held.conn, "BEGIN IMMEDIATE")
            {
                Ok(()) => Ok(true),
                Err(e) if is_sqlite_busy(&e) => Ok(false),
                Err(e) => Err(query_error("take", e)),
            }
        }
    })?;
    held.taken = true;
    let done = migrate(held.conn).map_err(|e| MigrationError::Migrate(e.into()));
    let ended = held.end(done.is_ok());
    let value = done?;
    ended.map_err(|e| query_error("release", e))?;
    Ok(value)
}

/// The migration creating one of flakeid's tables, as a Diesel migration
/// source of its own ([`lease::MIGRATIONS`](crate::lease::MIGRATIONS),
/// [`segment::MIGRATIONS`](crate::segment::MIGRATIONS)): run it with
/// `diesel_migrations`' `MigrationHarness::run_pending_migrations`
/// (recorded in `__diesel_schema_migrations` like your own), next to your
/// `embed_migrations!` source, inside [`run`] so that every replica may run
/// it at start-up. The crate ships the same SQL as migration files for the
/// Diesel CLI, in `migrations/<backend>/<version>_<name>/`.
///
/// The table's `create_table` (`lease::create_table`,
/// `segment::create_table`) runs the same `up.sql` directly, without the
/// migration's record. Any number of processes may run it at once: on
/// PostgreSQL the statement takes an advisory lock, and on SQLite it waits
/// up to 5 s for another process's write, as sqlx does, where Diesel would
/// fail with "database is locked" at once.
#[derive(Debug, Clone, Copy)]
pub struct TableMigration {
    version: &'static str,
    name: &'static str,
    create: fn(Dialect) -> String,
    drop: fn(Dialect) -> String,
}

impl TableMigration {
    /// The migration's version, as in its directory's name
    /// (`00000000000001`).
    ///
    /// ```
    /// assert_eq!(flakeid_diesel::lease::MIGRATIONS.version(), "00000000000001");
    /// assert_eq!(flakeid_diesel::segment::MIGRATIONS.name(), "create_flakeid_segments");
    /// ```
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// The migration's name: its directory's name after the version.
    pub fn name(&self) -> &'static str {
        self.name
    }

    #[cfg(any(feature = "lease", feature = "segment"))]
    pub(crate) const fn new(
        version: &'static str,
        name: &'static str,
        create: fn(Dialect) -> String,
        drop: fn(Dialect) -> String,
    ) -> Self {
        TableMigration {
            version,
            name,
            create,
            drop,
        }
    }

    /// Creates the table if it does not exist (the migration's `up.sql`).
    #[cfg(any(feature = "lease", feature = "segment"))]
    pub(crate) fn create_table<C>(&self, conn: &mut C) -> QueryResult<()>
    where
        C: Connection,
        C::Backend: DieselBackend,
    {
        run_ddl(conn, &self.up_sql(<C::Backend as DieselBackend>::DIALECT))
    }

    /// The `up.sql` text for a dialect.
    fn up_sql(&self, dialect: Dialect) -> String {
        format!("{};\n", (self.create)(dialect))
    }

    /// The `down.sql` text for a dialect.
    fn down_sql(&self, dialect: Dialect) -> String {
        format!("{};\n", (self.drop)(dialect))
    }
}

impl<DB: DieselBackend> MigrationSource<DB> for TableMigration {
    fn migrations(&self) -> diesel::migration::Result<Vec<Box<dyn Migration<DB>>>> {
        Ok(vec![Box::new(*self)])
    }
}

impl fmt::Display for TableMigration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.version, self.name)
    }
}

impl MigrationName for TableMigration {
    fn version(&self) -> MigrationVersion<'_> {
        MigrationVersion::from(self.version)
    }
}

impl MigrationMetadata for TableMigration {}

impl<DB: DieselBackend> Migration<DB> for TableMigration {
    fn run(&self, conn: &mut dyn BoxableConnection<DB>) -> diesel::migration::Result<()> {
        Ok(conn.batch_execute(&self.up_sql(DB::DIALECT))?)
    }

    fn revert(&self, conn: &mut dyn BoxableConnection<DB>) -> diesel::migration::Result<()> {
        Ok(conn.batch_execute(&self.down_sql(DB::DIALECT))?)
    }

    fn metadata(&self) -> &dyn MigrationMetadata {
        self
    }

    fn name(&self) -> &dyn MigrationName {
        self
    }
}

/// The lock on `conn`, from when it is `taken` until [`end`](Held::end)
/// or a drop (a panic in the migrations); on SQLite the connection's
/// `busy_timeout` to set back.
struct Held<'c, 'l, C>
where
    C: Connection<TransactionManager = AnsiTransactionManager> + LoadConnection,
    C::Backend: DieselBackend,
{
    conn: &'c mut C,
    lock: &'l MigrationLock,
    taken: bool,
    busy_timeout: Option<i64>,
}

impl<C> Held<'_, '_, C>
where
    C: Connection<TransactionManager = AnsiTransactionManager> + LoadConnection,
    C::Backend: DieselBackend,
{
    /// SQLite: a busy timeout of at least [`SQLITE_BUSY_TIMEOUT`] for the
    /// run (a connection Diesel opened has none), so that `BEGIN IMMEDIATE`
    /// and the `COMMIT` wait for other connections' locks of the moment.
    fn raise_busy_timeout(&mut self) -> QueryResult<()> {
        let rows = OnConnection(&mut *self.conn).query(&MigrationLock::sqlite_busy_timeout())?;
        let previous = rows.first().and_then(|r| r.i64("timeout")).unwrap_or(0);
        self.busy_timeout = Some(previous);
        let ms = i64::try_from(SQLITE_BUSY_TIMEOUT.as_millis())
            .unwrap_or(i64::MAX)
            .max(previous);
        self.conn
            .batch_execute(&format!("PRAGMA busy_timeout = {ms}"))
    }

    /// Releases the lock if it was taken: on SQLite commits the migrations
    /// (`keep`) or rolls them back, and sets the busy timeout back.
    fn end(&mut self, keep: bool) -> QueryResult<()> {
        let released = if std::mem::take(&mut self.taken) {
            match self.lock.unlock(<C::Backend as DieselBackend>::DIALECT) {
                Some(unlock) => OnConnection(&mut *self.conn).query(&unlock).map(drop),
                None if keep => AnsiTransactionManager::commit_transaction(&mut *self.conn),
                None => AnsiTransactionManager::rollback_transaction(&mut *self.conn),
            }
        } else {
            Ok(())
        };
        let restored = match self.busy_timeout.take() {
            Some(ms) => self
                .conn
                .batch_execute(&format!("PRAGMA busy_timeout = {ms}")),
            None => Ok(()),
        };
        released.and(restored)
    }
}

impl<C> Drop for Held<'_, '_, C>
where
    C: Connection<TransactionManager = AnsiTransactionManager> + LoadConnection,
    C::Backend: DieselBackend,
{
    fn drop(&mut self) {
        let _ = self.end(false);
    }
}

/// Tries `attempt` until it takes the lock, sleeping between tries, up to
/// the lock's wait.
fn wait_for(
    lock: &MigrationLock,
    dialect: Dialect,
    mut attempt: impl FnMut() -> Result<bool, MigrationError>,
) -> Result<(), MigrationError> {
    let started = Instant::now();
    let mut tries = 0;
    while !attempt()? {
        let waited = started.elapsed();
        let pause: Duration = lock
            .retry_after(tries, waited)
            .ok_or_else(|| lock.timed_out(dialect, waited))?;
        std::thread::sleep(pause);
        tries += 1;
    }
    Ok(())
}

#[cfg(test)]
#[path = "../tests/unit/migration.rs"]
mod tests;
