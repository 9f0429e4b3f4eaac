//! The lease table's SQL (see [`crate::lease`] for the protocol) and the
//! store that runs it.
//!
//! [`LeaseSql`] writes every statement for one dialect; [`SqlLeaseStore`]
//! implements [`LeaseStore`] and [`AsyncLeaseStore`] on top of an
//! executor that runs a statement and returns the rows affected or the
//! rows read ([`SqlExecutor`], [`AsyncSqlExecutor`]). `flakeid-diesel`
//! and `flakeid-seaorm` provide the executors.
//!
//! Lease times are the database's clock in Unix milliseconds:
//!
//! | dialect | `<db now>` |
//! |---|---|
//! | PostgreSQL | `CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)` |
//! | MySQL/MariaDB | `CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 AS SIGNED)` (independent of the session time zone) |
//! | SQLite | `CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)` |
//!
//! ```
//! use flakeid_core::sql::{lease::LeaseSql, Dialect};
//!
//! let sql = LeaseSql::new(Dialect::Postgres);
//! assert_eq!(
//!     sql.create_table(),
//!     "CREATE TABLE IF NOT EXISTS \"flakeid_nodes\" (\
//!      \"space\" VARCHAR(191) NOT NULL, \
//!      \"node_id\" INTEGER NOT NULL, \
//!      \"owner\" VARCHAR(64) NULL, \
//!      \"fence\" BIGINT NOT NULL DEFAULT 0, \
//!      \"lease_until\" BIGINT NOT NULL DEFAULT 0, \
//!      \"high_water\" BIGINT NOT NULL DEFAULT 0, \
//!      \"holder\" VARCHAR(255) NULL, \
//!      PRIMARY KEY (\"space\", \"node_id\"))",
//! );
//! ```

use core::future::Future;
use core::ops::RangeInclusive;
use core::time::Duration;
use std::collections::BTreeSet;

use thiserror::Error;

use super::{Dialect, SqlStatement, SqlValue, SqlWriter};
use crate::lease::{
    AsyncLeaseStore, ClaimRequest, Claimed, DEFAULT_TABLE, LeaseStore, NodeRow, NodeTable,
    ReleaseRequest, RenewRequest, StoreError,
};

/// Node rows inserted per statement (each binds the space once).
const INSERT_CHUNK: usize = 500;
/// Attempts at inserting a space's rows: concurrent first claims on
/// MySQL/MariaDB can deadlock on the same keys; the loser retries.
const INSERT_ATTEMPTS: usize = 5;

/// One row as every `SELECT` of the lease table returns it, plus the
/// database's clock (`db_now`). Executors decode the columns `node_id`,
/// `owner`, `fence`, `lease_until`, `high_water`, `holder`, `db_now` by
/// name: `BIGINT` (`i64`) and nullable text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRow {
    /// `node_id`.
    pub node_id: i64,
    /// `owner`.
    pub owner: Option<String>,
    /// `fence`.
    pub fence: i64,
    /// `lease_until`.
    pub lease_until: i64,
    /// `high_water`.
    pub high_water: i64,
    /// `holder`.
    pub holder: Option<String>,
    /// The database's clock (Unix ms) when the row was read.
    pub db_now: i64,
}

/// A row holds a value the lease protocol never writes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("lease table row of node {node_id}: {column} = {value} is negative")]
pub struct BadLeaseRow {
    /// The row's node.
    pub node_id: i64,
    /// The column.
    pub column: &'static str,
    /// The value.
    pub value: i64,
}

