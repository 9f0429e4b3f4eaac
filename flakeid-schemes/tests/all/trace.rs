//! TraceId: 1 reserved + 25 bits of seconds (wrapping) + 16 bits node +
//! 22 bits thread and counter.

use std::collections::HashSet;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use flakeid_core::{Clock, ManualClock};
use flakeid_schemes::TraceIdError;
use flakeid_schemes::{TraceIdGenerator, TraceIdLayout, TraceIdParts};

/// A Unix second at which the 25-bit timestamp wraps (2026-05-10T…Z).
const WRAP: u64 = 53 * TraceIdLayout::WRAP_SECONDS;

fn clock_at_second(s: u64) -> Arc<ManualClock> {
    Arc::new(ManualClock::new(s * 1000))
}

#[test]
fn bit_layout_follows_the_table() {
    assert_eq!(
        (TraceIdLayout::TIMESTAMP_SHIFT, TraceIdLayout::NODE_SHIFT),
        (38, 22)
    );
    assert_eq!(TraceIdLayout::TIMESTAMP_MAX, 33_554_431);
    // 2^25 s is 388 days and a bit.
    assert_eq!(TraceIdLayout::WRAP_SECONDS / 86_400, 388);
    let l = TraceIdLayout::for_threads(32).unwrap();
    assert_eq!((l.thread_bits(), l.counter_bits()), (5, 17));
    let parts = TraceIdParts {
        timestamp: TraceIdLayout::TIMESTAMP_MAX as u32,
        node: u16::MAX,
        thread: 31,
        counter: 131_071,
    };
    let id = l.compose(parts).unwrap();
    assert_eq!(
        id,
        i64::MAX as u64,
        "every field at its maximum fills 63 bits"
    );
    assert_eq!(l.decompose(id).unwrap(), parts);
    let one = l
        .compose(TraceIdParts {
            timestamp: 0,
            node: 0,
            thread: 0,
            counter: 1,
        })
        .unwrap();
    assert_eq!(one, 1, "the smallest TraceId");
    let id = l
        .compose(TraceIdParts {
            timestamp: 3,
            node: 2,
            thread: 1,
            counter: 5,
        })
        .unwrap();
    assert_eq!(id, (3 << 38) | (2 << 22) | (1 << 17) | 5);
}

#[test]
fn decoding_rejects_non_trace_ids() {
    let l = TraceIdLayout::for_threads(4).unwrap();
    assert_eq!(
        l.decompose(1 << 63),
        Err(TraceIdError::InvalidId {
            id: 1 << 63,
            reason: "the reserved top bit is set"
        })
    );
    assert!(matches!(
        l.decompose(1 << 38),
        Err(TraceIdError::InvalidId {
            reason: "its counter is 0",
            ..
        })
    ));
    let bad = TraceIdParts {
        timestamp: 0,
        node: 0,
        thread: 4,
        counter: 1,
    };
    assert_eq!(
        l.compose(bad),
        Err(TraceIdError::PartOutOfRange {
            part: "thread",
            value: 4,
            max: 3
        })
    );
    assert!(matches!(
        l.compose(TraceIdParts {
            thread: 0,
            counter: 0,
            ..bad
        }),
        Err(TraceIdError::PartOutOfRange {
            part: "counter",
            ..
        })
    ));
    assert!(matches!(
        l.compose(TraceIdParts {
            thread: 0,
            timestamp: 1 << 25,
            ..bad
        }),
        Err(TraceIdError::PartOutOfRange {
            part: "timestamp",
            ..
        })
    ));
}

#[test]
fn configuration_is_checked() {
    assert_eq!(
        TraceIdLayout::for_threads(0),
        Err(TraceIdError::ThreadCountOutOfRange {
            threads: 0,
            max: TraceIdLayout::MAX_THREADS
        })
    );
    assert!(TraceIdLayout::for_threads(TraceIdLayout::MAX_THREADS).is_ok());
    assert_eq!(
        TraceIdLayout::for_threads(TraceIdLayout::MAX_THREADS)
            .unwrap()
            .max_counter(),
        1
    );
    assert!(TraceIdLayout::for_threads(TraceIdLayout::MAX_THREADS + 1).is_err());
    assert_eq!(
        TraceIdGenerator::builder(65_536).build().unwrap_err(),
        TraceIdError::NodeOutOfRange {
            node: 65_536,
            max: 65_535
        }
    );
    // RPS_max = (2^22 − 1) / threads, per thread.
    let l = TraceIdLayout::for_threads(32).unwrap();
    assert_eq!(l.max_counter(), 131_071);
    assert_eq!(l.capacity_per_node_per_second(), 32 * 131_071);
}

