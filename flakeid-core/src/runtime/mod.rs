//! What flakeid needs from an async runtime: timers, and a way to wait for
//! IDs without blocking one of its threads.
//!
//! * The async renewal of node leases
//!   (`LeaseOptions::claim_async` in `flakeid-lease`)
//!   and the async prefetch of segments
//!   (`SegmentOptions::start_async` in `flakeid-segment`)
//!   wait on the application runtime's timers ([`Sleep`]), never on a
//!   blocking sleep.
//! * Async generation (`UserId::generate_async()`,
//!   [`Generator::next_id_async`](crate::Generator::next_id_async), …)
//!   shares the non-blocking core of the `try_` methods: an [`Attempt`]
//!   gives an ID at once or says what to [`Wait`] for — time passing (the
//!   next tick, a clock that went back), or an event (a lease's ceiling
//!   raised, a segment fetched, a lost node replaced) — and the async
//!   caller waits for it on the runtime's timer, then asks again.
//!
//! # Which call where
//!
//! | code | call | when no ID is at hand |
//! |---|---|---|
//! | async (axum handlers, SeaORM, diesel-async) | `generate_async().await`, `next_id_async().await` | the task waits on the runtime's timer; the thread runs other tasks |
//! | synchronous (threads, Diesel, scripts) | `generate()`, `next_id()` | the thread sleeps or waits on a condition variable |
//! | either, never waiting | `try_generate()`, `try_next_id()` | [`GenerateError::WouldBlock`](crate::GenerateError::WouldBlock) (or `Fenced` at a lease's ceiling) |
//!
//! A blocking `generate()` inside an async task holds up the whole thread
//! while it waits: every task queued on that thread with it, for up to one
//! tick when a tick's sequence is used up, for a batch's whole span, and
//! for up to the lease's [`CeilingWait`](crate::CeilingWait) (1 s by
//! default) while a lease renews late. On a current-thread runtime that
//! thread is also the one the lease's renewal task needs, so such a
//! call cannot be ended by the renewal it waits for and fails with
//! [`GenerateError::Fenced`](crate::GenerateError::Fenced) after its wait.
//! Debug builds with the `tokio` feature log a warning (once per process)
//! the first time a blocking call waits inside a tokio runtime; code in
//! `spawn_blocking` may ignore it.

pub(crate) mod ask;
pub(crate) mod signal;

use core::future::Future;
#[cfg(feature = "tokio")]
use core::task::{Poll, Waker};
use core::time::Duration;
use std::sync::Arc;
#[cfg(feature = "tokio")]
use std::sync::{Mutex, PoisonError};
#[cfg(feature = "tokio")]
use std::time::Instant;

pub(crate) use ask::{Ask, ask, until_ready};
pub(crate) use signal::{Signal, note_blocking_wait};

/// Timers for the async renewal and prefetch tasks, from the application's
/// runtime (the ORM crates supply tokio's).
///
/// ```
/// use std::task::Poll;
/// use std::time::{Duration, Instant};
/// use flakeid_core::runtime::Sleep;
///
/// /// Timers on plain threads, for a runtime without timers of its own.
/// struct ThreadTimers;
///
/// impl Sleep for ThreadTimers {
///     fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
///         let deadline = Instant::now() + duration;
///         std::future::poll_fn(move |cx| {
///             let left = deadline.saturating_duration_since(Instant::now());
///             if left.is_zero() {
///                 return Poll::Ready(());
///             }
///             let waker = cx.waker().clone();
///             std::thread::spawn(move || { std::thread::sleep(left); waker.wake() });
///             Poll::Pending
///         })
///     }
/// }
///
/// # // A minimal executor; an application has its runtime's.
/// # fn block_on<F: Future>(future: F) -> F::Output {
/// #     struct Unpark(std::thread::Thread);
/// #     impl std::task::Wake for Unpark { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
/// #     let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
/// #     let mut future = std::pin::pin!(future);
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     loop {
/// #         if let Poll::Ready(v) = future.as_mut().poll(&mut cx) { return v }
/// #         std::thread::park();
/// #     }
/// # }
/// let started = Instant::now();
/// block_on(ThreadTimers.sleep(Duration::from_millis(2)));
/// assert!(started.elapsed() >= Duration::from_millis(2));
/// ```
pub trait Sleep: Send + Sync + 'static {
    /// Completes after `duration`.
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send;
}

/// tokio's timers (feature `tokio`).
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::layout::presets;
/// use flakeid_core::runtime::{Sleep, TokioSleep};
/// use flakeid_core::Generator;
///
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
/// runtime.block_on(async {
///     // What `Generator::next_id_async` waits on: tokio's timers, not a blocked thread.
///     let generator = Generator::builder(presets::twitter(), 1).build()?;
///     let id = generator.next_id_async_on(&TokioSleep).await?;
///     assert_eq!(presets::twitter().decompose(id).node, 1);
///     let started = tokio::time::Instant::now();
///     TokioSleep.sleep(Duration::from_millis(2)).await;
///     assert!(started.elapsed() >= Duration::from_millis(2));
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "tokio")]
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleep;

