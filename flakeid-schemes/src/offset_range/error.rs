//! What offset ranges refuse; see [`OffsetRangeError`].

use thiserror::Error;

/// Offset ranges that cannot be configured, or an ID outside its location's
/// range (see [`OffsetRanges`](crate::OffsetRanges)).
///
/// ```
/// use flakeid_schemes::{OffsetRangeError, OffsetRanges};
///
/// assert_eq!(OffsetRanges::new(1, 10), Err(OffsetRangeError::RangeSizeTooSmall { range_size: 1 }));
/// let ranges = OffsetRanges::decimal(3, 4)?; // 4 locations of 1,000 values
/// // Location 1's counter reached 2,000, location 2's first ID.
/// let e = ranges.check(2_000, 1).unwrap_err();
/// assert_eq!(e, OffsetRangeError::Outgrown { location: 1, value: 2_000, end: 2_000 });
/// assert_eq!(e.to_string(), "location 1 outgrew its range: 2000 is not below the range's end 2000");
/// # Ok::<(), OffsetRangeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OffsetRangeError {
    /// The range size is below 2 (location 0's range `[1, size)` would be empty).
    #[error("range size {range_size} is too small: each location needs at least 2 values")]
    RangeSizeTooSmall {
        /// The range size given.
        range_size: u64,
    },
    /// `10^k` does not fit a positive BIGINT.
    #[error("range size 10^{exponent} does not fit 1..=2^63-1: the largest exponent is 18")]
    ExponentTooLarge {
        /// The exponent given.
        exponent: u32,
    },
    /// No locations were asked for.
    #[error("max_locations must be at least 1, got 0")]
    NoLocations,
    /// The last location's range would end past `2^63 − 1`.
    #[error(
        "{max_locations} locations of {range_size} values do not fit 1..=2^63-1: \
         at most {max} locations fit"
    )]
    TooManyLocations {
        /// The range size.
        range_size: u64,
        /// The number of locations given.
        max_locations: u64,
        /// How many locations of this size fit.
        max: u64,
    },
    /// The location has no range.
    #[error("location {location} is out of range: locations are 0..{max_locations}")]
    LocationOutOfRange {
        /// The location given.
        location: u64,
        /// The number of locations.
        max_locations: u64,
    },
    /// The location used up its range: the value is at or past the range's end.
    #[error("location {location} outgrew its range: {value} is not below the range's end {end}")]
    Outgrown {
        /// The location.
        location: u64,
        /// The value that does not fit (saturated at `u64::MAX`).
        value: u64,
        /// The first value past the location's range.
        end: u64,
    },
    /// The value is below the location's range (another location's ID, or 0).
    #[error("{value} is below location {location}'s range, which starts at {start}")]
    BelowRange {
        /// The location.
        location: u64,
        /// The value.
        value: u64,
        /// The first value of the location's range.
        start: u64,
    },
    /// The value is in no location's range (0, or at or past the last range's end).
    #[error("{id} is in no location's range: the ranges cover 1..{end}")]
    NotInAnyRange {
        /// The value.
        id: u64,
        /// The first value past the last location's range.
        end: u64,
    },
}
