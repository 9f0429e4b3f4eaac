//! Node IDs leased from a table in the application's database, through
//! `diesel-async` (feature `async`): the same table, statements and
//! guarantees as [`crate::lease`], on an async connection, renewed by a
//! tokio task.
//!
//! The lease runs on a connection of its own, opened with
//! [`AsyncConnection::establish`] from a URL (and opened again after any
//! error): renewal must not wait for a busy pool.
//!
//! ```no_run
//! use diesel_async::AsyncConnection;
//! use flakeid_diesel::flakeid_core::{global, layout::presets, lease::LeaseOptions};
//! use flakeid_diesel::lease_async::{self, AsyncLeaseBackend};
//!
//! // C: `diesel_async::AsyncPgConnection`, `AsyncMysqlConnection`, …
//! async fn run<C>(url: &str) -> Result<(), Box<dyn std::error::Error>>
//! where
//!     C: AsyncConnection + 'static,
//!     C::Backend: AsyncLeaseBackend,
//! {
//!     let mut conn = C::establish(url).await?;
//!     lease_async::create_table(&mut conn).await?;
//!     let lease = lease_async::claim::<C, _, _>(url, LeaseOptions::new("orders", presets::twitter())).await?;
//!     let generator = global::init(lease.generator_builder())?;
//!     // … serve …
//!     lease.release(generator).await?; // at shutdown
//!     Ok(())
//! }
//! ```

use core::future::Future;
use core::time::Duration;
use std::fmt;

use diesel::result::QueryResult;
use diesel_async::{AsyncConnection, AsyncConnectionCore};
use flakeid_core::lease::{AsyncNodeLease, LeaseError, LeaseOptions, NodeTable, Sleep};
use flakeid_core::sql::lease::{AsyncSqlExecutor, LeaseRow, LeaseSql, SqlLeaseStore};
use flakeid_core::sql::{Dialect, SqlStatement};
use flakeid_core::{BitLayout, Clock, Layout, MonotonicClock};

use crate::lease::{DieselLeaseError, LeaseBackend};

/// A Diesel backend the lease statements run on through `diesel-async`
/// (PostgreSQL, MySQL, SQLite, with this crate's feature of the same name).
pub trait AsyncLeaseBackend: LeaseBackend {
    /// Executes a lease statement; the rows it changed.
    fn execute_async<'c, C: AsyncConnectionCore<Backend = Self>>(
        conn: &'c mut C,
        s: &SqlStatement,
    ) -> impl Future<Output = QueryResult<usize>> + Send + 'c;

    /// Runs a lease `SELECT`.
    fn load_async<'c, C: AsyncConnectionCore<Backend = Self>>(
        conn: &'c mut C,
        s: &SqlStatement,
    ) -> impl Future<Output = QueryResult<Vec<LeaseRow>>> + Send + 'c;
}

macro_rules! async_lease_backend {
    ($feature:literal, $db:ty) => {
        #[cfg(feature = $feature)]
        impl AsyncLeaseBackend for $db {
            fn execute_async<'c, C: AsyncConnectionCore<Backend = Self>>(
                conn: &'c mut C,
                s: &SqlStatement,
            ) -> impl Future<Output = QueryResult<usize>> + Send + 'c {
                diesel_async::RunQueryDsl::execute(crate::lease::bind::<$db>(s), conn)
            }

            fn load_async<'c, C: AsyncConnectionCore<Backend = Self>>(
                conn: &'c mut C,
                s: &SqlStatement,
            ) -> impl Future<Output = QueryResult<Vec<LeaseRow>>> + Send + 'c {
                let query = crate::lease::bind::<$db>(s);
                async move {
                    let rows: Vec<crate::lease::Row> =
                        diesel_async::RunQueryDsl::load(query, conn).await?;
                    Ok(rows.into_iter().map(LeaseRow::from).collect())
                }
            }
        }
    };
}

async_lease_backend!("postgres", diesel::pg::Pg);
async_lease_backend!("mysql", diesel::mysql::Mysql);
async_lease_backend!("sqlite", diesel::sqlite::Sqlite);

/// Runs the lease statements on an async connection of its own, opened
/// from a URL and opened again after any error (the next statement
/// reconnects: a database restart or failover is ridden out).
pub struct AsyncDieselExecutor<C> {
    url: String,
    conn: tokio::sync::Mutex<Option<C>>,
}

impl<C> fmt::Debug for AsyncDieselExecutor<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncDieselExecutor")
            .finish_non_exhaustive()
    }
}

