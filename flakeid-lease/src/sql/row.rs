//! The lease table's rows as its `SELECT`s return them, and as operators
//! see them ([`NodeTable`]).

use thiserror::Error;

use crate::store::{NodeRow, NodeTable};
use flakeid_sql::{SqlRow, SqlType, StoreError};

/// One row as every `SELECT` of the lease table returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeaseRow {
    pub(crate) node_id: i64,
    pub(crate) owner: Option<String>,
    pub(crate) fence: i64,
    pub(crate) lease_until: i64,
    pub(crate) high_water: i64,
    pub(crate) holder: Option<String>,
    /// The database's clock (Unix ms) when the row was read.
    pub(crate) db_now: i64,
}

/// A row holds a value the lease protocol never writes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum BadLeaseRow {
    /// A negative node, fence or high-water mark.
    #[error("lease table row of node {node_id}: {column} = {value} is negative")]
    Negative {
        node_id: i64,
        column: &'static str,
        value: i64,
    },
    /// A column the protocol never leaves `NULL` (or one the executor did not read).
    #[error("lease table row: column {column} is NULL or missing")]
    Missing { column: &'static str },
}

impl LeaseRow {
    /// The row an executor read.
    pub(crate) fn from_sql(row: &SqlRow) -> Result<Self, BadLeaseRow> {
        let get = |column| row.i64(column).ok_or(BadLeaseRow::Missing { column });
        Ok(LeaseRow {
            node_id: get("node_id")?,
            owner: row.text("owner").map(str::to_owned),
            fence: get("fence")?,
            lease_until: get("lease_until")?,
            high_water: get("high_water")?,
            holder: row.text("holder").map(str::to_owned),
            db_now: get("db_now")?,
        })
    }

    /// The row as [`NodeRow`].
    pub(crate) fn to_node_row(&self) -> Result<NodeRow, BadLeaseRow> {
        let non_negative = |column, value: i64| {
            u64::try_from(value).map_err(|_| BadLeaseRow::Negative {
                node_id: self.node_id,
                column,
                value,
            })
        };
        Ok(NodeRow {
            node: non_negative("node_id", self.node_id)?,
            owner: self.owner.clone(),
            fence: non_negative("fence", self.fence)?,
            lease_until_millis: self.lease_until,
            high_water_millis: non_negative("high_water", self.high_water)?,
            holder: self.holder.clone(),
        })
    }
}

/// The columns every `SELECT` of the lease table returns: the row, plus
/// the database's clock (`db_now`).
pub(super) const NODE_COLUMNS: &[(&str, SqlType)] = &[
    ("node_id", SqlType::BigInt),
    ("owner", SqlType::Text),
    ("fence", SqlType::BigInt),
    ("lease_until", SqlType::BigInt),
    ("high_water", SqlType::BigInt),
    ("holder", SqlType::Text),
    ("db_now", SqlType::BigInt),
];

/// The rows a query of the lease table returned.
pub(super) fn lease_rows(rows: Vec<SqlRow>) -> Result<Vec<LeaseRow>, StoreError> {
    Ok(rows
        .iter()
        .map(LeaseRow::from_sql)
        .collect::<Result<Vec<_>, _>>()?)
}

pub(super) fn table_of(space: &str, rows: Vec<SqlRow>) -> Result<NodeTable, StoreError> {
    Ok(node_table(space, &lease_rows(rows)?)?)
}

/// The rows of `space` (as [`LeaseSql::list`](super::LeaseSql::list) reads them) as a [`NodeTable`].
fn node_table(space: &str, rows: &[LeaseRow]) -> Result<NodeTable, BadLeaseRow> {
    Ok(NodeTable {
        space: space.to_owned(),
        now_millis: rows.first().map(|r| r.db_now),
        rows: rows
            .iter()
            .map(LeaseRow::to_node_row)
            .collect::<Result<Vec<_>, _>>()?,
    })
}
