//! SeaORM connections, one per database; the guard keeps a server's
//! per-test database alive for as long as the test runs.

use flakeid_tests::db::{self, TestDb};
use sea_orm::{ConnectOptions, Database, DatabaseConnection};

/// In-memory SQLite.
pub(crate) async fn sqlite() -> ((), DatabaseConnection) {
    // One connection: every connection to `sqlite::memory:` is its own database.
    let mut opts = ConnectOptions::new("sqlite::memory:");
    opts.max_connections(1).min_connections(1);
    ((), Database::connect(opts).await.expect("in-memory SQLite"))
}

/// A fresh database on PostgreSQL (container or `FLAKEID_TEST_POSTGRES_URL`).
pub(crate) async fn postgres() -> (TestDb, DatabaseConnection) {
    connect(db::postgres().await, "PostgreSQL").await
}

/// A fresh database on MySQL/MariaDB (container or `FLAKEID_TEST_MYSQL_URL`).
pub(crate) async fn mysql() -> (TestDb, DatabaseConnection) {
    connect(db::mysql().await, "MySQL/MariaDB").await
}

/// [`mysql`] with every connection in non-strict mode (`sql_mode = ''`),
/// where the server stores the implicit default of a `NOT NULL` column an
/// `INSERT` leaves out (0 for a `BIGINT`) instead of refusing the row.
pub(crate) async fn mysql_non_strict() -> (TestDb, DatabaseConnection) {
    let test_db = db::mysql().await;
    let mut opts = ConnectOptions::new(test_db.url());
    opts.map_sqlx_mysql_pool_opts(|pool| {
        pool.after_connect(|conn, _| {
            Box::pin(async move {
                sqlx::Executor::execute(conn, "SET SESSION sql_mode = ''")
                    .await
                    .map(drop)
            })
        })
    });
    let conn = Database::connect(opts)
        .await
        .expect("connect to MySQL/MariaDB");
    (test_db, conn)
}

/// A connection to `test_db` (on the server `server` names), with its guard.
async fn connect(test_db: TestDb, server: &str) -> (TestDb, DatabaseConnection) {
    let conn = Database::connect(test_db.url())
        .await
        .unwrap_or_else(|e| panic!("connect to {server}: {e}"));
    (test_db, conn)
}
