//! What flakeid needs from an async runtime: timers. The async renewal of
//! node leases ([`LeaseOptions::claim_async`](crate::node::LeaseOptions::claim_async))
//! and the async prefetch of segments
//! ([`SegmentOptions::start_async`](crate::segment::SegmentOptions::start_async))
//! wait on the application runtime's timers, never on a blocking sleep.

use core::future::Future;
use core::pin::pin;
use core::task::Poll;
use core::time::Duration;

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
/// use flakeid_core::segment::{MemorySegmentStore, SegmentOptions};
/// use flakeid_core::runtime::{Sleep, TokioSleep};
///
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
/// runtime.block_on(async {
///     // What `SegmentOptions::start_on_tokio` does: tokio's timers, the fetcher a tokio task.
///     let options = SegmentOptions::new("orders").step(100);
///     let (ids, fetcher) = options.start_async(MemorySegmentStore::new(), TokioSleep).await?;
///     tokio::spawn(fetcher);
///     assert_eq!(ids.next_value()?, 1);
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

#[cfg(feature = "tokio")]
impl Sleep for TokioSleep {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// `fut`'s output, or `None` if `d` passes first.
pub(crate) async fn timeout<T, R: Sleep>(
    runtime: &R,
    d: Duration,
    fut: impl Future<Output = T>,
) -> Option<T> {
    let mut fut = pin!(fut);
    let mut sleep = pin!(runtime.sleep(d));
    core::future::poll_fn(|cx| {
        if let Poll::Ready(v) = fut.as_mut().poll(cx) {
            return Poll::Ready(Some(v));
        }
        sleep.as_mut().poll(cx).map(|()| None)
    })
    .await
}
