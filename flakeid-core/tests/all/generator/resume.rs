//! A generator resuming after the mark of an earlier run (what a node
//! source's hand-over sets): a mark ahead of the clock is a clock
//! regression, one behind it changes nothing, and a generator with no
//! ceiling reads the clock as any other.

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::{Clock, ClockRegression, GenerateError, ManualClock};

use crate::support::{T0, twitter_on};

#[test]
fn resume_after_a_mark_ahead_of_the_clock_is_a_clock_regression() {
    let clock = Arc::new(ManualClock::new(T0));
    // The previous run stamped up to T0 + 30 s; this clock was stepped back.
    let g = twitter_on(&clock, 1)
        .resume_after(T0 + 30_000)
        .build()
        .unwrap();
    assert!(matches!(
        g.next_id(),
        Err(GenerateError::ClockRegressed { behind, .. }) if behind == Duration::from_millis(30_001)
    ));
    let g = twitter_on(&clock, 1)
        .resume_after(T0 + 30_000)
        .clock_regression(ClockRegression::Wait {
            max: Duration::from_secs(60),
        })
        .build()
        .unwrap();
    let id = g.next_id().unwrap();
    assert_eq!(g.layout().timestamp_millis(id), T0 + 30_001);
    // A mark in the past changes nothing: the build tick's floor applies.
    clock.set(T0 + 40_000);
    let g = twitter_on(&clock, 1).resume_after(T0).build().unwrap();
    clock.set(T0 + 40_001);
    assert_eq!(
        g.layout().timestamp_millis(g.next_id().unwrap()),
        T0 + 40_001
    );
}

#[test]
fn generators_without_a_ceiling_are_unchanged() {
    let clock = Arc::new(ManualClock::new(T0));
    let g = twitter_on(&clock, 1).build().unwrap();
    clock.set(T0 + 1);
    assert!(g.next_id().is_ok());
    assert_eq!(clock.now_millis(), T0 + 1);
}
