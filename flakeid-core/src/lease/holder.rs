//! Claiming, renewing and releasing a node lease: the protocol's logic,
//! run against any [`LeaseStore`] (blocking, renewed by a thread) or
//! [`AsyncLeaseStore`] (renewed by a future the caller spawns).

use core::future::Future;
use core::ops::RangeInclusive;
use core::pin::pin;
use core::task::Poll;
use core::time::Duration;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use super::ceiling::{Ceiling, CeilingWait, FenceReason};
use super::error::{LeaseError, StoreError};
use super::store::{
    AsyncLeaseStore, ClaimRequest, Claimed, LeaseStore, NodeTable, ReleaseRequest, RenewRequest,
    Sleep,
};
use crate::{BitLayout, Clock, Generator, GeneratorBuilder, Layout, MonotonicClock};

/// How long a lease lasts unless [`LeaseOptions::ttl`] says otherwise: 15 s.
///
/// A crashed holder's node is free again after at most this long, and a
/// holder whose store is unreachable keeps issuing for about this long
/// (its ceiling lead, equal to the TTL by default) before it fences.
/// kanengo/ku uses 15 s; CosId recycles after 5 min (slow to free a
/// crashed node); Leaf has no expiry (node IDs are never reused).
pub const DEFAULT_TTL: Duration = Duration::from_secs(15);

/// How often a holder renews unless [`LeaseOptions::renew_every`] says
/// otherwise: every 3 s, as Leaf reports its time and kanengo/ku renews.
///
/// Five renewals fit in the default TTL, so four in a row may fail (a
/// database restart, a failover) before the holder reaches its ceiling.
/// 1,024 holders renewing every 3 s cost a database about 340 one-row
/// updates a second.
pub const DEFAULT_RENEW_EVERY: Duration = Duration::from_secs(3);

/// The table the SQL stores use unless told otherwise.
pub const DEFAULT_TABLE: &str = "flakeid_nodes";

/// The `lease_until` of a node reserved for a writer outside the lease
/// protocol (the database function of
/// [`sql::id_function`](crate::sql::id_function)): a lease that never
/// ends, so no claim takes the node.
pub const RESERVED_UNTIL_MILLIS: i64 = i64::MAX;

/// The longest space name the lease table holds (its `VARCHAR(191)`
/// primary-key column fits MySQL's index limit in `utf8mb4`).
pub const MAX_SPACE_LEN: usize = 191;

/// How to claim a node ID of one ID space. See the [module documentation](super).
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::{layout::presets, lease::{LeaseOptions, MemoryLeaseStore}};
///
/// let store = MemoryLeaseStore::new(); // one "database" for the example
/// let lease = LeaseOptions::new("orders", presets::twitter())
///     .nodes(0..=3)
///     .claim(store.clone())?;
/// let generator = lease.generator_builder().build()?;
/// let id = generator.next_id()?;
/// assert_eq!(generator.layout().decompose(id).node, lease.node());
/// // Operators see who holds what.
/// let table = store.table("orders");
/// assert_eq!(table.held().count(), 1);
/// lease.release(&generator)?;
/// # use flakeid_core::Layout;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct LeaseOptions<L = BitLayout, C = MonotonicClock> {
    space: String,
    layout: L,
    clock: C,
    nodes: Option<RangeInclusive<u64>>,
    ttl: Duration,
    renew_every: Duration,
    ceiling_lead: Option<Duration>,
    holder: Option<String>,
    wait_for_node: Duration,
    at_ceiling: CeilingWait,
    spread: bool,
}

impl<L: Layout> LeaseOptions<L, MonotonicClock> {
    /// Options for a node of `space` (one layout + epoch whose IDs share
    /// tables; any name up to [`MAX_SPACE_LEN`] characters), issuing IDs of
    /// `layout`: all its node IDs, [`DEFAULT_TTL`], [`DEFAULT_RENEW_EVERY`],
    /// a ceiling lead equal to the TTL, no waiting for a free node,
    /// [`CeilingWait::default`].
    pub fn new(space: impl Into<String>, layout: L) -> Self {
        LeaseOptions {
            space: space.into(),
            layout,
            clock: MonotonicClock::new(),
            nodes: None,
            ttl: DEFAULT_TTL,
            renew_every: DEFAULT_RENEW_EVERY,
            ceiling_lead: None,
            holder: None,
            wait_for_node: Duration::ZERO,
            at_ceiling: CeilingWait::default(),
            spread: true,
        }
    }
}

