//! What a lease store does: the operations of the lease protocol, one
//! atomic step each, in blocking ([`LeaseStore`]) and async
//! ([`AsyncLeaseStore`]) form.
//!
//! A store keeps one row per `(space, node)`: `owner`, `fence`,
//! `lease_until` and `high_water` (see [the lease protocol](crate::LeaseOptions#the-lease-protocol)).
//! The SQL stores ([`SqlLeaseStore`](crate::SqlLeaseStore),
//! run by `flakeid-seaorm` and `flakeid-diesel`) and the in-memory
//! [`MemoryLeaseStore`](crate::MemoryLeaseStore) implement both traits; a
//! store on another system (etcd, a key-value store with compare-and-set)
//! implements them with that system's atomic operations. Every operation
//! that changes a row is a compare-and-set on it; lease times are the
//! store's clock, never the caller's.

use core::fmt;
use core::future::Future;
use core::ops::RangeInclusive;
use core::time::Duration;

use super::error::LeaseError;
use flakeid_sql::StoreError;

/// Claim one node: take it if it is free or its lease has expired.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::ManualClock;
/// use flakeid_lease::{ClaimRequest, LeaseStore, MemoryLeaseStore};
///
/// // What a claim asks of a store, answered as every store must.
/// let mut store = MemoryLeaseStore::with_clock(ManualClock::new(1_700_000_000_000));
/// store.ensure_nodes("orders", 0..=1)?;
/// let claim = ClaimRequest {
///     space: "orders", node: 0, owner: "token-a", holder: "web-1/4242",
///     ttl: Duration::from_secs(15), max_ahead_millis: 30_000,
/// };
/// let row = store.try_claim(&claim)?.expect("node 0 is free");
/// assert_eq!((row.fence, row.lease_until_millis), (1, 1_700_000_015_000));
/// // While the lease lives, no one else gets the node.
/// assert!(store.try_claim(&ClaimRequest { owner: "token-b", ..claim })?.is_none());
/// # Ok::<(), flakeid_sql::StoreError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ClaimRequest<'a> {
    /// The ID space.
    pub space: &'a str,
    /// The node to claim.
    pub node: u64,
    /// The claimant's random token (becomes `owner`).
    pub owner: &'a str,
    /// Host and process, for operators (becomes `holder`).
    pub holder: &'a str,
    /// The lease's length, added to the store's clock.
    pub ttl: Duration,
    /// A node whose `high_water` is further ahead of the store's clock than
    /// this (ms) is not taken: a holder whose clock ran ahead left a mark
    /// that would hold every later holder back until the store's clock
    /// reaches it (see [`LeaseOptions::max_clock_skew`](crate::LeaseOptions::max_clock_skew)).
    /// A store without a clock of its own (etcd) cannot check it.
    pub max_ahead_millis: u64,
}

/// Renew a lease and raise the node's high-water mark to a new ceiling, in
/// one step and only if the row is still the caller's (`owner` and `fence`).
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::ManualClock;
/// use flakeid_lease::{ClaimRequest, LeaseStore, MemoryLeaseStore, RenewRequest, Renewal};
///
/// let mut store = MemoryLeaseStore::with_clock(ManualClock::new(1_700_000_000_000));
/// store.ensure_nodes("orders", 0..=0)?;
/// let ttl = Duration::from_secs(15);
/// let claim = ClaimRequest {
///     space: "orders", node: 0, owner: "a", holder: "web-1", ttl, max_ahead_millis: 30_000,
/// };
/// let row = store.try_claim(&claim)?.expect("node 0 is free");
/// let renew = RenewRequest {
///     space: "orders", node: 0, owner: "a", fence: row.fence,
///     ttl, ceiling_millis: 1_700_000_015_000, max_ahead_millis: 30_000,
/// };
/// assert_eq!(store.renew(&renew)?, Renewal::Renewed);
/// // The ceiling is persisted before the generator may stamp IDs up to it.
/// assert_eq!(store.list("orders")?.rows[0].high_water_millis, 1_700_000_015_000);
/// # Ok::<(), flakeid_sql::StoreError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RenewRequest<'a> {
    /// The ID space.
    pub space: &'a str,
    /// The node.
    pub node: u64,
    /// The holder's token.
    pub owner: &'a str,
    /// The holder's generation.
    pub fence: u64,
    /// The lease's new length from the store's clock.
    pub ttl: Duration,
    /// The new ceiling (Unix ms): `high_water` becomes at least this.
    pub ceiling_millis: u64,
    /// The renewal is refused ([`Renewal::ClockAhead`]) when the ceiling is
    /// further ahead of the store's clock than this (ms): the holder's
    /// clock runs ahead of the store's by more than the allowed skew. A
    /// store without a clock of its own (etcd) cannot check it.
    pub max_ahead_millis: u64,
}