impl LeaseRow {
    /// The row as [`NodeRow`].
    ///
    /// # Errors
    /// [`BadLeaseRow`] for a negative node, fence or high-water mark.
    pub fn to_node_row(&self) -> Result<NodeRow, BadLeaseRow> {
        let non_negative = |column, value: i64| {
            u64::try_from(value).map_err(|_| BadLeaseRow {
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

/// Every statement of the lease protocol for one dialect and table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseSql {
    dialect: Dialect,
    table: String,
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
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

impl LeaseSql {
    /// Statements for the table [`DEFAULT_TABLE`] (`flakeid_nodes`).
    pub fn new(dialect: Dialect) -> Self {
        Self::with_table(dialect, DEFAULT_TABLE)
    }

    /// Statements for the table `table` (quoted as an identifier).
    pub fn with_table(dialect: Dialect, table: &str) -> Self {
        LeaseSql {
            dialect,
            table: dialect.quote(table),
        }
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn col(&self, name: &str) -> String {
        self.dialect.quote(name)
    }

    /// The database's clock in Unix milliseconds.
    pub fn now(&self) -> &'static str {
        match self.dialect {
            Dialect::Postgres => {
                "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)"
            }
            Dialect::MySql => {
                "CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 AS SIGNED)"
            }
            Dialect::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
        }
    }

    fn greatest(&self) -> &'static str {
        match self.dialect {
            Dialect::Postgres | Dialect::MySql => "GREATEST",
            Dialect::Sqlite => "MAX",
        }
    }

    /// `CREATE TABLE IF NOT EXISTS` for the lease table.
    pub fn create_table(&self) -> String {
        let c = |n| self.col(n);
        format!(
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
        )
    }

    /// `DROP TABLE IF EXISTS` for the lease table (a migration's down step).
    pub fn drop_table(&self) -> String {
        format!("DROP TABLE IF EXISTS {}", self.table)
    }

    /// Inserts free rows for `nodes` of `space`, leaving existing rows as they are.
    pub fn insert_nodes(&self, space: &str, nodes: &[u64]) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
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
    pub fn claim(&self, r: &ClaimRequest<'_>) -> SqlStatement {
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
            " AND ({} IS NULL OR {} < {now})",
            self.col("owner"),
            self.col("lease_until")
        ));
        w.finish()
    }

    /// Renewal: extends the lease and raises `high_water` to the ceiling,
    /// only where `owner` and `fence` still match.
    pub fn renew(&self, r: &RenewRequest<'_>) -> SqlStatement {
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
        w.finish()
    }

    /// Release: frees the row and records the holder's exact high-water
    /// mark, only where `owner` and `fence` still match.
    pub fn release(&self, r: &ReleaseRequest<'_>) -> SqlStatement {
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

    /// One node's row (as [`LeaseRow`]).
    pub fn select_node(&self, space: &str, n: u64) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&self.select())
            .push(&format!(" WHERE {} = ", self.col("space")))
            .bind(text(space))
            .push(&format!(" AND {} = ", self.col("node_id")))
            .bind(node(n));
        w.finish()
    }

    /// The spaces that have rows, in order: one text column `space`.
    ///
    /// ```
    /// use flakeid_core::sql::{lease::LeaseSql, Dialect};
    /// assert_eq!(
    ///     LeaseSql::new(Dialect::MySql).spaces(),
    ///     "SELECT DISTINCT `space` FROM `flakeid_nodes` ORDER BY `space`"
    /// );
    /// ```
    pub fn spaces(&self) -> String {
        format!(
            "SELECT DISTINCT {0} FROM {1} ORDER BY {0}",
            self.col("space"),
            self.table
        )
    }

    /// Every row of `space` by node ID (as [`LeaseRow`]s).
    pub fn list(&self, space: &str) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&self.select())
            .push(&format!(" WHERE {} = ", self.col("space")))
            .bind(text(space))
            .push(&format!(" ORDER BY {}", self.col("node_id")));
        w.finish()
    }
}

/// Runs lease statements on a blocking connection.
pub trait SqlExecutor: Send + 'static {
    /// The driver's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// The connection's dialect.
    fn dialect(&self) -> Dialect;
    /// Executes a statement; the number of rows it changed.
    ///
    /// # Errors
    /// The driver's error.
    fn execute(&mut self, statement: &SqlStatement) -> Result<u64, Self::Error>;
    /// Runs a `SELECT` returning [`LeaseRow`]s.
    ///
    /// # Errors
    /// The driver's error.
    fn query(&mut self, statement: &SqlStatement) -> Result<Vec<LeaseRow>, Self::Error>;
}

