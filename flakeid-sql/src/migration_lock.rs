//! The database lock a migration run holds from start to end, so that
//! every replica of an application may run its migrations at start-up.

use core::time::Duration;

use thiserror::Error;

use super::{Dialect, SqlStatement, SqlType, SqlValue, SqlWriter};

/// A lock in the database held for a whole migration run: replicas that
/// start together run their migrations one after another, the first
/// applies what is pending and the others find nothing left to do.
///
/// Migration runners are not safe from several processes at once by
/// themselves: their bookkeeping tables are created with `CREATE TABLE IF
/// NOT EXISTS` (which fails for all but one session on PostgreSQL) and a
/// version applied by two processes is recorded twice (a duplicate key). The
/// ORM crates hold this lock around the runner: `flakeid_seaorm::migration`
/// (SeaORM's `Migrator::up`), `flakeid_diesel::migration` (Diesel's
/// `run_pending_migrations`). This type says which lock and how long to wait
/// for it; they take it:
///
/// | database | lock |
/// |---|---|
/// | PostgreSQL | a session-level advisory lock ([`try_lock`](Self::try_lock): `pg_try_advisory_lock(key)`, [`key`](Self::key) from the name), on one connection held for the run |
/// | MySQL/MariaDB | a named lock (`GET_LOCK`) on one connection held for the run, named after the lock and the database (`LEFT(CONCAT(name, '.', DATABASE()), 64)`) |
/// | SQLite | an immediate transaction (`BEGIN IMMEDIATE`: one writer per database file; readers go on) on the connection that runs the migrations, which waits for readers at its `COMMIT` (its busy timeout: [`sqlite_busy_timeout`](Self::sqlite_busy_timeout)) |
///
/// A process that holds the lock and dies releases it with its connection.
/// Waiting is bounded by [`wait`](Self::wait) (5 minutes by default): a
/// replica that does not get the lock by then fails with
/// [`MigrationLockTimeout`], naming the database and the lock.
///
/// ```
/// use std::time::Duration;
/// use flakeid_sql::{Dialect, MigrationLock};
///
/// let lock = MigrationLock::new().wait(Duration::from_secs(30));
/// assert_eq!(lock.name(), "flakeid_migrations");
/// let take = lock.try_lock(Dialect::Postgres).expect("PostgreSQL takes an advisory lock");
/// assert_eq!(
///     take.sql,
///     "SELECT CAST(CASE WHEN pg_try_advisory_lock($1) THEN 1 ELSE 0 END AS BIGINT) AS locked"
/// );
/// // SQLite locks by beginning an immediate transaction instead.
/// assert!(lock.try_lock(Dialect::Sqlite).is_none());
/// // Retries back off from 10 ms to 250 ms, and stop once the wait is over.
/// assert_eq!(lock.retry_after(0, Duration::ZERO), Some(Duration::from_millis(10)));
/// assert_eq!(lock.retry_after(9, Duration::from_secs(1)), Some(Duration::from_millis(250)));
/// assert_eq!(lock.retry_after(9, Duration::from_millis(29_900)), Some(Duration::from_millis(100)));
/// assert_eq!(lock.retry_after(9, Duration::from_secs(30)), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationLock {
    name: String,
    wait: Duration,
}

impl MigrationLock {
    /// The lock's name unless [`named`](Self::named) says otherwise.
    pub const DEFAULT_NAME: &'static str = "flakeid_migrations";

    /// How long a run waits for the lock unless [`wait`](Self::wait) says
    /// otherwise: long enough for another replica's migrations to finish.
    pub const DEFAULT_WAIT: Duration = Duration::from_secs(300);

    /// The first pause between two attempts to take the lock; each next
    /// pause doubles, up to [`MAX_PAUSE`](Self::MAX_PAUSE).
    pub const FIRST_PAUSE: Duration = Duration::from_millis(10);

    /// The longest pause between two attempts to take the lock.
    pub const MAX_PAUSE: Duration = Duration::from_millis(250);

