//! Running flakeid's SQL on `diesel-async` connections (feature `async`).

use core::future::Future;
use std::fmt;

use diesel::result::QueryResult;
use diesel_async::{AsyncConnection, AsyncConnectionCore};
use flakeid_sql::{AsyncSqlExecutor, Executed, SqlRow};
use flakeid_sql::{Dialect, SqlStatement};

#[cfg(any(feature = "postgres", feature = "mysql", feature = "sqlite"))]
use crate::backend::rows;
use crate::backend::{DieselBackend, DieselStoreError};

/// A Diesel backend flakeid's statements run on through `diesel-async`
/// (PostgreSQL, MySQL, SQLite, with this crate's feature of the same name).
pub trait AsyncDieselBackend: DieselBackend {
    /// Executes a statement that is not a query: the rows it changed, and
    /// on MySQL/MariaDB the connection's `LAST_INSERT_ID()` right after it
    /// when the statement asks.
    fn execute_async<'c, C: AsyncConnectionCore<Backend = Self>>(
        conn: &'c mut C,
        s: &SqlStatement,
    ) -> impl Future<Output = QueryResult<Executed>> + Send + 'c;

    /// Runs a query; its rows with the statement's columns.
    fn load_async<'c, C: AsyncConnectionCore<Backend = Self>>(
        conn: &'c mut C,
        s: &SqlStatement,
    ) -> impl Future<Output = QueryResult<Vec<SqlRow>>> + Send + 'c;
}

macro_rules! async_diesel_backend {
    ($feature:literal, $db:ty) => {
        #[cfg(feature = $feature)]
        impl AsyncDieselBackend for $db {
            fn execute_async<'c, C: AsyncConnectionCore<Backend = Self>>(
                conn: &'c mut C,
                s: &SqlStatement,
            ) -> impl Future<Output = QueryResult<Executed>> + Send + 'c {
                let query = crate::backend::bind::<$db>(s);
                let reads_insert_id = s.reads_insert_id;
                async move {
                    use diesel_async::RunQueryDsl as _;
                    let rows = query.execute(conn).await?;
                    let last_insert_id = if reads_insert_id {
                        let ids: Vec<rows::LastInsertId> =
                            diesel::sql_query(SqlStatement::MYSQL_LAST_INSERT_ID)
                                .load(conn)
                                .await?;
                        Some(rows::last_insert_id(&ids)?)
                    } else {
                        None
                    };
                    Ok(Executed {
                        rows: u64::try_from(rows).unwrap_or(u64::MAX),
                        last_insert_id,
                    })
                }
            }

            fn load_async<'c, C: AsyncConnectionCore<Backend = Self>>(
                conn: &'c mut C,
                s: &SqlStatement,
            ) -> impl Future<Output = QueryResult<Vec<SqlRow>>> + Send + 'c {
                let query = crate::backend::bind::<$db>(s);
                let s = s.clone();
                async move {
                    use diesel_async::RunQueryDsl as _;
                    Ok(match rows::kind(&s) {
                        Some("node_id") => rows::of(&s, query.load::<rows::Node>(conn).await?),
                        Some("max_id") => rows::of(&s, query.load::<rows::MaxId>(conn).await?),
                        Some("space") => rows::of(&s, query.load::<rows::Space>(conn).await?),
                        _ => return Err(rows::unknown(&s)),
                    })
                }
            }
        }
    };
}

async_diesel_backend!("postgres", diesel::pg::Pg);
async_diesel_backend!("mysql", diesel::mysql::Mysql);
async_diesel_backend!("sqlite", diesel::sqlite::Sqlite);

/// Runs flakeid's statements on an async connection of its own, opened
/// from a URL and opened again after any error (the next statement
/// reconnects: a database restart or failover is ridden out).
pub struct AsyncDieselExecutor<C> {
    url: String,
    conn: tokio::sync::Mutex<Option<C>>,
}

impl<C> fmt::Debug for AsyncDieselExecutor<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncDieselExecutor")
            .finish_non_exhaustive()
    }
}

impl<C> AsyncDieselExecutor<C>
where
    C: AsyncConnection + 'static,
    C::Backend: AsyncDieselBackend,
{
    /// An executor connecting to `url` (with [`AsyncConnection::establish`]).
    pub fn new(url: impl Into<String>) -> Self {
        AsyncDieselExecutor {
            url: url.into(),
            conn: tokio::sync::Mutex::new(None),
        }
    }

    /// Runs `run` on the connection, opening it first if need be and
    /// dropping it after an error (it may be broken). Calls at the same
    /// time (renewals that overlap while the database is slow) take turns
    /// on the one connection, so a slow database is not also sent more
    /// connections. The connection is out of its slot while a statement
    /// runs: if the call is dropped midway (a renewal given up), the
    /// connection, which may still owe a reply, goes with it and the next
    /// call opens a fresh one; a reused one would read that reply as the
    /// next statement's ("packet out of order" on MySQL).
    async fn with<T>(
        &self,
        run: impl AsyncFnOnce(&mut C) -> QueryResult<T>,
    ) -> Result<T, DieselStoreError> {
        let mut guard = self.conn.lock().await;
        let mut conn = match guard.take() {
            Some(conn) => conn,
            None => C::establish(&self.url).await?,
        };
        let result = run(&mut conn).await;
        if result.is_ok() {
            *guard = Some(conn);
        }
        Ok(result?)
    }
}

impl<C> AsyncSqlExecutor for AsyncDieselExecutor<C>
where
    C: AsyncConnection + 'static,
    C::Backend: AsyncDieselBackend,
{
    type Error = DieselStoreError;

    fn dialect(&self) -> Dialect {
        <C::Backend as DieselBackend>::DIALECT
    }

    async fn execute(&self, s: &SqlStatement) -> Result<Executed, DieselStoreError> {
        self.with(async |conn| C::Backend::execute_async(conn, s).await)
            .await
    }

    async fn query(&self, s: &SqlStatement) -> Result<Vec<SqlRow>, DieselStoreError> {
        self.with(async |conn| C::Backend::load_async(conn, s).await)
            .await
    }
}

/// Runs flakeid's statements on an async connection the caller lends (for
/// operators' reads on the application's own connection).
#[cfg(feature = "lease")]
pub(crate) struct AsyncOnConnection<'c, C>(pub(crate) tokio::sync::Mutex<&'c mut C>);

#[cfg(feature = "lease")]
impl<C> AsyncSqlExecutor for AsyncOnConnection<'_, C>
where
    C: AsyncConnectionCore + Send,
    C::Backend: AsyncDieselBackend,
{
    type Error = diesel::result::Error;

    fn dialect(&self) -> Dialect {
        <C::Backend as DieselBackend>::DIALECT
    }

    async fn execute(&self, s: &SqlStatement) -> QueryResult<Executed> {
        C::Backend::execute_async(&mut **self.0.lock().await, s).await
    }

    async fn query(&self, s: &SqlStatement) -> QueryResult<Vec<SqlRow>> {
        C::Backend::load_async(&mut **self.0.lock().await, s).await
    }
}
