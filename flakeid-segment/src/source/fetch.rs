//! The background fetch: a thread for a blocking store, a future for an
//! async one, each fetching the next segment whenever one is wanted.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::sync::Arc;

use super::Shared;
use crate::store::{AsyncSegmentStore, Fetched, SegmentStore};
use flakeid_core::runtime::Sleep;
use flakeid_sql::StoreError;

/// Fetches a segment of `step`, or of what the row has left when `step`
/// no longer fits (another source may take some meanwhile: the step only
/// shrinks, so this ends); the step fetched and the outcome.
pub(super) fn fetch_to_the_end<S: SegmentStore>(
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
pub(super) async fn fetch_to_the_end_async<S: AsyncSegmentStore, R: Sleep>(
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
pub(super) fn fetch_blocking<S: SegmentStore + 'static>(shared: &Shared, mut store: S) {
    while let Some(step) = shared.wait_for_request() {
        let (step, fetched) = fetch_to_the_end(shared, &mut store, step);
        if shared.finish(step, fetched) && shared.pause(shared.retry_every) {
            return;
        }
    }
}

/// The fetch future: serves requests until stopped.
pub(super) async fn fetch_async<S: AsyncSegmentStore + 'static, R: Sleep>(
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

/// The step of a final, shorter segment: when a fetch of `step` found the
/// row too close to `2^63 − 1` for it, what the row has left (if any).
/// Fetching that hands out every value up to the largest ID before the
/// source reports [`SegmentError::Exhausted`](crate::SegmentError::Exhausted).
fn final_step(fetched: &Result<Fetched, StoreError>, step: u64) -> Option<u64> {
    match fetched {
        Ok(Fetched::Exhausted { max_id }) => {
            let left = u64::try_from(i64::MAX.checked_sub(*max_id)?).ok()?;
            (left > 0 && left < step).then_some(left)
        }
        _ => None,
    }
}
