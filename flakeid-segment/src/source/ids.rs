//! [`SegmentIds`]: the values of one segment row, served from memory, and
//! what it holds and has done ([`SegmentStats`]).

use core::fmt;
use core::time::Duration;
use std::sync::Arc;
use std::time::Instant;

use super::Shared;
use crate::cursor::Take;
use crate::error::SegmentError;
use crate::store::Segment;
use flakeid_core::__private::until_ready;
use flakeid_core::runtime::{Attempt, Sleep};

/// Values of one segment row, served from memory: the current segment
/// lock-free, the next fetched in the background. See the [crate
/// documentation](crate).
///
/// Dropping it (or [`stop`](Self::stop)) stops the background fetches;
/// values fetched and not served are lost (a gap in the row's values,
/// never a repeat).
///
/// ```
/// use flakeid_segment::{MemorySegmentStore, SegmentError, SegmentOptions};
///
/// let ids = SegmentOptions::new("orders").step(100).start(MemorySegmentStore::new())?;
/// assert_eq!(ids.name(), "orders");
/// assert_eq!(ids.next_value()?, 1);
/// assert_eq!(ids.try_next_value()?, 2); // never waits
/// // Stopped, it serves the values it holds, then no more: no gap.
/// ids.stop();
/// let rest: Vec<u64> = std::iter::from_fn(|| ids.next_value().ok()).collect();
/// assert_eq!(rest, (3..=100).collect::<Vec<u64>>());
/// assert!(matches!(ids.next_value(), Err(SegmentError::Stopped { .. })));
/// # Ok::<(), SegmentError>(())
/// ```
pub struct SegmentIds {
    shared: Arc<Shared>,
    /// The process's fork tag when started (see [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    fork_tag: u64,
}

impl fmt::Debug for SegmentIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentIds")
            .field("name", &self.shared.name)
            .field("current", &self.shared.cursor.current())
            .finish_non_exhaustive()
    }
}

/// What a source holds and has done, for operators and tests.
///
/// ```
/// use flakeid_segment::{MemorySegmentStore, Segment, SegmentOptions};
///
/// let ids = SegmentOptions::new("orders").step(100).start(MemorySegmentStore::new())?;
/// for _ in 0..3 {
///     ids.next_value()?;
/// }
/// let stats = ids.stats();
/// assert_eq!(stats.current, Some((Segment { first: 1, last: 100 }, 3)));
/// // The next segment is fetched once 10 % of this one is used.
/// assert_eq!((stats.next, stats.fetches, stats.failed_fetches), (None, 1, 0));
/// # Ok::<(), flakeid_segment::SegmentError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SegmentStats {
    /// The segment being served and how many of its values were taken.
    pub current: Option<(Segment, u64)>,
    /// The fetched segment waiting to be served.
    pub next: Option<Segment>,
    /// The step of the last fetch.
    pub step: u64,
    /// Segments fetched so far.
    pub fetches: u64,
    /// Failed attempts at the pending fetch.
    pub failed_fetches: u64,
    /// The last failed attempt's error.
    pub last_error: Option<String>,
}

