//! [`SqlLeaseStore`]: the lease protocol's operations as [`LeaseSql`]'s
//! statements, run by an executor.

use core::future::Future;
use core::ops::RangeInclusive;
use std::collections::BTreeSet;

use super::row::{LeaseRow, lease_rows, table_of};
use super::statements::LeaseSql;
use crate::store::{
    AsyncLeaseStore, ClaimRequest, LeaseStore, NodeRow, NodeTable, OwnedRenewRequest,
    ReleaseRequest, RenewRequest, Renewal,
};
use flakeid_sql::{AsyncSqlExecutor, SqlExecutor, SqlNameError, StoreError};

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
    /// A store on the table [`LeaseOptions::DEFAULT_TABLE`](crate::LeaseOptions::DEFAULT_TABLE).
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
    /// A store on the table [`LeaseOptions::DEFAULT_TABLE`](crate::LeaseOptions::DEFAULT_TABLE).
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

/// The nodes of `nodes` without a row among `rows`.
pub(super) fn missing(rows: &[LeaseRow], nodes: RangeInclusive<u64>) -> Vec<u64> {
    let have: BTreeSet<i64> = rows.iter().map(|r| r.node_id).collect();
    nodes
        .filter(|n| !i64::try_from(*n).is_ok_and(|n| have.contains(&n)))
        .collect()
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

/// Node rows inserted per statement (each binds the space once).
const INSERT_CHUNK: usize = 500;

/// Attempts at inserting a space's rows: concurrent first claims on
/// MySQL/MariaDB can deadlock on the same keys; the loser retries.
const INSERT_ATTEMPTS: usize = 5;
