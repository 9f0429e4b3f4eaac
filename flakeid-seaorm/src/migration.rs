//! Migrations at start-up, from any number of replicas at once (feature
//! `migration`).
//!
//! `Migrator::up` is not safe from several processes at once: each one
//! creates `seaql_migrations` if it is missing (on PostgreSQL all but one
//! of them fail: `duplicate key value violates unique constraint
//! "pg_type_typname_nsp_index"`), and two that find the same migration
//! pending both apply it and both record it (`Duplicate entry … for key
//! 'PRIMARY'` on MariaDB, `UNIQUE constraint failed:
//! seaql_migrations.version` on SQLite). [`up`] runs your `Migrator` (with
//! [`lease::Migration`](crate::lease::Migration) and
//! [`segment::Migration`](crate::segment::Migration) among its migrations,
//! or not) under a [`MigrationLock`] held for the whole run, so replicas
//! starting together apply the migrations one after another: the first
//! applies what is pending, the others find nothing left to do.
//!
//! ```
//! use flakeid_seaorm::migration::up;
//! use sea_orm::Database;
//! use sea_orm_migration::{MigrationTrait, MigratorTrait};
//!
//! pub struct Migrator;
//!
//! impl MigratorTrait for Migrator {
//!     fn migrations() -> Vec<Box<dyn MigrationTrait>> {
//!         // flakeid's tables, then your own migrations.
//!         vec![Box::new(flakeid_seaorm::lease::Migration), Box::new(flakeid_seaorm::segment::Migration)]
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let db = Database::connect("sqlite::memory:").await?;
//! // At start-up, in every replica:
//! up::<Migrator>(&db).await?;
//! # assert_eq!(Migrator::get_applied_migrations(&db).await?.len(), 2);
//! # Ok(())
//! # }
//! ```
//!
//! | database | lock, held for the whole run | the migrations run on |
//! |---|---|---|
//! | PostgreSQL | a session-level advisory lock, on a connection of the pool held for the run | the pool (each migration in its own transaction, as `Migrator::up` does) |
//! | MySQL/MariaDB | `GET_LOCK`, on a connection of the pool held for the run | the pool |
//! | SQLite | an immediate transaction (`BEGIN IMMEDIATE`) | that transaction: one commit for the whole run, or nothing |
//!
//! On PostgreSQL and MySQL/MariaDB the pool needs a second connection
//! for the migrations while one holds the lock. A replica that waits for
//! the lock longer than [`MigrationLock::wait`] (5 minutes by default)
//! fails with [`Error::MigrationLock`] inside the `DbErr`, naming the
//! database and the lock (on SQLite an attempt itself waits up to the
//! connection's busy timeout, 5 s in sqlx, so the wait may end that much
//! later). Waits are the runtime's timer's (tokio), and a
//! run cancelled while it holds the lock (its future dropped) releases it
//! in a task of its own. A process that dies releases the lock with its
//! connection.

use std::time::Instant;

use flakeid_sql::Dialect;
pub use flakeid_sql::{MigrationLock, MigrationLockTimeout};
use sea_orm::{
    ConnectionTrait, DatabaseConnection, DatabaseExecutor, DatabaseTransaction, DbBackend, DbErr,
    SqliteTransactionMode, TransactionOptions, TransactionTrait,
};
use sea_orm_migration::{MigrationName, MigrationTrait, MigratorTrait, SchemaManager};

use crate::Error;
use crate::backend::{dialect, row, statement};

/// Applies `M`'s pending migrations (`M::up(db, None)`) under the default
/// [`MigrationLock`]: what every replica may run at start-up.
///
/// # Errors
/// [`Error::MigrationLock`] (in the `DbErr`) if the lock stays taken for
/// [`MigrationLock::DEFAULT_WAIT`]; the migrations' and the database's
/// errors.
pub async fn up<M: MigratorTrait>(db: &DatabaseConnection) -> Result<(), DbErr> {
    let lock = MigrationLock::new();
    let held = Held::take(db, &lock).await?;
    let done = M::up(held.executor(db), None).await;
    held.release(done).await
}

