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
//! use flakeid_diesel::flakeid_core::global;
//! use flakeid_diesel::flakeid_core::layout::presets;
//! use flakeid_diesel::flakeid_lease::LeaseOptions;
//! use flakeid_diesel::{AsyncDieselBackend, lease_async};
//!
//! // C: `diesel_async::AsyncPgConnection`, `AsyncMysqlConnection`, …
//! async fn run<C>(url: &str) -> Result<(), Box<dyn std::error::Error>>
//! where
//!     C: AsyncConnection + 'static,
//!     C::Backend: AsyncDieselBackend,
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

use diesel::result::QueryResult;
use diesel_async::{AsyncConnection, AsyncConnectionCore};
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::{Clock, MonotonicClock};
use flakeid_lease::{AsyncNodeLease, LeaseError, LeaseOptions, LeaseSql, NodeTable, SqlLeaseStore};

use crate::backend::DieselBackend;
use crate::backend_async::{AsyncDieselBackend, AsyncDieselExecutor, AsyncOnConnection};

/// The lease store on an async Diesel connection.
pub type AsyncDieselLeaseStore<C> = SqlLeaseStore<AsyncDieselExecutor<C>>;

/// A held lease whose renewal runs in a tokio task.
pub type NodeLease<C, L = BitLayout, K = MonotonicClock> =
    AsyncNodeLease<AsyncDieselLeaseStore<C>, L, K>;

/// A lease store (table `flakeid_nodes`) on a connection to `url`.
pub fn store<C>(url: impl Into<String>) -> AsyncDieselLeaseStore<C>
where
    C: AsyncConnection + 'static,
    C::Backend: AsyncDieselBackend,
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
    C::Backend: AsyncDieselBackend,
    L: Layout + Clone + Send + Sync + 'static,
    K: Clock + Clone,
{
    options.claim_on_tokio(store::<C>(url)).await
}

/// Every node row of `space`: who holds which node, until when, and the
/// high-water marks. For operators.
///
/// # Errors
/// [`LeaseError::Store`].
pub async fn list_nodes<C>(conn: &mut C, space: &str) -> Result<NodeTable, LeaseError>
where
    C: AsyncConnectionCore + Send,
    C::Backend: AsyncDieselBackend,
{
    let store = SqlLeaseStore::new_async(AsyncOnConnection(tokio::sync::Mutex::new(conn)));
    NodeTable::read_async(&store, space).await
}

/// Creates the lease table `flakeid_nodes` if it does not exist (the
/// shipped migration's `up.sql`, run directly). Any number of processes
/// may run it at once (on PostgreSQL the statement takes an advisory lock).
///
/// # Errors
/// The database's error.
pub async fn create_table<C>(conn: &mut C) -> QueryResult<()>
where
    C: AsyncConnectionCore,
    C::Backend: AsyncDieselBackend,
{
    let sql = format!(
        "{};\n",
        LeaseSql::new(<C::Backend as DieselBackend>::DIALECT).create_table()
    );
    diesel_async::SimpleAsyncConnection::batch_execute(conn, &sql).await
}