#[test]
fn timestamp_wraps_at_2_pow_25_seconds() {
    let clock = clock_at_second(WRAP - 10);
    let g = TraceIdGenerator::builder(9)
        .threads(1)
        .clock(clock.clone())
        .build()
        .unwrap();
    let l = g.layout();
    clock.set((WRAP - 1) * 1000 + 999);
    let before = g.next_id().unwrap();
    let p = l.decompose(before).unwrap();
    assert_eq!(
        (p.timestamp, p.node, p.counter),
        (TraceIdLayout::TIMESTAMP_MAX as u32, 9, 1)
    );
    clock.set(WRAP * 1000);
    let after = g.next_id().unwrap();
    let q = l.decompose(after).unwrap();
    assert_eq!((q.timestamp, q.counter), (0, 1));
    assert!(after < before, "periodically monotonic: the ID wrapped");
    // The full time is recovered from a reference within one period.
    assert_eq!(p.unix_seconds_at_or_before(WRAP + 3_600), Some(WRAP - 1));
    assert_eq!(q.unix_seconds_at_or_before(WRAP + 3_600), Some(WRAP));
    assert_eq!(
        q.unix_seconds_at_or_before(WRAP + TraceIdLayout::WRAP_SECONDS + 5),
        Some(WRAP + TraceIdLayout::WRAP_SECONDS),
        "a reference a whole period later points at the later second"
    );
}

#[test]
fn counter_starts_at_one_and_runs_out_within_a_second() {
    let start = WRAP + 100;
    let clock = clock_at_second(start);
    // 2^21 threads leave 1 counter bit: one ID per thread per second.
    let g = TraceIdGenerator::builder(1)
        .threads(1 << 20)
        .clock(clock.clone())
        .build()
        .unwrap();
    let l = g.layout();
    assert_eq!(l.max_counter(), 3);
    // Never stamped with the second the generator was built in.
    let ids: Vec<u64> = (0..3).map(|_| g.next_id().unwrap()).collect();
    let counters: Vec<u32> = ids
        .iter()
        .map(|&id| l.decompose(id).unwrap().counter)
        .collect();
    assert_eq!(counters, [1, 2, 3]);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        l.decompose(ids[0]).unwrap().timestamp as u64,
        (start + 1) & TraceIdLayout::TIMESTAMP_MAX
    );
    clock.set((start + 1) * 1000 + 250);
    let e = g.next_id().unwrap_err();
    assert_eq!(
        e,
        TraceIdError::CounterExhausted {
            thread: 0,
            unix_second: start + 1,
            max_counter: 3,
            retry_after: Duration::from_millis(750)
        }
    );
    clock.set((start + 2) * 1000);
    let next = l.decompose(g.next_id().unwrap()).unwrap();
    assert_eq!(next.counter, 1);
    // The clock stepping back continues the last second's counter.
    clock.set(start * 1000);
    let back = l.decompose(g.next_id().unwrap()).unwrap();
    assert_eq!(
        (back.timestamp as u64, back.counter),
        ((start + 2) & TraceIdLayout::TIMESTAMP_MAX, 2)
    );
}

