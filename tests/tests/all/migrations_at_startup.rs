//! Sixteen replicas start at the same moment on an empty database and each
//! runs its migrations at start-up (flakeid's lease and segment tables,
//! then the application's table) through the lock of
//! `flakeid_seaorm::migration::up` (SeaORM's `Migrator::up`) or
//! `flakeid_diesel::migration::run` (Diesel's `run_pending_migrations`),
//! half each, then inserts rows with flake keys; on PostgreSQL, MariaDB and
//! SQLite. Every replica must start; the tables, the runners' bookkeeping
//! and the rows are checked with plain SQL. And the two ORMs' runners take
//! one lock: while one holds it the other waits, up to its wait, then fails
//! with the error naming the database and the lock.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use diesel::Connection as _;
use diesel::connection::{AnsiTransactionManager, LoadConnection};
use flakeid_diesel::DieselBackend;
use flakeid_diesel::migration::{MigrationError, MigrationLock, MigrationLockTimeout};
use flakeid_tests::db;
use flakeid_tests::process::Output;
use flakeid_tests::worker::sqlite_path;
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, DbBackend, Statement, TryGetable};

use super::lease_common::{sqlite_url, wall_ms};

/// One multi-threaded `#[tokio::test]` per name, running `$behaviour` on
/// a database of the server named (its URL), with the further argument.
macro_rules! tests_of {
    ($behaviour:ident: $($name:ident($on:expr, $arg:expr);)*) => {$(
        #[tokio::test(flavor = "multi_thread")]
        async fn $name() {
            let (_guard, url) = database($on).await;
            $behaviour(&url, $arg).await;
        }
    )*};
}

const REPLICAS: u64 = 16;
const ROWS: i64 = 100;

