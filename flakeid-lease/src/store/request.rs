//! The requests of the lease protocol's operations, and what a renewal
//! did.

use core::time::Duration;

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
pub(crate) struct OwnedRenewRequest {
    space: String,
    owner: String,
    node: u64,
    fence: u64,
    ttl: Duration,
    ceiling_millis: u64,
    max_ahead_millis: u64,
}

impl OwnedRenewRequest {
    pub(crate) fn new(r: &RenewRequest<'_>) -> Self {
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

    pub(crate) fn borrow(&self) -> RenewRequest<'_> {
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
