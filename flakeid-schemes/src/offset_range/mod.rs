//! The offset range scheme; see [`OffsetRanges`].

mod error;
/// SQL that gives one location a counter confined to its range.
mod sql;

pub use error::OffsetRangeError;

/// Per-location offset ranges: location `N` owns `[N·size, (N+1)·size)` of
/// the ID domain and takes its IDs from its own database sequence (or from a
/// local counter offset into its range).
///
/// ```text
///   size = 10^5, 3 locations
///
///   location 0: [1,       100000)   (0 is never an ID)
///   location 1: [100000,  200000)   e.g. 100001, 100002, …
///   location 2: [200000,  300000)
/// ```
///
/// The oldest way to have several writers without a central sequence: start
/// each location's identity column at a multiple of a large round number and
/// trust that no location ever issues more than `size` IDs. The library
/// makes the trust checkable:
///
/// * [`OffsetRanges::new`] / [`OffsetRanges::decimal`] refuse configurations
///   whose last range would leave `1..=2^63 − 1`;
/// * [`OffsetRanges::compose`] and [`OffsetRanges::check`] fail with
///   [`OffsetRangeError::Outgrown`] when a location reaches its range's end,
///   instead of quietly issuing the next location's IDs;
/// * the SQL of [`LocationRange`] creates per-location sequences whose `MAXVALUE`
///   is the range's last value, so the database itself refuses to go past it.
///
/// **Properties.** Domain `1..=max_locations·size − 1` (within
/// `1..=2^63 − 1`). Monotonic per location (sharded): each location's IDs
/// increase, locations interleave. Capacity: `size` IDs per location in
/// total, at whatever rate its sequence sustains; no end date, but an end
/// count. Unique per location: the location number, assigned by whoever
/// deploys the locations; two writers sharing a number must share its
/// sequence. IDs reveal no time, but reveal their location and how many IDs
/// it has issued.
///
/// ```
/// use flakeid_schemes::{OffsetRangeError, OffsetRanges};
///
/// let ranges = OffsetRanges::decimal(5, 20)?; // 20 locations of 10^5 IDs
/// assert_eq!(ranges.compose(1, 1)?, 100_001);
/// assert_eq!(ranges.decompose(200_042)?, (2, 42));
/// assert_eq!(
///     ranges.compose(1, 100_000),
///     Err(OffsetRangeError::Outgrown { location: 1, value: 200_000, end: 200_000 })
/// );
/// # Ok::<(), OffsetRangeError>(())
/// ```
///
/// # Database-produced IDs, the baseline
///
/// Each location's sequence is an ordinary database-produced key
/// (`AUTO_INCREMENT`, `IDENTITY`, `SERIAL`, a sequence, a compare-and-swap
/// counter), the scheme every other one is compared with. It is fully
/// monotonic, uses the whole positive BIGINT domain and needs no
/// configuration, but:
///
/// * the application learns an ID only after a round trip (the insert's
///   `RETURNING`/`LAST_INSERT_ID()`, or a `nextval` before it), so latency
///   is bound by the database's;
/// * entities that refer to each other (cycles, or a parent and children
///   built in memory) cannot be inserted in one go without stub rows or
///   deferred updates;
/// * the counter is one point every writer goes through, which bounds the
///   write rate (fine for users or accounts, thousands per second) and does
///   not extend to several primaries or offline writers.
///
/// It is also what a block allocator reserves from: one counter step per
/// block instead of one per ID (see `flakeid-segment`'s `ShortKeys` and
/// [`DecimalIdScheme`](crate::DecimalIdScheme)). flakeid has no API for it; the ORMs
/// support it directly (SeaORM `auto_increment`, Diesel `RETURNING` or
/// `LAST_INSERT_ID()`).
///
/// A validated split of `1..=2^63 − 1` into equal ranges, one per location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OffsetRanges {
    range_size: u64,
    max_locations: u64,
}

/// The values one location owns: `start..end` (`start` is 1 for location 0,
/// `N·size` otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LocationRange {
    /// The location.
    pub location: u64,
    /// The first value of the range.
    pub start: u64,
    /// The first value past the range.
    pub end: u64,
}

impl LocationRange {
    /// The last value of the range (`end − 1`).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let r = OffsetRanges::decimal(2, 5)?.range(3)?;
    /// assert_eq!((r.start, r.last(), r.end), (300, 399, 400));
    /// # Ok::<(), flakeid_schemes::OffsetRangeError>(())
    /// ```
    pub const fn last(&self) -> u64 {
        self.end - 1
    }

