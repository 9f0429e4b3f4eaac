//! An async lease on a current-thread tokio runtime: renewals slower than
//! the renewal interval overlap, and the task that raises the ceiling runs
//! on the same thread as the generator's caller.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use flakeid_core::Clock;
use flakeid_core::runtime::Sleep;
use flakeid_sql::StoreError;

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
/// `flakeid-lease/tests/unit/renewal_simulation.rs`.
#[test]
fn async_renewals_slower_than_the_interval_overlap_and_keep_the_ceiling_ahead() {
    use flakeid_core::layout::presets;
    use flakeid_core::{CeilingWait, MonotonicClock};
    use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};

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
