//! Unit tests of `src/step.rs`: how the step adapts to the fetch interval
//! (crate-private, so these run as the module's `tests`).

use super::*;

#[test]
fn the_first_two_fetches_use_the_base_then_the_interval_adapts() {
    let mut s = StepState::new(StepPolicy::new(100, 1_000));
    let minute = 60_000;
    let mut fetch = |at: u64| {
        let step = s.for_fetch_at(at);
        s.fetched(step, at);
        step
    };
    assert_eq!(fetch(0), 100);
    assert_eq!(fetch(1), 100); // the first prefetch
    assert_eq!(fetch(minute), 200);
    assert_eq!(fetch(2 * minute), 400);
    assert_eq!(fetch(3 * minute), 800);
    assert_eq!(fetch(4 * minute), 1_000);
    assert_eq!(fetch(5 * minute), 1_000);
    assert_eq!(fetch(5 * minute + 31 * minute), 500);
    assert_eq!(s.current(), 500);
}

#[test]
fn failed_attempts_change_nothing() {
    let mut s = StepState::new(StepPolicy::new(100, 1_000));
    let minute = 60_000;
    for at in [0, 1] {
        let step = s.for_fetch_at(at);
        s.fetched(step, at);
    }
    // Attempts at 20 minutes and after, none of which succeeded.
    for at in (0..10).map(|i| 20 * minute + i) {
        assert_eq!(s.for_fetch_at(at), 100);
    }
    assert_eq!(s.current(), 100);
}

#[test]
fn the_bounds_are_exact() {
    let p = StepPolicy::new(10, 80);
    assert_eq!(
        p.next(10, StepPolicy::DOUBLE_BELOW - Duration::from_millis(1)),
        20
    );
    assert_eq!(p.next(10, StepPolicy::DOUBLE_BELOW), 10);
    assert_eq!(p.next(40, StepPolicy::HALVE_ABOVE), 40);
    assert_eq!(
        p.next(40, StepPolicy::HALVE_ABOVE + Duration::from_millis(1)),
        20
    );
    assert_eq!(p.next(80, Duration::ZERO), 80);
    assert_eq!(p.next(15, StepPolicy::HALVE_ABOVE * 2), 10);
    // A cap below the base is a fixed step.
    assert_eq!(StepPolicy::new(50, 5).next(50, Duration::ZERO), 50);
}
