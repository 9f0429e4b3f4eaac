//! The segment table's SQL (see the [crate documentation](crate) for what it serves)
//! and the store that runs it.
//!
//! [`SegmentSql`] writes every statement for one dialect;
//! [`SqlSegmentStore`] implements [`SegmentStore`] and
//! [`AsyncSegmentStore`] on top of an executor
//! ([`SegmentExecutor`], [`AsyncSegmentExecutor`]) that `flakeid-diesel`
//! and `flakeid-seaorm` provide.
//!
//! # One atomic statement per segment
//!
//! | dialect | the advance | round trips |
//! |---|---|---|
//! | PostgreSQL, SQLite | `UPDATE t SET max_id = max_id + :step, … WHERE name = :name AND max_id <= 2^63 − 1 − :step RETURNING max_id` | 1 |
//! | MySQL/MariaDB | `UPDATE t SET max_id = LAST_INSERT_ID(max_id + :step), … WHERE …`, then `LAST_INSERT_ID()` of the same connection | 1 (SeaORM: the value comes back with the `UPDATE`'s result), 2 (Diesel: `SELECT LAST_INSERT_ID()` right after) |
//!
//! MariaDB has no `UPDATE … RETURNING`, and MySQL none at all. The
//! `LAST_INSERT_ID(expr)` idiom (MySQL's documented way to make a
//! sequence of a one-row table) keeps the advance **one statement**: the
//! row is changed under its row lock in an autocommitted `UPDATE`, and the
//! new `max_id` is remembered **per connection**, so no other connection's
//! advance can change what this one reads, and no transaction holds the
//! lock across round trips. The alternative, `SELECT … FOR UPDATE` then
//! `UPDATE` in one transaction, takes four round trips (with `BEGIN` and
//! `COMMIT`) and holds the row lock for all of them.
//!
//! Each advance refuses to pass `2^63 − 1` (the `WHERE` above): PostgreSQL
//! and MySQL would fail on the overflow, SQLite would turn the value into
//! a float. When no row changed, the store creates the row if it is
//! missing (`INSERT … ON CONFLICT DO NOTHING` / `ON DUPLICATE KEY UPDATE`,
//! idempotent under concurrency) and advances again; a row that exists and
//! still does not advance is [`Fetched::Exhausted`].
//!
//! ```
//! use flakeid_segment::SegmentSql;
//! use flakeid_sql::Dialect;
//!
//! let sql = SegmentSql::new(Dialect::Sqlite);
//! assert_eq!(
//!     sql.create_table(),
//!     "CREATE TABLE IF NOT EXISTS \"flakeid_segments\" (\
//!      \"name\" VARCHAR(191) NOT NULL, \
//!      \"max_id\" BIGINT NOT NULL, \
//!      \"step\" BIGINT NOT NULL, \
//!      \"updated_at\" BIGINT NOT NULL, \
//!      PRIMARY KEY (\"name\"))",
//! );
//! // On PostgreSQL the same statement runs under an advisory lock, so that
//! // replicas creating the table at once all succeed.
//! assert!(SegmentSql::new(Dialect::Postgres)
//!     .create_table()
//!     .starts_with("DO $flakeid$ BEGIN PERFORM pg_advisory_xact_lock("));
//! ```

use core::future::Future;

use super::source::SegmentOptions;
use super::store::{AsyncSegmentStore, FetchRequest, Fetched, SegmentStore};
use flakeid_sql::{AsyncSqlExecutor, SqlExecutor, SqlRow, StoreError};
use flakeid_sql::{Dialect, SqlNameError, SqlStatement, SqlType, SqlValue, SqlWriter};

/// Every statement on the segment table for one dialect and table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentSql {
    dialect: Dialect,
    table: String,
}

impl SegmentSql {
    /// Statements for the table [`SegmentOptions::DEFAULT_TABLE`] (`flakeid_segments`).
    pub fn new(dialect: Dialect) -> Self {
        SegmentSql {
            dialect,
            table: dialect.quote(SegmentOptions::DEFAULT_TABLE),
        }
    }

