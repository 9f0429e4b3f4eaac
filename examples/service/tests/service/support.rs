//! Running the service binary as a process, talking HTTP to it, and reading
//! what its database stored with plain SQL.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use flakeid_tests::process::{self, Output};
use serde_json::Value;

/// The longest a test waits for the service to say something (a bound on a
/// hang, not a timing assertion).
pub const PATIENCE: Duration = Duration::from_secs(120);

/// 2^53: JavaScript numbers hold integers exactly only up to here.
pub const JS_SAFE_LIMIT: u64 = 1 << 53;

/// A running `flakeid-service` process.
pub struct Service {
    child: Child,
    output: Output,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    agent: ureq::Agent,
    tag: String,
}

/// An HTTP answer: status, headers we look at, body as JSON (Null when
/// the body is not JSON) and as text.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub location: Option<String>,
    pub content_type: Option<String>,
    pub json: Value,
    pub text: String,
}

impl Service {
    /// Starts the binary with `DATABASE_URL=url`, a free port on 127.0.0.1,
    /// and `extra` variables; returns once it listens.
    pub fn start(tag: &str, url: &str, extra: &[(&str, &str)]) -> Service {
        let mut service = Service::spawn(tag, url, extra);
        let line = service.wait_for("listening");
        let addr = line
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix("addr="))
            .unwrap_or_else(|| panic!("no addr= in {line:?}"));
        service.base = format!("http://{addr}");
        service
    }

    /// Starts the binary as [`start`](Service::start) does, without waiting
    /// for it to listen.
    pub fn spawn(tag: &str, url: &str, extra: &[(&str, &str)]) -> Service {
        let bin = env!("CARGO_BIN_EXE_flakeid-service");
        let mut cmd = Command::new(bin);
        cmd.env("DATABASE_URL", url)
            .env("HOST", "127.0.0.1")
            .env("PORT", "0")
            .env("RUST_LOG", "info")
            .env_remove("FLAKEID_SPACE")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("start {bin}: {e}"));
        let output = Output::follow(&mut child, tag);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .new_agent();
        Service {
            child,
            output,
            base: String::new(),
            agent,
            tag: tag.to_owned(),
        }
    }

    /// Waits at most `patience` for the process to exit by itself: its
    /// status (None if it still ran) and every line it logged.
    pub fn exit_within(mut self, patience: Duration) -> (Option<ExitStatus>, Vec<String>) {
        let deadline = Instant::now() + patience;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for the service") {
                break Some(status);
            }
            if Instant::now() >= deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        self.output.rest(Duration::from_secs(2));
        (status, self.logged())
    }

    /// The `host:port` it listens on.
    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// Waits for a log line containing `needle`.
    pub fn wait_for(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.next(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    panic!("{} did not log {needle:?} within {PATIENCE:?}", self.tag)
                }
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "{} exited before logging {needle:?}; it logged {:#?}",
                    self.tag,
                    self.output.said()
                ),
            }
        }
    }

    /// Every line logged so far.
    pub fn logged(&self) -> Vec<String> {
        self.output.said()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `kill -SIG pid`.
    pub fn signal(&self, sig: &str) {
        process::signal(self.pid(), sig);
    }

    /// Sends SIGTERM and waits for the process to exit; its status and
    /// every line it logged.
    pub fn terminate(mut self) -> (ExitStatus, Vec<String>) {
        self.signal("TERM");
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for the service") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "{} did not exit within {PATIENCE:?} of SIGTERM",
                self.tag
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader thread ends with the pipe; let it pass on the last lines.
        self.output.rest(Duration::from_secs(5));
        (status, self.logged())
    }

    fn answer(&self, response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        let mut response = response.unwrap_or_else(|e| panic!("{}: HTTP failed: {e}", self.tag));
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let location = header("location");
        let content_type = header("content-type");
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .unwrap_or_else(|e| panic!("{}: read the body: {e}", self.tag));
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Answer {
            status,
            location,
            content_type,
            json,
            text,
        }
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Answer {
        self.answer(self.agent.get(format!("{}{path}", self.base)).call())
    }

    /// `POST path` with a JSON body (any text) and `Content-Type: application/json`.
    pub fn post(&self, path: &str, body: &str) -> Answer {
        self.post_as(path, "application/json", body)
    }

    /// `POST path` with a body of the given content type.
    pub fn post_as(&self, path: &str, content_type: &str, body: &str) -> Answer {
        self.answer(
            self.agent
                .post(format!("{}{path}", self.base))
                .header("content-type", content_type)
                .send(body),
        )
    }

    /// `DELETE path`.
    pub fn delete(&self, path: &str) -> Answer {
        self.answer(self.agent.delete(format!("{}{path}", self.base)).call())
    }

    /// The node `/health` reports (asserting a 200).
    pub fn node(&self) -> u64 {
        let health = self.get("/health");
        assert_eq!(health.status, 200, "{}: {}", self.tag, health.text);
        health.json["node"].as_u64().expect("node in /health")
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        // A failing test must not leave processes behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An ID from JSON: a string of decimal digits (never a number).
pub fn id(v: &Value) -> i64 {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("an ID must be a JSON string, got {v}"));
    s.parse()
        .unwrap_or_else(|e| panic!("ID {s:?} is not a decimal i64: {e}"))
}

/// The node of a Twitter-layout ID: the 10 bits above the 12 sequence bits.
pub fn node_of(id: i64) -> u64 {
    (id.unsigned_abs() >> 12) & 0x3ff
}

/// Plain SQL on the service's database (PostgreSQL, MySQL/MariaDB or
/// SQLite), on a
/// runtime of its own (a pool's connections belong to the runtime that
/// opened them).
pub struct Sql {
    rt: tokio::runtime::Runtime,
    pool: Pool,
}

enum Pool {
    Postgres(sqlx::PgPool),
    MySql(sqlx::MySqlPool),
    Sqlite(sqlx::SqlitePool),
}

/// A column value as SQL returned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Null,
    Int(i64),
    Text(String),
}

impl Cell {
    pub fn int(&self) -> i64 {
        match self {
            Cell::Int(i) => *i,
            other => panic!("expected an integer, got {other:?}"),
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A pool of one connection to `url`.
async fn one_connection<DB: sqlx::Database>(url: &str) -> sqlx::Pool<DB> {
    sqlx::pool::PoolOptions::<DB>::new()
        .max_connections(1)
        .connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"))
}

impl Sql {
    /// Connects to `url` (`postgres://…`, `mysql://…` or `sqlite://…`).
    pub fn connect(url: &str) -> Sql {
        let rt = runtime();
        let pool = rt.block_on(async {
            if url.starts_with("sqlite:") {
                Pool::Sqlite(one_connection(url).await)
            } else if url.starts_with("mysql:") {
                Pool::MySql(one_connection(url).await)
            } else {
                Pool::Postgres(one_connection(url).await)
            }
        });
        Sql { rt, pool }
    }

    /// Every row of `query`, each column read as an integer, text or NULL.
    pub fn rows(&self, query: &str) -> Vec<Vec<Cell>> {
        use sqlx::Row as _;
        macro_rules! cells {
            ($pool:expr) => {{
                let rows = sqlx::query(sqlx::AssertSqlSafe(query.to_owned()))
                    .fetch_all($pool)
                    .await
                    .unwrap_or_else(|e| panic!("{query}: {e}"));
                rows.iter()
                    .map(|row| {
                        (0..row.len())
                            .map(|i| {
                                if let Ok(v) = row.try_get::<Option<i64>, _>(i) {
                                    return v.map_or(Cell::Null, Cell::Int);
                                }
                                match row.try_get::<Option<String>, _>(i) {
                                    Ok(v) => v.map_or(Cell::Null, Cell::Text),
                                    Err(e) => panic!("{query}: column {i}: {e}"),
                                }
                            })
                            .collect()
                    })
                    .collect()
            }};
        }
        self.rt.block_on(async {
            match &self.pool {
                Pool::Postgres(pool) => cells!(pool),
                Pool::MySql(pool) => cells!(pool),
                Pool::Sqlite(pool) => cells!(pool),
            }
        })
    }

    /// The single integer `query` returns.
    pub fn int(&self, query: &str) -> i64 {
        let rows = self.rows(query);
        assert_eq!(rows.len(), 1, "{query}: {rows:?}");
        rows[0][0].int()
    }
}

/// The `owner` of node `node` of `space` in the lease table (None: free).
pub fn lease_owner(sql: &Sql, space: &str, node: u64) -> Option<String> {
    let rows = sql.rows(&format!(
        "SELECT owner FROM flakeid_nodes WHERE space = '{space}' AND node_id = {node}"
    ));
    assert_eq!(rows.len(), 1, "one row for node {node}: {rows:?}");
    match &rows[0][0] {
        Cell::Null => None,
        Cell::Text(s) => Some(s.clone()),
        Cell::Int(i) => panic!("owner is an integer: {i}"),
    }
}