/// A [`RenewRequest`] that owns its strings, for a store's future that
/// outlives the borrowed request.
#[derive(Debug, Clone)]
pub(super) struct OwnedRenewRequest {
    space: String,
    owner: String,
    node: u64,
    fence: u64,
    ttl: Duration,
    ceiling_millis: u64,
    max_ahead_millis: u64,
}

impl OwnedRenewRequest {
    pub(super) fn new(r: &RenewRequest<'_>) -> Self {
        OwnedRenewRequest {
            space: r.space.to_owned(),
            owner: r.owner.to_owned(),
            node: r.node,
            fence: r.fence,
            ttl: r.ttl,
            ceiling_millis: r.ceiling_millis,
            max_ahead_millis: r.max_ahead_millis,
        }
    }

    pub(super) fn borrow(&self) -> RenewRequest<'_> {
        RenewRequest {
            space: &self.space,
            node: self.node,
            owner: &self.owner,
            fence: self.fence,
            ttl: self.ttl,
            ceiling_millis: self.ceiling_millis,
            max_ahead_millis: self.max_ahead_millis,
        }
    }
}

/// What a renewal did.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::ManualClock;
/// use flakeid_lease::{ClaimRequest, LeaseStore, MemoryLeaseStore, RenewRequest, Renewal};
///
/// let mut store = MemoryLeaseStore::with_clock(ManualClock::new(1_700_000_000_000));
/// store.ensure_nodes("orders", 0..=0)?;
/// let ttl = Duration::from_secs(15);
/// let claim = ClaimRequest {
///     space: "orders", node: 0, owner: "a", holder: "web-1", ttl, max_ahead_millis: 30_000,
/// };
/// let fence = store.try_claim(&claim)?.expect("node 0 is free").fence;
/// let renew = RenewRequest {
///     space: "orders", node: 0, owner: "a", fence,
///     ttl, ceiling_millis: 1_700_000_015_000, max_ahead_millis: 30_000,
/// };
/// assert_eq!(store.renew(&renew)?, Renewal::Renewed);
/// // A ceiling too far ahead of the store's clock: the holder's clock runs ahead.
/// let ahead = RenewRequest { ceiling_millis: 1_700_000_090_000, ..renew };
/// assert_eq!(store.renew(&ahead)?, Renewal::ClockAhead { store_now_millis: 1_700_000_000_000 });
/// // Another generation of the node is not this holder's.
/// assert_eq!(store.renew(&RenewRequest { fence: fence + 1, ..renew })?, Renewal::Lost);
/// # Ok::<(), flakeid_sql::StoreError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Renewal {
    /// The lease was extended and `high_water` raised to the ceiling.
    Renewed,
    /// The row is no longer the holder's (`owner` or `fence` differ):
    /// another holder took the node.
    Lost,
    /// Nothing changed: the ceiling is further ahead of the store's clock
    /// than the request allows, so the holder's clock runs ahead.
    ClockAhead {
        /// The store's clock when it refused (Unix ms).
        store_now_millis: i64,
    },
}

/// Free a node, recording its final high-water mark, only if the row is
/// still the caller's.
///
/// ```
/// use std::time::Duration;
/// use flakeid_lease::{ClaimRequest, LeaseStore, MemoryLeaseStore, ReleaseRequest};
///
/// let mut store = MemoryLeaseStore::new();
/// store.ensure_nodes("orders", 0..=0)?;
/// let claim = ClaimRequest {
///     space: "orders", node: 0, owner: "a", holder: "web-1",
///     ttl: Duration::from_secs(15), max_ahead_millis: 30_000,
/// };
/// let fence = store.try_claim(&claim)?.expect("node 0 is free").fence;
/// let release = ReleaseRequest {
///     space: "orders", node: 0, owner: "a", fence, high_water_millis: 1_700_000_000_123,
/// };
/// assert!(store.release(&release)?);
/// let row = &store.list("orders")?.rows[0];
/// assert_eq!((row.owner.as_deref(), row.high_water_millis), (None, 1_700_000_000_123));
/// assert!(!store.release(&release)?); // the row is no longer this holder's
/// # Ok::<(), flakeid_sql::StoreError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ReleaseRequest<'a> {
    /// The ID space.
    pub space: &'a str,
    /// The node.
    pub node: u64,
    /// The holder's token.
    pub owner: &'a str,
    /// The holder's generation.
    pub fence: u64,
    /// The exact high-water mark (Unix ms): the last millisecond of the
    /// last tick the holder issued IDs in (or the previous holders' mark).
    /// It may be lower than the ceilings persisted before: the holder's
    /// generator is stopped and issued nothing later.
    pub high_water_millis: u64,
}

