//! Ceilings, hand-over and node sources within one process: the in-memory
//! lease store and local high-water files. (Leases in real databases, with
//! several processes, are tested in `flakeid-tests`.)

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_core::{
    CeilingWait, Clock, ClockRegression, FenceReason, Fenced, GenerateError, ManualClock,
};
use flakeid_lease::{
    ClaimRequest, HighWaterFileError, HighWaterFileOptions, LeaseError, LeaseOptions, LeaseStatus,
    LeaseStore, MemoryLeaseStore, NodeLease, NodeRow, NodeTable, ReleaseRequest, RenewRequest,
    Renewal,
};
use flakeid_sql::{Outage, StoreError};

use crate::support::{T0, eventually, next_change, store_on_clock};

fn fenced(r: Result<u64, GenerateError>) -> Fenced {
    match r {
        Err(GenerateError::Fenced(f)) => f,
        other => panic!("expected Fenced, got {other:?}"),
    }
}

pub(crate) fn quick(
    space: &str,
) -> LeaseOptions<flakeid_core::layout::BitLayout, Arc<ManualClock>> {
    LeaseOptions::new(space, presets::twitter())
        .clock(Arc::new(ManualClock::new(T0)))
        .nodes(0..=0)
        .ttl(Duration::from_millis(400))
        .renew_every(Duration::from_millis(20))
}

#[test]
fn all_taken_says_how_many_nodes_and_when_the_first_expires() {
    let (db, store) = store_on_clock(T0);
    let options = LeaseOptions::new("s", presets::twitter())
        .clock(db.clone())
        .nodes(2..=4);
    let leases: Vec<_> = (0..3)
        .map(|_| options.clone().claim(store.clone()).unwrap())
        .collect();
    let mut nodes: Vec<u64> = leases.iter().map(|l| l.node()).collect();
    nodes.sort_unstable();
    assert_eq!(nodes, vec![2, 3, 4]);
    db.advance(Duration::from_secs(2));
    let err = options.claim(store.clone()).unwrap_err();
    match &err {
        LeaseError::AllTaken {
            nodes: 3,
            first: 2,
            last: 4,
            expires_in,
            ..
        } => assert!(*expires_in <= Duration::from_secs(13), "{err}"),
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("all 3 node IDs (2..=4) of space \"s\" are leased"),
        "{err}"
    );
    for l in leases {
        l.release_unused().unwrap();
    }
}

#[test]
fn invalid_options_name_the_option() {
    let store = MemoryLeaseStore::new;
    let o = || LeaseOptions::new("s", presets::twitter());
    let option_of = |e: LeaseError| match e {
        LeaseError::InvalidOption { option, .. } => option,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        option_of(o().nodes(0..=1024).claim(store()).unwrap_err()),
        "nodes"
    );
    assert_eq!(
        option_of(
            LeaseOptions::new("", presets::twitter())
                .claim(store())
                .unwrap_err()
        ),
        "space"
    );
    assert_eq!(
        option_of(
            o().ceiling_lead(Duration::from_secs(20))
                .claim(store())
                .unwrap_err()
        ),
        "ceiling_lead"
    );
    assert_eq!(
        option_of(
            o().renew_every(Duration::from_secs(15))
                .claim(store())
                .unwrap_err()
        ),
        "renew_every"
    );
}

#[test]
fn a_lost_lease_fences_its_generator_and_the_next_holder_starts_after_it() {
    let (db, store) = store_on_clock(T0);
    let outage = Outage::new();
    let a = quick("lost").claim(store.behind(&outage)).unwrap();
    let ga = a.generator_builder().build().unwrap();
    let a_ids: Vec<u64> = (0..5_000).map(|_| ga.next_id().unwrap()).collect();
    // A loses the database; its renewals fail and the store's clock passes its lease.
    outage.start();
    eventually("A records a failed renewal", || {
        matches!(
            a.status(),
            LeaseStatus::RenewingLate {
                last_error: Some(_),
                ..
            } | LeaseStatus::Fenced {
                reason: FenceReason::NotRenewed {
                    last_error: Some(_),
                    ..
                },
                ..
            }
        )
    });
    db.advance(Duration::from_secs(1));
    let b = quick("lost").claim(store.clone()).unwrap();
    assert_eq!(b.fence(), a.fence() + 1);
    assert!(b.resume_after_millis() >= ga.layout().timestamp_millis(*a_ids.last().unwrap()));
    // A reaches the database again: its renewal finds the row taken and
    // its ceiling closes for good.
    outage.end();
    eventually("A notices the loss", || {
        matches!(
            a.status(),
            LeaseStatus::Fenced {
                reason: FenceReason::Lost { .. },
                ..
            }
        )
    });
    ga.clock().advance(Duration::from_millis(1));
    let f = fenced(ga.next_id());
    assert!(
        matches!(f.reason, FenceReason::Lost { fence, .. } if fence == a.fence()),
        "{f}"
    );
    let gb = b.generator_builder().build().unwrap();
    let b_ids: Vec<u64> = (0..5_000).map(|_| gb.next_id().unwrap()).collect();
    let last_a = a_ids.iter().max().unwrap();
    assert!(b_ids.iter().all(|id| id > last_a));
    assert!(matches!(a.release(&ga), Err(LeaseError::Lost { .. })));
    b.release(&gb).unwrap();
}

