//! Node IDs leased from a table in the application's database, through Diesel.
//!
//! The protocol, its guarantees and its defaults are described in
//! [`LeaseOptions`]; the SQL is
//! [`LeaseSql`]'s. This
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
//! use flakeid_diesel::flakeid_core::layout::presets;
//! use flakeid_diesel::flakeid_lease::LeaseOptions;
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

use std::time::Duration;

use diesel::connection::{Connection, LoadConnection};
use diesel::result::{ConnectionResult, QueryResult};
use flakeid_core::Clock;
use flakeid_core::layout::Layout;
use flakeid_lease::{LeaseError, LeaseOptions, LeaseSql, NodeLease, NodeTable, SqlLeaseStore};

use crate::backend::DieselBackend;
use crate::executor::{DieselExecutor, OnConnection};
use crate::migration::TableMigration;

/// The lease store on Diesel connections opened by a function.
pub type DieselLeaseStore<C> = SqlLeaseStore<DieselExecutor<C>>;

/// A lease store (table `flakeid_nodes`) whose connections `connect` opens;
/// a statement takes as long as its connection lets it (for a deadline on
/// each, [`claim`] or [`DieselExecutor::with_deadline`]).
pub fn store<C>(connect: impl Fn() -> ConnectionResult<C> + Send + 'static) -> DieselLeaseStore<C>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: DieselBackend,
{
    SqlLeaseStore::new(DieselExecutor::new(connect))
}

/// Claims a node as `options` say (in the table `flakeid_nodes`) and
/// starts the thread that renews it, on a connection `connect` opens
/// (not one of the application's: renewal must not wait for a busy pool).
///
/// Every statement of the lease answers within its
/// [renewal interval](LeaseOptions::renew_interval), at least
/// [`MIN_STATEMENT_DEADLINE`]: one that hangs (a one-sided network
/// partition: a blackholed or stalled connection) fails then, its
/// connection is given up and the next statement opens a fresh one (see
/// [`DieselExecutor::with_deadline`]). So renewals fail on time, the
/// ceiling warning and the fence come on time, and once the network is back
/// the holder learns within one interval plus that deadline whether it
/// still holds its node.
///
/// # Errors
/// See [`LeaseOptions::claim`].
pub fn claim<C, L, K>(
    connect: impl Fn() -> ConnectionResult<C> + Send + Sync + 'static,
    options: LeaseOptions<L, K>,
) -> Result<NodeLease<L, K>, LeaseError>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: DieselBackend,
    L: Layout + Clone,
    K: Clock + Clone,
{
    let deadline = options.renew_interval().max(MIN_STATEMENT_DEADLINE);
    options.claim(SqlLeaseStore::new(DieselExecutor::with_deadline(
        connect, deadline,
    )))
}

/// The shortest deadline [`claim`] gives a statement: claiming a node
/// inserts the space's rows first, which may take longer than a short
/// renewal interval on a busy server.
pub const MIN_STATEMENT_DEADLINE: Duration = Duration::from_secs(5);

/// Every node row of `space`: who holds which node, until when, and the
/// high-water marks. For operators.
///
/// # Errors
/// [`LeaseError::Store`].
pub fn list_nodes<C>(conn: &mut C, space: &str) -> Result<NodeTable, LeaseError>
where
    C: LoadConnection + Send,
    C::Backend: DieselBackend,
{
    NodeTable::read(&mut SqlLeaseStore::new(OnConnection(conn)), space)
}

/// Creates the lease table `flakeid_nodes` if it does not exist: the
/// migration's `up.sql` run at once, safe from any number of processes at
/// the same moment (see [`TableMigration`]).
///
/// # Errors
/// The database's error.
pub fn create_table<C: Connection<Backend: DieselBackend>>(conn: &mut C) -> QueryResult<()> {
    MIGRATIONS.create_table(conn)
}

/// The lease table's migration (see [`TableMigration`]).
pub const MIGRATIONS: TableMigration = TableMigration::new(
    "00000000000001",
    "create_flakeid_nodes",
    |d| LeaseSql::new(d).create_table(),
    |d| LeaseSql::new(d).drop_table(),
);
