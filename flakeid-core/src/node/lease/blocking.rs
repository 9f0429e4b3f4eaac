//! A lease on a blocking store, renewed by a thread.

use core::time::Duration;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use super::error::LeaseError;
use super::holder::{Lease, Shared, lease_accessors};
use super::options::{LeaseOptions, Plan};
use super::store::{Claimed, LeaseStore, ReleaseRequest};
use crate::clock::{Clock, MonotonicClock};
use crate::generator::{Ceiling, Generator, GeneratorBuilder};
use crate::layout::{BitLayout, Layout};

impl<L: Layout + Clone, C: Clock + Clone> LeaseOptions<L, C> {
    /// Claims a free node from a blocking store, persists its first
    /// ceiling, and starts a thread that renews the lease every
    /// [`renew_every`](Self::renew_every) with the store (which the thread
    /// then uses; give the store its own connection).
    ///
    /// Candidates are tried from a random node on, wrapping around, so
    /// processes starting together spread over the space.
    ///
    /// # Errors
    /// [`LeaseError::InvalidOption`], [`LeaseError::AllTaken`] (after
    /// [`wait_for_node`](Self::wait_for_node)), [`LeaseError::Store`],
    /// [`LeaseError::Renewal`] when the thread cannot be started.
    pub fn claim<S: LeaseStore + 'static>(self, store: S) -> Result<NodeLease<L, C>, LeaseError> {
        let plan = self.plan()?;
        let mut store: Box<dyn LeaseStore> = Box::new(store);
        let space = plan.options.space.clone();
        store
            .ensure_nodes(&space, plan.nodes.clone())
            .map_err(|e| plan.store_error("insert the node rows", e))?;
        let started = Instant::now();
        loop {
            for node in plan.candidates() {
                let claimed = store
                    .try_claim(&plan.claim_request(node))
                    .map_err(|e| plan.store_error(&format!("claim node {node}"), e))?;
                let Some(claimed) = claimed else { continue };
                let ceiling = plan.first_ceiling(&claimed);
                let renewed = store.renew(&plan.renew_request(node, &claimed, ceiling));
                if plan.first_renewal(node, &claimed, renewed)? {
                    return NodeLease::start(plan, node, claimed, ceiling, store);
                }
            }
            let table = store
                .list(&space)
                .map_err(|e| plan.store_error("list the nodes", e))?;
            match plan.retry_after(&table, started.elapsed()) {
                Ok(delay) => std::thread::sleep(delay),
                Err(e) => return Err(e),
            }
        }
    }
}

/// A held node lease, renewed by a background thread (see
/// [`LeaseOptions::claim`]). Release it with [`release`](Self::release)
/// when the process shuts down; dropping it stops the renewal and the
/// generator, and the row frees itself after the TTL.
pub struct NodeLease<L = BitLayout, C = MonotonicClock> {
    lease: Lease<L, C>,
    store: Arc<Mutex<Box<dyn LeaseStore>>>,
    thread: Option<JoinHandle<()>>,
}

impl<L, C> core::fmt::Debug for NodeLease<L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NodeLease")
            .field("space", &self.lease.shared.space)
            .field("node", &self.lease.shared.node)
            .field("fence", &self.lease.shared.fence)
            .field("ceiling_millis", &self.lease.shared.ceiling.millis())
            .finish_non_exhaustive()
    }
}

impl<L: Layout + Clone, C: Clock + Clone> NodeLease<L, C> {
    fn start(
        plan: Plan<L, C>,
        node: u64,
        claimed: Claimed,
        ceiling_millis: u64,
        store: Box<dyn LeaseStore>,
    ) -> Result<Self, LeaseError> {
        let (lease, shared) = plan.into_lease(node, claimed, ceiling_millis);
        let store = Arc::new(Mutex::new(store));
        let thread_store = store.clone();
        let thread = std::thread::Builder::new()
            .name(format!("flakeid-lease-{node}"))
            .spawn(move || renew_blocking(&shared, &thread_store))
            .map_err(|e| LeaseError::Renewal {
                node,
                message: format!("cannot start the renewal thread: {e}"),
            })?;
        Ok(NodeLease {
            lease,
            store,
            thread: Some(thread),
        })
    }

    lease_accessors!();

