//! The random starting sequence per tick (`RandomStart`): collision-free
//! and monotonic within a tick, its capacity, and decimal layouts.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use flakeid_core::layout::{Layout, LayoutError, presets};
use flakeid_core::{GenerateError, Generator, ManualClock, SequenceExhaustion};
use flakeid_schemes::{DecimalLayout, RandomStart};

const EPOCH_2024: u64 = 1_704_067_200_000;

#[test]
fn random_start_is_unique_and_monotonic() {
    let clock = Arc::new(ManualClock::new(EPOCH_2024 + 10));
    let layout = RandomStart::new(presets::twitter()).unwrap().seed(99);
    assert_eq!(layout.start_range(), 2048);
    assert_eq!(layout.sequences_per_tick(), 2048);
    let g = Generator::builder(layout.clone(), 5)
        .clock(clock.clone())
        .build()
        .unwrap();
    let mut all = Vec::new();
    let mut starts = HashSet::new();
    for _ in 0..200 {
        let ids: Vec<u64> = (0..300).map(|_| g.next_id().unwrap()).collect();
        let first = presets::twitter().decompose(ids[0]);
        assert_eq!(first.sequence, layout.start_of(first.tick));
        assert!(first.sequence < 2048);
        starts.insert(first.sequence);
        for (i, &id) in ids.iter().enumerate() {
            // Round trip through the wrapping layout: position in the tick.
            assert_eq!(layout.decompose(id).sequence, i as u64);
            assert_eq!(layout.decompose(id).node, 5);
        }
        all.extend(ids);
        clock.advance(Duration::from_millis(1));
    }
    assert!(all.windows(2).all(|w| w[0] < w[1]), "strictly increasing");
    // Starts vary from tick to tick (200 draws from 2048 values).
    assert!(starts.len() > 150, "{}", starts.len());
    // Batches spanning ticks stay increasing too.
    let batch: Vec<u64> = g.next_batch(5000).unwrap().collect();
    assert!(batch.windows(2).all(|w| w[0] < w[1]));
    assert!(batch[0] > *all.last().unwrap());
}

#[test]
fn random_start_capacity_and_exhaustion() {
    let clock = Arc::new(ManualClock::new(EPOCH_2024 + 10));
    let layout = RandomStart::with_start_range(presets::twitter(), 1024)
        .unwrap()
        .seed(1);
    let g = Generator::builder(layout, 0)
        .clock(clock)
        .sequence_exhaustion(SequenceExhaustion::Fail)
        .build()
        .unwrap();
    for _ in 0..3072 {
        g.next_id().unwrap();
    }
    assert!(matches!(
        g.next_id(),
        Err(GenerateError::SequenceExhausted { .. })
    ));
    assert!(matches!(
        RandomStart::with_start_range(presets::twitter(), 0),
        Err(LayoutError::PartOutOfRange {
            value: 0,
            max: 4095,
            ..
        })
    ));
}

#[test]
fn random_start_works_for_decimal_layouts() {
    let clock = Arc::new(ManualClock::new(EPOCH_2024 + 10));
    let inner = DecimalLayout::time_sequence_server(EPOCH_2024).unwrap();
    let layout = RandomStart::new(inner).unwrap().seed(3);
    let g = Generator::builder(layout, 4).clock(clock).build().unwrap();
    let a = g.next_id().unwrap();
    let b = g.next_id().unwrap();
    assert!(b > a);
    assert_eq!(b - a, 10); // the sequence digit group moved by one
    // Built in tick 10, the first ID is in tick 11.
    assert_eq!(inner.decompose(a).tick, 11);
    assert_eq!(inner.decompose(a).sequence, layout.start_of(11));
    assert_eq!(a % 10, 4);
}
