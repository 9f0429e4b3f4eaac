//! The lease store on a real etcd server: claim, renewal, expiry, fencing,
//! release and listing (checked in etcd's keys with a plain client), and
//! real processes competing for fewer nodes than there are processes while
//! they write into two PostgreSQL databases that share nothing but etcd.

use std::time::{Duration, Instant};

use flakeid_core::{CeilingWait, FenceReason, Fenced, GenerateError};
use flakeid_etcd::EtcdLeaseStore;
use flakeid_etcd::etcd_client::Client;
use flakeid_lease::{
    AsyncLeaseStore as _, ClaimRequest, LeaseError, LeaseOptions, ReleaseRequest, RenewRequest,
    Renewal,
};
use flakeid_tests::db;
use serde_json::Value;

use super::lease_common::{
    PATIENCE, Worker, assert_all_taken, assert_held_by_the_test_host, assert_refused_at_once,
    check_rows, go_and_finish, hold_file, lease_options, prepare, report_done, rows, space, until,
};

fn options(space: &str) -> LeaseOptions {
    lease_options(space, Duration::from_secs(3))
}

/// The node key's JSON, read with a plain etcd client.
async fn node_key(client: &Client, space: &str, node: u64) -> Value {
    let key = EtcdLeaseStore::new(client.clone()).node_key(space, node);
    let resp = client.kv_client().get(key.as_str(), None).await.unwrap();
    let kv = resp.kvs().first().unwrap_or_else(|| panic!("no key {key}"));
    serde_json::from_slice(kv.value()).unwrap()
}

/// The holder key: `(value, etcd lease)`, `None` when absent.
async fn holder_key(client: &Client, space: &str, node: u64) -> Option<(String, i64)> {
    let key = EtcdLeaseStore::new(client.clone()).holder_key(space, node);
    let resp = client.kv_client().get(key.as_str(), None).await.unwrap();
    resp.kvs()
        .first()
        .map(|kv| (kv.value_str().unwrap().to_owned(), kv.lease()))
}

