//! The time-range benchmark (`--bin time_range`): "rows created between t0
//! and t1" as a range of the primary key (`id BETWEEN lo AND hi`, the
//! bounds of
//! [`FlakeId::time_bounds`](flakeid_core::FlakeId::time_bounds)) against
//! the same rows through an index on a `created_at` column, on one table
//! of PostgreSQL and
//! MariaDB/MySQL, and the bytes that `created_at` index takes.
//!
//! The table holds `rows` rows whose keys generators on a manual clock
//! issued one millisecond apart on average (four nodes), each with
//! `created_at` = its key's decoded time (milliseconds) and a 64-character
//! body. Every query fetches `id` and `body` of the rows of a window of
//! `width` (1 s, 10 s, 100 s) at a pseudo-random place; each window runs
//! both ways, alternating which goes first, after one untimed pass of
//! every query. Both ways must return the same rows, or the run fails.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use flakeid_core::encoding::format_rfc3339;
use flakeid_core::layout::presets;
use flakeid_core::{Generator, ManualClock};
use sqlx::{AssertSqlSafe, Connection as _, Row as _};

use crate::db::DbBenchError;
use crate::db::config::Server;
use crate::db::schema::ItemId;
use crate::measure::median;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Rows in the table.
    pub rows: usize,
    /// Rounds; cells are medians.
    pub rounds: usize,
    /// Window widths and how many windows of each a round queries.
    pub windows: Vec<(Duration, usize)>,
    /// Servers.
    pub servers: Vec<Server>,
}

impl Config {
    /// The table of `BENCHMARKS.md`: 1,000,000 rows, 3 rounds, 50 windows
    /// of 1 s, 20 of 10 s, 5 of 100 s, on PostgreSQL and MariaDB/MySQL.
    pub fn full() -> Config {
        Config {
            rows: 1_000_000,
            rounds: 3,
            windows: widths([50, 20, 5]),
            servers: vec![Server::Postgres, Server::MySql],
        }
    }

    /// The smoke test: 20,000 rows, one round, 3 windows of each width.
    pub fn quick() -> Config {
        Config {
            rows: 20_000,
            rounds: 1,
            windows: widths([3, 3, 3]),
            ..Config::full()
        }
    }

    /// `--quick`, `--rows N`, `--rounds N`, `--servers pg,pg18,mysql`.
    ///
    /// # Errors
    /// An unknown or malformed argument.
    pub fn from_args(args: &[String]) -> Result<Config, DbBenchError> {
        let mut cfg = if args.iter().any(|a| a == "--quick") {
            Config::quick()
        } else {
            Config::full()
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .cloned()
                    .ok_or_else(|| DbBenchError::Argument(format!("{name} needs a value")))
            };
            let number = |name: &str, v: String| {
                v.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                    DbBenchError::Argument(format!("{name} {v}: not a positive number"))
                })
            };
            match arg.as_str() {
                "--quick" => {}
                "--rows" => cfg.rows = number("--rows", value("--rows")?)?,
                "--rounds" => cfg.rounds = number("--rounds", value("--rounds")?)?,
                "--servers" => {
                    cfg.servers = value("--servers")?
                        .split(',')
                        .map(Server::parse)
                        .collect::<Result<_, _>>()?;
                }
                other => {
                    return Err(DbBenchError::Argument(format!(
                        "unknown argument {other:?}; expected --quick, --rows N, --rounds N, \
                         --servers pg,pg18,mysql"
                    )));
                }
            }
        }
        Ok(cfg)
    }

    /// Milliseconds of manual-clock time the rows were issued over (one
    /// row per millisecond on average).
    fn span_ms(&self) -> u64 {
        self.rows as u64
    }
}

/// What one server measured over the rounds.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Per width: rows per window (all windows of a round), and per round
    /// the seconds both ways took: `(rows, key seconds, created_at seconds)`.
    pub by_width: BTreeMap<Duration, (u64, Vec<f64>, Vec<f64>)>,
    /// Bytes of the table, its primary key and the `created_at` index.
    pub table_bytes: u64,
    /// Bytes of the primary key's index (InnoDB: the clustered index, which
    /// is the table).
    pub pk_bytes: u64,
    /// Bytes of the index on `created_at`.
    pub created_at_bytes: u64,
    /// The plan of each way, as the server explains a 10 s window.
    pub plans: (String, String),
    /// The server's version.
    pub version: String,
}

