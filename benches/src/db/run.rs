//! The coordinator: starts the servers, runs every insert run with its
//! writer processes, checks what was stored and measures the primary key.

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use flakeid_tests::db::DedicatedServer;
use sqlx::{AssertSqlSafe, Connection as _};

use super::DbBenchError;
use super::config::{Config, Key, RunSpec, Server};
use super::schema::{self, TABLE};
use super::worker::{WorkerArgs, batch_sizes, now_micros};

/// What one run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What was run.
    pub spec: RunSpec,
    /// The round, from 1.
    pub round: usize,
    /// Rows in the table afterwards (`count(*)`).
    pub rows: u64,
    /// Distinct keys in the table (`count(DISTINCT id)`).
    pub distinct_keys: u64,
    /// Seconds from the start signal to the last commit.
    pub secs: f64,
    /// Rows per second over the whole run.
    pub rows_per_sec: f64,
    /// Rows per second over the last 10 % of the rows (by commit time).
    pub last10_rows_per_sec: f64,
    /// Size of the primary key: PostgreSQL `pg_relation_size` of its index;
    /// InnoDB the clustered index (`mysql.innodb_index_stats` `size` pages
    /// × `innodb_page_size`, after `ANALYZE TABLE`).
    pub pk_bytes: u64,
    /// Leaf pages of the primary key (`pgstatindex`, or InnoDB `n_leaf_pages`).
    pub pk_leaf_pages: Option<u64>,
    /// PostgreSQL only: average leaf density in % (`pgstatindex`).
    pub pk_leaf_density: Option<f64>,
    /// The machine's 1-minute load average when the run started.
    pub load_at_start: Option<f64>,
}

impl Outcome {
    /// The machine-readable line printed for each run.
    pub fn result_line(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_owned());
        format!(
            "RESULT table={} server={} key={} path={} writers={} round={} rows={} expected={} \
             distinct_keys={} secs={:.3} rows_per_s={:.0} last10_rows_per_s={:.0} pk_bytes={} \
             pk_leaf_pages={} pk_leaf_density={} load={}",
            self.spec.table.name(),
            self.spec.server,
            self.spec.key,
            self.spec.path,
            self.spec.writers,
            self.round,
            self.rows,
            self.spec.rows,
            self.distinct_keys,
            self.secs,
            self.rows_per_sec,
            self.last10_rows_per_sec,
            self.pk_bytes,
            opt(self.pk_leaf_pages.map(|p| p.to_string())),
            opt(self.pk_leaf_density.map(|d| format!("{d:.2}"))),
            opt(self.load_at_start.map(|l| format!("{l:.2}"))),
        )
    }
}

/// A started server and what the benchmark read back from it.
pub struct StartedServer {
    /// The container.
    pub server: DedicatedServer,
    /// The settings as the server reports them.
    pub settings: Vec<(String, String)>,
}

/// The runtime the coordinating binaries (`db`, `time_range`) start their
/// servers on and query them from: one worker thread.
///
/// # Errors
/// If the runtime cannot be built.
pub fn runtime() -> Result<tokio::runtime::Runtime, DbBenchError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| DbBenchError::io("building the runtime", e))
}

/// Starts `servers` with their benchmark settings and checks that the
/// settings took effect.
///
/// # Errors
/// If a server cannot be started or ignored a setting.
pub async fn start_servers(
    servers: &[Server],
) -> Result<BTreeMap<Server, StartedServer>, DbBenchError> {
    let mut started = BTreeMap::new();
    for &server in servers {
        let failed = |message: String| DbBenchError::Server {
            server: server.name().to_owned(),
            message,
        };
        let dedicated = DedicatedServer::start(server.kind(), server.settings())
            .await
            .map_err(failed)?;
        let settings = read_settings(server, dedicated.admin_url())
            .await
            .map_err(|e| failed(e.to_string()))?;
        for (name, want) in server.settings() {
            let found = settings
                .iter()
                .find(|(n, _)| n.replace('_', "-") == name.replace('_', "-"))
                .map(|(_, v)| v.as_str());
            if found.map(normalise_setting) != Some(normalise_setting(want)) {
                return Err(failed(format!(
                    "setting {name} is {found:?}, not {want:?}: image {} ignores the \
                     benchmark's settings (rebuild it with ./scripts/build-images.sh)",
                    dedicated.image()
                )));
            }
        }
        started.insert(
            server,
            StartedServer {
                server: dedicated,
                settings,
            },
        );
    }
    Ok(started)
}

