//! Errors of node sources: leases, high-water files, Kubernetes ordinals.

use core::time::Duration;

use thiserror::Error;

use flakeid_core::ConfigError;
use flakeid_sql::StoreError;

/// A node lease could not be claimed, kept or released.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{LeaseError, LeaseOptions, MemoryLeaseStore};
///
/// let store = MemoryLeaseStore::new();
/// let options = LeaseOptions::new("orders", presets::twitter());
/// // Twitter's layout has node IDs 0..=1023.
/// let e = options.clone().nodes(0..=5000).claim(store.clone()).unwrap_err();
/// assert!(matches!(e, LeaseError::InvalidOption { option: "nodes", .. }));
/// // Only a lease's own generator can release it: it knows which IDs it issued.
/// let (a, b) = (options.clone().claim(store.clone())?, options.claim(store)?);
/// let generator = b.generator_builder().build()?;
/// assert!(matches!(a.release(&generator), Err(LeaseError::NotThisLease { .. })));
/// b.release(&generator)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LeaseError {
    /// Every node ID of the space is held by a live lease, or reserved by
    /// a database ID function (`flakeid-id-function`'s `IdFunction`), whose
    /// reservation does not expire.
    #[error(
        "all {nodes} node IDs ({first}..={last}) of space {space:?} are {}{}",
        all_taken_detail(*nodes, *reserved, *ahead_of_clock, *node, *expires_in, *waited),
        ahead_detail(*ahead_of_clock, *ahead_until_millis)
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
        /// How many free nodes were skipped because their high-water mark
        /// lies too far ahead of the store's clock (left by a holder whose
        /// clock ran ahead; see [`LeaseOptions::max_clock_skew`](crate::LeaseOptions::max_clock_skew)).
        ahead_of_clock: u64,
        /// The earliest of those marks (Unix ms; 0 when there are none):
        /// the first such node is usable once the store's clock gets close
        /// to it.
        ahead_until_millis: u64,
        /// The node whose lease expires first (when every node is
        /// reserved, the first reserved one).
        node: u64,
        /// How long until it expires, by the database's clock
        /// ([`Duration::MAX`] when every node is reserved).
        expires_in: Duration,
        /// How long the claim waited for a free node.
        waited: Duration,
    },
    /// The store refused this holder's ceiling: it lay further ahead of
    /// the store's clock than the ceiling lead plus the allowed skew, so
    /// this holder's clock runs ahead ([`LeaseOptions::max_clock_skew`](crate::LeaseOptions::max_clock_skew)).
    /// Nothing was persisted; the node was released at once.
    #[error(
        "the clock of holder {holder} reads {holder_millis} ms, {} ms ahead of the lease \
         store's ({store_millis} ms), more than the {max_skew:?} allowed: node {node} of space \
         {space:?} was not taken, so that no mark ahead of the store's clock holds later holders \
         back; fix this machine's clock (NTP) or raise LeaseOptions::max_clock_skew",
        holder_millis.saturating_sub(u64::try_from(*store_millis).unwrap_or(0))
    )]
    ClockAhead {
        /// The ID space.
        space: String,
        /// The node whose first ceiling was refused.
        node: u64,
        /// This holder (`host/pid` unless [`LeaseOptions::holder`](crate::LeaseOptions::holder) says otherwise).
        holder: String,
        /// This holder's clock (Unix ms).
        holder_millis: u64,
        /// The store's clock (Unix ms).
        store_millis: i64,
        /// The skew allowed.
        max_skew: Duration,
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

impl LeaseError {
    /// [`LeaseError::Store`]: `operation` on `space` failed with the
    /// store's error.
    pub(crate) fn store(operation: impl Into<String>, space: &str, source: StoreError) -> Self {
        LeaseError::Store {
            operation: operation.into(),
            space: space.to_owned(),
            source,
        }
    }
}

/// The end of [`LeaseError::AllTaken`]'s message about nodes skipped for a
/// mark ahead of the store's clock.
fn ahead_detail(ahead: u64, until: u64) -> String {
    match until {
        until if ahead > 0 => format!(
            "; {ahead} of them free but unusable: their high-water mark lies ahead of the \
             store's clock (left by a holder whose clock ran ahead), the earliest until {until} ms"
        ),
        _ => String::new(),
    }
}

/// The end of [`LeaseError::AllTaken`]'s message: what holds the nodes and
/// when the first one frees.
fn all_taken_detail(
    nodes: u64,
    reserved: u64,
    ahead: u64,
    node: u64,
    expires_in: Duration,
    waited: Duration,
) -> String {
    if reserved >= nodes {
        return format!(
            "reserved by a database ID function (flakeid_id_function), which holds \
             its node until it is uninstalled (waited {waited:?})"
        );
    }
    let mut held = Vec::new();
    if nodes > reserved + ahead {
        held.push("leased");
    }
    if reserved > 0 {
        held.push("reserved");
    }
    if ahead > 0 {
        held.push("unusable");
    }
    let held = match held.as_slice() {
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        [] => String::new(),
    };
    let reserved_count = reserved;
    let reserved = if reserved == 0 {
        String::new()
    } else {
        format!(" ({reserved} reserved by a database ID function, which never expire)")
    };
    if nodes <= reserved_count + ahead {
        // No lease among them to wait for.
        return format!("{held}{reserved} (waited {waited:?})");
    }
    format!(
        "{held}{reserved}; the first lease to expire (node {node}) ends in {expires_in:?} by the \
         database's clock (waited {waited:?})"
    )
}