/// Loads the table on `server` (a fresh database at `url`), runs the
/// rounds and measures the indexes.
///
/// # Errors
/// SQL errors, or the two ways returning different rows.
pub async fn run_server(
    server: Server,
    url: &str,
    version: &str,
    cfg: &Config,
) -> Result<Measured, DbBenchError> {
    let rows = rows(cfg)?;
    let windows = windows(cfg)?;
    let mut measured = Measured {
        version: version.to_owned(),
        ..Measured::default()
    };
    if server.is_postgres() {
        let mut conn = sqlx::PgConnection::connect(url)
            .await
            .map_err(sql("connecting"))?;
        load_postgres(&mut conn, &rows).await?;
        run_rounds::<sqlx::Postgres>(
            &mut conn,
            cfg,
            &windows,
            ["$1", "$2"],
            "::timestamp",
            &mut measured,
        )
        .await?;
        measured.plans = (
            pg_plan(&mut conn, &windows, true).await?,
            pg_plan(&mut conn, &windows, false).await?,
        );
        let size = |rel: &str| format!("SELECT pg_relation_size('{rel}')");
        let mut read = async |rel: &str| scalar_u64::<sqlx::Postgres>(&mut conn, &size(rel)).await;
        measured.table_bytes = read(TABLE).await?;
        measured.pk_bytes = read("events_pkey").await?;
        measured.created_at_bytes = read(CREATED_AT_INDEX).await?;
    } else {
        let mut conn = sqlx::MySqlConnection::connect(url)
            .await
            .map_err(sql("connecting"))?;
        load_mysql(&mut conn, &rows).await?;
        run_rounds::<sqlx::MySql>(&mut conn, cfg, &windows, ["?", "?"], "", &mut measured).await?;
        measured.plans = (
            mysql_plan(&mut conn, &windows, true).await?,
            mysql_plan(&mut conn, &windows, false).await?,
        );
        let db: String = sqlx::query_scalar("SELECT DATABASE()")
            .fetch_one(&mut conn)
            .await
            .map_err(sql("naming the database"))?;
        let page =
            scalar_u64::<sqlx::MySql>(&mut conn, "SELECT CAST(@@innodb_page_size AS SIGNED)")
                .await?;
        let pages = |index: &str| {
            format!(
                "SELECT CAST(stat_value AS SIGNED) FROM mysql.innodb_index_stats \
                 WHERE database_name = '{db}' AND table_name = '{TABLE}' \
                 AND index_name = '{index}' AND stat_name = 'size'"
            )
        };
        let mut read =
            async |index: &str| scalar_u64::<sqlx::MySql>(&mut conn, &pages(index)).await;
        measured.pk_bytes = read("PRIMARY").await? * page;
        measured.table_bytes = measured.pk_bytes;
        measured.created_at_bytes = read(CREATED_AT_INDEX).await? * page;
    }
    Ok(measured)
}

