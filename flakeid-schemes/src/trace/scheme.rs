//! The trace scheme as flakeid-core sees it: [`TraceIdLayout`] as an
//! [`IdScheme`](flakeid_core::IdScheme) and a
//! [`GlobalScheme`](flakeid_core::GlobalScheme), whose source is a
//! [`TraceIdGenerator`].

use core::time::Duration;
use std::ops::{Bound, RangeInclusive};
use std::time::{SystemTime, UNIX_EPOCH};

use flakeid_core::__private::tick_span;
use flakeid_core::TimeBoundsError;

use super::{TraceIdError, TraceIdGenerator, TraceIdLayout};

/// `timestamp` is a field (Unix seconds mod 2^25), not a
/// [`Decoded::timestamp`](flakeid_core::Decoded::timestamp): it wraps. The counter
/// of every TraceId is at least 1.
impl flakeid_core::IdScheme for TraceIdLayout {
    /// `2^63 − 1`: only the reserved top bit is excluded.
    fn max_id(&self) -> u64 {
        i64::MAX as u64
    }

    fn check(&self, id: u64) -> Result<(), flakeid_core::FieldOutOfRange> {
        let max = self.max_counter();
        let counter = id & u64::from(max);
        if counter == 0 {
            return Err(flakeid_core::FieldOutOfRange {
                field: "counter",
                value: 0,
                min: 1,
                max: u64::from(max),
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> flakeid_core::Decoded {
        use std::borrow::Cow;
        let fields = vec![
            (
                Cow::Borrowed("timestamp"),
                (id >> TraceIdLayout::TIMESTAMP_SHIFT) & TraceIdLayout::TIMESTAMP_MAX,
            ),
            (
                Cow::Borrowed("node"),
                (id >> TraceIdLayout::NODE_SHIFT) & TraceIdLayout::MAX_NODE,
            ),
            (
                Cow::Borrowed("thread"),
                (id >> self.counter_bits()) & u64::from(self.max_threads() - 1),
            ),
            (Cow::Borrowed("counter"), id & u64::from(self.max_counter())),
        ];
        flakeid_core::Decoded::from_fields(id, None, fields)
    }

    /// Node 1, thread 0, counter 1 in the second 2025-01-01T00:00:00Z.
    fn example_id(&self) -> Option<u64> {
        let second = flakeid_core::__private::EXAMPLE_UNIX_MILLIS / 1000;
        Some(self.compose_unchecked(second & TraceIdLayout::TIMESTAMP_MAX, 1, 0, 1))
    }

    /// Bounds within one period of the wrapping seconds: from node 0,
    /// thread 0, counter 1 of the range's first second to the largest
    /// node, thread and counter of its last, both as seconds mod 2^25.
    ///
    /// The seconds wrap every 2^25 s (≈ 388.4 days), so the bounds also
    /// hold the IDs made in the same seconds of every other period: select
    /// the period with a column of its own too (`created_at`, or the
    /// `period` of a `(period, id)` key). A range whose seconds lie in two
    /// periods (it holds an instant at or after a multiple of 2^25 s and
    /// one before it, as `..t` and `t..` do) is refused with
    /// [`TimeBoundsError::CrossesWrap`] naming the wrap: split it there.
    ///
    /// ```
    /// use std::ops::Bound::{Excluded, Included};
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_core::{IdScheme, TimeBoundsError};
    /// use flakeid_schemes::TraceIdLayout;
    ///
    /// let layout = TraceIdLayout::for_threads(32)?;
    /// let second = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
    /// let wrap = 52 * TraceIdLayout::WRAP_SECONDS; // 2025-04-16T19:07:44Z
    /// let ids = layout.time_bounds(Included(second(wrap + 10)), Excluded(second(wrap + 20)))?;
    /// assert_eq!(ids, (10 << 38 | 1)..=(19 << 38 | ((1 << 38) - 1)));
    /// let e = layout.time_bounds(Included(second(wrap - 1)), Excluded(second(wrap + 1)));
    /// assert!(matches!(e, Err(TimeBoundsError::CrossesWrap { wrap: w, .. }) if w == second(wrap)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        // Unix seconds; the generator's clock stops at u64::MAX ms.
        let seconds = tick_span(0, 1000, u64::MAX / 1000 - 1, start, end)?;
        let (first, last) = seconds.into_inner();
        let period = |s: u64| s / TraceIdLayout::WRAP_SECONDS;
        if period(first) != period(last) {
            let wrap = (period(first) + 1) * TraceIdLayout::WRAP_SECONDS;
            return Err(TimeBoundsError::CrossesWrap {
                start,
                end,
                // Before the last second of the range: a representable time.
                wrap: UNIX_EPOCH + Duration::from_secs(wrap),
            });
        }
        let last_thread = self.max_threads() - 1;
        let field = |s: u64| s & TraceIdLayout::TIMESTAMP_MAX;
        let lowest = self.compose_unchecked(field(first), 0, 0, 1);
        let node = TraceIdLayout::MAX_NODE as u16;
        let highest = self.compose_unchecked(field(last), node, last_thread, self.max_counter());
        Ok(lowest..=highest)
    }
}

/// A [`TraceIdGenerator`] for the process's node ID (0..=65,535) and this
/// layout's thread count.
impl flakeid_core::GlobalScheme for TraceIdLayout {
    fn build_source(
        &self,
        config: &flakeid_core::NodeConfig,
    ) -> Result<Box<dyn flakeid_core::IdSource>, flakeid_core::ConfigError> {
        let generator = TraceIdGenerator::builder(config.node())
            .threads(self.max_threads())
            .build()
            .map_err(|e| match e {
                TraceIdError::NodeOutOfRange { node, max } => {
                    config.node_error(flakeid_core::ConfigError::NodeOutOfRange { node, max }, max)
                }
                e => {
                    flakeid_core::ConfigError::Scheme(flakeid_core::SchemeError::new("TraceId", e))
                }
            })?;
        Ok(Box::new(generator))
    }

    fn same_scheme(&self, other: &dyn flakeid_core::GlobalScheme) -> bool {
        (other as &dyn core::any::Any).downcast_ref::<Self>() == Some(self)
    }
}