    /// Statements for the table `table`, quoted as an identifier.
    ///
    /// # Errors
    /// [`SqlNameError`] for a name the database would not keep exactly.
    ///
    /// ```
    /// use flakeid_segment::SegmentSql;
    /// use flakeid_sql::{Dialect, SqlNameError};
    ///
    /// let sql = SegmentSql::with_table(Dialect::MySql, "id blocks")?;
    /// assert!(sql.create_table().starts_with("CREATE TABLE IF NOT EXISTS `id blocks` ("));
    /// assert!(matches!(
    ///     SegmentSql::with_table(Dialect::Sqlite, "sqlite_ids"),
    ///     Err(SqlNameError::ReservedPrefix { .. })
    /// ));
    /// # Ok::<(), SqlNameError>(())
    /// ```
    pub fn with_table(dialect: Dialect, table: &str) -> Result<Self, SqlNameError> {
        Ok(SegmentSql {
            dialect,
            table: dialect.identifier("segment table", table)?,
        })
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn col(&self, name: &str) -> String {
        self.dialect.quote(name)
    }

    /// `CREATE TABLE IF NOT EXISTS` for the segment table, safe when any
    /// number of processes run it at once: on PostgreSQL, where a bare
    /// `CREATE TABLE IF NOT EXISTS` can fail for all but one of them, it
    /// runs in a `DO` block under a transaction-scoped advisory lock.
    pub fn create_table(&self) -> String {
        self.dialect.create_table_once(format!(
            "CREATE TABLE IF NOT EXISTS {} ({} VARCHAR(191) NOT NULL, {} BIGINT NOT NULL, \
             {} BIGINT NOT NULL, {} BIGINT NOT NULL, PRIMARY KEY ({}))",
            self.table,
            self.col("name"),
            self.col("max_id"),
            self.col("step"),
            self.col("updated_at"),
            self.col("name"),
        ))
    }

    /// `DROP TABLE IF EXISTS` for the segment table (a migration's down step).
    pub fn drop_table(&self) -> String {
        format!("DROP TABLE IF EXISTS {}", self.table)
    }

    /// Creates the row `name` with `max_id = first − 1` unless it exists
    /// (which it keeps as it is).
    pub(crate) fn insert_row(&self, name: &str, first: u64, step: u64) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&format!(
            "INSERT INTO {} ({}, {}, {}, {}) VALUES (",
            self.table,
            self.col("name"),
            self.col("max_id"),
            self.col("step"),
            self.col("updated_at"),
        ))
        .bind(SqlValue::Text(name.to_owned()))
        .push(", ")
        .bind(big(first.saturating_sub(1)))
        .push(", ")
        .bind(big(step))
        .push(&format!(", {})", self.dialect.now_millis()));
        match self.dialect {
            Dialect::Postgres | Dialect::Sqlite => {
                w.push(&format!(" ON CONFLICT ({}) DO NOTHING", self.col("name")))
            }
            Dialect::MySql => w.push(&format!(
                " ON DUPLICATE KEY UPDATE {0} = {0}",
                self.col("name")
            )),
        };
        w.finish()
    }

    /// The advance: one statement adding `step` to `max_id` unless that
    /// passes `2^63 − 1`. PostgreSQL and SQLite return the new `max_id`
    /// (one row, one `max_id` column); MySQL/MariaDB leave it in
    /// `LAST_INSERT_ID()`.
    pub(crate) fn advance(&self, name: &str, step: u64) -> SqlStatement {
        let max_id = self.col("max_id");
        let mut w = SqlWriter::new(self.dialect);
        w.push(&format!("UPDATE {} SET {max_id} = ", self.table));
        match self.dialect {
            Dialect::MySql => w
                .push(&format!("LAST_INSERT_ID({max_id} + "))
                .bind(big(step))
                .push(")"),
            Dialect::Postgres | Dialect::Sqlite => w.push(&format!("{max_id} + ")).bind(big(step)),
        };
        w.push(&format!(", {} = ", self.col("step")))
            .bind(big(step))
            .push(&format!(
                ", {} = {} WHERE {} = ",
                self.col("updated_at"),
                self.dialect.now_millis(),
                self.col("name")
            ))
            .bind(SqlValue::Text(name.to_owned()))
            .push(&format!(" AND {max_id} <= "))
            .bind(big((i64::MAX as u64).saturating_sub(step)));
        if self.dialect == Dialect::MySql {
            w.reads_insert_id();
        } else {
            w.push(&format!(" RETURNING {max_id}")).returns(MAX_ID);
        }
        w.finish()
    }

    /// The row `name`'s `max_id` (column `max_id`).
    pub(crate) fn select_max_id(&self, name: &str) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        w.push(&format!(
            "SELECT {} FROM {} WHERE {} = ",
            self.col("max_id"),
            self.table,
            self.col("name"),
        ))
        .bind(SqlValue::Text(name.to_owned()))
        .returns(MAX_ID);
        w.finish()
    }
}

