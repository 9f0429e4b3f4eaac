//! Node IDs leased from a table in the application's database, through Diesel.
//!
//! The protocol, its guarantees and its defaults are described in
//! [`flakeid_core::lease`]; the SQL is [`flakeid_core::sql::lease`]. This
//! module runs it on a synchronous Diesel connection (PostgreSQL,
//! MySQL/MariaDB, SQLite) and renews the lease in a thread with a
//! connection of its own, opened (and reopened after an error) by a
//! function you give.
//!
//! The table comes from a migration shipped with this crate, in
//! `migrations/<backend>/00000000000001_create_flakeid_nodes/` (copy it
//! into your migrations directory for the Diesel CLI), as the
//! [`MIGRATIONS`] source for `diesel_migrations`'
//! `run_pending_migrations`, or run at once by [`create_table`].
//!
//! ```
//! use diesel::{Connection, SqliteConnection};
//! use flakeid_diesel::flakeid_core::{layout::presets, lease::LeaseOptions};
//!
//! let dir = std::env::temp_dir().join(format!("flakeid-diesel-lease-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let url = dir.join("app.db").display().to_string();
//! let mut conn = SqliteConnection::establish(&url)?;
//! flakeid_diesel::lease::create_table(&mut conn)?;
//!
//! let connect_url = url.clone();
//! let lease = flakeid_diesel::lease::claim(
//!     move || SqliteConnection::establish(&connect_url),
//!     LeaseOptions::new("users", presets::twitter()),
//! )?;
//! let generator = lease.generator_builder().build()?;
//! let id = generator.next_id()?;
//! # assert!(id > 0);
//! // Operators can look at the table.
//! let table = flakeid_diesel::lease::list_nodes(&mut conn, "users")?;
//! assert_eq!(table.held().count(), 1);
//! lease.release(&generator)?;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use diesel::backend::Backend;
use diesel::connection::{Connection, LoadConnection};
use diesel::migration::{Migration, MigrationSource};
use diesel::result::{ConnectionError, ConnectionResult, QueryResult};
use flakeid_core::lease::{LeaseError, LeaseOptions, NodeLease, NodeTable};
use flakeid_core::sql::lease::{LeaseRow, LeaseSql, SqlExecutor, SqlLeaseStore};
use flakeid_core::sql::{Dialect, SqlStatement};
use flakeid_core::{Clock, Layout};

use crate::migration::TableMigration;

/// A Diesel backend the lease statements run on (PostgreSQL, MySQL,
/// SQLite, with this crate's feature of the same name).
pub trait LeaseBackend: Backend + Sized {
    /// The backend's SQL dialect.
    const DIALECT: Dialect;

    /// Executes a lease statement; the rows it changed.
    ///
    /// # Errors
    /// The database's error.
    fn execute<C: Connection<Backend = Self>>(conn: &mut C, s: &SqlStatement)
    -> QueryResult<usize>;

    /// Runs a lease `SELECT`.
    ///
    /// # Errors
    /// The database's error.
    fn load<C: LoadConnection<Backend = Self>>(
        conn: &mut C,
        s: &SqlStatement,
    ) -> QueryResult<Vec<LeaseRow>>;
}

/// The columns every lease `SELECT` returns.
#[derive(diesel::QueryableByName)]
pub(crate) struct Row {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    node_id: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    owner: Option<String>,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    fence: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    lease_until: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    high_water: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    holder: Option<String>,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    db_now: i64,
}

impl From<Row> for LeaseRow {
    fn from(r: Row) -> Self {
        LeaseRow {
            node_id: r.node_id,
            owner: r.owner,
            fence: r.fence,
            lease_until: r.lease_until,
            high_water: r.high_water,
            holder: r.holder,
            db_now: r.db_now,
        }
    }
}

