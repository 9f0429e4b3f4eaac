//! Node leases: claimed, renewed and released in a store every writer of
//! an ID space reaches (see [`LeaseOptions`](super::LeaseOptions) for the
//! protocol).

mod asynchronous;
mod blocking;
mod error;
mod holder;
mod memory;
mod options;
pub(crate) mod sql;
mod store;

pub use asynchronous::AsyncNodeLease;
pub use blocking::NodeLease;
pub use error::LeaseError;
pub use memory::MemoryLeaseStore;
pub use options::LeaseOptions;
pub use sql::{LeaseSql, SqlLeaseStore};
pub use store::{
    AsyncLeaseStore, ClaimRequest, Claimed, LeaseStore, NodeRow, NodeTable, ReleaseRequest,
    RenewRequest,
};
