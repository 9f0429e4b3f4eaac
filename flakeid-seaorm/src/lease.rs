//! Node IDs leased from a table in the application's database, through SeaORM
//! (feature `lease`).
//!
//! The protocol, its guarantees and its defaults are described in
//! [`LeaseOptions`]. This module runs it on a SeaORM connection
//! (PostgreSQL, MySQL/MariaDB, SQLite) and renews the lease in a tokio task.
//!
//! ```
//! use flakeid_core::global;
//! use flakeid_core::layout::presets;
//! use flakeid_lease::LeaseOptions;
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

use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::{Clock, MonotonicClock};
use flakeid_lease::{AsyncNodeLease, LeaseError, LeaseOptions, LeaseSql, NodeTable, SqlLeaseStore};
use sea_orm::{ConnectionTrait, DatabaseConnection, DbErr};

use crate::backend::SeaOrmExecutor;
use crate::table::FlakeTable;

/// The lease store on a SeaORM connection.
pub type SeaOrmLeaseStore = SqlLeaseStore<SeaOrmExecutor>;

/// A held lease whose renewal runs in a tokio task.
pub type NodeLease<L = BitLayout, C = MonotonicClock> = AsyncNodeLease<SeaOrmLeaseStore, L, C>;

/// Creates the lease table `flakeid_nodes` if it does not exist. Any
/// number of processes may run it at once (on PostgreSQL the statement
/// takes an advisory lock; on SQLite sqlx waits for another process's
/// write, 5 s by default).
///
/// # Errors
/// The database's error.
pub async fn create_table<C: ConnectionTrait>(db: &C) -> Result<(), DbErr> {
    NODES.create(db).await
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
    options
        .claim_on_tokio(SqlLeaseStore::new_async(SeaOrmExecutor::new(db.clone())))
        .await
}

/// Every node row of `space`: who holds which node, until when, and the
/// high-water marks. For operators.
///
/// # Errors
/// [`LeaseError::Store`].
pub async fn list_nodes(db: &DatabaseConnection, space: &str) -> Result<NodeTable, LeaseError> {
    let store = SqlLeaseStore::new_async(SeaOrmExecutor::new(db.clone()));
    NodeTable::read_async(&store, space).await
}

#[cfg(feature = "migration")]
crate::table::table_migration! {
    /// A migration creating the lease table (feature `migration`); add it
    /// to your `Migrator` and run that with [`crate::migration::up`]:
    ///
    /// ```ignore
    /// fn migrations() -> Vec<Box<dyn MigrationTrait>> {
    ///     vec![Box::new(flakeid_seaorm::lease::Migration), Box::new(m20240101_create_users::Migration)]
    /// }
    /// ```
    Migration = NODES
}

const NODES: FlakeTable = FlakeTable {
    migration: "m00000000_000001_create_flakeid_nodes",
    create: |d| LeaseSql::new(d).create_table(),
    drop: |d| LeaseSql::new(d).drop_table(),
};
