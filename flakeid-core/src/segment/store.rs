//! What a segment store does: advance a named row by a step, atomically,
//! and say where it ended.

use core::future::Future;

use crate::store::StoreError;

/// A range of values `first..=last` handed to one source alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Segment {
    /// The first value.
    pub first: u64,
    /// The last value.
    pub last: u64,
}

impl Segment {
    /// The segment a row's `max_id` ends after an advance by `step`:
    /// `max_id − step + 1 ..= max_id`, if that lies within `1..=2^63 − 1`.
    ///
    /// ```
    /// use flakeid_core::segment::Segment;
    ///
    /// assert_eq!(Segment::ending_at(2_000, 1_000), Some(Segment { first: 1_001, last: 2_000 }));
    /// assert_eq!(Segment::ending_at(999, 1_000), None); // would include 0
    /// ```
    pub fn ending_at(max_id: i64, step: u64) -> Option<Segment> {
        let last = u64::try_from(max_id).ok()?;
        if step == 0 || step > last {
            return None;
        }
        Some(Segment {
            first: last - step + 1,
            last,
        })
    }

    /// How many values the segment holds.
    pub fn len(&self) -> u64 {
        self.last - self.first + 1
    }

    /// Always `false`: a segment holds at least one value.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Advance the row `name` by `step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchRequest<'a> {
    /// The segment row's name.
    pub name: &'a str,
    /// How many values to take.
    pub step: u64,
    /// The first value of a row created by this request (its `max_id`
    /// starts at `first − 1`).
    pub first: u64,
}

/// What an advance found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetched {
    /// The row was advanced; its new `max_id` (the segment's last value).
    Advanced {
        /// The row's `max_id` after the advance.
        max_id: i64,
    },
    /// The row cannot be advanced by the step without passing `2^63 − 1`.
    Exhausted {
        /// The row's `max_id`.
        max_id: i64,
    },
}

/// A segment store used from blocking code and from the fetch thread that
/// [`SegmentOptions::start`](super::SegmentOptions::start) starts.
///
/// One row per name: `max_id` (the last value handed out), `step` (the
/// last advance's step) and the time of the last advance. The SQL store
/// ([`SqlSegmentStore`](crate::segment::SqlSegmentStore), run by
/// `flakeid-seaorm` and `flakeid-diesel`) and
/// [`MemorySegmentStore`](super::MemorySegmentStore) implement this trait
/// and [`AsyncSegmentStore`].
pub trait SegmentStore: Send {
    /// Advances the row by `request.step` in **one atomic step**
    /// (`max_id = max_id + step`, unless that passes `2^63 − 1`) and
    /// returns the new `max_id`: the values `max_id − step + 1 ..= max_id`
    /// are the caller's alone, whoever else advances the row at the same
    /// time. Creates the row first if there is none (idempotently:
    /// concurrent creators make one row).
    ///
    /// # Errors
    /// The store's error. An advance whose answer was lost may still have
    /// happened: its values are then skipped, never handed out twice.
    fn fetch(&mut self, request: &FetchRequest<'_>) -> Result<Fetched, StoreError>;
}

/// [`SegmentStore`] for async code: the same operation, as a future.
pub trait AsyncSegmentStore: Send + Sync {
    /// See [`SegmentStore::fetch`].
    fn fetch(
        &self,
        request: &FetchRequest<'_>,
    ) -> impl Future<Output = Result<Fetched, StoreError>> + Send;
}

/// A segment row, as operators see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentRow {
    /// The row's name.
    pub name: String,
    /// The last value handed out (`0` before the first segment, for rows
    /// whose first value is 1).
    pub max_id: i64,
    /// The step of the last advance.
    pub step: i64,
    /// When the row was last advanced (Unix ms, the store's clock).
    pub updated_at_millis: i64,
}
