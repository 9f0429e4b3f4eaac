//! Node IDs leased from a table in the application's database, through SeaORM
//! (feature `lease`, on by default).
//!
//! The protocol, its guarantees and its defaults are described in
//! [`flakeid_core::lease`]; the SQL is [`flakeid_core::sql::lease`]. This
//! module runs it on a SeaORM connection (PostgreSQL, MySQL/MariaDB,
//! SQLite) and renews the lease in a tokio task.
//!
//! ```
//! use flakeid_core::{global, layout::presets, lease::LeaseOptions};
//! use sea_orm::Database;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let db = Database::connect("sqlite::memory:").await?;
//! flakeid_seaorm::lease::create_table(&db).await?; // or add `Migration` to your Migrator
//! let lease = flakeid_seaorm::lease::claim(&db, LeaseOptions::new("users", presets::twitter())).await?;
//! let generator = global::init(lease.generator_builder())?;
//! let id = generator.next_id()?;
//! # assert!(id > 0);
//! // At shutdown: the next holder of the node starts right after this process's last ID.
//! lease.release(generator).await?;
//! # Ok(())
//! # }
//! ```

use flakeid_core::lease::{AsyncNodeLease, LeaseError, LeaseOptions, NodeTable, Sleep};
use flakeid_core::sql::lease::{AsyncSqlExecutor, LeaseRow, LeaseSql, SqlLeaseStore};
use flakeid_core::sql::{Dialect, SqlStatement, SqlValue};
use flakeid_core::{BitLayout, Clock, Layout, MonotonicClock};
use sea_orm::{
    ConnectionTrait, DatabaseConnection, DbBackend, DbErr, QueryResult, Statement, Value,
};

/// Runs the lease statements (and the segment statements, see
/// [`segment`](crate::segment)) on a SeaORM connection (pool).
#[derive(Debug, Clone)]
pub struct SeaOrmExecutor {
    pub(crate) db: DatabaseConnection,
}

impl SeaOrmExecutor {
    /// An executor on `db` (a clone of the application's connection pool).
    pub fn new(db: DatabaseConnection) -> Self {
        SeaOrmExecutor { db }
    }
}

/// The dialect of a SeaORM backend.
pub fn dialect(backend: DbBackend) -> Dialect {
    match backend {
        DbBackend::MySql => Dialect::MySql,
        DbBackend::Sqlite => Dialect::Sqlite,
        // PostgreSQL, and anything newer SeaORM may add that speaks it.
        _ => Dialect::Postgres,
    }
}

pub(crate) fn statement(backend: DbBackend, s: &SqlStatement) -> Statement {
    let values = s.values.iter().map(|v| match v {
        SqlValue::Text(t) => Value::String(Some(t.clone())),
        SqlValue::BigInt(i) => Value::BigInt(Some(*i)),
        SqlValue::Int(i) => Value::Int(Some(*i)),
    });
    Statement::from_sql_and_values(backend, s.sql.clone(), values)
}

fn lease_row(r: &QueryResult) -> Result<LeaseRow, DbErr> {
    Ok(LeaseRow {
        node_id: r.try_get("", "node_id")?,
        owner: r.try_get("", "owner")?,
        fence: r.try_get("", "fence")?,
        lease_until: r.try_get("", "lease_until")?,
        high_water: r.try_get("", "high_water")?,
        holder: r.try_get("", "holder")?,
        db_now: r.try_get("", "db_now")?,
    })
}

impl AsyncSqlExecutor for SeaOrmExecutor {
    type Error = DbErr;

    fn dialect(&self) -> Dialect {
        dialect(self.db.get_database_backend())
    }

    async fn execute(&self, s: &SqlStatement) -> Result<u64, DbErr> {
        let backend = self.db.get_database_backend();
        Ok(self
            .db
            .execute_raw(statement(backend, s))
            .await?
            .rows_affected())
    }

    async fn query(&self, s: &SqlStatement) -> Result<Vec<LeaseRow>, DbErr> {
        let backend = self.db.get_database_backend();
        let rows = self.db.query_all_raw(statement(backend, s)).await?;
        rows.iter().map(lease_row).collect()
    }
}

