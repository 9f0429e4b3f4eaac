//! The generator's `tracing` events (target `flakeid::generator`): long
//! waits and clock steps, captured on this thread.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flakeid_core::telemetry::{self, GENERATOR_TARGET};
use flakeid_core::{Clock, ClockRegression, Generator, ManualClock, layout::presets};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

const T0: u64 = 1_700_000_000_000;

/// The events of `flakeid::generator` while `f` runs on this thread, one
/// line each: `message key=value …`.
fn events(f: impl FnOnce()) -> Vec<String> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    tracing::subscriber::with_default(Capture(seen.clone()), f);
    seen.lock().unwrap().clone()
}

#[test]
fn a_clock_step_back_logs_the_step_and_the_long_wait_a_tick_wait_logs_nothing() {
    assert_eq!(
        telemetry::wait_event_threshold(),
        telemetry::DEFAULT_WAIT_EVENT_THRESHOLD
    );
    let clock = Arc::new(ManualClock::new(T0));
    let g = Generator::builder(presets::twitter(), 4)
        .clock(clock.clone())
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
    assert!(seen[0].starts_with("clock stepped back"), "{seen:?}");
    assert!(
        seen[0].contains("node=4") && seen[0].contains("behind_ms=5000"),
        "{seen:?}"
    );
    assert!(seen[1].starts_with("generator waiting"), "{seen:?}");
    assert!(seen[1].contains("cause=\"clock_regression\""), "{seen:?}");
}

#[test]
fn a_clock_step_forward_is_logged_an_idle_generator_is_not() {
    let clock = Arc::new(ManualClock::new(T0));
    let g = Generator::builder(presets::twitter(), 5)
        .clock(clock.clone())
        .build()
        .unwrap();
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
    assert!(seen[0].starts_with("clock stepped forward"), "{seen:?}");
    assert!(seen[0].contains("node=5"), "{seen:?}");
}

struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

struct Capture(Arc<Mutex<Vec<String>>>);

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == GENERATOR_TARGET
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut line = Line(String::new());
        event.record(&mut line);
        self.0.lock().unwrap().push(line.0);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}