/// The report for every server: `RESULT` lines, then the tables.
pub fn report(cfg: &Config, results: &[(Server, Measured)]) -> String {
    // (server, its version, width, rows per round, rows/s by key, by created_at)
    let mut cells = Vec::new();
    for (server, m) in results {
        for (width, (rows, key, time)) in &m.by_width {
            let per_sec =
                |secs: &[f64]| *rows as f64 / median(&mut secs.to_vec()).unwrap_or(f64::NAN);
            cells.push((
                *server,
                &m.version,
                *width,
                *rows,
                per_sec(key),
                per_sec(time),
            ));
        }
    }
    let mut out = String::new();
    for &(server, _, width, rows, key, time) in &cells {
        out.push_str(&format!(
            "RESULT server={} width_s={} rows={rows} key_rows_per_s={key:.0} \
             created_at_rows_per_s={time:.0} ratio={:.2}\n",
            server.name(),
            width.as_secs(),
            key / time,
        ));
    }
    for (server, m) in results {
        out.push_str(&format!(
            "INDEX server={} table_bytes={} pk_bytes={} created_at_bytes={}\n",
            server.name(),
            m.table_bytes,
            m.pk_bytes,
            m.created_at_bytes
        ));
    }
    out.push('\n');
    out.push_str(&format!(
        "{} rows, {} round(s) (medians), windows: {}.\n\n",
        cfg.rows,
        cfg.rounds,
        cfg.windows
            .iter()
            .map(|(w, n)| format!("{n} × {} s", w.as_secs()))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.push_str(
        "| server | window | rows per round | by key (rows/s) | by created_at (rows/s) | key ÷ created_at |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for &(_, version, width, rows, key, time) in &cells {
        out.push_str(&format!(
            "| {version} | {} s | {rows} | {key:.0} | {time:.0} | {:.2}× |\n",
            width.as_secs(),
            key / time
        ));
    }
    out.push_str(
        "\n| server | table | primary key | `created_at` index (saved by dropping it) | saved, of table + indexes |\n\
         |---|---:|---:|---:|---:|\n",
    );
    for (server, m) in results {
        let total = if server.is_postgres() {
            m.table_bytes + m.pk_bytes + m.created_at_bytes
        } else {
            // InnoDB's clustered primary key is the table.
            m.table_bytes + m.created_at_bytes
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} % |\n",
            m.version,
            mib(m.table_bytes),
            if server.is_postgres() {
                mib(m.pk_bytes)
            } else {
                "(the table)".to_owned()
            },
            mib(m.created_at_bytes),
            100.0 * m.created_at_bytes as f64 / total.max(1) as f64
        ));
    }
    out.push_str("\nPlans of a 10 s window:\n\n");
    for (_, m) in results {
        out.push_str(&format!(
            "- {}: by key: {}; by created_at: {}\n",
            m.version, m.plans.0, m.plans.1
        ));
    }
    out
}

/// 2025-03-01T00:00:00Z: the clock at the first row.
const START_MS: u64 = 1_740_787_200_000;
/// The table's name.
const TABLE: &str = "events";
/// The name of the index on `created_at`.
const CREATED_AT_INDEX: &str = "events_created_at";
/// Rows per `INSERT` on MySQL/MariaDB.
const ROWS_PER_INSERT: usize = 5_000;

/// One row: key, `created_at` (Unix ms), body.
#[derive(Debug, Clone)]
struct Row {
    id: i64,
    created_ms: u64,
}