/// Runs `migrate` under `lock`: any migrations of yours (several
/// migrators, `down`, a `Migrator` with its own table name), with a lock
/// name and wait of your choice. `migrate` gets the connection to run them
/// on: the pool on PostgreSQL and MySQL/MariaDB, the lock's transaction
/// on SQLite.
///
/// ```
/// use std::time::Duration;
/// use flakeid_seaorm::migration::{MigrationLock, run};
/// use sea_orm::{ConnectionTrait, Database};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let db = Database::connect("sqlite::memory:").await?;
/// let lock = MigrationLock::named("app").wait(Duration::from_secs(60));
/// run(&db, &lock, async |db| {
///     flakeid_seaorm::lease::create_table(&db).await?;
///     db.execute_unprepared("CREATE TABLE IF NOT EXISTS notes (id BIGINT PRIMARY KEY)").await?;
///     Ok(())
/// })
/// .await?;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// As [`up`], with `lock`'s wait; `migrate`'s errors.
pub async fn run<T>(
    db: &DatabaseConnection,
    lock: &MigrationLock,
    migrate: impl AsyncFnOnce(DatabaseExecutor<'_>) -> Result<T, DbErr>,
) -> Result<T, DbErr> {
    let held = Held::take(db, lock).await?;
    let done = migrate(held.executor(db)).await;
    held.release(done).await
}

/// A migration made of statements flakeid writes: an adoption's
/// (`AdoptionPlan::up` / `down` of the `flakeid-adopt` crate), the
/// database ID function's (`IdFunction` of `flakeid-id-function`), the
/// functions that read IDs (`DecodeFunctions`, same crate), or any others.
///
/// `up` and `down` run their statements in order on one connection of the
/// pool, inside a transaction of their own (a savepoint inside the
/// migration lock's transaction on SQLite): statements that need one
/// session (`LOCK TABLES` on MySQL/MariaDB) stay on it, and on PostgreSQL and
/// SQLite a failing statement leaves nothing changed. After a failure on
/// MySQL/MariaDB it runs `UNLOCK TABLES` on that connection, so that no
/// table lock stays with the pool. The runner does not wrap it in a
/// transaction of its own (`use_transaction` is `Some(false)`).
///
/// ```
/// use flakeid_seaorm::flakeid_sql::SqlNameError;
/// use flakeid_seaorm::migration::{SqlMigration, up};
/// use sea_orm::Database;
/// use sea_orm_migration::{MigrationTrait, MigratorTrait};
///
/// pub struct Migrator;
///
/// impl MigratorTrait for Migrator {
///     fn migrations() -> Vec<Box<dyn MigrationTrait>> {
///         // Fixed statements, e.g. an adoption plan's, or statements per database:
///         vec![
///             Box::new(SqlMigration::new(
///                 "m20260101_000001_notes",
///                 vec!["CREATE TABLE notes (id BIGINT PRIMARY KEY CHECK (id > 0))".into()],
///                 vec!["DROP TABLE notes".into()],
///             )),
///             Box::new(SqlMigration::per_dialect("m20260101_000002_note_tags", |dialect| {
///                 // Written for the database it runs on: here, the name's quoting.
///                 let table = dialect.identifier("table", "note tags")?;
///                 Ok::<_, SqlNameError>((
///                     vec![format!("CREATE TABLE {table} (note_id BIGINT NOT NULL, tag TEXT NOT NULL)")],
///                     vec![format!("DROP TABLE {table}")],
///                 ))
///             })),
///         ]
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let db = Database::connect("sqlite::memory:").await?;
/// up::<Migrator>(&db).await?;
/// # assert_eq!(Migrator::get_applied_migrations(&db).await?.len(), 2);
/// # Ok(())
/// # }
/// ```
pub struct SqlMigration {
    name: String,
    statements: Statements,
}

/// The up and down statements for a dialect.
type Statements = Box<dyn Fn(Dialect) -> Result<(Vec<String>, Vec<String>), DbErr> + Send + Sync>;

impl SqlMigration {
    /// The migration `name` running `up` and `down` (written for the
    /// database it runs on).
    pub fn new(name: impl Into<String>, up: Vec<String>, down: Vec<String>) -> Self {
        SqlMigration {
            name: name.into(),
            statements: Box::new(move |_| Ok((up.clone(), down.clone()))),
        }
    }

    /// The migration `name` running the up and down statements `sql`
    /// writes for the database it runs on.
    pub fn per_dialect<E>(
        name: impl Into<String>,
        sql: impl Fn(Dialect) -> Result<(Vec<String>, Vec<String>), E> + Send + Sync + 'static,
    ) -> Self
    where
        E: std::fmt::Display,
    {
        SqlMigration {
            name: name.into(),
            statements: Box::new(move |d| sql(d).map_err(|e| DbErr::Custom(e.to_string()))),
        }
    }

    async fn run(&self, manager: &SchemaManager<'_>, up: bool) -> Result<(), DbErr> {
        let backend = manager.get_database_backend();
        let (up_sql, down_sql) = (self.statements)(dialect(backend))?;
        let statements = if up { up_sql } else { down_sql };
        let txn = manager.get_connection().begin().await?;
        for s in &statements {
            if let Err(e) = txn.execute_unprepared(s).await {
                if backend == DbBackend::MySql {
                    let _ = txn.execute_unprepared("UNLOCK TABLES").await;
                }
                let _ = txn.rollback().await;
                return Err(e);
            }
        }
        txn.commit().await
    }
}

impl std::fmt::Debug for SqlMigration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlMigration")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl MigrationName for SqlMigration {
    fn name(&self) -> &str {
        &self.name
    }
}

