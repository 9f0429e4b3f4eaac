//! The metrics of the feature `metrics`, read back from a test recorder
//! (metrics-util's `DebuggingRecorder`, installed for the building thread
//! only, so that the other tests of this binary record nothing into it).
//! (The metrics of leases and segments are tested in flakeid-lease and
//! flakeid-segment.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flakeid_core::{ClockRegression, ManualClock};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

use crate::support::{T0, twitter_on};

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

    /// `flakeid_waits_total` of `node` for `cause`.
    fn waits(&self, node: &str, cause: &str) -> f64 {
        self.value("flakeid_waits_total", &[("node", node), ("cause", cause)])
    }

    fn is_empty(&self) -> bool {
        self.snapshotter.snapshot().into_vec().is_empty()
    }
}

#[test]
fn issued_ids_and_waits_are_counted_per_tick_and_per_cause() {
    let clock = Arc::new(ManualClock::new(T0));
    let (g, s) = recorded(|| twitter_on(&clock, 7).build().unwrap());
    let node = [("node", "7")];
    // The first ID waits for the tick after the build tick (the manual
    // clock advances itself while the generator waits).
    g.next_id().unwrap();
    assert_eq!(s.waits("7", "first_tick"), 1.0);
    assert_eq!(s.value("flakeid_ids_issued_total", &node), 0.0);
    // The rest of the tick's 4,096 IDs, then the next tick after a wait.
    for _ in 1..4_096 {
        g.next_id().unwrap();
    }
    assert_eq!(s.waits("7", "sequence"), 0.0);
    for _ in 0..10 {
        g.next_id().unwrap();
    }
    assert_eq!(s.waits("7", "sequence"), 1.0);
    // Counted once the generator entered its next tick.
    assert_eq!(s.value("flakeid_ids_issued_total", &node), 4_096.0);
    // Ticks skipped while idle are not counted as issued.
    clock.advance(Duration::from_millis(50));
    g.next_id().unwrap();
    assert_eq!(s.value("flakeid_ids_issued_total", &node), 4_106.0);
    // A batch spanning ticks.
    clock.advance(Duration::from_millis(5));
    assert_eq!(g.next_batch(5_000).unwrap().count(), 5_000);
    clock.advance(Duration::from_millis(5));
    g.next_id().unwrap();
    assert_eq!(s.value("flakeid_ids_issued_total", &node), 9_107.0);
}

#[test]
fn a_clock_step_back_is_counted_once_and_its_wait_by_cause() {
    let clock = Arc::new(ManualClock::new(T0));
    let (g, s) = recorded(|| {
        twitter_on(&clock, 3)
            .clock_regression(ClockRegression::Wait {
                max: Duration::from_secs(10),
            })
            .build()
            .unwrap()
    });
    clock.advance(Duration::from_millis(1));
    g.next_id().unwrap();
    assert_eq!(
        s.value("flakeid_clock_regressions_total", &[("node", "3")]),
        0.0
    );
    clock.set(T0 - 5_000);
    g.next_id().unwrap();
    g.next_id().unwrap();
    assert_eq!(
        s.value("flakeid_clock_regressions_total", &[("node", "3")]),
        1.0
    );
    assert_eq!(s.waits("3", "clock_regression"), 1.0);
}

#[test]
fn each_step_back_is_counted_once_however_many_callers_see_it() {
    let clock = Arc::new(ManualClock::new(T0));
    let (g, s) = recorded(|| {
        twitter_on(&clock, 4)
            .clock_regression(ClockRegression::Fail)
            .build()
            .unwrap()
    });
    let regressions = || s.value("flakeid_clock_regressions_total", &[("node", "4")]);
    clock.advance(Duration::from_millis(1));
    g.next_id().unwrap();
    clock.set(T0 - 5_000);
    assert!(g.next_id().is_err());
    assert!(g.next_id().is_err());
    assert_eq!(regressions(), 1.0, "one step back, seen by two calls");
    // Time passing within the regression is the same regression.
    clock.set(T0 - 4_000);
    assert!(g.next_id().is_err());
    assert_eq!(regressions(), 1.0);
    // The clock steps back again before the generator entered a new tick.
    clock.set(T0 - 10_000);
    assert!(g.next_id().is_err());
    assert_eq!(regressions(), 2.0, "a second step back");
    assert!(g.next_id().is_err());
    assert_eq!(regressions(), 2.0);
}

#[test]
fn nothing_is_recorded_without_a_recorder() {
    // Built with no recorder installed: the handles are no-ops, and a
    // recorder installed later for this thread sees nothing of them.
    let clock = Arc::new(ManualClock::new(T0));
    let g = twitter_on(&clock, 9).build().unwrap();
    let (_, s) = recorded(|| {
        for _ in 0..5_000 {
            g.next_id().unwrap();
        }
    });
    assert!(s.is_empty());
}
