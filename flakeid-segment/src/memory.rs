//! An in-memory segment store: the rows without a database, for tests,
//! examples and benchmarks of one process.

use core::future::{Future, ready};

use super::store::{AsyncSegmentStore, FetchRequest, Fetched, SegmentRow, SegmentStore};
use flakeid_core::{Clock, MonotonicClock};
use flakeid_sql::{MemoryRows, Outage, StoreError};

/// Segment rows in memory: the protocol without a database, for tests,
/// examples and benchmarks of one process. Clones share one table, as
/// connections share one database. It coordinates nothing across
/// processes.
///
/// ```
/// use flakeid_segment::{MemorySegmentStore, SegmentOptions};
///
/// let store = MemorySegmentStore::new();
/// let ids = SegmentOptions::new("orders").step(100).start(store.clone())?;
/// assert_eq!(ids.next_value()?, 1);
/// assert_eq!(ids.next_value()?, 2);
/// let row = store.row("orders").unwrap();
/// assert!(row.max_id >= 100); // the first segment, perhaps the next one too
/// # Ok::<(), flakeid_segment::SegmentError>(())
/// ```
#[derive(Clone)]
pub struct MemorySegmentStore {
    rows: MemoryRows<String, SegmentRow>,
}

impl core::fmt::Debug for MemorySegmentStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MemorySegmentStore")
            .field("rows", &self.rows.lock().len())
            .finish_non_exhaustive()
    }
}

impl Default for MemorySegmentStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemorySegmentStore {
    /// An empty table whose clock is [`MonotonicClock`].
    pub fn new() -> Self {
        Self::with_clock(MonotonicClock::new())
    }

    /// An empty table whose update times come from `clock`.
    pub fn with_clock(clock: impl Clock) -> Self {
        MemorySegmentStore {
            rows: MemoryRows::new(clock),
        }
    }

    /// A handle on the same rows behind `outage`: while the outage is on,
    /// each fetch through it fails with
    /// [`Unreachable`](flakeid_sql::Unreachable) and changes nothing, as
    /// a database cut off by a partition; the other handles are untouched.
    /// See [`Outage`].
    ///
    /// ```
    /// use flakeid_segment::{MemorySegmentStore, SegmentOptions};
    /// use flakeid_sql::Outage;
    ///
    /// let store = MemorySegmentStore::new();
    /// let outage = Outage::new();
    /// outage.start();
    /// assert!(SegmentOptions::new("orders").start(store.behind(&outage)).is_err());
    /// outage.end();
    /// let ids = SegmentOptions::new("orders").start(store.behind(&outage))?;
    /// assert_eq!(ids.next_value()?, 1);
    /// # Ok::<(), flakeid_segment::SegmentError>(())
    /// ```
    pub fn behind(&self, outage: &Outage) -> Self {
        Self {
            rows: self.rows.behind(outage),
        }
    }

    /// The row `name`, if it exists.
    pub fn row(&self, name: &str) -> Option<SegmentRow> {
        self.rows.lock().get(name).cloned()
    }

    fn advance(&self, r: &FetchRequest<'_>) -> Fetched {
        let now = self.rows.now_millis();
        let step = i64::try_from(r.step).unwrap_or(i64::MAX);
        let mut rows = self.rows.lock();
        let row = rows.entry(r.name.to_owned()).or_insert_with(|| SegmentRow {
            name: r.name.to_owned(),
            max_id: i64::try_from(r.first.saturating_sub(1)).unwrap_or(i64::MAX),
            step,
            updated_at_millis: now,
        });
        match row.max_id.checked_add(step) {
            Some(max_id) => {
                row.max_id = max_id;
                row.step = step;
                row.updated_at_millis = now;
                Fetched::Advanced { max_id }
            }
            None => Fetched::Exhausted { max_id: row.max_id },
        }
    }
}

impl SegmentStore for MemorySegmentStore {
    fn fetch(&mut self, request: &FetchRequest<'_>) -> Result<Fetched, StoreError> {
        self.rows.reach()?;
        Ok(self.advance(request))
    }
}

impl AsyncSegmentStore for MemorySegmentStore {
    fn fetch(
        &self,
        request: &FetchRequest<'_>,
    ) -> impl Future<Output = Result<Fetched, StoreError>> + Send {
        ready(self.rows.reach().map(|()| self.advance(request)))
    }
}
