//! Key bounds of a range of times: the ticks a range overlaps, and the
//! smallest and largest ID a layout composes in them (see
//! [`IdScheme::time_bounds`](crate::IdScheme::time_bounds)).
//!
//! A tick `k` of a layout covers the instants `[epoch + k·tick, epoch +
//! (k+1)·tick)`. The ticks of a range are those holding at least one
//! instant of it, to the nanosecond. In the layouts here the tick is the
//! most significant field, so the IDs of ticks `a..=b` are exactly the
//! integers from `compose(a, 0, 0)` to `compose(b, max_node, max_sequence)`.

use std::ops::{Bound, RangeInclusive};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::TimeBoundsError;
use crate::layout::Layout;

/// The ticks `0..=max_tick` (of `tick_millis` each, tick 0 starting at
/// `epoch_millis` Unix ms) that hold an instant of the range `start..end`.
/// A range that starts before the epoch starts at tick 0; one that ends
/// after the last tick ends at `max_tick`.
///
/// # Errors
/// [`TimeBoundsError::Empty`], [`TimeBoundsError::BeforeEpoch`] (the range
/// ends before the epoch), [`TimeBoundsError::AfterEnd`] (it starts at or
/// after the end of tick `max_tick`).
pub fn tick_span(
    epoch_millis: u64,
    tick_millis: u64,
    max_tick: u64,
    start: Bound<SystemTime>,
    end: Bound<SystemTime>,
) -> Result<RangeInclusive<u64>, TimeBoundsError> {
    let epoch = UNIX_EPOCH + Duration::from_millis(epoch_millis);
    // Nanoseconds from the epoch to `t`, negative before it.
    let offset = |t: SystemTime| -> i128 {
        match t.duration_since(epoch) {
            Ok(d) => nanos(d),
            Err(e) => -nanos(e.duration()),
        }
    };
    // The first and last instant of the range, `None` where unbounded.
    let first = match start {
        Bound::Included(t) => Some(offset(t)),
        Bound::Excluded(t) => Some(offset(t) + 1),
        Bound::Unbounded => None,
    };
    let last = match end {
        Bound::Included(t) => Some(offset(t)),
        Bound::Excluded(t) => Some(offset(t) - 1),
        Bound::Unbounded => None,
    };
    if let (Some(f), Some(l)) = (first, last)
        && f > l
    {
        return Err(TimeBoundsError::Empty { start, end });
    }
    if last.is_some_and(|l| l < 0) {
        return Err(TimeBoundsError::BeforeEpoch { end, epoch });
    }
    let tick_nanos = i128::from(tick_millis.max(1)) * 1_000_000;
    let end_nanos = (i128::from(max_tick) + 1) * tick_nanos;
    if first.is_some_and(|f| f >= end_nanos) {
        let end_millis =
            u128::from(epoch_millis) + (u128::from(max_tick) + 1) * u128::from(tick_millis);
        return Err(TimeBoundsError::AfterEnd {
            start,
            // A layout's end is a representable time (its builder checks it).
            end: u64::try_from(end_millis)
                .ok()
                .and_then(|ms| UNIX_EPOCH.checked_add(Duration::from_millis(ms)))
                .unwrap_or(epoch),
        });
    }
    // Both are within 0..=max_tick here, so they fit a u64.
    let tick_of = |nanos: i128| u64::try_from(nanos.max(0) / tick_nanos).unwrap_or(max_tick);
    let first_tick = first.map_or(0, tick_of);
    let last_tick = last.map_or(max_tick, |l| tick_of(l).min(max_tick));
    Ok(first_tick..=last_tick)
}

/// The smallest and largest ID `layout` composes in the ticks of the range
/// `start..end` ([`tick_span`]): node 0 with sequence `min_sequence` in
/// the first tick (never below 1), the largest node and sequence in the
/// last. For layouts whose tick is the most significant field (bit and
/// decimal layouts, 128-bit flakes).
///
/// # Errors
/// As [`tick_span`].
pub fn layout_bounds<L: Layout>(
    layout: &L,
    start: Bound<SystemTime>,
    end: Bound<SystemTime>,
    min_sequence: u64,
) -> Result<RangeInclusive<L::Raw>, TimeBoundsError>
where
    L::Raw: From<u8>,
{
    let ticks = tick_span(
        layout.epoch_millis(),
        layout.tick_millis(),
        layout.max_tick(),
        start,
        end,
    )?;
    let lowest = layout.compose(*ticks.start(), 0, min_sequence);
    let highest = layout.compose(
        *ticks.end(),
        layout.max_node(),
        layout.sequences_per_tick() - 1,
    );
    Ok(lowest.max(L::Raw::from(1))..=highest)
}

fn nanos(d: Duration) -> i128 {
    // At most 2^64 s · 10^9: far within an i128.
    i128::try_from(d.as_nanos()).unwrap_or(i128::MAX)
}

#[cfg(test)]
#[path = "../../tests/unit/source_time_bounds.rs"]
mod tests;