/// One node's row, as operators see it.
///
/// ```
/// use flakeid_lease::NodeRow;
///
/// let row = NodeRow {
///     node: 3,
///     owner: Some("token-a".into()),
///     fence: 2,
///     lease_until_millis: 1_700_000_015_000,
///     high_water_millis: 1_700_000_015_000,
///     holder: Some("web-1/4242".into()),
/// };
/// assert!(row.is_held(1_700_000_000_000));
/// assert!(!row.is_held(1_700_000_020_000)); // its lease has ended by then
/// assert!(!row.is_reserved());
/// assert_eq!(row.high_water_ahead_millis(1_700_000_000_000), 15_000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    /// The node ID.
    pub node: u64,
    /// The current holder's token; `None` when the node is free.
    pub owner: Option<String>,
    /// How many times the node was claimed (the holder's generation).
    pub fence: u64,
    /// When the lease ends (Unix ms, store's clock); when it was released for a free node.
    pub lease_until_millis: i64,
    /// No ID of this node was or will be stamped later than this (Unix ms),
    /// by any holder so far.
    pub high_water_millis: u64,
    /// Host and process of the last holder.
    pub holder: Option<String>,
}

impl NodeRow {
    /// The `lease_until` of a node reserved for a writer outside the lease
    /// protocol (the database function of `flakeid-id-function`'s
    /// `IdFunction`): a lease that never ends, so no claim takes the node.
    pub const RESERVED_UNTIL_MILLIS: i64 = i64::MAX;

    /// Whether a live lease holds the node at the store's time `now_millis`.
    pub fn is_held(&self, now_millis: i64) -> bool {
        self.owner.is_some() && self.lease_until_millis >= now_millis
    }

    /// Whether the node is reserved for good for a writer outside the lease
    /// protocol (its lease ends at [`NodeRow::RESERVED_UNTIL_MILLIS`],
    /// as the database function of `flakeid-id-function`'s `IdFunction`
    /// sets it).
    pub fn is_reserved(&self) -> bool {
        self.owner.is_some() && self.lease_until_millis == Self::RESERVED_UNTIL_MILLIS
    }

    /// How far the node's `high_water` lies ahead of the store's time
    /// `now_millis` (0 when it does not). A free node's mark is normally
    /// behind the clock; one far ahead was left by a holder whose clock
    /// ran ahead, and holds every later holder back until the clock gets
    /// there (claims skip such nodes, see [`ClaimRequest::max_ahead_millis`]).
    pub fn high_water_ahead_millis(&self, now_millis: i64) -> u64 {
        let now = u64::try_from(now_millis).unwrap_or(0);
        self.high_water_millis.saturating_sub(now)
    }
}

/// The rows of one space, read in one statement.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{LeaseOptions, LeaseStore, MemoryLeaseStore};
///
/// let mut store = MemoryLeaseStore::new();
/// let lease = LeaseOptions::new("orders", presets::twitter()).nodes(0..=3).claim(store.clone())?;
/// let table = store.list("orders")?;
/// assert_eq!((table.space.as_str(), table.rows.len()), ("orders", 4));
/// assert_eq!(table.held().map(|row| row.node).collect::<Vec<_>>(), [lease.node()]);
/// assert!(table.to_string().contains("1 of 4 nodes held")); // one line per node follows
/// lease.release_unused()?;
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTable {
    /// The ID space.
    pub space: String,
    /// The store's clock when the rows were read (Unix ms); `None` when
    /// the space has no rows.
    pub now_millis: Option<i64>,
    /// The rows, by node ID.
    pub rows: Vec<NodeRow>,
}

impl NodeTable {
    /// Every row of `space` in `store`, for operators: [`LeaseStore::list`],
    /// its error reported as the space's.
    ///
    /// ```
    /// use flakeid_lease::{LeaseStore, MemoryLeaseStore, NodeTable};
    ///
    /// let mut store = MemoryLeaseStore::new();
    /// store.ensure_nodes("orders", 0..=1)?;
    /// assert_eq!(NodeTable::read(&mut store, "orders")?.rows.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    ///
    /// # Errors
    /// [`LeaseError::Store`] naming the space, with the store's error.
    pub fn read(store: &mut impl LeaseStore, space: &str) -> Result<NodeTable, LeaseError> {
        store
            .list(space)
            .map_err(|source| LeaseError::store("list the nodes", space, source))
    }