/// [`SqlExecutor`] for async connections.
pub trait AsyncSqlExecutor: Send + Sync + 'static {
    /// The driver's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// The connection's dialect.
    fn dialect(&self) -> Dialect;
    /// Executes a statement; the number of rows it changed.
    fn execute(
        &self,
        statement: &SqlStatement,
    ) -> impl Future<Output = Result<u64, Self::Error>> + Send;
    /// Runs a `SELECT` returning [`LeaseRow`]s.
    fn query(
        &self,
        statement: &SqlStatement,
    ) -> impl Future<Output = Result<Vec<LeaseRow>, Self::Error>> + Send;
}

/// The lease protocol over SQL: implements [`LeaseStore`] for an
/// [`SqlExecutor`] and [`AsyncLeaseStore`] for an [`AsyncSqlExecutor`].
#[derive(Debug, Clone)]
pub struct SqlLeaseStore<X> {
    sql: LeaseSql,
    executor: X,
}

impl<X> SqlLeaseStore<X> {
    /// The executor.
    pub fn executor(&self) -> &X {
        &self.executor
    }

    /// The statements.
    pub fn sql(&self) -> &LeaseSql {
        &self.sql
    }
}

impl<X: SqlExecutor> SqlLeaseStore<X> {
    /// A store on the table [`DEFAULT_TABLE`].
    pub fn new(executor: X) -> Self {
        Self::with_table(executor, DEFAULT_TABLE)
    }

    /// A store on the table `table`.
    pub fn with_table(executor: X, table: &str) -> Self {
        SqlLeaseStore {
            sql: LeaseSql::with_table(executor.dialect(), table),
            executor,
        }
    }
}

impl<X: AsyncSqlExecutor> SqlLeaseStore<X> {
    /// A store on the table [`DEFAULT_TABLE`].
    pub fn new_async(executor: X) -> Self {
        Self::with_table_async(executor, DEFAULT_TABLE)
    }

    /// A store on the table `table`.
    pub fn with_table_async(executor: X, table: &str) -> Self {
        SqlLeaseStore {
            sql: LeaseSql::with_table(executor.dialect(), table),
            executor,
        }
    }
}

/// The nodes of `nodes` without a row among `rows`.
fn missing(rows: &[LeaseRow], nodes: RangeInclusive<u64>) -> Vec<u64> {
    let have: BTreeSet<i64> = rows.iter().map(|r| r.node_id).collect();
    nodes
        .filter(|n| !i64::try_from(*n).is_ok_and(|n| have.contains(&n)))
        .collect()
}

/// The rows of `space` (as [`LeaseSql::list`] reads them) as a [`NodeTable`].
///
/// # Errors
/// [`BadLeaseRow`] for a row with a negative node, fence or high-water mark.
pub fn node_table(space: &str, rows: &[LeaseRow]) -> Result<NodeTable, BadLeaseRow> {
    Ok(NodeTable {
        space: space.to_owned(),
        now_millis: rows.first().map(|r| r.db_now),
        rows: rows
            .iter()
            .map(LeaseRow::to_node_row)
            .collect::<Result<Vec<_>, _>>()?,
    })
}

fn table_of(space: &str, rows: Vec<LeaseRow>) -> Result<NodeTable, StoreError> {
    Ok(node_table(space, &rows)?)
}

/// The row after a won claim, if it is still the claimant's.
fn claimed(rows: &[LeaseRow], owner: &str) -> Result<Option<Claimed>, StoreError> {
    let Some(row) = rows.first().filter(|r| r.owner.as_deref() == Some(owner)) else {
        return Ok(None);
    };
    let row = row.to_node_row()?;
    Ok(Some(Claimed {
        fence: row.fence,
        high_water_millis: row.high_water_millis,
        lease_until_millis: row.lease_until_millis,
    }))
}

/// Whether the row is still the holder's (a renewal that changed no value
/// reports no row on MySQL).
fn still_held(rows: &[LeaseRow], owner: &str, fence: u64) -> bool {
    rows.first().is_some_and(|r| {
        r.owner.as_deref() == Some(owner) && u64::try_from(r.fence).is_ok_and(|f| f == fence)
    })
}

