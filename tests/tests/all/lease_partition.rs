//! A one-sided network partition: a lease holder's connections to
//! PostgreSQL go silent (a TCP proxy between them stops forwarding, without
//! closing anything, and the connections cut never recover) while the
//! database stays reachable for everyone else, who takes the holder's node
//! once its lease ran out. Diesel's holder (a renewal thread) and SeaORM's
//! (a tokio task) must each be told, while the partition lasts, that their
//! renewals fail and that they are fenced at their ceiling, and once the
//! network is back, that their node was lost within one renewal interval
//! plus the statement deadline.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use flakeid_core::FenceReason;
use flakeid_core::layout::presets;
use flakeid_lease::{LeaseChanges, LeaseOptions, LeaseStatus};
use flakeid_tests::db::{self, TestDb};
use flakeid_tests::proxy::{Proxy, server_of};

use super::lease_common::space;

/// How often the holders renew.
const RENEW: Duration = Duration::from_millis(250);
/// How long the partition lasts: past the TTL (the ceiling lead).
const PARTITION: Duration = Duration::from_millis(4_500);
const TTL: Duration = Duration::from_secs(2);

/// What a subscriber was told, and when.
type Told = Arc<Mutex<Vec<(Instant, LeaseStatus)>>>;

/// Records every change `changes` receives until `stop`.
fn record(changes: LeaseChanges, stop: Arc<AtomicBool>) -> (Told, std::thread::JoinHandle<()>) {
    let told: Told = Arc::default();
    let into = told.clone();
    let thread = std::thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) {
            if let Some(status) = changes.recv_timeout(Duration::from_millis(20)) {
                into.lock().unwrap().push((Instant::now(), status));
            }
        }
    });
    (told, thread)
}

fn options(space: &str) -> LeaseOptions {
    LeaseOptions::new(space, presets::twitter())
        .nodes(0..=0)
        .spread_claims(false)
        .ttl(TTL)
        .renew_every(RENEW)
}

/// A fresh database with the lease table, a proxy to its server, and the
/// database's URL through the proxy.
async fn behind_a_proxy() -> (TestDb, Proxy, String) {
    let db = db::postgres().await;
    let (proxy, url) = {
        let (target, through) = server_of(db.url());
        let proxy = Proxy::start(target).await;
        let url = through(proxy.addr());
        (proxy, url)
    };
    {
        let conn = sea_orm::Database::connect(db.url()).await.expect("connect");
        flakeid_seaorm::lease::create_table(&conn)
            .await
            .expect("lease table");
    }
    (db, proxy, url)
}