impl<L: Layout + Clone, C: Clock + Clone> LeaseOptions<L, C> {
    /// The generator's clock (the ID time base of ceilings and high-water
    /// marks); lease times come from the store's clock.
    pub fn clock<C2: Clock + Clone>(self, clock: C2) -> LeaseOptions<L, C2> {
        LeaseOptions {
            space: self.space,
            layout: self.layout,
            clock,
            nodes: self.nodes,
            ttl: self.ttl,
            renew_every: self.renew_every,
            ceiling_lead: self.ceiling_lead,
            holder: self.holder,
            wait_for_node: self.wait_for_node,
            at_ceiling: self.at_ceiling,
            spread: self.spread,
        }
    }

    /// Leases only these node IDs (default: all of the layout's). The
    /// space's rows are created at the first claim, one per node: 1,024
    /// for Twitter's layout, 65,536 for Sonyflake's; restrict the range
    /// for layouts with large node fields.
    pub fn nodes(mut self, nodes: RangeInclusive<u64>) -> Self {
        self.nodes = Some(nodes);
        self
    }

    /// How long a lease lasts without renewal (default [`DEFAULT_TTL`]).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How often the lease is renewed (default [`DEFAULT_RENEW_EVERY`]);
    /// must be shorter than the ceiling lead.
    pub fn renew_every(mut self, every: Duration) -> Self {
        self.renew_every = every;
        self
    }

    /// How far ahead of the clock each renewal sets the ceiling (default:
    /// the TTL; at most the TTL). A holder paused past its lease then finds
    /// its clock beyond its ceiling and stamps nothing later than its
    /// pause, and a holder that cannot reach the store stamps nothing later
    /// than this long after its last renewal.
    pub fn ceiling_lead(mut self, lead: Duration) -> Self {
        self.ceiling_lead = Some(lead);
        self
    }

    /// The `holder` text operators see (default `hostname/pid`).
    pub fn holder(mut self, holder: impl Into<String>) -> Self {
        self.holder = Some(holder.into());
        self
    }

    /// When every node is taken, keep trying for up to `max` (default 0:
    /// fail at once with [`LeaseError::AllTaken`]).
    pub fn wait_for_node(mut self, max: Duration) -> Self {
        self.wait_for_node = max;
        self
    }

    /// What the generator does at its ceiling (default [`CeilingWait::default`]).
    pub fn at_ceiling(mut self, policy: CeilingWait) -> Self {
        self.at_ceiling = policy;
        self
    }

    /// Whether claimants try the nodes from a random one on (`true`, the
    /// default), so that processes starting together mostly try different
    /// rows, or all from the first node up (`false`: the lowest free node
    /// is taken, so node IDs in use stay dense, but claimants starting
    /// together compete for the same rows; `BENCHMARKS.md` measures what
    /// that costs).
    pub fn spread_claims(mut self, spread: bool) -> Self {
        self.spread = spread;
        self
    }

    /// How many holders can hold a node of the space at once: the number
    /// of node IDs these options lease (all of the layout's by default,
    /// 1,024 for Twitter's). The next claimant gets
    /// [`LeaseError::AllTaken`], or waits with
    /// [`wait_for_node`](Self::wait_for_node). The store keeps one row (or
    /// key) per node, created at the first claim.
    ///
    /// ```
    /// use flakeid_core::{layout::presets, lease::LeaseOptions};
    ///
    /// assert_eq!(LeaseOptions::new("s", presets::twitter()).max_holders()?, 1024);
    /// assert_eq!(LeaseOptions::new("s", presets::sonyflake()).nodes(0..=99).max_holders()?, 100);
    /// # Ok::<(), flakeid_core::lease::LeaseError>(())
    /// ```
    ///
    /// # Errors
    /// [`LeaseError::InvalidOption`], as [`claim`](Self::claim) would.
    pub fn max_holders(&self) -> Result<u64, LeaseError> {
        let plan = self.clone().plan()?;
        Ok(*plan.nodes.end() - *plan.nodes.start() + 1)
    }

    /// How long after its holder crashes a node stays unusable: its lease
    /// ends the TTL after the last renewal that reached the store (by the
    /// store's clock), and a holder renews every
    /// [`renew_every`](Self::renew_every), so between `ttl − renew_every`
    /// and `ttl` (12–15 s with the defaults). A claimant waiting for a node
    /// takes it within a few milliseconds of the end.
    ///
    /// ```
    /// use std::time::Duration;
    /// use flakeid_core::{layout::presets, lease::LeaseOptions};
    ///
    /// let bound = LeaseOptions::new("s", presets::twitter()).crashed_node_unusable_for();
    /// assert_eq!(bound, Duration::from_secs(12)..=Duration::from_secs(15));
    /// ```
    pub fn crashed_node_unusable_for(&self) -> RangeInclusive<Duration> {
        self.ttl.saturating_sub(self.renew_every)..=self.ttl
    }

