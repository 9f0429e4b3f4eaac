//! How to claim a node of an ID space: [`LeaseOptions`], checked into a
//! plan with this claimant's identity.

use core::ops::RangeInclusive;
use core::time::Duration;
use std::sync::{Arc, Condvar, Mutex};

use super::error::LeaseError;
use super::holder::{Lease, Shared};
use super::store::{ClaimRequest, Claimed, NodeTable, RenewRequest};
use crate::clock::{Clock, MonotonicClock};
use crate::generator::{Ceiling, CeilingWait};
use crate::layout::{BitLayout, Layout};
use crate::store::StoreError;

/// How to claim a node ID of one ID space, and the protocol leases follow.
///
/// # The lease protocol
///
/// One table, shared by many ID spaces (a space is one layout and epoch
/// whose IDs go into the same tables), one row per node:
///
/// ```text
/// flakeid_nodes(space, node_id, owner, fence, lease_until, high_water, holder)
///   primary key (space, node_id)
/// ```
///
/// * `owner` is the holder's random token (`NULL` when free), `fence` its
///   generation (+1 at every claim), `lease_until` the lease's end in ms by
///   the **database's** clock, `high_water` (ms, the IDs' time base): no ID
///   of the node was or will be stamped later by any holder so far,
///   `holder` host/pid for operators.
/// * **Claim**: the node rows of the space are inserted (idempotently),
///   then candidates are tried from a random node on, wrapping around, each
///   with one compare-and-set: `UPDATE … SET owner = :me, fence = fence + 1,
///   lease_until = <db now> + ttl WHERE space = :s AND node_id = :n AND
///   (owner IS NULL OR lease_until < <db now>)`; one row changed means it
///   was won. All taken is [`LeaseError::AllTaken`], saying how many nodes
///   exist and when the first lease ends; [`LeaseOptions::wait_for_node`]
///   keeps trying instead.
/// * **The ceiling**: the generator never stamps an ID later than its
///   [`Ceiling`], and the ceiling is raised only to a time already written
///   as `high_water`. Renewal sets `lease_until` and raises `high_water` to
///   the new ceiling (the clock plus the ceiling lead) in one statement
///   `WHERE owner = :me AND fence = :fence`: a holder that lost its row
///   cannot renew. At the ceiling the generator waits or fails
///   ([`CeilingWait`]) with [`Fenced`](crate::node::Fenced), naming the reason and since when.
///   The check costs nothing per ID: it runs when the generator enters a
///   new tick, not on the same-tick shortcut.
/// * **Hand-over**: the next holder's generator starts after the previous
///   holders' `high_water` plus one tick
///   ([`GeneratorBuilder::resume_after`](crate::GeneratorBuilder::resume_after)),
///   whatever its own clock says. IDs of one node are therefore disjoint in
///   time across holders: a restart in the same tick, a wall clock stepped
///   back between runs, a predecessor that ran ahead of its clock, a holder
///   paused past its lease that wakes up, none can repeat an ID. A clock
///   more than one tick behind the mark is a clock regression
///   ([`ClockRegression`](crate::ClockRegression) waits or fails).
/// * **Release** stops the generator, records the exact `high_water` (the
///   last millisecond of the last tick it used, so a restarted process
///   need not wait for the ceiling) and frees the row. A crashed holder's
///   row frees itself when its lease expires.
///
/// # What is guaranteed
///
/// Whatever the clocks of holders and database do, and whether a holder
/// crashes, pauses (SIGSTOP, a VM paused) or loses the database: two
/// holders never stamp IDs of one node in the same tick, so no ID is
/// issued twice. This rests on the database's row-level atomicity, on each
/// holder writing a ceiling before using it, and on node IDs being leased
/// (not configured by hand) for every writer of the space.
///
/// With the defaults (ceiling lead = TTL), a holder paused for longer than
/// its lease finds its clock beyond its ceiling when it wakes and stamps
/// nothing later than the moment it was paused. (In the moment before its
/// clock reading catches up — [`MonotonicClock`](crate::MonotonicClock)
/// publishes its reading from a thread that was paused too — it may still
/// issue IDs stamped with that stale time, before its ceiling, so they
/// repeat nothing the next holder issues.) A holder that cannot reach the database keeps issuing for
/// at most the ceiling lead after its last renewal, then fences (and
/// resumes when a renewal gets through, unless another holder took the
/// node meanwhile: then it fails with [`FenceReason::Lost`](crate::node::FenceReason::Lost) for good).
///
/// # Defaults
///
/// | setting | default | why |
/// |---|---|---|
/// | [TTL](LeaseOptions::ttl) | [`LeaseOptions::DEFAULT_TTL`], 15 s | a crashed holder's node is free within 15 s; kanengo/ku uses 15 s, CosId 5 min |
/// | [renewal](LeaseOptions::renew_every) | [`LeaseOptions::DEFAULT_RENEW_EVERY`], 3 s | Leaf reports every 3 s, kanengo/ku renews every 3 s: four renewals may fail before the ceiling is reached |
/// | [ceiling lead](LeaseOptions::ceiling_lead) | the TTL | rides out a database outage as long as the lease lasts, and a holder paused past its lease is past its ceiling |
/// | [at the ceiling](LeaseOptions::at_ceiling) | wait up to 1 s | as the clock-regression default: a slow renewal is waited out, an outage is an error |
/// | [high-water file](crate::node::HighWaterFileOptions) | lead 500 ms, written every 200 ms | a restart after a crash waits at most 0.5 s |
///
/// # Stores
///
/// [`LeaseStore`](crate::node::LeaseStore) (blocking) and [`AsyncLeaseStore`](crate::node::AsyncLeaseStore) are the protocol's
/// operations; [`SqlLeaseStore`](crate::node::lease::sql::SqlLeaseStore) runs
/// them as SQL on PostgreSQL, MySQL/MariaDB and SQLite through
/// `flakeid-seaorm` (renewed by a tokio task) and `flakeid-diesel`
/// (renewed by a thread with its own connection). [`MemoryLeaseStore`](crate::node::MemoryLeaseStore)
/// keeps the table in memory, for tests of one process.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::node::{LeaseOptions, MemoryLeaseStore};
/// use flakeid_core::layout::Layout;
///
/// let store = MemoryLeaseStore::new();
/// let lease = LeaseOptions::new("users", presets::twitter()).claim(store.clone())?;
/// let generator = lease.generator_builder().build()?;
/// let id = generator.next_id()?;
/// let node = lease.node();
/// assert_eq!(generator.layout().decompose(id).node, node);
/// let mark = lease.release(&generator)?;
/// // The next holder of the node starts after `mark`.
/// let table = store.table("users");
/// let row = table.rows.iter().find(|r| r.node == node).unwrap();
/// assert_eq!(row.high_water_millis, mark);
/// assert!(row.owner.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Example
///
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::layout::presets;
/// use flakeid_core::node::{LeaseOptions, MemoryLeaseStore};
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
/// # use flakeid_core::layout::Layout;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct LeaseOptions<L = BitLayout, C = MonotonicClock> {
    pub(super) space: String,
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
    /// tables; any name up to [`LeaseOptions::MAX_SPACE_LEN`] characters), issuing IDs of
    /// `layout`: all its node IDs, [`LeaseOptions::DEFAULT_TTL`], [`LeaseOptions::DEFAULT_RENEW_EVERY`],
    /// a ceiling lead equal to the TTL, no waiting for a free node,
    /// [`CeilingWait::default`].
    pub fn new(space: impl Into<String>, layout: L) -> Self {
        LeaseOptions {
            space: space.into(),
            layout,
            clock: MonotonicClock::new(),
            nodes: None,
            ttl: LeaseOptions::DEFAULT_TTL,
            renew_every: LeaseOptions::DEFAULT_RENEW_EVERY,
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

    /// How long a lease lasts without renewal (default [`LeaseOptions::DEFAULT_TTL`]).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How often the lease is renewed (default [`LeaseOptions::DEFAULT_RENEW_EVERY`]);
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
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::node::LeaseOptions;
    ///
    /// assert_eq!(LeaseOptions::new("s", presets::twitter()).max_holders()?, 1024);
    /// assert_eq!(LeaseOptions::new("s", presets::sonyflake()).nodes(0..=99).max_holders()?, 100);
    /// # Ok::<(), flakeid_core::node::LeaseError>(())
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
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::node::LeaseOptions;
    ///
    /// let bound = LeaseOptions::new("s", presets::twitter()).crashed_node_unusable_for();
    /// assert_eq!(bound, Duration::from_secs(12)..=Duration::from_secs(15));
    /// ```
    pub fn crashed_node_unusable_for(&self) -> RangeInclusive<Duration> {
        self.ttl.saturating_sub(self.renew_every)..=self.ttl
    }

    pub(super) fn plan(self) -> Result<Plan<L, C>, LeaseError> {
        let invalid = |option, value: String, reason: String| LeaseError::InvalidOption {
            option,
            value,
            reason,
        };
        if self.space.is_empty() || self.space.chars().count() > LeaseOptions::MAX_SPACE_LEN {
            return Err(invalid(
                "space",
                format!("{:?}", self.space),
                format!(
                    "a space name has 1..={} characters",
                    LeaseOptions::MAX_SPACE_LEN
                ),
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
}

/// Validated options plus this claimant's identity.
pub(super) struct Plan<L, C> {
    pub(super) options: LeaseOptions<L, C>,
    pub(super) nodes: RangeInclusive<u64>,
    pub(super) owner: String,
    pub(super) holder: String,
    /// Where in the range this claimant starts looking.
    pub(super) start: u64,
    pub(super) lead_millis: u64,
}

impl<L: Layout + Clone, C: Clock + Clone> Plan<L, C> {
    pub(super) fn store_error(&self, operation: &str, source: StoreError) -> LeaseError {
        LeaseError::Store {
            operation: operation.to_owned(),
            space: self.options.space.clone(),
            source,
        }
    }

    pub(super) fn candidates(&self) -> impl Iterator<Item = u64> + use<L, C> {
        let (first, count) = (
            *self.nodes.start(),
            *self.nodes.end() - *self.nodes.start() + 1,
        );
        let start = self.start;
        (0..count).map(move |i| first + (start + i) % count)
    }

    pub(super) fn claim_request(&self, node: u64) -> ClaimRequest<'_> {
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
    pub(super) fn first_ceiling(&self, claimed: &Claimed) -> u64 {
        self.options
            .clock
            .now_millis()
            .max(claimed.high_water_millis)
            .saturating_add(self.lead_millis)
    }

    pub(super) fn renew_request(
        &self,
        node: u64,
        claimed: &Claimed,
        ceiling: u64,
    ) -> RenewRequest<'_> {
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
    pub(super) fn first_renewal(
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
    pub(super) fn retry_after(
        &self,
        table: &NodeTable,
        waited: Duration,
    ) -> Result<Duration, LeaseError> {
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

    pub(super) fn into_lease(
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

impl LeaseOptions {
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

    /// The longest space name the lease table holds (its `VARCHAR(191)`
    /// primary-key column fits MySQL's index limit in `utf8mb4`).
    pub const MAX_SPACE_LEN: usize = 191;
}
