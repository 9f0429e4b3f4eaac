//! Node leases across real processes on real PostgreSQL and MariaDB
//! servers: `lease_worker` processes compete for fewer node IDs than there
//! are processes, get killed (SIGKILL), stopped past their lease (SIGSTOP),
//! restarted with a clock stepped back or inside the same tick, and all
//! insert into one table with a primary key. Each test prints
//! `processes x IDs x duplicates found`.

use std::io::Write as _;

use super::lease_common::{
    Done, IdRow, Worker, assert_no_duplicates, assert_refused_at_once, check_rows, go_and_finish,
    hold_file, lease_args, prepare, report, report_done, rows, scenario_tests, space, until,
    until_stored, wall_ms,
};
use flakeid_tests::db::{self, TestDb};
use sea_orm::{ConnectionTrait, DbBackend, Statement};

/// Where a manual clock starts: now, so that the store's clock check
/// (`--max-clock-skew-ms`) sees a holder in step with it.
fn start_clock() -> u64 {
    u64::try_from(wall_ms()).unwrap()
}

/// The manual clocks below run up to 40 s of clock time plus a minute of
/// ceiling lead ahead of the store's: allowed, since the claim here is
/// about restarts, not skew.
const SKEW_MS: &str = "600000";

fn ms(v: u64) -> String {
    v.to_string()
}

// ---------------------------------------------------------------------------
// Six processes, four nodes
// ---------------------------------------------------------------------------

async fn six_processes_share_four_nodes(db: TestDb, name: &str) {
    let conn = prepare(&db).await;
    let space = space(name);
    let (hold, hold_s) = hold_file(&space);
    let ids = 2_000u64;
    let args = |orm: &'static str| {
        vec![
            "--space".to_owned(),
            space.clone(),
            "--nodes".into(),
            "4".into(),
            "--orm".into(),
            orm.into(),
            "--ids".into(),
            ms(ids),
            "--pace-us".into(),
            "100".into(),
            "--wait-for-node-ms".into(),
            "120000".into(),
            "--hold-file".into(),
            hold_s.clone(),
        ]
    };
    // SeaORM (tokio task) and Diesel (thread) holders compete alike.
    let workers: Vec<Worker> = (0..6)
        .map(|i| {
            let orm = if i % 2 == 0 { "seaorm" } else { "diesel" };
            let a = args(orm);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            Worker::start(db.url(), &format!("w{i}-{orm}"), &a)
        })
        .collect();
    // Four hold a node and wait at the gate; two wait for a node.
    until("four nodes held", || async {
        let sql = format!(
            "SELECT COUNT(*) AS n FROM flakeid_nodes WHERE space = '{space}' AND owner IS NOT NULL"
        );
        let backend = conn.get_database_backend();
        let row = conn
            .query_one_raw(Statement::from_string(backend, sql))
            .await
            .unwrap()
            .unwrap();
        row.try_get::<i64>("", "n").unwrap() == 4
    })
    .await;
    // A seventh process that will not wait is told so, clearly.
    let refusal = assert_refused_at_once(db.url(), &["--space", &space, "--nodes", "4"]);
    assert!(refusal.contains("ends in"), "{refusal}");

    let done = go_and_finish(&hold, workers, ids);
    assert_no_duplicates(&conn, name, &done).await;
    // Six claims in all: the two that waited took released nodes.
    let backend = conn.get_database_backend();
    let sql = format!(
        "SELECT CAST(SUM(fence) AS {}) AS f FROM flakeid_nodes WHERE space = '{space}'",
        if backend == DbBackend::MySql {
            "SIGNED"
        } else {
            "BIGINT"
        }
    );
    let row = conn
        .query_one_raw(Statement::from_string(backend, sql))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.try_get::<i64>("", "f").unwrap(), 6);
    let _ = std::fs::remove_file(&hold);
}

scenario_tests! {
    postgres_six_processes_share_four_nodes:
        six_processes_share_four_nodes(db::postgres().await, "pg-six-of-four");
    mariadb_six_processes_share_four_nodes:
        six_processes_share_four_nodes(db::mysql().await, "my-six-of-four");
}