    fn plan(self) -> Result<Plan<L, C>, LeaseError> {
        let invalid = |option, value: String, reason: String| LeaseError::InvalidOption {
            option,
            value,
            reason,
        };
        if self.space.is_empty() || self.space.chars().count() > MAX_SPACE_LEN {
            return Err(invalid(
                "space",
                format!("{:?}", self.space),
                format!("a space name has 1..={MAX_SPACE_LEN} characters"),
            ));
        }
        let max_node = self.layout.max_node().min(i32::MAX as u64);
        let nodes = self.nodes.clone().unwrap_or(0..=max_node);
        if nodes.is_empty() || *nodes.end() > max_node {
            return Err(invalid(
                "nodes",
                format!("{nodes:?}"),
                format!("node IDs must form a non-empty range within 0..={max_node}"),
            ));
        }
        let lead = self.ceiling_lead.unwrap_or(self.ttl);
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        if ms(self.ttl) == 0 || ms(self.ttl) > i64::MAX as u64 / 4 {
            return Err(invalid(
                "ttl",
                format!("{:?}", self.ttl),
                "a lease lasts at least 1 ms".into(),
            ));
        }
        if lead > self.ttl {
            return Err(invalid(
                "ceiling_lead",
                format!("{lead:?}"),
                format!(
                    "at most the TTL ({:?}): a holder paused past its lease must find its clock beyond its ceiling",
                    self.ttl
                ),
            ));
        }
        if self.renew_every.is_zero() || self.renew_every >= lead {
            return Err(invalid(
                "renew_every",
                format!("{:?}", self.renew_every),
                format!(
                    "between 0 and the ceiling lead ({lead:?}), or a healthy holder reaches its ceiling between renewals"
                ),
            ));
        }
        let holder = self.holder.clone().unwrap_or_else(default_holder);
        Ok(Plan {
            owner: random_token(),
            holder: holder.chars().take(255).collect(),
            start: if self.spread {
                crate::rng::below(
                    crate::rng::mix(crate::rng::os_seed() ^ u64::from(std::process::id())),
                    *nodes.end() - *nodes.start() + 1,
                )
            } else {
                0
            },
            nodes,
            lead_millis: ms(lead),
            options: self,
        })
    }

    /// Claims a free node from a blocking store, persists its first
    /// ceiling, and starts a thread that renews the lease every
    /// [`renew_every`](Self::renew_every) with the store (which the thread
    /// then uses; give the store its own connection).
    ///
    /// Candidates are tried from a random node on, wrapping around, so
    /// processes starting together spread over the space.
    ///
    /// # Errors
    /// [`LeaseError::InvalidOption`], [`LeaseError::AllTaken`] (after
    /// [`wait_for_node`](Self::wait_for_node)), [`LeaseError::Store`],
    /// [`LeaseError::Renewal`] when the thread cannot be started.
    pub fn claim<S: LeaseStore>(self, store: S) -> Result<NodeLease<L, C>, LeaseError> {
        let plan = self.plan()?;
        let mut store: Box<dyn LeaseStore> = Box::new(store);
        let space = plan.options.space.clone();
        store
            .ensure_nodes(&space, plan.nodes.clone())
            .map_err(|e| plan.store_error("insert the node rows", e))?;
        let started = Instant::now();
        loop {
            for node in plan.candidates() {
                let claimed = store
                    .try_claim(&plan.claim_request(node))
                    .map_err(|e| plan.store_error(&format!("claim node {node}"), e))?;
                let Some(claimed) = claimed else { continue };
                let ceiling = plan.first_ceiling(&claimed);
                let renewed = store.renew(&plan.renew_request(node, &claimed, ceiling));
                if plan.first_renewal(node, &claimed, renewed)? {
                    return NodeLease::start(plan, node, claimed, ceiling, store);
                }
            }
            let table = store
                .list(&space)
                .map_err(|e| plan.store_error("list the nodes", e))?;
            match plan.retry_after(&table, started.elapsed()) {
                Ok(delay) => std::thread::sleep(delay),
                Err(e) => return Err(e),
            }
        }
    }