impl<C> AsyncDieselExecutor<C>
where
    C: AsyncConnection + 'static,
    C::Backend: AsyncLeaseBackend,
{
    /// An executor connecting to `url` (with [`AsyncConnection::establish`]).
    pub fn new(url: impl Into<String>) -> Self {
        AsyncDieselExecutor {
            url: url.into(),
            conn: tokio::sync::Mutex::new(None),
        }
    }
}

impl<C> AsyncSqlExecutor for AsyncDieselExecutor<C>
where
    C: AsyncConnection + 'static,
    C::Backend: AsyncLeaseBackend,
{
    type Error = DieselLeaseError;

    fn dialect(&self) -> Dialect {
        <C::Backend as LeaseBackend>::DIALECT
    }

    async fn execute(&self, s: &SqlStatement) -> Result<u64, DieselLeaseError> {
        let mut guard = self.conn.lock().await;
        let conn = match &mut *guard {
            Some(conn) => conn,
            slot @ None => slot.insert(C::establish(&self.url).await?),
        };
        let result = C::Backend::execute_async(conn, s).await;
        if result.is_err() {
            // It may be broken; the next statement opens a fresh one.
            *guard = None;
        }
        Ok(u64::try_from(result?).unwrap_or(u64::MAX))
    }

    async fn query(&self, s: &SqlStatement) -> Result<Vec<LeaseRow>, DieselLeaseError> {
        let mut guard = self.conn.lock().await;
        let conn = match &mut *guard {
            Some(conn) => conn,
            slot @ None => slot.insert(C::establish(&self.url).await?),
        };
        let result = C::Backend::load_async(conn, s).await;
        if result.is_err() {
            *guard = None;
        }
        Ok(result?)
    }
}

/// The lease store on an async Diesel connection.
pub type AsyncDieselLeaseStore<C> = SqlLeaseStore<AsyncDieselExecutor<C>>;

/// A held lease whose renewal runs in a tokio task.
pub type NodeLease<C, L = BitLayout, K = MonotonicClock> =
    AsyncNodeLease<AsyncDieselLeaseStore<C>, L, K>;

/// tokio's timers, for the renewal task.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleep;

impl Sleep for TokioSleep {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// A lease store (table `flakeid_nodes`) on a connection to `url`.
pub fn store<C>(url: impl Into<String>) -> AsyncDieselLeaseStore<C>
where
    C: AsyncConnection + 'static,
    C::Backend: AsyncLeaseBackend,
{
    SqlLeaseStore::new_async(AsyncDieselExecutor::new(url))
}

/// Claims a node as `options` say (in the table `flakeid_nodes`, on a
/// connection of its own to `url`) and spawns the tokio task that renews
/// it. Call it from within a tokio runtime; the task ends when the lease
/// is released, dropped or lost.
///
/// # Errors
/// See [`LeaseOptions::claim_async`].
pub async fn claim<C, L, K>(
    url: &str,
    options: LeaseOptions<L, K>,
) -> Result<NodeLease<C, L, K>, LeaseError>
where
    C: AsyncConnection + 'static,
    C::Backend: AsyncLeaseBackend,
    L: Layout + Clone + Send + Sync + 'static,
    K: Clock + Clone,
{
    let (lease, renewal) = options.claim_async(store::<C>(url), TokioSleep).await?;
    tokio::spawn(renewal);
    Ok(lease)
}

/// Every node row of `space`: who holds which node, until when, and the
/// high-water marks. For operators.
///
/// # Errors
/// [`LeaseError::Store`].
pub async fn list_nodes<C>(conn: &mut C, space: &str) -> Result<NodeTable, LeaseError>
where
    C: AsyncConnectionCore,
    C::Backend: AsyncLeaseBackend,
{
    let sql = LeaseSql::new(<C::Backend as LeaseBackend>::DIALECT);
    let store_error = |source| LeaseError::Store {
        operation: "list the nodes".into(),
        space: space.to_owned(),
        source,
    };
    let rows = C::Backend::load_async(conn, &sql.list(space))
        .await
        .map_err(|e| store_error(DieselLeaseError::from(e).into()))?;
    flakeid_core::sql::lease::node_table(space, &rows).map_err(|e| store_error(e.into()))
}

/// Creates the lease table `flakeid_nodes` if it does not exist (the
/// shipped migration's `up.sql`, run directly).
///
/// # Errors
/// The database's error.
pub async fn create_table<C>(conn: &mut C) -> QueryResult<()>
where
    C: AsyncConnectionCore,
    C::Backend: AsyncLeaseBackend,
{
    let sql = format!(
        "{};\n",
        LeaseSql::new(<C::Backend as LeaseBackend>::DIALECT).create_table()
    );
    diesel_async::SimpleAsyncConnection::batch_execute(conn, &sql).await
}
