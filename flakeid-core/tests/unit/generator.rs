//! Unit tests of `src/generator/mod.rs` (private items; included with `#[path]` as its
//! `tests` module).

use std::sync::Arc;

use super::*;
use crate::ManualClock;
use crate::layout::Parts;
use crate::layout::presets;

/// Checks that `(ms * magic) >> shift` is `ms / tick_millis` (the
/// generator's division-free tick computations) for `ms` at the ends of
/// the range they serve (below 2^50), at a recent Unix time, at `more`
/// and at `random` pseudo-random values.
pub(super) fn assert_multiply_shift_divides(
    tick_millis: u64,
    magic: u64,
    shift: u32,
    more: impl IntoIterator<Item = u64>,
    random: usize,
) {
    let mut probes = vec![0, 1, (1 << 50) - 1, (1 << 50) - 2, 1_700_000_000_000];
    probes.extend(more);
    let mut x = 0u64;
    for _ in 0..random {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        probes.push(x >> 14);
    }
    for ms in probes {
        let got = ((u128::from(ms) * u128::from(magic)) >> shift) as u64;
        assert_eq!(got, ms / tick_millis, "ms {ms} tick {tick_millis}");
    }
}

/// The fast path's ID-shaped state word gives exactly the layout's IDs,
/// for both field orders, ticks of 1, 10 and 1000 ms, a generator built
/// exactly at the epoch (first ID in tick 1) and later, across tick
/// boundaries.
#[test]
fn id_shaped_state_composes_like_the_layout() {
    for layout in [
        presets::twitter(),
        presets::sonyflake(),
        presets::js_safe(),
        presets::lsid(),
        presets::nonsequential(),
    ] {
        for node in [0, 1, layout.max_node()] {
            for start in [layout.epoch_millis(), layout.epoch_millis() + 123_456_789] {
                let clock = Arc::new(ManualClock::new(start));
                let g = Generator::builder(layout.clone(), node)
                    .clock(clock.clone())
                    .build()
                    .unwrap();
                // IDs start in the tick after the build tick.
                clock.advance(Duration::from_millis(layout.tick_millis()));
                let mut expected = Parts {
                    tick: (start - layout.epoch_millis()) / layout.tick_millis() + 1,
                    node,
                    sequence: 0,
                };
                let mut last = 0;
                for i in 0..40u64 {
                    if i % 7 == 6 {
                        clock.advance(Duration::from_millis(layout.tick_millis()));
                        expected.tick += 1;
                        expected.sequence = 0;
                    }
                    let id = if i % 2 == 0 {
                        g.next_id()
                    } else {
                        g.try_next_id()
                    }
                    .unwrap();
                    assert_eq!(
                        layout.decompose(id),
                        expected,
                        "{layout:?} node {node} call {i}"
                    );
                    assert_eq!(id, layout.compose(expected.tick, node, expected.sequence));
                    assert!(id > last);
                    last = id;
                    expected.sequence += 1;
                }
            }
        }
    }
}

#[test]
fn tick_magic_matches_division() {
    for tick_millis in [1u64, 2, 3, 7, 10, 1000, 1024, 86_400_000] {
        let l = 64 - (tick_millis - 1).leading_zeros();
        let shift = 50 + l;
        let magic = ((1u128 << shift) / u128::from(tick_millis) + 1) as u64;
        assert_multiply_shift_divides(tick_millis, magic, shift, [], 10_000);
    }
}
