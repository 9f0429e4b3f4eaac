//! The generator's documented guarantees in the situations a user creates:
//! a restart inside a tick, a large batch beside steady traffic, a batch
//! that cannot be represented, and the stated bounds of decoded time.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use flakeid_core::layout::BitLayout;
use flakeid_core::layout::Layout;
use flakeid_core::layout::presets;
use flakeid_core::{
    Clock, ClockRegression, GenerateError, Generator, ManualClock, SequenceExhaustion,
};

/// A Unix millisecond that starts a second.
const SECOND: u64 = 1_750_000_000_000;

fn generator(
    layout: BitLayout,
    clock: &Arc<ManualClock>,
) -> Generator<BitLayout, Arc<ManualClock>> {
    Generator::builder(layout, 7)
        .clock(clock.clone())
        .build()
        .unwrap()
}

// ---------------------------------------------------------------------------
// Restarts
// ---------------------------------------------------------------------------

/// A process issues IDs and exits; its successor with the same node ID
/// starts within the same tick (a supervisor restarting it at once). One
/// clock stands for the machine's time, so the successor is built after
/// its predecessor's last ID.
#[test]
fn a_restart_inside_a_tick_does_not_repeat_ids() {
    for (name, layout) in [
        ("lsid", presets::lsid()),
        ("js_safe_seconds", presets::js_safe_seconds()),
        ("sonyflake", presets::sonyflake()),
        ("twitter", presets::twitter()),
    ] {
        let tick = layout.tick_millis();
        let clock = Arc::new(ManualClock::new(SECOND - tick));
        let before = generator(layout.clone(), &clock);
        // Into the next tick: the predecessor issues three IDs in it.
        clock.set(SECOND + tick / 10);
        let first: Vec<u64> = (0..3).map(|_| before.next_id().unwrap()).collect();
        assert_eq!(clock.now_millis(), SECOND + tick / 10, "{name}: no wait");
        drop(before);

        // The restart, 80 % of a tick later, still inside that tick.
        clock.set(SECOND + tick * 9 / 10);
        let after = generator(layout.clone(), &clock);
        let second: Vec<u64> = (0..3).map(|_| after.next_id().unwrap()).collect();
        for id in &second {
            assert!(!first.contains(id), "{name}: {id} issued twice");
            assert!(
                *id > first[2],
                "{name}: the successor starts after its predecessor"
            );
        }
        assert_eq!(
            layout.decompose(second[0]).tick,
            layout.decompose(first[0]).tick + 1,
            "{name}: the successor's first ID is in the next tick"
        );
    }
}

