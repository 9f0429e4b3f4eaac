//! The plumbing of async waits that the generator, node leases and
//! segments share: the event async callers wait for ([`Signal`]), a
//! timeout on the runtime's timer, and the warning about blocking calls in
//! a runtime. The future that asks an [`Attempt`](super::Attempt) until it
//! is ready is in `ask.rs`.

use core::future::Future;
use core::pin::pin;
use core::task::{Poll, Waker};
use core::time::Duration;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::Sleep;

/// An event async callers wait for: a counter moved by [`notify`](Self::notify)
/// and the wakers of the tasks waiting for it to move.
#[derive(Debug, Default)]
pub struct Signal {
    generation: AtomicU64,
    wakers: Mutex<Vec<Waker>>,
}

impl Signal {
    /// The counter now: read it before checking the condition waited for,
    /// and wait with [`changed`](Self::changed) from it, so that no event
    /// between the check and the wait is missed.
    pub fn seen(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Moves the counter and wakes every task waiting for it. Call it after
    /// the change the waiters are waiting for.
    pub fn notify(&self) {
        let mut wakers = self.wakers.lock().unwrap_or_else(PoisonError::into_inner);
        self.generation.fetch_add(1, Ordering::Release);
        let woken = core::mem::take(&mut *wakers);
        drop(wakers);
        for waker in woken {
            waker.wake();
        }
    }

    /// Completes once the counter is no longer `seen`.
    pub fn changed(&self, seen: u64) -> impl Future<Output = ()> + Send + '_ {
        core::future::poll_fn(move |cx| {
            if self.seen() != seen {
                return Poll::Ready(());
            }
            let mut wakers = self.wakers.lock().unwrap_or_else(PoisonError::into_inner);
            // Under the lock `notify` moves the counter in: no event is lost.
            if self.generation.load(Ordering::Relaxed) != seen {
                return Poll::Ready(());
            }
            if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                wakers.push(cx.waker().clone());
            }
            Poll::Pending
        })
    }
}

/// Warns once per process (debug builds with the `tokio` feature) that a
/// blocking call is about to wait on a thread that runs a tokio runtime.
#[inline]
pub fn note_blocking_wait(call: &'static str) {
    #[cfg(all(feature = "tokio", debug_assertions))]
    {
        use std::sync::atomic::AtomicBool;
        static WARNED: AtomicBool = AtomicBool::new(false);
        if tokio::runtime::Handle::try_current().is_ok() && !WARNED.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                call,
                "a blocking flakeid call waits inside a tokio runtime and holds up its thread; \
                 in async code use the `*_async` twin (`generate_async`, `next_id_async`, …); \
                 inside `spawn_blocking` this is fine"
            );
        }
    }
    #[cfg(not(all(feature = "tokio", debug_assertions)))]
    let _ = call;
}

/// `fut`'s output, or `None` if `d` passes first.
pub async fn timeout<T, R: Sleep>(
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