/// The partition against one holder, whose lease's `changes` are recorded:
/// cut, another holder (on the `direct` URL) takes the node, heal, until
/// the holder is told of the loss; what it was told, and the moments the
/// partition began and ended.
async fn partition(
    orm: &str,
    direct: &str,
    space: &str,
    changes: LeaseChanges,
    proxy: &Proxy,
) -> (Told, Instant, Instant) {
    let stop = Arc::new(AtomicBool::new(false));
    let (told, recorder) = record(changes, stop.clone());
    let wait = |what: String, cond: Box<dyn Fn() -> bool + Send>| async move {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !cond() {
            assert!(Instant::now() < deadline, "{what}: never happened");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let held = told.clone();
    wait(
        format!("{orm}: told it holds node 0"),
        Box::new(move || {
            held.lock()
                .unwrap()
                .iter()
                .any(|(_, s)| matches!(s, LeaseStatus::Held { node: 0, .. }))
        }),
    )
    .await;
    proxy.cut();
    let cut_at = Instant::now();
    // Everyone else still reaches the database: the node is taken once the
    // holder's lease ran out.
    let direct_db = sea_orm::Database::connect(direct).await.expect("connect");
    let taker = flakeid_seaorm::lease::claim(
        &direct_db,
        options(space).wait_for_node(Duration::from_secs(30)),
    )
    .await
    .expect("the node is free after the TTL");
    let until = cut_at + PARTITION;
    tokio::time::sleep(until.saturating_duration_since(Instant::now())).await;
    proxy.heal();
    let healed_at = Instant::now();
    let lost = told.clone();
    wait(
        format!("{orm}: told its node was lost"),
        Box::new(move || {
            lost.lock().unwrap().iter().any(|(_, s)| {
                matches!(
                    s,
                    LeaseStatus::Fenced {
                        reason: FenceReason::Lost { .. },
                        ..
                    }
                )
            })
        }),
    )
    .await;
    taker.release_unused().await.expect("release the taker");
    stop.store(true, Ordering::SeqCst);
    recorder.join().unwrap();
    (told, cut_at, healed_at)
}

/// What each holder must have been told: renewing late and fenced while
/// cut off (before the partition ended), lost once it ended, within
/// `bound` of the end.
fn check(orm: &str, told: &Told, cut_at: Instant, healed_at: Instant, bound: Duration) {
    let told = told.lock().unwrap().clone();
    let at = |what: &str, f: &dyn Fn(&LeaseStatus) -> bool| {
        told.iter()
            .find(|(_, s)| f(s))
            .map(|(t, _)| *t)
            .unwrap_or_else(|| panic!("{orm}: never told {what}: {told:#?}"))
    };
    let late = at("renewing late", &|s| {
        matches!(s, LeaseStatus::RenewingLate { .. })
    });
    let fenced = at("fenced at its ceiling", &|s| {
        matches!(
            s,
            LeaseStatus::Fenced {
                reason: FenceReason::NotRenewed { .. },
                ..
            }
        )
    });
    let lost = at("lost", &|s| {
        matches!(
            s,
            LeaseStatus::Fenced {
                reason: FenceReason::Lost { .. },
                ..
            }
        )
    });
    assert!(
        cut_at < late && late < fenced && fenced < healed_at,
        "{orm}: {told:#?}"
    );
    let learned = lost.saturating_duration_since(healed_at);
    assert!(
        learned <= bound,
        "{orm}: told of the loss {learned:?} after the partition ended, more than {bound:?}: {told:#?}"
    );
    eprintln!(
        "{orm}: renewing late {:?} after the cut, fenced after {:?}, lost {learned:?} after the partition ended",
        late - cut_at,
        fenced - cut_at
    );
}

/// A generous margin for a loaded machine, on top of the documented bound:
/// this checks that a bound holds, not how fast.
const SLACK: Duration = Duration::from_secs(8);

#[tokio::test(flavor = "multi_thread")]
async fn diesel_holder_is_told_of_a_one_sided_partition_on_time() {
    let (db, proxy, url) = behind_a_proxy().await;
    let space = space("partition-diesel");
    let claim_space = space.clone();
    let lease = tokio::task::spawn_blocking(move || {
        use diesel::Connection as _;
        flakeid_diesel::lease::claim(
            move || diesel::PgConnection::establish(&url),
            options(&claim_space),
        )
        .expect("claim through the proxy")
    })
    .await
    .expect("claim");
    let (told, cut_at, healed_at) =
        partition("diesel", db.url(), &space, lease.changes(), &proxy).await;
    // One interval to the next renewal, one statement deadline for a
    // renewal begun just before the end.
    let deadline = RENEW.max(flakeid_diesel::lease::MIN_STATEMENT_DEADLINE);
    check("diesel", &told, cut_at, healed_at, RENEW + deadline + SLACK);
    drop(lease);
}

#[tokio::test(flavor = "multi_thread")]
async fn seaorm_holder_is_told_of_a_one_sided_partition_on_time() {
    let (db, proxy, url) = behind_a_proxy().await;
    let space = space("partition-seaorm");
    let through_proxy = sea_orm::Database::connect(&url).await.expect("connect");
    let lease = flakeid_seaorm::lease::claim(&through_proxy, options(&space))
        .await
        .expect("claim through the proxy");
    let (told, cut_at, healed_at) =
        partition("seaorm", db.url(), &space, lease.changes(), &proxy).await;
    // Each interval starts a renewal on a fresh connection, whatever the
    // hung ones do (the oldest is given up when four wait).
    check("seaorm", &told, cut_at, healed_at, RENEW + RENEW + SLACK);
    drop(lease);
}
