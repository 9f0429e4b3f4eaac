//! What a fleet does wrong and a lease must refuse or survive, within one
//! process: a builder pointed at another node, a clock running ahead of the
//! store's, a node left unusable by such a clock, the status a health check
//! reads. (Moving to a new node is tested in the lease module and in
//! `flakeid-tests`, with real processes.)

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_core::{Clock, ConfigError, FenceReason, GenerateError, ManualClock};
use flakeid_lease::{
    HighWaterFileOptions, LeaseError, LeaseOptions, LeaseStatus, LeaseStore, ReleaseRequest,
};

use crate::support::{T0, eventually, store_on_clock};

#[test]
fn a_leased_builder_cannot_be_pointed_at_another_node_or_an_earlier_mark() {
    let (clock, store) = store_on_clock(T0);
    let options = LeaseOptions::new("misuse", presets::twitter())
        .clock(clock.clone())
        .nodes(0..=1)
        .spread_claims(false);
    // A previous holder of node 0 issued IDs up to a mark.
    let first = options.clone().claim(store.clone()).unwrap();
    let g = first.generator_builder().build().unwrap();
    clock.advance(Duration::from_millis(1));
    g.next_id().unwrap();
    let mark = first.release(&g).unwrap();
    let a = options.clone().claim(store.clone()).unwrap();
    assert_eq!((a.node(), a.resume_after_millis()), (0, mark));
    let b = options.claim(store.clone()).unwrap();
    // A's builder pointed at B's node: its IDs would repeat B's.
    let err = a
        .generator_builder()
        .node(b.node())
        .build()
        .expect_err("another node");
    assert_eq!(
        err,
        ConfigError::FixedBySource {
            setting: "node",
            fixed_by: format!("the node lease of node {} in space \"misuse\"", a.node()),
        }
    );
    assert!(
        err.to_string()
            .starts_with("`node` is fixed by the node lease of node"),
        "{err}"
    );
    // An earlier resume point undoes the hand-over.
    let err = a
        .generator_builder()
        .resume_after(a.resume_after_millis().saturating_sub(1))
        .build()
        .expect_err("an earlier mark");
    assert_eq!(fixed_setting(&err), Some("resume_after"), "{err}");
    // The same node and a later mark change nothing that matters.
    let g = a
        .generator_builder()
        .node(a.node())
        .resume_after(a.resume_after_millis() + 1)
        .build()
        .unwrap();
    a.release(&g).unwrap();
    b.release_unused().unwrap();
}