macro_rules! lease_backend {
    ($feature:literal, $db:ty, $dialect:expr) => {
        #[cfg(feature = $feature)]
        impl LeaseBackend for $db {
            const DIALECT: Dialect = $dialect;

            fn execute<C: Connection<Backend = Self>>(
                conn: &mut C,
                s: &SqlStatement,
            ) -> QueryResult<usize> {
                use diesel::RunQueryDsl as _;
                bind::<$db>(s).execute(conn)
            }

            fn load<C: LoadConnection<Backend = Self>>(
                conn: &mut C,
                s: &SqlStatement,
            ) -> QueryResult<Vec<LeaseRow>> {
                use diesel::RunQueryDsl as _;
                let rows: Vec<Row> = bind::<$db>(s).load(conn)?;
                Ok(rows.into_iter().map(LeaseRow::from).collect())
            }
        }
    };
}

lease_backend!("postgres", diesel::pg::Pg, Dialect::Postgres);
lease_backend!("mysql", diesel::mysql::Mysql, Dialect::MySql);
lease_backend!("sqlite", diesel::sqlite::Sqlite, Dialect::Sqlite);

/// The statement with its values bound, in placeholder order.
#[cfg(any(feature = "postgres", feature = "mysql", feature = "sqlite"))]
pub(crate) fn bind<DB>(
    s: &SqlStatement,
) -> diesel::query_builder::BoxedSqlQuery<'static, DB, diesel::query_builder::SqlQuery>
where
    DB: Backend
        + diesel::sql_types::HasSqlType<diesel::sql_types::Text>
        + diesel::sql_types::HasSqlType<diesel::sql_types::BigInt>
        + diesel::sql_types::HasSqlType<diesel::sql_types::Integer>,
    String: diesel::serialize::ToSql<diesel::sql_types::Text, DB>,
    i64: diesel::serialize::ToSql<diesel::sql_types::BigInt, DB>,
    i32: diesel::serialize::ToSql<diesel::sql_types::Integer, DB>,
{
    use diesel::sql_types::{BigInt, Integer, Text};
    use flakeid_core::sql::SqlValue;
    s.values.iter().fold(
        diesel::sql_query(s.sql.clone()).into_boxed::<DB>(),
        |q, v| match v {
            SqlValue::Text(t) => q.bind::<Text, _>(t.clone()),
            SqlValue::BigInt(i) => q.bind::<BigInt, _>(*i),
            SqlValue::Int(i) => q.bind::<Integer, _>(*i),
        },
    )
}

/// Why a lease statement could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DieselLeaseError {
    /// The connection could not be (re)opened.
    #[error("cannot connect: {0}")]
    Connect(#[from] ConnectionError),
    /// The statement failed.
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
}

type Connect<C> = Box<dyn Fn() -> ConnectionResult<C> + Send>;

/// Runs the lease statements (and the segment statements, see
/// [`segment`](crate::segment)) on a connection of its own, opened by
/// `connect` and opened again after any error (the next statement
/// reconnects: a database restart or failover is ridden out).
pub struct DieselExecutor<C> {
    connect: Connect<C>,
    conn: Option<C>,
}

impl<C> fmt::Debug for DieselExecutor<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DieselExecutor")
            .field("connected", &self.conn.is_some())
            .finish_non_exhaustive()
    }
}

impl<C> DieselExecutor<C>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: LeaseBackend,
{
    /// An executor opening its connections with `connect`.
    pub fn new(connect: impl Fn() -> ConnectionResult<C> + Send + 'static) -> Self {
        DieselExecutor {
            connect: Box::new(connect),
            conn: None,
        }
    }

    pub(crate) fn with<T>(
        &mut self,
        run: impl FnOnce(&mut C) -> QueryResult<T>,
    ) -> Result<T, DieselLeaseError> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self.conn.insert((self.connect)()?),
        };
        let result = run(conn);
        if result.is_err() {
            // It may be broken; the next statement opens a fresh one.
            self.conn = None;
        }
        Ok(result?)
    }
}

impl<C> SqlExecutor for DieselExecutor<C>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: LeaseBackend,
{
    type Error = DieselLeaseError;

    fn dialect(&self) -> Dialect {
        <C::Backend as LeaseBackend>::DIALECT
    }

    fn execute(&mut self, s: &SqlStatement) -> Result<u64, DieselLeaseError> {
        self.with(|conn| C::Backend::execute(conn, s))
            .map(|n| u64::try_from(n).unwrap_or(u64::MAX))
    }

