//! One table's migration, as Diesel's migration traits want it: the SQL
//! comes from flakeid-core (`LeaseSql`, `SegmentSql`) per dialect, the
//! same text the crate ships as migration files for the Diesel CLI.

use std::fmt;

use diesel::migration::{Migration, MigrationMetadata, MigrationName, MigrationVersion};
use flakeid_core::sql::Dialect;

use crate::backend::DieselBackend;

/// A migration creating (and on revert dropping) one of flakeid's tables.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TableMigration {
    /// Version, as in the migration directory's name.
    pub(crate) version: &'static str,
    /// Name, the directory's name after the version.
    pub(crate) name: &'static str,
    /// The `up.sql` text for a dialect.
    pub(crate) up: fn(Dialect) -> String,
    /// The `down.sql` text for a dialect.
    pub(crate) down: fn(Dialect) -> String,
}

impl TableMigration {
    /// This migration as a migration source of its own.
    pub(crate) fn source<DB: DieselBackend>(
        self,
    ) -> diesel::migration::Result<Vec<Box<dyn Migration<DB>>>> {
        Ok(vec![Box::new(self)])
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
    fn run(
        &self,
        conn: &mut dyn diesel::connection::BoxableConnection<DB>,
    ) -> diesel::migration::Result<()> {
        Ok(conn.batch_execute(&(self.up)(DB::DIALECT))?)
    }

    fn revert(
        &self,
        conn: &mut dyn diesel::connection::BoxableConnection<DB>,
    ) -> diesel::migration::Result<()> {
        Ok(conn.batch_execute(&(self.down)(DB::DIALECT))?)
    }

    fn metadata(&self) -> &dyn MigrationMetadata {
        self
    }

    fn name(&self) -> &dyn MigrationName {
        self
    }
}

/// Checks that the migration files shipped for the Diesel CLI are the SQL
/// the migration source and `create_table` run, for every backend. With
/// `FLAKEID_BLESS=1` it writes the files instead (after a change to the
/// SQL), like `TRYBUILD=overwrite`.
#[cfg(test)]
pub(crate) fn assert_shipped_files_match(m: TableMigration) {
    let bless = std::env::var_os("FLAKEID_BLESS").is_some_and(|v| v == "1");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for (dir, dialect) in [
        ("postgres", Dialect::Postgres),
        ("mysql", Dialect::MySql),
        ("sqlite", Dialect::Sqlite),
    ] {
        let path = root.join(dir).join(m.to_string());
        if bless {
            std::fs::write(path.join("up.sql"), (m.up)(dialect)).expect("write up.sql");
            std::fs::write(path.join("down.sql"), (m.down)(dialect)).expect("write down.sql");
        }
        let read = |f: &str| {
            std::fs::read_to_string(path.join(f))
                .unwrap_or_else(|e| panic!("{}: {e}", path.join(f).display()))
        };
        assert_eq!(read("up.sql"), (m.up)(dialect), "{dir}");
        assert_eq!(read("down.sql"), (m.down)(dialect), "{dir}");
    }
}
