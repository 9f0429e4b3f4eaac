//! JavaScript-safe layouts: every ID is at most 2^53 − 1.

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::layout::BitLayout;
use flakeid_core::layout::Layout;
use flakeid_core::layout::{Domain, presets};
use flakeid_core::{Clock, Generator, ManualClock};
use proptest::prelude::*;

const JS_MAX: u64 = (1 << 53) - 1;

fn js_presets() -> [(&'static str, BitLayout); 2] {
    [
        ("js_safe", presets::js_safe()),
        ("js_safe_seconds", presets::js_safe_seconds()),
    ]
}

#[test]
fn capacity_and_end_dates() {
    let l = presets::js_safe();
    assert_eq!((l.capacity_per_second(), l.node_count()), (256_000.0, 16));
    assert_eq!(l.end_millis(), 3_903_090_455_552); // 2093-09-06T15:47:35.552Z
    let l = presets::js_safe_seconds();
    assert_eq!((l.capacity_per_second(), l.node_count()), (4_096.0, 1_024));
    assert_eq!(l.end_millis(), 3_851_550_848_000); // 2092-01-19T03:14:08Z
    for (name, l) in js_presets() {
        assert_eq!(l.domain(), Domain::JsSafe, "{name}");
        assert_eq!(l.max_id(), JS_MAX, "{name}");
        assert_eq!(
            l.compose(l.max_tick(), l.max_node(), l.max_sequence()),
            JS_MAX,
            "{name}"
        );
        // Exactly representable as an f64, as JavaScript numbers are.
        assert_eq!(JS_MAX as f64 as u64, JS_MAX);
    }
}

#[test]
fn generated_ids_stay_js_safe_until_the_end() {
    for (name, l) in js_presets() {
        let end = l.end_millis();
        for start in [l.epoch_millis() + 1, end - 5_000] {
            let clock = Arc::new(ManualClock::new(start));
            let g = Generator::builder(l.clone(), l.max_node())
                .clock(clock.clone())
                .build()
                .unwrap();
            let mut last = 0;
            let mut count = 0u64;
            while let Ok(id) = g.next_id() {
                count += 1;
                assert!(id <= JS_MAX && id > last, "{name}: {id}");
                assert_eq!(id as f64 as u64, id, "{name}: {id} is not exact in f64");
                last = id;
                if clock_past(&clock, start) {
                    break;
                }
            }
            // Every tick of the run was filled to capacity (from the tick
            // after the build tick on, where IDs start).
            let tick = l.tick().as_millis() as u64;
            let first = ((start - l.epoch_millis()) / tick + 1) * tick + l.epoch_millis();
            let ticks = clock.now_millis().min(end).saturating_sub(first) / tick;
            assert!(
                count >= ticks * l.capacity_per_tick(),
                "{name}: {count} IDs in {ticks} ticks"
            );
            assert!(last > 0, "{name}");
        }
        // Up to the last tick, then refused (built in the tick before it).
        let tick = l.tick().as_millis() as u64;
        let clock = Arc::new(ManualClock::new(end - 1 - tick));
        let g = Generator::builder(l.clone(), 0)
            .clock(clock.clone())
            .build()
            .unwrap();
        clock.set(end - 1);
        assert!(g.next_id().unwrap() <= JS_MAX);
        clock.set(end);
        assert!(g.next_id().is_err(), "{name}");
    }
}

/// Stops a run after 20 s of manual-clock time.
fn clock_past(clock: &ManualClock, start: u64) -> bool {
    clock.now_millis() > start + Duration::from_secs(20).as_millis() as u64
}

proptest! {
    #[test]
    fn every_composable_id_is_js_safe(idx in 0usize..2, tick: u64, node: u64, seq: u64) {
        let (_, l) = &js_presets()[idx];
        let id = l.compose(tick % (l.max_tick() + 1), node % (l.max_node() + 1), seq % (l.max_sequence() + 1));
        prop_assert!(id <= JS_MAX);
    }
}