    /// Whether `value` is in the range.
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let r = OffsetRanges::decimal(2, 5)?.range(0)?;
    /// assert!(!r.contains(0) && r.contains(1) && r.contains(99) && !r.contains(100));
    /// # Ok::<(), flakeid_schemes::OffsetRangeError>(())
    /// ```
    pub const fn contains(&self, value: u64) -> bool {
        self.start <= value && value < self.end
    }

    /// How many IDs the range holds (one fewer for location 0, which skips 0).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let ranges = OffsetRanges::decimal(2, 5)?;
    /// assert_eq!(ranges.range(0)?.capacity(), 99);
    /// assert_eq!(ranges.range(4)?.capacity(), 100);
    /// # Ok::<(), flakeid_schemes::OffsetRangeError>(())
    /// ```
    pub const fn capacity(&self) -> u64 {
        self.end - self.start
    }
}

impl OffsetRanges {
    /// `max_locations` ranges of `range_size` values each.
    ///
    /// # Errors
    /// [`OffsetRangeError::RangeSizeTooSmall`] for a size below 2,
    /// [`OffsetRangeError::NoLocations`] for 0 locations, and
    /// [`OffsetRangeError::TooManyLocations`] when the last range would end
    /// past `2^63 − 1`.
    ///
    /// ```
    /// use flakeid_schemes::{OffsetRangeError, OffsetRanges};
    ///
    /// let ranges = OffsetRanges::new(1 << 32, 1 << 31)?;
    /// assert_eq!(ranges.range((1 << 31) - 1)?.last(), i64::MAX as u64);
    /// assert_eq!(
    ///     OffsetRanges::new(1 << 32, (1 << 31) + 1),
    ///     Err(OffsetRangeError::TooManyLocations {
    ///         range_size: 1 << 32,
    ///         max_locations: (1 << 31) + 1,
    ///         max: 1 << 31,
    ///     })
    /// );
    /// # Ok::<(), OffsetRangeError>(())
    /// ```
    pub const fn new(range_size: u64, max_locations: u64) -> Result<Self, OffsetRangeError> {
        if range_size < 2 {
            return Err(OffsetRangeError::RangeSizeTooSmall { range_size });
        }
        if max_locations == 0 {
            return Err(OffsetRangeError::NoLocations);
        }
        let max = DOMAIN_END / range_size;
        if max_locations > max {
            return Err(OffsetRangeError::TooManyLocations {
                range_size,
                max_locations,
                max,
            });
        }
        Ok(Self {
            range_size,
            max_locations,
        })
    }

    /// `max_locations` ranges of `10^exponent` values each (IDs whose
    /// leading digits are the location).
    ///
    /// # Errors
    /// [`OffsetRangeError::ExponentTooLarge`] for an exponent above 18, and
    /// the errors of [`new`](Self::new) (exponent 0 gives a size of 1, too small).
    ///
    /// ```
    /// use flakeid_schemes::{OffsetRangeError, OffsetRanges};
    ///
    /// assert_eq!(OffsetRanges::decimal(5, 20)?.range_size(), 100_000);
    /// // 10 ranges of 10^18 would end at 10^19 > 2^63 − 1.
    /// assert!(matches!(
    ///     OffsetRanges::decimal(18, 10),
    ///     Err(OffsetRangeError::TooManyLocations { max: 9, .. })
    /// ));
    /// # Ok::<(), OffsetRangeError>(())
    /// ```
    pub const fn decimal(exponent: u32, max_locations: u64) -> Result<Self, OffsetRangeError> {
        if exponent > 18 {
            return Err(OffsetRangeError::ExponentTooLarge { exponent });
        }
        Self::new(10u64.pow(exponent), max_locations)
    }

    /// Values per location.
    pub const fn range_size(&self) -> u64 {
        self.range_size
    }

    /// How many locations there are (locations are `0..max_locations`).
    pub const fn max_locations(&self) -> u64 {
        self.max_locations
    }

    /// The values `location` owns.
    ///
    /// # Errors
    /// [`OffsetRangeError::LocationOutOfRange`] for a location without a range.
    ///
    /// ```
    /// use flakeid_schemes::{LocationRange, OffsetRanges};
    /// let ranges = OffsetRanges::decimal(5, 20)?;
    /// assert_eq!(ranges.range(0)?, LocationRange { location: 0, start: 1, end: 100_000 });
    /// assert_eq!(ranges.range(7)?, LocationRange { location: 7, start: 700_000, end: 800_000 });
    /// assert!(ranges.range(20).is_err());
    /// # Ok::<(), flakeid_schemes::OffsetRangeError>(())
    /// ```
    pub const fn range(&self, location: u64) -> Result<LocationRange, OffsetRangeError> {
        if location >= self.max_locations {
            return Err(OffsetRangeError::LocationOutOfRange {
                location,
                max_locations: self.max_locations,
            });
        }
        // Cannot overflow: `new` checked max_locations · size <= 2^63.
        let offset = location * self.range_size;
        Ok(LocationRange {
            location,
            start: if offset == 0 { 1 } else { offset },
            end: offset + self.range_size,
        })
    }

