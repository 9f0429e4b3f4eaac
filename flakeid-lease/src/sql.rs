//! The lease table's SQL (see [the lease protocol](crate::LeaseOptions#the-lease-protocol)) and the
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
//! use flakeid_lease::LeaseSql;
//! use flakeid_sql::Dialect;
//!
//! let sql = LeaseSql::new(Dialect::Sqlite);
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
//! // On PostgreSQL the same statement runs under an advisory lock, so that
//! // replicas creating the table at once all succeed.
//! assert!(LeaseSql::new(Dialect::Postgres)
//!     .create_table()
//!     .starts_with("DO $flakeid$ BEGIN PERFORM pg_advisory_xact_lock("));
//! ```

use core::future::Future;
use core::ops::RangeInclusive;
use core::time::Duration;
use std::collections::BTreeSet;

use thiserror::Error;

use super::options::LeaseOptions;
use super::store::{
    AsyncLeaseStore, ClaimRequest, LeaseStore, NodeRow, NodeTable, OwnedRenewRequest,
    ReleaseRequest, RenewRequest, Renewal,
};
use flakeid_sql::{AsyncSqlExecutor, SqlExecutor, SqlRow, StoreError};
use flakeid_sql::{Dialect, SqlNameError, SqlStatement, SqlType, SqlValue, SqlWriter};

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

    /// One node's row (as [`LeaseRow`]).
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

    /// Every row of `space` by node ID (as [`LeaseRow`]s).
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

/// The lease protocol over SQL: implements [`LeaseStore`] for an
/// [`SqlExecutor`] and [`AsyncLeaseStore`] for an [`AsyncSqlExecutor`].
///
/// ```
/// use flakeid_lease::{LeaseStore, ReleaseRequest, SqlLeaseStore};
/// # use flakeid_sql::{Dialect, Executed, SqlExecutor, SqlRow, SqlStatement};
/// # #[derive(Default)]
/// # struct Recorder { statements: Vec<SqlStatement> }
/// # impl SqlExecutor for Recorder {
/// #     type Error = std::convert::Infallible;
/// #     fn dialect(&self) -> Dialect { Dialect::Sqlite }
/// #     fn execute(&mut self, statement: &SqlStatement) -> Result<Executed, Self::Error> {
/// #         self.statements.push(statement.clone());
/// #         Ok(Executed { rows: 1, last_insert_id: None })
/// #     }
/// #     fn query(&mut self, statement: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error> {
/// #         self.statements.push(statement.clone());
/// #         Ok(Vec::new())
/// #     }
/// # }
///
/// // `flakeid-seaorm` and `flakeid-diesel` give it an executor on the ORM's
/// // connection; this one records the statements (see `SqlExecutor`).
/// let mut store = SqlLeaseStore::with_table(Recorder::default(), "node_leases")?;
/// store.ensure_nodes("orders", 0..=3)?;
/// let release = ReleaseRequest { space: "orders", node: 2, owner: "a", fence: 7, high_water_millis: 0 };
/// assert!(store.release(&release)?); // one row changed: the holder's
/// let statements = &store.executor().statements;
/// assert_eq!(statements.len(), 3); // read the rows, insert the missing ones, release
/// assert!(statements.iter().all(|s| s.sql.contains("\"node_leases\"")));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
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
}

impl<X: SqlExecutor> SqlLeaseStore<X> {
    /// A store on the table [`LeaseOptions::DEFAULT_TABLE`].
    pub fn new(executor: X) -> Self {
        let sql = LeaseSql::new(executor.dialect());
        SqlLeaseStore { sql, executor }
    }

    /// A store on the table `table`.
    ///
    /// # Errors
    /// As [`LeaseSql::with_table`].
    pub fn with_table(executor: X, table: &str) -> Result<Self, SqlNameError> {
        let sql = LeaseSql::with_table(executor.dialect(), table)?;
        Ok(SqlLeaseStore { sql, executor })
    }
}

impl<X: AsyncSqlExecutor> SqlLeaseStore<X> {
    /// A store on the table [`LeaseOptions::DEFAULT_TABLE`].
    pub fn new_async(executor: X) -> Self {
        let sql = LeaseSql::new(executor.dialect());
        SqlLeaseStore { sql, executor }
    }

