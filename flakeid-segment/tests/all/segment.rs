//! Segment sources on an in-memory store whose "database" can fail or
//! hang: double buffering, the prefetch share, outages, recovery and the
//! adaptive step (manual clock).

use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use flakeid_core::ManualClock;
use flakeid_segment::{
    FetchRequest, Fetched, MemorySegmentStore, Segment, SegmentError, SegmentIds, SegmentOptions,
    SegmentStore,
};
use flakeid_sql::StoreError;

use crate::support::{eventually, fixed_step};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Up,
    /// Every fetch fails at once.
    Down,
    /// Every fetch hangs until the mode changes (a paused database).
    Hang,
}

/// A [`MemorySegmentStore`] behind a switch, counting fetches.
#[derive(Clone)]
pub(crate) struct Switched {
    rows: MemorySegmentStore,
    state: Arc<(Mutex<(Mode, u64)>, Condvar)>,
}

impl Switched {
    pub(crate) fn new() -> Self {
        Switched {
            rows: MemorySegmentStore::new(),
            state: Arc::new((Mutex::new((Mode::Up, 0)), Condvar::new())),
        }
    }

    pub(crate) fn set(&self, mode: Mode) {
        self.state.0.lock().unwrap().0 = mode;
        self.state.1.notify_all();
    }

    /// Fetches that reached the database and got an answer.
    fn answered(&self) -> u64 {
        self.state.0.lock().unwrap().1
    }
}

impl SegmentStore for Switched {
    fn fetch(&mut self, request: &FetchRequest<'_>) -> Result<Fetched, StoreError> {
        let (lock, cv) = &*self.state;
        let mut s = lock.lock().unwrap();
        while s.0 == Mode::Hang {
            s = cv.wait(s).unwrap();
        }
        if s.0 == Mode::Down {
            return Err("connection refused".into());
        }
        s.1 += 1;
        drop(s);
        SegmentStore::fetch(&mut self.rows, request)
    }
}

fn next_segment(ids: &SegmentIds) -> Option<Segment> {
    ids.stats().next
}

#[test]
fn the_next_segment_is_fetched_once_the_configured_share_is_used() {
    for (share, trigger) in [(0.1, 10), (0.5, 50), (0.0, 0), (1.0, 99)] {
        let store = Switched::new();
        let ids = SegmentOptions::new("orders")
            .step(100)
            .prefetch_at(share)
            .start(store.clone())
            .unwrap();
        for v in 1..=trigger {
            assert_eq!(ids.next_value().unwrap(), v);
        }
        // Nothing but the first segment was fetched before the trigger.
        assert_eq!(store.answered(), 1, "share {share}");
        assert_eq!(next_segment(&ids), None);
        assert_eq!(ids.next_value().unwrap(), trigger + 1);
        eventually("the prefetch arrives", || next_segment(&ids).is_some());
        assert_eq!(
            next_segment(&ids),
            Some(Segment {
                first: 101,
                last: 200
            })
        );
        assert_eq!(store.answered(), 2);
        // The next segment takes over without another fetch being waited for.
        for v in trigger + 2..=150 {
            assert_eq!(ids.next_value().unwrap(), v);
        }
    }
}

#[test]
fn the_default_share_is_ten_percent() {
    assert_eq!(flakeid_segment::SegmentOptions::DEFAULT_PREFETCH_AT, 0.1);
    let store = Switched::new();
    let ids = SegmentOptions::new("d")
        .step(1_000)
        .start(store.clone())
        .unwrap();
    for _ in 0..100 {
        ids.next_value().unwrap();
    }
    assert_eq!(store.answered(), 1);
    ids.next_value().unwrap();
    eventually("the prefetch arrives", || store.answered() == 2);
}

