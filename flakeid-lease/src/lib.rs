//! Node leases: claimed, renewed and released in a store every writer of
//! an ID space reaches (see [`LeaseOptions`](super::LeaseOptions) for the
//! protocol).

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
#[cfg(test)]
mod tests;

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