// The trait's signatures elide `SchemaManager`'s lifetime; the impl must match.
#[allow(elided_lifetimes_in_paths)]
#[async_trait::async_trait]
impl MigrationTrait for SqlMigration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        self.run(manager, true).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        self.run(manager, false).await
    }

    fn use_transaction(&self) -> Option<bool> {
        Some(false)
    }
}

/// The lock, held on a transaction of its own (PostgreSQL, MySQL/MariaDB)
/// or being one (SQLite).
struct Held<'l> {
    lock: &'l MigrationLock,
    backend: DbBackend,
    txn: Option<DatabaseTransaction>,
}

impl<'l> Held<'l> {
    /// Waits for the lock, up to its wait.
    async fn take(db: &DatabaseConnection, lock: &'l MigrationLock) -> Result<Self, DbErr> {
        let backend = db.get_database_backend();
        let dialect = dialect(backend);
        let started = Instant::now();
        let mut held = Held {
            lock,
            backend,
            txn: None,
        };
        let take = lock.try_lock(dialect);
        if take.is_some() {
            held.txn = Some(db.begin().await?);
        }
        let mut attempt = 0;
        loop {
            let taken = match (&take, &held.txn) {
                (Some(take), Some(txn)) => {
                    let rows = txn.query_all_raw(statement(backend, take)).await?;
                    match rows.first() {
                        Some(r) => row(take, r)?.i64("locked") == Some(1),
                        None => false,
                    }
                }
                _ => match db.begin_with_options(immediate()).await {
                    Ok(txn) => {
                        held.txn = Some(txn);
                        true
                    }
                    Err(e) if is_sqlite_busy(&e) => false,
                    Err(e) => return Err(e),
                },
            };
            if taken {
                return Ok(held);
            }
            let waited = started.elapsed();
            let Some(pause) = lock.retry_after(attempt, waited) else {
                held.give_up().await;
                return Err(Error::MigrationLock(lock.timed_out(dialect, waited)).into());
            };
            tokio::time::sleep(pause).await;
            attempt += 1;
        }
    }

    /// Where the migrations run: the pool, or the SQLite transaction.
    fn executor<'a>(&'a self, db: &'a DatabaseConnection) -> DatabaseExecutor<'a> {
        match (&self.txn, self.lock.unlock(dialect(self.backend))) {
            (Some(txn), None) => DatabaseExecutor::Transaction(txn),
            _ => DatabaseExecutor::Connection(db),
        }
    }

    /// Ends the run with `done`: releases the lock (SQLite: commits the
    /// migrations, or rolls them back after an error).
    async fn release<T>(mut self, done: Result<T, DbErr>) -> Result<T, DbErr> {
        let Some(txn) = self.txn.take() else {
            return done;
        };
        match self.lock.unlock(dialect(self.backend)) {
            Some(unlock) => {
                let released = txn.query_all_raw(statement(self.backend, &unlock)).await;
                let ended = txn.commit().await;
                let value = done?;
                released?;
                ended?;
                Ok(value)
            }
            None => match done {
                Ok(value) => txn.commit().await.map(|()| value),
                Err(e) => {
                    // The migrations' error says more than a failed rollback.
                    let _ = txn.rollback().await;
                    Err(e)
                }
            },
        }
    }

    /// Ends the lock's transaction after the lock was not taken.
    async fn give_up(&mut self) {
        if let Some(txn) = self.txn.take() {
            let _ = txn.rollback().await;
        }
    }
}

impl Drop for Held<'_> {
    /// A run cancelled while it holds the lock: the session lock would stay
    /// with the pooled connection, so a task releases it (SQLite's
    /// transaction rolls back by itself).
    fn drop(&mut self) {
        let (Some(txn), Some(unlock)) = (self.txn.take(), self.lock.unlock(dialect(self.backend)))
        else {
            return;
        };
        let backend = self.backend;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = txn.query_all_raw(statement(backend, &unlock)).await;
                let _ = txn.rollback().await;
            });
        }
    }
}

fn immediate() -> TransactionOptions {
    TransactionOptions {
        sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
        ..TransactionOptions::default()
    }
}

/// SQLite's `SQLITE_BUSY`: another connection holds the write lock (after
/// the connection's busy timeout, 5 s in sqlx by default).
fn is_sqlite_busy(e: &DbErr) -> bool {
    e.to_string().contains("database is locked")
}
