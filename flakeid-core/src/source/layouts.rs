//! Layouts as schemes: a 64-bit layout's IDs are every value of its
//! domain, decoded into the start of their tick and their fields, with
//! the key bounds of a range of times.

use std::borrow::Cow;
use std::ops::{Bound, RangeInclusive};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{DecodeLayout, IdScheme, layout_bounds};
use crate::decoded::Decoded;
use crate::error::TimeBoundsError;
use crate::layout::{self, BitLayout, DecimalLayout, RandomStart};

impl IdScheme for BitLayout {
    fn max_id(&self) -> u64 {
        BitLayout::max_id(self)
    }

    fn decode(&self, id: u64) -> Decoded {
        Decoded::new(self, id)
    }

    fn example_id(&self) -> Option<u64> {
        Some(layout::example_id(self, 0))
    }

    /// From node 0, sequence 0 of the range's first tick (at least 1) to
    /// the largest node and sequence of its last.
    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        layout_bounds(self, start, end, 0)
    }
}

impl IdScheme for DecimalLayout {
    fn max_id(&self) -> u64 {
        DecimalLayout::max_id(self)
    }

    fn decode(&self, id: u64) -> Decoded {
        let parts = self.decompose(id);
        let time = UNIX_EPOCH.checked_add(Duration::from_millis(self.timestamp_millis(id)));
        let node = (self.node_digits() > 0).then_some((Cow::Borrowed("node"), parts.node));
        Decoded::from_layout_parts(id, time, parts, node)
    }

    fn example_id(&self) -> Option<u64> {
        Some(layout::example_id(self, 0))
    }

    /// From node 0, sequence 0 of the range's first tick (at least 1) to
    /// the largest node and sequence of its last: `tick · 10^(s+n)` to
    /// `tick · 10^(s+n) + 10^(s+n) − 1`.
    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        layout_bounds(self, start, end, 0)
    }
}

/// Decodes with the inner layout: the `sequence` field is the stored
/// value (the tick's random start plus the count), because the start
/// depends on the seed of the process that issued the ID.
impl<L: DecodeLayout> IdScheme for RandomStart<L> {
    fn max_id(&self) -> u64 {
        self.inner().max_id()
    }

    fn decode(&self, id: u64) -> Decoded {
        self.inner().decode(id)
    }

    fn example_id(&self) -> Option<u64> {
        self.inner().example_id()
    }

    /// The inner layout's bounds: they hold the IDs of every seed, whose
    /// ticks start anywhere in the stored sequence field.
    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        self.inner().time_bounds(start, end)
    }
}