#[test]
fn an_outage_is_absorbed_until_both_segments_are_used_then_refused_then_recovered() {
    let store = Switched::new();
    let ids = fixed_step("orders", 10)
        .retry_every(Duration::from_millis(5))
        .wait(Duration::ZERO)
        .start(store.clone())
        .unwrap();
    assert_eq!(ids.next_value().unwrap(), 1);
    assert_eq!(ids.next_value().unwrap(), 2); // the trigger (10 % of 10)
    eventually("the prefetch arrives", || next_segment(&ids).is_some());
    store.set(Mode::Down);
    // Both segments are served while the database is down.
    for v in 3..=20 {
        assert_eq!(ids.next_value().unwrap(), v);
    }
    eventually("a fetch failed", || ids.stats().failed_fetches >= 1);
    match ids.next_value() {
        Err(SegmentError::Unavailable {
            name,
            failed_fetches,
            last_error,
            ..
        }) => {
            assert_eq!(name, "orders");
            assert!(failed_fetches >= 1);
            assert_eq!(last_error.as_deref(), Some("connection refused"));
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    // Still refused, as a typed error, while the database is down.
    assert!(matches!(
        ids.try_next_value(),
        Err(SegmentError::Unavailable { .. })
    ));
    store.set(Mode::Up);
    let resumed = std::cell::Cell::new(0);
    eventually("service resumes", || match ids.next_value() {
        Ok(v) => {
            resumed.set(v);
            true
        }
        Err(SegmentError::Unavailable { .. }) => false,
        Err(e) => panic!("{e}"),
    });
    // Failed fetches advanced nothing: service resumes at the row's next value.
    assert_eq!(resumed.get(), 21);
    assert_eq!(ids.next_value().unwrap(), 22);
}

#[test]
fn a_hung_database_is_absorbed_then_callers_wait_then_get_the_error_then_recover() {
    let store = Switched::new();
    let ids = Arc::new(
        fixed_step("paused", 10)
            .wait(Duration::from_millis(20))
            .start(store.clone())
            .unwrap(),
    );
    // Paused before the prefetch: it hangs mid-fetch.
    store.set(Mode::Hang);
    for v in 1..=10 {
        assert_eq!(ids.next_value().unwrap(), v);
    }
    match ids.next_value() {
        Err(SegmentError::Unavailable {
            failed_fetches: 0,
            last_error: None,
            ..
        }) => {}
        other => panic!("expected Unavailable with the fetch still pending, got {other:?}"),
    }
    let msg = ids.next_value().unwrap_err().to_string();
    assert!(
        msg.contains("the first fetch is still waiting for an answer"),
        "{msg}"
    );
    // A caller waiting without bound is served once the database answers.
    let waiter = {
        let ids = ids.clone();
        std::thread::spawn(move || {
            loop {
                match ids.next_value() {
                    Ok(v) => return v,
                    Err(SegmentError::Unavailable { .. }) => continue,
                    Err(e) => panic!("{e}"),
                }
            }
        })
    };
    store.set(Mode::Up);
    assert_eq!(waiter.join().unwrap(), 11);
    assert_eq!(ids.next_value().unwrap(), 12);
}

#[test]
fn the_step_doubles_under_15_minutes_halves_past_30_and_is_capped() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let rows = MemorySegmentStore::new();
    let store = Switched {
        rows: rows.clone(),
        state: Arc::new((Mutex::new((Mode::Up, 0)), Condvar::new())),
    };
    let ids = SegmentOptions::new("adaptive")
        .step(100)
        .max_step(400)
        .prefetch_at(0.0)
        .clock(clock.clone())
        .start(store.clone())
        .unwrap();
    let minute = Duration::from_secs(60);
    // Moves the clock, then takes the first value of a segment (which
    // triggers the prefetch) and the rest of it; the prefetched length.
    let drain = |clock_step: Duration| -> u64 {
        let before = store.answered();
        clock.advance(clock_step);
        let first = ids.next_value().unwrap();
        // Answered by the store, then kept by the source as its next segment.
        eventually("the prefetch arrives", || {
            store.answered() == before + 1 && next_segment(&ids).is_some()
        });
        let (current, taken) = ids.stats().current.unwrap();
        for _ in taken..current.len() {
            ids.next_value().unwrap();
        }
        assert_eq!(
            ids.stats().current.map(|(s, taken)| s.len() - taken),
            Some(0)
        );
        let next = next_segment(&ids).unwrap();
        assert!(next.first > first);
        next.len()
    };
    assert_eq!(drain(Duration::ZERO), 100); // the first prefetch: the configured step
    assert_eq!(drain(minute), 200); // lasted 1 minute: doubled
    assert_eq!(drain(14 * minute), 400);
    assert_eq!(drain(minute), 400); // capped
    assert_eq!(drain(20 * minute), 400); // 15 to 30 minutes: kept
    assert_eq!(drain(31 * minute), 200); // over 30: halved
    assert_eq!(drain(60 * minute), 100);
    assert_eq!(drain(60 * minute), 100); // never below the configured step
    assert_eq!(rows.row("adaptive").unwrap().step, 100);
    // A clock stepped back does not break anything: it counts as short.
    clock.step_back(120 * minute);
    assert_eq!(drain(Duration::ZERO), 200);
}

#[test]
fn sources_on_one_row_in_many_threads_never_repeat_a_value() {
    let store = MemorySegmentStore::new();
    let sources: Vec<Arc<SegmentIds>> = (0..3)
        .map(|_| {
            Arc::new(
                SegmentOptions::new("shared")
                    .step(7)
                    .max_step(50)
                    .wait(Duration::from_secs(30))
                    .start(store.clone())
                    .unwrap(),
            )
        })
        .collect();
    let handles: Vec<_> = (0..6)
        .map(|t| {
            let ids = sources[t % 3].clone();
            std::thread::spawn(move || {
                let values: Vec<u64> = (0..5_000).map(|_| ids.next_value().unwrap()).collect();
                // Ascending per source, hence per thread of it.
                assert!(values.windows(2).all(|w| w[0] < w[1]));
                values
            })
        })
        .collect();
    let mut seen = HashSet::new();
    for h in handles {
        for v in h.join().unwrap() {
            assert!(seen.insert(v), "value {v} served twice");
        }
    }
    assert_eq!(seen.len(), 30_000);
    // Gaps only up to the rest of each source's two segments.
    let max_id = store.row("shared").unwrap().max_id as u64;
    assert!(max_id - 30_000 <= 3 * 2 * 50, "{max_id}");
}

#[test]
fn a_stopped_source_serves_what_it_holds_then_says_so() {
    let store = MemorySegmentStore::new();
    let ids = fixed_step("s", 10).start(store.clone()).unwrap();
    ids.next_value().unwrap();
    ids.next_value().unwrap(); // triggers the prefetch
    eventually("the prefetch arrives", || next_segment(&ids).is_some());
    ids.stop();
    let rest: Vec<u64> = std::iter::from_fn(|| ids.next_value().ok()).collect();
    assert_eq!(rest, (3..=20).collect::<Vec<_>>());
    assert!(matches!(
        ids.next_value(),
        Err(SegmentError::Stopped { .. })
    ));
    // Draining left no gap: the row ends at the last value served.
    assert_eq!(store.row("s").unwrap().max_id, 20);
}

#[test]
fn a_row_that_would_pass_the_largest_id_is_exhausted() {
    let store = MemorySegmentStore::new();
    let first = i64::MAX as u64 - 14;
    let ids = fixed_step("end", 10)
        .first_value(first)
        .wait(Duration::from_secs(30))
        .start(store.clone())
        .unwrap();
    // A segment of 10, then the 5 values left (a shorter final segment).
    for v in first..=i64::MAX as u64 {
        assert_eq!(ids.next_value().unwrap(), v);
    }
    let e = ids.next_value().unwrap_err();
    assert!(
        matches!(e, SegmentError::Exhausted { max_id, step: 10, .. } if max_id == i64::MAX as u64),
        "{e:?}"
    );
    assert!(e.to_string().contains("would pass 2^63 - 1"), "{e}");
    let again = SegmentOptions::new("end")
        .step(10)
        .start(store)
        .unwrap_err();
    assert!(matches!(again, SegmentError::Exhausted { .. }), "{again:?}");
}

#[test]
fn a_failed_start_and_bad_options_are_typed_errors() {
    let store = Switched::new();
    store.set(Mode::Down);
    let e = SegmentOptions::new("x").start(store).unwrap_err();
    assert_eq!(
        e.to_string(),
        "segment \"x\" could not start: fetching its first segment failed: connection refused"
    );
    let bad = |o: SegmentOptions| match o.start(MemorySegmentStore::new()) {
        Err(SegmentError::InvalidOption { option, .. }) => option,
        other => panic!("{other:?}"),
    };
    assert_eq!(bad(SegmentOptions::new("")), "name");
    assert_eq!(bad(SegmentOptions::new("x".repeat(192))), "name");
    assert_eq!(bad(SegmentOptions::new("x").step(0)), "step");
    assert_eq!(bad(SegmentOptions::new("x").step(1 << 40)), "step");
    assert_eq!(
        bad(SegmentOptions::new("x").step(10).max_step(5)),
        "max_step"
    );
    assert_eq!(
        bad(SegmentOptions::new("x").prefetch_at(1.5)),
        "prefetch_at"
    );
    assert_eq!(
        bad(SegmentOptions::new("x").prefetch_at(f64::NAN)),
        "prefetch_at"
    );
    assert_eq!(
        bad(SegmentOptions::new("x").retry_every(Duration::ZERO)),
        "retry_every"
    );
    assert_eq!(bad(SegmentOptions::new("x").first_value(0)), "first_value");
}

/// Failed fetches are attempts at one segment, not segments: a 20-minute
/// segment followed by an outage keeps the step (15 to 30 minutes: kept),
/// however many attempts failed meanwhile.
#[test]
fn failed_fetches_during_an_outage_do_not_change_the_step() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let store = Switched::new();
    let ids = SegmentOptions::new("outage-step")
        .step(100)
        .prefetch_at(0.0)
        .retry_every(Duration::from_millis(1))
        .clock(clock.clone())
        .start(store.clone())
        .unwrap();
    assert_eq!(ids.next_value().unwrap(), 1);
    eventually("the first prefetch arrives", || store.answered() == 2);
    for v in 2..=100 {
        assert_eq!(ids.next_value().unwrap(), v);
    }
    // The first segment lasted 20 minutes; the database is down when the
    // second one starts (and its prefetch with it).
    clock.advance(Duration::from_secs(20 * 60));
    store.set(Mode::Down);
    assert_eq!(ids.next_value().unwrap(), 101);
    eventually("ten fetches failed", || ids.stats().failed_fetches >= 10);
    store.set(Mode::Up);
    eventually("the prefetch arrives", || next_segment(&ids).is_some());
    assert_eq!(next_segment(&ids).unwrap().len(), 100);
}

