//! What node leases and segments share when they keep their state in a
//! database: the store's error and the one pair of traits an ORM crate
//! implements to run the crate's SQL. (The async tasks that renew leases
//! and fetch segments wait on the application runtime's timers:
//! [`runtime`](flakeid_core::runtime).)
//!
//! An ORM crate (`flakeid-seaorm`, `flakeid-diesel`) implements
//! [`SqlExecutor`] (blocking connections) or [`AsyncSqlExecutor`] (async
//! ones) once; leases (`flakeid-lease`'s `SqlLeaseStore`), segments
//! (`flakeid-segment`'s `SqlSegmentStore`) and the tables' migrations all
//! run through it. The executor runs the statements as given; it writes no
//! SQL of its own.

use core::future::Future;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::{Dialect, SqlStatement, SqlType, SqlValue};
use flakeid_core::Clock;

/// What a store reports when a statement fails: the database driver's
/// error, boxed so that stores of every ORM share one error type.
///
/// ```
/// use flakeid_sql::{Dialect, Executed, SqlExecutor, SqlRow, SqlStatement, SqlWriter, StoreError};
///
/// /// A connection to a database that is unreachable.
/// struct Down;
///
/// impl SqlExecutor for Down {
///     type Error = std::io::Error;
///     fn dialect(&self) -> Dialect { Dialect::Postgres }
///     fn execute(&mut self, _: &SqlStatement) -> Result<Executed, Self::Error> {
///         Err(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused"))
///     }
///     fn query(&mut self, _: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error> {
///         Err(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused"))
///     }
/// }
///
/// /// What a store does with any executor: its error becomes a `StoreError`.
/// fn touch(db: &mut impl SqlExecutor) -> Result<u64, StoreError> {
///     let mut sql = SqlWriter::new(db.dialect());
///     sql.push("UPDATE counters SET n = n + 1");
///     Ok(db.execute(&sql.finish())?.rows)
/// }
///
/// let e = touch(&mut Down).unwrap_err();
/// assert_eq!(e.to_string(), "connection refused");
/// // The driver's error is kept, for callers that look into it.
/// assert_eq!(e.downcast_ref::<std::io::Error>().map(|e| e.kind()), Some(std::io::ErrorKind::ConnectionRefused));
/// ```
pub type StoreError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A switch that cuts the memory stores' handles placed behind it off from
/// their table, as a network partition cuts an application off from its
/// database: while the outage is on, every call through such a handle
/// fails with [`Unreachable`]; other handles of the same table still reach
/// it (a one-sided partition: another process keeps going). For tests of
/// how an application and its leases or segments cope with their store
/// going away (the memory stores of `flakeid-lease` and `flakeid-segment`
/// put a handle behind one with their `behind`; [`MemoryRows::behind`]
/// underneath). Clones share the switch.
///
/// ```
/// use flakeid_core::ManualClock;
/// use flakeid_sql::{MemoryRows, Outage, Unreachable};
///
/// let rows: MemoryRows<&str, u64> = MemoryRows::new(ManualClock::new(0));
/// let outage = Outage::new();
/// let cut_off = rows.behind(&outage);
/// outage.start();
/// let err = cut_off.reach().unwrap_err();
/// assert!(err.is::<Unreachable>(), "{err}");
/// // The table itself is fine: another handle reaches it.
/// rows.reach()?;
/// rows.lock().insert("orders", 1);
/// outage.end();
/// cut_off.reach()?;
/// assert_eq!(cut_off.lock().get("orders"), Some(&1));
/// # Ok::<(), flakeid_sql::StoreError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Outage {
    on: Arc<AtomicBool>,
}

/// The error of a call through a memory store's handle behind an
/// [`Outage`] that is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the store is unreachable: an outage is on")]
pub struct Unreachable;

impl Outage {
    /// A switch that is off.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cuts the handles behind this outage off: their calls fail from now on.
    pub fn start(&self) {
        self.on.store(true, Ordering::SeqCst);
    }

    /// Lets the handles behind this outage reach their table again.
    pub fn end(&self) {
        self.on.store(false, Ordering::SeqCst);
    }

    /// Whether the outage is on.
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::SeqCst)
    }

    /// `Err(Unreachable)` while the outage is on.
    pub fn check(&self) -> Result<(), StoreError> {
        if self.is_on() {
            Err(Box::new(Unreachable))
        } else {
            Ok(())
        }
    }
}

