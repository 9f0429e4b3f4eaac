//! Node IDs for flakeid leased from etcd v3, for writers that share no
//! database: IDs unique across shards, services or regions that all reach
//! one etcd cluster.
//!
//! The protocol, its guarantees and its defaults are those of
//! [`flakeid_lease`] (see [`LeaseOptions`]);
//! [`EtcdLeaseStore`] implements the same
//! [`AsyncLeaseStore`] trait as the SQL store
//! ([`SqlLeaseStore`](flakeid_lease::SqlLeaseStore)), with etcd's
//! transactions and leases in place of `UPDATE … WHERE`. [`claim`] claims
//! a node and renews it in a tokio task; [`list_nodes`] shows operators
//! who holds what.
//!
//! ```no_run
//! use flakeid_core::global;
//! use flakeid_core::layout::presets;
//! use flakeid_lease::LeaseOptions;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let client = etcd_client::Client::connect(["http://127.0.0.1:2379"], None).await?;
//! let lease = flakeid_etcd::claim(&client, LeaseOptions::new("orders", presets::twitter())).await?;
//! let generator = global::init(lease.generator_builder())?;
//! let id = generator.next_id()?;
//! // At shutdown: the next holder of the node starts right after this process's last ID.
//! lease.release(generator).await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Keys
//!
//! Two keys per node, under a prefix (default `flakeid_nodes`; the space
//! with `%` and `/` escaped, the node zero-padded so keys sort by node):
//!
//! | key | value | etcd lease | lives |
//! |---|---|---|---|
//! | `flakeid_nodes/<space>/node/<node>` | JSON: `fence`, `high_water`, last `owner` and `holder`, the holder's estimate `lease_until`, the granted `ttl_ms` | none | for ever: the high-water mark must outlive every holder |
//! | `flakeid_nodes/<space>/holder/<node>` | `<fence>/<owner>` | the holder's, with the TTL | while the holder's etcd lease lives |
//!
//! The node is held exactly while its holder key exists; etcd deletes it
//! when the holder's lease expires, by etcd's clock.
//!
//! # Operations
//!
//! Each is one etcd transaction whose compares make it a compare-and-set:
//!
//! * **Claim**: read both keys; if the holder key exists the node is taken.
//!   Otherwise grant an etcd lease with the TTL and, *if the node key's
//!   revision is still the one read and the holder key still absent*, put
//!   the holder key (attached to the lease) and the node key with
//!   `fence + 1` and the previous `high_water`, which the new holder
//!   resumes after. A lost race revokes the unused lease.
//! * **Renewal**: keep the holder's etcd lease alive, then, *if the holder
//!   key still holds `<fence>/<owner>` on that lease and the node key is
//!   unchanged*, raise `high_water` to the new ceiling. A holder whose key
//!   holds another fence has lost the node (its generator fences for
//!   good). A holder whose etcd lease expired while nobody claimed the node
//!   (its fence is still the node key's) takes it up again under a new
//!   etcd lease, as the SQL store renews a row whose lease ran out
//!   unclaimed.
//! * **Release**: *if the keys are still the holder's*, delete the holder
//!   key, record the exact high-water mark, revoke the etcd lease. The node
//!   key stays.
//! * **Listing** reads both prefixes in one transaction.
//!
//! # Clocks: why the ceiling stays safe
//!
//! etcd leases have TTLs that etcd measures (in whole seconds; this store
//! asks for the TTL rounded up, and etcd may grant more, e.g. its minimum
//! of about 2 s); etcd has no wall time to offer. Uniqueness does not rest
//! on any clock: a holder stamps IDs only up to a ceiling already written
//! as `high_water`, a renewal writes only while the holder key is still
//! its own, and a claim writes the holder key and reads the mark in one
//! transaction, so the next holder's floor is above every ceiling its
//! predecessor could still use.
//!
//! What the clocks decide is how soon a cut-off holder stops. As with the
//! SQL store (whose lease times are the database's clock), the holder
//! computes each ceiling from **its own clock**, before it sends the
//! keep-alive: at most the ceiling lead ahead, and the lead is at most the
//! TTL it asked for, which is at most the TTL etcd granted, counted by
//! etcd from when it received the keep-alive. So, with clocks that run at
//! the same rate, a holder that cannot renew reaches its ceiling no later
//! than etcd expires its lease, and a holder paused past its lease wakes
//! with its clock beyond its ceiling. A holder clock running fast fences
//! early; one running slow lets the next holder's floor lie in that
//! holder's future, and it waits (as
//! [`ClockRegression`](flakeid_core::ClockRegression) says) rather than
//! repeat an ID.
//!
//! The `lease_until` times this store reports (in the claimed
//! [`NodeRow`] and [`NodeTable`]) are the holder's estimates, its wall
//! clock plus the granted TTL; whether a node is held is etcd's answer
//! alone.
//!
//! Having no clock to offer, etcd cannot check a holder's clock against
//! its own: [`LeaseOptions::max_clock_skew`](flakeid_lease::LeaseOptions::max_clock_skew)
//! is not enforced on this store (a holder whose clock runs ahead writes
//! marks that far ahead), and claims cannot skip nodes whose mark lies
//! ahead. Keep the holders' clocks synchronised (NTP).
//!
//! [`NodeRow`]: flakeid_lease::NodeRow
//! [`AsyncLeaseStore`]: flakeid_lease::AsyncLeaseStore
//! [`NodeTable`]: flakeid_lease::NodeTable

#![cfg_attr(docsrs, feature(doc_cfg))]

mod error;
mod store;

use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::{Clock, MonotonicClock};
use flakeid_lease::{AsyncNodeLease, LeaseError, LeaseOptions, NodeTable};

pub use error::EtcdLeaseError;
pub use etcd_client;
pub use store::EtcdLeaseStore;

/// A held lease whose renewal runs in a tokio task.
pub type NodeLease<L = BitLayout, C = MonotonicClock> = AsyncNodeLease<EtcdLeaseStore, L, C>;

/// Claims a node as `options` say (keys under `flakeid_nodes/`) and spawns
/// the tokio task that renews it. Call it from within a tokio runtime; the
/// task ends when the lease is released, dropped or lost.
///
/// # Errors
/// See [`LeaseOptions::claim_async`].
pub async fn claim<L, C>(
    client: &etcd_client::Client,
    options: LeaseOptions<L, C>,
) -> Result<NodeLease<L, C>, LeaseError>
where
    L: Layout + Clone + Send + Sync + 'static,
    C: Clock + Clone,
{
    options
        .claim_on_tokio(EtcdLeaseStore::new(client.clone()))
        .await
}

/// Every node of `space`: who holds which node, the holders' estimates of
/// their leases' ends, and the high-water marks. For operators.
///
/// # Errors
/// [`LeaseError::Store`].
pub async fn list_nodes(
    client: &etcd_client::Client,
    space: &str,
) -> Result<NodeTable, LeaseError> {
    EtcdLeaseStore::new(client.clone())
        .table(space)
        .await
        .map_err(|e| LeaseError::Store {
            operation: "list the nodes".into(),
            space: space.to_owned(),
            source: e.into(),
        })
}

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