    /// A store on the table `table`.
    ///
    /// # Errors
    /// As [`LeaseSql::with_table`].
    pub fn with_table_async(executor: X, table: &str) -> Result<Self, SqlNameError> {
        let sql = LeaseSql::with_table(executor.dialect(), table)?;
        Ok(SqlLeaseStore { sql, executor })
    }

    /// The spaces that have rows in the table, in order, for operators.
    ///
    /// # Errors
    /// The executor's error.
    pub async fn spaces_async(&self) -> Result<Vec<String>, X::Error> {
        let rows = self.executor.query(&self.sql.spaces()).await?;
        Ok(rows
            .iter()
            .filter_map(|r| r.text("space").map(str::to_owned))
            .collect())
    }
}

impl<X: SqlExecutor> LeaseStore for SqlLeaseStore<X> {
    fn ensure_nodes(&mut self, space: &str, nodes: RangeInclusive<u64>) -> Result<(), StoreError> {
        let mut attempt = 0;
        loop {
            let rows = lease_rows(self.executor.query(&self.sql.list(space))?)?;
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

    fn try_claim(&mut self, r: &ClaimRequest<'_>) -> Result<Option<NodeRow>, StoreError> {
        if self.executor.execute(&self.sql.claim(r))?.rows == 0 {
            return Ok(None);
        }
        let rows = self
            .executor
            .query(&self.sql.select_node(r.space, r.node))?;
        claimed(&lease_rows(rows)?, r.owner)
    }

    fn renew(&mut self, r: &RenewRequest<'_>) -> Result<Renewal, StoreError> {
        if self.executor.execute(&self.sql.renew(r))?.rows > 0 {
            return Ok(Renewal::Renewed);
        }
        let rows = self
            .executor
            .query(&self.sql.select_node(r.space, r.node))?;
        Ok(renewal_of(&lease_rows(rows)?, r))
    }

    fn release(&mut self, r: &ReleaseRequest<'_>) -> Result<bool, StoreError> {
        Ok(self.executor.execute(&self.sql.release(r))?.rows > 0)
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
            let rows = lease_rows(self.executor.query(&self.sql.list(space)).await?)?;
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
    ) -> impl Future<Output = Result<Option<NodeRow>, StoreError>> + Send {
        let claim = self.sql.claim(r);
        let select = self.sql.select_node(r.space, r.node);
        let owner = r.owner.to_owned();
        async move {
            if self.executor.execute(&claim).await?.rows == 0 {
                return Ok(None);
            }
            let rows = self.executor.query(&select).await?;
            claimed(&lease_rows(rows)?, &owner)
        }
    }

    fn renew(
        &self,
        r: &RenewRequest<'_>,
    ) -> impl Future<Output = Result<Renewal, StoreError>> + Send {
        let renew = self.sql.renew(r);
        let select = self.sql.select_node(r.space, r.node);
        let request = OwnedRenewRequest::new(r);
        async move {
            if self.executor.execute(&renew).await?.rows > 0 {
                return Ok(Renewal::Renewed);
            }
            let rows = self.executor.query(&select).await?;
            Ok(renewal_of(&lease_rows(rows)?, &request.borrow()))
        }
    }

    fn release(
        &self,
        r: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        let release = self.sql.release(r);
        async move { Ok(self.executor.execute(&release).await?.rows > 0) }
    }

    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send {
        let list = self.sql.list(space);
        let space = space.to_owned();
        async move { table_of(&space, self.executor.query(&list).await?) }
    }
}

/// Node rows inserted per statement (each binds the space once).
const INSERT_CHUNK: usize = 500;
/// Attempts at inserting a space's rows: concurrent first claims on
/// MySQL/MariaDB can deadlock on the same keys; the loser retries.
const INSERT_ATTEMPTS: usize = 5;

/// The columns every `SELECT` of the lease table returns: the row, plus
/// the database's clock (`db_now`).
const NODE_COLUMNS: &[(&str, SqlType)] = &[
    ("node_id", SqlType::BigInt),
    ("owner", SqlType::Text),
    ("fence", SqlType::BigInt),
    ("lease_until", SqlType::BigInt),
    ("high_water", SqlType::BigInt),
    ("holder", SqlType::Text),
    ("db_now", SqlType::BigInt),
];

/// 2^60 ms (36 million years): any larger bound is no bound.
const MAX_AHEAD: i64 = 1 << 60;

/// The rows a query of the lease table returned.
fn lease_rows(rows: Vec<SqlRow>) -> Result<Vec<LeaseRow>, StoreError> {
    Ok(rows
        .iter()
        .map(LeaseRow::from_sql)
        .collect::<Result<Vec<_>, _>>()?)
}

/// The nodes of `nodes` without a row among `rows`.
fn missing(rows: &[LeaseRow], nodes: RangeInclusive<u64>) -> Vec<u64> {
    let have: BTreeSet<i64> = rows.iter().map(|r| r.node_id).collect();
    nodes
        .filter(|n| !i64::try_from(*n).is_ok_and(|n| have.contains(&n)))
        .collect()
}

/// The rows of `space` (as [`LeaseSql::list`] reads them) as a [`NodeTable`].
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

fn table_of(space: &str, rows: Vec<SqlRow>) -> Result<NodeTable, StoreError> {
    Ok(node_table(space, &lease_rows(rows)?)?)
}

/// The row after a won claim, if it is still the claimant's.
fn claimed(rows: &[LeaseRow], owner: &str) -> Result<Option<NodeRow>, StoreError> {
    match rows.first().filter(|r| r.owner.as_deref() == Some(owner)) {
        Some(row) => Ok(Some(row.to_node_row()?)),
        None => Ok(None),
    }
}

/// What a renewal that changed no row did, from the row as it is now: the
/// row is another holder's, or the ceiling was too far ahead of the
/// database's clock, or (MySQL, which counts changed rows only) the
/// renewal changed no value.
fn renewal_of(rows: &[LeaseRow], r: &RenewRequest<'_>) -> Renewal {
    let Some(row) = rows.first().filter(|row| {
        row.owner.as_deref() == Some(r.owner)
            && u64::try_from(row.fence).is_ok_and(|f| f == r.fence)
    }) else {
        return Renewal::Lost;
    };
    let now = u64::try_from(row.db_now).unwrap_or(0);
    if r.ceiling_millis.saturating_sub(now) > r.max_ahead_millis {
        Renewal::ClockAhead {
            store_now_millis: row.db_now,
        }
    } else {
        Renewal::Renewed
    }
}

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
            max_ahead_millis: 20_000,
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
             \"lease_until\" < CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)) \
             AND \"high_water\" <= CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT) + $6"
        );
        assert_eq!(
            s.values,
            vec![
                SqlValue::Text("tok".into()),
                SqlValue::BigInt(15_000),
                SqlValue::Text("host/1".into()),
                SqlValue::Text("orders".into()),
                SqlValue::Int(3),
                SqlValue::BigInt(20_000),
            ]
        );
        let m = LeaseSql::new(Dialect::MySql).claim(&claim_request());
        assert!(
            m.sql
                .starts_with("UPDATE `flakeid_nodes` SET `owner` = ?, `fence` = `fence` + 1")
        );
        assert_eq!(m.sql.matches('?').count(), 6);
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
                max_ahead_millis: u64::MAX,
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
            assert_eq!(r.values.len(), 8);
            assert_eq!(r.values[1], SqlValue::BigInt(77));
            assert_eq!(r.values[5], SqlValue::BigInt(9));
            // The ceiling, then the bound on how far ahead of the clock it may be.
            assert_eq!(r.values[6], SqlValue::BigInt(77));
            assert_eq!(r.values[7], SqlValue::BigInt(MAX_AHEAD));
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
            BadLeaseRow::Negative {
                node_id: 2,
                column: "fence",
                value: -1
            }
        );
        // A NULL where the protocol never writes one is an error, not a zero.
        let sql_row = SqlRow::new(
            NODE_COLUMNS,
            vec![
                SqlValue::BigInt(1),
                SqlValue::Null,
                SqlValue::Null,
                SqlValue::BigInt(0),
                SqlValue::BigInt(0),
                SqlValue::Null,
                SqlValue::BigInt(1),
            ],
        );
        assert_eq!(
            LeaseRow::from_sql(&sql_row),
            Err(BadLeaseRow::Missing { column: "fence" })
        );
    }
}
