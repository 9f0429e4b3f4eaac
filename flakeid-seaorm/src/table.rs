//! flakeid's own tables (leases, segments) on a SeaORM connection: created
//! by `create_table` or by a migration, from the same SQL.

use flakeid_sql::Dialect;
use sea_orm::{ConnectionTrait, DbErr};

use crate::backend::dialect;

/// One of flakeid's tables: its SQL per dialect and its migration's name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlakeTable {
    /// The name of the migration that creates it.
    #[cfg_attr(not(feature = "migration"), allow(dead_code))]
    pub(crate) migration: &'static str,
    /// `CREATE TABLE IF NOT EXISTS …`, safe from any number of sessions at once.
    pub(crate) create: fn(Dialect) -> String,
    /// `DROP TABLE IF EXISTS …`.
    #[cfg_attr(not(feature = "migration"), allow(dead_code))]
    pub(crate) drop: fn(Dialect) -> String,
}

impl FlakeTable {
    /// Creates the table if it does not exist.
    pub(crate) async fn create<C: ConnectionTrait>(&self, db: &C) -> Result<(), DbErr> {
        run(db, self.create).await
    }

    /// Drops the table if it exists.
    #[cfg(feature = "migration")]
    pub(crate) async fn drop<C: ConnectionTrait>(&self, db: &C) -> Result<(), DbErr> {
        run(db, self.drop).await
    }
}

/// The migration of a table: the unit struct `$migration` (with the given
/// docs) and its `MigrationName` and `MigrationTrait`, running `$table`'s
/// SQL.
#[cfg(feature = "migration")]
macro_rules! table_migration {
    ($(#[$doc:meta])* $migration:ident = $table:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $migration;

        impl ::sea_orm_migration::MigrationName for $migration {
            fn name(&self) -> &str {
                $table.migration
            }
        }

        // The trait's signatures elide `SchemaManager`'s lifetime; the impl must match.
        #[allow(elided_lifetimes_in_paths)]
        #[::async_trait::async_trait]
        impl ::sea_orm_migration::MigrationTrait for $migration {
            async fn up(
                &self,
                manager: &::sea_orm_migration::SchemaManager,
            ) -> Result<(), ::sea_orm::DbErr> {
                $table.create(manager.get_connection()).await
            }

            async fn down(
                &self,
                manager: &::sea_orm_migration::SchemaManager,
            ) -> Result<(), ::sea_orm::DbErr> {
                $table.drop(manager.get_connection()).await
            }
        }
    };
}

#[cfg(feature = "migration")]
pub(crate) use table_migration;

async fn run<C: ConnectionTrait>(db: &C, sql: fn(Dialect) -> String) -> Result<(), DbErr> {
    let sql = sql(dialect(db.get_database_backend()));
    db.execute_unprepared(&sql).await.map(drop)
}