#[test]
fn a_high_water_file_builder_cannot_be_pointed_at_another_node() {
    let dir = std::env::temp_dir().join(format!("flakeid-fleet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("node-3.hw");
    let file = HighWaterFileOptions::new(&path)
        .open(presets::twitter(), 3)
        .unwrap();
    let err = file.generator_builder().node(4).build().unwrap_err();
    assert_eq!(
        err,
        ConfigError::FixedBySource {
            setting: "node",
            fixed_by: format!("the high-water file {}", path.display()),
        }
    );
    let g = file.generator_builder().build().unwrap();
    g.next_id().unwrap();
    let mark = file.release(&g).unwrap();
    // The next run resumes after the mark; an earlier point is refused.
    let file = HighWaterFileOptions::new(&path)
        .open(presets::twitter(), 3)
        .unwrap();
    assert_eq!(file.resume_after_millis(), mark);
    let err = file
        .generator_builder()
        .resume_after(0)
        .build()
        .unwrap_err();
    assert_eq!(fixed_setting(&err), Some("resume_after"), "{err}");
    drop(file);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_holder_whose_clock_runs_a_day_ahead_is_refused_and_leaves_no_mark() {
    let (db, store) = store_on_clock(T0);
    let fast = Arc::new(ManualClock::new(T0 + 86_400_000));
    let options = LeaseOptions::new("fast", presets::twitter())
        .nodes(0..=0)
        .clock(fast.clone());
    let err = options.clone().claim(store.clone()).unwrap_err();
    match &err {
        LeaseError::ClockAhead {
            node: 0,
            holder_millis,
            store_millis,
            max_skew,
            ..
        } => {
            assert_eq!(*holder_millis, T0 + 86_400_000);
            assert_eq!(*store_millis, T0 as i64);
            assert_eq!(*max_skew, LeaseOptions::DEFAULT_MAX_CLOCK_SKEW);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .contains("86400000 ms ahead of the lease store's"),
        "{err}"
    );
    // Nothing persisted, the node free at once: a holder with a good clock
    // takes it and issues now.
    let row = &store.table("fast").rows[0];
    assert_eq!((row.owner.as_deref(), row.high_water_millis), (None, 0));
    let good = options
        .clone()
        .clock(db.clone())
        .claim(store.clone())
        .unwrap();
    assert_eq!(good.resume_after_millis(), 0);
    let g = good.generator_builder().build().unwrap();
    db.advance(Duration::from_millis(1));
    g.next_id().unwrap();
    good.release(&g).unwrap();
    // Within the allowed skew a clock ahead is fine.
    let slightly = Arc::new(ManualClock::new(db.now_millis() + 4_000));
    let lease = options.clock(slightly).claim(store).unwrap();
    lease.release_unused().unwrap();
}

#[test]
fn a_clock_stepped_ahead_during_a_lease_is_refused_at_the_next_renewal() {
    let (db, store) = store_on_clock(T0);
    let holder = Arc::new(ManualClock::new(T0));
    let lease = LeaseOptions::new("stepped", presets::twitter())
        .nodes(0..=0)
        .clock(holder.clone())
        .ttl(Duration::from_millis(400))
        .renew_every(Duration::from_millis(20))
        .claim(store.clone())
        .unwrap();
    let g = lease.generator_builder().build().unwrap();
    holder.advance(Duration::from_millis(1));
    g.next_id().unwrap();
    // NTP steps this machine's clock an hour ahead.
    holder.advance(Duration::from_secs(3600));
    eventually("the renewal is refused", || {
        matches!(
            lease.status(),
            LeaseStatus::Fenced {
                reason: FenceReason::NotRenewed { last_error: Some(ref e), .. },
                ..
            } if e.contains("ahead of the store's")
        )
    });
    // Past its old ceiling: nothing is issued, and nothing ahead was written.
    assert!(matches!(g.next_id(), Err(GenerateError::Fenced(_))));
    let row = &store.table("stepped").rows[0];
    assert!(row.high_water_millis <= T0 + 400, "{row:?}");
    // The clock is fixed: renewals get through again.
    holder.set(db.now_millis() + 1);
    eventually("renewed again", || {
        matches!(lease.status(), LeaseStatus::Held { .. })
    });
    lease.release(&g).unwrap();
}

#[test]
fn a_node_poisoned_by_an_earlier_mark_is_skipped_and_shown() {
    let (db, mut store) = store_on_clock(T0);
    let options = LeaseOptions::new("poisoned", presets::twitter())
        .nodes(0..=2)
        .spread_claims(false)
        .clock(db.clone());
    // A holder without the check (an older version) left node 0 a day ahead.
    let old = options.clone().claim(store.clone()).unwrap();
    assert_eq!(old.node(), 0);
    let poisoned_until = T0 + 86_400_000;
    assert!(
        store
            .release(&ReleaseRequest {
                space: "poisoned",
                node: 0,
                owner: old.owner(),
                fence: old.fence(),
                high_water_millis: poisoned_until,
            })
            .unwrap()
    );
    drop(old);
    // Claims skip it while others are free (the lowest free one is 0).
    let a = options.clone().claim(store.clone()).unwrap();
    let b = options.clone().claim(store.clone()).unwrap();
    assert_eq!((a.node(), b.node()), (1, 2));
    let err = options.clone().claim(store.clone()).unwrap_err();
    match &err {
        LeaseError::AllTaken {
            ahead_of_clock: 1,
            ahead_until_millis,
            ..
        } => assert_eq!(*ahead_until_millis, poisoned_until),
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string().contains("1 of them free but unusable"),
        "{err}"
    );
    let listing = store.table("poisoned").to_string();
    assert!(
        listing.contains(&format!(
            "node 0: free (last held by {}, fence 1), high water {poisoned_until} ms \
             (86400000 ms ahead of the store clock: unusable until then)",
            hostname_pid()
        )),
        "{listing}"
    );
    a.release_unused().unwrap();
    b.release_unused().unwrap();
}

fn hostname_pid() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    format!("{host}/{}", std::process::id())
}

#[test]
fn status_and_owner_say_what_a_health_check_needs() {
    let (db, store) = store_on_clock(T0);
    let lease = LeaseOptions::new("status", presets::twitter())
        .nodes(5..=5)
        .clock(db.clone())
        .renew_every(Duration::from_secs(10))
        .claim(store.clone())
        .unwrap();
    let row = &store.table("status").rows[0];
    assert_eq!(row.owner.as_deref(), Some(lease.owner()));
    assert_eq!(lease.owner().len(), 32);
    let LeaseStatus::Held {
        node: 5,
        fence: 1,
        ceiling_millis,
    } = lease.status()
    else {
        panic!("{}", lease.status())
    };
    assert_eq!(ceiling_millis, T0 + 15_000);
    assert!(
        lease
            .status()
            .to_string()
            .starts_with("held: node 5 (fence 1)")
    );
    // Past the ceiling without a renewal (the clock jumps; renewals every 3 s).
    db.advance(Duration::from_secs(16));
    assert!(!lease.status().is_issuing());
    assert!(matches!(
        lease.status(),
        LeaseStatus::Fenced { node: 5, .. }
    ));
}

/// The setting a [`ConfigError::FixedBySource`] names.
fn fixed_setting(err: &ConfigError) -> Option<&'static str> {
    match err {
        ConfigError::FixedBySource { setting, .. } => Some(setting),
        _ => None,
    }
}
