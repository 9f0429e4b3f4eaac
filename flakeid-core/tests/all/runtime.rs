//! Async generation on a current-thread tokio runtime: where a blocking
//! call would hold the thread, an async one lets the runtime's other tasks
//! run — the ticker beside it keeps ticking. (Where the task that ends the
//! wait runs on the same thread — a renewal raising the ceiling, a segment
//! fetcher — is tested in flakeid-lease and flakeid-segment.)

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use flakeid_core::layout::BitLayout;
use flakeid_core::runtime::{Attempt, Sleep};
use flakeid_core::{Clock, GenerateError, Generator, IdSource, ManualClock, SequenceExhaustion};

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

/// An async call's first poll is one non-blocking attempt: with an ID at
/// hand the future is ready then, and it is a few words to create and
/// move (a call's waiting state goes to the heap only when it waits).
#[test]
fn the_first_poll_issues_an_id_at_hand_and_the_future_is_a_few_words() {
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let generator = Generator::builder(four_per_tick(), 4)
        .clock(clock.clone())
        .build()
        .unwrap();
    clock.advance(Duration::from_millis(1));
    let mut cx = Context::from_waker(Waker::noop());
    let mut next = pin!(generator.next_id_async_on(&Timers));
    let Poll::Ready(Ok(id)) = next.as_mut().poll(&mut cx) else {
        panic!("an ID was at hand")
    };
    assert_eq!(generator.layout().decompose(id).sequence, 0);
    let mut batch = pin!(generator.next_batch_async_on(3, &Timers));
    let Poll::Ready(Ok(ids)) = batch.as_mut().poll(&mut cx) else {
        panic!("three IDs were at hand")
    };
    assert_eq!(ids.count(), 3);
    // The tick is used up: the first poll says to wait (the manual clock
    // moves itself), the next issues.
    let mut after = pin!(generator.next_id_async_on(&Timers));
    assert!(after.as_mut().poll(&mut cx).is_pending());

    let word = size_of::<usize>();
    assert!(size_of_val(&generator.next_id_async_on(&Timers)) <= 4 * word);
    assert!(size_of_val(&generator.next_batch_async_on(10, &Timers)) <= 6 * word);
}
