//! Model check of the generator's compare-and-swap path.
//!
//! With `RUSTFLAGS="--cfg loom"` the generator's atomics come from `loom`
//! and `loom::model` explores every interleaving of the threads below:
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p flakeid-loom-tests --test loom --profile loom --target-dir target/loom
//! ```
//!
//! Without `--cfg loom` the same scenarios run on real threads, repeatedly,
//! as a stress test.

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::layout::Layout;
use flakeid_core::layout::Parts;
use flakeid_core::{Clock, ClockRegression, Generator, ManualClock, SequenceExhaustion};

#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
#[cfg(loom)]
use loom::thread;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
#[cfg(not(loom))]
use std::thread;

#[cfg(loom)]
fn model<F: Fn() + Sync + Send + 'static>(f: F) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let executions = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&executions);
    loom::model(move || {
        counter.fetch_add(1, Ordering::Relaxed);
        f();
    });
    let n = executions.load(Ordering::Relaxed);
    println!("loom explored {n} interleavings");
    assert!(n > 10, "loom explored only {n} interleavings");
}

#[cfg(not(loom))]
fn model<F: Fn() + Sync + Send + 'static>(f: F) {
    for _ in 0..500 {
        f();
    }
}

const EPOCH: u64 = 1_000;

/// Two sequence numbers per tick, so that two threads taking two IDs each
/// always exhaust a tick and roll over.
#[derive(Debug, Clone)]
struct TwoPerTick;

impl Layout for TwoPerTick {
    type Raw = u64;
    fn tick_millis(&self) -> u64 {
        1
    }
    fn epoch_millis(&self) -> u64 {
        EPOCH
    }
    fn max_tick(&self) -> u64 {
        1 << 40
    }
    fn sequences_per_tick(&self) -> u64 {
        2
    }
    fn max_node(&self) -> u64 {
        0
    }
    fn compose(&self, tick: u64, _node: u64, sequence: u64) -> u64 {
        tick * 2 + sequence
    }
    fn decompose(&self, id: u64) -> Parts {
        Parts {
            tick: id / 2,
            node: 0,
            sequence: id % 2,
        }
    }
}

type Gen = Generator<TwoPerTick, Arc<ManualClock>>;

fn generator(exhaustion: SequenceExhaustion) -> (Arc<Gen>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(EPOCH + 10));
    let g = Generator::builder(TwoPerTick, 0)
        .clock(clock.clone())
        .sequence_exhaustion(exhaustion)
        .clock_regression(ClockRegression::Fail)
        .build()
        .unwrap();
    (Arc::new(g), clock)
}

/// What `take` returns on each of `threads` threads, each with its handle
/// of `g`, in the order the threads were spawned.
fn on_threads<G, T>(threads: usize, g: &Arc<G>, take: fn(&G) -> T) -> Vec<T>
where
    G: Send + Sync + 'static,
    T: Send + 'static,
{
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let g = Arc::clone(g);
            thread::spawn(move || take(&g))
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn check(per_thread: Vec<Vec<u64>>) {
    for ids in &per_thread {
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{per_thread:?}");
    }
    let mut all: Vec<u64> = per_thread.into_iter().flatten().collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "duplicate ID");
    assert!(all[0] > 0);
}

/// Waiting policy: the manual clock advances when a thread waits.
#[test]
fn concurrent_next_id_is_unique_and_increasing() {
    model(|| {
        let (g, _clock) = generator(SequenceExhaustion::Wait);
        let mut per_thread =
            on_threads(2, &g, |g| vec![g.next_id().unwrap(), g.next_id().unwrap()]);
        per_thread.push(vec![g.next_id().unwrap()]);
        check(per_thread);
    });
}

/// Run-ahead with a clock that stands still; a batch races single IDs.
#[test]
fn concurrent_batch_and_ids_do_not_overlap() {
    model(|| {
        let (g, clock) = generator(SequenceExhaustion::RunAhead {
            max_lead: Duration::from_millis(10),
        });
        let g2 = Arc::clone(&g);
        let batch = thread::spawn(move || g2.next_batch(3).unwrap().collect::<Vec<_>>());
        let g3 = Arc::clone(&g);
        let single = thread::spawn(move || vec![g3.next_id().unwrap(), g3.next_id().unwrap()]);
        let per_thread = vec![batch.join().unwrap(), single.join().unwrap()];
        assert_eq!(clock.now_millis(), EPOCH + 10, "no waiting within the lead");
        check(per_thread);
    });
}