/// Takes every value `ids` hands out until it says it is used up.
fn drain_to_the_end(ids: &SegmentIds) -> (Vec<u64>, SegmentError) {
    let mut values = Vec::new();
    loop {
        match ids.next_value() {
            Ok(v) => values.push(v),
            Err(e) => return (values, e),
        }
    }
}

/// Near `2^63 − 1` a step that no longer fits is cut to what remains:
/// every value up to the largest ID is handed out before `Exhausted`, and
/// a restarted source finds nothing more.
#[test]
fn every_value_up_to_the_largest_id_is_handed_out_before_exhausted() {
    for (first, step) in [(i64::MAX as u64 - 100, 2), (i64::MAX as u64 - 1_000_000, 7)] {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let store = MemorySegmentStore::new();
        let options = || {
            SegmentOptions::new("the-end")
                .step(step)
                .first_value(first)
                .prefetch_at(0.0)
                .wait(Duration::from_secs(30))
                .clock(clock.clone())
        };
        let ids = options().start(store.clone()).unwrap();
        let (values, e) = drain_to_the_end(&ids);
        assert_eq!(
            values.len() as u64,
            i64::MAX as u64 - first + 1,
            "first {first}, step {step}"
        );
        assert!(values.windows(2).all(|w| w[1] == w[0] + 1));
        assert_eq!(values.last().copied(), Some(i64::MAX as u64));
        assert!(
            matches!(e, SegmentError::Exhausted { max_id, .. } if max_id == i64::MAX as u64),
            "{e:?}"
        );
        let again = options().start(store).unwrap_err();
        assert!(matches!(again, SegmentError::Exhausted { .. }), "{again:?}");
    }
}
