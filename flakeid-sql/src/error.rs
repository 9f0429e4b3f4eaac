//! Errors of SQL text built from names.

use thiserror::Error;

/// A name flakeid cannot write so that the database keeps it exactly as
/// given ([`Dialect::identifier`](crate::Dialect::identifier)): the lease
/// and segment tables' names (`flakeid-lease`'s and `flakeid-segment`'s
/// `with_table`), the database ID function's names (`flakeid-id-function`)
/// and the per-location counters' SQL (`flakeid-schemes`' `LocationRange`).
/// Each variant names the object (`role`: lease table, sequence, table,
/// column, trigger, counter table …), the name and, where it depends on
/// it, the database.
///
/// ```
/// use flakeid_sql::{Dialect, SqlNameError};
///
/// // SQLite keeps names starting with `sqlite_` for itself.
/// let e = Dialect::Sqlite.identifier("lease table", "sqlite_nodes").unwrap_err();
/// assert!(matches!(e, SqlNameError::ReservedPrefix { .. }));
/// let e = Dialect::MySql.identifier("segment table", "segments ").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "the segment table name \"segments \" ends with a space, which MySQL and MariaDB do not allow"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SqlNameError {
    /// The name is empty.
    #[error("the {role} name is empty: {dialect} names need at least one character")]
    Empty {
        /// What the name names.
        role: &'static str,
        /// The database.
        dialect: &'static str,
    },
    /// The name holds a NUL character, which no database stores in a name.
    #[error(
        "the {role} name {name:?} contains a NUL character, which {dialect} does not allow in names"
    )]
    Nul {
        /// What the name names.
        role: &'static str,
        /// The name.
        name: String,
        /// The database.
        dialect: &'static str,
    },
    /// The name is longer than the database keeps (PostgreSQL would cut it
    /// to 63 bytes without an error, naming the object differently).
    #[error(
        "the {role} name {name:?} is {len} {unit} long, but {dialect} names hold at most {max} {unit}"
    )]
    TooLong {
        /// What the name names.
        role: &'static str,
        /// The name.
        name: String,
        /// The database.
        dialect: &'static str,
        /// The name's length in `unit`s.
        len: usize,
        /// The longest name the database keeps.
        max: usize,
        /// `"bytes"` (PostgreSQL) or `"characters"` (MySQL/MariaDB).
        unit: &'static str,
    },
    /// A character above U+FFFF, which MySQL and MariaDB do not allow in names.
    #[error(
        "the {role} name {name:?} contains {character:?} (U+{code:X}), above U+FFFF, which \
         MySQL and MariaDB do not allow in names",
        code = u32::from(*character)
    )]
    CharacterAboveBmp {
        /// What the name names.
        role: &'static str,
        /// The name.
        name: String,
        /// The first such character.
        character: char,
    },
    /// A trailing space, which MySQL and MariaDB do not allow in names.
    #[error("the {role} name {name:?} ends with a space, which MySQL and MariaDB do not allow")]
    TrailingSpace {
        /// What the name names.
        role: &'static str,
        /// The name.
        name: String,
    },
    /// A table name starting with `sqlite_`, which SQLite keeps for itself.
    #[error(
        "the {role} name {name:?} starts with `sqlite_`, which SQLite reserves for its own tables"
    )]
    ReservedPrefix {
        /// What the name names.
        role: &'static str,
        /// The name.
        name: String,
    },
}
