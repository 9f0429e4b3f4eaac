//! [`IdFunctionError`]: why the SQL of an ID function or of the decoding
//! functions cannot be written.

use core::time::Duration;

use thiserror::Error;

use flakeid_lease::LeaseOptions;
use flakeid_sql::{Dialect, SqlNameError};

/// Why the function's SQL cannot be written.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_id_function::{IdFunction, IdFunctionError};
/// use flakeid_sql::Dialect;
///
/// // SQLite has no stored functions.
/// let f = IdFunction::new(Dialect::Sqlite, "orders", presets::twitter(), 1023);
/// assert_eq!(f.install(), Err(IdFunctionError::UnsupportedDialect { dialect: Dialect::Sqlite }));
/// let f = IdFunction::new(Dialect::Postgres, "orders", presets::twitter(), 1024);
/// assert_eq!(f.install(), Err(IdFunctionError::NodeOutOfRange { node: 1024, max: 1023 }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IdFunctionError {
    /// The database cannot keep the function's state (SQLite has no
    /// stored functions).
    #[error(
        "{dialect} cannot issue IDs with a stored function; the ID function is written for \
         PostgreSQL and MariaDB"
    )]
    UnsupportedDialect {
        /// The dialect asked for.
        dialect: Dialect,
    },
    /// The node does not fit the layout's node field or the lease table's
    /// `INTEGER` column.
    #[error("node {node} is out of range: the layout and the lease table hold nodes 0..={max}")]
    NodeOutOfRange {
        /// The node given.
        node: u64,
        /// The largest node.
        max: u64,
    },
    /// The space name is empty or longer than the lease table holds.
    #[error("space {space:?} has {len} characters; a space name has 1..={max}", max = LeaseOptions::MAX_SPACE_LEN)]
    BadSpace {
        /// The space given.
        space: String,
        /// Its length in characters.
        len: usize,
    },
    /// The space name holds a NUL character, which neither database keeps
    /// in a string.
    #[error("space {space:?} holds a NUL character, which the database cannot store")]
    SpaceWithNul {
        /// The space given.
        space: String,
    },
    /// An option's value cannot work.
    #[error("option `{option}` = {value:?} is invalid: {reason}")]
    InvalidOption {
        /// The option (the [`IdFunction`](crate::IdFunction) method's name).
        option: &'static str,
        /// The value given.
        value: Duration,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A name the database would not keep exactly.
    #[error(transparent)]
    Name(#[from] SqlNameError),
    /// [`DecodeFunctions::expression`](crate::DecodeFunctions::expression) was asked for a field the layout
    /// does not have.
    #[error("the layout has no field {field:?}; its fields are {}", fields.join(", "))]
    UnknownField {
        /// The field asked for.
        field: String,
        /// The fields the layout has.
        fields: Vec<String>,
    },
}