#[test]
fn release_records_the_exact_mark_while_threads_issue() {
    for round in 0..20 {
        let store = MemoryLeaseStore::new();
        let lease = LeaseOptions::new("race", presets::twitter())
            .nodes(0..=0)
            .claim(store.clone())
            .unwrap();
        let g = Arc::new(lease.generator_builder().build().unwrap());
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..3)
            .map(|_| {
                let (g, stop) = (g.clone(), stop.clone());
                thread::spawn(move || {
                    let mut ids = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        match g.next_id() {
                            Ok(id) => ids.push(id),
                            Err(GenerateError::Fenced(_)) => break,
                            Err(e) => panic!("{e}"),
                        }
                    }
                    ids
                })
            })
            .collect();
        thread::sleep(Duration::from_millis(3 + round % 4));
        let mark = lease.release(&g).unwrap();
        stop.store(true, Ordering::Relaxed);
        let mut all = HashSet::new();
        for w in workers {
            for id in w.join().unwrap() {
                let t = g.layout().timestamp_millis(id);
                assert!(
                    t <= mark,
                    "round {round}: ID stamped {t} after the released mark {mark}"
                );
                assert!(all.insert(id), "duplicate");
            }
        }
        assert!(matches!(g.next_id(), Err(GenerateError::Fenced(_))));
        let row = &store.table("race").rows[0];
        assert_eq!(row.high_water_millis, mark);
        assert_eq!(row.owner, None);
    }
}

#[test]
fn a_crashed_holders_node_is_taken_over_after_its_lease() {
    let store = MemoryLeaseStore::new();
    let options = LeaseOptions::new("crash", presets::twitter())
        .nodes(7..=7)
        .ttl(Duration::from_millis(300))
        .renew_every(Duration::from_millis(50))
        .wait_for_node(Duration::from_secs(30));
    let a = options.clone().claim(store.clone()).unwrap();
    let ga = a.generator_builder().build().unwrap();
    let a_ids: Vec<u64> = (0..1_000).map(|_| ga.next_id().unwrap()).collect();
    // Dropping the lease stops its renewal, as a crash would; the row stays held.
    drop(a);
    // The current millisecond may still be finished; no new one is entered.
    let err = loop {
        if let Err(e) = ga.next_id() {
            break e;
        }
    };
    assert!(
        matches!(
            &err,
            GenerateError::Fenced(Fenced {
                reason: FenceReason::Dropped,
                ..
            })
        ),
        "{err}"
    );
    let b = options.claim(store.clone()).unwrap();
    assert_eq!(b.node(), 7);
    let gb = b.generator_builder().build().unwrap();
    let first_b = gb.next_id().unwrap();
    assert!(first_b > *a_ids.last().unwrap());
    b.release(&gb).unwrap();
}

