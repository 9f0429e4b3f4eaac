//! Layouts as schemes: a 64-bit layout's IDs are every value of its
//! domain, decoded into the start of their tick and their fields, with
//! the key bounds of a range of times.

use std::borrow::Cow;
use std::ops::{Bound, RangeInclusive};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{IdScheme, layout_bounds, scheme_of};
use crate::decoded::Decoded;
use crate::error::TimeBoundsError;
use crate::layout::DecodeLayout;
use crate::layout::{BitLayout, DecimalLayout, Layout, RandomStart};

/// The scheme of a bit or decimal layout: every ID of its domain, decoded
/// by `decode`, and the key bounds of a range of times from node 0,
/// sequence 0 of the range's first tick (at least 1) to the largest node
/// and sequence of its last (for a decimal layout `tick · 10^(s+n)` to
/// `tick · 10^(s+n) + 10^(s+n) − 1`).
macro_rules! layout_scheme {
    ($layout:ty, $decode:expr) => {
        impl IdScheme for $layout {
            fn max_id(&self) -> u64 {
                <$layout>::max_id(self)
            }

            fn decode(&self, id: u64) -> Decoded {
                $decode(self, id)
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
    };
}

layout_scheme!(BitLayout, Decoded::new);
layout_scheme!(DecimalLayout, decode_decimal);

// Decodes with the inner layout: the `sequence` field is the stored value
// (the tick's random start plus the count), because the start depends on
// the seed of the process that issued the ID. Its key bounds hold the IDs
// of every seed, whose ticks start anywhere in the stored sequence field.
scheme_of!(impl[L: DecodeLayout] RandomStart<L>, |random_start| random_start.inner());

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

/// A decimal layout's ID: the start of its tick, and its fields (`node`
/// only when the layout has node digits).
fn decode_decimal(layout: &DecimalLayout, id: u64) -> Decoded {
    let parts = layout.decompose(id);
    let time = UNIX_EPOCH.checked_add(Duration::from_millis(layout.timestamp_millis(id)));
    let node = (layout.node_digits() > 0).then_some((Cow::Borrowed("node"), parts.node));
    Decoded::from_layout_parts(id, time, parts, node)
}
