//! Unit tests of `src/clock.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

#[test]
fn monotonic_clock_is_close_to_wall_time() {
    let wall = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, saturating_millis);
    let mono = MonotonicClock::new().now_millis();
    // Anchored to wall time; generous bound for a loaded machine.
    assert!(mono.abs_diff(wall) < 60_000, "mono {mono} wall {wall}");
}

#[test]
fn monotonic_clock_never_goes_back() {
    let clock = MonotonicClock::new();
    let mut last = clock.now_millis();
    for _ in 0..100_000 {
        let now = clock.now_millis();
        assert!(now >= last);
        last = now;
    }
}

#[test]
fn readings_answer_the_probe_and_carry_no_flag_bits() {
    let clock = MonotonicClock::new();
    let before = clock.now_millis();
    // As the ticker does once per probe period.
    publish(0, PROBE, 0);
    let after = clock.now_millis();
    assert!(
        after >= before && after & !TIME_MASK == 0,
        "{before} {after}"
    );
    if let Some(fast) = clock.try_tagged_now() {
        assert!(fast & FLAGS == 0, "{fast:x}");
        assert!(fast & TIME_MASK >= after, "{after} {fast}");
        assert_eq!(fast & !TIME_MASK, fork::current_tag());
    }
    assert!(clock.now_millis() >= after);
}

#[test]
fn monotonic_wait_until_reaches_target() {
    let clock = MonotonicClock::new();
    let target = clock.now_millis() + 3;
    clock.wait_until(target);
    assert!(clock.now_millis() >= target);
}

#[test]
fn manual_wait_until_never_moves_back() {
    let clock = ManualClock::new(50);
    clock.wait_until(10);
    assert_eq!(clock.now_millis(), 50);
}
