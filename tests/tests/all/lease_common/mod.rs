//! Lease tests with real processes: starting `lease_worker` processes,
//! reading what they report, and checking what the database stored.

#![allow(dead_code, unreachable_pub)]

use std::collections::{BTreeMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use flakeid_core::layout::presets;
use flakeid_lease::{LeaseError, LeaseOptions, NodeTable};
use flakeid_tests::db::{Backend, Container, TestDb};
use flakeid_tests::process::{self, Output, field};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, DbBackend, Statement};
use tokio::sync::MutexGuard;

/// Multi-thread tokio tests, one a case: `name: scenario(args…);` is the
/// test `name` running `scenario(args…).await` (attributes and doc
/// comments before a case go to its test). The data of each case at the
/// call site, the machinery written once.
macro_rules! scenario_tests {
    ($($(#[$attr:meta])* $name:ident: $scenario:expr;)+) => {
        $(
            $(#[$attr])*
            #[tokio::test(flavor = "multi_thread")]
            async fn $name() {
                $scenario.await;
            }
        )+
    };
}

pub(crate) use scenario_tests;

/// The longest the tests wait for a worker to say something (a bound on a
/// hang, not a timing assertion).
pub const PATIENCE: Duration = Duration::from_secs(180);

/// Connects to the test database and creates the lease table and the table
/// every worker inserts into.
pub async fn prepare(db: &TestDb) -> DatabaseConnection {
    let conn = connect(db.url()).await;
    flakeid_seaorm::lease::create_table(&conn)
        .await
        .expect("create the lease table");
    let varchar = match db.backend() {
        Backend::Postgres => "VARCHAR(64)",
        Backend::MySql => "VARCHAR(64)",
    };
    conn.execute_unprepared(&format!(
        "CREATE TABLE lease_ids (id BIGINT NOT NULL PRIMARY KEY, node INTEGER NOT NULL, \
         fence BIGINT NOT NULL, worker {varchar} NOT NULL, issued_ms BIGINT NOT NULL)"
    ))
    .await
    .expect("create lease_ids");
    conn
}

/// A SeaORM connection to `url`.
pub async fn connect(url: &str) -> DatabaseConnection {
    Database::connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"))
}

/// A running worker process and the lines it printed.
pub struct Worker {
    pub tag: String,
    child: Child,
    output: Output,
}

pub fn worker_bin() -> &'static str {
    env!("CARGO_BIN_EXE_lease_worker")
}

impl Worker {
    /// Starts `lease_worker --url URL --worker TAG ARGS…`.
    pub fn start(url: &str, tag: &str, args: &[&str]) -> Worker {
        let mut child = Command::new(worker_bin())
            .args(["--url", url, "--worker", tag])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", worker_bin()));
        let output = Output::follow(&mut child, tag);
        Worker {
            tag: tag.to_owned(),
            child,
            output,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the next line starting with one of `prefixes`.
    pub fn wait_for(&mut self, prefixes: &[&str]) -> String {
        self.wait_for_within(prefixes, PATIENCE)
    }

    /// [`wait_for`](Self::wait_for), failing after `patience`.
    pub fn wait_for_within(&mut self, prefixes: &[&str], patience: Duration) -> String {
        let deadline = Instant::now() + patience;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.next(left) {
                Ok(line) if prefixes.iter().any(|p| line.starts_with(p)) => return line,
                Ok(line) if line.starts_with("ERROR") => {
                    panic!("worker {} failed: {line}", self.tag)
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "worker {} said none of {prefixes:?} in {patience:?}",
                        self.tag
                    )
                }
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "worker {} exited without {prefixes:?}; it said {:?}",
                    self.tag,
                    self.output.said()
                ),
            }
        }
    }

    /// Waits for `READY` and returns it parsed.
    pub fn ready(&mut self) -> Ready {
        Ready::parse(&self.wait_for(&["READY"]))
    }

    /// Waits for the process to exit; its `DONE` line (if any) and exit code.
    pub fn finish(self) -> (Option<Done>, i32) {
        let (done, code, _) = self.finish_said();
        (done, code)
    }

    /// Waits for the process to exit; its `DONE` line (if any), exit code
    /// and every line it printed.
    pub fn finish_said(mut self) -> (Option<Done>, i32, Vec<String>) {
        let status = self.child.wait().expect("wait for the worker");
        // The reader thread ends with the pipe; take the last lines.
        let done = self
            .output
            .rest(Duration::from_secs(10))
            .iter()
            .rfind(|line| line.starts_with("DONE"))
            .map(|line| Done::parse(line));
        (done, status.code().unwrap_or(-1), self.output.said())
    }

    /// Every line printed so far.
    pub fn said(&self) -> Vec<String> {
        self.output.said()
    }

    /// Sends a signal with `kill -SIG pid`.
    pub fn signal(&self, sig: &str) {
        process::signal(self.pid(), sig);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A failing test must not leave processes behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A worker's `READY` line.
#[derive(Debug, Clone, Copy)]
pub struct Ready {
    pub node: u64,
    pub fence: u64,
    pub resume_after: u64,
}

impl Ready {
    fn parse(line: &str) -> Ready {
        Ready {
            node: field(line, "node"),
            fence: field(line, "fence"),
            resume_after: field(line, "resume_after"),
        }
    }
}

/// A worker's `DONE` line.
#[derive(Debug, Clone, Copy)]
pub struct Done {
    pub issued: u64,
    pub inserted: u64,
    pub duplicates: u64,
    pub fenced: u64,
    pub lost: bool,
    /// The worker's generator clock at the end (Unix ms).
    pub clock: u64,
}

impl Done {
    fn parse(line: &str) -> Done {
        Done {
            issued: field(line, "issued"),
            inserted: field(line, "inserted"),
            duplicates: field(line, "duplicates"),
            fenced: field(line, "fenced"),
            lost: field::<u64>(line, "lost") == 1,
            clock: field(line, "clock"),
        }
    }
}

/// One stored row.
#[derive(Debug, Clone)]
pub struct IdRow {
    pub id: u64,
    pub node: u64,
    pub fence: u64,
    pub worker: String,
    pub issued_ms: i64,
}

impl IdRow {
    /// The time the ID is stamped with (Unix ms).
    pub fn stamped(&self) -> u64 {
        presets::twitter().timestamp_millis(self.id)
    }
}

/// Every row of `lease_ids`, read with plain SQL.
pub async fn rows(conn: &DatabaseConnection) -> Vec<IdRow> {
    let backend = conn.get_database_backend();
    let sql = "SELECT id, node, fence, worker, issued_ms FROM lease_ids ORDER BY id";
    let rows = conn
        .query_all_raw(Statement::from_string(backend, sql))
        .await
        .expect("read lease_ids");
    rows.iter()
        .map(|r| {
            let node: i32 = r.try_get("", "node").unwrap();
            IdRow {
                id: u64::try_from(r.try_get::<i64>("", "id").unwrap()).unwrap(),
                node: u64::try_from(node).unwrap(),
                fence: u64::try_from(r.try_get::<i64>("", "fence").unwrap()).unwrap(),
                worker: r.try_get("", "worker").unwrap(),
                issued_ms: r.try_get("", "issued_ms").unwrap(),
            }
        })
        .collect()
}

/// What the table shows.
#[derive(Debug)]
pub struct Check {
    pub rows: usize,
}

/// Checks the stored IDs: each carries the node it was issued for, and
/// the IDs of one node are disjoint in time across its holders, in fence
/// order. Panics otherwise.
pub fn check_rows(rows: &[IdRow]) -> Check {
    let layout = presets::twitter();
    let mut ids = HashSet::new();
    let mut spans: BTreeMap<(u64, u64, String), (u64, u64)> = BTreeMap::new();
    for r in rows {
        assert!(ids.insert(r.id), "ID {} stored twice", r.id);
        assert_eq!(layout.decompose(r.id).node, r.node, "{r:?}");
        let t = r.stamped();
        let span = spans
            .entry((r.node, r.fence, r.worker.clone()))
            .or_insert((t, t));
        span.0 = span.0.min(t);
        span.1 = span.1.max(t);
    }
    let mut by_node: BTreeMap<u64, Vec<(u64, u64, u64, String)>> = BTreeMap::new();
    for ((node, fence, w), (lo, hi)) in spans {
        by_node.entry(node).or_default().push((fence, lo, hi, w));
    }
    for (node, holders) in &mut by_node {
        // In claim order; holders of a fixed node or a file (fence 0) in time order.
        holders.sort_by_key(|h| (h.0, h.1));
        for pair in holders.windows(2) {
            let (f1, _, hi1, w1) = &pair[0];
            let (f2, lo2, _, w2) = &pair[1];
            assert!(
                hi1 < lo2,
                "node {node}: holder {w1} (fence {f1}) stamped up to {hi1}, \
                 its successor {w2} (fence {f2}) from {lo2}"
            );
        }
    }
    Check { rows: rows.len() }
}

/// Prints the line the closing note quotes and returns the duplicates found:
/// IDs the workers issued that the table refused (the primary key).
pub fn report(test: &str, processes: usize, issued: u64, stored: usize, reported_dups: u64) -> u64 {
    let found = issued - stored as u64;
    // Straight to stderr: shown in every run, not only with --nocapture.
    let _ = writeln!(
        std::io::stderr().lock(),
        "lease test {test}: {processes} processes x {issued} IDs x {found} duplicates found \
         (workers counted {reported_dups} refused inserts)"
    );
    found
}

/// A fresh space name per test.
pub fn space(test: &str) -> String {
    format!("{test}-{}", std::process::id())
}

pub use flakeid_tests::worker::wall_ms;

/// A fresh SQLite file for the test `name`; its `sqlite://` URL.
pub fn sqlite_url(name: &str) -> String {
    let path = std::env::temp_dir().join(format!("{}.db", space(name)));
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    format!("sqlite://{}?mode=rwc", path.display())
}

/// The lease table's row of `node` in `space`: `(owner, fence)`.
pub async fn lease_row(
    conn: &DatabaseConnection,
    space: &str,
    node: u64,
) -> (Option<String>, i64, i64) {
    let backend = conn.get_database_backend();
    let p = if backend == DbBackend::Postgres {
        ("$1", "$2")
    } else {
        ("?", "?")
    };
    let sql = format!(
        "SELECT owner, fence, high_water FROM flakeid_nodes WHERE space = {} AND node_id = {}",
        p.0, p.1
    );
    let row = conn
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [space.into(), i32::try_from(node).unwrap().into()],
        ))
        .await
        .expect("read flakeid_nodes")
        .expect("the node's row");
    (
        row.try_get("", "owner").unwrap(),
        row.try_get("", "fence").unwrap(),
        row.try_get("", "high_water").unwrap(),
    )
}

/// Waits (bounded by [`PATIENCE`]) until `cond` holds.
pub async fn until<F, Fut>(what: &str, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + PATIENCE;
    while !cond().await {
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Rows stored by `worker`.
pub async fn count_of(conn: &DatabaseConnection, worker: &str) -> usize {
    rows(conn)
        .await
        .iter()
        .filter(|r| r.worker == worker)
        .count()
}

/// Rows stored by `worker`: waits (bounded by [`PATIENCE`]) until there are
/// at least `n`.
pub async fn until_stored(conn: &DatabaseConnection, worker: &str, n: usize) {
    until(&format!("{worker} stored {n} IDs"), || async {
        count_of(conn, worker).await >= n
    })
    .await;
}

/// The arguments of a holder of one of `nodes` nodes of `space` through
/// `orm`; more follow.
pub fn lease_args<'a>(space: &'a str, nodes: &'a str, orm: &'a str) -> Vec<&'a str> {
    vec!["--space", space, "--nodes", nodes, "--orm", orm]
}

/// The hold file of the test using `space` (its workers wait at it until
/// it is written), removed if an earlier run left it; its path, and that
/// path as a worker's `--hold-file` argument.
pub fn hold_file(space: &str) -> (PathBuf, String) {
    let hold = std::env::temp_dir().join(format!("{space}.go"));
    let _ = std::fs::remove_file(&hold);
    let arg = hold.display().to_string();
    (hold, arg)
}

/// Starts a seventh worker for a node of `common` (four nodes, all held)
/// that will not wait for one, and checks that it is told so, clearly, and
/// exits with code 4; what it was told.
pub fn assert_refused_at_once(url: &str, common: &[&str]) -> String {
    let more = ["--ids", "10"];
    let mut impatient = Worker::start(url, "impatient", &[common, &more[..]].concat());
    let refusal = impatient.wait_for(&["NO_NODE", "READY"]);
    assert!(
        refusal.starts_with("NO_NODE all 4 node IDs (0..=3) of space"),
        "{refusal}"
    );
    let (_, code) = impatient.finish();
    assert_eq!(code, 4);
    refusal
}

/// Lets the `workers` waiting at the hold file `hold` go, and waits for
/// each to finish issuing its `ids` ([`finish_issuing`]); what each did.
pub fn go_and_finish(hold: &Path, workers: Vec<Worker>, ids: u64) -> Vec<Done> {
    std::fs::write(hold, b"go").unwrap();
    workers
        .into_iter()
        .map(|w| finish_issuing(w, ids).0)
        .collect()
}

/// Waits for `w` to exit and checks that it exited 0 after issuing all its
/// `ids` on a node nobody else took; its `DONE` line and every line it
/// printed.
pub fn finish_issuing(w: Worker, ids: u64) -> (Done, Vec<String>) {
    let tag = w.tag.clone();
    let (done, code, said) = w.finish_said();
    let done = done.unwrap_or_else(|| panic!("{tag} did not finish"));
    assert_eq!(code, 0, "{tag}");
    assert_eq!(done.issued, ids, "{tag}: nothing lost");
    assert!(!done.lost, "{tag}: nobody else took its node");
    (done, said)
}

/// [`report`] of the workers that printed `done`.
pub fn report_done(test: &str, done: &[Done], stored: usize) -> u64 {
    report(
        test,
        done.len(),
        done.iter().map(|d| d.issued).sum(),
        stored,
        done.iter().map(|d| d.duplicates).sum(),
    )
}

/// Checks the rows of `lease_ids` ([`check_rows`]) and that the table
/// refused none of the IDs of the workers that printed `done`; the rows.
pub async fn assert_no_duplicates(
    conn: &DatabaseConnection,
    test: &str,
    done: &[Done],
) -> Vec<IdRow> {
    let stored = rows(conn).await;
    let check = check_rows(&stored);
    assert_eq!(report_done(test, done, check.rows), 0);
    stored
}

/// The container of the server a test pauses (`docker pause`), given by
/// `container`, and the guard the test holds for its whole run: another
/// test's pause would delay or cut this one's phases.
pub async fn to_pause(container: Option<&Container>) -> (&Container, MutexGuard<'static, ()>) {
    let container = container
        .expect("this test pauses the server's container: run it with a container, not a URL");
    (container, crate::support::PAUSE.lock().await)
}

/// A lease on one of the nodes 0..=2 of `space` held by `test-host/1`,
/// renewed every 100 ms.
pub fn lease_options(space: &str, ttl: Duration) -> LeaseOptions {
    LeaseOptions::new(space, presets::twitter())
        .nodes(0..=2)
        .ttl(ttl)
        .renew_every(Duration::from_millis(100))
        .holder("test-host/1")
}

/// Checks a listing of the three nodes of [`lease_options`] of which
/// `test-host/1` holds `node` alone, with fence 1.
pub fn assert_held_by_the_test_host(table: &NodeTable, node: u64) {
    assert_eq!(table.rows.len(), 3);
    assert_eq!(table.held().map(|r| r.node).collect::<Vec<_>>(), vec![node]);
    assert!(
        table.to_string().contains("held by test-host/1, fence 1"),
        "{table}"
    );
}

/// Checks that `err` refuses a claim because the three nodes of
/// [`lease_options`] are taken.
pub fn assert_all_taken(err: &LeaseError) {
    assert!(
        matches!(
            err,
            LeaseError::AllTaken {
                nodes: 3,
                first: 0,
                last: 2,
                ..
            }
        ),
        "{err}"
    );
}
