//! Segments on real servers: `segment_worker` processes drawing from one
//! segment row through SeaORM and Diesel, one killed with SIGKILL
//! mid-segment; short keys and DecimalId generator IDs from two processes
//! (and across restarts); the database paused mid-prefetch.
//!
//! What the database stored is checked with plain SQL: every value lands
//! in a table with a primary key.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write as _;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use flakeid_segment::{SegmentError, SegmentIds, SegmentOptions};
use flakeid_tests::db::{self, TestDb};
use flakeid_tests::process::{self, Output, field};
use flakeid_tests::worker::start_diesel_segment;
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, Statement};

use super::lease_common::{PATIENCE, connect, scenario_tests, to_pause};

/// A running `segment_worker` and the lines it printed.
struct Worker {
    tag: String,
    child: Child,
    output: Output,
}

impl Worker {
    fn start(url: &str, tag: &str, name: &str, args: &[&str]) -> Worker {
        let bin = env!("CARGO_BIN_EXE_segment_worker");
        let mut child = Command::new(bin)
            .args(["--url", url, "--worker", tag, "--name", name])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("start {bin}: {e}"));
        let output = Output::follow(&mut child, tag);
        Worker {
            tag: tag.to_owned(),
            child,
            output,
        }
    }

    fn said(&self) -> Vec<String> {
        self.output.said()
    }

    /// Waits for a line starting with `prefix`.
    fn wait_for(&self, prefix: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let said = self.said();
            if let Some(l) = said.iter().find(|l| l.starts_with(prefix)) {
                return l.clone();
            }
            if let Some(l) = said.iter().find(|l| l.starts_with("ERROR")) {
                panic!("worker {} failed: {l}", self.tag);
            }
            assert!(
                Instant::now() < deadline,
                "worker {} said no {prefix} in {PATIENCE:?}: {said:?}",
                self.tag
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the exit; `(issued, inserted, duplicates)` of its `DONE` line.
    fn finish(mut self) -> (u64, u64, u64) {
        let status = self.child.wait().expect("wait for the worker");
        // The reader thread ends with the pipe; let it pass on the last lines.
        self.output.rest(Duration::from_secs(10));
        let said = self.said();
        assert!(
            status.success(),
            "worker {} exited with {status}: {said:?}",
            self.tag
        );
        let done = said
            .iter()
            .find(|l| l.starts_with("DONE"))
            .unwrap_or_else(|| panic!("worker {} did not finish: {said:?}", self.tag));
        (
            field(done, "issued"),
            field(done, "inserted"),
            field(done, "duplicates"),
        )
    }

    fn kill9(&mut self) {
        process::signal(self.child.id(), "KILL");
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A failing test must not leave processes behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Connects, creates the segment table and the tables the workers fill.
async fn prepare(db: &TestDb) -> DatabaseConnection {
    let conn = connect(db.url()).await;
    flakeid_seaorm::segment::create_table(&conn)
        .await
        .expect("create the segment table");
    for ddl in [
        "CREATE TABLE segment_ids (id BIGINT NOT NULL PRIMARY KEY, worker VARCHAR(64) NOT NULL)",
        "CREATE TABLE segment_keys (k VARCHAR(32) NOT NULL PRIMARY KEY, idx BIGINT NOT NULL, \
         worker VARCHAR(64) NOT NULL)",
        "CREATE TABLE segment_decimal (id BIGINT NOT NULL PRIMARY KEY, generator_id BIGINT NOT \
         NULL, worker VARCHAR(64) NOT NULL)",
    ] {
        conn.execute_unprepared(ddl)
            .await
            .unwrap_or_else(|e| panic!("{ddl}: {e}"));
    }
    conn
}

async fn query(conn: &DatabaseConnection, sql: &str) -> Vec<sea_orm::QueryResult> {
    conn.query_all_raw(Statement::from_string(conn.get_database_backend(), sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The segment row's `max_id`, read with plain SQL.
async fn row_max_id(conn: &DatabaseConnection, name: &str) -> u64 {
    let rows = query(
        conn,
        &format!("SELECT max_id FROM flakeid_segments WHERE name = '{name}'"),
    )
    .await;
    let max: i64 = rows[0].try_get("", "max_id").unwrap();
    u64::try_from(max).unwrap()
}

async fn count(conn: &DatabaseConnection, table: &str, worker: &str) -> u64 {
    let rows = query(
        conn,
        &format!("SELECT COUNT(*) AS n FROM {table} WHERE worker = '{worker}'"),
    )
    .await;
    u64::try_from(rows[0].try_get::<i64>("", "n").unwrap()).unwrap()
}

/// Checks what the sources of the row `name` served: no value twice, none
/// beyond the row's `max_id` (read with plain SQL).
async fn check_served(conn: &DatabaseConnection, name: &str, served: &[u64]) {
    let unique: HashSet<u64> = served.iter().copied().collect();
    assert_eq!(unique.len(), served.len(), "a value served twice");
    let max_id = row_max_id(conn, name).await;
    assert!(
        served.iter().all(|v| *v <= max_id),
        "served beyond the row's max_id {max_id}"
    );
}

fn report(line: &str) {
    // Straight to stderr: shown in every run, not only with --nocapture.
    let _ = writeln!(std::io::stderr().lock(), "segment test {line}");
}

/// Starts a worker through each ORM (SeaORM, then Diesel) drawing from the
/// row `name` in `mode`, tagged `{prefix}-{orm}`, with `args` after
/// `--mode` and `--orm`.
fn one_per_orm(db: &TestDb, prefix: &str, name: &str, mode: &str, args: &[&str]) -> Vec<Worker> {
    ["seaorm", "diesel"]
        .iter()
        .map(|orm| {
            let head = ["--mode", mode, "--orm", orm];
            Worker::start(
                db.url(),
                &format!("{prefix}-{orm}"),
                name,
                &[&head[..], args].concat(),
            )
        })
        .collect()
}

/// Waits for each of `ws` to exit and checks that it stored every value it
/// issued and met none stored already; what each issued.
fn finish_storing(ws: Vec<Worker>) -> Vec<u64> {
    ws.into_iter()
        .map(|w| {
            let tag = w.tag.clone();
            let (issued, inserted, dups) = w.finish();
            assert_eq!(dups, 0, "{tag} met values stored already");
            assert_eq!(inserted, issued, "{tag}");
            issued
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Several processes on one row, one killed mid-segment
// ---------------------------------------------------------------------------

async fn processes_share_a_row_and_a_killed_one_leaves_only_its_remainder(db: TestDb, test: &str) {
    let conn = prepare(&db).await;
    let name = format!("{test}-dense");
    let step = 100u64;
    let ids = 2_000u64;
    let step_s = step.to_string();
    let ids_s = ids.to_string();
    let survivors: Vec<Worker> = (0..3)
        .map(|i| {
            let orm = if i % 2 == 0 { "seaorm" } else { "diesel" };
            Worker::start(
                db.url(),
                &format!("s{i}-{orm}"),
                &name,
                &[
                    "--orm",
                    orm,
                    "--ids",
                    &ids_s,
                    "--step",
                    &step_s,
                    "--pace-us",
                    "200",
                ],
            )
        })
        .collect();
    let mut victim = Worker::start(
        db.url(),
        "victim-diesel",
        &name,
        &[
            "--orm",
            "diesel",
            "--ids",
            "1000000",
            "--step",
            &step_s,
            "--pace-us",
            "500",
        ],
    );
    for w in survivors.iter().chain([&victim]) {
        w.wait_for("READY");
    }
    // Mid-segment: 250 is not a multiple of the step, and it keeps going.
    let deadline = Instant::now() + PATIENCE;
    while count(&conn, "segment_ids", "victim-diesel").await < 250 {
        assert!(Instant::now() < deadline, "the victim stored nothing");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    victim.kill9();
    // Not the victim's final count: the server may still commit an insert
    // the victim sent before it died. Its rows are counted at the end.
    let victim_rows_at_kill = count(&conn, "segment_ids", "victim-diesel").await;

    let each = finish_storing(survivors);
    assert!(
        each.iter().all(|i| *i >= ids),
        "the survivors issued {each:?}"
    );
    let issued: u64 = each.iter().sum();

    // Plain SQL: every stored value and who stored it; the row's max_id.
    let rows: Vec<(u64, String)> = query(&conn, "SELECT id, worker FROM segment_ids ORDER BY id")
        .await
        .iter()
        .map(|r| {
            (
                u64::try_from(r.try_get::<i64>("", "id").unwrap()).unwrap(),
                r.try_get("", "worker").unwrap(),
            )
        })
        .collect();
    let max_id = row_max_id(&conn, &name).await;
    let victim_rows = rows.iter().filter(|r| r.1 == "victim-diesel").count() as u64;
    assert!(
        victim_rows >= victim_rows_at_kill,
        "the victim's rows went away"
    );
    assert_eq!(
        rows.len() as u64,
        issued + victim_rows,
        "the survivors' rows are what they issued"
    );
    assert_eq!(max_id % step, 0, "a fixed step: segments are aligned");
    assert!(rows.iter().all(|(v, _)| (1..=max_id).contains(v)));

    // Segment by segment: fully stored by one process, or the victim's
    // remainder (a prefix of it stored by the victim, or nothing).
    let mut by_segment: BTreeMap<u64, Vec<&(u64, String)>> = BTreeMap::new();
    for r in &rows {
        by_segment.entry((r.0 - 1) / step).or_default().push(r);
    }
    let mut gap_segments = 0;
    for s in 0..max_id / step {
        let stored = by_segment.get(&s).map_or(&[][..], Vec::as_slice);
        let workers: BTreeSet<&str> = stored.iter().map(|r| r.1.as_str()).collect();
        assert!(workers.len() <= 1, "segment {s} was served by {workers:?}");
        if stored.len() as u64 == step {
            continue;
        }
        gap_segments += 1;
        assert!(
            workers.is_empty() || workers.contains("victim-diesel"),
            "segment {s} has a gap but belonged to {workers:?}, which drained its source"
        );
        let first = s * step + 1;
        for (i, r) in stored.iter().enumerate() {
            assert_eq!(
                r.0,
                first + i as u64,
                "the victim's values of segment {s} are a prefix"
            );
        }
    }
    let gap = max_id - rows.len() as u64;
    assert!(
        gap_segments <= 2,
        "{gap_segments} segments with gaps; the victim held at most 2"
    );
    assert!(gap < 2 * step);
    report(&format!(
        "{test}: 4 processes (1 SIGKILLed) x {} IDs x 0 duplicates; row max_id {max_id}, \
         gap {gap} (the killed process's remainder, {gap_segments} segments)",
        rows.len()
    ));
}

scenario_tests! {
    postgres_processes_share_a_segment_row_one_killed:
        processes_share_a_row_and_a_killed_one_leaves_only_its_remainder(db::postgres().await, "pg-kill");
    mariadb_processes_share_a_segment_row_one_killed:
        processes_share_a_row_and_a_killed_one_leaves_only_its_remainder(db::mysql().await, "my-kill");
}

// ---------------------------------------------------------------------------
// Short keys from two processes
// ---------------------------------------------------------------------------

async fn keys(conn: &DatabaseConnection) -> Vec<(String, u64, String)> {
    query(conn, "SELECT k, idx, worker FROM segment_keys ORDER BY idx")
        .await
        .iter()
        .map(|r| {
            (
                r.try_get("", "k").unwrap(),
                u64::try_from(r.try_get::<i64>("", "idx").unwrap()).unwrap(),
                r.try_get("", "worker").unwrap(),
            )
        })
        .collect()
}

async fn short_keys_from_two_processes(db: TestDb, test: &str) {
    let conn = prepare(&db).await;
    // The article's example: n = 5 keys, step k = 3: 0, 3, 1, 4, 2.
    let small = format!("{test}-n5");
    let n5 = [
        "--alphabet",
        "01234",
        "--length",
        "1",
        "--k",
        "3",
        "--step",
        "1",
        "--pace-us",
        "1000",
    ];
    let ws = one_per_orm(&db, "n5", &small, "shortkeys", &n5);
    let issued: u64 = finish_storing(ws).iter().sum();
    let stored = keys(&conn).await;
    assert_eq!(issued, 5);
    let pairs: Vec<(u64, &str)> = stored.iter().map(|(k, i, _)| (*i, k.as_str())).collect();
    assert_eq!(pairs, [(0, "0"), (1, "3"), (2, "1"), (3, "4"), (4, "2")]);

    // A larger space: 36^4 keys, blocks of 50, 1,500 keys per process.
    conn.execute_unprepared("DELETE FROM segment_keys")
        .await
        .unwrap();
    let large = format!("{test}-n36e4");
    let n36e4 = [
        "--alphabet",
        "0123456789abcdefghijklmnopqrstuvwxyz",
        "--length",
        "4",
        "--step",
        "50",
        "--ids",
        "1500",
    ];
    let ws = one_per_orm(&db, "big", &large, "shortkeys", &n36e4);
    let each = finish_storing(ws);
    assert_eq!(each, [1_500, 1_500]);
    let issued: u64 = each.iter().sum();
    let stored = keys(&conn).await;
    assert_eq!(stored.len() as u64, issued);
    assert!(stored.iter().all(|(k, _, _)| k.len() == 4), "fixed length");
    let indices: HashSet<u64> = stored.iter().map(|r| r.1).collect();
    assert_eq!(indices.len(), stored.len(), "every index once");
    report(&format!(
        "{test}: short keys, 2 processes x 1500 keys x 0 duplicates (n=5,k=3 exact)"
    ));
}

scenario_tests! {
    postgres_short_keys_from_two_processes:
        short_keys_from_two_processes(db::postgres().await, "pg-keys");
    mariadb_short_keys_from_two_processes:
        short_keys_from_two_processes(db::mysql().await, "my-keys");
}

// ---------------------------------------------------------------------------
// DecimalId generator IDs from two processes, across restarts
// ---------------------------------------------------------------------------

async fn decimal_ids_across_restarts(db: TestDb, test: &str) {
    let conn = prepare(&db).await;
    let name = format!("{test}-generators");
    let mut issued = 0;
    for round in 0..3 {
        let ws = one_per_orm(
            &db,
            &format!("r{round}"),
            &name,
            "decimal",
            &["--step", "1", "--max-counter", "5", "--ids", "40"],
        );
        let each = finish_storing(ws);
        assert_eq!(each, [40, 40]);
        issued += each.iter().sum::<u64>();
    }
    let rows = query(&conn, "SELECT generator_id, worker FROM segment_decimal").await;
    assert_eq!(rows.len() as u64, issued);
    let mut owner: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    for r in &rows {
        owner
            .entry(r.try_get("", "generator_id").unwrap())
            .or_default()
            .insert(r.try_get("", "worker").unwrap());
    }
    for (g, ws) in &owner {
        assert_eq!(ws.len(), 1, "generator ID {g} used by {ws:?}");
    }
    // 40 IDs, 5 per generator ID: 8 generator IDs per process run.
    let generator_ids = owner.len();
    assert_eq!(generator_ids, 6 * 8);
    report(&format!(
        "{test}: DecimalId, 2 processes x 3 runs x 40 IDs x 0 duplicates, {generator_ids} \
         generator IDs, none reused"
    ));
}

scenario_tests! {
    postgres_decimal_generator_ids_never_reused_across_restarts:
        decimal_ids_across_restarts(db::postgres().await, "pg-decimal");
    mariadb_decimal_generator_ids_never_reused_across_restarts:
        decimal_ids_across_restarts(db::mysql().await, "my-decimal");
}

// ---------------------------------------------------------------------------
// The database paused mid-prefetch
// ---------------------------------------------------------------------------

/// Takes a value on a blocking thread (a source's caller may wait).
async fn take(ids: &Arc<SegmentIds>) -> Result<u64, SegmentError> {
    let ids = ids.clone();
    tokio::task::spawn_blocking(move || ids.next_value())
        .await
        .expect("the take task")
}

async fn paused_mid_prefetch(db: TestDb, test: &str) {
    let (container, _pauses) = to_pause(db.container()).await;
    let conn = prepare(&db).await;
    let name = format!("{test}-pause");
    let options = || {
        SegmentOptions::new(name.clone())
            .step(100)
            .max_step(100)
            .prefetch_at(0.5)
            .wait(Duration::from_millis(300))
            .retry_every(Duration::from_millis(200))
            // Generous: on a busy machine the first fetch from a freshly
            // started server can take over a second. Nothing below waits
            // on it: a caller waits `wait` (300 ms), and the fetch hung on
            // the paused server completes when it is unpaused.
            .fetch_timeout(Duration::from_secs(5))
    };
    let seaorm = Arc::new(
        flakeid_seaorm::segment::start(&conn, options())
            .await
            .unwrap(),
    );
    let url = db.url().to_owned();
    let opts = options();
    let diesel = Arc::new(
        tokio::task::spawn_blocking(move || start_diesel_segment(url, opts))
            .await
            .unwrap()
            .unwrap(),
    );
    let sources = [("seaorm", seaorm), ("diesel", diesel)];
    let mut served: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    // Past the first trigger: the second segment arrives.
    for (orm, ids) in &sources {
        for _ in 0..51 {
            served
                .entry(orm)
                .or_default()
                .push(take(ids).await.unwrap());
        }
        let deadline = Instant::now() + PATIENCE;
        while ids.stats().next.is_none() {
            assert!(
                Instant::now() < deadline,
                "{orm}: the prefetch never arrived"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    container.pause().await;
    // Both segments are served from memory; the second's trigger starts a
    // prefetch that hangs on the paused server.
    for (orm, ids) in &sources {
        for _ in 0..149 {
            let v = take(ids)
                .await
                .unwrap_or_else(|e| panic!("{orm} while paused: {e}"));
            served.entry(orm).or_default().push(v);
        }
    }
    for (orm, ids) in &sources {
        match take(ids).await {
            Err(e @ SegmentError::Unavailable { .. }) => {
                assert!(
                    e.to_string().contains("both segments are used up"),
                    "{orm}: {e}"
                );
            }
            other => panic!("{orm}: expected Unavailable while paused, got {other:?}"),
        }
    }
    container.unpause().await;

    for (orm, ids) in &sources {
        let deadline = Instant::now() + PATIENCE;
        let first = loop {
            match take(ids).await {
                Ok(v) => break v,
                Err(SegmentError::Unavailable { .. }) => {
                    assert!(Instant::now() < deadline, "{orm}: never recovered");
                }
                Err(e) => panic!("{orm}: {e}"),
            }
        };
        let list = served.entry(orm).or_default();
        list.push(first);
        for _ in 0..150 {
            list.push(take(ids).await.unwrap());
        }
        assert!(list.windows(2).all(|w| w[0] < w[1]), "{orm}: ascending");
    }
    let all: Vec<u64> = served.values().flatten().copied().collect();
    check_served(&conn, &name, &all).await;
    report(&format!(
        "{test}: paused mid-prefetch, 2 sources x {} values x 0 duplicates, served 149 from \
         the buffer, then Unavailable, then recovered",
        all.len() / 2
    ));
}

scenario_tests! {
    postgres_paused_mid_prefetch_serves_the_buffer_then_refuses_then_recovers:
        paused_mid_prefetch(db::postgres_to_pause().await, "pg");
    mariadb_paused_mid_prefetch_serves_the_buffer_then_refuses_then_recovers:
        paused_mid_prefetch(db::mysql_to_pause().await, "my");
}

// ---------------------------------------------------------------------------
// A one-sided partition mid-prefetch (Diesel)
// ---------------------------------------------------------------------------

/// How long a fetch may take in the partition test: also the deadline of
/// each of Diesel's statements. Generous: the first fetch from a freshly
/// started server can take over a second on a busy machine.
const PARTITION_FETCH_TIMEOUT: Duration = Duration::from_secs(3);
const PARTITION_RETRY_EVERY: Duration = Duration::from_millis(200);

/// Which ORM's source a test runs.
#[derive(Debug, Clone, Copy)]
enum Orm {
    Diesel,
    SeaOrm,
}

/// A source reaches PostgreSQL through a proxy that goes silent for good
/// on the connections it carries (a one-sided partition: nothing is
/// closed, nothing answers), and on those opened while it lasts. The
/// prefetch hangs on its connection. Diesel's statements each have the
/// fetch timeout as their deadline; SeaORM's fetch is dropped at it. Once
/// the proxy forwards again the source serves values after at most that
/// timeout (the hung fetch failing), the retry interval and one fetch, and
/// never serves a value twice.
async fn recovers_from_a_silent_connection(orm: Orm) {
    let db = db::postgres().await;
    let conn = prepare(&db).await;
    let (target, through) = flakeid_tests::proxy::server_of(db.url());
    let proxy = flakeid_tests::proxy::Proxy::start(target).await;
    let url = through(proxy.addr());
    let name = format!("pg-partition-{orm:?}");
    let options = SegmentOptions::new(name.clone())
        .step(100)
        .max_step(100)
        .prefetch_at(0.5)
        .wait(Duration::from_millis(300))
        .retry_every(PARTITION_RETRY_EVERY)
        .fetch_timeout(PARTITION_FETCH_TIMEOUT);
    let ids = Arc::new(match orm {
        Orm::Diesel => tokio::task::spawn_blocking(move || {
            flakeid_diesel::segment::start(
                move || <diesel::PgConnection as diesel::Connection>::establish(&url),
                options,
            )
        })
        .await
        .expect("the start task")
        .expect("the first segment"),
        Orm::SeaOrm => {
            let through_proxy = Database::connect(&url)
                .await
                .unwrap_or_else(|e| panic!("connect through the proxy: {e}"));
            flakeid_seaorm::segment::start(&through_proxy, options)
                .await
                .expect("the first segment")
        }
    });
    let mut served = Vec::new();
    // Past the first trigger: the second segment arrives.
    for _ in 0..51 {
        served.push(take(&ids).await.expect("a value of the first segment"));
    }
    let deadline = Instant::now() + PATIENCE;
    while ids.stats().next.is_none() {
        assert!(Instant::now() < deadline, "the prefetch never arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    proxy.cut();
    // Both segments are served from memory; the second's trigger starts a
    // prefetch that hangs on the silent connection, then fails at its
    // deadline and is retried on connections that stay silent too.
    for _ in 0..149 {
        served.push(take(&ids).await.expect("a value in memory"));
    }
    match take(&ids).await {
        Err(SegmentError::Unavailable { .. }) => {}
        other => panic!("expected Unavailable while cut off, got {other:?}"),
    }
    // Longer than the deadline: the first hung statement has failed.
    tokio::time::sleep(PARTITION_FETCH_TIMEOUT + Duration::from_secs(1)).await;
    proxy.heal();
    let healed = Instant::now();
    // The statement hung at the heal fails within the deadline, the retry
    // comes after its interval, and one fetch on a fresh connection: 5 s
    // for that fetch on a loaded machine.
    let bound = PARTITION_FETCH_TIMEOUT + PARTITION_RETRY_EVERY + Duration::from_secs(5);
    let first = loop {
        match take(&ids).await {
            Ok(v) => break v,
            Err(SegmentError::Unavailable { .. }) => {
                assert!(
                    healed.elapsed() <= bound,
                    "no value {bound:?} after the network came back: the fetch still hangs \
                     on its silent connection"
                );
            }
            Err(e) => panic!("{e}"),
        }
    };
    let recovered_in = healed.elapsed();
    served.push(first);
    // The next segments come from fetches on a loaded machine, which may
    // outlast a caller's 300 ms wait: ask again until PATIENCE.
    let deadline = Instant::now() + PATIENCE;
    while served.len() < 351 {
        match take(&ids).await {
            Ok(v) => served.push(v),
            Err(SegmentError::Unavailable { .. }) if Instant::now() < deadline => {}
            Err(e) => panic!("a value after the partition: {e}"),
        }
    }
    assert!(served.windows(2).all(|w| w[0] < w[1]), "ascending");
    check_served(&conn, &name, &served).await;
    report(&format!(
        "pg-partition: {orm:?}, {} values x 0 duplicates, values again {recovered_in:?} after \
         the network came back (bound {bound:?})",
        served.len()
    ));
}

scenario_tests! {
    diesel_source_recovers_from_a_silent_connection_within_its_fetch_timeout:
        recovers_from_a_silent_connection(Orm::Diesel);
    seaorm_source_recovers_from_a_silent_connection_within_its_fetch_timeout:
        recovers_from_a_silent_connection(Orm::SeaOrm);
}