#[test]
fn threads_issue_unique_ids_within_one_second() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 20_000;
    let clock = clock_at_second(WRAP + 500);
    let g = Arc::new(
        TraceIdGenerator::builder(77)
            .threads(THREADS as u32)
            .clock(clock)
            .build()
            .unwrap(),
    );
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let (g, barrier) = (Arc::clone(&g), Arc::clone(&barrier));
            thread::spawn(move || {
                barrier.wait();
                let ids = (0..PER_THREAD)
                    .map(|_| g.next_id().unwrap())
                    .collect::<Vec<u64>>();
                // Stay alive until all have issued, so no thread ID is
                // handed on (that is tested separately).
                barrier.wait();
                ids
            })
        })
        .collect();
    let l = g.layout();
    let mut all = HashSet::new();
    let mut threads = HashSet::new();
    for h in handles {
        let ids = h.join().unwrap();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "monotonic per thread");
        let p = l.decompose(ids[0]).unwrap();
        assert_eq!(p.counter, 1);
        assert!(threads.insert(p.thread), "one thread ID per thread");
        for id in ids {
            let q = l.decompose(id).unwrap();
            assert_eq!((q.node, q.thread, q.timestamp), (77, p.thread, p.timestamp));
            assert!(all.insert(id), "duplicate {id}");
        }
    }
    assert_eq!(all.len(), THREADS * PER_THREAD);
}

#[test]
fn thread_ids_are_limited_and_reused_without_repeats() {
    let clock = clock_at_second(WRAP + 900);
    let g = Arc::new(
        TraceIdGenerator::builder(3)
            .threads(2)
            .clock(clock)
            .build()
            .unwrap(),
    );
    let mut seen = HashSet::new();
    // Four short-lived threads in turn: two thread IDs serve them all, and
    // a reused ID continues its predecessor's counter.
    for _ in 0..4 {
        let g2 = Arc::clone(&g);
        let ids = thread::spawn(move || (0..10).map(|_| g2.next_id().unwrap()).collect::<Vec<_>>())
            .join()
            .unwrap();
        for id in ids {
            assert!(seen.insert(id), "duplicate {id}");
        }
    }
    let l = g.layout();
    let mut counters: Vec<(u32, u32)> = seen
        .iter()
        .map(|&id| l.decompose(id).map(|p| (p.thread, p.counter)).unwrap())
        .collect();
    counters.sort_unstable();
    let expected: Vec<(u32, u32)> = (1..=40).map(|c| (0, c)).collect();
    assert_eq!(counters, expected, "thread ID 0 handed on with its counter");
    // Two threads alive at once take both IDs; a third is refused.
    let barrier = Arc::new(Barrier::new(3));
    let holders: Vec<_> = (0..2)
        .map(|_| {
            let (g, barrier) = (Arc::clone(&g), Arc::clone(&barrier));
            thread::spawn(move || {
                let id = g.next_id().unwrap();
                barrier.wait(); // both hold a thread ID
                barrier.wait(); // until the main thread has tried
                id
            })
        })
        .collect();
    barrier.wait();
    assert_eq!(
        g.next_id(),
        Err(TraceIdError::TooManyThreads { max_threads: 2 })
    );
    barrier.wait();
    for h in holders {
        assert!(seen.insert(h.join().unwrap()));
    }
}

/// A process restarted within the second its predecessor was built in (one
/// clock for both, as on one machine) must not repeat its TraceIds.
#[test]
fn a_restart_inside_a_second_does_not_repeat_trace_ids() {
    let second = WRAP + 100;
    let clock = Arc::new(ManualClock::new(second * 1000 + 100));
    // One generator of node 7 per process, on the machine's clock.
    let process = || {
        TraceIdGenerator::builder(7)
            .threads(1)
            .clock(clock.clone())
            .build()
            .unwrap()
    };
    let before = process();
    let first = before.next_id().unwrap();
    drop(before);
    // The successor starts 200 ms later, or right away if the predecessor's
    // first ID had to wait for its second.
    clock.set(clock.now_millis().max(second * 1000 + 300));
    let after = process();
    let next = after.next_id().unwrap();
    assert_ne!(next, first, "the same TraceId from two processes");
    let layout = after.layout();
    assert!(
        layout.decompose(next).unwrap().timestamp > layout.decompose(first).unwrap().timestamp,
        "the successor's IDs carry a later second"
    );
    // No TraceId is stamped with a second the clock has not reached.
    let stamped = u64::from(layout.decompose(next).unwrap().timestamp);
    assert!(stamped <= (clock.now_millis() / 1000) % TraceIdLayout::WRAP_SECONDS);
}