/// Runs one insert run: a fresh database, `spec.writers` writer processes
/// of `exe`, then checks and measurements; the database is dropped again.
///
/// # Errors
/// Any failure of a writer, a check that does not hold, or SQL errors.
pub async fn run_one(
    exe: &std::path::Path,
    started: &StartedServer,
    cfg: &Config,
    spec: RunSpec,
    round: usize,
    number: usize,
) -> Result<Outcome, DbBenchError> {
    let server = &started.server;
    let db_name = format!("bench_{}_{number}", std::process::id());
    let context = |what: &str| format!("{spec} round {round}: {what}");
    let url = server
        .create_database(&db_name)
        .await
        .map_err(|e| DbBenchError::sql(context("creating the database"), e))?;
    let result = measure(exe, &url, &db_name, cfg, spec, round).await;
    let dropped = server.drop_database(&db_name).await;
    if spec.server.is_postgres() {
        // Start the next run from clean buffers, not behind this run's writes.
        checkpoint(server.admin_url()).await?;
    }
    let outcome = result?;
    dropped.map_err(|e| DbBenchError::sql(context("dropping the database"), e))?;
    Ok(outcome)
}

/// The 1-minute load average from `/proc/loadavg`.
pub fn load1() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Waits until the 1-minute load average is below `max` (the machine is
/// shared: a run during someone else's build measures the build), for at
/// most `patience`. Returns how long it waited and whether it gave up.
pub fn wait_for_load(max: f64, patience: std::time::Duration) -> (std::time::Duration, bool) {
    let start = std::time::Instant::now();
    loop {
        match load1() {
            Some(load) if load >= max => {}
            _ => return (start.elapsed(), false),
        }
        if start.elapsed() >= patience {
            return (start.elapsed(), true);
        }
        std::thread::sleep(std::time::Duration::from_secs(10));
    }
}

/// `(seconds, rows/s over all rows, rows/s over the last 10 %)` from the
/// commit time (µs after the start) and size of every batch.
pub fn throughput(batches: &mut [(u64, u64)]) -> (f64, f64, f64) {
    batches.sort_unstable();
    let total: u64 = batches.iter().map(|b| b.1).sum();
    let end = batches.last().map_or(0, |b| b.0);
    let secs = end as f64 / 1e6;
    let all = if secs > 0.0 { total as f64 / secs } else { 0.0 };
    // The moment 90 % of the rows were committed, and the rows after it.
    let mut done = 0u64;
    let mut t90 = 0u64;
    for &(t, n) in batches.iter() {
        if done * 10 >= total * 9 {
            break;
        }
        done += n;
        t90 = t;
    }
    let tail_secs = end.saturating_sub(t90) as f64 / 1e6;
    let tail = if tail_secs > 0.0 {
        (total - done) as f64 / tail_secs
    } else {
        all
    };
    (secs, all, tail)
}

fn parse_done(line: &str) -> Result<(u64, Vec<u64>), String> {
    let mut parts = line.split(' ');
    let bad = || format!("expected `done <rows> <times>`, got {line:?}");
    if parts.next() != Some("done") {
        return Err(bad());
    }
    let rows = parts.next().and_then(|r| r.parse().ok()).ok_or_else(bad)?;
    let times = parts
        .next()
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.split(',')
                .map(str::parse)
                .collect::<Result<Vec<u64>, _>>()
        })
        .transpose()
        .map_err(|_| bad())?
        .unwrap_or_default();
    Ok((rows, times))
}

