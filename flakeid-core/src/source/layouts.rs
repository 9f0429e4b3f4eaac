//! Layouts as schemes: a 64-bit layout's IDs are every value of its
//! domain, decoded into the start of their tick and their fields, with
//! the key bounds of a range of times.

use std::ops::{Bound, RangeInclusive};
use std::time::SystemTime;

use super::{IdScheme, layout_bounds};
use crate::decoded::Decoded;
use crate::error::TimeBoundsError;
use crate::layout::{BitLayout, Layout};

/// Every ID of the layout's domain, decoded into its tick's start and its
/// fields; the key bounds of a range of times run from node 0, sequence 0
/// of the range's first tick (at least 1) to the largest node and sequence
/// of its last.
impl IdScheme for BitLayout {
    fn max_id(&self) -> u64 {
        BitLayout::max_id(self)
    }

    fn decode(&self, id: u64) -> Decoded {
        Decoded::new(self, id)
    }

    fn example_id(&self) -> Option<u64> {
        Some(example_id(self, 0))
    }

    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        layout_bounds(self, start, end, 0)
    }
}

/// 2025-01-01T00:00:00Z in Unix milliseconds: the instant of the
/// [`IdScheme::example_id`] of layouts.
pub const EXAMPLE_UNIX_MILLIS: u64 = 1_735_689_600_000;

/// The example ID of a 64-bit layout: `sequence` of node 1 (or 0 without
/// node bits) in the tick holding [`EXAMPLE_UNIX_MILLIS`], or in tick 1 when
/// the layout's epoch is later.
pub fn example_id<L: Layout<Raw = u64>>(layout: &L, sequence: u64) -> u64 {
    let since_epoch = EXAMPLE_UNIX_MILLIS.saturating_sub(layout.epoch_millis());
    let tick = (since_epoch / layout.tick_millis().max(1))
        .max(1)
        .min(layout.max_tick());
    layout.compose(tick, layout.max_node().min(1), sequence)
}