/// The rows, in the order issued.
fn rows(cfg: &Config) -> Result<Vec<Row>, DbBenchError> {
    let layout = presets::twitter();
    let clock = Arc::new(ManualClock::new(START_MS - 1));
    let generators = [0, 1, 512, 1023]
        .into_iter()
        .map(|node| {
            Generator::builder(layout.clone(), node)
                .clock(Arc::clone(&clock))
                .build()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(cfg.rows);
    for i in 0..cfg.rows {
        let ms = START_MS + (i as u64) * cfg.span_ms() / cfg.rows as u64;
        clock.set(ms);
        let id = generators[i % generators.len()].next_id()?;
        out.push(Row {
            id: i64::try_from(id).unwrap_or(i64::MAX),
            created_ms: layout.timestamp_millis(id),
        });
    }
    Ok(out)
}

const BODY: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";

/// `2025-03-01 00:00:00.123`: a UTC time both servers read as a timestamp.
fn sql_time(ms: u64) -> String {
    let t = format_rfc3339(UNIX_EPOCH + Duration::from_millis(ms));
    t.replace('T', " ").trim_end_matches('Z').to_owned()
}

/// One window: the key bounds and the `created_at` bounds of the same rows.
#[derive(Debug, Clone)]
struct Window {
    width: Duration,
    ids: (i64, i64),
    /// `created_at >= from AND created_at < to`.
    times: (String, String),
}

/// The window widths of every run (1 s, 10 s, 100 s), each with how many
/// windows of it a round queries.
fn widths(counts: [usize; 3]) -> Vec<(Duration, usize)> {
    [1, 10, 100]
        .into_iter()
        .map(Duration::from_secs)
        .zip(counts)
        .collect()
}

/// The windows of a round, at the same pseudo-random places every round.
fn windows(cfg: &Config) -> Result<Vec<Window>, DbBenchError> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut out = Vec::new();
    for &(width, n) in &cfg.windows {
        let width_ms = u64::try_from(width.as_millis()).unwrap_or(u64::MAX);
        let room = cfg.span_ms().saturating_sub(width_ms).max(1);
        for _ in 0..n {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let from = START_MS + state % room;
            let t0 = UNIX_EPOCH + Duration::from_millis(from);
            let bounds = ItemId::time_bounds(t0..t0 + width)
                .map_err(|e| DbBenchError::Argument(format!("bounds of a window: {e}")))?;
            out.push(Window {
                width,
                ids: (bounds.start().get(), bounds.end().get()),
                times: (sql_time(from), sql_time(from + width_ms)),
            });
        }
    }
    Ok(out)
}

fn sql(context: &'static str) -> impl Fn(sqlx::Error) -> DbBenchError {
    move |e| DbBenchError::sql(context, e)
}

/// The one BIGINT `query` returns.
async fn scalar_u64<DB>(conn: &mut DB::Connection, query: &str) -> Result<u64, DbBenchError>
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    (i64,): for<'r> sqlx::FromRow<'r, DB::Row>,
    DB::Arguments: sqlx::IntoArguments<DB>,
{
    let v: i64 = sqlx::query_scalar::<DB, i64>(AssertSqlSafe(query.to_owned()))
        .fetch_one(&mut *conn)
        .await
        .map_err(|e| DbBenchError::sql(query.to_owned(), e))?;
    Ok(u64::try_from(v).unwrap_or(0))
}

async fn load_postgres(conn: &mut sqlx::PgConnection, rows: &[Row]) -> Result<(), DbBenchError> {
    sqlx::raw_sql(
        "CREATE TABLE events (id BIGINT PRIMARY KEY, created_at TIMESTAMP(3) NOT NULL, \
         body VARCHAR(100) NOT NULL)",
    )
    .execute(&mut *conn)
    .await
    .map_err(sql("creating the table"))?;
    let mut copy = conn
        .copy_in_raw("COPY events (id, created_at, body) FROM STDIN")
        .await
        .map_err(sql("COPY"))?;
    for chunk in rows.chunks(20_000) {
        let mut text = String::with_capacity(chunk.len() * 110);
        for r in chunk {
            text.push_str(&format!("{}\t{}\t{BODY}\n", r.id, sql_time(r.created_ms)));
        }
        copy.send(text.into_bytes())
            .await
            .map_err(sql("COPY data"))?;
    }
    copy.finish().await.map_err(sql("COPY"))?;
    // One at a time: VACUUM cannot run in the implicit transaction of a batch.
    for statement in [
        "CREATE INDEX events_created_at ON events (created_at)",
        "VACUUM ANALYZE events",
    ] {
        sqlx::raw_sql(statement)
            .execute(&mut *conn)
            .await
            .map_err(sql("indexing created_at"))?;
    }
    Ok(())
}

async fn load_mysql(conn: &mut sqlx::MySqlConnection, rows: &[Row]) -> Result<(), DbBenchError> {
    sqlx::raw_sql(
        "CREATE TABLE events (id BIGINT NOT NULL PRIMARY KEY, created_at DATETIME(3) NOT NULL, \
         body VARCHAR(100) NOT NULL, KEY events_created_at (created_at)) ENGINE=InnoDB",
    )
    .execute(&mut *conn)
    .await
    .map_err(sql("creating the table"))?;
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut text = String::with_capacity(chunk.len() * 110);
        text.push_str("INSERT INTO events (id, created_at, body) VALUES ");
        for (i, r) in chunk.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!("({},'{}','{BODY}')", r.id, sql_time(r.created_ms)));
        }
        sqlx::raw_sql(AssertSqlSafe(text))
            .execute(&mut *conn)
            .await
            .map_err(sql("inserting rows"))?;
    }
    sqlx::raw_sql("ANALYZE TABLE events")
        .execute(&mut *conn)
        .await
        .map_err(sql("ANALYZE"))?;
    Ok(())
}