    fn query(&mut self, s: &SqlStatement) -> Result<Vec<LeaseRow>, DieselLeaseError> {
        self.with(|conn| C::Backend::load(conn, s))
    }
}

/// The lease store on Diesel connections opened by a function.
pub type DieselLeaseStore<C> = SqlLeaseStore<DieselExecutor<C>>;

/// A lease store (table `flakeid_nodes`) whose connections `connect` opens.
pub fn store<C>(connect: impl Fn() -> ConnectionResult<C> + Send + 'static) -> DieselLeaseStore<C>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: LeaseBackend,
{
    SqlLeaseStore::new(DieselExecutor::new(connect))
}

/// Claims a node as `options` say (in the table `flakeid_nodes`) and
/// starts the thread that renews it, on a connection `connect` opens
/// (not one of the application's: renewal must not wait for a busy pool).
///
/// # Errors
/// See [`LeaseOptions::claim`].
pub fn claim<C, L, K>(
    connect: impl Fn() -> ConnectionResult<C> + Send + 'static,
    options: LeaseOptions<L, K>,
) -> Result<NodeLease<L, K>, LeaseError>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: LeaseBackend,
    L: Layout + Clone,
    K: Clock + Clone,
{
    options.claim(store(connect))
}

/// Every node row of `space`: who holds which node, until when, and the
/// high-water marks. For operators.
///
/// # Errors
/// [`LeaseError::Store`].
pub fn list_nodes<C>(conn: &mut C, space: &str) -> Result<NodeTable, LeaseError>
where
    C: Connection + LoadConnection,
    C::Backend: LeaseBackend,
{
    let sql = LeaseSql::new(<C::Backend as LeaseBackend>::DIALECT);
    let store_error = |source| LeaseError::Store {
        operation: "list the nodes".into(),
        space: space.to_owned(),
        source,
    };
    let rows = C::Backend::load(conn, &sql.list(space)).map_err(|e| store_error(e.into()))?;
    flakeid_core::sql::lease::node_table(space, &rows).map_err(|e| store_error(e.into()))
}

/// Creates the lease table `flakeid_nodes` if it does not exist (the
/// shipped migration's `up.sql`, run directly).
///
/// # Errors
/// The database's error.
pub fn create_table<C>(conn: &mut C) -> QueryResult<()>
where
    C: Connection,
    C::Backend: LeaseBackend,
{
    conn.batch_execute(&up_sql(<C::Backend as LeaseBackend>::DIALECT))
}

fn up_sql(dialect: Dialect) -> String {
    format!("{};\n", LeaseSql::new(dialect).create_table())
}

fn down_sql(dialect: Dialect) -> String {
    format!("{};\n", LeaseSql::new(dialect).drop_table())
}

/// The lease table's migration as a Diesel migration source: run it with
/// `diesel_migrations`' `MigrationHarness::run_pending_migrations(MIGRATIONS)`
/// (recorded in `__diesel_schema_migrations` like your own), next to
/// your `embed_migrations!` source.
pub const MIGRATIONS: LeaseMigrations = LeaseMigrations;

/// See [`MIGRATIONS`].
#[derive(Debug, Clone, Copy, Default)]
pub struct LeaseMigrations;

/// The version of the lease table's migration.
pub const MIGRATION_VERSION: &str = "00000000000001";

/// The name of the lease table's migration (its directory's, after the version).
pub const MIGRATION_NAME: &str = "create_flakeid_nodes";

const CREATE_NODES: TableMigration = TableMigration {
    version: MIGRATION_VERSION,
    name: MIGRATION_NAME,
    up: up_sql,
    down: down_sql,
};

impl<DB: LeaseBackend> MigrationSource<DB> for LeaseMigrations {
    fn migrations(&self) -> diesel::migration::Result<Vec<Box<dyn Migration<DB>>>> {
        CREATE_NODES.source()
    }
}

#[cfg(test)]
mod tests {
    /// The migration files shipped for the Diesel CLI are the SQL the
    /// migration source and `create_table` run.
    #[test]
    fn shipped_migrations_match_the_generated_sql() {
        crate::migration::assert_shipped_files_match(super::CREATE_NODES);
    }
}