/// Segments of the SQL table: implements [`SegmentStore`] for an
/// [`SqlExecutor`] and [`AsyncSegmentStore`] for an [`AsyncSqlExecutor`].
///
/// ```
/// use flakeid_segment::{FetchRequest, Fetched, SegmentStore, SqlSegmentStore};
/// # use flakeid_sql::{Dialect, Executed, SqlExecutor, SqlRow, SqlStatement, SqlValue};
/// # #[derive(Default)]
/// # struct OneRow(Option<i64>);
/// # impl SqlExecutor for OneRow {
/// #     type Error = std::convert::Infallible;
/// #     fn dialect(&self) -> Dialect { Dialect::Sqlite }
/// #     // The INSERT of a missing row, whose second value is `max_id`.
/// #     fn execute(&mut self, insert: &SqlStatement) -> Result<Executed, Self::Error> {
/// #         if let (None, SqlValue::BigInt(max_id)) = (self.0, &insert.values[1]) { self.0 = Some(*max_id) }
/// #         Ok(Executed { rows: 1, last_insert_id: None })
/// #     }
/// #     // The advance (UPDATE … RETURNING, the step first) or the SELECT of `max_id`.
/// #     fn query(&mut self, query: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error> {
/// #         let advance = query.sql.starts_with("UPDATE");
/// #         if let (Some(max_id), true, SqlValue::BigInt(step)) = (&mut self.0, advance, &query.values[0]) {
/// #             *max_id += *step;
/// #         }
/// #         let row = |max_id| SqlRow::new(query.columns, vec![SqlValue::BigInt(max_id)]);
/// #         Ok(self.0.into_iter().map(row).collect())
/// #     }
/// # }
///
/// // `flakeid-seaorm` and `flakeid-diesel` give it an executor on the ORM's connection;
/// // this one answers as SQLite would for one row (see `SqlExecutor` for a whole executor).
/// let mut store = SqlSegmentStore::new(OneRow::default());
/// let request = FetchRequest { name: "orders", step: 100, first: 1 };
/// // No row yet: the advance changes nothing, the row is created, the advance runs again.
/// assert_eq!(store.fetch(&request)?, Fetched::Advanced { max_id: 100 });
/// assert_eq!(store.fetch(&request)?, Fetched::Advanced { max_id: 200 });
/// assert_eq!(store.max_id("orders")?, Some(200));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Debug, Clone)]
pub struct SqlSegmentStore<X> {
    sql: SegmentSql,
    executor: X,
}

impl<X> SqlSegmentStore<X> {
    /// The executor.
    pub fn executor(&self) -> &X {
        &self.executor
    }

    /// The statements.
    pub fn sql(&self) -> &SegmentSql {
        &self.sql
    }

    /// A store running `sql` (for another table: [`SegmentSql::with_table`])
    /// on `executor`, which must speak `sql`'s dialect.
    pub fn with_sql(executor: X, sql: SegmentSql) -> Self {
        SqlSegmentStore { sql, executor }
    }
}

impl<X: SqlExecutor> SqlSegmentStore<X> {
    /// A store on the table [`SegmentOptions::DEFAULT_TABLE`].
    pub fn new(executor: X) -> Self {
        let sql = SegmentSql::new(executor.dialect());
        Self::with_sql(executor, sql)
    }

    fn advance(&mut self, name: &str, step: u64) -> Result<Option<i64>, X::Error> {
        let statement = self.sql.advance(name, step);
        if statement.reads_insert_id {
            return Ok(advanced(self.executor.execute(&statement)?));
        }
        Ok(first_max_id(self.executor.query(&statement)?))
    }

    /// The row `name`'s `max_id` (the last value handed out), for
    /// operators and tests.
    ///
    /// # Errors
    /// The executor's error.
    pub fn max_id(&mut self, name: &str) -> Result<Option<i64>, X::Error> {
        Ok(first_max_id(
            self.executor.query(&self.sql.select_max_id(name))?,
        ))
    }
}

