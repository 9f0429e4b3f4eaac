//! Many lease holders starting at once against one store: how long until
//! every holder has a node, how many claim compare-and-sets that took and
//! how many failed, and what the renewals then cost. The `lease_load`
//! binary runs it on PostgreSQL; the tests run it on the in-memory store.
//!
//! Every holder is a task running the real protocol
//! ([`LeaseOptions::claim_async`] on an [`AsyncLeaseStore`]), its renewal a
//! task of its own; [`Counting`] wraps the store and counts and times each
//! operation.

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use flakeid_core::layout::presets;
use flakeid_core::runtime::Sleep;
use flakeid_lease::{
    AsyncLeaseStore, AsyncNodeLease, ClaimRequest, LeaseOptions, NodeRow, NodeTable,
    ReleaseRequest, RenewRequest, Renewal,
};
use flakeid_sql::StoreError;

use crate::BenchError;

/// Counts and latencies of one kind of store operation.
#[derive(Debug, Default)]
pub struct OpStats {
    calls: AtomicU64,
    /// Calls that answered `None` / `false` (a lost compare-and-set).
    refused: AtomicU64,
    errors: AtomicU64,
    micros: Mutex<Vec<u32>>,
}

impl OpStats {
    fn record<T>(&self, started: Instant, result: &Result<T, StoreError>, refused: bool) {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if result.is_err() {
            self.errors.fetch_add(1, Ordering::SeqCst);
        } else if refused {
            self.refused.fetch_add(1, Ordering::SeqCst);
        }
        let us = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
        self.micros
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(us);
    }

    /// Calls that succeeded (neither refused nor failed) so far; cheap
    /// enough to poll. Refusals and errors are read before the calls, which
    /// `record` counts first, so this never underflows.
    pub fn won(&self) -> u64 {
        let lost = self.refused.load(Ordering::SeqCst) + self.errors.load(Ordering::SeqCst);
        self.calls.load(Ordering::SeqCst).saturating_sub(lost)
    }

    /// A copy of the counters, and the latencies sorted.
    pub fn snapshot(&self) -> OpSnapshot {
        let mut micros = self
            .micros
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        micros.sort_unstable();
        OpSnapshot {
            calls: self.calls.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            micros,
        }
    }
}

/// [`OpStats`] at one moment.
#[derive(Debug, Clone, Default)]
pub struct OpSnapshot {
    /// Calls.
    pub calls: u64,
    /// Calls refused by the compare-and-set.
    pub refused: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Latencies (µs), sorted.
    pub micros: Vec<u32>,
}

impl OpSnapshot {
    /// The calls made after `earlier` was taken: `(calls, refused, errors)`.
    pub fn since(&self, earlier: &OpSnapshot) -> (u64, u64, u64) {
        (
            self.calls - earlier.calls,
            self.refused - earlier.refused,
            self.errors - earlier.errors,
        )
    }

    /// The `q` quantile (0..=1) of the latencies, in ms.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        quantile_ms(&self.micros, q)
    }
}

/// The `q` quantile (0..=1) of sorted latencies in µs, in ms.
pub fn quantile_ms(sorted_micros: &[u32], q: f64) -> f64 {
    if sorted_micros.is_empty() {
        return f64::NAN;
    }
    let last = sorted_micros.len() - 1;
    let i = ((last as f64) * q).round() as usize;
    f64::from(sorted_micros[i.min(last)]) / 1000.0
}

/// Counters of every store operation.
#[derive(Debug, Default)]
pub struct StoreStats {
    /// `ensure_nodes`.
    pub ensure: OpStats,
    /// `try_claim`: refused = a failed compare-and-set.
    pub claim: OpStats,
    /// `renew`: refused = the lease was lost.
    pub renew: OpStats,
    /// `release`.
    pub release: OpStats,
    /// `list`.
    pub list: OpStats,
}

/// A store that counts and times what passes through it.
#[derive(Debug, Clone)]
pub struct Counting<S> {
    inner: S,
    stats: Arc<StoreStats>,
}

