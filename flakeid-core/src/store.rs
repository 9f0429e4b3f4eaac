//! What node leases and segments share when they keep their state in a
//! database: the store's error, the runtime's timers, and the one pair of
//! traits an ORM crate implements to run the crate's SQL.
//!
//! An ORM crate (`flakeid-seaorm`, `flakeid-diesel`) implements
//! [`SqlExecutor`] (blocking connections) or [`AsyncSqlExecutor`] (async
//! ones) once; leases ([`node::SqlLeaseStore`](crate::node::SqlLeaseStore)),
//! segments ([`segment::SqlSegmentStore`](crate::segment::SqlSegmentStore))
//! and the tables' migrations all run through it. The executor runs the
//! statements as given; it writes no SQL of its own.

use core::future::Future;
use core::pin::pin;
use core::task::Poll;
use core::time::Duration;

use crate::sql::{Dialect, SqlStatement, SqlType, SqlValue};

/// What a store reports when a statement fails: the database driver's
/// error, boxed so that stores of every ORM share one error type.
pub type StoreError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Timers for the async renewal and prefetch tasks, from the application's
/// runtime (the ORM crates supply tokio's).
pub trait Sleep: Send + Sync + 'static {
    /// Completes after `duration`.
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send;
}

/// tokio's timers (feature `tokio`).
#[cfg(feature = "tokio")]
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleep;

#[cfg(feature = "tokio")]
impl Sleep for TokioSleep {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// `fut`'s output, or `None` if `d` passes first.
pub(crate) async fn timeout<T, R: Sleep>(
    runtime: &R,
    d: Duration,
    fut: impl Future<Output = T>,
) -> Option<T> {
    let mut fut = pin!(fut);
    let mut sleep = pin!(runtime.sleep(d));
    core::future::poll_fn(|cx| {
        if let Poll::Ready(v) = fut.as_mut().poll(cx) {
            return Poll::Ready(Some(v));
        }
        sleep.as_mut().poll(cx).map(|()| None)
    })
    .await
}

/// What a statement that is not a query did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Executed {
    /// The rows it changed.
    pub rows: u64,
    /// MySQL/MariaDB, for a statement with
    /// [`reads_insert_id`](SqlStatement::reads_insert_id): the
    /// connection's `LAST_INSERT_ID()` after it, read on the same
    /// connection. `None` otherwise.
    pub last_insert_id: Option<u64>,
}

/// One row of a query: a value per column of the statement's
/// [`columns`](SqlStatement::columns), in that order.
///
/// ```
/// use flakeid_core::sql::{SqlType, SqlValue};
/// use flakeid_core::store::SqlRow;
///
/// static COLUMNS: [(&str, SqlType); 2] = [("max_id", SqlType::BigInt), ("name", SqlType::Text)];
/// let row = SqlRow::new(&COLUMNS, vec![SqlValue::BigInt(7), SqlValue::Null]);
/// assert_eq!(row.i64("max_id"), Some(7));
/// assert_eq!(row.text("name"), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlRow {
    columns: &'static [(&'static str, SqlType)],
    values: Vec<SqlValue>,
}

impl SqlRow {
    /// A row of `columns` (a statement's [`columns`](SqlStatement::columns))
    /// holding `values` in the same order.
    pub fn new(columns: &'static [(&'static str, SqlType)], values: Vec<SqlValue>) -> Self {
        SqlRow { columns, values }
    }

    fn value(&self, name: &str) -> Option<&SqlValue> {
        let i = self.columns.iter().position(|(n, _)| *n == name)?;
        self.values.get(i)
    }

    /// The `BIGINT` (or `INTEGER`) column `name`; `None` when it is `NULL`
    /// or not a column of the row.
    pub fn i64(&self, name: &str) -> Option<i64> {
        match self.value(name)? {
            SqlValue::BigInt(v) => Some(*v),
            SqlValue::Int(v) => Some(i64::from(*v)),
            _ => None,
        }
    }

    /// The text column `name`; `None` when it is `NULL` or not a column of
    /// the row.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.value(name)? {
            SqlValue::Text(v) => Some(v),
            _ => None,
        }
    }
}

/// Runs the crate's statements on a blocking connection; implemented once
/// per ORM (see the [module documentation](self)).
pub trait SqlExecutor: Send {
    /// The driver's error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The connection's dialect.
    fn dialect(&self) -> Dialect;

    /// Executes a statement that is not a query.
    ///
    /// # Errors
    /// The driver's error.
    fn execute(&mut self, statement: &SqlStatement) -> Result<Executed, Self::Error>;

    /// Runs a query; each row holds the statement's
    /// [`columns`](SqlStatement::columns), read with their types.
    ///
    /// # Errors
    /// The driver's error.
    fn query(&mut self, statement: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error>;
}

/// [`SqlExecutor`] for async connections (a pool: each statement may run
/// on any of its connections, except that a statement with
/// [`reads_insert_id`](SqlStatement::reads_insert_id) and the reading of
/// `LAST_INSERT_ID()` share one).
pub trait AsyncSqlExecutor: Send + Sync {
    /// The driver's error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The connection's dialect.
    fn dialect(&self) -> Dialect;

    /// See [`SqlExecutor::execute`].
    fn execute(
        &self,
        statement: &SqlStatement,
    ) -> impl Future<Output = Result<Executed, Self::Error>> + Send;

    /// See [`SqlExecutor::query`].
    fn query(
        &self,
        statement: &SqlStatement,
    ) -> impl Future<Output = Result<Vec<SqlRow>, Self::Error>> + Send;
}
