//! Async generation on a current-thread tokio runtime: where a blocking
//! call would hold the thread, an async one lets the runtime's other tasks
//! run — the ticker beside it keeps ticking, and the task that ends the
//! wait (a renewal raising the ceiling, a segment fetcher) gets to run on
//! the same thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use flakeid_core::layout::BitLayout;
use flakeid_core::runtime::{Attempt, Sleep};
use flakeid_schemes::TraceIdGenerator;
use flakeid_segment::{MemorySegmentStore, SegmentError, SegmentIds};
use flakeid_sql::{Outage, StoreError, Unreachable};
use flakeid_core::{Clock, GenerateError, Generator, IdSource, ManualClock, SequenceExhaustion};

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

/// Twitter's field widths with 2 sequence bits: 4 IDs per millisecond.
fn four_per_tick() -> BitLayout {
    BitLayout::builder()
        .time_bits(51)
        .node_bits(10)
        .sequence_bits(2)
        .epoch_millis(1_288_834_974_657) // Twitter's
        .build()
        .expect("a layout")
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

/// Runs `work` on `runtime` beside a task that counts how often it ran
/// (once a millisecond at most) while `work` waited; returns what `work`
/// returned and that count.
fn beside_a_ticker<T>(
    runtime: &tokio::runtime::Runtime,
    work: impl Future<Output = T>,
) -> (T, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let ticks = Arc::new(AtomicU64::new(0));
    let (stopped, counted) = (stop.clone(), ticks.clone());
    let ticker = async move {
        while !stopped.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(1)).await;
            counted.fetch_add(1, Ordering::Relaxed);
        }
    };
    runtime.block_on(async {
        let ticking = tokio::spawn(ticker);
        let out = work.await;
        stop.store(true, Ordering::Relaxed);
        ticking.await.unwrap();
        (out, ticks.load(Ordering::Relaxed))
    })
}

#[test]
fn a_used_up_tick_is_waited_for_on_the_timer_while_other_tasks_run() {
    let generator = Generator::builder(four_per_tick(), 3).build().unwrap();
    let runtime = current_thread();
    let (ids, ticks) = beside_a_ticker(&runtime, async {
        let mut ids = Vec::new();
        for _ in 0..200 {
            ids.push(generator.next_id_async_on(&Timers).await.unwrap());
        }
        ids
    });
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "increasing");
    // 200 IDs at 4 per tick take at least 50 ticks, waited on the timer.
    let first = generator.layout().decompose(ids[0]).tick;
    let last = generator.layout().decompose(ids[199]).tick;
    assert!(last - first >= 49, "{first}..{last}");
    // Had the waits blocked the thread, the ticker would run once at most,
    // after the loop. Two or more: it ran during the waits (how often
    // depends on how often a loaded machine runs this thread: 9 times in
    // 64 ticks on a CI machine running other tests, where this asked for
    // 10; as in the batch test below).
    assert!(
        ticks >= 2,
        "the ticker ran only {ticks} times while 200 IDs took {} ticks",
        last - first
    );
}

#[test]
fn an_attempt_says_how_long_to_wait_and_a_manual_clock_moves_itself() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let generator = Generator::builder(four_per_tick(), 1)
        .clock(clock.clone())
        .build()
        .unwrap();
    // The build tick: wait for the next one; the manual clock jumps there.
    let Attempt::Wait(wait) = generator.attempt_next_id().unwrap() else {
        panic!("no ID in the build tick")
    };
    assert_eq!(wait.duration(), Some(Duration::ZERO));
    assert_eq!(clock.now_millis(), 1_700_000_000_001);
    for _ in 0..4 {
        assert!(matches!(generator.attempt_next_id(), Ok(Attempt::Ready(_))));
    }
    assert!(matches!(generator.attempt_next_id(), Ok(Attempt::Wait(_))));
    // With the clock's own time, the wait is what is left of the tick.
    let real = Generator::builder(four_per_tick(), 1).build().unwrap();
    match real.attempt_next_id().unwrap() {
        Attempt::Wait(w) => assert!(w.duration().unwrap() <= Duration::from_millis(1)),
        Attempt::Ready(_) => {} // the build tick ended between the two calls
        other => panic!("{other:?}"),
    }
    // Under SequenceExhaustion::Fail an attempt fails as next_id does.
    let failing = Generator::builder(four_per_tick(), 1)
        .clock(clock.clone())
        .sequence_exhaustion(SequenceExhaustion::Fail)
        .build()
        .unwrap();
    clock.advance(Duration::from_millis(1));
    for _ in 0..4 {
        failing.attempt_next_id().unwrap();
    }
    assert!(matches!(
        failing.attempt_next_id(),
        Err(GenerateError::SequenceExhausted { .. })
    ));
}

#[test]
fn an_async_batch_reserved_ahead_is_due_when_its_last_tick_is() {
    let generator = Generator::builder(four_per_tick(), 2).build().unwrap();
    let runtime = current_thread();
    let ((ids, elapsed), ticks) = beside_a_ticker(&runtime, async {
        let started = Instant::now();
        let ids: Vec<u64> = generator
            .next_batch_async_on(400, &Timers)
            .await
            .unwrap()
            .collect();
        (ids, started.elapsed())
    });
    assert_eq!(ids.len(), 400);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let layout = generator.layout();
    let span = layout.decompose(ids[399]).tick - layout.decompose(ids[0]).tick;
    assert!(
        span >= 99,
        "400 IDs at 4 per tick span 100 ticks, not {span}"
    );
    // Returned no earlier than the last tick is due (less the catch-up the first IDs may use).
    assert!(
        elapsed >= Duration::from_millis(span - 11),
        "{elapsed:?} for {span} ticks"
    );
    // Had the wait blocked the thread, the ticker's first sleep would end
    // only after it: one tick. Two or more: it ran during the wait of about
    // 100 ms (how many depends on how often a loaded machine runs this
    // thread; it would have to leave it unscheduled for the whole wait).
    assert!(ticks >= 2, "the ticker did not run while the batch was due");
    // An empty batch and a too large one answer at once.
    assert_eq!(
        runtime
            .block_on(generator.next_batch_async_on(0, &Timers))
            .unwrap()
            .count(),
        0
    );
    assert!(matches!(
        runtime.block_on(generator.next_batch_async_on(usize::MAX, &Timers)),
        Err(GenerateError::BatchTooLarge { .. })
    ));
}