    /// [`claim`](Self::claim) for an async store. Returns the lease and
    /// the renewal future, which the caller spawns on its runtime (it ends
    /// when the lease is released, dropped or lost); `runtime` provides
    /// its timers.
    ///
    /// # Errors
    /// As [`claim`](Self::claim).
    pub async fn claim_async<S: AsyncLeaseStore, R: Sleep>(
        self,
        store: S,
        runtime: R,
    ) -> Result<
        (
            AsyncNodeLease<S, L, C>,
            impl Future<Output = ()> + Send + 'static,
        ),
        LeaseError,
    > {
        let plan = self.plan()?;
        let space = plan.options.space.clone();
        store
            .ensure_nodes(&space, plan.nodes.clone())
            .await
            .map_err(|e| plan.store_error("insert the node rows", e))?;
        let started = Instant::now();
        loop {
            for node in plan.candidates() {
                let claimed = store
                    .try_claim(&plan.claim_request(node))
                    .await
                    .map_err(|e| plan.store_error(&format!("claim node {node}"), e))?;
                let Some(claimed) = claimed else { continue };
                let ceiling = plan.first_ceiling(&claimed);
                let renewed = store
                    .renew(&plan.renew_request(node, &claimed, ceiling))
                    .await;
                if plan.first_renewal(node, &claimed, renewed)? {
                    let (lease, shared) = plan.into_lease(node, claimed, ceiling);
                    let store = Arc::new(store);
                    let renewal = renew_async(shared.clone(), store.clone(), runtime);
                    return Ok((AsyncNodeLease { lease, store }, renewal));
                }
            }
            let table = store
                .list(&space)
                .await
                .map_err(|e| plan.store_error("list the nodes", e))?;
            match plan.retry_after(&table, started.elapsed()) {
                Ok(delay) => runtime.sleep(delay).await,
                Err(e) => return Err(e),
            }
        }
    }
}

/// Validated options plus this claimant's identity.
struct Plan<L, C> {
    options: LeaseOptions<L, C>,
    nodes: RangeInclusive<u64>,
    owner: String,
    holder: String,
    /// Where in the range this claimant starts looking.
    start: u64,
    lead_millis: u64,
}

impl<L: Layout + Clone, C: Clock + Clone> Plan<L, C> {
    fn store_error(&self, operation: &str, source: StoreError) -> LeaseError {
        LeaseError::Store {
            operation: operation.to_owned(),
            space: self.options.space.clone(),
            source,
        }
    }

    fn candidates(&self) -> impl Iterator<Item = u64> + use<L, C> {
        let (first, count) = (
            *self.nodes.start(),
            *self.nodes.end() - *self.nodes.start() + 1,
        );
        let start = self.start;
        (0..count).map(move |i| first + (start + i) % count)
    }