    /// The ID `location · size + local`, for a location counting `local`
    /// from 0 (from 1 at location 0).
    ///
    /// # Errors
    /// [`OffsetRangeError::LocationOutOfRange`] for a location without a
    /// range, [`OffsetRangeError::Outgrown`] when `local` does not fit the
    /// range, and [`OffsetRangeError::BelowRange`] for `(0, 0)`, which would
    /// be the ID 0.
    ///
    /// ```
    /// use flakeid_schemes::{OffsetRangeError, OffsetRanges};
    ///
    /// let ranges = OffsetRanges::decimal(2, 3)?;
    /// assert_eq!(ranges.compose(2, 99)?, 299);
    /// assert_eq!(
    ///     ranges.compose(2, 100),
    ///     Err(OffsetRangeError::Outgrown { location: 2, value: 300, end: 300 })
    /// );
    /// assert!(matches!(ranges.compose(0, 0), Err(OffsetRangeError::BelowRange { .. })));
    /// # Ok::<(), OffsetRangeError>(())
    /// ```
    pub const fn compose(&self, location: u64, local: u64) -> Result<u64, OffsetRangeError> {
        let range = match self.range(location) {
            Ok(range) => range,
            Err(e) => return Err(e),
        };
        let offset = location * self.range_size;
        if local >= self.range_size {
            return Err(OffsetRangeError::Outgrown {
                location,
                value: offset.saturating_add(local),
                end: range.end,
            });
        }
        let id = offset + local;
        if id < range.start {
            return Err(OffsetRangeError::BelowRange {
                location,
                value: id,
                start: range.start,
            });
        }
        Ok(id)
    }

    /// The location and local counter of an ID: `(id / size, id % size)`.
    ///
    /// # Errors
    /// [`OffsetRangeError::NotInAnyRange`] for 0 and for values at or past
    /// the last range's end (which includes everything above `2^63 − 1`).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let ranges = OffsetRanges::decimal(2, 3)?;
    /// assert_eq!(ranges.decompose(1)?, (0, 1));
    /// assert_eq!(ranges.decompose(299)?, (2, 99));
    /// assert!(ranges.decompose(0).is_err());
    /// assert!(ranges.decompose(300).is_err());
    /// # Ok::<(), flakeid_schemes::OffsetRangeError>(())
    /// ```
    pub const fn decompose(&self, id: u64) -> Result<(u64, u64), OffsetRangeError> {
        let location = id / self.range_size;
        if id == 0 || location >= self.max_locations {
            return Err(OffsetRangeError::NotInAnyRange {
                id,
                end: self.max_locations * self.range_size,
            });
        }
        Ok((location, id % self.range_size))
    }

    /// Checks that `id` (e.g. just taken from `location`'s sequence) lies in
    /// `location`'s range; returns its local counter.
    ///
    /// Use it on every value a location's counter hands out when the
    /// database does not enforce the range itself (MySQL `AUTO_INCREMENT`,
    /// a sequence created without `MAXVALUE`, a local counter).
    ///
    /// # Errors
    /// [`OffsetRangeError::LocationOutOfRange`] for a location without a
    /// range, [`OffsetRangeError::Outgrown`] when `id` is at or past the
    /// range's end, [`OffsetRangeError::BelowRange`] when it is below its start.
    ///
    /// ```
    /// use flakeid_schemes::{OffsetRangeError, OffsetRanges};
    ///
    /// let ranges = OffsetRanges::decimal(2, 3)?;
    /// assert_eq!(ranges.check(142, 1)?, 42);
    /// assert_eq!(
    ///     ranges.check(200, 1),
    ///     Err(OffsetRangeError::Outgrown { location: 1, value: 200, end: 200 })
    /// );
    /// # Ok::<(), OffsetRangeError>(())
    /// ```
    pub const fn check(&self, id: u64, location: u64) -> Result<u64, OffsetRangeError> {
        let range = match self.range(location) {
            Ok(range) => range,
            Err(e) => return Err(e),
        };
        if id >= range.end {
            return Err(OffsetRangeError::Outgrown {
                location,
                value: id,
                end: range.end,
            });
        }
        if id < range.start {
            return Err(OffsetRangeError::BelowRange {
                location,
                value: id,
                start: range.start,
            });
        }
        Ok(id - location * self.range_size)
    }
}

/// The first value past the positive BIGINT domain.
const DOMAIN_END: u64 = 1 << 63;
