//! The double buffer: a segment served lock-free, the next one fetched in
//! the background, and the options that start it.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use core::time::Duration;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::error::SegmentError;
use super::step::{StepPolicy, StepState};
use super::store::{AsyncSegmentStore, FetchRequest, Fetched, Segment, SegmentStore};
use crate::cursor::{Cursor, MAX_RANGE_LEN, Take};
use flakeid_core::__private::{Counter, Gauge, Signal, note_blocking_wait, timeout, until_ready};
use flakeid_core::runtime::{Attempt, Sleep, Wait};
use flakeid_core::{Clock, MonotonicClock};
use flakeid_sql::StoreError;

/// How to start a segment source on one row. See the [crate
/// documentation](crate).
///
/// ```
/// use std::time::Duration;
/// use flakeid_segment::{MemorySegmentStore, SegmentOptions};
///
/// let ids = SegmentOptions::new("invoices")
///     .step(500)
///     .max_step(50_000)
///     .prefetch_at(0.2)
///     .wait(Duration::from_millis(200))
///     .start(MemorySegmentStore::new())?;
/// assert_eq!(ids.next_value()?, 1);
/// # Ok::<(), flakeid_segment::SegmentError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SegmentOptions<C = MonotonicClock> {
    name: String,
    step: u64,
    max_step: Option<u64>,
    prefetch_at: f64,
    wait: Duration,
    retry_every: Duration,
    fetch_timeout: Duration,
    first: u64,
    clock: C,
}

impl SegmentOptions<MonotonicClock> {
    /// Options for the row `name` (1 to [`SegmentOptions::MAX_NAME_LEN`] characters; one
    /// row per ID space): [`SegmentOptions::DEFAULT_STEP`], adapting up to
    /// [`StepPolicy::DEFAULT_MAX_STEP`], the next segment fetched once
    /// [`SegmentOptions::DEFAULT_PREFETCH_AT`] of the current one is used, callers waiting
    /// up to [`SegmentOptions::DEFAULT_WAIT`] when both are used up, failed fetches retried
    /// every [`SegmentOptions::DEFAULT_RETRY_EVERY`], a new row's first value 1.
    pub fn new(name: impl Into<String>) -> Self {
        SegmentOptions {
            name: name.into(),
            step: SegmentOptions::DEFAULT_STEP,
            max_step: None,
            prefetch_at: SegmentOptions::DEFAULT_PREFETCH_AT,
            wait: SegmentOptions::DEFAULT_WAIT,
            retry_every: SegmentOptions::DEFAULT_RETRY_EVERY,
            fetch_timeout: SegmentOptions::DEFAULT_FETCH_TIMEOUT,
            first: 1,
            clock: MonotonicClock::new(),
        }
    }
}

impl<C: Clock> SegmentOptions<C> {
    /// The clock that times segments (for the adaptive step) and stamps
    /// errors (a [`ManualClock`](flakeid_core::ManualClock) in tests).
    pub fn clock<C2: Clock>(self, clock: C2) -> SegmentOptions<C2> {
        SegmentOptions {
            name: self.name,
            step: self.step,
            max_step: self.max_step,
            prefetch_at: self.prefetch_at,
            wait: self.wait,
            retry_every: self.retry_every,
            fetch_timeout: self.fetch_timeout,
            first: self.first,
            clock,
        }
    }