    /// The lock [`DEFAULT_NAME`](Self::DEFAULT_NAME), waited for up to
    /// [`DEFAULT_WAIT`](Self::DEFAULT_WAIT).
    pub fn new() -> Self {
        MigrationLock {
            name: Self::DEFAULT_NAME.to_owned(),
            wait: Self::DEFAULT_WAIT,
        }
    }

    /// The lock named `name`: runs under different names do not wait for
    /// each other (on SQLite every run waits for every other writer).
    ///
    /// ```
    /// use flakeid_sql::MigrationLock;
    ///
    /// let billing = MigrationLock::named("billing migrations");
    /// assert_ne!(billing.key(), MigrationLock::new().key());
    /// ```
    pub fn named(name: impl Into<String>) -> Self {
        MigrationLock {
            name: name.into(),
            ..Self::new()
        }
    }

    /// Waits for the lock up to `max` before failing with
    /// [`MigrationLockTimeout`].
    #[must_use]
    pub fn wait(mut self, max: Duration) -> Self {
        self.wait = max;
        self
    }

    /// The lock's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How long a run waits for the lock.
    pub fn max_wait(&self) -> Duration {
        self.wait
    }

    /// The PostgreSQL advisory lock key: the 64-bit FNV-1a hash of the
    /// name's UTF-8 bytes, as a `bigint`.
    ///
    /// ```
    /// use flakeid_sql::MigrationLock;
    ///
    /// assert_eq!(MigrationLock::named("").key(), 0xcbf2_9ce4_8422_2325_u64 as i64);
    /// ```
    pub fn key(&self) -> i64 {
        let hash = self.name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        i64::from_ne_bytes(hash.to_ne_bytes())
    }

    /// A query that takes the lock if no other session holds it, without
    /// waiting: one row, one `BIGINT` column `locked`, 1 if this session
    /// holds the lock now, 0 if another one does. Run it again after
    /// [`retry_after`](Self::retry_after) until it returns 1. `None` on
    /// SQLite, where the lock is an immediate transaction (`BEGIN
    /// IMMEDIATE`) the runner begins instead.
    pub fn try_lock(&self, dialect: Dialect) -> Option<SqlStatement> {
        self.statement(dialect, LOCKED, "pg_try_advisory_lock", "GET_LOCK", ", 0")
    }

    /// A query that releases the lock this session holds: one row, one
    /// `BIGINT` column `released`, 1 if it was held and is released now.
    /// `None` on SQLite, where the immediate transaction's end releases it.
    pub fn unlock(&self, dialect: Dialect) -> Option<SqlStatement> {
        self.statement(dialect, RELEASED, "pg_advisory_unlock", "RELEASE_LOCK", "")
    }

    /// SQLite: a query of the connection's busy timeout, how long a
    /// statement waits for another connection's lock before it fails with
    /// "database is locked" (`PRAGMA busy_timeout`: one row, one `BIGINT`
    /// column `timeout`, in milliseconds). A runner on a connection
    /// without one (Diesel's, unlike sqlx's) sets one for the run, so that
    /// its `COMMIT` waits for the readers of the moment, and sets the old
    /// one back after.
    ///
    /// ```
    /// use flakeid_sql::MigrationLock;
    ///
    /// assert_eq!(MigrationLock::sqlite_busy_timeout().sql, "PRAGMA busy_timeout");
    /// ```
    pub fn sqlite_busy_timeout() -> SqlStatement {
        let mut w = SqlWriter::new(Dialect::Sqlite);
        w.push("PRAGMA busy_timeout").returns(TIMEOUT);
        w.finish()
    }