/// Three threads, one ID each, racing for a tick of two sequence numbers.
#[test]
fn three_threads_share_a_two_id_tick() {
    model(|| {
        let (g, _clock) = generator(SequenceExhaustion::Wait);
        check(on_threads(3, &g, |g| vec![g.next_id().unwrap()]));
    });
}

/// A clock published like [`MonotonicClock`](flakeid_core::MonotonicClock)'s:
/// a store with Release by the thread that moves it, loads with Acquire.
#[derive(Debug)]
struct PublishedClock(AtomicU64);

impl Clock for PublishedClock {
    fn now_millis(&self) -> u64 {
        self.0.load(AtomicOrdering::Acquire)
    }
    fn wait_until(&self, target_millis: u64) {
        self.0.fetch_max(target_millis, AtomicOrdering::AcqRel);
    }
}

/// A thread that finds the state of a newer tick must not read an older
/// clock than the thread that entered that tick did: under
/// `ClockRegression::Fail` that stale reading would be reported as the
/// clock going backwards although it never did.
#[test]
fn a_newer_state_never_comes_with_an_older_clock() {
    model(|| {
        let clock = Arc::new(PublishedClock(AtomicU64::new(EPOCH + 10)));
        let g = Generator::builder(TwoPerTick, 0)
            .clock(clock.clone())
            .clock_regression(ClockRegression::Fail)
            .build()
            .unwrap();
        let g = Arc::new(g);
        // Built in tick 10: IDs start in tick 11.
        clock.0.store(EPOCH + 11, AtomicOrdering::Release);
        let ticker = {
            let clock = Arc::clone(&clock);
            thread::spawn(move || clock.0.store(EPOCH + 12, AtomicOrdering::Release))
        };
        let ids: Vec<u64> = on_threads(2, &g, |g| g.next_id().expect("no spurious ClockRegressed"));
        ticker.join().unwrap();
        check(vec![vec![ids[0]], vec![ids[1]]]);
    });
}

/// Releasing a node closes the generator's ceiling and seals it while
/// another thread enters a new tick: whichever comes first, no ID is
/// stamped later than the mark the seal returns (the next holder of the
/// node starts after it).
#[test]
fn no_id_after_the_sealed_mark() {
    use flakeid_core::CeilingWait;
    use flakeid_lease::{LeaseOptions, MemoryLeaseStore};
    model(|| {
        let clock = Arc::new(ManualClock::new(EPOCH + 10));
        let lease = LeaseOptions::new("loom", TwoPerTick)
            .clock(clock.clone())
            .nodes(0..=0)
            .at_ceiling(CeilingWait::Fail)
            .claim(MemoryLeaseStore::with_clock(clock.clone()))
            .unwrap();
        let g = Arc::new(lease.generator_builder().build().unwrap());
        clock.set(EPOCH + 11);
        let issuer = {
            let (g, clock) = (Arc::clone(&g), Arc::clone(&clock));
            thread::spawn(move || {
                let first = g.next_id().ok();
                // A new tick: entered on the general path, past the ceiling check.
                clock.set(EPOCH + 12);
                let second = g.next_id().ok();
                [first, second]
            })
        };
        // Lets the issuer run first in some interleavings (the release
        // itself is not an operation loom schedules around).
        thread::yield_now();
        // Closes the ceiling, then seals the generator.
        let mark = lease.release(&g).unwrap();
        let issued: Vec<u64> = issuer.join().unwrap().into_iter().flatten().collect();
        for id in &issued {
            let stamped = TwoPerTick.decompose(*id).tick + EPOCH;
            assert!(
                stamped <= mark,
                "ID {id} stamped {stamped} after the sealed mark {mark}"
            );
        }
        assert!(g.next_id().is_err());
    });
}