struct WriterProcess {
    writer: usize,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl WriterProcess {
    fn spawn(
        exe: &std::path::Path,
        writer: usize,
        args: &WorkerArgs,
    ) -> Result<Self, DbBenchError> {
        let mut child = Command::new(exe)
            .arg("worker")
            .args(args.to_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                DbBenchError::io(format!("starting writer {writer} ({})", exe.display()), e)
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(DbBenchError::Writer {
                writer,
                message: "no pipes to the process".to_owned(),
            });
        };
        Ok(WriterProcess {
            writer,
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    fn failed(&self, message: String) -> DbBenchError {
        DbBenchError::Writer {
            writer: self.writer,
            message,
        }
    }

    fn read_line(&mut self) -> Result<String, DbBenchError> {
        let mut line = String::new();
        let n = self
            .stdout
            .read_line(&mut line)
            .map_err(|e| DbBenchError::io(format!("reading from writer {}", self.writer), e))?;
        if n == 0 {
            let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
            return Err(self.failed(format!(
                "exited ({status}) before reporting; see its error above"
            )));
        }
        Ok(line.trim_end().to_owned())
    }

    fn send(&mut self, line: &str) -> Result<(), DbBenchError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| DbBenchError::io(format!("writing to writer {}", self.writer), e))
    }

    fn wait(mut self) -> Result<(), DbBenchError> {
        let status = self
            .child
            .wait()
            .map_err(|e| DbBenchError::io(format!("waiting for writer {}", self.writer), e))?;
        if status.success() {
            Ok(())
        } else {
            Err(self.failed(format!("exited with {status}")))
        }
    }
}

impl Drop for WriterProcess {
    fn drop(&mut self) {
        // A run that failed elsewhere must not leave writers behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

async fn execute(server: Server, url: &str, sql: &str) -> Result<(), DbBenchError> {
    if server.is_postgres() {
        execute_on::<sqlx::Postgres>(url, sql).await
    } else {
        execute_on::<sqlx::MySql>(url, sql).await
    }
}

/// Runs `sql` on a new connection to `url`.
async fn execute_on<DB>(url: &str, sql: &str) -> Result<(), DbBenchError>
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    DB::Arguments: sqlx::IntoArguments<DB>,
{
    let mut conn = DB::Connection::connect(url)
        .await
        .map_err(|e| DbBenchError::sql("connecting", e))?;
    sqlx::query::<DB>(AssertSqlSafe(sql.to_owned()))
        .execute(&mut conn)
        .await
        .map(drop)
        .map_err(|e| DbBenchError::sql(sql, e))
}

/// What the table holds after a run.
struct Check {
    rows: u64,
    distinct_keys: u64,
    /// Per writer: rows, distinct `seq`, min `seq`, max `seq`.
    writers: Vec<(i64, i64, i64, i64, i64)>,
    /// PostgreSQL 18 `uuidv7()`: rows whose key is a version-7 UUID.
    version7: Option<i64>,
}

impl Check {
    async fn read(spec: RunSpec, url: &str) -> Result<Check, DbBenchError> {
        let totals = format!("SELECT count(*), count(DISTINCT id) FROM {TABLE}");
        let per_writer = format!(
            "SELECT CAST(writer AS SIGNED), count(*), count(DISTINCT seq), min(seq), max(seq) \
             FROM {TABLE} GROUP BY writer ORDER BY writer"
        );
        let ctx = |e: sqlx::Error| DbBenchError::sql("counting the stored rows", e);
        let (totals_row, writer_rows, version7) = if spec.server.is_postgres() {
            let mut conn = sqlx::PgConnection::connect(url).await.map_err(ctx)?;
            let t: (i64, i64) = sqlx::query_as(AssertSqlSafe(totals))
                .fetch_one(&mut conn)
                .await
                .map_err(ctx)?;
            let w: Vec<(i64, i64, i64, i64, i64)> = sqlx::query_as(AssertSqlSafe(
                per_writer.replace("CAST(writer AS SIGNED)", "CAST(writer AS BIGINT)"),
            ))
            .fetch_all(&mut conn)
            .await
            .map_err(ctx)?;
            let v7 = if spec.key == Key::PgUuidV7 {
                let n: i64 = sqlx::query_scalar(AssertSqlSafe(format!(
                    "SELECT count(*) FROM {TABLE} WHERE uuid_extract_version(id) = 7"
                )))
                .fetch_one(&mut conn)
                .await
                .map_err(ctx)?;
                Some(n)
            } else {
                None
            };
            (t, w, v7)
        } else {
            let mut conn = sqlx::MySqlConnection::connect(url).await.map_err(ctx)?;
            let t: (i64, i64) = sqlx::query_as(AssertSqlSafe(totals))
                .fetch_one(&mut conn)
                .await
                .map_err(ctx)?;
            let w: Vec<(i64, i64, i64, i64, i64)> = sqlx::query_as(AssertSqlSafe(per_writer))
                .fetch_all(&mut conn)
                .await
                .map_err(ctx)?;
            (t, w, None)
        };
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        Ok(Check {
            rows: count(totals_row.0),
            distinct_keys: count(totals_row.1),
            writers: writer_rows,
            version7,
        })
    }

    fn verify(&self, spec: RunSpec, round: usize) -> Result<(), DbBenchError> {
        let fail = |message: String| DbBenchError::Check {
            run: format!("{spec} round {round}"),
            message,
        };
        if self.rows != spec.rows {
            return Err(fail(format!(
                "{} rows stored, {} inserted",
                self.rows, spec.rows
            )));
        }
        if self.distinct_keys != self.rows {
            return Err(fail(format!(
                "{} distinct keys among {} rows",
                self.distinct_keys, self.rows
            )));
        }
        if self.writers.len() != spec.writers {
            return Err(fail(format!(
                "rows of {} writers stored, {} wrote",
                self.writers.len(),
                spec.writers
            )));
        }
        for (i, &(writer, rows, distinct, min, max)) in self.writers.iter().enumerate() {
            let expected = i64::try_from(spec.rows_of(i)).unwrap_or(i64::MAX);
            if (writer, rows, distinct, min, max) != (i as i64, expected, expected, 0, expected - 1)
            {
                return Err(fail(format!(
                    "writer {writer}: {rows} rows, {distinct} distinct seq in {min}..={max}; \
                     expected writer {i} with {expected} rows, seq 0..={}",
                    expected - 1
                )));
            }
        }
        if let Some(v7) = self.version7
            && v7 != i64::try_from(self.rows).unwrap_or(i64::MAX)
        {
            return Err(fail(format!(
                "{v7} of {} keys are version-7 UUIDs",
                self.rows
            )));
        }
        Ok(())
    }
}

/// The primary key's size.
struct PkSize {
    bytes: u64,
    leaf_pages: Option<u64>,
    leaf_density: Option<f64>,
}

impl PkSize {
    async fn read(server: Server, url: &str, db_name: &str) -> Result<PkSize, DbBenchError> {
        let ctx = |e: sqlx::Error| DbBenchError::sql("measuring the primary key", e);
        if server.is_postgres() {
            let mut conn = sqlx::PgConnection::connect(url).await.map_err(ctx)?;
            let (index, bytes): (String, i64) = sqlx::query_as(AssertSqlSafe(format!(
                "SELECT c.relname::text, pg_relation_size(i.indexrelid) FROM pg_index i \
                 JOIN pg_class c ON c.oid = i.indexrelid \
                 WHERE i.indrelid = '{TABLE}'::regclass AND i.indisprimary"
            )))
            .fetch_one(&mut conn)
            .await
            .map_err(ctx)?;
            // pgstattuple may be missing (a server without contrib): no density then.
            let stats: Option<(f64, i64)> = sqlx::query_as(
                "SELECT avg_leaf_density, leaf_pages FROM pgstatindex($1::regclass)",
            )
            .bind(&index)
            .fetch_one(&mut conn)
            .await
            .ok();
            Ok(PkSize {
                bytes: u64::try_from(bytes).unwrap_or(0),
                leaf_pages: stats.and_then(|s| u64::try_from(s.1).ok()),
                leaf_density: stats.map(|s| s.0),
            })
        } else {
            let mut conn = sqlx::MySqlConnection::connect(url).await.map_err(ctx)?;
            // Refreshes the persistent statistics, which count the index's pages.
            sqlx::query(AssertSqlSafe(format!("ANALYZE TABLE {TABLE}")))
                .fetch_all(&mut conn)
                .await
                .map_err(ctx)?;
            let page: i64 = sqlx::query_scalar("SELECT CAST(@@innodb_page_size AS SIGNED)")
                .fetch_one(&mut conn)
                .await
                .map_err(ctx)?;
            let stats: Vec<(String, i64)> = sqlx::query_as(
                "SELECT stat_name, CAST(stat_value AS SIGNED) FROM mysql.innodb_index_stats \
                 WHERE database_name = ? AND table_name = ? AND index_name = 'PRIMARY' \
                 AND stat_name IN ('size', 'n_leaf_pages')",
            )
            .bind(db_name)
            .bind(TABLE)
            .fetch_all(&mut conn)
            .await
            .map_err(ctx)?;
            let stat = |name: &str| {
                stats
                    .iter()
                    .find(|(n, _)| n == name)
                    .and_then(|(_, v)| u64::try_from(*v).ok())
            };
            let pages = stat("size").ok_or_else(|| {
                DbBenchError::sql(
                    "measuring the primary key",
                    format!("mysql.innodb_index_stats has no size for {db_name}.{TABLE}"),
                )
            })?;
            Ok(PkSize {
                bytes: pages * u64::try_from(page).unwrap_or(0),
                leaf_pages: stat("n_leaf_pages"),
                leaf_density: None,
            })
        }
    }
}

/// `64M` = `67108864`, `OFF` = `0`: settings as the servers print them.
fn normalise_setting(value: &str) -> String {
    let v = value.trim().to_ascii_lowercase();
    let bytes = |n: &str, mul: u64| n.parse::<u64>().ok().map(|n| (n * mul).to_string());
    let scaled = if let Some(n) = v.strip_suffix("mb").or_else(|| v.strip_suffix('m')) {
        bytes(n, 1 << 20)
    } else if let Some(n) = v.strip_suffix("gb").or_else(|| v.strip_suffix('g')) {
        bytes(n, 1 << 30)
    } else {
        None
    };
    match (scaled, v.as_str()) {
        (Some(b), _) => b,
        (None, "off" | "false") => "0".to_owned(),
        (None, "on" | "true") => "1".to_owned(),
        (None, _) => v,
    }
}

async fn read_settings(server: Server, url: &str) -> Result<Vec<(String, String)>, DbBenchError> {
    if server.is_postgres() {
        read_each::<sqlx::Postgres>(
            url,
            &[
                "shared_buffers",
                "fsync",
                "synchronous_commit",
                "full_page_writes",
                "max_wal_size",
                "autovacuum",
            ],
            |name| (format!("SHOW {name}"), format!("SHOW {name}")),
            str::to_owned,
        )
        .await
    } else {
        read_each::<sqlx::MySql>(
            url,
            &[
                "innodb_buffer_pool_size",
                "innodb_flush_log_at_trx_commit",
                "innodb_doublewrite",
                "innodb_page_size",
                "innodb_autoinc_lock_mode",
                "innodb_log_file_size",
            ],
            |name| {
                (
                    format!("SELECT CAST(@@{name} AS CHAR)"),
                    format!("SELECT @@{name}"),
                )
            },
            |name| name.replace('_', "-"),
        )
        .await
    }
}

/// The text value of each setting in `names`, read on one connection to
/// `url` with the statement `query` gives (with what to call it in an
/// error), listed under the name `label` gives.
async fn read_each<DB>(
    url: &str,
    names: &[&str],
    query: impl Fn(&str) -> (String, String),
    label: impl Fn(&str) -> String,
) -> Result<Vec<(String, String)>, DbBenchError>
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
    DB::Arguments: sqlx::IntoArguments<DB>,
{
    let mut conn = DB::Connection::connect(url)
        .await
        .map_err(|e| DbBenchError::sql("connecting to read settings", e))?;
    let mut out = Vec::new();
    for &name in names {
        let (sql, what) = query(name);
        let value: String = sqlx::query_scalar::<DB, String>(AssertSqlSafe(sql))
            .fetch_one(&mut conn)
            .await
            .map_err(|e| DbBenchError::sql(what, e))?;
        out.push((label(name), value));
    }
    Ok(out)
}

async fn checkpoint(admin_url: &str) -> Result<(), DbBenchError> {
    let mut conn = sqlx::PgConnection::connect(admin_url)
        .await
        .map_err(|e| DbBenchError::sql("connecting for CHECKPOINT", e))?;
    sqlx::query("CHECKPOINT")
        .execute(&mut conn)
        .await
        .map(drop)
        .map_err(|e| DbBenchError::sql("CHECKPOINT", e))
}

async fn measure(
    exe: &std::path::Path,
    url: &str,
    db_name: &str,
    cfg: &Config,
    spec: RunSpec,
    round: usize,
) -> Result<Outcome, DbBenchError> {
    let create = schema::create_table(spec.server, spec.key);
    execute(spec.server, url, &create).await?;
    if spec.server.is_postgres() {
        // For pgstatindex (leaf density); a server without contrib still runs.
        let _ = execute(
            spec.server,
            url,
            "CREATE EXTENSION IF NOT EXISTS pgstattuple",
        )
        .await;
    }

    let load_at_start = load1();
    let mut writers = Vec::with_capacity(spec.writers);
    for writer in 0..spec.writers {
        let args = WorkerArgs {
            server: spec.server,
            key: spec.key,
            path: spec.path,
            url: url.to_owned(),
            writer,
            writers: spec.writers,
            rows: spec.rows_of(writer),
            batch: cfg.batch,
            creation_rate: cfg.creation_rate,
            paced: cfg.paced,
        };
        writers.push(WriterProcess::spawn(exe, writer, &args)?);
    }
    // All writers connected before the clock starts.
    for w in &mut writers {
        let line = w.read_line()?;
        if line != "ready" {
            return Err(w.failed(format!("expected `ready`, got {line:?}")));
        }
    }
    let t0 = now_micros();
    for w in &mut writers {
        w.send(&format!("go {t0}"))?;
    }
    let mut batches = Vec::new();
    for (writer, w) in writers.iter_mut().enumerate() {
        let line = w.read_line()?;
        let (rows, times) = parse_done(&line).map_err(|m| w.failed(m))?;
        if rows != spec.rows_of(writer) {
            return Err(w.failed(format!(
                "reports {rows} rows, expected {}",
                spec.rows_of(writer)
            )));
        }
        let sizes = batch_sizes(rows, cfg.batch, writer, spec.writers);
        if times.len() != sizes.len() {
            return Err(w.failed(format!(
                "reports {} batches, expected {}",
                times.len(),
                sizes.len()
            )));
        }
        batches.extend(times.into_iter().zip(sizes));
    }
    for w in writers {
        w.wait()?;
    }
    let (secs, rows_per_sec, last10_rows_per_sec) = throughput(&mut batches);

    let check = Check::read(spec, url).await?;
    check.verify(spec, round)?;
    let size = PkSize::read(spec.server, url, db_name).await?;
    Ok(Outcome {
        spec,
        round,
        rows: check.rows,
        distinct_keys: check.distinct_keys,
        secs,
        rows_per_sec,
        last10_rows_per_sec,
        pk_bytes: size.bytes,
        pk_leaf_pages: size.leaf_pages,
        pk_leaf_density: size.leaf_density,
        load_at_start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_of_the_whole_run_and_its_last_tenth() {
        // 10 batches of 100 rows, one per second; the last one after 5 more seconds.
        let mut batches: Vec<(u64, u64)> = (1..=9).map(|s| (s * 1_000_000, 100)).collect();
        batches.push((14_000_000, 100));
        let (secs, all, tail) = throughput(&mut batches);
        assert_eq!(secs, 14.0);
        assert!((all - 1000.0 / 14.0).abs() < 1e-9);
        // 90 % (900 rows) were committed at 9 s; the last 100 took 5 s.
        assert!((tail - 20.0).abs() < 1e-9, "{tail}");
    }

    #[test]
    fn done_lines_parse_or_fail() {
        assert_eq!(parse_done("done 3 5,9"), Ok((3, vec![5, 9])));
        assert!(parse_done("done x 5").is_err());
        assert!(parse_done("ready").is_err());
        assert!(parse_done("done 3 5,y").is_err());
    }

    #[test]
    fn settings_compare_across_spellings() {
        assert_eq!(normalise_setting("64M"), normalise_setting("67108864"));
        assert_eq!(normalise_setting("64MB"), "67108864");
        assert_eq!(normalise_setting("OFF"), normalise_setting("0"));
        assert_ne!(normalise_setting("128M"), normalise_setting("64M"));
    }
}