    fn claim_request(&self, node: u64) -> ClaimRequest<'_> {
        ClaimRequest {
            space: &self.options.space,
            node,
            owner: &self.owner,
            holder: &self.holder,
            ttl: self.options.ttl,
        }
    }

    /// The first ceiling: the lead ahead of the clock, or of the previous
    /// holders' mark if the clock is behind it.
    fn first_ceiling(&self, claimed: &Claimed) -> u64 {
        self.options
            .clock
            .now_millis()
            .max(claimed.high_water_millis)
            .saturating_add(self.lead_millis)
    }

    fn renew_request(&self, node: u64, claimed: &Claimed, ceiling: u64) -> RenewRequest<'_> {
        RenewRequest {
            space: &self.options.space,
            node,
            owner: &self.owner,
            fence: claimed.fence,
            ttl: self.options.ttl,
            ceiling_millis: ceiling,
        }
    }

    /// Whether the claim's first ceiling was persisted; a node taken over
    /// in between (possible only with a TTL shorter than a round trip) is
    /// skipped.
    fn first_renewal(
        &self,
        node: u64,
        claimed: &Claimed,
        renewed: Result<bool, StoreError>,
    ) -> Result<bool, LeaseError> {
        renewed.map_err(|e| {
            self.store_error(
                &format!(
                    "persist the first ceiling of node {node} (fence {}; the row frees itself after the TTL)",
                    claimed.fence
                ),
                e,
            )
        })
    }

    /// How long to wait before the next round of claims, or the error when
    /// the wait for a node is over.
    fn retry_after(&self, table: &NodeTable, waited: Duration) -> Result<Duration, LeaseError> {
        let now = table.now_millis.unwrap_or(0);
        let held = || table.held().filter(|r| self.nodes.contains(&r.node));
        let reserved = held().filter(|r| r.is_reserved()).count() as u64;
        let first = held()
            .filter(|r| !r.is_reserved())
            .min_by_key(|r| r.lease_until_millis);
        let (node, expires_in) = match (first, held().find(|r| r.is_reserved())) {
            (Some(r), _) => {
                let ms = u64::try_from(r.lease_until_millis.saturating_sub(now)).unwrap_or(0);
                (r.node, Duration::from_millis(ms))
            }
            (None, Some(r)) => (r.node, Duration::MAX),
            (None, None) => (*self.nodes.start(), Duration::ZERO),
        };
        let remaining = self.options.wait_for_node.saturating_sub(waited);
        if remaining.is_zero() {
            return Err(LeaseError::AllTaken {
                space: self.options.space.clone(),
                nodes: *self.nodes.end() - *self.nodes.start() + 1,
                first: *self.nodes.start(),
                last: *self.nodes.end(),
                reserved,
                node,
                expires_in,
                waited,
            });
        }
        // Just after the first lease ends, polling at least every renewal
        // interval (a node may be released early).
        Ok(expires_in
            .saturating_add(Duration::from_millis(5))
            .min(self.options.renew_every)
            .min(remaining)
            .max(Duration::from_millis(1)))
    }

    fn into_lease(
        self,
        node: u64,
        claimed: Claimed,
        ceiling_millis: u64,
    ) -> (Lease<L, C>, Arc<Shared<C>>) {
        let ceiling = Arc::new(Ceiling::new(self.options.at_ceiling));
        let now = self.options.clock.now_millis();
        ceiling.raise(ceiling_millis, now);
        let shared = Arc::new(Shared {
            space: self.options.space,
            node,
            owner: self.owner,
            fence: claimed.fence,
            ttl: self.options.ttl,
            renew_every: self.options.renew_every,
            lead_millis: self.lead_millis,
            clock: self.options.clock,
            ceiling,
            stop: Mutex::new(false),
            stopped: Condvar::new(),
        });
        let lease = Lease {
            shared: shared.clone(),
            layout: self.options.layout,
            resume_after: claimed.high_water_millis,
            lease_until_millis: claimed.lease_until_millis,
            done: false,
        };
        (lease, shared)
    }
}

/// What the renewal and the lease handle share.
struct Shared<C> {
    space: String,
    node: u64,
    owner: String,
    fence: u64,
    ttl: Duration,
    renew_every: Duration,
    lead_millis: u64,
    clock: C,
    ceiling: Arc<Ceiling>,
    stop: Mutex<bool>,
    stopped: Condvar,
}

impl<C: Clock> Shared<C> {
    fn renew_request(&self, ceiling_millis: u64) -> RenewRequest<'_> {
        RenewRequest {
            space: &self.space,
            node: self.node,
            owner: &self.owner,
            fence: self.fence,
            ttl: self.ttl,
            ceiling_millis,
        }
    }

    /// The next ceiling: the lead ahead of the clock, never lower than the
    /// current one.
    fn next_ceiling(&self) -> u64 {
        self.clock
            .now_millis()
            .saturating_add(self.lead_millis)
            .max(self.ceiling.millis())
    }

    /// Applies a renewal's outcome; whether to keep renewing.
    fn renewed(&self, ceiling_millis: u64, result: Result<bool, StoreError>) -> bool {
        let now = self.clock.now_millis();
        match result {
            // Persisted: the generator may use it. (Refused once closed.)
            Ok(true) => self.ceiling.raise(ceiling_millis, now),
            Ok(false) => {
                self.ceiling.close(FenceReason::Lost {
                    fence: self.fence,
                    detected_millis: now,
                });
                false
            }
            Err(e) => {
                self.ceiling.record_failure(e.to_string());
                !self.is_stopped()
            }
        }
    }
}

