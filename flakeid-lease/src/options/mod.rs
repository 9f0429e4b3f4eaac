//! How to claim a node of an ID space: [`LeaseOptions`], checked into a
//! plan with this claimant's identity.

mod plan;

use core::ops::RangeInclusive;
use core::time::Duration;

use super::error::LeaseError;
use flakeid_core::CeilingWait;
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::{Clock, MonotonicClock};

pub(crate) use plan::Plan;

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
/// * **Claim**: the node rows of the space are inserted (idempotently);
///   then the table is read (one statement) and the nodes free by the
///   database's clock are tried from a random node on, wrapping around, each
///   with one compare-and-set: `UPDATE … SET owner = :me, fence = fence + 1,
///   lease_until = <db now> + ttl WHERE space = :s AND node_id = :n AND
///   (owner IS NULL OR lease_until < <db now>) AND high_water <= <db now> +
///   :max_ahead`; one row changed means it was won. All taken is
///   [`LeaseError::AllTaken`], saying how many nodes exist and when the
///   first lease ends; [`LeaseOptions::wait_for_node`] keeps trying instead,
///   reading the table every [`LeaseOptions::POLL_EVERY`] (50 ms), so a
///   released node is taken within about that long.
/// * **The ceiling**: the generator never stamps an ID later than its
///   ceiling, and the ceiling is raised only to a time already written as
///   `high_water`. Renewal sets `lease_until` and raises `high_water` to the
///   new ceiling (the clock plus the ceiling lead) in one statement `WHERE
///   owner = :me AND fence = :fence AND :ceiling <= <db now> + :max_ahead`:
///   a holder that lost its row cannot renew, and a holder whose clock runs
///   ahead of the database's by more than
///   [`max_clock_skew`](LeaseOptions::max_clock_skew) cannot write a mark
///   that would hold later holders back. At the ceiling the generator waits
///   or fails ([`CeilingWait`]) with [`Fenced`](flakeid_core::Fenced), naming
///   the reason and since when. The check costs nothing per ID: it runs when
///   the generator enters a new tick, not on the same-tick shortcut.
/// * **Hand-over**: the next holder's generator starts after the previous
///   holders' `high_water` plus one tick
///   ([`GeneratorBuilder::resume_after`](flakeid_core::GeneratorBuilder::resume_after)),
///   whatever its own clock says. IDs of one node are therefore disjoint in
///   time across holders: a restart in the same tick, a wall clock stepped
///   back between runs, a predecessor that ran ahead of its clock, a holder
///   paused past its lease that wakes up, none can repeat an ID. A clock
///   more than one tick behind the mark is a clock regression
///   ([`ClockRegression`](flakeid_core::ClockRegression) waits or fails).
/// * **Loss and moving**: a holder that was cut off past its lease (paused,
///   partitioned) while another took its node finds out at its next
///   renewal that reaches the store; its generator stops for good. If it
///   feeds the process-wide generator ([`global::init`](flakeid_core::global::init)),
///   the lease claims a free node and moves the generator there
///   ([`LeaseOptions::heal`]).
/// * **Release** stops the generator, records the exact `high_water` (the
///   last millisecond of the last tick it used, so a restarted process
///   need not wait for the ceiling) and frees the row, within the TTL
///   whatever the database does. A crashed holder's row frees itself when
///   its lease expires.
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
/// clock reading catches up — [`MonotonicClock`](flakeid_core::MonotonicClock)
/// publishes its reading from a thread that was paused too — it may still
/// issue IDs stamped with that stale time, before its ceiling, so they
/// repeat nothing the next holder issues.) A holder that cannot reach the database keeps issuing for
/// at most the ceiling lead after its last renewal, then fences (and
/// resumes when a renewal gets through, unless another holder took the
/// node meanwhile: then that node's generator fails with
/// [`FenceReason::Lost`](flakeid_core::FenceReason::Lost) for good, and the
/// process-wide generator moves to a free node, see [`LeaseOptions::heal`]).
///
/// # Defaults
///
/// | setting | default | why |
/// |---|---|---|
/// | [TTL](LeaseOptions::ttl) | [`LeaseOptions::DEFAULT_TTL`], 15 s | a crashed holder's node is free within 15 s; kanengo/ku uses 15 s, CosId 5 min |
/// | [renewal](LeaseOptions::renew_every) | [`LeaseOptions::DEFAULT_RENEW_EVERY`], 3 s | Leaf reports every 3 s, kanengo/ku renews every 3 s: four renewals may fail before the ceiling is reached |
/// | [ceiling lead](LeaseOptions::ceiling_lead) | the TTL | rides out a database outage as long as the lease lasts, and a holder paused past its lease is past its ceiling |
/// | [at the ceiling](LeaseOptions::at_ceiling) | wait up to 1 s | as the clock-regression default: a slow renewal is waited out, an outage is an error |
/// | [high-water file](crate::HighWaterFileOptions) | lead 500 ms, written every 200 ms | a restart after a crash waits at most 0.5 s |
///
/// # Stores
///
/// [`LeaseStore`](crate::LeaseStore) (blocking) and [`AsyncLeaseStore`](crate::AsyncLeaseStore) are the protocol's
/// operations; [`SqlLeaseStore`](crate::SqlLeaseStore) runs
/// them as SQL on PostgreSQL, MySQL/MariaDB and SQLite through
/// `flakeid-seaorm` (renewed by a tokio task) and `flakeid-diesel`
/// (renewed by a thread with its own connection). [`MemoryLeaseStore`](crate::MemoryLeaseStore)
/// keeps the table in memory, for tests of one process.
///
/// ```
/// use flakeid_core::layout::Layout;
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{LeaseOptions, MemoryLeaseStore};
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
/// use flakeid_lease::{LeaseOptions, MemoryLeaseStore};
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
    pub(super) layout: L,
    pub(super) clock: C,
    nodes: Option<RangeInclusive<u64>>,
    pub(super) ttl: Duration,
    pub(super) renew_every: Duration,
    ceiling_lead: Option<Duration>,
    holder: Option<String>,
    pub(super) wait_for_node: Duration,
    pub(super) at_ceiling: CeilingWait,
    spread: bool,
    pub(super) max_clock_skew: Duration,
    pub(super) heal: bool,
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
            max_clock_skew: LeaseOptions::DEFAULT_MAX_CLOCK_SKEW,
            heal: true,
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
            max_clock_skew: self.max_clock_skew,
            heal: self.heal,
        }
    }

    flakeid_core::__private::setters! {
        /// Leases only these node IDs (default: all of the layout's). The
        /// space's rows are created at the first claim, one per node: 1,024
        /// for Twitter's layout, 65,536 for Sonyflake's; restrict the range
        /// for layouts with large node fields.
        nodes(nodes: RangeInclusive<u64>) => nodes = Some(nodes);

        /// How long a lease lasts without renewal (default [`LeaseOptions::DEFAULT_TTL`]).
        ttl(ttl: Duration) => ttl = ttl;

        /// How often the lease is renewed (default [`LeaseOptions::DEFAULT_RENEW_EVERY`]);
        /// must be shorter than the ceiling lead.
        renew_every(every: Duration) => renew_every = every;

        /// How far ahead of the clock each renewal sets the ceiling (default:
        /// the TTL; at most the TTL). A holder paused past its lease then finds
        /// its clock beyond its ceiling and stamps nothing later than its
        /// pause, and a holder that cannot reach the store stamps nothing later
        /// than this long after its last renewal.
        ceiling_lead(lead: Duration) => ceiling_lead = Some(lead);

        /// The `holder` text operators see (default `hostname/pid`).
        holder(holder: impl Into<String>) => holder = Some(holder.into());

        /// When every node is taken, keep trying for up to `max` (default 0:
        /// fail at once with [`LeaseError::AllTaken`]).
        wait_for_node(max: Duration) => wait_for_node = max;

        /// What the generator does at its ceiling (default [`CeilingWait::default`]).
        at_ceiling(policy: CeilingWait) => at_ceiling = policy;

        /// Whether claimants try the nodes from a random one on (`true`, the
        /// default), so that processes starting together mostly try different
        /// rows, or all from the first node up (`false`: the lowest free node
        /// is taken, so node IDs in use stay dense, but claimants starting
        /// together compete for the same rows; `BENCHMARKS.md` measures what
        /// that costs).
        spread_claims(spread: bool) => spread = spread;

        /// How far this holder's clock may run ahead of the store's (default
        /// [`LeaseOptions::DEFAULT_MAX_CLOCK_SKEW`], 5 s).
        ///
        /// A holder persists ceilings from its own clock (its clock plus the
        /// [`ceiling_lead`](Self::ceiling_lead)); the next holder of the node
        /// starts after them. A clock running a day ahead would leave a mark a
        /// day ahead, and the node unusable for a day. So the store refuses a
        /// ceiling further ahead of its own clock than the lead plus this skew:
        /// the claim fails with [`LeaseError::ClockAhead`] naming both clocks,
        /// and a renewal is refused (the generator then stops at its current
        /// ceiling, and the refusal is logged) until the clock is back within
        /// the skew. Claims also skip nodes whose mark lies further ahead than
        /// that (left by a holder without this check), listing them in
        /// [`LeaseError::AllTaken`] and in [`NodeTable`](crate::NodeTable)'s display.
        ///
        /// The SQL stores and [`MemoryLeaseStore`](crate::MemoryLeaseStore)
        /// check it against their clock; etcd offers a client no clock, so the
        /// etcd store cannot.
        ///
        /// ```
        /// use std::{sync::Arc, time::Duration};
        /// use flakeid_core::layout::presets;
        /// use flakeid_core::{Clock, ManualClock, MonotonicClock};
        /// use flakeid_lease::{LeaseError, LeaseOptions, MemoryLeaseStore};
        ///
        /// let store = MemoryLeaseStore::new();
        /// // This holder's clock runs a day ahead of the store's.
        /// let fast = Arc::new(ManualClock::new(MonotonicClock::new().now_millis() + 86_400_000));
        /// let err = LeaseOptions::new("orders", presets::twitter())
        ///     .clock(fast)
        ///     .max_clock_skew(Duration::from_secs(5))
        ///     .claim(store.clone())
        ///     .unwrap_err();
        /// assert!(matches!(err, LeaseError::ClockAhead { .. }), "{err}");
        /// // Nothing was persisted ahead: the next holder is not held back.
        /// let lease = LeaseOptions::new("orders", presets::twitter()).claim(store)?;
        /// lease.release_unused()?;
        /// # Ok::<(), LeaseError>(())
        /// ```
        max_clock_skew(skew: Duration) => max_clock_skew = skew;

        /// Whether a lease that was lost (another holder took the node while
        /// this one was cut off from the store) claims a free node and moves the
        /// process-wide generator to it (`true`, the default), or stays lost
        /// (`false`: every later ID fails with
        /// [`GenerateError::Fenced`](flakeid_core::GenerateError::Fenced), for
        /// applications that prefer to exit and be restarted).
        ///
        /// Only the process-wide generator moves: the lease's builder must have
        /// gone to [`global::init`](flakeid_core::global::init). A generator built
        /// with [`GeneratorBuilder::build`](flakeid_core::GeneratorBuilder::build) stays on its node, and a lost lease
        /// of one stays lost.
        ///
        /// The move: the renewal notices the loss at its next attempt that
        /// reaches the store ([`renew_every`](Self::renew_every) after the last
        /// one at most); the old node's generator stops; the lease claims a free
        /// node as [`claim`](Self::claim) does (waiting for one as long as
        /// needed) and the generator continues on it, after its high-water
        /// mark. A call made meanwhile waits for the move as
        /// [`at_ceiling`](Self::at_ceiling) allows (1 s by default), then fails
        /// with [`Fenced`](flakeid_core::Fenced). The time without IDs is the
        /// time the holder was cut off, plus at most `renew_every` and one
        /// claim when a node is free.
        heal(heal: bool) => heal = heal;
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
    /// use flakeid_lease::LeaseOptions;
    ///
    /// assert_eq!(LeaseOptions::new("s", presets::twitter()).max_holders()?, 1024);
    /// assert_eq!(LeaseOptions::new("s", presets::sonyflake()).nodes(0..=99).max_holders()?, 100);
    /// # Ok::<(), flakeid_lease::LeaseError>(())
    /// ```
    ///
    /// # Errors
    /// [`LeaseError::InvalidOption`], as [`claim`](Self::claim) would.
    pub fn max_holders(&self) -> Result<u64, LeaseError> {
        let plan = self.clone().plan()?;
        Ok(*plan.nodes.end() - *plan.nodes.start() + 1)
    }

    /// How often the lease is renewed ([`renew_every`](Self::renew_every)):
    /// each interval a renewal leaves unanswered counts as a failed
    /// renewal, so stores that can give their statements a deadline use it
    /// (Diesel's). An async holder ([`claim_async`](Self::claim_async))
    /// lets a slow renewal go on while the next interval's starts, at most
    /// four at once (the oldest is given up for a fifth); a blocking holder
    /// waits for it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use flakeid_core::layout::presets;
    /// use flakeid_lease::LeaseOptions;
    ///
    /// let options = LeaseOptions::new("s", presets::twitter());
    /// assert_eq!(options.renew_interval(), LeaseOptions::DEFAULT_RENEW_EVERY);
    /// ```
    pub fn renew_interval(&self) -> Duration {
        self.renew_every
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
    /// use flakeid_lease::LeaseOptions;
    ///
    /// let bound = LeaseOptions::new("s", presets::twitter()).crashed_node_unusable_for();
    /// assert_eq!(bound, Duration::from_secs(12)..=Duration::from_secs(15));
    /// ```
    pub fn crashed_node_unusable_for(&self) -> RangeInclusive<Duration> {
        self.ttl.saturating_sub(self.renew_every)..=self.ttl
    }
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

    /// How far a holder's clock may run ahead of the store's unless
    /// [`LeaseOptions::max_clock_skew`] says otherwise: 5 s.
    ///
    /// Clocks kept by NTP agree within milliseconds; 5 s leaves room for a
    /// machine whose clock is badly kept without refusing it, and bounds
    /// how long a hand-over from such a holder can make the next holder
    /// wait for its clock (the mark it left is at most this far ahead).
    pub const DEFAULT_MAX_CLOCK_SKEW: Duration = Duration::from_secs(5);

    /// How often a claimant waiting for a node, or a lease moving to a new
    /// node, reads the table (one statement) to find a free one: a released
    /// node is taken within about this long.
    pub const POLL_EVERY: Duration = Duration::from_millis(50);

    /// The longest space name the lease table holds (its `VARCHAR(191)`
    /// primary-key column fits MySQL's index limit in `utf8mb4`).
    pub const MAX_SPACE_LEN: usize = 191;
}
