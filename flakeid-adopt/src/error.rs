//! Why an adoption cannot be planned: the catalog, the tables' shape, and
//! the proof that every flake key lands above every existing key.

use thiserror::Error;

use flakeid_id_function::IdFunctionError;
use flakeid_sql::StoreError;
use flakeid_sql::{Dialect, SqlNameError};

/// Why [`Adoption`](crate::Adoption) cannot read its tables or write
/// their migration. Nothing in the database is changed by reading the
/// catalog or planning, so after any of these errors the tables are as
/// they were.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_adopt::{AdoptError, Adoption};
/// use flakeid_core::layout::presets;
/// use flakeid_sql::Dialect;
///
/// // A cut-over above the layout's first key in May 2026 is refused:
/// // keys issued until the layout reaches it would read as keys from
/// // before the switch.
/// let adoption = Adoption::new(Dialect::Postgres, presets::twitter())
///     .table("users", "id")
///     .cut_over(2_200_000_000_000_000_000);
/// let now = UNIX_EPOCH + Duration::from_secs(1_780_000_000); // 2026-05-28
/// let e = adoption.cut_over_at(now).unwrap_err();
/// assert!(matches!(e, AdoptError::CutOverInFuture { .. }));
/// assert!(e.to_string().starts_with("the cut-over 2200000000000000000 is above "));
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AdoptError {
    /// No table was named.
    #[error("nothing to adopt: name the tables with `Adoption::table`")]
    NoTables,
    /// The executor's database is not the adoption's.
    #[error("the adoption is written for {adoption}, but the database is {database}")]
    DialectMismatch {
        /// The adoption's dialect.
        adoption: Dialect,
        /// The database's.
        database: Dialect,
    },
    /// A catalog query failed.
    #[error("reading the catalog of {table} failed: {source}")]
    Database {
        /// The key table being read.
        table: String,
        /// The database's error.
        #[source]
        source: StoreError,
    },
    /// The table or column does not exist.
    #[error("table {table:?} has no column {column:?} (or no such table exists)")]
    NoSuchColumn {
        /// The table.
        table: String,
        /// The column.
        column: String,
    },
    /// The column is not the table's whole primary key.
    #[error(
        "{table}.{column} is not the primary key of {table}: flake keys replace a key of one \
         column"
    )]
    NotTheKey {
        /// The table.
        table: String,
        /// The column.
        column: String,
    },
    /// The column does not hold integers.
    #[error("{table}.{column} is {column_type}, not an integer column")]
    NotAnInteger {
        /// The table.
        table: String,
        /// The column.
        column: String,
        /// Its type.
        column_type: String,
    },
    /// A foreign key of several columns references the key.
    #[error(
        "the foreign key {constraint} of {table} references {key_table}.{key_column} among \
         {columns} columns; widen its columns by hand, then adopt the key"
    )]
    CompositeReference {
        /// The referencing table.
        table: String,
        /// The constraint.
        constraint: String,
        /// The key table.
        key_table: String,
        /// The key column.
        key_column: String,
        /// How many columns the foreign key has.
        columns: i64,
    },
    /// MySQL/MariaDB: a foreign key's referential action, as the catalog
    /// writes it, is none the switch can state again when it adds the
    /// foreign key back.
    #[error(
        "the foreign key {constraint} of {table} has the action {rule:?}, not RESTRICT, CASCADE, \
         SET NULL, NO ACTION or SET DEFAULT"
    )]
    UnknownRule {
        /// The referencing table.
        table: String,
        /// The constraint.
        constraint: String,
        /// The action.
        rule: String,
    },
    /// SQLite: the table's `CREATE TABLE` text could not be rewritten.
    #[error("{table}: cannot rewrite its CREATE TABLE statement: {reason}")]
    Rewrite {
        /// The table.
        table: String,
        /// What was not understood.
        reason: String,
    },
    /// The table holds a key of 0 or less, which the crate's `CHECK (key >
    /// 0)` (and every ID type) refuses.
    #[error(
        "{table}.{column} holds the key {key}: keys are positive; change or remove that row first"
    )]
    KeyNotPositive {
        /// The table.
        table: String,
        /// The key column.
        column: String,
        /// The smallest key.
        key: i64,
    },
    /// A key the table holds (or its auto-increment handed out) is not
    /// below the cut-over: flake keys would fall among the existing keys.
    #[error(
        "{table}.{column} holds the key {largest}, but the cut-over is {cut_over} ({explained}): \
         every flake key must be above every existing key. {advice} Nothing was changed."
    )]
    KeyTooLarge {
        /// The table.
        table: String,
        /// The key column.
        column: String,
        /// The largest key the table holds or its auto-increment issued.
        largest: i64,
        /// The cut-over: the smallest flake key.
        cut_over: u64,
        /// Where the cut-over comes from.
        explained: String,
        /// What would make the first flake key larger than `largest`.
        advice: String,
    },
    /// The cut-over is above the first key the layout issues now: keys
    /// issued until the layout reaches it would read as keys from before
    /// the switch, and could repeat existing keys.
    #[error(
        "the cut-over {cut_over} is above {first_key}, the first key the layout issues at {at}: \
         keys issued before the layout reaches the cut-over would read as issued before flake \
         keys; use a cut-over at or below {first_key} (and above every existing key)"
    )]
    CutOverInFuture {
        /// The cut-over.
        cut_over: u64,
        /// The layout's first key at `at`.
        first_key: u64,
        /// The time, RFC 3339.
        at: String,
    },
    /// The layout's time field ends before the given time.
    #[error("the layout's time ends at {end}, before {at}: it issues no key any more")]
    LayoutEnded {
        /// The time, RFC 3339.
        at: String,
        /// The end of the layout's time, RFC 3339.
        end: String,
    },
    /// The ID function to install as the keys' default issues IDs of
    /// another database or layout.
    #[error("the ID function for the keys' default {what}")]
    IdFunctionMismatch {
        /// What differs.
        what: &'static str,
    },
    /// The ID function's SQL cannot be written.
    #[error(transparent)]
    IdFunction(#[from] IdFunctionError),
    /// A name the database would not keep exactly.
    #[error(transparent)]
    Name(#[from] SqlNameError),
}