// ---------------------------------------------------------------------------
// SIGKILL
// ---------------------------------------------------------------------------

/// `extra`: more worker arguments (the etcd store's `--etcd URL`).
pub(super) async fn killed_holder_is_taken_over(db: TestDb, name: &str, orm: &str, extra: &[&str]) {
    let conn = prepare(&db).await;
    let space = space(name);
    let (hold, hold_s) = hold_file(&space);
    let common = [&lease_args(&space, "2", orm)[..], extra].concat();
    // A issues for long; B holds the other node until the test lets it go.
    let mut a = Worker::start(
        db.url(),
        "victim",
        &[&common[..], &["--ids", "1000000", "--pace-us", "200"]].concat(),
    );
    let ready_a = a.ready();
    let mut b = Worker::start(
        db.url(),
        "bystander",
        &[&common[..], &["--ids", "2000", "--hold-file", &hold_s]].concat(),
    );
    let ready_b = b.ready();
    assert_ne!(ready_a.node, ready_b.node);
    until_stored(&conn, "victim", 500).await;
    a.signal("KILL");
    let (_, code) = a.finish();
    assert_eq!(code, -1, "killed by a signal");
    // C waits for a node: the victim's, once its lease has expired.
    let mut c = start_waiting(db.url(), "successor", &common, "2000");
    let ready_c = c.ready();
    assert_eq!(ready_c.node, ready_a.node, "C takes the victim's node");
    assert_eq!(ready_c.fence, ready_a.fence + 1);
    std::fs::write(&hold, b"go").unwrap();
    let (done_b, _) = b.finish();
    let (done_c, _) = c.finish();
    let (done_b, done_c) = (done_b.unwrap(), done_c.unwrap());
    let stored = rows(&conn).await;
    let last_a = stored
        .iter()
        .filter(|r| r.worker == "victim")
        .map(|r| r.stamped())
        .max()
        .unwrap();
    assert!(
        ready_c.resume_after >= last_a,
        "C resumes after {} but the victim stamped {last_a}",
        ready_c.resume_after
    );
    let check = check_rows(&stored);
    // The victim's IDs: those it stored (an INSERT it sent just before it
    // was killed may complete after; its IDs never sent were lost with it).
    let a_rows = stored.iter().filter(|r| r.worker == "victim").count() as u64;
    let issued = a_rows + done_b.issued + done_c.issued;
    let found = report(
        name,
        3,
        issued,
        check.rows,
        done_b.duplicates + done_c.duplicates,
    );
    assert_eq!(found, 0);
    let _ = std::fs::remove_file(&hold);
}

scenario_tests! {
    postgres_killed_holders_node_is_taken_over_after_expiry:
        killed_holder_is_taken_over(db::postgres().await, "pg-sigkill", "diesel", &[]);
    mariadb_killed_holders_node_is_taken_over_after_expiry:
        killed_holder_is_taken_over(db::mysql().await, "my-sigkill", "seaorm", &[]);
}

// ---------------------------------------------------------------------------
// SIGSTOP past the lease
// ---------------------------------------------------------------------------

