//! What node leases and segments share when they keep their state in a
//! database: the store's error and the one pair of traits an ORM crate
//! implements to run the crate's SQL. (The async tasks that renew leases
//! and fetch segments wait on the application runtime's timers:
//! [`runtime`](flakeid_core::runtime).)
//!
//! An ORM crate (`flakeid-seaorm`, `flakeid-diesel`) implements
//! [`SqlExecutor`] (blocking connections) or [`AsyncSqlExecutor`] (async
//! ones) once; leases ([`node::SqlLeaseStore`](flakeid_lease::SqlLeaseStore)),
//! segments ([`segment::SqlSegmentStore`](flakeid_segment::SqlSegmentStore))
//! and the tables' migrations all run through it. The executor runs the
//! statements as given; it writes no SQL of its own.

use core::future::Future;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use flakeid_core::Clock;
use crate::{Dialect, SqlStatement, SqlType, SqlValue};

/// What a store reports when a statement fails: the database driver's
/// error, boxed so that stores of every ORM share one error type.
///
/// ```
/// use flakeid_segment::{FetchRequest, Fetched, SegmentError, SegmentOptions, SegmentStore};
/// use crate::StoreError;
///
/// /// A store whose database is unreachable.
/// struct Down;
///
/// impl SegmentStore for Down {
///     fn fetch(&mut self, _: &FetchRequest<'_>) -> Result<Fetched, StoreError> {
///         Err(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused").into())
///     }
/// }
///
/// let e = SegmentOptions::new("orders").start(Down).unwrap_err();
/// assert!(matches!(&e, SegmentError::Start { error, .. } if error == "connection refused"));
/// ```
pub type StoreError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A switch that cuts the memory stores' handles placed behind it off from
/// their table, as a network partition cuts an application off from its
/// database: while the outage is on, every call through such a handle
/// fails with [`Unreachable`]; other handles of the same table still reach
/// it (a one-sided partition: another process keeps going). For tests of
/// how an application and its leases or segments cope with their store
/// going away ([`MemoryLeaseStore::behind`](flakeid_lease::MemoryLeaseStore::behind),
/// [`MemorySegmentStore::behind`](flakeid_segment::MemorySegmentStore::behind)).
/// Clones share the switch.
///
/// ```
/// use flakeid_core::node::{LeaseError, LeaseOptions, MemoryLeaseStore};
/// use flakeid_core::layout::presets;
/// use crate::{Outage, Unreachable};
///
/// let store = MemoryLeaseStore::new();
/// let outage = Outage::new();
/// let options = LeaseOptions::new("jobs", presets::twitter());
/// outage.start();
/// let err = options.clone().claim(store.behind(&outage)).unwrap_err();
/// assert!(matches!(&err, LeaseError::Store { source, .. } if source.is::<Unreachable>()), "{err}");
/// // The table itself is fine: another handle claims.
/// let lease = options.clone().claim(store.clone())?;
/// outage.end();
/// let second = options.claim(store.behind(&outage))?;
/// assert_ne!(second.node(), lease.node());
/// # second.release_unused()?;
/// # lease.release_unused()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
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

/// The table of a memory store ([`MemoryLeaseStore`](flakeid_lease::MemoryLeaseStore),
/// [`MemorySegmentStore`](flakeid_segment::MemorySegmentStore)): rows that
/// clones share, as connections share one database; a clock that stands
/// for the database's; and the [`Outage`] a handle may be behind.
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
/// use flakeid_core::node::{LeaseStore, ReleaseRequest, SqlLeaseStore};
/// use crate::{Dialect, SqlStatement};
/// use crate::{Executed, SqlExecutor, SqlRow};
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
/// let release = ReleaseRequest { space: "orders", node: 2, owner: "a", fence: 7, high_water_millis: 0 };
/// assert!(SqlLeaseStore::new(Changes { rows_changed: 1 }).release(&release)?);
/// // No row changed: the row was no longer this holder's.
/// assert!(!SqlLeaseStore::new(Changes { rows_changed: 0 }).release(&release)?);
/// # Ok::<(), crate::StoreError>(())
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
/// use crate::{SqlType, SqlValue};
/// use crate::SqlRow;
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
///
/// ```
/// use flakeid_core::node::{LeaseStore, SqlLeaseStore};
/// use crate::{Dialect, SqlStatement};
/// use crate::{Executed, SqlExecutor, SqlRow};
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
/// let mut store = SqlLeaseStore::new(Recorder::default());
/// store.ensure_nodes("orders", 0..=3)?;
/// // The store read the space's rows (none), then inserted the four in one statement.
/// let [list, insert] = &store.executor().statements[..] else { panic!("two statements") };
/// assert!(list.sql.starts_with("SELECT ") && !list.columns.is_empty());
/// assert!(insert.sql.starts_with("INSERT INTO \"flakeid_nodes\" "));
/// # Ok::<(), crate::StoreError>(())
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
/// use flakeid_core::node::{AsyncLeaseStore, SqlLeaseStore};
/// use crate::{Dialect, SqlStatement};
/// use crate::{AsyncSqlExecutor, Executed, SqlRow};
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
/// # // A runtime would await it; this executor's futures are ready at once.
/// # fn now<T>(future: impl Future<Output = T>) -> T {
/// #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
/// #     match std::pin::pin!(future).poll(&mut cx) {
/// #         std::task::Poll::Ready(value) => value,
/// #         std::task::Poll::Pending => unreachable!(),
/// #     }
/// # }
/// let store = SqlLeaseStore::new_async(Recorder::default());
/// now(store.ensure_nodes("orders", 0..=1))?; // `.await` in async code
/// let sql = store.executor().0.lock().unwrap();
/// assert!(sql[1].starts_with("INSERT INTO \"flakeid_nodes\" ") && sql[1].contains("$2"));
/// # Ok::<(), crate::StoreError>(())
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
