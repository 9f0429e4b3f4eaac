//! The executors flakeid's statements run on with Diesel:
//! [`DieselExecutor`] on a connection of its own (with a deadline, if
//! asked), [`OnConnection`] on a connection the caller lends.

use std::fmt;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use diesel::connection::{Connection, LoadConnection};
use diesel::result::{ConnectionResult, QueryResult};
use flakeid_sql::{Dialect, SqlStatement};
use flakeid_sql::{Executed, SqlExecutor, SqlRow};

use crate::backend::{DieselBackend, DieselStoreError, SQLITE_BUSY_TIMEOUT};

/// Runs flakeid's statements (leases, segments) on a connection of its
/// own, opened by `connect` and opened again after any error (the next
/// statement reconnects: a database restart or failover is ridden out).
///
/// With a [deadline](Self::with_deadline), each statement runs on a thread
/// of its own and the caller gets an answer within the deadline whatever
/// the network does: a statement (or connect) that does not finish in time
/// fails with [`DieselStoreError::Deadline`], its connection is given up
/// (left to its thread until the operating system gives up on the socket)
/// and the next statement opens a fresh one.
pub struct DieselExecutor<C> {
    connect: Connect<C>,
    conn: Option<C>,
    deadline: Option<Duration>,
}

impl<C> fmt::Debug for DieselExecutor<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DieselExecutor")
            .field("connected", &self.conn.is_some())
            .finish_non_exhaustive()
    }
}

impl<C> DieselExecutor<C>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: DieselBackend,
{
    /// An executor opening its connections with `connect`; a statement
    /// takes as long as the connection lets it.
    pub fn new(connect: impl Fn() -> ConnectionResult<C> + Send + 'static) -> Self {
        let connect = Mutex::new(connect);
        DieselExecutor {
            connect: Arc::new(move || (connect.lock().unwrap_or_else(PoisonError::into_inner))()),
            conn: None,
            deadline: None,
        }
    }

    /// An executor opening its connections with `connect` whose statements
    /// answer within `deadline` (see [`DieselExecutor`]): a hung statement
    /// or connect (a network partition, a blackholed or stalled
    /// connection) cannot hold the caller longer.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use diesel::{Connection, SqliteConnection};
    /// use flakeid_diesel::DieselExecutor;
    ///
    /// let executor = DieselExecutor::with_deadline(
    ///     || SqliteConnection::establish(":memory:"),
    ///     Duration::from_secs(2),
    /// );
    /// # let _ = executor;
    /// ```
    pub fn with_deadline(
        connect: impl Fn() -> ConnectionResult<C> + Send + Sync + 'static,
        deadline: Duration,
    ) -> Self {
        DieselExecutor {
            connect: Arc::new(connect),
            conn: None,
            deadline: Some(deadline),
        }
    }

    fn with<T: Send + 'static>(
        &mut self,
        run: impl FnOnce(&mut C) -> QueryResult<T> + Send + 'static,
    ) -> Result<T, DieselStoreError> {
        let Some(deadline) = self.deadline else {
            let (conn, result) = on(&self.connect, self.conn.take(), run);
            self.conn = conn;
            return result;
        };
        let (tx, rx) = mpsc::channel();
        let (connect, conn) = (self.connect.clone(), self.conn.take());
        std::thread::Builder::new()
            .name("flakeid-diesel-statement".into())
            .spawn(move || {
                let _ = tx.send(on(&connect, conn, run));
            })
            .map_err(|e| DieselStoreError::Thread(e.to_string()))?;
        match rx.recv_timeout(deadline) {
            Ok((conn, result)) => {
                self.conn = conn;
                result
            }
            // Given up: the thread keeps the connection until it ends.
            Err(_) => Err(DieselStoreError::Deadline(deadline)),
        }
    }
}

impl<C> SqlExecutor for DieselExecutor<C>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: DieselBackend,
{
    type Error = DieselStoreError;

    fn dialect(&self) -> Dialect {
        <C::Backend as DieselBackend>::DIALECT
    }

    fn execute(&mut self, s: &SqlStatement) -> Result<Executed, DieselStoreError> {
        let s = s.clone();
        self.with(move |conn| C::Backend::execute(conn, &s))
    }

    fn query(&mut self, s: &SqlStatement) -> Result<Vec<SqlRow>, DieselStoreError> {
        let s = s.clone();
        self.with(move |conn| C::Backend::load(conn, &s))
    }
}

/// Runs flakeid's statements on a connection the caller lends (for
/// operators' reads on the application's own connection).
pub(crate) struct OnConnection<'c, C>(pub(crate) &'c mut C);

impl<C> SqlExecutor for OnConnection<'_, C>
where
    C: LoadConnection + Send,
    C::Backend: DieselBackend,
{
    type Error = diesel::result::Error;

    fn dialect(&self) -> Dialect {
        <C::Backend as DieselBackend>::DIALECT
    }

    fn execute(&mut self, s: &SqlStatement) -> QueryResult<Executed> {
        C::Backend::execute(self.0, s)
    }

    fn query(&mut self, s: &SqlStatement) -> QueryResult<Vec<SqlRow>> {
        C::Backend::load(self.0, s)
    }
}

type Connect<C> = Arc<dyn Fn() -> ConnectionResult<C> + Send + Sync>;

/// Runs `run` on `conn`, or on a connection `connect` opens; the
/// connection to keep (none after an error: it may be broken, and the next
/// statement opens a fresh one) and the result.
fn on<C, T>(
    connect: &Connect<C>,
    conn: Option<C>,
    run: impl FnOnce(&mut C) -> QueryResult<T>,
) -> (Option<C>, Result<T, DieselStoreError>)
where
    C: Connection,
    C::Backend: DieselBackend,
{
    let mut conn = match conn {
        Some(conn) => conn,
        None => match open(connect) {
            Ok(conn) => conn,
            Err(e) => return (None, Err(e)),
        },
    };
    match run(&mut conn) {
        Ok(v) => (Some(conn), Ok(v)),
        Err(e) => (None, Err(e.into())),
    }
}

/// A new connection of flakeid's own.
fn open<C>(connect: &Connect<C>) -> Result<C, DieselStoreError>
where
    C: Connection,
    C::Backend: DieselBackend,
{
    let mut conn = connect()?;
    if <C::Backend as DieselBackend>::DIALECT == Dialect::Sqlite {
        // This connection is flakeid's own: let it wait for other
        // processes' writes as sqlx's do.
        conn.batch_execute(&format!(
            "PRAGMA busy_timeout = {}",
            SQLITE_BUSY_TIMEOUT.as_millis()
        ))?;
    }
    Ok(conn)
}