/// Runs every window both ways, `cfg.rounds` times after one untimed pass.
async fn run_rounds<DB>(
    conn: &mut DB::Connection,
    cfg: &Config,
    windows: &[Window],
    [p1, p2]: [&str; 2],
    time_cast: &str,
    measured: &mut Measured,
) -> Result<(), DbBenchError>
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    String: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    DB::Arguments: sqlx::IntoArguments<DB>,
{
    let by_key = format!("SELECT id, body FROM {TABLE} WHERE id BETWEEN {p1} AND {p2}");
    let by_time = format!(
        "SELECT id, body FROM {TABLE} WHERE created_at >= {p1}{time_cast} AND created_at < {p2}{time_cast}"
    );
    for round in 0..=cfg.rounds {
        let mut seconds: BTreeMap<Duration, (u64, f64, f64)> = BTreeMap::new();
        for (i, w) in windows.iter().enumerate() {
            let mut key = (0, 0.0);
            let mut time = (0, 0.0);
            for first_by_key in [i % 2 == 0, i % 2 != 0] {
                if first_by_key {
                    key = timed_rows::<DB, _>(conn, &by_key, w.ids, "the key range").await?;
                } else {
                    time = timed_rows::<DB, _>(
                        conn,
                        &by_time,
                        w.times.clone(),
                        "the created_at range",
                    )
                    .await?;
                }
            }
            if key.0 != time.0 {
                return Err(DbBenchError::Check {
                    run: format!("{:?} window {w:?}", w.width),
                    message: format!("{} rows by key, {} by created_at", key.0, time.0),
                });
            }
            let cell = seconds.entry(w.width).or_default();
            cell.0 += key.0 as u64;
            cell.1 += key.1;
            cell.2 += time.1;
        }
        // Round 0 only warms the caches.
        if round > 0 {
            for (width, (rows, k, t)) in seconds {
                let entry = measured.by_width.entry(width).or_default();
                entry.0 = rows;
                entry.1.push(k);
                entry.2.push(t);
            }
        }
    }
    Ok(())
}

/// Runs `query` with the bounds `lo` and `hi`: the rows it returned and the
/// seconds it took; `what` names it in an error.
async fn timed_rows<DB, T>(
    conn: &mut DB::Connection,
    query: &str,
    (lo, hi): (T, T),
    what: &'static str,
) -> Result<(usize, f64), DbBenchError>
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    T: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB> + Send + 'static,
    DB::Arguments: sqlx::IntoArguments<DB>,
{
    let t = Instant::now();
    let n = sqlx::query(AssertSqlSafe(query.to_owned()))
        .bind(lo)
        .bind(hi)
        .fetch_all(&mut *conn)
        .await
        .map_err(sql(what))?
        .len();
    Ok((n, t.elapsed().as_secs_f64()))
}

/// The `EXPLAIN` of the 10 s window's query, by key or by `created_at`,
/// with the bounds written in.
fn explain(windows: &[Window], by_key: bool) -> String {
    let w = plan_window(windows);
    if by_key {
        format!(
            "EXPLAIN SELECT id, body FROM {TABLE} WHERE id BETWEEN {} AND {}",
            w.ids.0, w.ids.1
        )
    } else {
        format!(
            "EXPLAIN SELECT id, body FROM {TABLE} WHERE created_at >= '{}' AND created_at < '{}'",
            w.times.0, w.times.1
        )
    }
}

/// The 10 s window's plan on PostgreSQL, one line per node.
async fn pg_plan(
    conn: &mut sqlx::PgConnection,
    windows: &[Window],
    by_key: bool,
) -> Result<String, DbBenchError> {
    let query = explain(windows, by_key);
    let lines: Vec<String> = sqlx::query_scalar(AssertSqlSafe(query))
        .fetch_all(&mut *conn)
        .await
        .map_err(sql("EXPLAIN"))?;
    Ok(lines
        .iter()
        .map(|l| {
            l.split("  (cost")
                .next()
                .unwrap_or(l)
                .trim()
                .trim_start_matches("-> ")
        })
        .collect::<Vec<_>>()
        .join(" / "))
}

/// The 10 s window's plan on MySQL/MariaDB: access type and index.
async fn mysql_plan(
    conn: &mut sqlx::MySqlConnection,
    windows: &[Window],
    by_key: bool,
) -> Result<String, DbBenchError> {
    let query = explain(windows, by_key);
    let row = sqlx::query(AssertSqlSafe(query))
        .fetch_one(&mut *conn)
        .await
        .map_err(sql("EXPLAIN"))?;
    let text = |name: &str| -> String {
        row.try_get::<Option<String>, _>(name)
            .ok()
            .flatten()
            .unwrap_or_else(|| "NULL".to_owned())
    };
    Ok(format!(
        "type {}, key {}, {}",
        text("type"),
        text("key"),
        text("Extra")
    ))
}

fn plan_window(windows: &[Window]) -> &Window {
    windows
        .iter()
        .find(|w| w.width == Duration::from_secs(10))
        .unwrap_or(&windows[0])
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB ({bytes} B)", bytes as f64 / (1u64 << 20) as f64)
}
