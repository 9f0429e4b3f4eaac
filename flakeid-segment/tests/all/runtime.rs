//! Segments on a current-thread tokio runtime: an async caller waiting for
//! a segment lets the fetcher run on the same thread, and gives up after
//! the wait as a blocking caller does.

use std::time::{Duration, Instant};

use flakeid_core::runtime::Sleep;
use flakeid_segment::{MemorySegmentStore, SegmentError, SegmentIds};
use flakeid_sql::{Outage, Unreachable};

use crate::support::fixed_step;

/// tokio's timers, as any runtime's would be given (works with or without
/// the crate's `tokio` feature).
struct Timers;

impl Sleep for Timers {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime")
}

/// Segments of "orders" of `step` values each from an in-memory store
/// behind `outage`, started on the running runtime with the fetcher
/// spawned: failed fetches retried every 5 ms, callers waiting up to `wait`.
async fn orders_behind(outage: &Outage, step: u64, wait: Duration) -> SegmentIds {
    let store = MemorySegmentStore::new().behind(outage);
    let options = fixed_step("orders", step)
        .retry_every(Duration::from_millis(5))
        .wait(wait);
    let (ids, fetcher) = options.start_async(store, Timers).await.unwrap();
    tokio::spawn(fetcher);
    ids
}

#[test]
fn an_async_caller_waits_for_the_segment_in_flight_while_the_fetcher_runs() {
    let outage = Outage::new();
    let runtime = current_thread();
    let values = runtime.block_on(async {
        let ids = orders_behind(&outage, 2, Duration::from_secs(10)).await;
        let mut values = vec![ids.next_value_async_on(&Timers).await.unwrap()];
        // The store goes down: the prefetch fails and is retried.
        outage.start();
        values.push(ids.next_value_async_on(&Timers).await.unwrap());
        let back = {
            let outage = outage.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                outage.end();
            })
        };
        // Both segments used up: this waits for the fetcher, on this thread.
        let started = Instant::now();
        values.push(ids.next_value_async_on(&Timers).await.unwrap());
        assert!(started.elapsed() >= Duration::from_millis(40));
        back.await.unwrap();
        values
    });
    assert_eq!(values, [1, 2, 3]);
}

#[test]
fn an_async_caller_gives_up_on_segments_after_the_wait_as_next_value_does() {
    let outage = Outage::new();
    let runtime = current_thread();
    runtime.block_on(async {
        let ids = orders_behind(&outage, 1, Duration::from_millis(30)).await;
        outage.start();
        assert_eq!(ids.next_value_async_on(&Timers).await.unwrap(), 1);
        let started = Instant::now();
        let e = ids.next_value_async_on(&Timers).await.unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(30));
        match e {
            SegmentError::Unavailable {
                failed_fetches,
                last_error,
                ..
            } => {
                assert!(failed_fetches >= 1);
                assert_eq!(
                    last_error.as_deref(),
                    Some(Unreachable.to_string().as_str())
                );
            }
            other => panic!("{other:?}"),
        }
    });
}
