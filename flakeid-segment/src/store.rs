//! What a segment store does: advance a named row by a step, atomically,
//! and say where it ended.

use core::future::Future;

use flakeid_sql::StoreError;

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
    /// use flakeid_segment::Segment;
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
///
/// ```
/// use flakeid_segment::{FetchRequest, Fetched, MemorySegmentStore, SegmentStore};
///
/// let mut store = MemorySegmentStore::new();
/// // A new row whose first value is 1,000: the first advance hands out 1,000..=1,099.
/// let request = FetchRequest { name: "invoices", step: 100, first: 1_000 };
/// assert_eq!(store.fetch(&request)?, Fetched::Advanced { max_id: 1_099 });
/// assert_eq!(store.fetch(&request)?, Fetched::Advanced { max_id: 1_199 });
/// # Ok::<(), flakeid_sql::StoreError>(())
/// ```
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
///
/// ```
/// use flakeid_segment::{FetchRequest, Fetched, MemorySegmentStore, SegmentStore};
///
/// let mut store = MemorySegmentStore::new();
/// // A row 50 values short of 2^63 − 1 cannot advance by 100, but by 50.
/// let near_end = FetchRequest { name: "orders", step: 100, first: i64::MAX as u64 - 49 };
/// assert_eq!(store.fetch(&near_end)?, Fetched::Exhausted { max_id: i64::MAX - 50 });
/// let last = FetchRequest { step: 50, ..near_end };
/// assert_eq!(store.fetch(&last)?, Fetched::Advanced { max_id: i64::MAX });
/// # Ok::<(), flakeid_sql::StoreError>(())
/// ```
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
/// [`SegmentOptions::start`](crate::SegmentOptions::start) starts.
///
/// One row per name: `max_id` (the last value handed out), `step` (the
/// last advance's step) and the time of the last advance. The SQL store
/// ([`SqlSegmentStore`](crate::SqlSegmentStore), run by
/// `flakeid-seaorm` and `flakeid-diesel`) and
/// [`MemorySegmentStore`](crate::MemorySegmentStore) implement this trait
/// and [`AsyncSegmentStore`].
///
/// ```
/// use flakeid_segment::{FetchRequest, Fetched, SegmentOptions, SegmentStore};
/// use flakeid_sql::StoreError;
///
/// /// One row in memory; a database advances it in one statement.
/// #[derive(Default)]
/// struct OneRow { max_id: Option<i64> }
///
/// impl SegmentStore for OneRow {
///     fn fetch(&mut self, request: &FetchRequest<'_>) -> Result<Fetched, StoreError> {
///         let max_id = self.max_id.get_or_insert(i64::try_from(request.first)? - 1);
///         match max_id.checked_add(i64::try_from(request.step)?) {
///             Some(advanced) => *max_id = advanced,
///             None => return Ok(Fetched::Exhausted { max_id: *max_id }),
///         }
///         Ok(Fetched::Advanced { max_id: *max_id })
///     }
/// }
///
/// let ids = SegmentOptions::new("orders").step(10).first_value(1_000).start(OneRow::default())?;
/// let values: Vec<u64> = (0..25).map(|_| ids.next_value()).collect::<Result<_, _>>()?;
/// assert_eq!(values, (1_000..1_025).collect::<Vec<u64>>());
/// # Ok::<(), flakeid_segment::SegmentError>(())
/// ```
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
///
/// ```
/// use std::task::{Context, Poll, Waker};
/// use flakeid_segment::{AsyncSegmentStore, FetchRequest, Fetched, MemorySegmentStore, Segment};
/// use flakeid_sql::StoreError;
///
/// /// The next `step` values of the row `orders`, from any async store.
/// async fn take(store: &impl AsyncSegmentStore, step: u64) -> Result<Segment, StoreError> {
///     match store.fetch(&FetchRequest { name: "orders", step, first: 1 }).await? {
///         Fetched::Advanced { max_id } => Segment::ending_at(max_id, step).ok_or("a bad row".into()),
///         Fetched::Exhausted { .. } => Err("the row is used up".into()),
///     }
/// }
///
/// // A runtime would await these; MemorySegmentStore's futures are ready at once.
/// fn now<T>(future: impl Future<Output = T>) -> T {
///     match std::pin::pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
///         Poll::Ready(value) => value,
///         Poll::Pending => unreachable!("MemorySegmentStore never waits"),
///     }
/// }
/// let store = MemorySegmentStore::new();
/// assert_eq!(now(take(&store, 100))?, Segment { first: 1, last: 100 });
/// assert_eq!(now(take(&store, 100))?, Segment { first: 101, last: 200 });
/// # Ok::<(), StoreError>(())
/// ```
pub trait AsyncSegmentStore: Send + Sync {
    /// See [`SegmentStore::fetch`].
    fn fetch(
        &self,
        request: &FetchRequest<'_>,
    ) -> impl Future<Output = Result<Fetched, StoreError>> + Send;
}

/// A segment row, as operators see it.
///
/// ```
/// use flakeid_core::ManualClock;
/// use flakeid_segment::{MemorySegmentStore, SegmentOptions, SegmentRow};
///
/// let store = MemorySegmentStore::with_clock(ManualClock::new(1_700_000_000_000));
/// let ids = SegmentOptions::new("orders").step(100).start(store.clone())?;
/// assert_eq!(ids.next_value()?, 1);
/// let row = store.row("orders").expect("created by the first fetch");
/// assert_eq!(
///     row,
///     SegmentRow { name: "orders".into(), max_id: 100, step: 100, updated_at_millis: 1_700_000_000_000 }
/// );
/// # Ok::<(), flakeid_segment::SegmentError>(())
/// ```
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