/// The server a test runs on; SQLite in the file it names.
enum On {
    Postgres,
    MariaDb,
    Sqlite(&'static str),
}

/// What a replica said, and how it ended.
struct Replica {
    tag: String,
    code: i32,
    said: Vec<String>,
}

/// A database on `on` for one test: the guard that keeps a server's fresh
/// database (none for a SQLite file), and its URL.
async fn database(on: On) -> (Option<db::TestDb>, String) {
    let db = match on {
        On::Postgres => db::postgres().await,
        On::MariaDb => db::mysql().await,
        On::Sqlite(file) => return (None, sqlite_url(file)),
    };
    let url = db.url().to_owned();
    (Some(db), url)
}

/// Starts `REPLICAS` `migrate_worker` processes, SeaORM and Diesel in
/// turn, that all migrate at one wall-clock instant; waits for them all.
fn start_replicas(url: &str, name: &str) -> Vec<Replica> {
    // Far enough ahead for every process to be up and connected.
    let start_at = (wall_ms() + 4000).to_string();
    let children: Vec<_> = (0..REPLICAS)
        .map(|node| {
            let orm = if node % 2 == 0 { "seaorm" } else { "diesel" };
            let tag = format!("{name}-{node}-{orm}");
            let mut child = Command::new(env!("CARGO_BIN_EXE_migrate_worker"))
                .args(["--url", url, "--orm", orm, "--node", &node.to_string()])
                .args(["--rows", &ROWS.to_string(), "--start-at-ms", &start_at])
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("start migrate_worker");
            let output = Output::follow(&mut child, &tag);
            (tag, child, output)
        })
        .collect();
    children
        .into_iter()
        .map(|(tag, mut child, output)| {
            let status = child.wait().expect("wait for migrate_worker");
            output.rest(Duration::from_millis(200));
            Replica {
                tag,
                code: status.code().unwrap_or(-1),
                said: output.said(),
            }
        })
        .collect()
}

/// The first column of every row of `sql`.
async fn column<T: TryGetable>(conn: &DatabaseConnection, sql: &str) -> Vec<T> {
    conn.query_all_raw(Statement::from_string(conn.get_database_backend(), sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .iter()
        .map(|r| {
            r.try_get_by_index::<T>(0)
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
        })
        .collect()
}

async fn sixteen_replicas_migrate_at_once(url: &str, name: &str) {
    let replicas = start_replicas(url, name);
    let failed: Vec<String> = replicas
        .iter()
        .filter(|r| r.code != 0 || !r.said.iter().any(|l| l.starts_with("DONE")))
        .map(|r| format!("{} (exit {}): {:?}", r.tag, r.code, r.said))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {REPLICAS} replicas did not start:\n{}",
        failed.len(),
        failed.join("\n")
    );

    let conn = Database::connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"));
    let backend = conn.get_database_backend();
    // An integer expression as a BIGINT, read the same on every database.
    let big = |expr: &str| match backend {
        DbBackend::Postgres => format!("CAST({expr} AS BIGINT)"),
        DbBackend::MySql => format!("CAST({expr} AS SIGNED)"),
        _ => expr.to_owned(),
    };
    // Every table, once.
    for table in [
        "flakeid_nodes",
        "flakeid_segments",
        "events",
        "seaql_migrations",
        "__diesel_schema_migrations",
    ] {
        let sql = match backend {
            DbBackend::Postgres => format!(
                "SELECT {} FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_name = '{table}'",
                big("COUNT(*)")
            ),
            DbBackend::MySql => format!(
                "SELECT {} FROM information_schema.tables \
                 WHERE table_schema = DATABASE() AND table_name = '{table}'",
                big("COUNT(*)")
            ),
            _ => format!(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '{table}'"
            ),
        };
        assert_eq!(column::<i64>(&conn, &sql).await, [1], "{table}");
    }
    // Each runner recorded each of its versions once.
    let versions = |table: &str| format!("SELECT version FROM {table} ORDER BY version");
    assert_eq!(
        column::<String>(&conn, &versions("seaql_migrations")).await,
        [
            "m00000000_000001_create_flakeid_nodes",
            "m00000000_000002_create_flakeid_segments",
            "m20240101_000001_create_events",
        ]
    );
    assert_eq!(
        column::<String>(&conn, &versions("__diesel_schema_migrations")).await,
        ["00000000000001", "00000000000002", "20240101000001"]
    );
    // Every replica's rows, no key twice.
    let rows = column::<i64>(&conn, &format!("SELECT {} FROM events", big("COUNT(*)"))).await[0];
    let distinct = column::<i64>(
        &conn,
        &format!("SELECT {} FROM events", big("COUNT(DISTINCT id)")),
    )
    .await[0];
    let per_worker = column::<i64>(
        &conn,
        &format!(
            "SELECT {} FROM events GROUP BY worker ORDER BY worker",
            big("COUNT(*)")
        ),
    )
    .await;
    println!(
        "migrations at start-up, {name}: {REPLICAS} replicas x {ROWS} rows, {rows} stored, {} duplicate keys",
        rows - distinct
    );
    assert_eq!(per_worker, vec![ROWS; usize::try_from(REPLICAS).unwrap()]);
    assert_eq!(rows, ROWS * i64::try_from(REPLICAS).unwrap());
    assert_eq!(distinct, rows, "duplicate keys");
}

tests_of! {
    sixteen_replicas_migrate_at_once:
        postgres_sixteen_replicas_run_migrations_at_once(On::Postgres, "pg-migrate");
        mariadb_sixteen_replicas_run_migrations_at_once(On::MariaDb, "my-migrate");
        sqlite_sixteen_replicas_run_migrations_at_once(On::Sqlite("lite-migrate"), "lite-migrate");
}

/// How long the waiting side waits for the lock in these tests.
const WAIT: Duration = Duration::from_millis(500);

/// An empty run through Diesel's runner, on a connection of its own.
fn diesel_run(url: &str, lock: &MigrationLock) -> Result<(), MigrationError> {
    diesel_run_while(url, lock, || ())
}

/// An empty run through SeaORM's runner, on a pool of its own.
async fn seaorm_run(url: &str, lock: &MigrationLock) -> Result<(), sea_orm::DbErr> {
    let db = Database::connect(url).await.expect("connect");
    flakeid_seaorm::migration::run(&db, lock, async |_| Ok(())).await
}

/// The run gave up on the lock `bounded` of `database`, started at
/// `started`: the wait was the lock's, at least `WAIT`, and it ended (the
/// bound is generous: SQLite's attempts through sqlx each wait the
/// connection's busy timeout, 5 s).
fn assert_timed_out(timeout: &MigrationLockTimeout, database: &str, started: Instant) {
    assert_eq!(timeout.database, database);
    assert_eq!(timeout.lock, "bounded");
    let (elapsed, waited) = (started.elapsed(), timeout.waited);
    assert!(waited >= WAIT, "gave up after {waited:?}");
    assert!(
        elapsed >= WAIT && elapsed < WAIT + Duration::from_secs(30),
        "{elapsed:?}"
    );
}

async fn one_lock_for_both_orms(url: &str, database: &str) {
    let lock = MigrationLock::named("bounded").wait(WAIT);

    // SeaORM holds the lock: Diesel waits for it, then gives up.
    let db = Database::connect(url).await.expect("connect");
    flakeid_seaorm::migration::run(&db, &lock, async |_| {
        let (url, lock) = (url.to_owned(), lock.clone());
        let started = Instant::now();
        let held = tokio::task::spawn_blocking(move || diesel_run(&url, &lock))
            .await
            .expect("the Diesel run ends");
        match held {
            Err(MigrationError::Lock(timeout)) => assert_timed_out(&timeout, database, started),
            other => panic!("expected MigrationError::Lock, got {other:?}"),
        }
        Ok(())
    })
    .await
    .expect("SeaORM's run");

    // Diesel holds it: SeaORM waits for it, then gives up.
    let runtime = tokio::runtime::Handle::current();
    let (url_d, lock_d) = (url.to_owned(), lock.clone());
    let database = database.to_owned();
    tokio::task::spawn_blocking(move || {
        let (url, lock) = (url_d.clone(), lock_d.clone());
        diesel_run_while(&url_d, &lock_d, move || {
            let started = Instant::now();
            let err = runtime
                .block_on(seaorm_run(&url, &lock))
                .expect_err("the lock is held");
            match flakeid_seaorm::Error::find(&err) {
                Some(flakeid_seaorm::Error::MigrationLock(timeout)) => {
                    assert_timed_out(timeout, &database, started);
                }
                other => panic!("expected Error::MigrationLock, got {other:?} from {err}"),
            }
        })
    })
    .await
    .expect("the Diesel run ends")
    .expect("Diesel's run");

    // Released by both: each takes it at once.
    seaorm_run(url, &lock).await.expect("free again");
    let (url, lock) = (url.to_owned(), lock.clone());
    tokio::task::spawn_blocking(move || diesel_run(&url, &lock))
        .await
        .expect("the Diesel run ends")
        .expect("free again");
}

/// [`diesel_run`], running `inside` while it holds the lock.
fn diesel_run_while(
    url: &str,
    lock: &MigrationLock,
    inside: impl FnOnce(),
) -> Result<(), MigrationError> {
    fn on<C>(mut conn: C, lock: &MigrationLock, inside: impl FnOnce()) -> Result<(), MigrationError>
    where
        C: diesel::Connection<TransactionManager = AnsiTransactionManager> + LoadConnection,
        C::Backend: DieselBackend,
    {
        flakeid_diesel::migration::run(&mut conn, lock, |_| {
            inside();
            Ok::<_, std::convert::Infallible>(())
        })
    }
    if url.starts_with("postgres") {
        on(
            diesel::PgConnection::establish(url).expect("connect"),
            lock,
            inside,
        )
    } else if url.starts_with("mysql") {
        on(
            diesel::MysqlConnection::establish(url).expect("connect"),
            lock,
            inside,
        )
    } else {
        on(
            diesel::SqliteConnection::establish(&sqlite_path(url)).expect("connect"),
            lock,
            inside,
        )
    }
}

tests_of! {
    one_lock_for_both_orms:
        postgres_one_lock_for_both_orms_and_a_bounded_wait(On::Postgres, "PostgreSQL");
        mariadb_one_lock_for_both_orms_and_a_bounded_wait(On::MariaDb, "MySQL/MariaDB");
        sqlite_one_lock_for_both_orms_and_a_bounded_wait(On::Sqlite("lite-lock"), "SQLite");
}