/// The table of a memory store (`flakeid-lease`'s `MemoryLeaseStore`,
/// `flakeid-segment`'s `MemorySegmentStore`): rows that clones share, as
/// connections share one database; a clock that stands for the
/// database's; and the [`Outage`] a handle may be behind.
///
/// ```
/// use flakeid_core::ManualClock;
/// use flakeid_sql::MemoryRows;
///
/// let clock = ManualClock::new(1_700_000_000_000);
/// let rows: MemoryRows<String, i64> = MemoryRows::new(clock);
/// let other_connection = rows.clone();
/// other_connection.lock().insert("orders".into(), 100);
/// assert_eq!(rows.lock().get("orders"), Some(&100));
/// assert_eq!(rows.now_millis(), 1_700_000_000_000);
/// ```
pub struct MemoryRows<K, V> {
    rows: Arc<Mutex<BTreeMap<K, V>>>,
    clock: Arc<dyn Clock>,
    outage: Option<Outage>,
}

// Not derived: a clone shares the rows, whatever `K` and `V` are.
impl<K, V> Clone for MemoryRows<K, V> {
    fn clone(&self) -> Self {
        Self {
            rows: Arc::clone(&self.rows),
            clock: Arc::clone(&self.clock),
            outage: self.outage.clone(),
        }
    }
}

impl<K: Ord, V> MemoryRows<K, V> {
    /// No rows, and times from `clock`.
    pub fn new(clock: impl Clock) -> Self {
        Self {
            rows: Arc::new(Mutex::new(BTreeMap::new())),
            clock: Arc::new(clock),
            outage: None,
        }
    }

    /// A handle on the same rows behind `outage`.
    pub fn behind(&self, outage: &Outage) -> Self {
        Self {
            outage: Some(outage.clone()),
            ..self.clone()
        }
    }

    /// `Err` while the outage this handle is behind is on.
    pub fn reach(&self) -> Result<(), StoreError> {
        self.outage.as_ref().map_or(Ok(()), Outage::check)
    }

    /// The rows (a lock poisoned by a panic elsewhere is taken as it is).
    pub fn lock(&self) -> MutexGuard<'_, BTreeMap<K, V>> {
        self.rows.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The clock's reading, in milliseconds.
    pub fn now_millis(&self) -> i64 {
        i64::try_from(self.clock.now_millis()).unwrap_or(i64::MAX)
    }
}

/// What a statement that is not a query did.
///
/// `rows` is how a store learns whether a compare-and-set on its row won:
///
/// ```
/// use flakeid_sql::{Dialect, Executed, SqlExecutor, SqlRow, SqlStatement, SqlValue, SqlWriter, StoreError};
///
/// /// Reports that each statement changed `rows_changed` rows.
/// struct Changes { rows_changed: u64 }
///
/// impl SqlExecutor for Changes {
///     type Error = std::convert::Infallible;
///     fn dialect(&self) -> Dialect { Dialect::Postgres }
///     fn execute(&mut self, _: &SqlStatement) -> Result<Executed, Self::Error> {
///         Ok(Executed { rows: self.rows_changed, last_insert_id: None })
///     }
///     fn query(&mut self, _: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error> { Ok(Vec::new()) }
/// }
///
/// /// Takes the job if it is still queued: the `WHERE` is the compare, a changed row the win.
/// fn take(db: &mut impl SqlExecutor, job: i64) -> Result<bool, StoreError> {
///     let mut sql = SqlWriter::new(db.dialect());
///     sql.push("UPDATE jobs SET state = 'taken' WHERE state = 'queued' AND id = ");
///     sql.bind(SqlValue::BigInt(job));
///     Ok(db.execute(&sql.finish())?.rows == 1)
/// }
///
/// assert!(take(&mut Changes { rows_changed: 1 }, 7)?);
/// // No row changed: another session took the job first.
/// assert!(!take(&mut Changes { rows_changed: 0 }, 7)?);
/// # Ok::<(), StoreError>(())
/// ```
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
/// use flakeid_sql::{SqlRow, SqlType, SqlValue};
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

