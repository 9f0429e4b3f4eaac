//! The second PostgreSQL server: PostgreSQL 18 (native `uuidv7()`), how
//! `FLAKEID_TEST_POSTGRES_SERVER` points `db::postgres()` at it, and the
//! log that tells `scripts/test.sh` which tests to run on it.

use std::process::{Command, Output};

use flakeid_tests::db::{self, Backend, POSTGRES_SERVER_VAR, POSTGRES_TESTS_LOG_VAR, ServerKind};
use sqlx::postgres::PgPool;

use crate::support::output_and_text;

/// Set in the child processes these tests start, to the fixture call to make.
const CHILD_VAR: &str = "FLAKEID_TESTS_POSTGRES18_CHILD";

#[tokio::test]
async fn postgres18_is_postgresql_18_with_native_uuidv7() -> Result<(), sqlx::Error> {
    let db = db::postgres18().await;
    assert_eq!(db.backend(), Backend::Postgres);
    assert_eq!(db.server_kind(), ServerKind::Postgres18);
    let pool = PgPool::connect(db.url()).await?;
    let num: String = sqlx::query_scalar("SHOW server_version_num")
        .fetch_one(&pool)
        .await?;
    let num: i64 = num
        .parse()
        .map_err(|e| sqlx::Error::Protocol(format!("{num}: {e}")))?;
    assert!(num >= 180_000, "server_version_num {num}");
    assert!(
        db.server_version().starts_with("PostgreSQL 18"),
        "{}",
        db.server_version()
    );

    // A key the server assigns with uuidv7(): stored as version-7 UUIDs in time order.
    sqlx::query("CREATE TABLE t (id UUID PRIMARY KEY DEFAULT uuidv7(), n INT NOT NULL)")
        .execute(&pool)
        .await?;
    for n in 0..3 {
        sqlx::query("INSERT INTO t (n) VALUES ($1)")
            .bind(n)
            .execute(&pool)
            .await?;
    }
    let (rows, v7, ordered): (i64, i64, bool) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE uuid_extract_version(id) = 7), \
         array_agg(n ORDER BY id) = ARRAY[0, 1, 2] FROM t",
    )
    .fetch_one(&pool)
    .await?;
    assert_eq!((rows, v7, ordered), (3, 3, true));
    Ok(())
}

/// Runs this test binary again, only the calling test, with `env`, and
/// returns what it printed.
fn run_child(which: &str, env: &[(&str, &str)]) -> (Output, String) {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current test binary: {e}"));
    let test = std::thread::current()
        .name()
        .unwrap_or_else(|| panic!("libtest names test threads"))
        .to_owned();
    let mut cmd = Command::new(&exe);
    cmd.args(["--exact", &test, "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, which)
        .env_remove(POSTGRES_SERVER_VAR)
        .env_remove(POSTGRES_TESTS_LOG_VAR);
    for (k, v) in env {
        cmd.env(k, v);
    }
    output_and_text(&mut cmd)
}

/// In a child process: calls the fixture named by `CHILD_VAR` and prints
/// what it got. Returns whether this is such a child.
fn child_part() -> bool {
    let Ok(which) = std::env::var(CHILD_VAR) else {
        return false;
    };
    let db = match which.as_str() {
        "postgres" => db::postgres_blocking(),
        "postgres18" => db::postgres18_blocking(),
        other => panic!("unknown fixture {other}"),
    };
    println!(
        "CHILD GOT {:?} {} {}",
        db.server_kind(),
        db.name(),
        db.server_version()
    );
    true
}

#[test]
fn the_server_variable_points_postgres_at_postgres18() {
    if child_part() {
        return;
    }
    let (out, text) = run_child("postgres", &[(POSTGRES_SERVER_VAR, "18")]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("CHILD GOT Postgres18 "), "{text}");
    assert!(text.contains(" PostgreSQL 18"), "{text}");

    let (out, text) = run_child("postgres", &[(POSTGRES_SERVER_VAR, "default")]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("CHILD GOT Postgres "), "{text}");
}

#[test]
fn an_unknown_server_value_fails_naming_the_variable_and_value() {
    if child_part() {
        return;
    }
    let (out, text) = run_child("postgres", &[(POSTGRES_SERVER_VAR, "16")]);
    assert!(!out.status.success(), "must fail:\n{text}");
    assert!(
        text.contains("1 failed"),
        "the child test fails, not skips:\n{text}"
    );
    assert!(!text.contains("CHILD GOT"), "{text}");
    assert!(
        text.contains("FLAKEID_TEST_POSTGRES_SERVER=\"16\""),
        "names variable and value:\n{text}"
    );
}

#[test]
fn postgres18_refuses_an_older_server() {
    if child_part() {
        return;
    }
    // The main PostgreSQL image posing as the PostgreSQL 18 one.
    let older = ServerKind::Postgres.image();
    let (out, text) = run_child(
        "postgres18",
        &[
            ("FLAKEID_TEST_POSTGRES18_IMAGE", older.as_str()),
            ("FLAKEID_TEST_POSTGRES18_URL", ""),
        ],
    );
    if text.contains("CHILD GOT Postgres18") && text.contains(" PostgreSQL 18") {
        // FLAKEID_TEST_POSTGRES_IMAGE itself runs 18: nothing older to refuse here.
        assert!(out.status.success(), "{text}");
        return;
    }
    assert!(!out.status.success(), "must fail:\n{text}");
    assert!(text.contains("1 failed"), "{text}");
    for hint in [
        "not 18 or later",
        "FLAKEID_TEST_POSTGRES18_IMAGE",
        older.as_str(),
    ] {
        assert!(text.contains(hint), "message lacks {hint:?}:\n{text}");
    }
}

#[test]
fn postgres_logs_each_caller_for_the_postgres18_pass() {
    if child_part() {
        return;
    }
    let log = std::env::temp_dir().join(format!("flakeid-pg-log-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let log_path = log.to_string_lossy().into_owned();
    for _ in 0..2 {
        let (out, text) = run_child("postgres", &[(POSTGRES_TESTS_LOG_VAR, log_path.as_str())]);
        assert!(out.status.success(), "{text}");
    }
    // postgres18() is not logged: it already runs on PostgreSQL 18.
    let (out, text) = run_child("postgres18", &[(POSTGRES_TESTS_LOG_VAR, log_path.as_str())]);
    assert!(out.status.success(), "{text}");

    let written = std::fs::read_to_string(&log)
        .unwrap_or_else(|e| panic!("{} was not written: {e}", log.display()));
    let _ = std::fs::remove_file(&log);
    let test = std::thread::current().name().unwrap_or_default().to_owned();
    // This binary is the test target `all`.
    let line = format!("flakeid-tests\tall\t{test}");
    assert_eq!(
        written.lines().collect::<Vec<_>>(),
        [line.as_str(), line.as_str()]
    );
}
