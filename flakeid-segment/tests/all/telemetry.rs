//! The segment metrics of the feature `metrics`, read back from a test
//! recorder (metrics-util's `DebuggingRecorder`, installed for the
//! building thread only, so that the other tests of this binary record
//! nothing into it).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

use crate::segment::{Mode, Switched};
use crate::support::{eventually, fixed_step};

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
fn segment_fetches_waits_and_values_left_are_recorded() {
    let store = Switched::new();
    let (ids, s) = recorded(|| {
        fixed_step("orders", 100)
            .prefetch_at(0.5)
            .retry_every(Duration::from_millis(5))
            .wait(Duration::from_secs(30))
            .start(store.clone())
            .unwrap()
    });
    let ok = [("segment", "orders"), ("outcome", "ok")];
    assert_eq!(s.value("flakeid_segment_fetches_total", &ok), 1.0);
    assert_eq!(
        s.value("flakeid_segment_values_left", &[("segment", "orders")]),
        100.0
    );
    for _ in 0..51 {
        ids.next_value().unwrap();
    }
    eventually("the prefetch is counted", || {
        s.value("flakeid_segment_fetches_total", &ok) == 2.0
    });
    // Both segments used up while the database is down: a wait, failed
    // fetches, then the fetch that ends the wait.
    store.set(Mode::Down);
    for _ in 51..200 {
        ids.next_value().unwrap();
    }
    let failed = [("segment", "orders"), ("outcome", "failed")];
    let waiter = std::thread::spawn(move || ids.next_value().map(|_| ids));
    eventually("a wait and a failed fetch are counted", || {
        s.value("flakeid_segment_waits_total", &[("segment", "orders")]) == 1.0
            && s.value("flakeid_segment_fetches_total", &failed) >= 1.0
    });
    store.set(Mode::Up);
    let ids = waiter.join().unwrap().unwrap();
    assert_eq!(s.value("flakeid_segment_fetches_total", &ok), 3.0);
    // The third segment is served, one of its values taken.
    let left = s.value("flakeid_segment_values_left", &[("segment", "orders")]);
    assert!((99.0..=100.0).contains(&left), "{left}");
    drop(ids);
}