impl SegmentIds {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        SegmentIds {
            shared,
            fork_tag: flakeid_core::__private::fork_tag(),
        }
    }

    /// The segment row's name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The next value: one atomic step while the current segment lasts.
    /// When it is used up the next segment (fetched in the background)
    /// takes over; when that is missing too, waits up to
    /// [`SegmentOptions::wait`](crate::SegmentOptions::wait) for it.
    ///
    /// Values increase within a source; sources on one row interleave.
    ///
    /// # Errors
    /// [`SegmentError::Unavailable`] (the database did not deliver in
    /// time; a later call succeeds once it does),
    /// [`SegmentError::Exhausted`], [`SegmentError::Stopped`],
    /// [`SegmentError::Forked`].
    #[inline]
    pub fn next_value(&self) -> Result<u64, SegmentError> {
        self.take(self.shared.wait)
    }

    /// The next value without waiting: as [`next_value`](Self::next_value)
    /// with a wait of zero.
    ///
    /// # Errors
    /// As [`next_value`](Self::next_value).
    #[inline]
    pub fn try_next_value(&self) -> Result<u64, SegmentError> {
        self.take(Duration::ZERO)
    }

    /// [`next_value`](Self::next_value) for async code (feature `tokio`):
    /// when both segments are used up, the task waits on the tokio
    /// runtime's timer for the fetch in flight (up to
    /// [`SegmentOptions::wait`](crate::SegmentOptions::wait)) instead of blocking the thread. The same
    /// values and errors otherwise.
    ///
    /// # Errors
    /// As [`next_value`](Self::next_value).
    ///
    /// ```
    /// use flakeid_segment::{MemorySegmentStore, SegmentOptions};
    ///
    /// let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
    /// runtime.block_on(async {
    ///     // Segments of 2: the third value waits for a fetch the fetcher task makes.
    ///     let ids = SegmentOptions::new("orders").step(2).max_step(2)
    ///         .start_on_tokio(MemorySegmentStore::new()).await?;
    ///     for expected in 1..=5 {
    ///         assert_eq!(ids.next_value_async().await?, expected);
    ///     }
    ///     Ok::<(), flakeid_segment::SegmentError>(())
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "tokio")]
    pub async fn next_value_async(&self) -> Result<u64, SegmentError> {
        self.next_value_async_on(&flakeid_core::runtime::TokioSleep)
            .await
    }

    /// [`next_value_async`](Self::next_value_async) on any runtime's timers.
    ///
    /// # Errors
    /// As [`next_value`](Self::next_value).
    pub async fn next_value_async_on<R: Sleep>(&self, timers: &R) -> Result<u64, SegmentError> {
        until_ready(
            timers,
            || self.attempt_next_value(),
            || self.try_next_value(),
        )
        .await
    }

    /// One non-blocking attempt of an async caller: the value, or the wait
    /// for the segment being fetched (see [`Attempt`]).
    ///
    /// # Errors
    /// As [`next_value`](Self::next_value).
    #[inline]
    pub fn attempt_next_value(&self) -> Result<Attempt<u64>, SegmentError> {
        self.check_fork()?;
        loop {
            match self.shared.cursor.take() {
                Take::Value { value, triggered } => {
                    if triggered {
                        self.shared.prefetch();
                    }
                    return Ok(Attempt::Ready(value));
                }
                Take::Empty(seen) => {
                    if let Some(wait) = self.shared.refill_or_wait(seen)? {
                        return Ok(Attempt::Wait(wait));
                    }
                }
            }
        }
    }

    fn check_fork(&self) -> Result<(), SegmentError> {
        if flakeid_core::__private::fork_current_tag() == self.fork_tag {
            Ok(())
        } else {
            Err(SegmentError::Forked {
                name: self.shared.name.clone(),
            })
        }
    }

    #[inline]
    fn take(&self, wait: Duration) -> Result<u64, SegmentError> {
        self.check_fork()?;
        let mut deadline = None;
        loop {
            match self.shared.cursor.take() {
                Take::Value { value, triggered } => {
                    if triggered {
                        self.shared.prefetch();
                    }
                    return Ok(value);
                }
                Take::Empty(seen) => {
                    let d = *deadline.get_or_insert_with(|| Instant::now().checked_add(wait));
                    self.shared.refill(seen, d)?;
                }
            }
        }
    }

    /// Stops the background fetches. Values already fetched are still
    /// served (a fetch under way is awaited), then
    /// [`SegmentError::Stopped`]: draining a stopped source leaves no gap.
    pub fn stop(&self) {
        self.shared.stop();
    }

    /// The segments held and the fetches made.
    pub fn stats(&self) -> SegmentStats {
        let inner = self.shared.lock();
        SegmentStats {
            current: self
                .shared
                .cursor
                .current()
                .filter(|c| c.1 > 0)
                .map(|(start, len, taken)| {
                    (
                        Segment {
                            first: start,
                            last: start + len - 1,
                        },
                        taken,
                    )
                }),
            next: inner.next,
            step: inner.steps.current(),
            fetches: inner.fetches,
            failed_fetches: inner.failed,
            last_error: inner.last_error.clone(),
        }
    }
}

impl Drop for SegmentIds {
    fn drop(&mut self) {
        self.shared.stop();
    }
}
