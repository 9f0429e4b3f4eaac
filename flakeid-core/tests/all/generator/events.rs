//! The generator's `tracing` events (target `flakeid::generator`): long
//! waits and clock steps, captured on this thread.

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::telemetry::{self, GENERATOR_TARGET};
use flakeid_core::{Clock, ClockRegression, ManualClock};

use crate::support::capture::Capture;
use crate::support::{T0, twitter_on};

/// The events of `flakeid::generator` while `f` runs on this thread, one
/// line each: `LEVEL message key=value …`.
fn events(f: impl FnOnce()) -> Vec<String> {
    let capture = Capture::of(GENERATOR_TARGET);
    tracing::subscriber::with_default(capture.clone(), f);
    capture.lines()
}

#[test]
fn a_clock_step_back_logs_the_step_and_the_long_wait_a_tick_wait_logs_nothing() {
    assert_eq!(
        telemetry::wait_event_threshold(),
        telemetry::DEFAULT_WAIT_EVENT_THRESHOLD
    );
    let clock = Arc::new(ManualClock::new(T0));
    let g = twitter_on(&clock, 4)
        .clock_regression(ClockRegression::Wait {
            max: Duration::from_secs(10),
        })
        .build()
        .unwrap();
    // The first ID waits one millisecond (the build tick): below the threshold.
    let quiet = events(|| {
        for _ in 0..5_000 {
            g.next_id().unwrap();
        }
    });
    assert_eq!(quiet, Vec::<String>::new());
    let now = clock.now_millis();
    clock.set(now - 5_000);
    let seen = events(|| {
        g.next_id().unwrap();
    });
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[0].starts_with("WARN clock stepped back"), "{seen:?}");
    assert!(
        seen[0].contains("node=4") && seen[0].contains("behind_ms=5000"),
        "{seen:?}"
    );
    assert!(seen[1].starts_with("WARN generator waiting"), "{seen:?}");
    assert!(seen[1].contains("cause=\"clock_regression\""), "{seen:?}");
}

#[test]
fn a_clock_step_forward_is_logged_an_idle_generator_is_not() {
    let clock = Arc::new(ManualClock::new(T0));
    let g = twitter_on(&clock, 5).build().unwrap();
    clock.advance(Duration::from_millis(1));
    g.next_id().unwrap();
    // Idle for a moment of real time, the clock moving with it: no step.
    std::thread::sleep(Duration::from_millis(30));
    clock.advance(Duration::from_millis(30));
    assert_eq!(
        events(|| {
            g.next_id().unwrap();
        }),
        Vec::<String>::new()
    );
    // The clock jumps 10 s ahead while almost no time passes.
    clock.advance(Duration::from_secs(10));
    let seen = events(|| {
        g.next_id().unwrap();
    });
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].starts_with("WARN clock stepped forward"),
        "{seen:?}"
    );
    assert!(seen[0].contains("node=5"), "{seen:?}");
}
