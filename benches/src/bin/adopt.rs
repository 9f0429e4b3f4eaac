//! The switch of existing tables from auto-increment keys to flake keys
//! (`flakeid_adopt`) on 1,000,000 rows per database: how long the
//! migration takes (rows/s), and how long a writer inserting meanwhile
//! waits.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin adopt -- [--rows N] [--quick]
//!   --rows N   rows of users + posts + comments (20 % / 30 % / 50 %), default 1000000
//!   --quick    3,000 rows: the smoke test's size
//!   --only D   one database: postgres, postgres18, mariadb or sqlite
//! ```
//!
//! Servers of their own (PostgreSQL 15 and 18, MariaDB: the images of
//! `FLAKEID_TEST_POSTGRES_IMAGE`, `FLAKEID_TEST_POSTGRES18_IMAGE`,
//! `FLAKEID_TEST_MYSQL_IMAGE`, with their default settings) and a SQLite
//! file in the temporary directory. Per database, the tables of
//! `flakeid_tests::adopt` with mixed 32/64-bit keys (the switch rewrites
//! the tables whose columns widen) and with 64-bit keys already (it does
//! not); SQLite rebuilds the tables either way, so it runs once. The
//! migration is the plan's statements on one connection, the ID function
//! as the keys' default on PostgreSQL and MariaDB. One writer inserts rows
//! into `users` with plain SQL (the default key) on a connection of its own
//! (on SQLite, into a table of its own, 1 ms apart: SQLite has one writer
//! per database, and one that never pauses keeps every other out) from
//! before the migration starts until after it ends; "longest insert"
//! is its slowest insert, the time it was blocked. Each run prints a
//! `RESULT` line, then the table.
//!
//! On MariaDB, the insert that was waiting for the migration's table locks
//! can fail once with error 1305 (`FUNCTION … flakeid_next_id does not
//! exist`), though the function was created before the trigger that calls
//! it: seen in about one run in eight, with sqlx's session settings (`SET
//! NAMES utf8mb4 COLLATE utf8mb4_unicode_ci`) and not with the `mariadb`
//! client's. The writer counts such a refusal (`writer_refused` in the
//! `RESULT` line) and goes on; any other error ends the run.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use flakeid_adopt::Adoption;
use flakeid_benches::args::parse;
use flakeid_core::layout::presets;
use flakeid_id_function::IdFunction;
use flakeid_seaorm::SeaOrmExecutor;
use flakeid_tests::adopt::{Keys, Kind, Sql, create_schema};
use flakeid_tests::db::{DedicatedServer, ServerKind};