impl<X: SqlExecutor> LeaseStore for SqlLeaseStore<X> {
    fn ensure_nodes(&mut self, space: &str, nodes: RangeInclusive<u64>) -> Result<(), StoreError> {
        let mut attempt = 0;
        loop {
            let rows = self.executor.query(&self.sql.list(space))?;
            let todo = missing(&rows, nodes.clone());
            let result = todo.chunks(INSERT_CHUNK).try_for_each(|chunk| {
                self.executor
                    .execute(&self.sql.insert_nodes(space, chunk))
                    .map(drop)
            });
            match result {
                Ok(()) => return Ok(()),
                Err(_) if attempt + 1 < INSERT_ATTEMPTS => attempt += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn try_claim(&mut self, r: &ClaimRequest<'_>) -> Result<Option<Claimed>, StoreError> {
        if self.executor.execute(&self.sql.claim(r))? == 0 {
            return Ok(None);
        }
        let rows = self
            .executor
            .query(&self.sql.select_node(r.space, r.node))?;
        claimed(&rows, r.owner)
    }

    fn renew(&mut self, r: &RenewRequest<'_>) -> Result<bool, StoreError> {
        if self.executor.execute(&self.sql.renew(r))? > 0 {
            return Ok(true);
        }
        let rows = self
            .executor
            .query(&self.sql.select_node(r.space, r.node))?;
        Ok(still_held(&rows, r.owner, r.fence))
    }

    fn release(&mut self, r: &ReleaseRequest<'_>) -> Result<bool, StoreError> {
        Ok(self.executor.execute(&self.sql.release(r))? > 0)
    }

    fn list(&mut self, space: &str) -> Result<NodeTable, StoreError> {
        table_of(space, self.executor.query(&self.sql.list(space))?)
    }
}

impl<X: AsyncSqlExecutor> AsyncLeaseStore for SqlLeaseStore<X> {
    async fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> Result<(), StoreError> {
        let mut attempt = 0;
        'retry: loop {
            let rows = self.executor.query(&self.sql.list(space)).await?;
            for chunk in missing(&rows, nodes.clone()).chunks(INSERT_CHUNK) {
                let statement = self.sql.insert_nodes(space, chunk);
                match self.executor.execute(&statement).await {
                    Ok(_) => {}
                    Err(_) if attempt + 1 < INSERT_ATTEMPTS => {
                        attempt += 1;
                        continue 'retry;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            return Ok(());
        }
    }

    fn try_claim(
        &self,
        r: &ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<Claimed>, StoreError>> + Send {
        let claim = self.sql.claim(r);
        let select = self.sql.select_node(r.space, r.node);
        let owner = r.owner.to_owned();
        async move {
            if self.executor.execute(&claim).await? == 0 {
                return Ok(None);
            }
            let rows = self.executor.query(&select).await?;
            claimed(&rows, &owner)
        }
    }

    fn renew(&self, r: &RenewRequest<'_>) -> impl Future<Output = Result<bool, StoreError>> + Send {
        let renew = self.sql.renew(r);
        let select = self.sql.select_node(r.space, r.node);
        let (owner, fence) = (r.owner.to_owned(), r.fence);
        async move {
            if self.executor.execute(&renew).await? > 0 {
                return Ok(true);
            }
            let rows = self.executor.query(&select).await?;
            Ok(still_held(&rows, &owner, fence))
        }
    }

    fn release(
        &self,
        r: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        let release = self.sql.release(r);
        async move { Ok(self.executor.execute(&release).await? > 0) }
    }

    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send {
        let list = self.sql.list(space);
        let space = space.to_owned();
        async move { table_of(&space, self.executor.query(&list).await?) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim_request() -> ClaimRequest<'static> {
        ClaimRequest {
            space: "orders",
            node: 3,
            owner: "tok",
            holder: "host/1",
            ttl: Duration::from_secs(15),
        }
    }

    #[test]
    fn claim_is_one_compare_and_set_per_dialect() {
        let s = LeaseSql::new(Dialect::Postgres).claim(&claim_request());
        assert_eq!(
            s.sql,
            "UPDATE \"flakeid_nodes\" SET \"owner\" = $1, \"fence\" = \"fence\" + 1, \
             \"lease_until\" = CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT) + $2, \
             \"holder\" = $3 WHERE \"space\" = $4 AND \"node_id\" = $5 AND (\"owner\" IS NULL OR \
             \"lease_until\" < CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT))"
        );
        assert_eq!(
            s.values,
            vec![
                SqlValue::Text("tok".into()),
                SqlValue::BigInt(15_000),
                SqlValue::Text("host/1".into()),
                SqlValue::Text("orders".into()),
                SqlValue::Int(3),
            ]
        );
        let m = LeaseSql::new(Dialect::MySql).claim(&claim_request());
        assert!(
            m.sql
                .starts_with("UPDATE `flakeid_nodes` SET `owner` = ?, `fence` = `fence` + 1")
        );
        assert_eq!(m.sql.matches('?').count(), 5);
        assert_eq!(m.values, s.values);
    }

    #[test]
    fn renewal_and_release_match_owner_and_fence() {
        for d in [Dialect::Postgres, Dialect::MySql, Dialect::Sqlite] {
            let sql = LeaseSql::new(d);
            let r = sql.renew(&RenewRequest {
                space: "s",
                node: 1,
                owner: "me",
                fence: 9,
                ttl: Duration::from_millis(500),
                ceiling_millis: 77,
            });
            let q = |n: &str| d.quote(n);
            assert!(
                r.sql.contains(&format!("{} = ", q("owner"))),
                "{d}: {}",
                r.sql
            );
            assert!(
                r.sql.contains(&format!("{} = ", q("fence"))),
                "{d}: {}",
                r.sql
            );
            assert_eq!(r.values.len(), 6);
            assert_eq!(r.values[1], SqlValue::BigInt(77));
            assert_eq!(r.values[5], SqlValue::BigInt(9));
            let g = if d == Dialect::Sqlite {
                "MAX("
            } else {
                "GREATEST("
            };
            assert!(r.sql.contains(g), "{}", r.sql);
            let rel = sql.release(&ReleaseRequest {
                space: "s",
                node: 1,
                owner: "me",
                fence: 9,
                high_water_millis: 5,
            });
            assert!(rel.sql.contains(&format!("{} = NULL", q("owner"))));
            assert_eq!(rel.values.len(), 5);
        }
    }

    #[test]
    fn inserts_bind_the_space_once_per_row() {
        let s = LeaseSql::new(Dialect::Sqlite).insert_nodes("x'); DROP TABLE t; --", &[0, 1, 2]);
        assert_eq!(
            s.sql,
            "INSERT INTO \"flakeid_nodes\" (\"space\", \"node_id\") VALUES (?, 0), (?, 1), (?, 2) \
             ON CONFLICT (\"space\", \"node_id\") DO NOTHING"
        );
        assert_eq!(s.values.len(), 3);
        let m = LeaseSql::new(Dialect::MySql).insert_nodes("s", &[4]);
        assert!(
            m.sql
                .ends_with("ON DUPLICATE KEY UPDATE `node_id` = `node_id`")
        );
        let p = LeaseSql::new(Dialect::Postgres).insert_nodes("s", &[4, 5]);
        assert!(p.sql.contains("($1, 4), ($2, 5)"), "{}", p.sql);
    }

    #[test]
    fn missing_nodes_and_bad_rows() {
        let row = |n, fence| LeaseRow {
            node_id: n,
            owner: None,
            fence,
            lease_until: 0,
            high_water: 0,
            holder: None,
            db_now: 1,
        };
        assert_eq!(missing(&[row(1, 0), row(3, 0)], 0..=4), vec![0, 2, 4]);
        assert_eq!(
            row(2, -1).to_node_row().unwrap_err(),
            BadLeaseRow {
                node_id: 2,
                column: "fence",
                value: -1
            }
        );
    }
}