/// The lease store on a SeaORM connection.
pub type SeaOrmLeaseStore = SqlLeaseStore<SeaOrmExecutor>;

/// A held lease whose renewal runs in a tokio task.
pub type NodeLease<L = BitLayout, C = MonotonicClock> = AsyncNodeLease<SeaOrmLeaseStore, L, C>;

/// tokio's timers, for the renewal task.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleep;

impl Sleep for TokioSleep {
    fn sleep(&self, duration: std::time::Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// Creates the lease table `flakeid_nodes` if it does not exist.
///
/// # Errors
/// The database's error.
pub async fn create_table<C: ConnectionTrait>(db: &C) -> Result<(), DbErr> {
    let sql = LeaseSql::new(dialect(db.get_database_backend()));
    db.execute_unprepared(&sql.create_table()).await.map(drop)
}

/// Claims a node as `options` say (in the table `flakeid_nodes`) and
/// spawns the tokio task that renews it. Call it from within a tokio
/// runtime; the task ends when the lease is released, dropped or lost.
///
/// # Errors
/// See [`LeaseOptions::claim_async`].
pub async fn claim<L, C>(
    db: &DatabaseConnection,
    options: LeaseOptions<L, C>,
) -> Result<NodeLease<L, C>, LeaseError>
where
    L: Layout + Clone + Send + Sync + 'static,
    C: Clock + Clone,
{
    let store = SqlLeaseStore::new_async(SeaOrmExecutor::new(db.clone()));
    let (lease, renewal) = options.claim_async(store, TokioSleep).await?;
    tokio::spawn(renewal);
    Ok(lease)
}

/// Every node row of `space`: who holds which node, until when, and the
/// high-water marks. For operators.
///
/// # Errors
/// [`LeaseError::Store`].
pub async fn list_nodes(db: &DatabaseConnection, space: &str) -> Result<NodeTable, LeaseError> {
    use flakeid_core::lease::AsyncLeaseStore as _;
    SqlLeaseStore::new_async(SeaOrmExecutor::new(db.clone()))
        .list(space)
        .await
        .map_err(|source| LeaseError::Store {
            operation: "list the nodes".into(),
            space: space.to_owned(),
            source,
        })
}

#[cfg(feature = "migration")]
mod migration {
    use sea_orm_migration::{MigrationName, MigrationTrait, SchemaManager};

    use sea_orm::ConnectionTrait as _;

    use super::{DbErr, Dialect, LeaseSql, dialect};

    /// A migration creating the lease table; add it to your `Migrator`:
    ///
    /// ```ignore
    /// fn migrations() -> Vec<Box<dyn MigrationTrait>> {
    ///     vec![Box::new(flakeid_seaorm::lease::Migration), Box::new(m20240101_create_users::Migration)]
    /// }
    /// ```
    #[derive(Debug, Clone, Copy, Default)]
    pub struct Migration;

    impl MigrationName for Migration {
        fn name(&self) -> &str {
            "m00000000_000001_create_flakeid_nodes"
        }
    }

    // The trait's signatures elide `SchemaManager`'s lifetime; the impl must match.
    #[allow(elided_lifetimes_in_paths)]
    #[async_trait::async_trait]
    impl MigrationTrait for Migration {
        async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
            execute(manager, |d| LeaseSql::new(d).create_table()).await
        }

        async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
            execute(manager, |d| LeaseSql::new(d).drop_table()).await
        }
    }

    /// Runs the statement `sql` writes for the migration's database.
    pub(crate) async fn execute(
        manager: &SchemaManager<'_>,
        sql: impl FnOnce(Dialect) -> String,
    ) -> Result<(), DbErr> {
        let sql = sql(dialect(manager.get_database_backend()));
        manager
            .get_connection()
            .execute_unprepared(&sql)
            .await
            .map(drop)
    }
}

#[cfg(feature = "migration")]
pub use migration::Migration;
#[cfg(feature = "migration")]
pub(crate) use migration::execute as execute_migration;
