//! A fleet's life with real processes on real servers: a holder cut off
//! past its lease while another takes its node moves to a free node
//! without a restart; a holder whose clock runs a day ahead is refused and
//! leaves nothing behind; a node left unusable by such a clock is skipped.
//! What the database stored is checked with plain SQL.

use std::io::Write as _;
use std::time::Duration;

use super::lease_common::{
    Worker, check_rows, hold_file, lease_args, lease_row, prepare, report, report_done, rows,
    scenario_tests, space, until_stored, wall_ms,
};
use flakeid_tests::db::{self, TestDb};
use flakeid_tests::process::field;
use sea_orm::{ConnectionTrait, Statement};

/// A holder (issuing through the process-wide generator) is stopped past
/// its TTL; another process takes its node. When it resumes, its renewal
/// finds the node taken, it claims the other, free node and keeps
/// inserting without a restart. No ID repeats; every ID it issued after
/// the move carries the new node; the gap without IDs is printed.
async fn a_cut_off_holder_moves_to_a_free_node(db: TestDb, name: &str, orm: &str) {
    let conn = prepare(&db).await;
    let space = space(name);
    let (hold_path, hold) = hold_file(&space);
    let ids = 6_000u64;
    let mut a = Worker::start(
        db.url(),
        "a",
        &[
            &lease_args(&space, "2", orm)[..],
            &[
                "--process-wide",
                "--ids",
                &ids.to_string(),
                "--pace-us",
                "1000",
                "--ttl-ms",
                "1500",
                "--renew-ms",
                "300",
            ],
        ]
        .concat(),
    );
    let ready = a.ready();
    until_stored(&conn, "a", 300).await;
    a.signal("STOP");
    let stopped_at = wall_ms();
    // Past A's lease; B waits for exactly A's node and takes it.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let node = ready.node.to_string();
    let range = format!("{node}-{node}");
    let mut b = Worker::start(
        db.url(),
        "b",
        &[
            "--space",
            &space,
            "--node-range",
            &range,
            "--orm",
            orm,
            "--ids",
            "500",
            "--wait-for-node-ms",
            "60000",
            "--ttl-ms",
            "1500",
            "--renew-ms",
            "300",
            "--hold-file",
            &hold,
        ],
    );
    let b_ready = b.ready();
    assert_eq!(b_ready.node, ready.node);
    assert!(b_ready.fence > ready.fence);
    until_stored(&conn, "b", 500).await;
    a.signal("CONT");
    let resumed_at = wall_ms();
    let moved = a.wait_for(&["MOVED"]);
    let new_node: u64 = field(&moved, "node");
    assert_ne!(new_node, ready.node, "{moved}");
    std::fs::write(&hold_path, b"go").unwrap();
    let (a_done, a_code) = a.finish();
    let a_done = a_done.expect("A finished");
    assert_eq!(a_code, 0);
    assert_eq!(a_done.issued, ids, "A issued everything without a restart");
    let (b_done, b_code) = b.finish();
    let b_done = b_done.expect("B finished");
    assert_eq!(b_code, 0);

    let stored = rows(&conn).await;
    let check = check_rows(&stored);
    let a_rows: Vec<_> = stored.iter().filter(|r| r.worker == "a").collect();
    let first_new = a_rows
        .iter()
        .filter(|r| r.node == new_node)
        .map(|r| r.issued_ms)
        .min()
        .expect("A inserted on its new node");
    // Every call A made after it noticed the move got an ID of the new node.
    let moved_at: i64 = field(&moved, "at");
    assert!(
        a_rows
            .iter()
            .filter(|r| r.issued_ms > moved_at)
            .all(|r| r.node == new_node)
    );
    let (owner, _, _) = lease_row(&conn, &space, new_node).await;
    assert_eq!(owner, None, "A released its new node");
    assert_eq!(report_done(name, &[a_done, b_done], check.rows), 0);
    // Straight to stderr: shown in every run, not only with --nocapture.
    let _ = writeln!(
        std::io::stderr().lock(),
        "lease test {name}: stopped {} ms; after SIGCONT the first ID of node {new_node} came \
         {} ms later (renewal every 300 ms, TTL 1500 ms)",
        resumed_at - stopped_at,
        first_new - resumed_at
    );
}