fn hw(v: &Value) -> u64 {
    v["high_water"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn etcd_keys_follow_claim_renewal_and_release() {
    let etcd = db::etcd().await;
    let client = etcd.client().await;
    let space = space("etcd-lifecycle");
    let lease = flakeid_etcd::claim(&client, options(&space)).await.unwrap();
    let node = lease.node();
    assert!(node <= 2);
    let state = node_key(&client, &space, node).await;
    assert_eq!(state["fence"], 1);
    assert_eq!(state["holder"], "test-host/1");
    let (value, etcd_lease) = holder_key(&client, &space, node).await.expect("held");
    assert!(value.starts_with("1/"), "{value}");
    assert_ne!(etcd_lease, 0, "the holder key lives on an etcd lease");
    let g = lease.generator_builder().build().unwrap();
    let id = g.next_id().unwrap();
    assert!(
        hw(&state) >= g.layout().timestamp_millis(id),
        "the ceiling is persisted before use"
    );
    // Renewals raise the mark and keep the same etcd lease alive.
    let first = hw(&state);
    until("a renewal raises high_water", || async {
        hw(&node_key(&client, &space, node).await) > first
    })
    .await;
    assert_eq!(
        holder_key(&client, &space, node).await.map(|h| h.1),
        Some(etcd_lease)
    );
    // Operators see every node and the holder.
    let table = flakeid_etcd::list_nodes(&client, &space).await.unwrap();
    assert_held_by_the_test_host(&table, node);
    let last = g.next_id().unwrap();
    let mark = lease.release(&g).await.unwrap();
    assert_eq!(mark, g.layout().timestamp_millis(last));
    assert_eq!(holder_key(&client, &space, node).await, None);
    let state = node_key(&client, &space, node).await;
    assert_eq!(state["owner"], Value::Null);
    assert_eq!((state["fence"].as_u64(), hw(&state)), (Some(1), mark));
    // The released etcd lease is gone.
    let ttl = client
        .lease_client()
        .time_to_live(etcd_lease, None)
        .await
        .unwrap();
    assert!(
        ttl.ttl() <= 0,
        "lease {etcd_lease} still has {} s",
        ttl.ttl()
    );
    // The next holder of the node resumes after the mark.
    let again = flakeid_etcd::claim(&client, options(&space).nodes(node..=node))
        .await
        .unwrap();
    assert_eq!((again.fence(), again.resume_after_millis()), (2, mark));
    again.release_unused().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn etcd_all_nodes_taken_is_an_error_and_operators_see_why() {
    let etcd = db::etcd().await;
    let client = etcd.client().await;
    let space = space("etcd-full");
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(flakeid_etcd::claim(&client, options(&space)).await.unwrap());
    }
    let err = flakeid_etcd::claim(&client, options(&space))
        .await
        .unwrap_err();
    assert_all_taken(&err);
    let table = flakeid_etcd::list_nodes(&client, &space).await.unwrap();
    let text = table.to_string();
    assert!(text.contains(": 3 of 3 nodes held"), "{text}");
    for l in held {
        l.release_unused().await.unwrap();
    }
    let table = flakeid_etcd::list_nodes(&client, &space).await.unwrap();
    assert_eq!(table.held().count(), 0, "{table}");
}

/// Polls until etcd has expired the holder key (bounded by `PATIENCE`).
async fn until_expired(client: &Client, space: &str, node: u64) {
    let deadline = Instant::now() + PATIENCE;
    while holder_key(client, space, node).await.is_some() {
        assert!(Instant::now() < deadline, "etcd never expired node {node}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The store's operations on their own: a holder that stops renewing loses
/// its node when etcd expires its lease; the next claim gets the next fence
/// and the expired holder's ceiling as its floor, and the expired holder
/// can neither renew nor release any more.
#[tokio::test(flavor = "multi_thread")]
async fn etcd_expired_lease_hands_over_its_high_water_and_fences_the_old_holder() {
    let etcd = db::etcd().await;
    let store = EtcdLeaseStore::new(etcd.client().await);
    let space = space("etcd-expiry");
    store.ensure_nodes(&space, 0..=0).await.unwrap();
    let claim = |owner: &'static str| ClaimRequest {
        space: &space,
        node: 0,
        owner,
        holder: owner,
        ttl: Duration::from_secs(1),
        max_ahead_millis: u64::MAX,
    };
    let a = store.try_claim(&claim("a")).await.unwrap().expect("free");
    assert_eq!((a.fence, a.high_water_millis), (1, 0));
    // Held: a second claimant is refused while the lease lives.
    assert_eq!(store.try_claim(&claim("b")).await.unwrap(), None);
    let ceiling = 1_900_000_000_000;
    let renew = |owner, fence, ceiling_millis| RenewRequest {
        space: &space,
        node: 0,
        owner,
        fence,
        ttl: Duration::from_secs(1),
        ceiling_millis,
        max_ahead_millis: u64::MAX,
    };
    assert_eq!(
        store.renew(&renew("a", 1, ceiling)).await.unwrap(),
        Renewal::Renewed
    );
    // A stops renewing; etcd expires its lease by etcd's clock.
    until_expired(store.client(), &space, 0).await;
    let b = store
        .try_claim(&claim("b"))
        .await
        .unwrap()
        .expect("expired");
    assert_eq!((b.fence, b.high_water_millis), (2, ceiling));
    // A is fenced: no renewal, no release.
    assert_eq!(
        store.renew(&renew("a", 1, ceiling + 1)).await.unwrap(),
        Renewal::Lost
    );
    let release = |owner, fence, high_water_millis| ReleaseRequest {
        space: &space,
        node: 0,
        owner,
        fence,
        high_water_millis,
    };
    assert!(!store.release(&release("a", 1, 5)).await.unwrap());
    let state = node_key(store.client(), &space, 0).await;
    assert_eq!((state["fence"].as_u64(), hw(&state)), (Some(2), ceiling));
    // B's lease expires unclaimed: B's renewal takes the node up again
    // under a new etcd lease (its fence is still the node's).
    until_expired(store.client(), &space, 0).await;
    assert_eq!(
        store.renew(&renew("b", 2, ceiling + 10)).await.unwrap(),
        Renewal::Renewed
    );
    let (value, _) = holder_key(store.client(), &space, 0)
        .await
        .expect("held again");
    assert_eq!(value, "2/b");
    assert!(store.release(&release("b", 2, ceiling + 3)).await.unwrap());
    let state = node_key(store.client(), &space, 0).await;
    assert_eq!(
        (state["fence"].as_u64(), hw(&state)),
        (Some(2), ceiling + 3)
    );
}

/// Through `LeaseOptions`: holder A's etcd lease ends under it (revoked,
/// as etcd revokes an expired one); B, waiting for a node, takes it with
/// the next fence and starts after A's high-water mark; A's next renewal
/// finds the node taken and its generator stops for good.
#[tokio::test(flavor = "multi_thread")]
async fn etcd_holder_whose_lease_ends_is_fenced_and_the_next_starts_after_it() {
    let etcd = db::etcd().await;
    let client = etcd.client().await;
    let space = space("etcd-fence");
    // A renews late (2.5 s after its claim), so that B claims first: an
    // earlier renewal would find the node free and unclaimed, and take it
    // up again under a new etcd lease.
    let one = options(&space)
        .nodes(0..=0)
        .renew_every(Duration::from_millis(2_500))
        .at_ceiling(CeilingWait::Fail);
    let a = flakeid_etcd::claim(&client, one.clone()).await.unwrap();
    let ga = a.generator_builder().build().unwrap();
    let mut a_ids = vec![ga.next_id().unwrap()];
    let (_, etcd_lease) = holder_key(&client, &space, 0).await.expect("held");
    client.lease_client().revoke(etcd_lease).await.unwrap();
    // B renews as often as the other tests' holders: A's 2.5 s (so that A
    // issues for a while before it notices) leaves B's ceiling only 0.5 s
    // of slack while this test waits for A.
    let b = flakeid_etcd::claim(
        &client,
        one.renew_every(Duration::from_millis(100))
            .wait_for_node(Duration::from_secs(60)),
    )
    .await
    .unwrap();
    assert_eq!(b.fence(), 2);
    // A keeps issuing until its renewal notices; then it is fenced for good.
    let deadline = Instant::now() + PATIENCE;
    let lost = loop {
        assert!(Instant::now() < deadline, "A was never fenced");
        match ga.next_id() {
            Ok(id) => a_ids.push(id),
            Err(GenerateError::Fenced(
                f @ Fenced {
                    reason: FenceReason::NotRenewed { .. },
                    ..
                },
            )) => {
                // At its ceiling before the renewal came back: wait for it.
                let _ = f;
            }
            Err(GenerateError::Fenced(f)) => break f,
            Err(e) => panic!("{e}"),
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    assert!(
        matches!(
            lost,
            Fenced {
                reason: FenceReason::Lost { fence: 1, .. },
                ..
            }
        ),
        "{lost}"
    );
    let a_last = a_ids
        .iter()
        .map(|id| ga.layout().timestamp_millis(*id))
        .max()
        .unwrap();
    assert!(
        b.resume_after_millis() >= a_last,
        "B resumes after {} but A stamped {a_last}",
        b.resume_after_millis()
    );
    let gb = b.generator_builder().build().unwrap();
    let b_first = gb.next_id().unwrap();
    assert!(gb.layout().timestamp_millis(b_first) > a_last);
    assert!(matches!(
        a.release(&ga).await,
        Err(LeaseError::Lost { fence: 1, .. })
    ));
    b.release(&gb).await.unwrap();
}

/// Six processes, four nodes, two databases that share nothing but etcd:
/// each process leases its node from etcd and writes into one of the two;
/// no ID appears twice across both.
#[tokio::test(flavor = "multi_thread")]
async fn etcd_six_processes_on_two_shards_share_four_nodes() {
    let etcd = db::etcd().await;
    let client = etcd.client().await;
    let shards = [db::postgres().await, db::postgres().await];
    let mut conns = Vec::new();
    for s in &shards {
        conns.push(prepare(s).await);
    }
    let space = space("etcd-six-of-four");
    let (hold, hold_s) = hold_file(&space);
    let ids = 2_000u64;
    let common = [
        "--orm",
        "etcd",
        "--etcd",
        etcd.url(),
        "--space",
        &space,
        "--nodes",
        "4",
    ];
    let ids_s = ids.to_string();
    let workers: Vec<Worker> = (0..6)
        .map(|i| {
            let args = [
                &common[..],
                &[
                    "--ids",
                    &ids_s,
                    "--pace-us",
                    "100",
                    "--wait-for-node-ms",
                    "120000",
                    "--hold-file",
                    &hold_s,
                ],
            ]
            .concat();
            Worker::start(shards[i % 2].url(), &format!("e{i}-shard{}", i % 2), &args)
        })
        .collect();
    until("four nodes held", || async {
        let table = flakeid_etcd::list_nodes(&client, &space).await.unwrap();
        table.held().count() == 4
    })
    .await;
    assert_refused_at_once(shards[0].url(), &common);

    let done = go_and_finish(&hold, workers, ids);
    let mut stored = rows(&conns[0]).await;
    let second = rows(&conns[1]).await;
    assert!(
        !stored.is_empty() && !second.is_empty(),
        "both shards written"
    );
    stored.extend(second);
    let check = check_rows(&stored);
    let found = report_done("etcd-six-of-four-two-shards", &done, check.rows);
    assert_eq!(found, 0);
    // Six claims in all: the two that waited took released nodes.
    let table = flakeid_etcd::list_nodes(&client, &space).await.unwrap();
    assert_eq!(
        table.rows.iter().map(|r| r.fence).sum::<u64>(),
        6,
        "{table}"
    );
    assert_eq!(table.held().count(), 0, "{table}");
    let _ = std::fs::remove_file(&hold);
}

#[tokio::test(flavor = "multi_thread")]
async fn etcd_killed_holders_node_is_taken_over_after_expiry() {
    let etcd = db::etcd().await;
    super::lease_processes::killed_holder_is_taken_over(
        db::postgres().await,
        "etcd-sigkill",
        "etcd",
        &["--etcd", etcd.url()],
    )
    .await;
}