#[test]
fn a_high_water_file_survives_a_clock_stepped_back_between_runs() {
    let dir = std::env::temp_dir().join(format!("flakeid-hw-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("node-3.hw");
    let _ = std::fs::remove_file(&path);
    let clock = Arc::new(ManualClock::new(T0 + 30_000));
    let open = |clock: &Arc<ManualClock>| {
        HighWaterFileOptions::new(&path)
            .clock(clock.clone())
            .open(presets::twitter(), 3)
    };
    let first = open(&clock).unwrap();
    // A second process with the same file is refused.
    assert!(matches!(
        open(&clock),
        Err(HighWaterFileError::Locked { .. })
    ));
    let g1 = first.generator_builder().build().unwrap();
    let ids1: Vec<u64> = (0..10_000).map(|_| g1.next_id().unwrap()).collect();
    // A crash: no release; the file keeps the last ceiling.
    drop(first);
    let clock2 = Arc::new(ManualClock::new(T0));
    let second = open(&clock2).unwrap();
    assert!(second.resume_after_millis() >= g1.layout().timestamp_millis(*ids1.last().unwrap()));
    let g2 = second
        .generator_builder()
        .clock_regression(ClockRegression::Wait {
            max: Duration::from_secs(120),
        })
        .build()
        .unwrap();
    let ids2: Vec<u64> = (0..10_000).map(|_| g2.next_id().unwrap()).collect();
    let mut all: HashSet<u64> = ids1.iter().copied().collect();
    let dups = ids2.iter().filter(|id| !all.insert(**id)).count();
    println!("high-water file, clock stepped back 30 s: 2 runs x 10000 IDs x {dups} duplicates");
    assert_eq!(dups, 0);
    // A clean release records the exact mark: the next run need not wait.
    let mark = second.release(&g2).unwrap();
    assert_eq!(mark, g2.layout().timestamp_millis(*ids2.last().unwrap()));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap().trim(),
        mark.to_string()
    );
    std::fs::write(&path, "garbage").unwrap();
    assert!(matches!(
        open(&clock2),
        Err(HighWaterFileError::Parse { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn documented_defaults() {
    assert_eq!(LeaseOptions::DEFAULT_TTL, Duration::from_secs(15));
    assert_eq!(LeaseOptions::DEFAULT_RENEW_EVERY, Duration::from_secs(3));
    assert_eq!(
        HighWaterFileOptions::DEFAULT_LEAD,
        Duration::from_millis(500)
    );
    assert_eq!(
        HighWaterFileOptions::DEFAULT_EVERY,
        Duration::from_millis(200)
    );
    assert_eq!(LeaseOptions::DEFAULT_TABLE, "flakeid_nodes");
    assert_eq!(
        CeilingWait::default(),
        CeilingWait::Wait {
            max: Duration::from_secs(1)
        }
    );
    let clock = flakeid_core::MonotonicClock::new();
    let before = clock.now_millis();
    let lease = LeaseOptions::new("defaults", presets::twitter())
        .claim(MemoryLeaseStore::new())
        .unwrap();
    let after = clock.now_millis();
    // The first ceiling is the TTL ahead of the clock at the claim.
    let LeaseStatus::Held {
        ceiling_millis: ceiling,
        ..
    } = lease.status()
    else {
        panic!("{}", lease.status());
    };
    assert!(
        (before + 15_000..=after + 15_000).contains(&ceiling),
        "{before} {ceiling} {after}"
    );
    // A lead above the TTL is refused.
    assert!(matches!(
        LeaseOptions::new("defaults", presets::twitter())
            .ceiling_lead(LeaseOptions::DEFAULT_TTL + Duration::from_millis(1))
            .claim(MemoryLeaseStore::new()),
        Err(LeaseError::InvalidOption {
            option: "ceiling_lead",
            ..
        })
    ));
    lease.release_unused().unwrap();
}

/// A store whose renewals hang while `hung` is set, as a database that
/// stopped answering without closing the connection.
#[derive(Clone)]
struct Hanging {
    store: MemoryLeaseStore,
    hung: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
}

impl Hanging {
    /// A lease of node 0 of `space` (renewed every 50 ms, a 600 ms TTL)
    /// through a link to an in-memory store, answering for now.
    fn claim(space: &str) -> (Hanging, NodeLease) {
        let link = Hanging {
            store: MemoryLeaseStore::new(),
            hung: Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new())),
        };
        let lease = LeaseOptions::new(space, presets::twitter())
            .nodes(0..=0)
            .ttl(Duration::from_millis(600))
            .renew_every(Duration::from_millis(50))
            .claim(link.clone())
            .unwrap();
        (link, lease)
    }

    fn set(&self, hung: bool) {
        *self.hung.0.lock().unwrap() = hung;
        self.hung.1.notify_all();
    }
}

impl LeaseStore for Hanging {
    fn ensure_nodes(&mut self, space: &str, nodes: RangeInclusive<u64>) -> Result<(), StoreError> {
        LeaseStore::ensure_nodes(&mut self.store, space, nodes)
    }
    fn try_claim(&mut self, r: &ClaimRequest<'_>) -> Result<Option<NodeRow>, StoreError> {
        LeaseStore::try_claim(&mut self.store, r)
    }
    fn renew(&mut self, r: &RenewRequest<'_>) -> Result<Renewal, StoreError> {
        let (lock, cv) = &*self.hung;
        let _unhung = cv.wait_while(lock.lock().unwrap(), |h| *h).unwrap();
        LeaseStore::renew(&mut self.store, r)
    }
    fn release(&mut self, r: &ReleaseRequest<'_>) -> Result<bool, StoreError> {
        LeaseStore::release(&mut self.store, r)
    }
    fn list(&mut self, space: &str) -> Result<NodeTable, StoreError> {
        LeaseStore::list(&mut self.store, space)
    }
}

/// A renewal the store never answers counts as failed after one interval
/// (the generator's fence says so), and `release` returns an error instead
/// of waiting for the store for ever; the row then frees itself.
#[test]
fn a_hung_store_fails_the_renewal_and_cannot_hold_the_release() {
    let (link, lease) = Hanging::claim("hung");
    let g = lease.generator_builder().build().unwrap();
    g.next_id().unwrap();
    link.set(true);
    eventually("the hung renewal is recorded as failed", || {
        matches!(
            lease.status(),
            LeaseStatus::RenewingLate { last_error: Some(ref e), .. } if e.contains("no answer within")
        )
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let releaser = thread::spawn(move || {
        let _ = tx.send(lease.release(&g).map_err(|e| e.to_string()));
    });
    // A bound on a hang, not a timing assertion.
    let released = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("release returned although the store hangs");
    let err = released.expect_err("the store never answered");
    assert!(err.contains("did not answer"), "{err}");
    link.set(false);
    releaser.join().unwrap();
}

/// A renewal the store leaves unanswered fails once per interval, not
/// once per statement: the holder is told that it renews late, then that
/// it is fenced once its ceiling passed, while the one statement still
/// hangs; renewed again once the store answers.
#[test]
fn a_hung_renewal_fails_every_interval_until_the_lease_is_fenced() {
    let (link, lease) = Hanging::claim("hung-fence");
    let changes = lease.changes();
    next_change!(changes, "held", LeaseStatus::Held { node: 0, .. });
    link.set(true);
    next_change!(
        changes,
        "renewing late",
        LeaseStatus::RenewingLate { node: 0, .. }
    );
    next_change!(
        changes,
        "fenced at the ceiling",
        LeaseStatus::Fenced {
            node: 0,
            reason: FenceReason::NotRenewed { .. },
            ..
        }
    );
    link.set(false);
    next_change!(changes, "held again", LeaseStatus::Held { node: 0, .. });
    lease.release_unused().unwrap();
}

/// One file, named differently (a symlink, `dir/../file`), is still one
/// file: a second opener is refused, and the marks land in the file
/// itself (a symlink stays a symlink).
#[cfg(unix)]
#[test]
fn a_high_water_file_is_one_file_whatever_it_is_called() {
    let dir = std::env::temp_dir().join(format!("flakeid-hw-names-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let path = dir.join("node-5.hw");
    let link = dir.join("link.hw");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let dotted = dir.join("sub").join("..").join("node-5.hw");
    let open = |p: &std::path::Path| {
        HighWaterFileOptions::new(p)
            .clock(Arc::new(ManualClock::new(T0)))
            .open(presets::twitter(), 5)
    };
    for (first, second) in [(&path, &link), (&link, &path), (&path, &dotted)] {
        let held = open(first).unwrap();
        let again = open(second);
        assert!(
            matches!(again, Err(HighWaterFileError::Locked { .. })),
            "{} while {} is open: {again:?}",
            second.display(),
            first.display()
        );
        drop(held);
    }
    // Through the link: the mark is written to the file, the link kept
    // (a clock past the marks the opens above left).
    let held = HighWaterFileOptions::new(&link)
        .clock(Arc::new(ManualClock::new(T0 + 60_000)))
        .open(presets::twitter(), 5)
        .unwrap();
    let g = held.generator_builder().build().unwrap();
    let last = g.next_id().unwrap();
    let mark = held.release(&g).unwrap();
    assert!(mark >= g.layout().timestamp_millis(last));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap().trim(),
        mark.to_string()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
