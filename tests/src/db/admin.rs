//! The administrative SQL of every server, whatever its pool: connecting,
//! a version query and statements without results, errors as text.

use sqlx::pool::PoolOptions;
use sqlx::{AssertSqlSafe, Database, Executor, FromRow, IntoArguments, Pool};

/// A pool of up to four connections to the admin URL `url`.
pub(crate) async fn connect<DB: Database>(url: &str) -> Result<Pool<DB>, String> {
    PoolOptions::<DB>::new()
        .max_connections(4)
        .connect(url)
        .await
        .map_err(|e| e.to_string())
}

/// The one text that `sql` selects.
pub(crate) async fn text<DB: Database>(pool: &Pool<DB>, sql: &'static str) -> Result<String, String>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    (String,): for<'r> FromRow<'r, DB::Row>,
{
    sqlx::query_scalar::<DB, String>(sql)
        .fetch_one(pool)
        .await
        .map_err(|e| e.to_string())
}

/// Runs the statement `sql`.
pub(crate) async fn execute<DB: Database>(pool: &Pool<DB>, sql: String) -> Result<(), String>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
{
    pool.execute(AssertSqlSafe(sql))
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}