    /// The pause before attempt `attempt + 1` (the first retry is attempt
    /// 0) when the lock was not free after waiting `waited` in all: the
    /// backoff from [`FIRST_PAUSE`](Self::FIRST_PAUSE) to
    /// [`MAX_PAUSE`](Self::MAX_PAUSE), cut to what is left of the wait;
    /// `None` once `waited` reaches the wait (then fail with
    /// [`timed_out`](Self::timed_out)).
    pub fn retry_after(&self, attempt: u32, waited: Duration) -> Option<Duration> {
        let left = self.wait.checked_sub(waited).filter(|d| !d.is_zero())?;
        let backoff = Self::FIRST_PAUSE
            .checked_mul(1_u32.checked_shl(attempt).unwrap_or(u32::MAX))
            .map_or(Self::MAX_PAUSE, |d| d.min(Self::MAX_PAUSE));
        Some(backoff.min(left))
    }

    /// The error of a run that waited `waited` for the lock on `dialect`'s
    /// database and did not get it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use flakeid_sql::{Dialect, MigrationLock};
    ///
    /// let e = MigrationLock::new().timed_out(Dialect::MySql, Duration::from_secs(300));
    /// assert_eq!(
    ///     e.to_string(),
    ///     "MySQL/MariaDB: the migration lock \"flakeid_migrations\" (GET_LOCK) was not free \
    ///      after 300s: another process has been running migrations all that time; wait longer \
    ///      with MigrationLock::wait, or find the session that holds it"
    /// );
    /// ```
    pub fn timed_out(&self, dialect: Dialect, waited: Duration) -> MigrationLockTimeout {
        MigrationLockTimeout {
            database: dialect.label(),
            lock: self.name.clone(),
            how: match dialect {
                Dialect::Postgres => "advisory lock",
                Dialect::MySql => "GET_LOCK",
                Dialect::Sqlite => "BEGIN IMMEDIATE",
            },
            waited,
        }
    }

    fn statement(
        &self,
        dialect: Dialect,
        columns: &'static [(&'static str, SqlType)],
        postgres: &str,
        mysql: &str,
        mysql_args: &str,
    ) -> Option<SqlStatement> {
        let column = columns[0].0;
        let mut w = SqlWriter::new(dialect);
        match dialect {
            Dialect::Postgres => {
                w.push(&format!("SELECT CAST(CASE WHEN {postgres}("))
                    .bind(SqlValue::BigInt(self.key()))
                    .push(&format!(") THEN 1 ELSE 0 END AS BIGINT) AS {column}"));
            }
            Dialect::MySql => {
                w.push(&format!("SELECT CAST(COALESCE({mysql}(LEFT(CONCAT("))
                    .bind(SqlValue::Text(self.name.clone()))
                    .push(&format!(
                        ", '.', COALESCE(DATABASE(), '')), 64){mysql_args}), 0) AS SIGNED) AS {column}"
                    ));
            }
            Dialect::Sqlite => return None,
        }
        w.returns(columns);
        Some(w.finish())
    }
}

impl Default for MigrationLock {
    fn default() -> Self {
        Self::new()
    }
}

/// A migration run did not get its [`MigrationLock`] in time: another
/// process held it (ran its migrations) for the whole wait.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "{database}: the migration lock {lock:?} ({how}) was not free after {waited:?}: another \
     process has been running migrations all that time; wait longer with MigrationLock::wait, \
     or find the session that holds it"
)]
#[non_exhaustive]
pub struct MigrationLockTimeout {
    /// The database: `"PostgreSQL"`, `"MySQL/MariaDB"` or `"SQLite"`.
    pub database: &'static str,
    /// The lock's name.
    pub lock: String,
    /// The kind of lock: `"advisory lock"`, `"GET_LOCK"`, `"BEGIN IMMEDIATE"`.
    pub how: &'static str,
    /// How long the run waited.
    pub waited: Duration,
}

const LOCKED: &[(&str, SqlType)] = &[("locked", SqlType::BigInt)];
const RELEASED: &[(&str, SqlType)] = &[("released", SqlType::BigInt)];
const TIMEOUT: &[(&str, SqlType)] = &[("timeout", SqlType::BigInt)];

#[cfg(test)]
#[path = "../tests/unit/migration_lock.rs"]
mod tests;
