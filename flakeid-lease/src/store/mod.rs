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

mod request;
mod table;

use core::future::Future;
use core::ops::RangeInclusive;

use flakeid_sql::StoreError;

pub(crate) use request::OwnedRenewRequest;
pub use request::{ClaimRequest, ReleaseRequest, RenewRequest, Renewal};
pub use table::{NodeRow, NodeTable};

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