/// One run's numbers.
struct Measured {
    database: String,
    keys: &'static str,
    rows: u64,
    migration: Duration,
    inserts: u64,
    longest: Duration,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let mut rows: u64 = 1_000_000;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => rows = 3_000,
            "--only" => match args.next() {
                Some(d)
                    if ["postgres", "postgres18", "mariadb", "sqlite"].contains(&d.as_str()) =>
                {
                    only = Some(d);
                }
                other => {
                    return usage(&format!(
                        "--only takes postgres, postgres18, mariadb or sqlite, not {other:?}"
                    ));
                }
            },
            "--rows" => match parse::<u64>("--rows", args.next()) {
                Ok(n) if n >= 10 => rows = n,
                Ok(n) => return usage(&format!("--rows: {n} rows, fewer than 10")),
                Err(e) => return usage(&e.to_string()),
            },
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    match run(rows, only.as_deref()).await {
        Ok(results) => {
            print_table(&results);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}\nusage: adopt [--rows N] [--quick]");
    ExitCode::from(2)
}

async fn run(rows: u64, only: Option<&str>) -> Result<Vec<Measured>, String> {
    let runs = |name: &str| only.is_none_or(|o| o == name);
    let split = |share: u64| u32::try_from(rows * share / 100).unwrap_or(u32::MAX).max(1);
    let counts = (split(20), split(30), split(50));
    let total = u64::from(counts.0) + u64::from(counts.1) + u64::from(counts.2);
    let mut results = Vec::new();
    for (kind, name) in [
        (ServerKind::Postgres, "postgres"),
        (ServerKind::Postgres18, "postgres18"),
        (ServerKind::MySql, "mariadb"),
    ] {
        if !runs(name) {
            continue;
        }
        let server = DedicatedServer::start(kind, &[]).await?;
        let version = server.version().to_owned();
        let db_kind = match kind {
            ServerKind::MySql => Kind::MySql,
            _ => Kind::Postgres,
        };
        for (n, keys) in [Keys::Mixed, Keys::Wide].into_iter().enumerate() {
            let url = server.create_database(&format!("adopt_bench_{n}")).await?;
            let m = measure(db_kind, &url, keys, counts).await?;
            results.push(report(short_version(&version), keys, total, m));
        }
        server.stop().await?;
    }
    if !runs("sqlite") {
        return Ok(results);
    }
    let file = std::env::temp_dir().join(format!("flakeid-adopt-bench-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let url = format!("sqlite://{}?mode=rwc", file.display());
    let version = format!("SQLite {}", sqlite_version(&url).await);
    let m = measure(Kind::Sqlite, &url, Keys::Mixed, counts).await;
    let _ = std::fs::remove_file(&file);
    results.push(report(version, Keys::Mixed, total, m?));
    Ok(results)
}

/// `PostgreSQL 15.18` / `MariaDB 10.11.18` / `MySQL 8.4.0` from
/// `SELECT version()`.
fn short_version(version: &str) -> String {
    let words: Vec<&str> = version.split_whitespace().collect();
    match words.as_slice() {
        ["PostgreSQL", v, ..] => format!("PostgreSQL {v}"),
        [v, ..] if v.contains("MariaDB") => {
            format!("MariaDB {}", v.split('-').next().unwrap_or(v))
        }
        [v, ..] => format!("MySQL {v}"),
        [] => version.to_owned(),
    }
}

async fn sqlite_version(url: &str) -> String {
    let mut sql = Sql::connect(Kind::Sqlite, url).await;
    sql.text("SELECT sqlite_version()")
        .await
        .unwrap_or_default()
}

/// The measurements of one run: (migration, writer's inserts during it,
/// writer's longest insert, writer's inserts refused with MariaDB's 1305).
type Times = (Duration, u64, Duration, u64);

async fn measure(
    kind: Kind,
    url: &str,
    keys: Keys,
    counts: (u32, u32, u32),
) -> Result<Times, String> {
    let mut sql = match kind {
        Kind::Sqlite => Sql::Lite(sqlite_waiting(url).await?),
        _ => Sql::connect(kind, url).await,
    };
    create_schema(&mut sql, kind, keys, counts).await;
    let dialect = kind.dialect();
    let mut adoption = Adoption::new(dialect, presets::twitter())
        .table("users", "id")
        .table("posts", "id")
        .table("comments", "id");
    if kind != Kind::Sqlite {
        adoption =
            adoption.id_function(IdFunction::new(dialect, "bench", presets::twitter(), 1000));
    }
    let db = sea_orm::Database::connect(url)
        .await
        .map_err(|e| e.to_string())?;
    let catalog = adoption
        .read_catalog(&SeaOrmExecutor::new(db))
        .await
        .map_err(|e| e.to_string())?;
    let plan = adoption
        .plan(&catalog, SystemTime::now())
        .map_err(|e| e.to_string())?;
    if kind == Kind::Sqlite {
        sql.ok("CREATE TABLE writer_log (n INTEGER NOT NULL)").await;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicBool::new(false));
    let writer = tokio::spawn(write(kind, url.to_owned(), stop.clone(), started.clone()));
    while !started.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t0 = Instant::now();
    if kind == Kind::Sqlite {
        // As the crates' migration runners do: the write lock first, so
        // that the savepoint's read does not meet the writer's commits.
        sql.run("BEGIN IMMEDIATE").await?;
        sql.all(plan.up())
            .await
            .map_err(|e| format!("the migration: {e}"))?;
        sql.run("COMMIT").await?;
    } else {
        sql.all(plan.up())
            .await
            .map_err(|e| format!("the migration: {e}"))?;
    }
    let migration = t0.elapsed();
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.store(true, Ordering::Relaxed);
    let (inserts, refused) = writer.await.map_err(|e| e.to_string())??;
    let during = inserts
        .iter()
        .filter(|(at, took)| *at + *took >= t0 && *at <= t0 + migration)
        .count() as u64;
    let longest = inserts
        .iter()
        .map(|(_, took)| *took)
        .max()
        .unwrap_or_default();
    Ok((migration, during, longest, refused))
}

/// Inserts rows one by one until `stop`: when each started and how long it
/// took, and how many MariaDB refused with error 1305 (see the module's
/// documentation).
async fn write(
    kind: Kind,
    url: String,
    stop: Arc<AtomicBool>,
    started: Arc<AtomicBool>,
) -> Result<(Vec<(Instant, Duration)>, u64), String> {
    let mut sql = match kind {
        Kind::Sqlite => Sql::Lite(sqlite_waiting(&url).await?),
        _ => Sql::connect(kind, &url).await,
    };
    let insert = match kind {
        Kind::Sqlite => "INSERT INTO writer_log (n) VALUES (1)",
        _ => "INSERT INTO users (name) VALUES ('writer')",
    };
    let mut times = Vec::new();
    let mut refused = 0;
    started.store(true, Ordering::Relaxed);
    while !stop.load(Ordering::Relaxed) {
        let at = Instant::now();
        match sql.run(insert).await {
            Ok(()) => times.push((at, at.elapsed())),
            Err(e) if kind.refused_waiting_insert(&e) => {
                eprintln!("the writer's insert {}: {e}", times.len() + 1);
                refused += 1;
            }
            Err(e) => return Err(format!("the writer's insert {}: {e}", times.len() + 1)),
        }
        if kind == Kind::Sqlite {
            // SQLite's busy handler polls: a writer that takes the one write
            // lock again at once keeps the migration's `BEGIN IMMEDIATE`
            // out for as long as it writes (over 5 s on a loaded machine).
            tokio::time::sleep(WRITER_PAUSE_ON_SQLITE).await;
        }
    }
    Ok((times, refused))
}

/// The SQLite writer's pause between two inserts.
const WRITER_PAUSE_ON_SQLITE: Duration = Duration::from_millis(1);

/// A SQLite connection that waits for the write lock as long as a run may
/// take (sqlx's default busy timeout is 5 s).
async fn sqlite_waiting(url: &str) -> Result<sqlx::SqliteConnection, String> {
    use sqlx::ConnectOptions as _;
    use std::str::FromStr as _;
    sqlx::sqlite::SqliteConnectOptions::from_str(url)
        .map_err(|e| e.to_string())?
        .busy_timeout(Duration::from_secs(600))
        .connect()
        .await
        .map_err(|e| e.to_string())
}

fn report(
    database: String,
    keys: Keys,
    rows: u64,
    (migration, inserts, longest, refused): Times,
) -> Measured {
    let keys = match keys {
        Keys::Mixed => "mixed 32/64-bit",
        Keys::Wide => "64-bit",
    };
    println!(
        "RESULT database={:?} keys={:?} rows={rows} migration_ms={:.1} rows_per_s={:.0} \
         writer_inserts={inserts} longest_insert_ms={:.1} writer_refused={refused}",
        database,
        keys,
        migration.as_secs_f64() * 1e3,
        rows as f64 / migration.as_secs_f64(),
        longest.as_secs_f64() * 1e3,
    );
    Measured {
        database,
        keys,
        rows,
        migration,
        inserts,
        longest,
    }
}

fn print_table(results: &[Measured]) {
    println!();
    println!(
        "| database | keys before | rows | migration | rows/s | writer's inserts during it | writer's longest insert |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    for m in results {
        println!(
            "| {} | {} | {} | {:.2} s | {:.0} | {} | {:.0} ms |",
            m.database,
            m.keys,
            m.rows,
            m.migration.as_secs_f64(),
            m.rows as f64 / m.migration.as_secs_f64(),
            m.inserts,
            m.longest.as_secs_f64() * 1e3
        );
    }
}
