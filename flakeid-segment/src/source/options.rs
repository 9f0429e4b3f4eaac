//! [`SegmentOptions`]: how to start a segment source, checked before the
//! first fetch.

use core::future::Future;
use core::time::Duration;
use std::sync::{Arc, Condvar, Mutex};

use super::fetch::{fetch_async, fetch_blocking, fetch_to_the_end, fetch_to_the_end_async};
use super::{FetchState, Inner, SegmentIds, SegmentMetrics, Shared};
use crate::cursor::{Cursor, MAX_RANGE_LEN};
use crate::error::SegmentError;
use crate::step::{StepPolicy, StepState};
use crate::store::{AsyncSegmentStore, SegmentStore};
use flakeid_core::runtime::Sleep;
use flakeid_core::{Clock, MonotonicClock};

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
