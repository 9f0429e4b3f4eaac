//! One generator shared by several threads: no duplicates, each thread's
//! IDs increasing.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_core::{Generator, ManualClock, SequenceExhaustion};

const THREADS: usize = 4;

fn assert_unique(per_thread: Vec<Vec<u64>>, expected: usize) {
    for ids in &per_thread {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "each thread's IDs increase"
        );
    }
    let mut all: Vec<u64> = per_thread.into_iter().flatten().collect();
    assert_eq!(all.len(), expected);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), expected, "no ID was issued twice");
    assert!(all[0] > 0);
}

#[test]
fn four_threads_million_ids_each_no_duplicates() {
    const PER_THREAD: usize = 1_000_000;
    // Twitter's layout, real monotonic clock: 4 million IDs span about a
    // second of 4,096-ID ticks, so ticks roll over under contention.
    let generator = Arc::new(Generator::builder(presets::twitter(), 513).build().unwrap());
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let g = Arc::clone(&generator);
            thread::spawn(move || {
                let mut ids = Vec::with_capacity(PER_THREAD);
                for _ in 0..PER_THREAD {
                    ids.push(g.next_id().unwrap());
                }
                ids
            })
        })
        .collect();
    let per_thread: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    for ids in &per_thread {
        assert!(
            ids.iter()
                .all(|&id| generator.layout().decompose(id).node == 513)
        );
    }
    assert_unique(per_thread, THREADS * PER_THREAD);
}

#[test]
fn threads_mixing_ids_and_batches_under_a_manual_clock() {
    // Tiny sequence (16 per tick) so that the threads exhaust ticks all the
    // time; the manual clock advances whenever a thread has to wait.
    let layout = flakeid_core::layout::BitLayout::builder()
        .time_bits(40)
        .node_bits(4)
        .sequence_bits(4)
        .epoch_millis(1_600_000_000_000)
        .build()
        .unwrap();
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let generator = Arc::new(
        Generator::builder(layout, 3)
            .clock(clock.clone())
            .sequence_exhaustion(SequenceExhaustion::RunAhead {
                max_lead: Duration::from_millis(2),
            })
            .build()
            .unwrap(),
    );
    const ROUNDS: usize = 20_000;
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let g = Arc::clone(&generator);
            thread::spawn(move || {
                let mut ids = Vec::new();
                for i in 0..ROUNDS {
                    if (i + t) % 7 == 0 {
                        ids.extend(g.next_batch(1 + (i % 40)).unwrap());
                    } else {
                        ids.push(g.next_id().unwrap());
                    }
                }
                ids
            })
        })
        .collect();
    let per_thread: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let expected = per_thread.iter().map(Vec::len).sum();
    assert_unique(per_thread, expected);
}