/// The first ID is never stamped in the build tick: a blocking call waits
/// for the next tick whatever the policies say, a non-blocking one says
/// when to retry.
#[test]
fn the_first_id_waits_for_the_tick_after_the_build_tick_under_every_policy() {
    for exhaustion in [SequenceExhaustion::Wait, SequenceExhaustion::Fail] {
        for regression in [ClockRegression::default(), ClockRegression::Fail] {
            let clock = Arc::new(ManualClock::new(SECOND + 400));
            let g = Generator::builder(presets::lsid(), 1)
                .clock(clock.clone())
                .sequence_exhaustion(exhaustion)
                .clock_regression(regression)
                .build()
                .unwrap();
            assert_eq!(
                g.try_next_id(),
                Err(GenerateError::WouldBlock {
                    retry_after: Duration::from_millis(600),
                    until_millis: SECOND + 1000,
                })
            );
            assert!(matches!(
                g.try_next_batch(2),
                Err(GenerateError::WouldBlock { .. })
            ));
            let id = g.next_id().unwrap();
            assert_eq!(
                clock.now_millis(),
                SECOND + 1000,
                "waited for the next second"
            );
            assert_eq!(
                g.layout().timestamp(id),
                std::time::UNIX_EPOCH + Duration::from_millis(SECOND + 1000)
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Large batches beside other callers
// ---------------------------------------------------------------------------

/// A manual clock whose waits let "another caller" take an ID as soon as
/// the new tick begins: the worst case for a batch waiting for its ticks.
struct Interfering {
    clock: ManualClock,
    generator: OnceLock<Weak<Generator<BitLayout, Arc<Interfering>>>>,
    waits: std::sync::atomic::AtomicU64,
    taken: std::sync::Mutex<Vec<u64>>,
}

impl Clock for Interfering {
    fn now_millis(&self) -> u64 {
        self.clock.now_millis()
    }
    fn wait_until(&self, target_millis: u64) {
        self.clock.wait_until(target_millis);
        let waits = self
            .waits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert!(waits < 10_000, "the batch never completes");
        if let Some(g) = self.generator.get().and_then(Weak::upgrade)
            && let Ok(id) = g.try_next_id()
        {
            self.taken.lock().unwrap().push(id);
        }
    }
}

#[test]
fn a_large_batch_completes_while_another_caller_takes_ids_every_tick() {
    for n in [5_000usize, 65_535] {
        let clock = Arc::new(Interfering {
            clock: ManualClock::new(SECOND),
            generator: OnceLock::new(),
            waits: Default::default(),
            taken: Default::default(),
        });
        let g = Arc::new(
            Generator::builder(presets::twitter(), 3)
                .clock(clock.clone())
                .build()
                .unwrap(),
        );
        clock.generator.set(Arc::downgrade(&g)).ok().unwrap();
        g.next_id().unwrap(); // the other caller was there first
        let start = clock.now_millis();
        let batch: Vec<u64> = g.next_batch(n).unwrap().collect();
        let elapsed = clock.now_millis() - start;

        assert_eq!(batch.len(), n);
        // One contiguous ascending run of this node's positions.
        let layout = g.layout();
        let position = |id: u64| {
            let p = layout.decompose(id);
            p.tick * layout.sequences_per_tick() + p.sequence
        };
        for w in batch.windows(2) {
            assert_eq!(position(w[1]), position(w[0]) + 1);
        }
        // Bounded: the time its IDs take at 4,096 per ms, plus one tick.
        let bound = (n as u64).div_ceil(4_096) + 1;
        assert!(
            elapsed <= bound,
            "{n} IDs took {elapsed} ms (bound {bound} ms)"
        );
        // The other caller's IDs are all distinct from the batch's.
        let taken = clock.taken.lock().unwrap().clone();
        let batch_set: HashSet<u64> = batch.iter().copied().collect();
        assert!(taken.iter().all(|id| !batch_set.contains(id)));
        // The batch's last ID is not ahead of the clock when it is returned.
        assert!(layout.decompose(batch[n - 1]).tick <= layout.decompose(g.next_id().unwrap()).tick);
    }
}

/// Callers arriving while a batch waits for its reserved ticks wait too
/// (their IDs come after the batch), and under `ClockRegression::Fail` they
/// do not mistake the reservation for a clock that went backwards.
#[test]
fn callers_during_a_reserved_batch_wait_behind_it_and_report_no_regression() {
    let clock = Arc::new(ManualClock::new(SECOND));
    let g = Generator::builder(presets::twitter(), 1)
        .clock(clock.clone())
        .clock_regression(ClockRegression::Fail)
        .build()
        .unwrap();
    clock.set(SECOND + 1);
    // A batch needing 3 ticks beyond the clock; the manual clock "waits" by
    // jumping, so step it back to the moment of the reservation afterwards
    // to see what a concurrent caller saw.
    let batch: Vec<u64> = g.next_batch(3 * 4_096).unwrap().collect();
    let end_tick = g.layout().decompose(batch[batch.len() - 1]).tick;
    clock.set(SECOND + 1);
    match g.try_next_id() {
        Err(GenerateError::WouldBlock { until_millis, .. }) => {
            assert!(until_millis > SECOND + 1);
        }
        other => panic!("expected WouldBlock, got {other:?}"),
    }
    let id = g.next_id().unwrap();
    assert!(id > batch[batch.len() - 1]);
    assert!(g.layout().decompose(id).tick >= end_tick);
    // A real regression, further back than any batch reached, is reported.
    clock.set(SECOND - 10_000);
    assert!(matches!(
        g.next_id(),
        Err(GenerateError::ClockRegressed { .. })
    ));
}

#[test]
fn a_batch_that_cannot_be_represented_has_its_own_error() {
    let clock = Arc::new(ManualClock::new(SECOND));
    let g = generator(presets::twitter(), &clock);
    let max = g.max_batch_len();
    assert_eq!(max, 4_096 * 60_000);
    for n in [usize::MAX, (max + 1) as usize] {
        assert_eq!(
            g.try_next_batch(n).unwrap_err(),
            GenerateError::BatchTooLarge {
                requested: n as u64,
                max,
            }
        );
        assert_eq!(
            g.next_batch(n).unwrap_err(),
            GenerateError::BatchTooLarge {
                requested: n as u64,
                max,
            }
        );
    }
    let message = g.next_batch(usize::MAX).unwrap_err().to_string();
    assert!(message.contains("18446744073709551615"), "{message}");
    assert!(message.contains(&max.to_string()), "{message}");
    assert_eq!(clock.now_millis(), SECOND, "nothing waited");
    // Nothing was reserved: the next ID is the build tick's successor's first.
    let id = g.next_id().unwrap();
    assert_eq!(g.layout().decompose(id).sequence, 0);
}

// ---------------------------------------------------------------------------
// Bounds on decoded time
// ---------------------------------------------------------------------------

/// The decoded time of an ID (the start of its tick) lies within
/// `[t − W − tick + 1 ms, t + L]` of the clock reading `t` when it was
/// issued, with `W` the catch-up window in whole ticks and `L` the
/// run-ahead lead in whole ticks — for every preset, at every offset within
/// a tick, for callers that saturate and callers that do not.
#[test]
fn decoded_time_stays_within_the_documented_bounds() {
    for (name, make) in presets::ALL.iter() {
        let layout = make();
        let tick = layout.tick_millis();
        for (exhaustion, lead) in [
            (SequenceExhaustion::Wait, 0),
            (
                SequenceExhaustion::RunAhead {
                    max_lead: Duration::from_millis(3 * tick),
                },
                3 * tick,
            ),
        ] {
            let window = 10 / tick * tick; // the default 10 ms, in whole ticks
            let clock = Arc::new(ManualClock::new(SECOND + 12_345));
            let g = Generator::builder(layout.clone(), 0)
                .clock(clock.clone())
                .sequence_exhaustion(exhaustion)
                .build()
                .unwrap();
            let check = |id: u64, t: u64, what: &str| {
                let decoded = layout
                    .timestamp(id)
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_millis() as u64;
                assert!(
                    decoded + window + tick > t && decoded <= t + lead,
                    "{name} {what}: decoded {decoded}, clock {t}, window {window}, tick {tick}, lead {lead}"
                );
            };
            let seqs = layout.sequences_per_tick();
            for step in 0..(3 * tick).min(200) {
                // Slow callers: one ID now and then, at every offset.
                clock.set(SECOND + 20_000 + step * tick * 7 + step % tick);
                let id = g.next_id().unwrap();
                check(id, clock.now_millis(), "slow");
            }
            // A saturating caller, descheduled now and then.
            for round in 0..40 {
                for _ in 0..seqs.min(5_000) {
                    let id = g.next_id().unwrap();
                    check(id, clock.now_millis(), "saturating");
                }
                clock.advance(Duration::from_millis(round % 4 * tick / 2 + 1));
            }
            // Right after the burst, slow callers lag by at most the window ...
            clock.advance(Duration::from_millis(tick));
            let id = g.next_id().unwrap();
            check(id, clock.now_millis(), "after a burst");
            // ... and once the window (and any lead) has passed they get the
            // clock's tick.
            clock.advance(Duration::from_millis(window + lead + tick));
            let id = g.next_id().unwrap();
            check(id, clock.now_millis(), "after the window");
            let t = clock.now_millis();
            assert_eq!(
                layout.decompose(id).tick,
                (t - layout.epoch_millis()) / tick,
                "{name}: a caller after the window gets the clock's tick"
            );
        }
    }
}