async fn stopped_holder_stamps_nothing_after_its_lease_is_lost(db: TestDb, name: &str, orm: &str) {
    let conn = prepare(&db).await;
    let space = space(name);
    let common = lease_args(&space, "1", orm);
    let mut a = Worker::start(
        db.url(),
        "sleeper",
        &[&common[..], &["--ids", "1000000", "--pace-us", "500"]].concat(),
    );
    let ready_a = a.ready();
    until_stored(&conn, "sleeper", 300).await;
    a.signal("STOP");
    let stopped_at = wall_ms();
    // B waits for the node and gets it once A's lease has expired.
    let mut b = start_waiting(db.url(), "taker", &common, "3000");
    let ready_b = b.ready();
    assert_eq!(ready_b.fence, ready_a.fence + 1);
    let (done_b, code_b) = b.finish();
    let done_b = done_b.expect("the taker finishes");
    assert_eq!(code_b, 0);
    // A wakes up: it finds its clock beyond its ceiling, its renewal finds
    // the row taken, and it stops.
    a.signal("CONT");
    let lost = a.wait_for(&["LOST"]);
    assert!(lost.contains("was taken over by another holder"), "{lost}");
    let (done_a, code_a) = a.finish();
    let done_a = done_a.expect("the sleeper reports");
    assert!(done_a.lost);
    assert_eq!(code_a, 0);

    // What the table says, not only the error. `issued_ms` is read just
    // before each call, so an ID issued after the stop has it later than
    // the stop (allowing the signal 200 ms to take effect). Right after it
    // wakes, the holder's clock reading may lag (its clock thread was
    // stopped too), so it may still issue IDs; but none may be stamped
    // later than the moment it was stopped: nothing in the lost lease's
    // time, nothing near the next holder's.
    let stored = rows(&conn).await;
    let a_rows: Vec<_> = stored.iter().filter(|r| r.worker == "sleeper").collect();
    let (before, after): (Vec<&IdRow>, Vec<&IdRow>) = a_rows
        .iter()
        .copied()
        .partition(|r| r.issued_ms <= stopped_at + 200);
    let limit = u64::try_from(stopped_at + 200).unwrap();
    let late: Vec<_> = after.iter().filter(|r| r.stamped() > limit).collect();
    assert!(
        late.is_empty(),
        "the stopped holder stamped {} IDs later than it was stopped ({stopped_at} ms): {:?}",
        late.len(),
        &late[..late.len().min(3)]
    );
    let last_a = a_rows.iter().map(|r| r.stamped()).max().unwrap();
    assert!(
        last_a <= ready_b.resume_after,
        "A stamped {last_a}, B resumed after {}",
        ready_b.resume_after
    );
    let check = check_rows(&stored);
    assert_eq!(report_done(name, &[done_a, done_b], check.rows), 0);
    let _ = writeln!(
        std::io::stderr().lock(),
        "lease test {name}: the stopped holder issued {} IDs before SIGSTOP and {} after it, \
         none stamped later than the stop",
        before.len(),
        after.len()
    );
}

scenario_tests! {
    postgres_stopped_holder_stamps_nothing_after_its_lease_is_lost:
        stopped_holder_stamps_nothing_after_its_lease_is_lost(db::postgres().await, "pg-sigstop", "seaorm");
    mariadb_stopped_holder_stamps_nothing_after_its_lease_is_lost:
        stopped_holder_stamps_nothing_after_its_lease_is_lost(db::mysql().await, "my-sigstop", "diesel");
}

// ---------------------------------------------------------------------------
// Restarts: clock stepped back 30 s, restart inside the same tick
// ---------------------------------------------------------------------------

/// Runs one worker to its end; its report.
fn run_to_end(url: &str, tag: &str, args: &[String]) -> Done {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (done, code) = Worker::start(url, tag, &args).finish();
    done.unwrap_or_else(|| panic!("{tag} did not finish (exit {code})"))
}

