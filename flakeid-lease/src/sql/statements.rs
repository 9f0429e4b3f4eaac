//! [`LeaseSql`]: every statement of the lease protocol, and the fragments
//! the database ID function's scripts are made of.

use core::time::Duration;

use super::row::NODE_COLUMNS;
use crate::options::LeaseOptions;
use crate::store::{ClaimRequest, NodeRow, ReleaseRequest, RenewRequest};
use flakeid_sql::{Dialect, SqlNameError, SqlStatement, SqlType, SqlValue, SqlWriter};

/// Every statement of the lease protocol for one dialect and table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseSql {
    dialect: Dialect,
    table: String,
}

impl LeaseSql {
    /// Statements for the table [`LeaseOptions::DEFAULT_TABLE`] (`flakeid_nodes`).
    pub fn new(dialect: Dialect) -> Self {
        LeaseSql {
            dialect,
            table: dialect.quote(LeaseOptions::DEFAULT_TABLE),
        }
    }

    /// Statements for the table `table`, quoted as an identifier.
    ///
    /// # Errors
    /// [`SqlNameError`] for a name the database would not keep exactly
    /// (empty, with a NUL, longer than PostgreSQL's 63 bytes or MySQL's 64
    /// characters, MySQL names with a character above U+FFFF or a trailing
    /// space, SQLite's reserved `sqlite_` prefix).
    ///
    /// ```
    /// use flakeid_lease::LeaseSql;
    /// use flakeid_sql::{Dialect, SqlNameError};
    ///
    /// let sql = LeaseSql::with_table(Dialect::MySql, "node leases")?;
    /// assert!(sql.create_table().starts_with("CREATE TABLE IF NOT EXISTS `node leases` ("));
    /// assert!(matches!(
    ///     LeaseSql::with_table(Dialect::Postgres, &"n".repeat(64)),
    ///     Err(SqlNameError::TooLong { .. })
    /// ));
    /// # Ok::<(), SqlNameError>(())
    /// ```
    pub fn with_table(dialect: Dialect, table: &str) -> Result<Self, SqlNameError> {
        Ok(LeaseSql {
            dialect,
            table: dialect.identifier("lease table", table)?,
        })
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn col(&self, name: &str) -> String {
        self.dialect.quote(name)
    }

    /// The database's clock in Unix milliseconds ([`Dialect::now_millis`]).
    pub(crate) fn now(&self) -> &'static str {
        self.dialect.now_millis()
    }

