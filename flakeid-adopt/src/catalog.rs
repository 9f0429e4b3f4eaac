//! What the database holds before the switch, one model for every
//! database: each key column, how it is auto-incremented, the largest key
//! it issued, every column that references it and, for a database whose
//! switch rebuilds the table, the table's definition. [`read`](crate::read)
//! fills it from the catalog; the dialects' plans write the migration from
//! it.

use super::error::AdoptError;
use flakeid_sql::Dialect;

/// The tables of an [`Adoption`](crate::Adoption) as the database held them when
/// [`Adoption::read_catalog`](crate::Adoption::read_catalog) read it: what
/// [`Adoption::plan`](crate::Adoption::plan) writes the migration (and its down script) from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Catalog {
    /// The database.
    pub dialect: Dialect,
    /// The key tables, in the order the adoption names them.
    pub tables: Vec<KeyTable>,
}

/// A table whose key switches to flake keys, as the catalog describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyTable {
    /// The table.
    pub table: String,
    /// Its key column (the table's primary key, one column).
    pub column: String,
    /// The key column's type as the database writes it (`integer`,
    /// `int(11) unsigned`, `INTEGER`).
    pub column_type: String,
    /// How the database issues its keys today.
    pub increment: Increment,
    /// The largest key stored (`None` for an empty table).
    pub largest_key: Option<i64>,
    /// The smallest key stored (`None` for an empty table).
    pub smallest_key: Option<i64>,
    /// The largest value the table's auto-increment has handed out, stored
    /// or not (a PostgreSQL sequence's last value, SQLite's
    /// `sqlite_sequence`); `None` where the database keeps none or none was
    /// handed out.
    pub issued_up_to: Option<i64>,
    /// Every column that holds keys of this table: the columns of foreign
    /// keys that reference it, and the columns named with
    /// [`Adoption::reference`](crate::Adoption::reference).
    pub references: Vec<Reference>,
    /// The key column's attributes beyond its type.
    pub(crate) attributes: ColumnAttributes,
    /// The table's definition, where the switch rebuilds the table
    /// (SQLite).
    pub(crate) definition: Option<TableDefinition>,
}

/// How a key column is auto-incremented before the switch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Increment {
    /// PostgreSQL `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY`.
    Identity {
        /// `ALWAYS` (true) or `BY DEFAULT`.
        always: bool,
        /// The identity's sequence (dropped with the identity).
        sequence: String,
    },
    /// PostgreSQL `serial` / `bigserial`, or any `DEFAULT nextval(…)`:
    /// the sequence stays (owned by the column) so that the down script
    /// can restore the default.
    Sequence {
        /// The sequence, as `pg_get_serial_sequence` names it.
        sequence: String,
        /// The column's default expression.
        default: String,
    },
    /// MySQL/MariaDB `AUTO_INCREMENT`, SQLite `AUTOINCREMENT`.
    AutoIncrement,
    /// SQLite `INTEGER PRIMARY KEY` without `AUTOINCREMENT`: an alias of
    /// the rowid, which an insert without a key fills with the largest
    /// rowid + 1.
    RowId,
    /// No auto-increment: the application already assigns keys.
    None,
}

/// A column holding keys of a key table.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reference {
    /// The table's schema (PostgreSQL) or database (MySQL/MariaDB) when it
    /// is not the connection's current one.
    pub schema: Option<String>,
    /// The referencing table.
    pub table: String,
    /// The referencing column.
    pub column: String,
    /// The column's type as the database writes it.
    pub column_type: String,
    /// The foreign key constraint; `None` for a column named with
    /// [`Adoption::reference`](crate::Adoption::reference) that no foreign key declares.
    pub constraint: Option<String>,
    /// The foreign key's `ON DELETE` action (`NO ACTION`, `CASCADE` …) on
    /// SQLite and MySQL/MariaDB; `None` on PostgreSQL and for a named
    /// column.
    pub on_delete: Option<String>,
    /// The foreign key's `ON UPDATE` action (MySQL/MariaDB).
    pub(crate) on_update: Option<String>,
    /// The key table's database as the foreign key names it
    /// (MySQL/MariaDB).
    pub(crate) referenced_schema: Option<String>,
    /// The column's attributes beyond its type.
    pub(crate) attributes: ColumnAttributes,
}

/// What a column's definition holds beyond its name and type, where the
/// catalog says it (MySQL/MariaDB, whose `MODIFY COLUMN` replaces the
/// whole definition, so the switch states it again).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ColumnAttributes {
    pub(crate) nullable: bool,
    /// The default as the catalog writes it.
    pub(crate) default: Option<String>,
    pub(crate) comment: Option<String>,
}

/// A table as the switch rebuilds it (SQLite): its definition, columns,
/// indexes and triggers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableDefinition {
    /// `CREATE TABLE …` as the catalog keeps it.
    pub(crate) create: String,
    /// The stored columns (not generated ones), in order.
    pub(crate) columns: Vec<String>,
    /// `CREATE INDEX` / `CREATE TRIGGER` statements of the table, indexes
    /// first.
    pub(crate) indexes_and_triggers: Vec<String>,
}

impl KeyTable {
    /// The table and its key column as `d`'s statements name them.
    pub(crate) fn identifiers(&self, d: Dialect) -> Result<(String, String), AdoptError> {
        Ok((
            d.identifier("table", &self.table)?,
            d.identifier("column", &self.column)?,
        ))
    }
}

impl Reference {
    /// The referencing table as a statement names it: qualified with its
    /// schema (PostgreSQL) or database (MySQL/MariaDB) when it has one.
    pub(crate) fn qualified_table(&self, d: Dialect) -> Result<String, AdoptError> {
        Ok(match &self.schema {
            Some(s) => format!(
                "{}.{}",
                d.identifier(schema_role(d), s)?,
                d.identifier("table", &self.table)?
            ),
            None => d.identifier("table", &self.table)?,
        })
    }
}

/// What `d` calls a namespace of tables, for its name's errors.
pub(crate) fn schema_role(d: Dialect) -> &'static str {
    if d == Dialect::MySql {
        "database"
    } else {
        "schema"
    }
}

/// Whether a column type (as the catalog writes it) holds integers, and
/// whether it is already 64 bits wide.
pub(crate) fn integer_width(column_type: &str) -> Option<bool> {
    let t = column_type.to_ascii_lowercase();
    let base = t.split(['(', ' ']).next().unwrap_or_default();
    match base {
        "bigint" | "int8" | "bigserial" => Some(true),
        "integer" | "int" | "int4" | "smallint" | "int2" | "mediumint" | "tinyint" | "serial"
        | "smallserial" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
#[path = "../tests/unit/catalog.rs"]
mod tests;
