//! The database fixtures themselves: servers answer, 64-bit integers survive
//! the round trip exactly, tests are isolated, and a missing server fails.

use std::process::Command;
use std::sync::Arc;

use flakeid_tests::db::{self, Backend, TestDb};
use sqlx::mysql::MySqlPool;
use sqlx::postgres::PgPool;
use sqlx::{Connection as _, Row as _};
use tokio::sync::Barrier;

use crate::support::{output_and_text, test_name};

/// Values a JavaScript number or a sloppy driver would corrupt.
const SIGNED: [i64; 3] = [1, (1 << 53) + 1, i64::MAX];

/// A test per case: `values` (of type `ty`) stored in a `column` column of
/// a fresh table on the server `connect` gives, read back exactly as `ty`
/// and as text, then compared inside the database against literals: the
/// condition `exact` on `v` holds for `count` rows.
macro_rules! bigint_round_trips {
    ($($name:ident: $connect:path, $pool:ty, $column:literal, $ty:ty,
        $values:expr, $exact:literal => $count:literal;)*) => {$(
        #[tokio::test]
        async fn $name() -> Result<(), sqlx::Error> {
            let db = $connect().await;
            let pool = <$pool>::connect(db.url()).await?;
            let values = $values;
            let (insert, select) = match db.backend() {
                Backend::Postgres => (
                    "INSERT INTO ids (k, v) VALUES ($1, $2)",
                    "SELECT v, CAST(v AS TEXT) AS s FROM ids ORDER BY k",
                ),
                Backend::MySql => (
                    "INSERT INTO ids (k, v) VALUES (?, ?)",
                    "SELECT v, CAST(v AS CHAR) AS s FROM ids ORDER BY k",
                ),
            };
            let create = concat!("CREATE TABLE ids (k INT PRIMARY KEY, v ", $column, " NOT NULL)");
            sqlx::query(create).execute(&pool).await?;
            for (k, v) in (0i32..).zip(values) {
                sqlx::query(insert).bind(k).bind(v).execute(&pool).await?;
            }
            let rows = sqlx::query(select).fetch_all(&pool).await?;
            assert_eq!(rows.len(), values.len());
            for (row, expected) in rows.iter().zip(values) {
                assert_eq!(row.try_get::<$ty, _>("v")?, expected);
                assert_eq!(row.try_get::<String, _>("s")?, expected.to_string());
            }
            let exact: i64 = sqlx::query_scalar(concat!("SELECT COUNT(*) FROM ids WHERE ", $exact))
                .fetch_one(&pool)
                .await?;
            assert_eq!(exact, $count);
            Ok(())
        }
    )*};
}

#[tokio::test]
async fn both_servers_answer_and_report_versions() -> Result<(), sqlx::Error> {
    let pg = db::postgres().await;
    let my = db::mysql().await;
    let pool = PgPool::connect(pg.url()).await?;
    let (one, database): (i32, String) = sqlx::query_as("SELECT 1, current_database()")
        .fetch_one(&pool)
        .await?;
    assert_eq!((one, database.as_str()), (1, pg.name()));
    assert!(
        pg.server_version().starts_with("PostgreSQL"),
        "{}",
        pg.server_version()
    );
    assert_eq!(pg.backend(), Backend::Postgres);
    assert!(!pg.is_mariadb());

    let pool = MySqlPool::connect(my.url()).await?;
    let (one, database): (i64, String) = sqlx::query_as("SELECT 1, DATABASE()")
        .fetch_one(&pool)
        .await?;
    assert_eq!((one, database.as_str()), (1, my.name()));
    let version: String = sqlx::query_scalar("SELECT VERSION()")
        .fetch_one(&pool)
        .await?;
    assert_eq!(version, my.server_version());
    assert_eq!(my.backend(), Backend::MySql);
    println!("PostgreSQL: {}", pg.server_version());
    println!(
        "MySQL-family: {} (MariaDB: {})",
        my.server_version(),
        my.is_mariadb()
    );
    Ok(())
}

bigint_round_trips! {
    postgres_bigint_round_trips_exactly: db::postgres, PgPool, "BIGINT", i64, SIGNED,
        "v IN (1, 9007199254740993, 9223372036854775807)" => 3;
    mysql_bigint_round_trips_exactly: db::mysql, MySqlPool, "BIGINT", i64, SIGNED,
        "v IN (1, 9007199254740993, 9223372036854775807)" => 3;
    mysql_bigint_unsigned_round_trips_u64_max: db::mysql, MySqlPool, "BIGINT UNSIGNED", u64,
        [1u64, (1 << 63) + 1, u64::MAX], "v = 18446744073709551615" => 1;
}