    fn greatest(&self) -> &'static str {
        match self.dialect {
            Dialect::Postgres | Dialect::MySql => "GREATEST",
            Dialect::Sqlite => "MAX",
        }
    }

    /// `CREATE TABLE IF NOT EXISTS` for the lease table, safe when any
    /// number of processes run it at once: on PostgreSQL, where a bare
    /// `CREATE TABLE IF NOT EXISTS` can fail for all but one of them, it
    /// runs in a `DO` block under a transaction-scoped advisory lock.
    pub fn create_table(&self) -> String {
        let c = |n| self.col(n);
        self.dialect.create_table_once(format!(
            "CREATE TABLE IF NOT EXISTS {} ({} VARCHAR(191) NOT NULL, {} INTEGER NOT NULL, \
             {} VARCHAR(64) NULL, {} BIGINT NOT NULL DEFAULT 0, {} BIGINT NOT NULL DEFAULT 0, \
             {} BIGINT NOT NULL DEFAULT 0, {} VARCHAR(255) NULL, PRIMARY KEY ({}, {}))",
            self.table,
            c("space"),
            c("node_id"),
            c("owner"),
            c("fence"),
            c("lease_until"),
            c("high_water"),
            c("holder"),
            c("space"),
            c("node_id"),
        ))
    }

    /// `DROP TABLE IF EXISTS` for the lease table (a migration's down step).
    pub fn drop_table(&self) -> String {
        format!("DROP TABLE IF EXISTS {}", self.table)
    }

    /// Inserts free rows for `nodes` of `space`, leaving existing rows as they are.
    pub(crate) fn insert_nodes(&self, space: &str, nodes: &[u64]) -> SqlStatement {
        self.insert_nodes_with(SqlWriter::new(self.dialect), space, nodes)
    }

    fn insert_nodes_with(&self, mut w: SqlWriter, space: &str, nodes: &[u64]) -> SqlStatement {
        w.push(&format!(
            "INSERT INTO {} ({}, {}) VALUES ",
            self.table,
            self.col("space"),
            self.col("node_id")
        ));
        for (i, n) in nodes.iter().enumerate() {
            if i > 0 {
                w.push(", ");
            }
            // Node IDs are numbers this crate generated; only the space is bound.
            w.push("(").bind(text(space)).push(&format!(", {n})"));
        }
        match self.dialect {
            Dialect::Postgres | Dialect::Sqlite => w.push(&format!(
                " ON CONFLICT ({}, {}) DO NOTHING",
                self.col("space"),
                self.col("node_id")
            )),
            Dialect::MySql => w.push(&format!(
                " ON DUPLICATE KEY UPDATE {0} = {0}",
                self.col("node_id")
            )),
        };
        w.finish()
    }

    /// The claim: one compare-and-set taking the node if it is free or its
    /// lease has expired by the database's clock; one row changed = won.
    pub(crate) fn claim(&self, r: &ClaimRequest<'_>) -> SqlStatement {
        let now = self.now();
        let mut w = SqlWriter::new(self.dialect);
        w.push(&format!(
            "UPDATE {} SET {} = ",
            self.table,
            self.col("owner")
        ))
        .bind(text(r.owner))
        .push(&format!(
            ", {0} = {0} + 1, {1} = {now} + ",
            self.col("fence"),
            self.col("lease_until")
        ))
        .bind(SqlValue::BigInt(millis(r.ttl)))
        .push(&format!(", {} = ", self.col("holder")))
        .bind(text(r.holder))
        .push(&format!(" WHERE {} = ", self.col("space")))
        .bind(text(r.space))
        .push(&format!(" AND {} = ", self.col("node_id")))
        .bind(node(r.node))
        .push(&format!(
            " AND ({} IS NULL OR {} < {now}) AND {} <= {now} + ",
            self.col("owner"),
            self.col("lease_until"),
            self.col("high_water")
        ))
        .bind(ahead(r.max_ahead_millis));
        w.finish()
    }

    /// Renewal: extends the lease and raises `high_water` to the ceiling,
    /// only where `owner` and `fence` still match.
    pub(crate) fn renew(&self, r: &RenewRequest<'_>) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&format!(
            "UPDATE {} SET {} = {} + ",
            self.table,
            self.col("lease_until"),
            self.now()
        ))
        .bind(SqlValue::BigInt(millis(r.ttl)))
        .push(&format!(
            ", {0} = {1}({0}, ",
            self.col("high_water"),
            self.greatest()
        ))
        .bind(big(r.ceiling_millis))
        .push(")");
        self.where_holder(&mut w, r.space, r.node, r.owner, r.fence);
        w.push(" AND ")
            .bind(big(r.ceiling_millis))
            .push(&format!(" <= {} + ", self.now()))
            .bind(ahead(r.max_ahead_millis));
        w.finish()
    }

    /// Release: frees the row and records the holder's exact high-water
    /// mark, only where `owner` and `fence` still match.
    pub(crate) fn release(&self, r: &ReleaseRequest<'_>) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&format!(
            "UPDATE {} SET {} = NULL, {} = {}, {} = ",
            self.table,
            self.col("owner"),
            self.col("lease_until"),
            self.now(),
            self.col("high_water")
        ))
        .bind(big(r.high_water_millis));
        self.where_holder(&mut w, r.space, r.node, r.owner, r.fence);
        w.finish()
    }

    /// For scripts (the database ID function): inserts the free row of node
    /// `n` of `space` unless it exists, as a claim does for every node of
    /// the space, with its values written in.
    pub fn insert_node_script(&self, space: &str, n: u64) -> String {
        self.insert_nodes_with(SqlWriter::literal(self.dialect), space, &[n])
            .sql
    }

    /// For scripts: takes the node's row for good for `owner`, a writer
    /// outside the lease protocol (its lease never ends), unless a live
    /// lease holds it; `owner` may take it again. No row changed = held.
    pub fn reserve_script(&self, space: &str, n: u64, owner: &str, holder: &str) -> String {
        let now = self.now();
        let (o, u) = (self.col("owner"), self.col("lease_until"));
        let mut w = SqlWriter::literal(self.dialect);
        w.push(&format!("UPDATE {} SET {o} = ", self.table))
            .bind(text(owner))
            .push(&format!(
                ", {0} = {0} + 1, {u} = {reserved}, {1} = ",
                self.col("fence"),
                self.col("holder"),
                reserved = NodeRow::RESERVED_UNTIL_MILLIS,
            ))
            .bind(text(holder));
        self.where_node(&mut w, space, n);
        w.push(&format!(" AND ({o} IS NULL OR {u} < {now} OR {o} = "))
            .bind(text(owner))
            .push(")");
        w.finish().sql
    }

    /// For scripts: the node row's `holder`, as a scalar subquery.
    pub fn holder_script(&self, space: &str, n: u64) -> String {
        let mut w = SqlWriter::literal(self.dialect);
        w.push(&format!(
            "(SELECT {} FROM {}",
            self.col("holder"),
            self.table
        ));
        self.where_node(&mut w, space, n);
        w.push(")");
        w.finish().sql
    }

    /// For scripts: frees the node's row if `owner` holds it, raising
    /// `high_water` to `last_time` (an SQL expression).
    pub fn release_script(&self, space: &str, n: u64, owner: &str, last_time: &str) -> String {
        let hw = self.col("high_water");
        let mut w = SqlWriter::literal(self.dialect);
        w.push(&format!(
            "UPDATE {} SET {} = NULL, {} = {}, {hw} = {}({hw}, {last_time})",
            self.table,
            self.col("owner"),
            self.col("lease_until"),
            self.now(),
            self.greatest(),
        ));
        self.where_node(&mut w, space, n);
        w.push(&format!(" AND {} = ", self.col("owner")))
            .bind(text(owner));
        w.finish().sql
    }

    /// For scripts: the node row's `high_water`, as a query of one column
    /// with the row aliased `l`, found only while `owner` holds the row.
    pub fn high_water_if_held_script(&self, space: &str, n: u64, owner: &str) -> String {
        let mut w = SqlWriter::literal(self.dialect);
        w.push(&format!(
            "SELECT l.{} FROM {} AS l WHERE l.{} = ",
            self.col("high_water"),
            self.table,
            self.col("space")
        ))
        .bind(text(space))
        .push(&format!(" AND l.{} = ", self.col("node_id")))
        .bind(node(n))
        .push(&format!(" AND l.{} = ", self.col("owner")))
        .bind(text(owner));
        w.finish().sql
    }

    fn where_node(&self, w: &mut SqlWriter, space: &str, n: u64) {
        w.push(&format!(" WHERE {} = ", self.col("space")))
            .bind(text(space))
            .push(&format!(" AND {} = ", self.col("node_id")))
            .bind(node(n));
    }

    fn where_holder(&self, w: &mut SqlWriter, space: &str, n: u64, owner: &str, fence: u64) {
        w.push(&format!(" WHERE {} = ", self.col("space")))
            .bind(text(space))
            .push(&format!(" AND {} = ", self.col("node_id")))
            .bind(node(n))
            .push(&format!(" AND {} = ", self.col("owner")))
            .bind(text(owner))
            .push(&format!(" AND {} = ", self.col("fence")))
            .bind(big(fence));
    }

    fn select(&self) -> String {
        let node_id = match self.dialect {
            Dialect::Postgres => format!("CAST({} AS BIGINT)", self.col("node_id")),
            Dialect::MySql => format!("CAST({} AS SIGNED)", self.col("node_id")),
            Dialect::Sqlite => self.col("node_id"),
        };
        format!(
            "SELECT {node_id} AS {}, {}, {}, {}, {}, {}, {} AS {} FROM {}",
            self.col("node_id"),
            self.col("owner"),
            self.col("fence"),
            self.col("lease_until"),
            self.col("high_water"),
            self.col("holder"),
            self.now(),
            self.col("db_now"),
            self.table,
        )
    }

    /// One node's row (as [`LeaseRow`](super::row::LeaseRow)).
    pub(crate) fn select_node(&self, space: &str, n: u64) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&self.select())
            .push(&format!(" WHERE {} = ", self.col("space")))
            .bind(text(space))
            .push(&format!(" AND {} = ", self.col("node_id")))
            .bind(node(n))
            .returns(NODE_COLUMNS);
        w.finish()
    }

    /// The spaces that have rows, in order: one text column `space`.
    pub(crate) fn spaces(&self) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&format!(
            "SELECT DISTINCT {0} FROM {1} ORDER BY {0}",
            self.col("space"),
            self.table
        ))
        .returns(&[("space", SqlType::Text)]);
        w.finish()
    }

    /// Every row of `space` by node ID (as [`LeaseRow`](super::row::LeaseRow)s).
    pub(crate) fn list(&self, space: &str) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&self.select())
            .push(&format!(" WHERE {} = ", self.col("space")))
            .bind(text(space))
            .push(&format!(" ORDER BY {}", self.col("node_id")))
            .returns(NODE_COLUMNS);
        w.finish()
    }
}

/// 2^60 ms (36 million years): any larger bound is no bound.
pub(super) const MAX_AHEAD: i64 = 1 << 60;

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A bound on how far ahead of the database's clock a mark may be, as
/// bound to `<db now> + ?`: capped so that the sum cannot overflow a BIGINT.
fn ahead(max_ahead_millis: u64) -> SqlValue {
    SqlValue::BigInt(i64::try_from(max_ahead_millis).map_or(MAX_AHEAD, |v| v.min(MAX_AHEAD)))
}

fn big(v: u64) -> SqlValue {
    SqlValue::BigInt(i64::try_from(v).unwrap_or(i64::MAX))
}

fn node(v: u64) -> SqlValue {
    SqlValue::Int(i32::try_from(v).unwrap_or(i32::MAX))
}

fn text(s: &str) -> SqlValue {
    SqlValue::Text(s.to_owned())
}
