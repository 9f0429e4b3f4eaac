//! The lease metrics of the feature `metrics`, read back from a test
//! recorder (metrics-util's `DebuggingRecorder`, installed for the
//! building thread only, so that the other tests of this binary record
//! nothing into it).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use flakeid_core::FenceReason;
use flakeid_lease::LeaseStatus;
use flakeid_sql::Outage;
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

use crate::lease::quick;
use crate::support::{T0, eventually, store_on_clock};

/// A recorder for what `build` builds, and a reader of its values.
fn recorded<T>(build: impl FnOnce() -> T) -> (T, Recorded) {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let built = metrics::with_local_recorder(&recorder, build);
    (
        built,
        Recorded {
            snapshotter,
            totals: Mutex::default(),
        },
    )
}

/// What a recorder saw so far (its snapshots drain it: counters and
/// histograms are added up here, a gauge keeps its last value set).
struct Recorded {
    snapshotter: Snapshotter,
    totals: Mutex<HashMap<String, f64>>,
}

impl Recorded {
    /// The value of the metric `name` with exactly `labels` (0 if it was
    /// never registered): a counter's or gauge's value, a histogram's count.
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let mut totals = self.totals.lock().unwrap();
        for (k, .., v) in self.snapshotter.snapshot().into_vec() {
            let mut key = k.key().name().to_owned();
            let mut ls: Vec<_> = k
                .key()
                .labels()
                .map(|l| format!("{}={}", l.key(), l.value()))
                .collect();
            ls.sort();
            key.push_str(&ls.join(","));
            let total = totals.entry(key).or_default();
            match v {
                DebugValue::Counter(c) => *total += c as f64,
                DebugValue::Histogram(h) => *total += h.len() as f64,
                DebugValue::Gauge(g) if g.into_inner() != 0.0 => *total = g.into_inner(),
                DebugValue::Gauge(_) => {}
            }
        }
        let mut ls: Vec<_> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        ls.sort();
        let key = format!("{name}{}", ls.join(","));
        totals.get(&key).copied().unwrap_or(0.0)
    }
}

#[test]
fn a_lost_lease_counts_failed_renewals_a_fence_and_the_loss() {
    let (db, store) = store_on_clock(T0);
    let outage = Outage::new();
    let ((a, ga), s) = recorded(|| {
        // Renewals every 250 ms rather than 20: on a loaded machine a
        // renewal unanswered for one interval counts as failed.
        let a = quick("metrics")
            .renew_every(Duration::from_millis(250))
            .claim(store.behind(&outage))
            .unwrap();
        let ga = a.generator_builder().build().unwrap();
        (a, ga)
    });
    let space = [("space", "metrics")];
    eventually("a renewal is answered", || {
        s.value("flakeid_lease_renewal_duration_seconds", &space) >= 1.0
    });
    assert_eq!(s.value("flakeid_lease_renewal_failures_total", &space), 0.0);
    outage.start();
    eventually("a failed renewal is counted", || {
        s.value("flakeid_lease_renewal_failures_total", &space) >= 1.0
    });
    // The holder's clock passes the ceiling while renewals fail.
    ga.clock().advance(Duration::from_secs(5));
    eventually("the fence is counted", || {
        s.value("flakeid_lease_fenced_total", &space) == 1.0
    });
    db.advance(Duration::from_secs(1));
    let b = quick("metrics").claim(store.clone()).unwrap();
    assert_eq!(s.value("flakeid_lease_lost_total", &space), 0.0);
    outage.end();
    eventually("the loss is counted", || {
        matches!(
            a.status(),
            LeaseStatus::Fenced {
                reason: FenceReason::Lost { .. },
                ..
            }
        )
    });
    assert_eq!(s.value("flakeid_lease_lost_total", &space), 1.0);
    assert_eq!(s.value("flakeid_lease_fenced_total", &space), 1.0);
    assert_eq!(s.value("flakeid_node_moves_total", &space), 0.0);
    drop(a);
    drop(b);
}
