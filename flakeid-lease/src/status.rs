//! What a lease reports to health checks.

use core::fmt;

use flakeid_core::FenceReason;

/// A lease's state, from [`NodeLease::status`](crate::NodeLease::status)
/// or [`AsyncNodeLease::status`](crate::AsyncNodeLease::status): cheap
/// enough for every health-check request. Times are the lease clock's
/// (Unix ms).
///
/// ```
/// use flakeid_core::FenceReason;
/// use flakeid_lease::LeaseStatus;
///
/// let late = LeaseStatus::RenewingLate {
///     node: 3,
///     fence: 7,
///     since_millis: 1_700_000_000_000,
///     ceiling_millis: 1_700_000_012_000,
///     last_error: Some("connection refused".into()),
/// };
/// assert!(late.is_issuing());
/// assert_eq!(
///     late.to_string(),
///     "renewing late: node 3 (fence 7), renewals failing since 1700000000000 ms, \
///      IDs stop at 1700000012000 ms unless one gets through (last error: connection refused)",
/// );
/// let fenced = LeaseStatus::Fenced {
///     node: 3,
///     fence: 7,
///     since_millis: 1_700_000_012_000,
///     reason: FenceReason::NotRenewed { last_renewed_millis: 1_699_999_997_000, last_error: None },
/// };
/// assert!(!fenced.is_issuing());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeaseStatus {
    /// Held and renewed on time: the generator issues IDs.
    Held {
        /// The node.
        node: u64,
        /// This holder's generation on it.
        fence: u64,
        /// The generator's ceiling: IDs up to it are persisted.
        ceiling_millis: u64,
    },
    /// Renewals fail (the store is unreachable, slow, or refuses this
    /// holder's clock): the generator still issues IDs, up to its ceiling.
    RenewingLate {
        /// The node.
        node: u64,
        /// This holder's generation on it.
        fence: u64,
        /// When the first failed renewal of this run was noticed.
        since_millis: u64,
        /// Where the generator stops unless a renewal gets through.
        ceiling_millis: u64,
        /// The last renewal's error (`None` when it hung rather than failed).
        last_error: Option<String>,
    },
    /// The generator issues nothing: its ceiling was reached, or the
    /// lease was lost and is not moving to another node.
    Fenced {
        /// The node.
        node: u64,
        /// This holder's generation on it.
        fence: u64,
        /// Since when nothing is issued.
        since_millis: u64,
        /// Why.
        reason: FenceReason,
    },
    /// The lease was lost and claims a new node for the process-wide
    /// generator (see [`LeaseOptions::heal`](crate::LeaseOptions::heal));
    /// nothing is issued meanwhile.
    Moving {
        /// The node that was lost.
        from_node: u64,
        /// When the loss was noticed.
        since_millis: u64,
    },
    /// Released: the generator stopped for good.
    Released,
}

impl LeaseStatus {
    /// Whether the lease's generator issues IDs now ([`Held`](Self::Held)
    /// or [`RenewingLate`](Self::RenewingLate)): what a readiness check asks.
    pub fn is_issuing(&self) -> bool {
        matches!(
            self,
            LeaseStatus::Held { .. } | LeaseStatus::RenewingLate { .. }
        )
    }
}

impl fmt::Display for LeaseStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaseStatus::Held {
                node,
                fence,
                ceiling_millis,
            } => write!(
                f,
                "held: node {node} (fence {fence}), ceiling {ceiling_millis} ms"
            ),
            LeaseStatus::RenewingLate {
                node,
                fence,
                since_millis,
                ceiling_millis,
                last_error,
            } => {
                write!(
                    f,
                    "renewing late: node {node} (fence {fence}), renewals failing since \
                     {since_millis} ms, IDs stop at {ceiling_millis} ms unless one gets through"
                )?;
                match last_error {
                    Some(e) => write!(f, " (last error: {e})"),
                    None => Ok(()),
                }
            }
            LeaseStatus::Fenced {
                node,
                fence,
                since_millis,
                reason,
            } => write!(
                f,
                "fenced: node {node} (fence {fence}) issues nothing since {since_millis} ms: {reason}"
            ),
            LeaseStatus::Moving {
                from_node,
                since_millis,
            } => write!(
                f,
                "moving: node {from_node} was lost at {since_millis} ms; claiming another"
            ),
            LeaseStatus::Released => f.write_str("released"),
        }
    }
}