impl<S> Counting<S> {
    /// Wraps `inner`, recording into `stats`.
    pub fn new(inner: S, stats: Arc<StoreStats>) -> Self {
        Counting { inner, stats }
    }
}

impl<S: AsyncLeaseStore + 'static> AsyncLeaseStore for Counting<S> {
    async fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> Result<(), StoreError> {
        let t = Instant::now();
        let r = self.inner.ensure_nodes(space, nodes).await;
        self.stats.ensure.record(t, &r, false);
        r
    }

    async fn try_claim(&self, request: &ClaimRequest<'_>) -> Result<Option<NodeRow>, StoreError> {
        let t = Instant::now();
        let r = self.inner.try_claim(request).await;
        let refused = matches!(r, Ok(None));
        self.stats.claim.record(t, &r, refused);
        r
    }

    async fn renew(&self, request: &RenewRequest<'_>) -> Result<Renewal, StoreError> {
        let t = Instant::now();
        let r = self.inner.renew(request).await;
        let refused = !matches!(r, Ok(Renewal::Renewed) | Err(_));
        self.stats.renew.record(t, &r, refused);
        r
    }

    async fn release(&self, request: &ReleaseRequest<'_>) -> Result<bool, StoreError> {
        let t = Instant::now();
        let r = self.inner.release(request).await;
        let refused = matches!(r, Ok(false));
        self.stats.release.record(t, &r, refused);
        r
    }

    async fn list(&self, space: &str) -> Result<NodeTable, StoreError> {
        let t = Instant::now();
        let r = self.inner.list(space).await;
        self.stats.list.record(t, &r, false);
        r
    }
}

/// What to simulate.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The lease space (fresh per run).
    pub space: String,
    /// Holders starting at once (and nodes: `0..holders`).
    pub holders: u64,
    /// Whether claimants start at a random node ([`LeaseOptions::spread_claims`]).
    pub spread: bool,
    /// The lease TTL.
    pub ttl: Duration,
    /// The renewal interval.
    pub renew_every: Duration,
    /// How long the renewals run once every holder has a node.
    pub renew_for: Duration,
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Holders.
    pub holders: u64,
    /// From the start signal until the last holder had its node.
    pub all_claimed: Duration,
    /// The median holder's time to its node.
    pub median_claimed: Duration,
    /// Store operations during the claims.
    pub claim_phase: PhaseCounts,
    /// `try_claim` latencies of the claim phase.
    pub claim_latency: OpSnapshot,
    /// Renewals during the renewal window, their refusals and errors.
    pub renewals: (u64, u64, u64),
    /// Renewal latencies during the window.
    pub renew_micros: Vec<u32>,
    /// The window's length.
    pub window: Duration,
    /// Distinct nodes held (must equal `holders`).
    pub distinct_nodes: usize,
}

/// Counts of each operation in the claim phase.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseCounts {
    /// `ensure_nodes` calls.
    pub ensure: u64,
    /// `try_claim` calls.
    pub claims: u64,
    /// Of which refused (failed compare-and-set).
    pub failed_cas: u64,
    /// First renewals (the first ceiling of each claim).
    pub first_renewals: u64,
    /// `list` calls (rounds that found every node taken).
    pub lists: u64,
    /// Operations that failed.
    pub errors: u64,
}

impl LoadReport {
    /// Failed compare-and-sets per won claim.
    pub fn failed_cas_per_claim(&self) -> f64 {
        self.claim_phase.failed_cas as f64 / self.holders as f64
    }

    /// Claim compare-and-sets per second until every holder had a node.
    pub fn claims_per_sec(&self) -> f64 {
        self.claim_phase.claims as f64 / self.all_claimed.as_secs_f64()
    }

    /// Renewals per second during the window.
    pub fn renewals_per_sec(&self) -> f64 {
        self.renewals.0 as f64 / self.window.as_secs_f64()
    }
}