/// Two tests at the same time, each with a table `t`: each sees only its rows.
#[tokio::test]
async fn concurrent_tests_do_not_see_each_other() -> Result<(), sqlx::Error> {
    let barrier = Arc::new(Barrier::new(4));
    let mut tasks = Vec::new();
    for (rows, postgres) in [(3i64, true), (5, true), (2, false), (7, false)] {
        let barrier = Arc::clone(&barrier);
        tasks.push(tokio::spawn(async move {
            let db = if postgres {
                db::postgres().await
            } else {
                db::mysql().await
            };
            let count = fill_and_count(&db, rows, &barrier).await?;
            Ok::<_, sqlx::Error>((db.name().to_owned(), rows, count))
        }));
    }
    let mut names = Vec::new();
    for task in tasks {
        let (name, rows, count) = task
            .await
            .map_err(|e| sqlx::Error::Protocol(e.to_string()))??;
        assert_eq!(
            count, rows,
            "database {name} sees rows that are not its own"
        );
        names.push(name);
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 4, "every call gets its own database");
    Ok(())
}

/// Creates table `t` with `rows` rows, waits until every task has done the
/// same, then counts.
async fn fill_and_count(db: &TestDb, rows: i64, barrier: &Barrier) -> Result<i64, sqlx::Error> {
    /// The same on a connection of type `$conn`, inserting with `$insert`.
    macro_rules! on {
        ($conn:ty, $insert:literal) => {{
            let mut conn = <$conn>::connect(db.url()).await?;
            sqlx::query("CREATE TABLE t (id BIGINT PRIMARY KEY)")
                .execute(&mut conn)
                .await?;
            for id in 0..rows {
                sqlx::query($insert).bind(id).execute(&mut conn).await?;
            }
            barrier.wait().await;
            sqlx::query_scalar("SELECT COUNT(*) FROM t")
                .fetch_one(&mut conn)
                .await
        }};
    }
    match db.backend() {
        Backend::Postgres => on!(sqlx::PgConnection, "INSERT INTO t (id) VALUES ($1)"),
        Backend::MySql => on!(sqlx::MySqlConnection, "INSERT INTO t (id) VALUES (?)"),
    }
}

/// The blocking fixtures hand out distinct, working databases too.
#[test]
fn blocking_fixtures_work_in_sync_tests() -> Result<(), sqlx::Error> {
    let pg = db::postgres_blocking();
    let my = db::mysql_blocking();
    let again = db::postgres_blocking();
    assert_ne!(pg.name(), again.name());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let mut conn = sqlx::PgConnection::connect(pg.url()).await?;
        let name: String = sqlx::query_scalar("SELECT current_database()")
            .fetch_one(&mut conn)
            .await?;
        assert_eq!(name, pg.name());
        let mut conn = sqlx::MySqlConnection::connect(my.url()).await?;
        let name: String = sqlx::query_scalar("SELECT DATABASE()")
            .fetch_one(&mut conn)
            .await?;
        assert_eq!(name, my.name());
        Ok(())
    })
}

const CHILD_VAR: &str = "FLAKEID_TESTS_NO_ENGINE_CHILD";

/// Without a container engine and without a URL, every fixture fails loudly
/// with instructions. Runs the fixtures in a child process of this test
/// binary whose `DOCKER_HOST` points nowhere.
#[test]
fn no_engine_and_no_url_fails_loudly() {
    if let Ok(which) = std::env::var(CHILD_VAR) {
        // Child process: this must panic.
        let db = match which.as_str() {
            "postgres" => tokio::runtime::Runtime::new().map(|rt| rt.block_on(db::postgres())),
            "mysql" => Ok(db::mysql_blocking()),
            other => panic!("unknown fixture {other}"),
        };
        println!("UNEXPECTED: got a database: {db:?}");
        return;
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current test binary: {e}"));
    for (which, url_var) in [
        ("postgres", "FLAKEID_TEST_POSTGRES_URL"),
        ("mysql", "FLAKEID_TEST_MYSQL_URL"),
    ] {
        let (out, text) = output_and_text(
            Command::new(&exe)
                .args([
                    "--exact",
                    &test_name(module_path!(), "no_engine_and_no_url_fails_loudly"),
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_VAR, which)
                .env("DOCKER_HOST", "unix:///nonexistent/flakeid-no-docker.sock")
                .env_remove("FLAKEID_TEST_POSTGRES_URL")
                .env_remove("FLAKEID_TEST_MYSQL_URL"),
        );
        assert!(
            !out.status.success(),
            "{which}: the fixture must fail without an engine:\n{text}"
        );
        assert!(
            text.contains("1 failed"),
            "{which}: the child test must fail, not pass or skip:\n{text}"
        );
        assert!(!text.contains("UNEXPECTED"), "{which}:\n{text}");
        for hint in [
            "no ",
            "server available",
            "./scripts/test.sh",
            "start Docker",
            url_var,
        ] {
            assert!(
                text.contains(hint),
                "{which}: message lacks {hint:?}:\n{text}"
            );
        }
    }
}