impl<C> Shared<C> {
    fn is_stopped(&self) -> bool {
        *self.stop.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stop(&self) {
        *self.stop.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.stopped.notify_all();
    }

    /// Sleeps for `d` unless stopped first; whether it was stopped.
    fn wait_stopped(&self, d: Duration) -> bool {
        let guard = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        let (guard, _) = self
            .stopped
            .wait_timeout_while(guard, d, |stop| !*stop)
            .unwrap_or_else(PoisonError::into_inner);
        *guard
    }
}

/// The holder's side of a lease, common to [`NodeLease`] and [`AsyncNodeLease`].
struct Lease<L, C> {
    shared: Arc<Shared<C>>,
    layout: L,
    resume_after: u64,
    lease_until_millis: i64,
    /// Released (or found lost): nothing left to do on drop.
    done: bool,
}

impl<L: Layout + Clone, C: Clock + Clone> Lease<L, C> {
    fn generator_builder(&self) -> GeneratorBuilder<L, C> {
        Generator::builder(self.layout.clone(), self.shared.node)
            .clock(self.shared.clock.clone())
            .resume_after(self.resume_after)
            .ceiling(self.shared.ceiling.clone())
    }

    /// Stops renewing and the generator; the exact high-water mark to record.
    fn finish<L2: Layout, C2: Clock>(
        &mut self,
        generator: Option<&Generator<L2, C2>>,
    ) -> Result<u64, LeaseError> {
        let s = &self.shared;
        match generator {
            Some(g) if !g.uses_ceiling(&s.ceiling) => {
                return Err(LeaseError::NotThisLease { node: s.node });
            }
            None if s.ceiling.is_attached() => {
                return Err(LeaseError::GeneratorInUse { node: s.node });
            }
            _ => {}
        }
        s.stop();
        s.ceiling.close(FenceReason::Released {
            released_millis: s.clock.now_millis(),
        });
        self.done = true;
        let last = generator.and_then(Generator::seal);
        Ok(last.unwrap_or(0).max(self.resume_after))
    }

    fn release_request(&self, high_water_millis: u64) -> ReleaseRequest<'_> {
        ReleaseRequest {
            space: &self.shared.space,
            node: self.shared.node,
            owner: &self.shared.owner,
            fence: self.shared.fence,
            high_water_millis,
        }
    }

    fn released(&self, result: Result<bool, StoreError>) -> Result<u64, LeaseError> {
        let s = &self.shared;
        match result {
            Ok(true) => Ok(s.fence),
            Ok(false) => Err(LeaseError::Lost {
                space: s.space.clone(),
                node: s.node,
                fence: s.fence,
            }),
            Err(e) => Err(LeaseError::Store {
                operation: format!(
                    "release node {} (fence {}; the row frees itself after the TTL)",
                    s.node, s.fence
                ),
                space: s.space.clone(),
                source: e,
            }),
        }
    }
}

impl<L, C> Drop for Lease<L, C> {
    fn drop(&mut self) {
        if !self.done {
            // Not released: stop renewing; the row frees itself after the
            // TTL, and the generator stops at its ceiling at once.
            self.shared.stop();
            self.shared.ceiling.close(FenceReason::Dropped);
        }
    }
}

/// Accessors shared by both lease handles.
macro_rules! lease_accessors {
    () => {
        /// The leased node ID.
        pub fn node(&self) -> u64 {
            self.lease.shared.node
        }

        /// The ID space.
        pub fn space(&self) -> &str {
            &self.lease.shared.space
        }

        /// This holder's generation: one more than the previous holder's.
        pub fn fence(&self) -> u64 {
            self.lease.shared.fence
        }

        /// The previous holders' high-water mark (Unix ms): the generator
        /// stamps its IDs after it.
        pub fn resume_after_millis(&self) -> u64 {
            self.lease.resume_after
        }

        /// When the lease first ended, by the store's clock (Unix ms).
        pub fn claimed_until_millis(&self) -> i64 {
            self.lease.lease_until_millis
        }

        /// The generator's ceiling, raised by each renewal.
        pub fn ceiling(&self) -> &Arc<Ceiling> {
            &self.lease.shared.ceiling
        }

        /// A builder for this lease's generator: the leased node, the
        /// options' clock, [`resume_after`](GeneratorBuilder::resume_after)
        /// the previous holders' mark and the lease's
        /// [`ceiling`](GeneratorBuilder::ceiling). Set policies on it as
        /// usual; one generator per lease.
        pub fn generator_builder(&self) -> GeneratorBuilder<L, C> {
            self.lease.generator_builder()
        }
    };
}

/// A held node lease, renewed by a background thread (see
/// [`LeaseOptions::claim`]). Release it with [`release`](Self::release)
/// when the process shuts down; dropping it stops the renewal and the
/// generator, and the row frees itself after the TTL.
pub struct NodeLease<L = BitLayout, C = MonotonicClock> {
    lease: Lease<L, C>,
    store: Arc<Mutex<Box<dyn LeaseStore>>>,
    thread: Option<JoinHandle<()>>,
}