/// Runs `cfg.holders` claimants at once on clones of `store` (each wrapped
/// to count into `stats`, which must be fresh), lets their renewals run for `cfg.renew_for`,
/// then releases every lease. Call from within a multi-threaded tokio
/// runtime.
///
/// # Errors
/// A claim, renewal or release that failed, or two holders of one node.
pub async fn run<S, R>(
    store: S,
    runtime: R,
    stats: Arc<StoreStats>,
    cfg: &LoadConfig,
) -> Result<LoadReport, BenchError>
where
    S: AsyncLeaseStore + Clone + 'static,
    R: Sleep + Clone,
{
    let holders = cfg.holders.max(1);
    let options = LeaseOptions::new(cfg.space.clone(), presets::twitter())
        .nodes(0..=holders - 1)
        .ttl(cfg.ttl)
        .renew_every(cfg.renew_every)
        .wait_for_node(Duration::from_secs(600))
        .spread_claims(cfg.spread);
    let (go, _) = tokio::sync::broadcast::channel::<()>(1);
    let mut tasks = Vec::new();
    for _ in 0..holders {
        let store = Counting::new(store.clone(), stats.clone());
        let (options, runtime) = (options.clone(), runtime.clone());
        let mut start = go.subscribe();
        tasks.push(tokio::spawn(async move {
            let _ = start.recv().await;
            let t = Instant::now();
            let (lease, renewal) = options.claim_async(store, runtime).await?;
            tokio::spawn(renewal);
            Ok::<_, flakeid_lease::LeaseError>((lease, t.elapsed()))
        }));
    }
    // Every receiver exists already: no task misses the signal.
    let started = Instant::now();
    go.send(())
        .map_err(|_| BenchError::Argument("no holder started".into()))?;
    let mut leases: Vec<AsyncNodeLease<Counting<S>>> = Vec::new();
    let mut times = Vec::new();
    for t in tasks {
        let (lease, took) = t.await.map_err(|_| BenchError::ThreadPanicked)??;
        leases.push(lease);
        times.push(took);
    }
    let all_claimed = started.elapsed();
    times.sort_unstable();
    let claim_latency = stats.claim.snapshot();
    let renew_at_claims = stats.renew.snapshot();
    let claim_phase = PhaseCounts {
        ensure: stats.ensure.snapshot().calls,
        claims: claim_latency.calls,
        failed_cas: claim_latency.refused,
        first_renewals: renew_at_claims.calls,
        lists: stats.list.snapshot().calls,
        errors: claim_latency.errors + renew_at_claims.errors,
    };
    let distinct: HashSet<u64> = leases.iter().map(AsyncNodeLease::node).collect();
    if distinct.len() != leases.len() {
        return Err(BenchError::Argument(format!(
            "{} holders share {} nodes",
            leases.len(),
            distinct.len()
        )));
    }

    // The renewals run on their own; measure a window of them.
    let window_start = stats.renew.snapshot();
    let t = Instant::now();
    tokio::time::sleep(cfg.renew_for).await;
    let window = t.elapsed();
    let window_end = stats.renew.snapshot();
    let renewals = window_end.since(&window_start);
    let renew_micros = window_micros(
        &stats.renew,
        window_start.calls as usize,
        renewals.0 as usize,
    );

    for lease in leases {
        lease.release_unused().await?;
    }
    Ok(LoadReport {
        holders,
        all_claimed,
        median_claimed: times[times.len() / 2],
        claim_phase,
        claim_latency,
        renewals,
        renew_micros,
        window,
        distinct_nodes: distinct.len(),
    })
}

/// The `count` latencies recorded after the first `skip`, sorted.
fn window_micros(op: &OpStats, skip: usize, count: usize) -> Vec<u32> {
    let all = op.micros.lock().unwrap_or_else(PoisonError::into_inner);
    let mut v: Vec<u32> = all.iter().skip(skip).take(count).copied().collect();
    drop(all);
    v.sort_unstable();
    v
}
