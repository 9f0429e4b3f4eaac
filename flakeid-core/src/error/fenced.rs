//! Why a generator under a ceiling issues nothing: a fenced node.
//!
//! Plain data, produced by the generator's ceiling and carried by
//! [`GenerateError::Fenced`](super::GenerateError::Fenced).

use thiserror::Error;

/// Why a node may not stamp IDs past its ceiling.
///
/// ```
/// use flakeid_core::{FenceReason, Fenced, GenerateError};
///
/// /// Whether a fenced generator issues again by itself, or must be replaced.
/// fn resumes(e: &GenerateError) -> Option<bool> {
///     match e {
///         GenerateError::Fenced(Fenced { reason, .. }) => {
///             Some(matches!(reason, FenceReason::NotRenewed { .. }))
///         }
///         _ => None,
///     }
/// }
///
/// let fenced = |reason| GenerateError::Fenced(Fenced { node: 3, ceiling_millis: 1_700_000_015_000, reason });
/// let unreachable = FenceReason::NotRenewed {
///     last_renewed_millis: 1_700_000_000_000,
///     last_error: Some("connection refused".into()),
/// };
/// assert_eq!(
///     unreachable.to_string(),
///     "its ceiling was last persisted at 1700000000000 ms and not raised since \
///      (last attempt failed: connection refused)"
/// );
/// assert_eq!(resumes(&fenced(unreachable)), Some(true));
/// // A released node's generator never issues again.
/// assert_eq!(resumes(&fenced(FenceReason::Released { released_millis: 1_700_000_001_000 })), Some(false));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FenceReason {
    /// The node source has not persisted a later ceiling yet: the store is
    /// unreachable or slow, or the process was paused. Issuing resumes once
    /// a renewal succeeds.
    #[error("{}{}", renewed_since(*last_renewed_millis), last_error_text(last_error))]
    NotRenewed {
        /// When (generator clock, Unix ms) the ceiling was last raised.
        last_renewed_millis: u64,
        /// The last renewal's error, if it failed rather than hung.
        last_error: Option<String>,
    },
    /// Another holder took the node: the lease of generation `fence` is
    /// gone, and this node's generator never issues again. The
    /// process-wide generator moves to a free node by itself
    /// (`LeaseOptions::heal` in `flakeid-lease`); a
    /// generator of one's own is replaced by one from a new lease.
    #[error(
        "its lease (fence {fence}) was taken over by another holder; noticed at {detected_millis} ms"
    )]
    Lost {
        /// The holder's generation (the `fence` column) that was lost.
        fence: u64,
        /// When (generator clock, Unix ms) the loss was noticed.
        detected_millis: u64,
    },
    /// The node was released; issuing never resumes.
    #[error("its lease was released at {released_millis} ms")]
    Released {
        /// When (generator clock, Unix ms) it was released.
        released_millis: u64,
    },
    /// The node source's handle (a lease, a high-water file) was dropped
    /// without a release: nothing keeps the ceiling up any more. Issuing
    /// never resumes; a dropped lease's row frees itself after its TTL.
    #[error("its node source was dropped without a release")]
    Dropped,
}

/// A generator refused to stamp an ID later than its ceiling.
///
/// ```
/// use flakeid_core::{Fenced, FenceReason};
///
/// let e = Fenced {
///     node: 3,
///     ceiling_millis: 1_700_000_015_000,
///     reason: FenceReason::Lost { fence: 7, detected_millis: 1_700_000_016_000 },
/// };
/// assert_eq!(
///     e.to_string(),
///     "node 3 may stamp no ID after 1700000015000 ms (its persisted ceiling): its lease \
///      (fence 7) was taken over by another holder; noticed at 1700000016000 ms",
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("node {node} may stamp no ID after {ceiling_millis} ms (its persisted ceiling): {reason}")]
pub struct Fenced {
    /// The generator's node ID.
    pub node: u64,
    /// The ceiling (Unix ms): IDs up to it were allowed; since then none.
    pub ceiling_millis: u64,
    /// Why the ceiling was not raised.
    pub reason: FenceReason,
}

fn renewed_since(millis: u64) -> String {
    if millis == 0 {
        "no ceiling was ever persisted".to_owned()
    } else {
        format!("its ceiling was last persisted at {millis} ms and not raised since")
    }
}

fn last_error_text(e: &Option<String>) -> String {
    match e {
        Some(e) => format!(" (last attempt failed: {e})"),
        None => String::new(),
    }
}