impl<L, C> core::fmt::Debug for NodeLease<L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NodeLease")
            .field("space", &self.lease.shared.space)
            .field("node", &self.lease.shared.node)
            .field("fence", &self.lease.shared.fence)
            .field("ceiling_millis", &self.lease.shared.ceiling.millis())
            .finish_non_exhaustive()
    }
}

impl<L: Layout + Clone, C: Clock + Clone> NodeLease<L, C> {
    fn start(
        plan: Plan<L, C>,
        node: u64,
        claimed: Claimed,
        ceiling_millis: u64,
        store: Box<dyn LeaseStore>,
    ) -> Result<Self, LeaseError> {
        let (lease, shared) = plan.into_lease(node, claimed, ceiling_millis);
        let store = Arc::new(Mutex::new(store));
        let thread_store = store.clone();
        let thread = std::thread::Builder::new()
            .name(format!("flakeid-lease-{node}"))
            .spawn(move || renew_blocking(&shared, &thread_store))
            .map_err(|e| LeaseError::Renewal {
                node,
                message: format!("cannot start the renewal thread: {e}"),
            })?;
        Ok(NodeLease {
            lease,
            store,
            thread: Some(thread),
        })
    }

    lease_accessors!();

    /// Releases the node: stops the renewal and `generator` (it issues
    /// nothing more), and frees the row with the node's exact high-water
    /// mark, the last millisecond of the last tick `generator` issued IDs
    /// in, so the next holder (a restart of this process) need not wait.
    /// Returns the mark recorded.
    ///
    /// # Errors
    /// [`LeaseError::NotThisLease`] when `generator` was not built from
    /// this lease (the lease is then dropped: its renewal and its own
    /// generator stop, and the row frees itself after the TTL),
    /// [`LeaseError::Lost`] when another holder took the node,
    /// [`LeaseError::Store`] when the store fails or does not answer
    /// within the TTL (the row then frees itself after the TTL, keeping the
    /// higher ceiling).
    pub fn release<L2: Layout, C2: Clock>(
        mut self,
        generator: &Generator<L2, C2>,
    ) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(Some(generator))?;
        self.release_with(high_water)
    }

    /// Releases a lease from which no generator was built.
    ///
    /// # Errors
    /// [`LeaseError::GeneratorInUse`] when a generator was built from it;
    /// otherwise as [`release`](Self::release).
    pub fn release_unused(mut self) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(None::<&Generator>)?;
        self.release_with(high_water)
    }

    fn release_with(&mut self, high_water: u64) -> Result<u64, LeaseError> {
        if let Some(t) = self.thread.take()
            && t.join().is_err()
        {
            return Err(LeaseError::Renewal {
                node: self.lease.shared.node,
                message: "the renewal thread panicked".into(),
            });
        }
        // On a thread of its own, so that a store that stopped answering
        // (or a renewal still waiting for it) cannot hold the caller: after
        // the TTL the row frees itself anyway.
        let (shared, store) = (self.lease.shared.clone(), self.store.clone());
        let ttl = shared.ttl;
        let result = call_with_timeout(ttl, move || {
            store
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .release(&ReleaseRequest {
                    space: &shared.space,
                    node: shared.node,
                    owner: &shared.owner,
                    fence: shared.fence,
                    high_water_millis: high_water,
                })
        })
        .unwrap_or_else(|e| Err(e.into()));
        self.lease.released(result).map(|_| high_water)
    }
}

/// Runs `call` on a thread of its own; its result, or why there is none
/// after `timeout` (the call then goes on, detached, until the store answers).
fn call_with_timeout<T: Send + 'static>(
    timeout: Duration,
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("flakeid-lease-call".into())
        .spawn(move || {
            let _ = tx.send(call());
        })
        .map_err(|e| format!("cannot start a thread for the store call: {e}"))?;
    rx.recv_timeout(timeout).map_err(|e| match e {
        RecvTimeoutError::Timeout => format!("the store did not answer within {timeout:?}"),
        RecvTimeoutError::Disconnected => "the store call panicked".to_owned(),
    })
}

