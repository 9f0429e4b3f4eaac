//! The database paused (`docker pause` of its container) while lease
//! holders renew: they reach their ceilings and stop issuing, then carry
//! on when it returns; no ID is lost or repeated. A test binary of its
//! own: pausing the server must not stall other tests.

use std::process::Command;
use std::time::Duration;

use super::lease_common::{Worker, check_rows, count_of, prepare, report, rows, space, until};
use flakeid_tests::db::{self, TestDb};

fn docker(args: &[&str]) {
    let status = Command::new("docker")
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("docker {args:?}: {e}"));
    assert!(status.success(), "docker {args:?}: {status}");
}

async fn holders_fence_while_the_database_is_paused(db: TestDb, name: &str) {
    let container = db
        .container_id()
        .expect("this test pauses the server's container: run it with a container, not a URL")
        .to_owned();
    let conn = prepare(&db).await;
    let space = space(name);
    let ids = 4_000u64;
    let mut workers: Vec<Worker> = (0..3)
        .map(|i| {
            let orm = if i % 2 == 0 { "seaorm" } else { "diesel" };
            Worker::start(
                db.url(),
                &format!("p{i}-{orm}"),
                &[
                    "--space",
                    &space,
                    "--nodes",
                    "3",
                    "--orm",
                    orm,
                    "--ids",
                    &ids.to_string(),
                    "--pace-us",
                    "1000",
                    "--ttl-ms",
                    "1500",
                    "--renew-ms",
                    "300",
                ],
            )
        })
        .collect();
    for w in &mut workers {
        w.ready();
    }
    for w in &workers {
        let tag = w.tag.clone();
        until("every holder stored IDs", || {
            let (conn, tag) = (conn.clone(), tag.clone());
            async move { count_of(&conn, &tag).await >= 100 }
        })
        .await;
    }
    // Longer than the ceiling lead (the 1.5 s TTL): every holder meets its ceiling.
    docker(&["pause", &container]);
    tokio::time::sleep(Duration::from_secs(4)).await;
    docker(&["unpause", &container]);

    let (mut issued, mut dups) = (0, 0);
    for w in workers {
        let tag = w.tag.clone();
        let said = w.said();
        let (done, code) = w.finish();
        let done = done.unwrap_or_else(|| panic!("{tag} did not finish"));
        assert_eq!(code, 0, "{tag}");
        assert_eq!(done.issued, ids, "{tag}: nothing lost");
        assert!(!done.lost, "{tag}: nobody else took its node");
        assert!(
            done.fenced >= 1,
            "{tag} never stopped at its ceiling while the database was paused: {said:?}"
        );
        issued += done.issued;
        dups += done.duplicates;
    }
    let stored = rows(&conn).await;
    let check = check_rows(&stored);
    let found = report(name, 3, issued, check.rows, dups);
    assert_eq!(found, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_paused_mid_renewal_holders_fence_then_recover() {
    holders_fence_while_the_database_is_paused(db::postgres().await, "pg-pause").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_paused_mid_renewal_holders_fence_then_recover() {
    holders_fence_while_the_database_is_paused(db::mysql().await, "my-pause").await;
}