impl<X: AsyncSqlExecutor> SqlSegmentStore<X> {
    /// A store on the table [`SegmentOptions::DEFAULT_TABLE`].
    pub fn new_async(executor: X) -> Self {
        let sql = SegmentSql::new(executor.dialect());
        Self::with_sql(executor, sql)
    }

    async fn advance_async(&self, name: &str, step: u64) -> Result<Option<i64>, X::Error> {
        let statement = self.sql.advance(name, step);
        if statement.reads_insert_id {
            return Ok(advanced(self.executor.execute(&statement).await?));
        }
        Ok(first_max_id(self.executor.query(&statement).await?))
    }

    /// The row `name`'s `max_id`, for operators and tests.
    ///
    /// # Errors
    /// The executor's error.
    pub async fn max_id_async(&self, name: &str) -> Result<Option<i64>, X::Error> {
        Ok(first_max_id(
            self.executor.query(&self.sql.select_max_id(name)).await?,
        ))
    }
}

impl<X: SqlExecutor> SegmentStore for SqlSegmentStore<X> {
    fn fetch(&mut self, r: &FetchRequest<'_>) -> Result<Fetched, StoreError> {
        if let Some(max_id) = self.advance(r.name, r.step)? {
            return Ok(Fetched::Advanced { max_id });
        }
        let insert = self.sql.insert_row(r.name, r.first, r.step);
        let mut attempt = 1;
        while let Err(e) = self.executor.execute(&insert) {
            if attempt == INSERT_ATTEMPTS {
                return Err(e.into());
            }
            attempt += 1;
        }
        if let Some(max_id) = self.advance(r.name, r.step)? {
            return Ok(Fetched::Advanced { max_id });
        }
        let max_id = self.max_id(r.name)?;
        exhausted(r.name, max_id)
    }
}

impl<X: AsyncSqlExecutor> AsyncSegmentStore for SqlSegmentStore<X> {
    fn fetch(
        &self,
        r: &FetchRequest<'_>,
    ) -> impl Future<Output = Result<Fetched, StoreError>> + Send {
        let (name, step, first) = (r.name.to_owned(), r.step, r.first);
        async move {
            if let Some(max_id) = self.advance_async(&name, step).await? {
                return Ok(Fetched::Advanced { max_id });
            }
            let insert = self.sql.insert_row(&name, first, step);
            let mut attempt = 1;
            while let Err(e) = self.executor.execute(&insert).await {
                if attempt == INSERT_ATTEMPTS {
                    return Err(e.into());
                }
                attempt += 1;
            }
            if let Some(max_id) = self.advance_async(&name, step).await? {
                return Ok(Fetched::Advanced { max_id });
            }
            let max_id = self.max_id_async(&name).await?;
            exhausted(&name, max_id)
        }
    }
}

/// The one column a statement returning `max_id` reads.
const MAX_ID: &[(&str, SqlType)] = &[("max_id", SqlType::BigInt)];

/// Attempts at creating a missing row: concurrent first fetches on
/// MySQL/MariaDB can deadlock on the same key; the loser retries.
const INSERT_ATTEMPTS: usize = 5;

/// The `max_id` of the first row a query returned.
fn first_max_id(rows: Vec<SqlRow>) -> Option<i64> {
    rows.first().and_then(|r| r.i64("max_id"))
}

/// The new `max_id` of a MySQL/MariaDB advance, from `LAST_INSERT_ID()`,
/// when it changed the row. `LAST_INSERT_ID()` is unsigned; a value above
/// `2^63 − 1` (never set by an advance), or none at all, reads as
/// negative, which the source refuses as a bad row.
fn advanced(done: flakeid_sql::Executed) -> Option<i64> {
    (done.rows > 0).then(|| {
        done.last_insert_id
            .and_then(|v| i64::try_from(v).ok())
            .unwrap_or(-1)
    })
}

/// The row could not be advanced after it was created: it is used up.
fn exhausted(name: &str, max_id: Option<i64>) -> Result<Fetched, StoreError> {
    match max_id {
        Some(max_id) => Ok(Fetched::Exhausted { max_id }),
        None => Err(format!("the segment row {name:?} is missing after it was created").into()),
    }
}

fn big(v: u64) -> SqlValue {
    SqlValue::BigInt(i64::try_from(v).unwrap_or(i64::MAX))
}

#[cfg(test)]
#[path = "../tests/unit/sql.rs"]
mod tests;
