//! Being told when a lease's state changes: a blocking receiver of every
//! change ([`LeaseChanges`]) and, with the `tokio` feature, a
//! `tokio::sync::watch` of the latest state. Both are fed by the lease's
//! renewal at the moment a step changes the state.

use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use super::status::LeaseStatus;
use flakeid_core::FenceReason;

/// Every change of a lease's state, in order, from
/// [`NodeLease::changes`](crate::NodeLease::changes) or
/// [`AsyncNodeLease::changes`](crate::AsyncNodeLease::changes): the state
/// when it subscribed, then one [`LeaseStatus`] per change — held,
/// renewing late, fenced, lost and moving, held on another node, released.
///
/// A change is a new kind of state, a new node or fence, or a new reason
/// for a fence; renewals that only raise the ceiling, and failures after
/// the first of a run, are not changes (each status carries the values of
/// the moment it changed; [`status`](crate::NodeLease::status) gives the
/// current ones). A lease whose renewals fail is published as fenced at
/// the first renewal attempt after its ceiling passed: within one renewal
/// interval of it (its generator stops exactly at the ceiling).
///
/// Receiving blocks the calling thread: in async code use
/// [`watch`](crate::AsyncNodeLease::watch) (feature `tokio`). Nothing is
/// lost if the receiver is read late: changes queue up. The iterator ends
/// once the lease is gone: released, dropped or lost for good, its renewal
/// ended and the generators built from it dropped.
///
/// ```
/// use std::time::Duration;
///
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};
///
/// let lease = LeaseOptions::new("orders", presets::twitter()).claim(MemoryLeaseStore::new())?;
/// let changes = lease.changes();
/// assert!(matches!(changes.recv(), Some(LeaseStatus::Held { .. })));
/// lease.release_unused()?;
/// assert_eq!(changes.recv_timeout(Duration::from_secs(5)), Some(LeaseStatus::Released));
/// // The lease is gone: no more changes.
/// assert_eq!(changes.recv(), None);
/// # Ok::<(), flakeid_lease::LeaseError>(())
/// ```
#[derive(Debug)]
pub struct LeaseChanges {
    receiver: Receiver<LeaseStatus>,
}

impl LeaseChanges {
    /// The next change, waiting for it; `None` once the lease is gone and
    /// every change was received.
    pub fn recv(&self) -> Option<LeaseStatus> {
        self.receiver.recv().ok()
    }

    /// The next change if one comes within `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<LeaseStatus> {
        self.receiver.recv_timeout(timeout).ok()
    }

    /// The next change if one is waiting, without waiting.
    pub fn try_recv(&self) -> Option<LeaseStatus> {
        self.receiver.try_recv().ok()
    }
}

impl Iterator for LeaseChanges {
    type Item = LeaseStatus;

    /// [`recv`](LeaseChanges::recv).
    fn next(&mut self) -> Option<LeaseStatus> {
        self.recv()
    }
}

/// The subscribers of a lease, and the state last published to them.
#[derive(Default)]
pub(super) struct Subscribers {
    sinks: Vec<Sink>,
    last: Option<Key>,
}

impl core::fmt::Debug for Subscribers {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Subscribers")
            .field("sinks", &self.sinks.len())
            .finish_non_exhaustive()
    }
}

impl Subscribers {
    /// Publishes `status` if it is a change from the last one published.
    pub(super) fn publish(&mut self, status: &LeaseStatus) {
        let key = Key::of(status);
        if self.last == Some(key) {
            return;
        }
        self.last = Some(key);
        // A sink whose receiver is gone says so and is dropped.
        self.sinks.retain(|sink| sink(status));
    }

    /// A new blocking subscriber; `now` is its first value.
    pub(super) fn changes(&mut self, now: &LeaseStatus) -> LeaseChanges {
        let (tx, receiver) = mpsc::channel();
        let _ = tx.send(now.clone());
        self.add(now, move |s| tx.send(s.clone()).is_ok());
        LeaseChanges { receiver }
    }

    /// A new watch of the latest state, which is `now`.
    #[cfg(feature = "tokio")]
    pub(super) fn watch(&mut self, now: &LeaseStatus) -> tokio::sync::watch::Receiver<LeaseStatus> {
        let (tx, rx) = tokio::sync::watch::channel(now.clone());
        self.add(now, move |s| tx.send(s.clone()).is_ok());
        rx
    }

    /// Adds `sink`, which has seen `now` (the state the lease is in);
    /// the others are told first if `now` is a change for them.
    fn add(&mut self, now: &LeaseStatus, sink: impl Fn(&LeaseStatus) -> bool + Send + 'static) {
        self.publish(now);
        self.sinks.push(Box::new(sink));
    }
}

/// A subscriber: takes a status, says whether its receiver is still there.
type Sink = Box<dyn Fn(&LeaseStatus) -> bool + Send>;

/// What makes two states different: the kind, the node and fence, the
/// kind of fence reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    kind: u8,
    node: u64,
    fence: u64,
    reason: u8,
}

impl Key {
    fn of(status: &LeaseStatus) -> Key {
        let (kind, node, fence, reason) = match status {
            LeaseStatus::Held { node, fence, .. } => (0, *node, *fence, 0),
            LeaseStatus::RenewingLate { node, fence, .. } => (1, *node, *fence, 0),
            LeaseStatus::Fenced {
                node,
                fence,
                reason,
                ..
            } => (2, *node, *fence, reason_kind(reason)),
            LeaseStatus::Moving { from_node, .. } => (3, *from_node, 0, 0),
            LeaseStatus::Released => (4, 0, 0, 0),
        };
        Key {
            kind,
            node,
            fence,
            reason,
        }
    }
}

fn reason_kind(reason: &FenceReason) -> u8 {
    match reason {
        FenceReason::NotRenewed { .. } => 0,
        FenceReason::Lost { .. } => 1,
        FenceReason::Released { .. } => 2,
        FenceReason::Dropped => 3,
        _ => 4,
    }
}
