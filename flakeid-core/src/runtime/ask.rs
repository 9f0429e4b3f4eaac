//! The one future of every async call: it asks a non-blocking core until
//! it gives a value ([`Ask`], [`ask`]), waiting between attempts on the
//! runtime's timer or for a [`Signal`](super::Signal); [`until_ready`] is
//! the same for a pair of closures.
//!
//! The future's first poll is one attempt, inlined into the caller's poll:
//! a call that needs no wait is ready then and costs about what the
//! attempt costs. Only a call that has to wait moves its state (the
//! attempt, the timers' sleeps) to the heap, so the future of every call
//! is small to create and move.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::time::Instant;

use super::signal::timeout;
use super::{Attempt, Sleep, Wait, WaitKind};

/// What an async call asks until it is ready: a non-blocking attempt, and
/// the answer once an event wait has lasted its bound (the non-blocking
/// call's: the value if it has just become available, else the error
/// that says why not).
pub(crate) trait Ask {
    type Output;
    type Error;

    /// One attempt: the value, or what to wait for before the next.
    fn attempt(&mut self) -> Result<Attempt<Self::Output>, Self::Error>;

    /// The answer after an event wait lasted its bound.
    fn give_up(self) -> Result<Self::Output, Self::Error>;
}

/// Asks `what` until it gives a value, waiting as it says on `timers`.
pub(crate) fn ask<A: Ask, R: Sleep>(
    timers: &R,
    what: A,
) -> impl Future<Output = Result<A::Output, A::Error>> {
    Asking {
        timers,
        start: Some((what, wait_until_ready::<A, R>)),
        waiting: Waiting(None),
    }
}

/// Asks `attempt` until it gives a value, waiting as it says on `timers`.
/// Once an event wait has lasted its bound, `give_up` gives the answer (the
/// non-blocking call's: the value if it has just become available, else
/// the error that says why not). Its first poll is one attempt: a call
/// that needs no wait is ready then, and only a call that has to wait moves
/// its state to the heap.
pub fn until_ready<T, E, R: Sleep>(
    timers: &R,
    attempt: impl FnMut() -> Result<Attempt<T>, E>,
    give_up: impl FnOnce() -> Result<T, E>,
) -> impl Future<Output = Result<T, E>> {
    ask(timers, Closures(attempt, give_up))
}

/// A pair of closures as an [`Ask`].
struct Closures<F, G>(F, G);

impl<T, E, F, G> Ask for Closures<F, G>
where
    F: FnMut() -> Result<Attempt<T>, E>,
    G: FnOnce() -> Result<T, E>,
{
    type Output = T;
    type Error = E;

    #[inline(always)]
    fn attempt(&mut self) -> Result<Attempt<T>, E> {
        (self.0)()
    }

    #[inline(always)]
    fn give_up(self) -> Result<T, E> {
        (self.1)()
    }
}

/// The future of [`ask`]: the first attempt, then, when it was not ready,
/// the wait that `M` makes of it (the rest of the call, on the heap).
struct Asking<'t, R, A, M, W> {
    timers: &'t R,
    /// What is asked and what makes the wait; taken by the first attempt
    /// that is not ready, or by the end of the call.
    start: Option<(A, M)>,
    waiting: Waiting<W>,
}

/// The state of a call that had to wait; dropped out of line, so that the
/// future of a call that never waited is dropped inline at no cost.
struct Waiting<W>(Option<Pin<Box<W>>>);

impl<W> Drop for Waiting<W> {
    #[inline]
    fn drop(&mut self) {
        if let Some(wait) = self.0.take() {
            drop_wait(wait);
        }
    }
}

#[cold]
#[inline(never)]
fn drop_wait<W>(wait: Pin<Box<W>>) {
    drop(wait);
}

// `A` and `M` are moved, never pinned; the wait is pinned in its box.
impl<R, A, M, W> Unpin for Asking<'_, R, A, M, W> {}

impl<'t, R, A, M, W> Asking<'t, R, A, M, W>
where
    A: Ask,
    M: FnOnce(Attempt<A::Output>, &'t R, A) -> W,
    W: Future<Output = Result<A::Output, A::Error>>,
{
    /// Moves the call to the heap after a `first` attempt that was not ready.
    #[cold]
    #[inline(never)]
    fn begin_wait(&mut self, first: Attempt<A::Output>) {
        if let Some((what, make)) = self.start.take() {
            self.waiting.0 = Some(Box::pin(make(first, self.timers, what)));
        }
    }

    #[inline(never)]
    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<Result<A::Output, A::Error>> {
        match &mut self.waiting.0 {
            Some(wait) => wait.as_mut().poll(cx),
            None => panic!("an async flakeid call was polled after it completed"),
        }
    }
}

impl<'t, R, A, M, W> Future for Asking<'t, R, A, M, W>
where
    A: Ask,
    M: FnOnce(Attempt<A::Output>, &'t R, A) -> W,
    W: Future<Output = Result<A::Output, A::Error>>,
{
    type Output = Result<A::Output, A::Error>;

    // Always: the first attempt is the whole call when no wait is needed,
    // and a task's poll inlines it as a blocking caller inlines the call.
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some((what, _)) = &mut this.start {
            match what.attempt() {
                Ok(Attempt::Ready(v)) => {
                    this.start = None;
                    return Poll::Ready(Ok(v));
                }
                Err(e) => {
                    this.start = None;
                    return Poll::Ready(Err(e));
                }
                Ok(not_yet) => this.begin_wait(not_yet),
            }
        }
        this.poll_wait(cx)
    }
}

/// The rest of [`ask`] after a `first` attempt that was not ready.
async fn wait_until_ready<A: Ask, R: Sleep>(
    first: Attempt<A::Output>,
    timers: &R,
    mut what: A,
) -> Result<A::Output, A::Error> {
    let mut waiting_since: Option<Instant> = None;
    let mut next = first;
    loop {
        match next {
            Attempt::Ready(v) => return Ok(v),
            Attempt::ReadyAfter(v, d) => {
                if !d.is_zero() {
                    timers.sleep(d).await;
                }
                return Ok(v);
            }
            Attempt::Wait(Wait(WaitKind::Sleep(d))) => {
                if d.is_zero() {
                    yield_now().await;
                } else {
                    timers.sleep(d).await;
                }
            }
            Attempt::Wait(Wait(WaitKind::Signal { signal, seen, max })) => {
                let since = *waiting_since.get_or_insert_with(Instant::now);
                let left = max.saturating_sub(since.elapsed());
                if left.is_zero() {
                    return what.give_up();
                }
                // Woken by the event, or by the bound passing.
                let _ = timeout(timers, left, signal.changed(seen)).await;
            }
        }
        next = what.attempt()?;
    }
}

/// Completes on its second poll, letting the executor run other tasks first.
async fn yield_now() {
    let mut yielded = false;
    core::future::poll_fn(|cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await
}