/// Runs flakeid's statements on a blocking connection; implemented once
/// per ORM (see the [crate documentation](crate)).
///
/// ```
/// use flakeid_sql::{Dialect, Executed, SqlExecutor, SqlRow, SqlStatement, SqlType, SqlValue, SqlWriter, StoreError};
///
/// /// Keeps the statements instead of running them, and answers as an
/// /// empty table would; an ORM's executor runs them on its connection.
/// #[derive(Default)]
/// struct Recorder { statements: Vec<SqlStatement> }
///
/// impl SqlExecutor for Recorder {
///     type Error = std::convert::Infallible;
///     fn dialect(&self) -> Dialect { Dialect::Sqlite }
///     fn execute(&mut self, statement: &SqlStatement) -> Result<Executed, Self::Error> {
///         self.statements.push(statement.clone());
///         Ok(Executed { rows: 1, last_insert_id: None })
///     }
///     fn query(&mut self, statement: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error> {
///         self.statements.push(statement.clone());
///         Ok(Vec::new())
///     }
/// }
///
/// static COUNT: [(&str, SqlType); 1] = [("n", SqlType::BigInt)];
///
/// /// What a store does through any executor: reads its row, creates it if missing.
/// fn ensure_row(db: &mut impl SqlExecutor, name: &str) -> Result<(), StoreError> {
///     let mut read = SqlWriter::new(db.dialect());
///     read.push("SELECT n FROM counters WHERE name = ").bind(SqlValue::Text(name.into()));
///     read.returns(&COUNT);
///     if db.query(&read.finish())?.is_empty() {
///         let mut insert = SqlWriter::new(db.dialect());
///         insert.push("INSERT INTO counters (name, n) VALUES (").bind(SqlValue::Text(name.into()));
///         insert.push(", 0)");
///         db.execute(&insert.finish())?;
///     }
///     Ok(())
/// }
///
/// let mut db = Recorder::default();
/// ensure_row(&mut db, "orders")?;
/// // The store read its row (none), then inserted it.
/// let [read, insert] = &db.statements[..] else { panic!("two statements") };
/// assert!(read.sql.starts_with("SELECT ") && !read.columns.is_empty());
/// assert_eq!(insert.sql, "INSERT INTO counters (name, n) VALUES (?, 0)");
/// # Ok::<(), StoreError>(())
/// ```
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
///
/// ```
/// use std::sync::Mutex;
/// use flakeid_sql::{AsyncSqlExecutor, Dialect, Executed, SqlRow, SqlStatement, SqlValue, SqlWriter, StoreError};
///
/// /// Keeps the statements' SQL instead of running them on a pool.
/// #[derive(Default)]
/// struct Recorder(Mutex<Vec<String>>);
///
/// impl AsyncSqlExecutor for Recorder {
///     type Error = std::convert::Infallible;
///     fn dialect(&self) -> Dialect { Dialect::Postgres }
///     async fn execute(&self, statement: &SqlStatement) -> Result<Executed, Self::Error> {
///         self.0.lock().unwrap().push(statement.sql.clone());
///         Ok(Executed { rows: 1, last_insert_id: None })
///     }
///     async fn query(&self, statement: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error> {
///         self.0.lock().unwrap().push(statement.sql.clone());
///         Ok(Vec::new())
///     }
/// }
///
/// /// What an async store does through any executor.
/// async fn bump(db: &impl AsyncSqlExecutor, name: &str, by: i64) -> Result<u64, StoreError> {
///     let mut sql = SqlWriter::new(db.dialect());
///     sql.push("UPDATE counters SET n = n + ").bind(SqlValue::BigInt(by));
///     sql.push(" WHERE name = ").bind(SqlValue::Text(name.into()));
///     Ok(db.execute(&sql.finish()).await?.rows)
/// }
///
/// # // A runtime would await it; this executor's futures are ready at once.
/// # fn now<T>(future: impl Future<Output = T>) -> T {
/// #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
/// #     match std::pin::pin!(future).poll(&mut cx) {
/// #         std::task::Poll::Ready(value) => value,
/// #         std::task::Poll::Pending => unreachable!(),
/// #     }
/// # }
/// let db = Recorder::default();
/// assert_eq!(now(bump(&db, "orders", 100))?, 1); // `.await` in async code
/// let sql = db.0.lock().unwrap();
/// assert_eq!(sql[..], ["UPDATE counters SET n = n + $1 WHERE name = $2"]);
/// # Ok::<(), StoreError>(())
/// ```
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