    /// Releases the node: stops the renewal and `generator` (it issues
    /// nothing more), and frees the row with the node's exact high-water
    /// mark, the last millisecond of the last tick `generator` issued IDs
    /// in, so the next holder (a restart of this process) need not wait.
    /// Returns the mark recorded.
    ///
    /// # Errors
    /// [`LeaseError::NotThisLease`] when `generator` was not built from
    /// this lease (the lease is then dropped: its renewal and its own
    /// generator stop, and the row frees itself after the TTL),
    /// [`LeaseError::Lost`] when another holder took the node,
    /// [`LeaseError::Store`] when the store fails or does not answer
    /// within the TTL (the row then frees itself after the TTL, keeping the
    /// higher ceiling).
    pub fn release<L2: Layout, C2: Clock>(
        mut self,
        generator: &Generator<L2, C2>,
    ) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(Some(generator))?;
        self.release_with(high_water)
    }

    /// Releases a lease from which no generator was built.
    ///
    /// # Errors
    /// [`LeaseError::GeneratorInUse`] when a generator was built from it;
    /// otherwise as [`release`](Self::release).
    pub fn release_unused(mut self) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(None::<&Generator>)?;
        self.release_with(high_water)
    }

    fn release_with(&mut self, high_water: u64) -> Result<u64, LeaseError> {
        if let Some(t) = self.thread.take()
            && t.join().is_err()
        {
            return Err(LeaseError::Renewal {
                node: self.lease.shared.node,
                message: "the renewal thread panicked".into(),
            });
        }
        // On a thread of its own, so that a store that stopped answering
        // (or a renewal still waiting for it) cannot hold the caller: after
        // the TTL the row frees itself anyway.
        let (shared, store) = (self.lease.shared.clone(), self.store.clone());
        let ttl = shared.ttl;
        let result = call_with_timeout(ttl, move || {
            store
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .release(&ReleaseRequest {
                    space: &shared.space,
                    node: shared.node,
                    owner: &shared.owner,
                    fence: shared.fence,
                    high_water_millis: high_water,
                })
        })
        .unwrap_or_else(|e| Err(e.into()));
        self.lease.released(result).map(|_| high_water)
    }
}

/// Runs `call` on a thread of its own; its result, or why there is none
/// after `timeout` (the call then goes on, detached, until the store answers).
fn call_with_timeout<T: Send + 'static>(
    timeout: Duration,
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("flakeid-lease-call".into())
        .spawn(move || {
            let _ = tx.send(call());
        })
        .map_err(|e| format!("cannot start a thread for the store call: {e}"))?;
    rx.recv_timeout(timeout).map_err(|e| match e {
        RecvTimeoutError::Timeout => format!("the store did not answer within {timeout:?}"),
        RecvTimeoutError::Disconnected => "the store call panicked".to_owned(),
    })
}

/// The renewal thread: renews every interval until stopped or lost. Each
/// renewal runs on a thread of its own: one the store does not answer
/// within the interval counts as failed (the ceiling stays where it is, so
/// the generator fences at it) and the renewal thread stays free to stop.
/// A late answer still raises the ceiling: the time it carries was
/// persisted. The next renewal waits for it (one statement at a time).
fn renew_blocking<C: Clock>(shared: &Arc<Shared<C>>, store: &Arc<Mutex<Box<dyn LeaseStore>>>) {
    let slice = Duration::from_millis(50).min(shared.renew_every);
    loop {
        if shared.wait_stopped(shared.renew_every) {
            return;
        }
        let ceiling = shared.next_ceiling();
        let (tx, rx) = mpsc::channel();
        let (call_shared, call_store) = (shared.clone(), store.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("flakeid-lease-{}-renew", shared.node))
            .spawn(move || {
                let result = call_store
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .renew(&call_shared.renew_request(ceiling));
                let _ = tx.send(result);
            });
        if let Err(e) = spawned {
            shared
                .ceiling
                .record_failure(format!("cannot start a renewal thread: {e}"));
            continue;
        }
        let started = Instant::now();
        let mut noted = false;
        let result = loop {
            match rx.recv_timeout(slice) {
                Ok(result) => break result,
                Err(RecvTimeoutError::Timeout) => {
                    if shared.is_stopped() {
                        return;
                    }
                    if !noted && started.elapsed() >= shared.renew_every {
                        shared
                            .ceiling
                            .record_failure(format!("no answer within {:?}", shared.renew_every));
                        noted = true;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    break Err("the renewal call panicked".into());
                }
            }
        };
        if !shared.renewed(ceiling, result) {
            return;
        }
    }
}
