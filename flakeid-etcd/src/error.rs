//! What can go wrong with a lease on etcd.

/// Why an etcd lease operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EtcdLeaseError {
    /// etcd (or the connection to it) answered with an error.
    #[error(transparent)]
    Etcd(#[from] etcd_client::Error),
    /// A node key holds a value this crate never writes.
    #[error("etcd key {key} holds {value:?}, not a node's state: {reason}")]
    BadValue {
        /// The key.
        key: String,
        /// The value (its first 200 characters).
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A key under the space's prefix is not a node's key.
    #[error("etcd key {key} is not `<prefix>/<space>/(node|holder)/<node ID>`")]
    BadKey {
        /// The key.
        key: String,
    },
    /// A node's state could not be encoded.
    #[error("cannot encode a node's state: {0}")]
    Encode(String),
    /// Other operations on the same node kept changing it.
    #[error("could not {operation}: the node changed under {attempts} attempts in a row")]
    Contended {
        /// What was being done.
        operation: &'static str,
        /// How many attempts were made.
        attempts: usize,
    },
}
