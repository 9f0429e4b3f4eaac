//! The double buffer: a segment served lock-free, the next one fetched in
//! the background, and the options that start it.

mod fetch;
mod ids;
mod options;

use core::task::Waker;
use core::time::Duration;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::error::SegmentError;
use super::step::StepState;
use super::store::{FetchRequest, Fetched, Segment};
use crate::cursor::Cursor;
use flakeid_core::__private::{Counter, Gauge, Signal, note_blocking_wait, timeout};
use flakeid_core::Clock;
use flakeid_core::runtime::{Sleep, Wait};
use flakeid_sql::StoreError;

pub use ids::{SegmentIds, SegmentStats};
pub use options::SegmentOptions;

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
