//! What can be wrong with a range of times turned into key bounds.

use core::fmt;
use std::ops::Bound;
use std::time::SystemTime;

use thiserror::Error;

use crate::encoding::write_rfc3339;
use crate::error::IdError;

/// A range of times that has no key bounds (see
/// [`IdScheme::time_bounds`](crate::IdScheme::time_bounds) and
/// [`FlakeId::time_bounds`](crate::FlakeId::time_bounds)). Each variant
/// names the time that was wrong and the limit it broke.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_core::{flake_id, FlakeId, TimeBoundsError};
///
/// #[flake_id] // Twitter's layout: time from 2010-11-04T01:42:54.657Z to 2080-07-10T17:30:30.209Z
/// pub struct UserId(i64);
///
/// let y2000 = UNIX_EPOCH + Duration::from_secs(946_684_800);
/// let e = UserId::time_bounds(..=y2000).unwrap_err();
/// assert!(matches!(e, TimeBoundsError::BeforeEpoch { .. }));
/// assert_eq!(
///     e.to_string(),
///     "the range ends at 2000-01-01T00:00:00.000Z, and the IDs' time starts at \
///      2010-11-04T01:42:54.657Z: no ID records a time in it"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TimeBoundsError {
    /// The scheme's IDs hold no time (DecimalId, dense or segment IDs, a
    /// scheme of your own that does not implement
    /// [`IdScheme::time_bounds`](crate::IdScheme::time_bounds)).
    #[error("IDs of {scheme} record no time: a range of times has no key bounds")]
    NoTime {
        /// The scheme's type name.
        scheme: &'static str,
    },
    /// The whole range lies before the epoch of the IDs' time: no ID
    /// records a time in it. (A range that only *starts* before the epoch
    /// has bounds: its lower bound is the smallest ID.)
    #[error(
        "the range ends {}, and the IDs' time starts at {}: no ID records a time in it",
        Edge(*end, "at", "before"),
        Time(*epoch)
    )]
    BeforeEpoch {
        /// The end of the range.
        end: Bound<SystemTime>,
        /// The epoch: the start of the IDs' first tick.
        epoch: SystemTime,
    },
    /// The whole range lies at or after the instant the IDs' time field
    /// runs out: no ID records a time in it. (A range that only *ends*
    /// after it has bounds: its upper bound is the largest ID.)
    #[error(
        "the range starts {}, and the IDs' time runs out at {}: no ID records a time in it",
        Edge(*start, "at", "after"),
        Time(*end)
    )]
    AfterEnd {
        /// The start of the range.
        start: Bound<SystemTime>,
        /// The end of the IDs' last tick.
        end: SystemTime,
    },
    /// The range holds no time: its start is after its end (or equal to
    /// the end of a half-open range).
    #[error("the range from {} to {} is empty", Edge(*start, "", "after "), Edge(*end, "", "before "))]
    Empty {
        /// The start of the range.
        start: Bound<SystemTime>,
        /// The end of the range.
        end: Bound<SystemTime>,
    },
    /// The range holds times of two periods of a scheme whose time wraps
    /// (`flakeid-schemes`' `TraceIdLayout`: every 2^25 s):
    /// one pair of bounds cannot select both parts. Split the range at
    /// `wrap` and query each part.
    #[error(
        "the range from {} to {} crosses {}, where the IDs' time wraps to 0: split the range there",
        Edge(*start, "", "after "),
        Edge(*end, "", "before "),
        Time(*wrap)
    )]
    CrossesWrap {
        /// The start of the range.
        start: Bound<SystemTime>,
        /// The end of the range.
        end: Bound<SystemTime>,
        /// The first instant of the next period.
        wrap: SystemTime,
    },
    /// A scheme of your own gave a bound that is not an ID of the type.
    #[error("the scheme gave {value} as a key bound, which is not an ID: {source}")]
    InvalidBound {
        /// The bound the scheme gave.
        value: u64,
        /// Why it is not an ID.
        #[source]
        source: IdError,
    },
}

/// A time as RFC 3339.
struct Time(SystemTime);

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_rfc3339(f, self.0)
    }
}

/// One end of a range: `"{included} T"`, `"{excluded} T"`, or `unbounded`.
struct Edge(Bound<SystemTime>, &'static str, &'static str);

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (word, t) = match self.0 {
            Bound::Included(t) => (self.1, t),
            Bound::Excluded(t) => (self.2, t),
            Bound::Unbounded => return f.write_str("unbounded"),
        };
        let sep = if word.is_empty() || word.ends_with(' ') {
            ""
        } else {
            " "
        };
        write!(f, "{word}{sep}{}", Time(t))
    }
}