scenario_tests! {
    postgres_seaorm_cut_off_holder_moves_to_a_free_node:
        a_cut_off_holder_moves_to_a_free_node(db::postgres().await, "pg-move", "seaorm");
    mariadb_diesel_cut_off_holder_moves_to_a_free_node:
        a_cut_off_holder_moves_to_a_free_node(db::mysql().await, "my-move", "diesel");
}

/// A holder whose clock runs a day ahead is refused at its claim, says so
/// as an event, and leaves the node free with its mark where it was; a
/// holder with a good clock takes the node at once. A node whose mark a
/// day ahead was written before (by hand here, as an older version could
/// have) is skipped while another is free.
async fn a_day_fast_holder_is_refused(db: TestDb, name: &str, orm: &str) {
    let conn = prepare(&db).await;
    let space = space(name);
    let day = 86_400_000i64;
    let fast_clock = format!("manual:{}", wall_ms() + day);
    let mut fast = Worker::start(
        db.url(),
        "fast",
        &[
            &lease_args(&space, "1", orm)[..],
            &["--clock", &fast_clock, "--ids", "10"],
        ]
        .concat(),
    );
    let refused = fast.wait_for(&["CLOCK_AHEAD", "READY"]);
    assert!(refused.starts_with("CLOCK_AHEAD"), "{refused}");
    assert!(refused.contains("ahead of the lease store's"), "{refused}");
    let said = fast.said();
    let (_, code) = fast.finish();
    assert_eq!(code, 5);
    assert!(
        said.iter()
            .any(|l| l.starts_with("EVENT ERROR") && l.contains("clock runs ahead")),
        "no event: {said:?}"
    );
    let (owner, fence, high_water) = lease_row(&conn, &space, 0).await;
    assert_eq!(owner, None, "the refused claim freed the node");
    assert_eq!(fence, 1);
    assert!(
        high_water < wall_ms() + 60_000,
        "a mark ahead was written: {high_water}"
    );
    // A holder with a good clock takes the node now and is not held back.
    let mut good = Worker::start(
        db.url(),
        "good",
        &[&lease_args(&space, "1", orm)[..], &["--ids", "200"]].concat(),
    );
    let ready = good.ready();
    assert_eq!(ready.node, 0);
    let (done, code) = good.finish();
    assert_eq!((code, done.expect("finished").inserted), (0, 200));

    // Node 0 poisoned by an earlier mark a day ahead: claims skip it.
    let backend = conn.get_database_backend();
    conn.execute_raw(Statement::from_string(
        backend,
        format!(
            "UPDATE flakeid_nodes SET high_water = {} WHERE space = '{space}' AND node_id = 0",
            wall_ms() + day
        ),
    ))
    .await
    .unwrap();
    let mut next = Worker::start(
        db.url(),
        "next",
        &[&lease_args(&space, "2", orm)[..], &["--ids", "100"]].concat(),
    );
    assert_eq!(next.ready().node, 1, "the poisoned node was skipped");
    let (done, _) = next.finish();
    assert_eq!(done.expect("finished").inserted, 100);
    let listing = flakeid_seaorm::lease::list_nodes(&conn, &space)
        .await
        .unwrap()
        .to_string();
    assert!(
        listing.contains("ahead of the store clock: unusable until then"),
        "{listing}"
    );
    let stored = rows(&conn).await;
    let check = check_rows(&stored);
    assert_eq!(report(name, 3, 300, check.rows, 0), 0);
}

scenario_tests! {
    postgres_day_fast_holder_is_refused_and_the_node_stays_usable:
        a_day_fast_holder_is_refused(db::postgres().await, "pg-fast", "seaorm");
    mariadb_day_fast_holder_is_refused_and_the_node_stays_usable:
        a_day_fast_holder_is_refused(db::mysql().await, "my-fast", "diesel");
}