    /// [`read`](Self::read) from an async store.
    ///
    /// # Errors
    /// [`LeaseError::Store`] naming the space, with the store's error.
    pub async fn read_async(
        store: &impl AsyncLeaseStore,
        space: &str,
    ) -> Result<NodeTable, LeaseError> {
        store
            .list(space)
            .await
            .map_err(|source| LeaseError::store("list the nodes", space, source))
    }

    /// The rows whose lease is live.
    pub fn held(&self) -> impl Iterator<Item = &NodeRow> {
        let now = self.now_millis.unwrap_or(i64::MIN);
        self.rows.iter().filter(move |r| r.is_held(now))
    }
}

/// A table for operators: one line per node.
///
/// ```
/// use flakeid_lease::{NodeRow, NodeTable};
///
/// let table = NodeTable {
///     space: "orders".into(),
///     now_millis: Some(1_700_000_000_000),
///     rows: vec![NodeRow {
///         node: 0,
///         owner: Some("9f…".into()),
///         fence: 3,
///         lease_until_millis: 1_700_000_012_000,
///         high_water_millis: 1_700_000_012_000,
///         holder: Some("web-1/4242".into()),
///     }],
/// };
/// assert_eq!(
///     table.to_string(),
///     "space \"orders\" at 1700000000000 ms (store clock): 1 of 1 nodes held\n\
///      node 0: held by web-1/4242, fence 3, lease ends in 12000 ms, high water 1700000012000 ms\n",
/// );
/// ```
impl fmt::Display for NodeTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let now = self.now_millis.unwrap_or(0);
        writeln!(
            f,
            "space {:?} at {now} ms (store clock): {} of {} nodes held",
            self.space,
            self.held().count(),
            self.rows.len()
        )?;
        for r in &self.rows {
            let holder = r.holder.as_deref().unwrap_or("-");
            let state = if r.is_reserved() {
                format!("reserved for {holder}, fence {}", r.fence)
            } else if r.is_held(now) {
                format!(
                    "held by {holder}, fence {}, lease ends in {} ms",
                    r.fence,
                    r.lease_until_millis - now
                )
            } else if r.owner.is_some() {
                format!(
                    "expired (last held by {holder}, fence {}) {} ms ago",
                    r.fence,
                    now - r.lease_until_millis
                )
            } else if r.fence == 0 {
                "free, never held".to_owned()
            } else {
                format!("free (last held by {holder}, fence {})", r.fence)
            };
            let ahead = r.high_water_ahead_millis(now);
            let ahead = if !r.is_held(now) && ahead > 0 {
                format!(" ({ahead} ms ahead of the store clock: unusable until then)")
            } else {
                String::new()
            };
            writeln!(
                f,
                "node {}: {state}, high water {} ms{ahead}",
                r.node, r.high_water_millis
            )?;
        }
        Ok(())
    }
}