/// The renewal thread: renews every interval until stopped or lost. Each
/// renewal runs on a thread of its own: one the store does not answer
/// within the interval counts as failed (the ceiling stays where it is, so
/// the generator fences at it) and the renewal thread stays free to stop.
/// A late answer still raises the ceiling: the time it carries was
/// persisted. The next renewal waits for it (one statement at a time).
fn renew_blocking<C: Clock>(shared: &Arc<Shared<C>>, store: &Arc<Mutex<Box<dyn LeaseStore>>>) {
    let slice = Duration::from_millis(50).min(shared.renew_every);
    loop {
        if shared.wait_stopped(shared.renew_every) {
            return;
        }
        let ceiling = shared.next_ceiling();
        let (tx, rx) = mpsc::channel();
        let (call_shared, call_store) = (shared.clone(), store.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("flakeid-lease-{}-renew", shared.node))
            .spawn(move || {
                let result = call_store
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .renew(&call_shared.renew_request(ceiling));
                let _ = tx.send(result);
            });
        if let Err(e) = spawned {
            shared
                .ceiling
                .record_failure(format!("cannot start a renewal thread: {e}"));
            continue;
        }
        let started = Instant::now();
        let mut noted = false;
        let result = loop {
            match rx.recv_timeout(slice) {
                Ok(result) => break result,
                Err(RecvTimeoutError::Timeout) => {
                    if shared.is_stopped() {
                        return;
                    }
                    if !noted && started.elapsed() >= shared.renew_every {
                        shared
                            .ceiling
                            .record_failure(format!("no answer within {:?}", shared.renew_every));
                        noted = true;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    break Err("the renewal call panicked".into());
                }
            }
        };
        if !shared.renewed(ceiling, result) {
            return;
        }
    }
}

/// A held node lease on an async store, renewed by the future returned
/// with it (see [`LeaseOptions::claim_async`]). Release it with
/// [`release`](Self::release); dropping it stops the renewal and the
/// generator, and the row frees itself after the TTL.
pub struct AsyncNodeLease<S, L = BitLayout, C = MonotonicClock> {
    lease: Lease<L, C>,
    store: Arc<S>,
}

impl<S, L, C> core::fmt::Debug for AsyncNodeLease<S, L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncNodeLease")
            .field("space", &self.lease.shared.space)
            .field("node", &self.lease.shared.node)
            .field("fence", &self.lease.shared.fence)
            .field("ceiling_millis", &self.lease.shared.ceiling.millis())
            .finish_non_exhaustive()
    }
}

impl<S: AsyncLeaseStore, L: Layout + Clone, C: Clock + Clone> AsyncNodeLease<S, L, C> {
    lease_accessors!();

    /// The store the lease is kept in.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// See [`NodeLease::release`].
    ///
    /// # Errors
    /// As [`NodeLease::release`].
    pub async fn release<L2: Layout, C2: Clock>(
        mut self,
        generator: &Generator<L2, C2>,
    ) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(Some(generator))?;
        let result = self
            .store
            .release(&self.lease.release_request(high_water))
            .await;
        self.lease.released(result).map(|_| high_water)
    }

    /// See [`NodeLease::release_unused`].
    ///
    /// # Errors
    /// As [`NodeLease::release_unused`].
    pub async fn release_unused(mut self) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(None::<&Generator>)?;
        let result = self
            .store
            .release(&self.lease.release_request(high_water))
            .await;
        self.lease.released(result).map(|_| high_water)
    }
}

/// The renewal future: renews every interval until stopped or lost. A
/// renewal that takes longer than the interval counts as failed (and is
/// dropped); the ceiling is raised only by renewals that completed.
async fn renew_async<S: AsyncLeaseStore, C: Clock, R: Sleep>(
    shared: Arc<Shared<C>>,
    store: Arc<S>,
    runtime: R,
) {
    loop {
        runtime.sleep(shared.renew_every).await;
        if shared.is_stopped() {
            return;
        }
        let ceiling = shared.next_ceiling();
        let request = shared.renew_request(ceiling);
        let result = match timeout(&runtime, shared.renew_every, store.renew(&request)).await {
            Some(result) => result,
            None => Err(format!("no answer within {:?}", shared.renew_every).into()),
        };
        if !shared.renewed(ceiling, result) {
            return;
        }
    }
}

/// `fut`'s output, or `None` if `d` passes first.
pub(crate) async fn timeout<T, R: Sleep>(
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

/// 128 random bits as hex: the holder's `owner` token.
fn random_token() -> String {
    let seed = crate::rng::os_seed() ^ u64::from(std::process::id()).rotate_left(32);
    format!(
        "{:016x}{:016x}",
        crate::rng::nth(seed, 0),
        crate::rng::nth(crate::rng::os_seed(), 1)
    )
}

/// `hostname/pid`.
fn default_holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown-host".to_owned());
    format!("{host}/{}", std::process::id())
}