    flakeid_core::__private::setters! {
        /// The configured step (default [`SegmentOptions::DEFAULT_STEP`]): the first segments'
        /// size, and the smallest the adaptive step shrinks to (1 to
        /// [`SegmentOptions::MAX_STEP`]).
        step(step: u64) => step = step;

        /// The largest step the adaptive step grows to (default
        /// [`StepPolicy::DEFAULT_MAX_STEP`], or the step if that is larger); the step
        /// itself for a fixed step. See [`StepPolicy`].
        max_step(max: u64) => max_step = Some(max);

        /// The share of a segment used before the next one is fetched (0 to 1,
        /// default [`SegmentOptions::DEFAULT_PREFETCH_AT`]): the next segment is asked for when
        /// the value at position `⌊share · len⌋` (at most the last) is taken.
        prefetch_at(share: f64) => prefetch_at = share;

        /// How long [`SegmentIds::next_value`] waits for a segment when both
        /// are used up before it fails with [`SegmentError::Unavailable`]
        /// (default [`SegmentOptions::DEFAULT_WAIT`]; zero: fail at once).
        wait(max: Duration) => wait = max;

        /// How long after a failed fetch the next attempt starts (default
        /// [`SegmentOptions::DEFAULT_RETRY_EVERY`]).
        retry_every(every: Duration) => retry_every = every;

        /// How long a fetch of an async store may take before it is dropped
        /// and counts as failed (default [`SegmentOptions::DEFAULT_FETCH_TIMEOUT`]). A dropped
        /// fetch may still have advanced the row: its values are skipped,
        /// never handed out twice. A blocking store's fetch runs until the
        /// store returns: bound it with the connection's own timeouts, or
        /// with a deadline on the store's statements, as
        /// `flakeid_diesel::segment::start` gives each of its statements
        /// this timeout ([`fetch_time_limit`](Self::fetch_time_limit)).
        fetch_timeout(timeout: Duration) => fetch_timeout = timeout;

        /// The first value of the row if this source creates it (default 1;
        /// `1..=2^63 − 1`). A row that exists keeps its `max_id`.
        first_value(first: u64) => first = first;
    }

    /// How long a fetch may take before it counts as failed: the
    /// [`fetch_timeout`](Self::fetch_timeout) set (default
    /// [`SegmentOptions::DEFAULT_FETCH_TIMEOUT`]). A blocking store's
    /// statements can be given it as their deadline.
    ///
    /// ```
    /// use std::time::Duration;
    /// use flakeid_segment::SegmentOptions;
    ///
    /// let options = SegmentOptions::new("orders");
    /// assert_eq!(options.fetch_time_limit(), SegmentOptions::DEFAULT_FETCH_TIMEOUT);
    /// let options = options.fetch_timeout(Duration::from_secs(2));
    /// assert_eq!(options.fetch_time_limit(), Duration::from_secs(2));
    /// ```
    pub fn fetch_time_limit(&self) -> Duration {
        self.fetch_timeout
    }