/// A lease store used from blocking code (and from the renewal thread the
/// blocking [`LeaseOptions::claim`](crate::LeaseOptions::claim) starts).
///
/// A store keeps one row per `(space, node)`: `owner`, `fence`,
/// `lease_until` and `high_water` (see
/// [the lease protocol](crate::LeaseOptions#the-lease-protocol)). Every method is
/// one atomic step on the store; every change of a row is a
/// compare-and-set on it, and lease times are the store's clock, never the
/// caller's. The SQL stores
/// ([`SqlLeaseStore`](crate::SqlLeaseStore)) and
/// [`MemoryLeaseStore`](crate::MemoryLeaseStore) implement this trait and
/// [`AsyncLeaseStore`]; a store on another system (etcd, a key-value store
/// with compare-and-set) implements them with that system's atomic
/// operations.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{LeaseOptions, LeaseStore, MemoryLeaseStore};
/// use flakeid_sql::StoreError;
///
/// /// How many nodes of `space` a new holder could claim now, in any store.
/// fn free_nodes(store: &mut impl LeaseStore, space: &str) -> Result<usize, StoreError> {
///     let table = store.list(space)?;
///     Ok(table.rows.len() - table.held().count())
/// }
///
/// let mut store = MemoryLeaseStore::new();
/// let lease = LeaseOptions::new("orders", presets::twitter()).nodes(0..=3).claim(store.clone())?;
/// assert_eq!(free_nodes(&mut store, "orders")?, 3);
/// lease.release_unused()?;
/// assert_eq!(free_nodes(&mut store, "orders")?, 4);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub trait LeaseStore: Send {
    /// Makes sure a row exists for every node of `nodes` in `space`
    /// (inserting missing ones free, with fence 0 and high water 0);
    /// existing rows stay as they are.
    ///
    /// # Errors
    /// The store's error.
    fn ensure_nodes(&mut self, space: &str, nodes: RangeInclusive<u64>) -> Result<(), StoreError>;

    /// Takes the node if it is free or its lease has expired by the
    /// store's clock and its `high_water` is at most
    /// [`max_ahead_millis`](ClaimRequest::max_ahead_millis) ahead of that
    /// clock, in one compare-and-set: sets `owner`, `holder`, `fence + 1`,
    /// `lease_until = now + ttl`. Returns the row after the claim (the new
    /// `fence`, the previous holders' `high_water`, the new `lease_until`);
    /// `None` when the node was not taken.
    ///
    /// # Errors
    /// The store's error.
    fn try_claim(&mut self, request: &ClaimRequest<'_>) -> Result<Option<NodeRow>, StoreError>;

    /// Where `owner` and `fence` still match and the ceiling is at most
    /// [`max_ahead_millis`](RenewRequest::max_ahead_millis) ahead of the
    /// store's clock, sets `lease_until = now + ttl` and `high_water =
    /// max(high_water, ceiling)`; says which of these held.
    ///
    /// # Errors
    /// The store's error.
    fn renew(&mut self, request: &RenewRequest<'_>) -> Result<Renewal, StoreError>;

    /// Sets `owner = NULL` and `high_water` to the given mark where `owner`
    /// and `fence` still match; whether they did.
    ///
    /// # Errors
    /// The store's error.
    fn release(&mut self, request: &ReleaseRequest<'_>) -> Result<bool, StoreError>;

    /// Reads every row of `space`.
    ///
    /// # Errors
    /// The store's error.
    fn list(&mut self, space: &str) -> Result<NodeTable, StoreError>;
}

/// [`LeaseStore`] for async code: the same operations, as futures.
///
/// ```
/// use std::task::{Context, Poll, Waker};
/// use flakeid_lease::{AsyncLeaseStore, MemoryLeaseStore};
/// use flakeid_sql::StoreError;
///
/// /// How many nodes of `space` a new holder could claim now, in any async store.
/// async fn free_nodes(store: &impl AsyncLeaseStore, space: &str) -> Result<usize, StoreError> {
///     let table = store.list(space).await?;
///     Ok(table.rows.len() - table.held().count())
/// }
///
/// // A runtime would await these; MemoryLeaseStore's futures are ready at once.
/// fn now<T>(future: impl Future<Output = T>) -> T {
///     match std::pin::pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
///         Poll::Ready(value) => value,
///         Poll::Pending => unreachable!("MemoryLeaseStore never waits"),
///     }
/// }
/// let store = MemoryLeaseStore::new();
/// now(store.ensure_nodes("orders", 0..=3))?;
/// assert_eq!(now(free_nodes(&store, "orders"))?, 4);
/// # Ok::<(), StoreError>(())
/// ```
pub trait AsyncLeaseStore: Send + Sync {
    /// See [`LeaseStore::ensure_nodes`].
    fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// See [`LeaseStore::try_claim`].
    fn try_claim(
        &self,
        request: &ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<NodeRow>, StoreError>> + Send;

    /// See [`LeaseStore::renew`].
    fn renew(
        &self,
        request: &RenewRequest<'_>,
    ) -> impl Future<Output = Result<Renewal, StoreError>> + Send;

    /// See [`LeaseStore::release`].
    fn release(
        &self,
        request: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// See [`LeaseStore::list`].
    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_node_is_shown_as_reserved_and_held() {
        let table = NodeTable {
            space: "orders".into(),
            now_millis: Some(1_700_000_000_000),
            rows: vec![NodeRow {
                node: 1023,
                owner: Some("sql:0123456789abcdef".into()),
                fence: 1,
                lease_until_millis: NodeRow::RESERVED_UNTIL_MILLIS,
                high_water_millis: 0,
                holder: Some("SQL function flakeid_next_id".into()),
            }],
        };
        assert!(table.rows[0].is_reserved());
        assert_eq!(table.held().count(), 1);
        assert_eq!(
            table.to_string(),
            "space \"orders\" at 1700000000000 ms (store clock): 1 of 1 nodes held\n\
             node 1023: reserved for SQL function flakeid_next_id, fence 1, high water 0 ms\n"
        );
    }
}
