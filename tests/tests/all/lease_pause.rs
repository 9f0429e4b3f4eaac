//! The database paused (`docker pause` of its container) while lease
//! holders renew: they reach their ceilings and stop issuing, then carry
//! on when it returns; no ID is lost or repeated. The paused servers are
//! their own (`db::postgres_to_pause`, `db::mysql_to_pause`,
//! `db::etcd_to_pause`): a pause must not stall the other tests.

use std::io::Write as _;
use std::time::Duration;

use super::lease_common::{
    Done, Worker, assert_no_duplicates, finish_issuing, hold_file, lease_args, prepare,
    scenario_tests, space, to_pause, until_stored,
};
use flakeid_tests::db::{self, TestDb};

async fn holders_fence_while_the_database_is_paused(db: TestDb, name: &str) {
    let (container, _pauses) = to_pause(db.container()).await;
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
                    &lease_args(&space, "3", orm)[..],
                    &[
                        "--ids",
                        &ids.to_string(),
                        "--pace-us",
                        "1000",
                        // A TTL of ten renewals: on a loaded machine one
                        // renewal can take over a second, and a lease that
                        // expires before the pause lets another holder take it.
                        "--ttl-ms",
                        "3000",
                        "--renew-ms",
                        "300",
                    ],
                ]
                .concat(),
            )
        })
        .collect();
    for w in &mut workers {
        w.ready();
    }
    for w in &workers {
        until_stored(&conn, &w.tag, 100).await;
    }
    // Longer than the ceiling lead (the 3 s TTL): every holder meets its ceiling.
    container.pause().await;
    tokio::time::sleep(Duration::from_secs(6)).await;
    container.unpause().await;

    let mut done: Vec<Done> = Vec::new();
    for w in workers {
        let tag = w.tag.clone();
        let (d, said) = finish_issuing(w, ids);
        // Its generator met the ceiling: a call was refused, or (when its
        // inserts waited on the paused server until a renewal got
        // through) the lease said so.
        assert!(
            d.fenced >= 1 || said.iter().any(|l| l.contains("node lease fenced")),
            "{tag} never stopped at its ceiling while the database was paused: {said:?}"
        );
        done.push(d);
    }
    assert_no_duplicates(&conn, name, &done).await;
}

scenario_tests! {
    postgres_paused_mid_renewal_holders_fence_then_recover:
        holders_fence_while_the_database_is_paused(db::postgres_to_pause().await, "pg-pause");
    mariadb_paused_mid_renewal_holders_fence_then_recover:
        holders_fence_while_the_database_is_paused(db::mysql_to_pause().await, "my-pause");
}

/// `release` while the lease store does not answer (its server paused)
/// returns within the TTL with an error, on every store: the row frees
/// itself after the TTL. The worker releases only once the server is
/// paused, and the test unpauses it only after the worker said how the
/// release went: a release that waited for the server would never say.
async fn release_returns_within_the_ttl_while_the_store_is_paused(
    db: TestDb,
    name: &str,
    orm: &str,
    etcd: Option<&flakeid_tests::db::Etcd>,
) {
    let store = etcd.map_or(db.container(), |e| e.container());
    let (store_container, _pauses) = to_pause(store).await;
    let conn = prepare(&db).await;
    let space = space(name);
    let (hold, hold_s) = hold_file(&space);
    let mut args = lease_args(&space, "2", orm);
    args.extend([
        "--ids",
        "200",
        "--ttl-ms",
        "3000",
        "--renew-ms",
        "500",
        "--hold-file",
        &hold_s,
    ]);
    if let Some(e) = etcd {
        args.extend(["--etcd", e.url()]);
    }
    let mut w = Worker::start(db.url(), &format!("{name}-holder"), &args);
    w.ready();
    until_stored(&conn, &w.tag, 200).await;
    store_container.pause().await;
    std::fs::write(&hold, b"go").unwrap();
    // A bound on a hang, not a timing assertion: the TTL is 3 s.
    let said = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        w.wait_for_within(&["RELEASED", "RELEASE_FAILED"], Duration::from_secs(60))
    }));
    store_container.unpause().await;
    let line =
        said.unwrap_or_else(|_| panic!("{orm}: release did not return while the store was paused"));
    assert!(line.starts_with("RELEASE_FAILED"), "{orm}: {line}");
    assert!(line.contains("did not answer within 3s"), "{orm}: {line}");
    let (done, code) = w.finish();
    assert_eq!(code, 0, "{orm}");
    assert_eq!(done.expect("finished").inserted, 200);
    // Straight to stderr: shown in every run, not only with --nocapture.
    let _ = writeln!(std::io::stderr().lock(), "lease test {name}: {line}");
}

/// [`release_returns_within_the_ttl_while_the_store_is_paused`] on a
/// PostgreSQL store through `orm`.
async fn release_on_paused_postgres(orm: &str) {
    release_returns_within_the_ttl_while_the_store_is_paused(
        db::postgres_to_pause().await,
        &format!("pg-release-{orm}"),
        orm,
        None,
    )
    .await;
}

scenario_tests! {
    seaorm_release_returns_within_the_ttl_while_postgres_is_paused:
        release_on_paused_postgres("seaorm");
    diesel_release_returns_within_the_ttl_while_postgres_is_paused:
        release_on_paused_postgres("diesel");
    diesel_async_release_returns_within_the_ttl_while_postgres_is_paused:
        release_on_paused_postgres("diesel-async");
}

#[tokio::test(flavor = "multi_thread")]
async fn etcd_release_returns_within_the_ttl_while_etcd_is_paused() {
    let etcd = db::etcd_to_pause().await;
    release_returns_within_the_ttl_while_the_store_is_paused(
        db::postgres().await,
        "etcd-release",
        "etcd",
        Some(etcd),
    )
    .await;
}