    fn plan(self) -> Result<Plan, SegmentError> {
        let invalid = |option, value: String, reason: String| SegmentError::InvalidOption {
            option,
            value,
            reason,
        };
        if self.name.is_empty() || self.name.chars().count() > SegmentOptions::MAX_NAME_LEN {
            return Err(invalid(
                "name",
                format!("{:?}", self.name),
                format!(
                    "a segment row's name has 1..={} characters",
                    SegmentOptions::MAX_NAME_LEN
                ),
            ));
        }
        if !(1..=SegmentOptions::MAX_STEP).contains(&self.step) {
            return Err(invalid(
                "step",
                self.step.to_string(),
                format!("a step is 1..={} values", SegmentOptions::MAX_STEP),
            ));
        }
        let max = self
            .max_step
            .unwrap_or(StepPolicy::DEFAULT_MAX_STEP.max(self.step));
        if max < self.step || max > SegmentOptions::MAX_STEP {
            return Err(invalid(
                "max_step",
                max.to_string(),
                format!(
                    "between the step ({}) and {}",
                    self.step,
                    SegmentOptions::MAX_STEP
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.prefetch_at) {
            return Err(invalid(
                "prefetch_at",
                self.prefetch_at.to_string(),
                "a share of the segment, 0 to 1".into(),
            ));
        }
        if self.retry_every.is_zero() {
            return Err(invalid(
                "retry_every",
                format!("{:?}", self.retry_every),
                "longer than zero".into(),
            ));
        }
        if self.fetch_timeout.is_zero() {
            return Err(invalid(
                "fetch_timeout",
                format!("{:?}", self.fetch_timeout),
                "longer than zero".into(),
            ));
        }
        if !(1..=i64::MAX as u64).contains(&self.first) {
            return Err(invalid(
                "first_value",
                self.first.to_string(),
                "an ID is 1..=2^63 - 1".into(),
            ));
        }
        let now = self.clock.now_millis();
        Ok(Plan {
            shared: Arc::new(Shared {
                metrics: SegmentMetrics::new(&self.name),
                name: self.name,
                cursor: Cursor::new(),
                inner: Mutex::new(Inner {
                    next: None,
                    fetch: FetchState::Idle,
                    requested_millis: now,
                    failed: 0,
                    last_error: None,
                    empty_since_millis: None,
                    exhausted: None,
                    stopped: false,
                    steps: StepState::new(StepPolicy::new(self.step, max)),
                    attempt_millis: now,
                    fetches: 0,
                    waker: None,
                }),
                arrived: Condvar::new(),
                arrived_signal: Arc::default(),
                work: Condvar::new(),
                clock: Box::new(self.clock),
                prefetch_at: self.prefetch_at,
                wait: self.wait,
                retry_every: self.retry_every,
                fetch_timeout: self.fetch_timeout,
                first: self.first,
            }),
        })
    }

    /// Fetches the first segment from a blocking store (creating the row
    /// if need be), then starts a thread that fetches the next ones in the
    /// background with the store (give the store a connection of its own).
    ///
    /// # Errors
    /// [`SegmentError::InvalidOption`], [`SegmentError::Start`] (the store
    /// failed, or the thread could not be started),
    /// [`SegmentError::Exhausted`], [`SegmentError::BadRow`].
    pub fn start<S: SegmentStore + 'static>(
        self,
        mut store: S,
    ) -> Result<SegmentIds, SegmentError> {
        let Plan { shared } = self.plan()?;
        let step = shared.begin_first();
        let (step, first) = fetch_to_the_end(&shared, &mut store, step);
        shared.install_first(step, first)?;
        let thread_shared = shared.clone();
        std::thread::Builder::new()
            .name(format!("flakeid-segment-{}", shared.name))
            .spawn(move || fetch_blocking(&thread_shared, store))
            .map_err(|e| SegmentError::Start {
                name: shared.name.clone(),
                error: format!("cannot start the fetch thread: {e}"),
            })?;
        Ok(SegmentIds::new(shared))
    }

    /// [`start`](Self::start) for an async store. Returns the source and
    /// the fetch future, which the caller spawns on its runtime (it ends
    /// when the source is stopped or dropped); `runtime` provides its
    /// timers.
    ///
    /// # Errors
    /// As [`start`](Self::start).
    pub async fn start_async<S: AsyncSegmentStore + 'static, R: Sleep>(
        self,
        store: S,
        runtime: R,
    ) -> Result<(SegmentIds, impl Future<Output = ()> + Send + 'static), SegmentError> {
        let Plan { shared } = self.plan()?;
        let step = shared.begin_first();
        let (step, first) = fetch_to_the_end_async(&shared, &store, &runtime, step).await;
        shared.install_first(step, first)?;
        let fetcher = fetch_async(shared.clone(), store, runtime);
        Ok((SegmentIds::new(shared), fetcher))
    }

    /// [`start_async`](Self::start_async) with tokio's timers, spawning the
    /// fetcher as a tokio task (feature `tokio`). Call it from within a
    /// tokio runtime; the task ends when the source is stopped or dropped.
    ///
    /// # Errors
    /// As [`start_async`](Self::start_async).
    #[cfg(feature = "tokio")]
    pub async fn start_on_tokio<S: AsyncSegmentStore + 'static>(
        self,
        store: S,
    ) -> Result<SegmentIds, SegmentError> {
        let (ids, fetcher) = self
            .start_async(store, flakeid_core::runtime::TokioSleep)
            .await?;
        tokio::spawn(fetcher);
        Ok(ids)
    }
}

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
    fn new(shared: Arc<Shared>) -> Self {
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
    /// [`SegmentOptions::wait`] for it.
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
    /// [`SegmentOptions::wait`]) instead of blocking the thread. The same
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

impl SegmentOptions {
    /// The step unless [`SegmentOptions::step`] says otherwise: 1,000 values.
    pub const DEFAULT_STEP: u64 = 1_000;

    /// The largest step a source takes: `2^40 − 1` values.
    pub const MAX_STEP: u64 = MAX_RANGE_LEN;

    /// The share of a segment used before the next is fetched, unless
    /// [`SegmentOptions::prefetch_at`] says otherwise: 10 %, as Leaf.
    pub const DEFAULT_PREFETCH_AT: f64 = 0.1;

    /// How long a caller waits for a segment when both are used up, unless
    /// [`SegmentOptions::wait`] says otherwise: 1 s (the bound the generator's
    /// clock and ceiling policies wait by default).
    pub const DEFAULT_WAIT: Duration = Duration::from_secs(1);

    /// How long after a failed fetch the next is tried, unless
    /// [`SegmentOptions::retry_every`] says otherwise: 1 s.
    pub const DEFAULT_RETRY_EVERY: Duration = Duration::from_secs(1);

    /// How long an async fetch may take before it counts as failed, unless
    /// [`SegmentOptions::fetch_timeout`] says otherwise: 10 s.
    pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(10);

    /// The longest name a segment row holds (its `VARCHAR(191)` primary key
    /// fits MySQL's index limit in `utf8mb4`).
    pub const MAX_NAME_LEN: usize = 191;

    /// The table the SQL stores use unless told otherwise.
    pub const DEFAULT_TABLE: &str = "flakeid_segments";
}

/// Validated options.
struct Plan {
    shared: Arc<Shared>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FetchState {
    /// No fetch is wanted: the next segment is here, or not needed yet.
    Idle,
    /// A fetch is wanted (first asked for, or retried after a failure).
    Wanted,
    /// A fetch is running.
    InFlight,
}

/// What callers and the fetcher share, under one lock (the per-value path
/// takes it only at a segment's trigger position and when a segment is
/// used up).
struct Inner {
    /// The fetched segment waiting to be served.
    next: Option<Segment>,
    fetch: FetchState,
    /// When the pending fetch was first asked for.
    requested_millis: u64,
    /// Failed attempts at the pending fetch.
    failed: u64,
    last_error: Option<String>,
    /// When callers first found both segments used up.
    empty_since_millis: Option<u64>,
    /// `(max_id, step)` once the row could not advance.
    exhausted: Option<(u64, u64)>,
    stopped: bool,
    steps: StepState,
    /// Segments fetched so far.
    /// When the fetch in flight (or the last one) started.
    attempt_millis: u64,
    fetches: u64,
    /// The async fetcher, waiting for a request.
    waker: Option<Waker>,
}

struct Shared {
    name: String,
    cursor: Cursor,
    inner: Mutex<Inner>,
    /// Callers waiting for a segment.
    arrived: Condvar,
    /// Async callers waiting for a segment (fires with `arrived`).
    arrived_signal: Arc<Signal>,
    /// The blocking fetcher waiting for a request (or its retry pause).
    work: Condvar,
    clock: Box<dyn Clock>,
    prefetch_at: f64,
    wait: Duration,
    retry_every: Duration,
    fetch_timeout: Duration,
    first: u64,
    metrics: SegmentMetrics,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn request(&self, step: u64) -> FetchRequest<'_> {
        FetchRequest {
            name: &self.name,
            step,
            first: self.first,
        }
    }

    /// The position whose taker asks for the next segment.
    fn trigger(&self, len: u64) -> u64 {
        // f64 holds every length up to 2^53 exactly; longer segments
        // (beyond SegmentOptions::MAX_STEP anyway) would only move the trigger slightly.
        let at = (len as f64 * self.prefetch_at).floor() as u64;
        at.min(len - 1)
    }

    /// The step of the first fetch.
    fn begin_first(&self) -> u64 {
        let now = self.clock.now_millis();
        let mut inner = self.lock();
        inner.fetch = FetchState::InFlight;
        inner.attempt_millis = now;
        inner.steps.for_fetch_at(now)
    }

    /// Serves the first segment, or says why there is none.
    fn install_first(
        &self,
        step: u64,
        fetched: Result<Fetched, StoreError>,
    ) -> Result<(), SegmentError> {
        let segment = match fetched {
            Ok(f) => self.segment_of(step, f)?,
            Err(e) => {
                self.metrics.failed.increment(1);
                return Err(SegmentError::Start {
                    name: self.name.clone(),
                    error: e.to_string(),
                });
            }
        };
        let mut inner = self.lock();
        inner.fetch = FetchState::Idle;
        inner.fetches = 1;
        let at = inner.attempt_millis;
        inner.steps.fetched(step, at);
        self.cursor
            .install(segment.first, segment.len(), self.trigger(segment.len()));
        self.metrics.fetched.increment(1);
        self.note_left(&inner);
        Ok(())
    }

    fn segment_of(&self, step: u64, fetched: Fetched) -> Result<Segment, SegmentError> {
        match fetched {
            Fetched::Advanced { max_id } => {
                Segment::ending_at(max_id, step).ok_or_else(|| SegmentError::BadRow {
                    name: self.name.clone(),
                    max_id,
                    step,
                })
            }
            Fetched::Exhausted { max_id } => Err(SegmentError::Exhausted {
                name: self.name.clone(),
                max_id: u64::try_from(max_id).unwrap_or(0),
                step,
            }),
        }
    }

    /// Sets the gauge of values left: in the segment served and the next.
    fn note_left(&self, inner: &Inner) {
        let served = self
            .cursor
            .current()
            .map_or(0, |(_, len, taken)| len - taken);
        self.metrics
            .left
            .set(served + inner.next.as_ref().map_or(0, Segment::len));
    }

    /// Asks for the next segment (the taker of the trigger position).
    #[cold]
    fn prefetch(&self) {
        let mut inner = self.lock();
        if inner.next.is_none() && inner.fetch == FetchState::Idle {
            self.want(&mut inner);
        }
        self.note_left(&inner);
        let waker = inner.waker.take();
        drop(inner);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Marks a fetch as wanted and wakes the blocking fetcher (the caller
    /// wakes the async one after unlocking).
    fn want(&self, inner: &mut Inner) {
        if inner.stopped || inner.exhausted.is_some() || inner.fetch != FetchState::Idle {
            return;
        }
        inner.fetch = FetchState::Wanted;
        inner.requested_millis = self.clock.now_millis();
        inner.failed = 0;
        inner.last_error = None;
        self.work.notify_all();
    }

    /// The cursor found its segment used up (state `seen`): serve the next
    /// one, or wait for it until `deadline` (`None`: no deadline), or say
    /// why there is none.
    #[cold]
    fn refill(&self, seen: u64, deadline: Option<Instant>) -> Result<(), SegmentError> {
        let mut inner = self.lock();
        loop {
            if self.serve_next(&mut inner, seen)? {
                return Ok(());
            }
            // No deadline: a wait too long for `Instant` to express.
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            if left.is_zero() {
                return Err(self.unavailable(&inner));
            }
            note_blocking_wait("SegmentIds::next_value");
            inner = self
                .arrived
                .wait_timeout(inner, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// [`refill`](Self::refill) for an async caller: `None` once a segment
    /// is served, else what to wait for (a fetch is asked for).
    #[cold]
    fn refill_or_wait(&self, seen: u64) -> Result<Option<Wait>, SegmentError> {
        // Read before the check: a segment arriving after it wakes the waiter.
        let arrived = self.arrived_signal.seen();
        let mut inner = self.lock();
        if self.serve_next(&mut inner, seen)? {
            return Ok(None);
        }
        Ok(Some(Wait::signal(&self.arrived_signal, arrived, self.wait)))
    }

    /// With the lock held, after the cursor found its segment (state
    /// `seen`) used up: whether a segment is served now (by another caller,
    /// or the next one here); else a fetch is asked for. Errors say why no
    /// segment can come.
    fn serve_next(&self, inner: &mut Inner, seen: u64) -> Result<bool, SegmentError> {
        if self.cursor.state() != seen {
            return Ok(true); // another caller served the next segment
        }
        if let Some(segment) = inner.next.take() {
            inner.empty_since_millis = None;
            self.cursor
                .install(segment.first, segment.len(), self.trigger(segment.len()));
            self.note_left(inner);
            return Ok(true);
        }
        if let Some((max_id, step)) = inner.exhausted {
            return Err(SegmentError::Exhausted {
                name: self.name.clone(),
                max_id,
                step,
            });
        }
        if inner.stopped && inner.fetch != FetchState::InFlight {
            return Err(SegmentError::Stopped {
                name: self.name.clone(),
            });
        }
        let now = self.clock.now_millis();
        if inner.empty_since_millis.is_none() {
            inner.empty_since_millis = Some(now);
            self.metrics.waits.increment(1);
            self.metrics.left.set(0);
        }
        self.want(inner);
        if let Some(w) = inner.waker.take() {
            w.wake();
        }
        Ok(false)
    }

    /// Why no value can be served now: both segments are used up and the
    /// fetch has not delivered.
    fn unavailable(&self, inner: &Inner) -> SegmentError {
        SegmentError::Unavailable {
            name: self.name.clone(),
            empty_since_millis: inner.empty_since_millis.unwrap_or(inner.requested_millis),
            requested_since_millis: inner.requested_millis,
            failed_fetches: inner.failed,
            last_error: inner.last_error.clone(),
        }
    }

    /// The step of the next fetch once one is wanted: `Some(step)` after
    /// marking it in flight, `None` when stopped, or not ready yet.
    fn begin(&self, inner: &mut Inner) -> Option<Option<u64>> {
        if inner.stopped {
            return Some(None);
        }
        if inner.fetch != FetchState::Wanted {
            return None;
        }
        inner.fetch = FetchState::InFlight;
        let now = self.clock.now_millis();
        inner.attempt_millis = now;
        Some(Some(inner.steps.for_fetch_at(now)))
    }

    /// Records a fetch's outcome; whether it failed (retry after a pause).
    fn finish(&self, step: u64, fetched: Result<Fetched, StoreError>) -> bool {
        let outcome =
            fetched
                .map_err(|e| e.to_string())
                .and_then(|f| match self.segment_of(step, f) {
                    Err(SegmentError::Exhausted { max_id, step, .. }) => Ok(Err((max_id, step))),
                    Err(e) => Err(e.to_string()),
                    Ok(segment) => Ok(Ok(segment)),
                });
        let mut inner = self.lock();
        let failed = match outcome {
            Ok(Ok(segment)) => {
                inner.next = Some(segment);
                self.metrics.fetched.increment(1);
                self.note_left(&inner);
                inner.fetches += 1;
                let at = inner.attempt_millis;
                inner.steps.fetched(step, at);
                inner.fetch = FetchState::Idle;
                inner.failed = 0;
                inner.last_error = None;
                false
            }
            Ok(Err(exhausted)) => {
                self.metrics.exhausted.increment(1);
                inner.exhausted = Some(exhausted);
                inner.fetch = FetchState::Idle;
                false
            }
            Err(e) => {
                self.metrics.failed.increment(1);
                inner.failed += 1;
                inner.last_error = Some(e);
                inner.fetch = FetchState::Wanted;
                true
            }
        };
        drop(inner);
        self.arrived.notify_all();
        self.arrived_signal.notify();
        failed
    }

    /// Blocks until a fetch is wanted; its step, or `None` once stopped.
    fn wait_for_request(&self) -> Option<u64> {
        let mut inner = self.lock();
        loop {
            if let Some(step) = self.begin(&mut inner) {
                return step;
            }
            inner = self
                .work
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Sleeps for `d` unless stopped first; whether it was stopped.
    fn pause(&self, d: Duration) -> bool {
        let inner = self.lock();
        let (inner, _) = self
            .work
            .wait_timeout_while(inner, d, |i| !i.stopped)
            .unwrap_or_else(PoisonError::into_inner);
        inner.stopped
    }

    fn stop(&self) {
        let mut inner = self.lock();
        inner.stopped = true;
        let waker = inner.waker.take();
        drop(inner);
        self.work.notify_all();
        self.arrived.notify_all();
        self.arrived_signal.notify();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// `fetch`, or a failure once [`SegmentOptions::fetch_timeout`] passes.
    async fn timed<R: Sleep>(
        &self,
        runtime: &R,
        fetch: impl Future<Output = Result<Fetched, StoreError>>,
    ) -> Result<Fetched, StoreError> {
        match timeout(runtime, self.fetch_timeout, fetch).await {
            Some(result) => result,
            None => Err(format!("no answer within {:?}", self.fetch_timeout).into()),
        }
    }
}

/// The step of a final, shorter segment: when a fetch of `step` found the
/// row too close to `2^63 − 1` for it, what the row has left (if any).
/// Fetching that hands out every value up to the largest ID before the
/// source reports [`SegmentError::Exhausted`].
fn final_step(fetched: &Result<Fetched, StoreError>, step: u64) -> Option<u64> {
    match fetched {
        Ok(Fetched::Exhausted { max_id }) => {
            let left = u64::try_from(i64::MAX.checked_sub(*max_id)?).ok()?;
            (left > 0 && left < step).then_some(left)
        }
        _ => None,
    }
}

/// Fetches a segment of `step`, or of what the row has left when `step`
/// no longer fits (another source may take some meanwhile: the step only
/// shrinks, so this ends); the step fetched and the outcome.
fn fetch_to_the_end<S: SegmentStore>(
    shared: &Shared,
    store: &mut S,
    mut step: u64,
) -> (u64, Result<Fetched, StoreError>) {
    loop {
        let fetched = store.fetch(&shared.request(step));
        match final_step(&fetched, step) {
            Some(left) => step = left,
            None => return (step, fetched),
        }
    }
}

/// [`fetch_to_the_end`] for an async store, each fetch bounded by the
/// fetch timeout.
async fn fetch_to_the_end_async<S: AsyncSegmentStore, R: Sleep>(
    shared: &Shared,
    store: &S,
    runtime: &R,
    mut step: u64,
) -> (u64, Result<Fetched, StoreError>) {
    loop {
        let fetched = shared
            .timed(runtime, store.fetch(&shared.request(step)))
            .await;
        match final_step(&fetched, step) {
            Some(left) => step = left,
            None => return (step, fetched),
        }
    }
}

/// The fetch thread: serves requests until stopped.
fn fetch_blocking<S: SegmentStore + 'static>(shared: &Shared, mut store: S) {
    while let Some(step) = shared.wait_for_request() {
        let (step, fetched) = fetch_to_the_end(shared, &mut store, step);
        if shared.finish(step, fetched) && shared.pause(shared.retry_every) {
            return;
        }
    }
}

/// The fetch future: serves requests until stopped.
async fn fetch_async<S: AsyncSegmentStore + 'static, R: Sleep>(
    shared: Arc<Shared>,
    store: S,
    runtime: R,
) {
    while let Some(step) = (NextRequest { shared: &shared }).await {
        let (step, fetched) = fetch_to_the_end_async(&shared, &store, &runtime, step).await;
        if shared.finish(step, fetched) {
            runtime.sleep(shared.retry_every).await;
        }
    }
}

/// Completes when a fetch is wanted (with its step) or the source stopped.
struct NextRequest<'a> {
    shared: &'a Shared,
}

impl Future for NextRequest<'_> {
    type Output = Option<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u64>> {
        let mut inner = self.shared.lock();
        match self.shared.begin(&mut inner) {
            Some(step) => Poll::Ready(step),
            None => {
                inner.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// The metrics of a segment source (labelled with its name).
#[derive(Clone, Debug, Default)]
struct SegmentMetrics {
    fetched: Counter,
    failed: Counter,
    exhausted: Counter,
    waits: Counter,
    left: Gauge,
}

impl SegmentMetrics {
    fn new(name: &str) -> Self {
        let fetches = |outcome| {
            Counter::new(
                "flakeid_segment_fetches_total",
                &[("segment", name), ("outcome", outcome)],
            )
        };
        SegmentMetrics {
            fetched: fetches("ok"),
            failed: fetches("failed"),
            exhausted: fetches("exhausted"),
            waits: Counter::new("flakeid_segment_waits_total", &[("segment", name)]),
            left: Gauge::new("flakeid_segment_values_left", &[("segment", name)]),
        }
    }
}