/// Inside a tokio runtime (with its time driver) tokio's timer; outside
/// one (a future polled by another executor) a thread of its own per wait,
/// so that nothing panics and no executor thread blocks.
#[cfg(feature = "tokio")]
impl Sleep for TokioSleep {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        let on_tokio = tokio::runtime::Handle::try_current().is_ok();
        let mut tokio_sleep = on_tokio.then(|| Box::pin(tokio::time::sleep(duration)));
        let mut thread_sleep = (!on_tokio).then(|| ThreadSleep::new(duration));
        core::future::poll_fn(move |cx| match (&mut tokio_sleep, &mut thread_sleep) {
            (Some(sleep), _) => sleep.as_mut().poll(cx),
            (None, Some(sleep)) => sleep.poll(cx),
            (None, None) => Poll::Ready(()),
        })
    }
}

/// What an async caller waits for before it asks a source again: time
/// passing (a new tick, a clock that went back, a batch reserved ahead of
/// the clock) or an event the source is waiting for (a lease's ceiling
/// raised, a segment fetched, a lost node replaced), up to the source's
/// own bound. See [`Attempt`].
///
/// A source of your own makes one with [`Wait::sleep`]:
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::runtime::Wait;
///
/// let wait = Wait::sleep(Duration::from_millis(3));
/// assert_eq!(wait.duration(), Some(Duration::from_millis(3)));
/// ```
#[derive(Debug, Clone)]
pub struct Wait(WaitKind);

impl Wait {
    /// Ask again after `duration`.
    pub fn sleep(duration: Duration) -> Wait {
        Wait(WaitKind::Sleep(duration))
    }

    /// Ask again once `signal` fired after it read `seen`, or `max` after
    /// the call's first such wait (the call then gives up).
    #[doc(hidden)]
    pub fn signal(signal: &Arc<Signal>, seen: u64, max: Duration) -> Wait {
        Wait(WaitKind::Signal {
            signal: signal.clone(),
            seen,
            max,
        })
    }

    /// How long to sleep, for a wait for time passing; `None` for a wait
    /// for an event.
    pub fn duration(&self) -> Option<Duration> {
        match self.0 {
            WaitKind::Sleep(d) => Some(d),
            WaitKind::Signal { .. } => None,
        }
    }
}

/// One non-blocking attempt of an async caller: the value, the value once
/// some time has passed, or what to wait for before asking again.
///
/// [`IdSource::attempt_next_id`](crate::IdSource::attempt_next_id) answers
/// with one; `generate_async` and the other `*_async` methods wait as it
/// says on the runtime's timer and ask again:
///
/// ```
/// use std::sync::Arc;
/// use flakeid_core::layout::presets;
/// use flakeid_core::runtime::Attempt;
/// use flakeid_core::{Generator, IdSource, ManualClock};
///
/// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
/// let generator = Generator::builder(presets::twitter(), 1).clock(clock.clone()).build()?;
/// // No ID in the millisecond the generator was built in: wait for the next.
/// let Attempt::Wait(wait) = generator.attempt_next_id()? else { panic!("no ID yet") };
/// // A manual clock moves itself forward rather than have the caller sleep.
/// assert_eq!(wait.duration(), Some(std::time::Duration::ZERO));
/// assert!(matches!(generator.attempt_next_id()?, Attempt::Ready(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum Attempt<T> {
    /// The value.
    Ready(T),
    /// The value, reserved now, to be handed out after the duration: the
    /// IDs of a batch reserved ahead of the clock are due when the clock
    /// reaches the batch's last tick.
    ReadyAfter(T, Duration),
    /// Nothing yet: ask again after the wait.
    Wait(Wait),
}

impl<T> Attempt<T> {
    /// The value, changed by `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Attempt<U> {
        match self {
            Attempt::Ready(v) => Attempt::Ready(f(v)),
            Attempt::ReadyAfter(v, d) => Attempt::ReadyAfter(f(v), d),
            Attempt::Wait(w) => Attempt::Wait(w),
        }
    }
}

/// A sleep without a runtime's timer: a thread that sleeps and then wakes
/// the task (what [`TokioSleep`] does outside a tokio runtime).
#[cfg(feature = "tokio")]
struct ThreadSleep {
    deadline: Instant,
    started: Option<Arc<Mutex<Option<Waker>>>>,
}

#[cfg(feature = "tokio")]
impl ThreadSleep {
    fn new(duration: Duration) -> Self {
        let now = Instant::now();
        ThreadSleep {
            deadline: now.checked_add(duration).unwrap_or(now),
            started: None,
        }
    }

    fn poll(&mut self, cx: &mut core::task::Context<'_>) -> Poll<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Poll::Ready(());
        }
        match &self.started {
            Some(waker) => {
                *waker.lock().unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
            }
            None => {
                let waker = Arc::new(Mutex::new(Some(cx.waker().clone())));
                let shared = waker.clone();
                let spawned = std::thread::Builder::new()
                    .name("flakeid-sleep".into())
                    .spawn(move || {
                        std::thread::sleep(left);
                        let waker = shared.lock().unwrap_or_else(PoisonError::into_inner).take();
                        if let Some(w) = waker {
                            w.wake();
                        }
                    });
                if spawned.is_err() {
                    // No thread to be had: poll again soon rather than never.
                    cx.waker().wake_by_ref();
                }
                self.started = Some(waker);
            }
        }
        Poll::Pending
    }
}

#[derive(Debug, Clone)]
enum WaitKind {
    Sleep(Duration),
    Signal {
        signal: Arc<Signal>,
        seen: u64,
        max: Duration,
    },
}
