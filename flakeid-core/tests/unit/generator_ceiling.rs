//! The ceiling seen from its generator.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::*;
use crate::error::GenerateError;
use crate::layout::{BitLayout, presets};
use crate::{ConfigError, Generator, ManualClock};

const T0: u64 = 1_700_000_000_000;

/// A generator of node `node` on `clock`, under a fresh ceiling with
/// `wait`.
fn under(
    clock: &Arc<ManualClock>,
    wait: CeilingWait,
    node: u64,
) -> (Arc<Ceiling>, Generator<BitLayout, Arc<ManualClock>>) {
    let ceiling = Arc::new(Ceiling::new(wait));
    let g = Generator::builder(presets::twitter(), node)
        .clock(clock.clone())
        .ceiling(ceiling.clone())
        .build()
        .unwrap();
    (ceiling, g)
}

fn waiting(max: Duration) -> CeilingWait {
    CeilingWait::Wait { max }
}

fn fenced(r: Result<u64, GenerateError>) -> Fenced {
    match r {
        Err(GenerateError::Fenced(f)) => f,
        other => panic!("expected Fenced, got {other:?}"),
    }
}

#[test]
fn the_ceiling_stops_new_ticks_and_says_since_when() {
    let clock = Arc::new(ManualClock::new(T0));
    let (ceiling, g) = under(&clock, CeilingWait::Fail, 5);
    clock.set(T0 + 1);
    let f = fenced(g.next_id());
    assert_eq!(
        f.reason,
        FenceReason::NotRenewed {
            last_renewed_millis: 0,
            last_error: None
        }
    );
    assert!(ceiling.raise(T0 + 3, T0 + 1));
    let a = g.next_id().unwrap();
    clock.set(T0 + 3);
    let b = g.next_id().unwrap();
    assert_eq!(g.layout().timestamp_millis(b), T0 + 3);
    clock.set(T0 + 4);
    ceiling.record_failure("connection refused");
    let f = fenced(g.next_id());
    assert_eq!(f.node, 5);
    assert_eq!(f.ceiling_millis, T0 + 3);
    assert_eq!(
        f.reason,
        FenceReason::NotRenewed {
            last_renewed_millis: T0 + 1,
            last_error: Some("connection refused".into())
        }
    );
    assert!(
        f.to_string()
            .contains("last attempt failed: connection refused"),
        "{f}"
    );
    // Non-blocking calls and batches are fenced alike.
    assert!(matches!(g.try_next_id(), Err(GenerateError::Fenced(_))));
    assert!(matches!(g.next_batch(3), Err(GenerateError::Fenced(_))));
    // A raise lets it continue.
    ceiling.raise(T0 + 10, T0 + 4);
    let c = g.next_id().unwrap();
    assert!(a < b && b < c);
    assert_eq!(g.layout().timestamp_millis(c), T0 + 4);
}

#[test]
fn at_the_ceiling_a_call_waits_for_a_raise_or_fails_after_its_wait() {
    let clock = Arc::new(ManualClock::new(T0));
    let (ceiling, g) = under(&clock, waiting(Duration::from_secs(30)), 1);
    clock.set(T0 + 5);
    let raiser = {
        let ceiling = ceiling.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            ceiling.raise(T0 + 100, T0 + 5);
        })
    };
    let id = g.next_id().unwrap();
    raiser.join().unwrap();
    assert_eq!(g.layout().timestamp_millis(id), T0 + 5);

    let (_short, g) = under(&clock, waiting(Duration::from_millis(20)), 1);
    clock.advance(Duration::from_millis(1));
    assert!(matches!(g.next_id(), Err(GenerateError::Fenced(_))));
}

/// tokio's timers for the async tests.
struct Timers;

impl crate::runtime::Sleep for Timers {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

#[test]
fn at_the_ceiling_an_async_call_waits_for_the_raise_a_task_on_its_own_thread_makes() {
    let clock = Arc::new(ManualClock::new(T0));
    let (ceiling, g) = under(&clock, waiting(Duration::from_secs(30)), 1);
    clock.set(T0 + 5);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let id = runtime.block_on(async {
        // The raise comes from a task on this very thread: a blocking
        // wait would keep it from running until the 30 s are up.
        let raiser = {
            let ceiling = ceiling.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                ceiling.raise(T0 + 100, T0 + 5);
            })
        };
        let id = g.next_id_async_on(&Timers).await.unwrap();
        raiser.await.unwrap();
        id
    });
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(g.layout().timestamp_millis(id), T0 + 5);

    // A ceiling that does not rise: `Fenced` after the wait, as `next_id`.
    let (_short, g) = under(&clock, waiting(Duration::from_millis(20)), 1);
    clock.advance(Duration::from_millis(1));
    let started = std::time::Instant::now();
    let r = runtime.block_on(g.next_id_async_on(&Timers));
    assert!(started.elapsed() >= Duration::from_millis(20));
    assert!(matches!(fenced(r).reason, FenceReason::NotRenewed { .. }));
    // A closed one: at once.
    let (closed, g) = under(&clock, waiting(Duration::from_secs(3600)), 1);
    closed.close(FenceReason::Dropped);
    clock.advance(Duration::from_millis(1));
    let r = runtime.block_on(g.next_id_async_on(&Timers));
    assert_eq!(fenced(r).reason, FenceReason::Dropped);
}

#[test]
fn a_closed_ceiling_fails_at_once_whatever_the_policy() {
    let clock = Arc::new(ManualClock::new(T0));
    let (ceiling, g) = under(&clock, waiting(Duration::from_secs(3600)), 1);
    ceiling.raise(T0 + 50, T0);
    clock.set(T0 + 1);
    g.next_id().unwrap();
    ceiling.close(FenceReason::Lost {
        fence: 4,
        detected_millis: T0 + 2,
    });
    assert!(!ceiling.raise(T0 + 500, T0 + 2), "closed for good");
    clock.set(T0 + 2);
    let f = fenced(g.next_id());
    assert_eq!(f.ceiling_millis, T0 + 50, "the last persisted ceiling");
    assert_eq!(
        f.reason,
        FenceReason::Lost {
            fence: 4,
            detected_millis: T0 + 2
        }
    );
}

#[test]
fn one_ceiling_serves_one_generator() {
    let ceiling = Arc::new(Ceiling::new(CeilingWait::Fail));
    let b = || Generator::builder(presets::twitter(), 1).ceiling(ceiling.clone());
    let _first = b().build().unwrap();
    assert_eq!(b().build().unwrap_err(), ConfigError::CeilingInUse);
}
