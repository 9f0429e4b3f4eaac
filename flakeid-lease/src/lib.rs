//! Node IDs that one process holds at a time: leased from a table in the
//! application's database (or any store every writer reaches), or guarded
//! across restarts by a local high-water file. These node sources
//! *enforce* what a node ID fixed by configuration (`FLAKEID_NODE_ID`, a
//! StatefulSet ordinal) only promises.
//!
//! A [`Generator`](flakeid_core::Generator) never repeats an ID of its
//! own. IDs of two processes differ only if their node IDs differ, and IDs
//! of one node across restarts only if each run starts after the last time
//! the previous one used. A lease makes both hold wherever the processes
//! run: a held node has one holder, a holder that lost its node stops
//! issuing (it is *fenced*), and the next holder starts after the previous
//! holders' high-water mark, whatever its clock says. Lease node IDs when
//! processes come and go (autoscaling, rolling deploys, replicas of one
//! image), when a configuration mistake must not become duplicate keys, or
//! when the clock may be stepped back between runs. See
//! [the lease protocol](LeaseOptions#the-lease-protocol) for how leases work
//! and what they guarantee.
//!
//! * [`LeaseOptions`] — how to claim a node of an ID space (TTL, renewal
//!   interval, ceiling lead, waiting for a free node) and the protocol
//!   leases follow; [`NodeLease`] (renewed by a thread) and
//!   [`AsyncNodeLease`] (renewed by a task) — a held node, which builds
//!   generators ([`NodeLease::generator_builder`]) and is released at
//!   shutdown; [`LeaseStatus`] and [`LeaseChanges`] — its state, for health
//!   checks; [`LeaseError`].
//! * [`LeaseStore`] and [`AsyncLeaseStore`] — the protocol's operations on
//!   a store. [`SqlLeaseStore`] runs them as SQL ([`LeaseSql`]: PostgreSQL,
//!   MySQL/MariaDB, SQLite) through a `flakeid-sql` executor;
//!   [`MemoryLeaseStore`] keeps the table in memory, for tests;
//!   [`NodeTable`] and [`NodeRow`] show operators who holds what.
//! * [`HighWaterFile`] ([`HighWaterFileOptions`]) — a fixed node ID made
//!   safe across restarts on one machine: a local file records how far the
//!   node's IDs went, and a restarted process starts after it.
//!
//! Applications on SeaORM or Diesel claim leases through `flakeid-seaorm`
//! or `flakeid-diesel` with their feature `lease` (which creates the table,
//! runs the SQL on the application's connections and re-exports this
//! crate); `flakeid-etcd` keeps leases in etcd instead. Both build on the
//! types here.
//!
//! ```
//! use flakeid_core::layout::{presets, Layout};
//! use flakeid_lease::{LeaseOptions, MemoryLeaseStore};
//!
//! // The table in memory here; in production, the application's database.
//! let store = MemoryLeaseStore::new();
//! let lease = LeaseOptions::new("orders", presets::twitter()).claim(store.clone())?;
//! let generator = lease.generator_builder().build()?;
//! let id = generator.next_id()?;
//! assert_eq!(generator.layout().decompose(id).node, lease.node());
//! // Another process claims another node of the same space.
//! let other = LeaseOptions::new("orders", presets::twitter()).claim(store.clone())?;
//! assert_ne!(other.node(), lease.node());
//! // At shutdown: the node's next holder starts after this holder's last ID.
//! let mark = lease.release(&generator)?;
//! assert!(mark >= presets::twitter().timestamp_millis(id));
//! # other.release_unused()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `tokio` | no | leases renewed by a tokio task ([`LeaseOptions::claim_on_tokio`]) and a lease's state as a `tokio::sync::watch` (`watch` on [`NodeLease`] and [`AsyncNodeLease`]) |
//! | `metrics` | no | the metrics below, through the `metrics` facade |
//!
//! # Telemetry
//!
//! With the feature `metrics`, leases record through the `metrics` facade
//! (install a recorder in the application, before the lease is claimed:
//! its handles are registered then; see
//! [`flakeid_core::telemetry`] for the generator's metrics):
//!
//! | name | kind | labels | meaning |
//! |---|---|---|---|
//! | `flakeid_lease_renewal_duration_seconds` | histogram | `space` | how long an answered lease renewal took |
//! | `flakeid_lease_renewal_failures_total` | counter | `space` | renewals that failed or were not answered within the renewal interval |
//! | `flakeid_lease_fenced_total` | counter | `space` | times a lease's generator reached its ceiling while renewals failed (it issues nothing until one gets through) |
//! | `flakeid_lease_lost_total` | counter | `space` | leases whose node another holder took |
//! | `flakeid_node_moves_total` | counter | `space` | times the process-wide generator moved to a newly claimed node after its lease was lost |
//!
//! `space` is a lease table's node space, so the series are few.
//! Renewals are rare: the hot path of issuing IDs records nothing. Leases
//! log `tracing` events on the target `flakeid::lease` (claimed, renewal
//! failed, fenced, lost, claimed again on another node, released, …), each
//! with the `space`, `node`, `fence` and `owner` of the lease.
//!
//! The crate builds on `flakeid-core` (generators, layouts, the ceiling a
//! lease keeps a generator under) and `flakeid-sql` (the SQL and the
//! executors that run it).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod asynchronous;
mod blocking;
mod changes;
mod claim;
mod error;
mod events;
mod file;
mod holder;
mod memory;
mod options;
mod sql;
mod status;
mod store;

// Seeded deterministic simulations of the lease protocol (see each file):
// they drive the protocol's own steps, which are private to this crate, so
// they run as its unit tests.
#[cfg(test)]
#[path = "../tests/unit/renewal_simulation.rs"]
mod renewal_simulation;
#[cfg(test)]
#[path = "../tests/unit/simulation.rs"]
mod simulation;

pub use asynchronous::AsyncNodeLease;
pub use blocking::NodeLease;
pub use changes::LeaseChanges;
pub use error::LeaseError;
pub use file::{HighWaterFile, HighWaterFileError, HighWaterFileOptions};
pub use memory::MemoryLeaseStore;
pub use options::LeaseOptions;
pub use sql::{LeaseSql, SqlLeaseStore};
pub use status::LeaseStatus;
pub use store::{
    AsyncLeaseStore, ClaimRequest, LeaseStore, NodeRow, NodeTable, ReleaseRequest, RenewRequest,
    Renewal,
};

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