#[test]
fn a_source_of_ids_gives_batches_to_async_callers_in_parts() {
    // A TraceId generator reserves no batches: the default asks ID by ID.
    let traces = TraceIdGenerator::builder(7).threads(4).build().unwrap();
    let source: &dyn IdSource = &traces;
    let runtime = current_thread();
    let ids = runtime.block_on(async {
        let mut ids = Vec::new();
        while ids.len() < 5 {
            match source.attempt_next_ids(5 - ids.len()).unwrap() {
                Attempt::Ready(more) => ids.extend(more),
                Attempt::Wait(w) => {
                    // Its first second: it waits for the next one.
                    tokio::time::sleep(w.duration().expect("a wait for time")).await;
                }
                other => panic!("{other:?}"),
            }
        }
        ids
    });
    assert_eq!(ids.len(), 5);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
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

/// A lease store whose every renewal is answered `delay` after it was
/// sent (a reconnect on a loaded machine), counting how many wait at once.
#[derive(Clone)]
struct SlowRenewals {
    store: flakeid_lease::MemoryLeaseStore,
    delay: Duration,
    waiting: Arc<AtomicU64>,
    most_waiting: Arc<AtomicU64>,
}

impl flakeid_lease::AsyncLeaseStore for SlowRenewals {
    fn ensure_nodes(
        &self,
        space: &str,
        nodes: std::ops::RangeInclusive<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.store.ensure_nodes(space, nodes)
    }

    fn try_claim(
        &self,
        request: &flakeid_lease::ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<flakeid_lease::NodeRow>, StoreError>> + Send {
        self.store.try_claim(request)
    }

    fn renew(
        &self,
        request: &flakeid_lease::RenewRequest<'_>,
    ) -> impl Future<Output = Result<flakeid_lease::Renewal, StoreError>> + Send {
        let n = self.waiting.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_waiting.fetch_max(n, Ordering::SeqCst);
        let (delay, waiting) = (self.delay, self.waiting.clone());
        // Applied at once, answered after the delay.
        let answer = flakeid_lease::AsyncLeaseStore::renew(&self.store, request);
        async move {
            tokio::time::sleep(delay).await;
            waiting.fetch_sub(1, Ordering::SeqCst);
            answer.await
        }
    }

    fn release(
        &self,
        request: &flakeid_lease::ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.store.release(request)
    }

    fn list(
        &self,
        space: &str,
    ) -> impl Future<Output = Result<flakeid_lease::NodeTable, StoreError>> + Send {
        self.store.list(space)
    }
}

/// Renewals that take longer than the renewal interval still get
/// through: each interval starts one while the earlier ones wait, and the
/// ceiling stays ahead of the clock, so a generator that fails at its
/// ceiling never fails. (Dropping a renewal at the interval would renew
/// nothing, and the generator would stop at the claim's ceiling.) The
/// lease-by-lease protocol over many latencies is the seeded simulation in
/// `flakeid-core/src/node/lease/renewal_simulation.rs`.
#[test]
fn async_renewals_slower_than_the_interval_overlap_and_keep_the_ceiling_ahead() {
    use flakeid_core::layout::presets;
    use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};
    use flakeid_core::{CeilingWait, MonotonicClock};

    let store = SlowRenewals {
        store: MemoryLeaseStore::new(),
        delay: Duration::from_millis(120),
        waiting: Arc::default(),
        most_waiting: Arc::default(),
    };
    let most_waiting = store.most_waiting.clone();
    current_thread().block_on(async move {
        // Renewals take 2.4 intervals; the ceiling leads by 12 intervals,
        // the claim's own ceiling covering only the first 0.6 s of the 3 s.
        let options = LeaseOptions::new("slow-renewals", presets::twitter())
            .nodes(0..=0)
            .clock(MonotonicClock::new())
            .ttl(Duration::from_secs(5))
            .renew_every(Duration::from_millis(50))
            .ceiling_lead(Duration::from_millis(600))
            .at_ceiling(CeilingWait::Fail);
        let (lease, renewal) = options.claim_async(store, Timers).await.expect("a node");
        tokio::spawn(renewal);
        let generator = lease.generator_builder().build().expect("a generator");
        let started = Instant::now();
        let mut issued = 0u64;
        while started.elapsed() < Duration::from_secs(3) {
            generator
                .next_id()
                .unwrap_or_else(|e| panic!("after {:?}, {issued} IDs: {e}", started.elapsed()));
            issued += 1;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let now = MonotonicClock::new().now_millis();
        match lease.status() {
            LeaseStatus::Held { ceiling_millis, .. }
            | LeaseStatus::RenewingLate { ceiling_millis, .. } => {
                assert!(
                    ceiling_millis > now,
                    "ceiling {ceiling_millis} not ahead of {now}"
                );
            }
            other => panic!("{other}"),
        }
        lease.release(&generator).await.expect("release");
    });
    assert!(
        most_waiting.load(Ordering::SeqCst) >= 2,
        "the renewals never overlapped"
    );
}
