//! Errors of node sources: leases, high-water files, Kubernetes ordinals.

use core::time::Duration;

use thiserror::Error;

use crate::ConfigError;

/// What a lease store reports when a statement fails (the database
/// driver's error, boxed so that stores of every ORM share one error type).
pub type StoreError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A node lease could not be claimed, kept or released.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LeaseError {
    /// Every node ID of the space is held by a live lease, or reserved by
    /// a database ID function ([`crate::sql::id_function`]), whose
    /// reservation does not expire.
    #[error(
        "all {nodes} node IDs ({first}..={last}) of space {space:?} are {}",
        all_taken_detail(*nodes, *reserved, *node, *expires_in, *waited)
    )]
    AllTaken {
        /// The ID space.
        space: String,
        /// How many node IDs the space has.
        nodes: u64,
        /// The space's first node ID.
        first: u64,
        /// The space's last node ID.
        last: u64,
        /// How many of them a database ID function reserves.
        reserved: u64,
        /// The node whose lease expires first (when every node is
        /// reserved, the first reserved one).
        node: u64,
        /// How long until it expires, by the database's clock
        /// ([`Duration::MAX`] when every node is reserved).
        expires_in: Duration,
        /// How long the claim waited for a free node.
        waited: Duration,
    },
    /// A statement of the lease store failed.
    #[error("the lease store could not {operation} for space {space:?}: {source}")]
    Store {
        /// What was being done (`"claim node 3"`, `"renew node 3"` …).
        operation: String,
        /// The ID space.
        space: String,
        /// The store's error.
        #[source]
        source: StoreError,
    },
    /// A lease option has a value that cannot work.
    #[error("lease option `{option}` = {value} is invalid: {reason}")]
    InvalidOption {
        /// The option (the `LeaseOptions` method's name).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A row of the lease table holds a value the protocol never writes.
    #[error(
        "the lease table holds {column} = {value} for node {node} of space {space:?}: {reason}"
    )]
    BadRow {
        /// The ID space.
        space: String,
        /// The node.
        node: u64,
        /// The column.
        column: &'static str,
        /// The value read.
        value: i64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The lease was taken over by another holder before it was released.
    #[error(
        "the lease of node {node} in space {space:?} (fence {fence}) was taken over by another \
         holder before it was released"
    )]
    Lost {
        /// The ID space.
        space: String,
        /// The node.
        node: u64,
        /// The lost generation.
        fence: u64,
    },
    /// `release` was given a generator that does not stamp under this
    /// lease's ceiling (built from another lease, or from none).
    #[error(
        "node {node}'s lease cannot be released with a generator built from another lease: \
         only the lease's own generator knows which IDs it issued"
    )]
    NotThisLease {
        /// The lease's node.
        node: u64,
    },
    /// `release_unused` was called although a generator was built from the lease.
    #[error(
        "a generator was built from node {node}'s lease: release it with `release(&generator)`, \
         which records the last ID it issued"
    )]
    GeneratorInUse {
        /// The lease's node.
        node: u64,
    },
    /// The background renewal could not be started or stopped.
    #[error("lease renewal of node {node}: {message}")]
    Renewal {
        /// The lease's node.
        node: u64,
        /// What went wrong.
        message: String,
    },
    /// The generator could not be configured.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// A local high-water file could not be read, written or locked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HighWaterFileError {
    /// The file or its lock could not be opened, read or written.
    #[error("high-water file {path}: cannot {action}: {message}")]
    Io {
        /// The path.
        path: String,
        /// What was being done (`"read"`, `"write"`, `"lock"` …).
        action: &'static str,
        /// The operating system's message.
        message: String,
    },
    /// The file does not hold a high-water mark.
    #[error(
        "high-water file {path} holds {content:?}, not a high-water mark (Unix milliseconds, digits only)"
    )]
    Parse {
        /// The path.
        path: String,
        /// The content (shortened to its first 64 characters).
        content: String,
    },
    /// Another process holds the file's lock: two processes with one file
    /// (one node ID) would issue the same IDs.
    #[error(
        "high-water file {path} is in use by another process (it holds {lock_path}); give each \
         process its own node ID and file"
    )]
    Locked {
        /// The path.
        path: String,
        /// The lock file.
        lock_path: String,
    },
    /// An option has a value that cannot work.
    #[error("high-water file option `{option}` = {value} is invalid: {reason}")]
    InvalidOption {
        /// The option (the method's name).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `release` was given a generator built from another file node.
    #[error(
        "the high-water file {path} cannot be released with a generator built from another node source"
    )]
    NotThisNode {
        /// The path.
        path: String,
    },
    /// The generator could not be configured.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// No StatefulSet ordinal could be found.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OrdinalError {
    /// The hostname does not end in `-<digits>` as StatefulSet pods' names do.
    #[error(
        "hostname {hostname:?} does not end in `-<ordinal>`; is this pod part of a StatefulSet? \
         (or pass the `apps.kubernetes.io/pod-index` label through the downward API)"
    )]
    NotAStatefulSetPod {
        /// The hostname.
        hostname: String,
    },
    /// A pod index (variable, label or hostname suffix) is not a number.
    #[error("{source_name} = {value:?} is not a pod index (digits only)")]
    Invalid {
        /// Where it came from (a variable, a file and label, `hostname`).
        source_name: String,
        /// The value found.
        value: String,
    },
    /// The ordinal does not fit the layout's node field.
    #[error(
        "pod ordinal {ordinal} (from {source_name}) is beyond the layout's largest node ID {max}"
    )]
    OutOfRange {
        /// The ordinal.
        ordinal: u64,
        /// Where it came from.
        source_name: String,
        /// The largest node ID.
        max: u64,
    },
    /// The hostname could not be read.
    #[error("cannot read the hostname: {message}")]
    NoHostname {
        /// Why.
        message: String,
    },
}

/// The end of [`LeaseError::AllTaken`]'s message: what holds the nodes and
/// when the first one frees.
fn all_taken_detail(
    nodes: u64,
    reserved: u64,
    node: u64,
    expires_in: Duration,
    waited: Duration,
) -> String {
    if reserved >= nodes {
        return format!(
            "reserved by a database ID function (flakeid_core::sql::id_function), which holds \
             its node until it is uninstalled (waited {waited:?})"
        );
    }
    let held = if reserved == 0 {
        "leased".to_owned()
    } else {
        format!("leased or reserved ({reserved} by a database ID function, which never expire)")
    };
    format!(
        "{held}; the first lease to expire (node {node}) ends in {expires_in:?} by the \
         database's clock (waited {waited:?})"
    )
}