/// Starts a worker that waits (up to a minute) for a node of `common` and
/// then issues `ids` IDs.
fn start_waiting(url: &str, tag: &str, common: &[&str], ids: &str) -> Worker {
    let more = ["--ids", ids, "--wait-for-node-ms", "60000"];
    Worker::start(url, tag, &[common, &more[..]].concat())
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

/// The source arguments of one node by `kind`: a leased node in `space`,
/// a high-water file, or the fixed node 0.
fn source(kind: &str, space: &str, file: &str) -> Vec<String> {
    match kind {
        "table" => strings(&[
            "--space",
            space,
            "--nodes",
            "1",
            "--wait-for-node-ms",
            "60000",
        ]),
        "file" => vec!["--source".into(), format!("file:{file}:0")],
        _ => strings(&["--source", "fixed:0"]),
    }
}

/// Two runs of one node by `kind` (see [`source`]) in the space `name`,
/// the second after the first ended, `what` happening between them: run 1
/// with the arguments `run1` gives for the manual clock's start, run 2 with
/// those `run2` gives for that start and run 1's report. With a fixed node
/// (nothing persisted) IDs repeat; with a leased node or a high-water file
/// none do.
async fn across_a_restart(
    kind: &str,
    name: &str,
    what: &str,
    run1: impl FnOnce(u64) -> Vec<String>,
    run2: impl FnOnce(u64, &Done) -> Vec<String>,
) {
    let db = db::postgres().await;
    let conn = prepare(&db).await;
    let space = space(&format!("{name}-{kind}"));
    let file = std::env::temp_dir().join(format!("{space}.hw"));
    let _ = std::fs::remove_file(&file);
    let src = source(kind, &space, &file.display().to_string());
    let start = start_clock();
    let first = run_to_end(db.url(), "run1", &[src.clone(), run1(start)].concat());
    let second = run_to_end(db.url(), "run2", &[src, run2(start, &first)].concat());
    let stored = rows(&conn).await;
    let found = report_done(&format!("{what}, {kind}"), &[first, second], stored.len());
    if kind != "fixed" {
        check_rows(&stored);
    }
    let _ = std::fs::remove_file(&file);
    if kind == "fixed" {
        assert!(found > 0, "a fixed node repeats IDs: {what}");
    } else {
        assert_eq!(found, 0);
    }
}

/// Run 1 issues 40,000 IDs, one per millisecond of a manual clock (40 s
/// of clock time); run 2 starts with its clock 30 s behind where run 1's
/// stopped.
async fn clock_stepped_back(kind: &str) {
    // A minute of ceiling lead: the manual clock runs far ahead of real time.
    let timing = || {
        strings(&[
            "--ttl-ms",
            "60000",
            "--lead-ms",
            "60000",
            "--renew-ms",
            "200",
            "--step-ms-per-id",
            "1",
            "--regression-wait-ms",
            "600000",
            "--max-clock-skew-ms",
            SKEW_MS,
        ])
    };
    let run = |clock: u64, ids: &str| {
        [
            timing(),
            strings(&["--clock", &format!("manual:{clock}"), "--ids", ids]),
        ]
        .concat()
    };
    across_a_restart(
        kind,
        "step-back",
        "clock stepped back 30 s across a restart",
        |start| run(start, "40000"),
        |_, first| run(first.clock - 30_000, "5000"),
    )
    .await;
}

/// Run 1 issues 100 IDs in one tick of a manual clock and crashes (no
/// release); run 2 starts at the same clock reading.
async fn restart_inside_the_same_tick(kind: &str) {
    let clock = |start: u64| {
        strings(&[
            "--clock",
            &format!("manual:{start}"),
            "--ids",
            "100",
            "--regression-wait-ms",
            "600000",
            "--max-clock-skew-ms",
            SKEW_MS,
        ])
    };
    across_a_restart(
        kind,
        "same-tick",
        "restart inside the same tick",
        |start| [clock(start), strings(&["--no-release"])].concat(),
        |start, _| clock(start),
    )
    .await;
}

scenario_tests! {
    clock_stepped_back_across_a_restart_repeats_no_id_with_a_leased_node:
        clock_stepped_back("table");
    clock_stepped_back_across_a_restart_repeats_no_id_with_a_high_water_file:
        clock_stepped_back("file");
    /// The same restart with a fixed node ID and nothing persisted does
    /// repeat IDs: the two tests above would fail without their mark.
    clock_stepped_back_across_a_restart_repeats_ids_with_a_fixed_node:
        clock_stepped_back("fixed");
    restart_inside_the_same_tick_repeats_no_id_with_a_leased_node:
        restart_inside_the_same_tick("table");
    restart_inside_the_same_tick_repeats_no_id_with_a_high_water_file:
        restart_inside_the_same_tick("file");
    /// With a fixed node and a clock that reads the same at the restart,
    /// the build-tick rule alone cannot help: the IDs repeat.
    restart_inside_the_same_tick_repeats_ids_with_a_fixed_node:
        restart_inside_the_same_tick("fixed");
}
