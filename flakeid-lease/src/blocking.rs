//! A lease on a blocking store, renewed by a thread.

use core::future::{Future, ready};
use core::ops::RangeInclusive;
use core::pin::pin;
use core::task::{Context, Poll, Waker};
use core::time::Duration;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use super::claim::Round;
use super::error::LeaseError;
use super::holder::{Core, Next, lease_accessors};
use super::options::LeaseOptions;
use super::store::{
    AsyncLeaseStore, ClaimRequest, LeaseStore, NodeRow, NodeTable, ReleaseRequest, RenewRequest,
    Renewal,
};
use flakeid_core::__private::sealable;
use flakeid_core::GeneratorBuilder;
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::node::LeasedGenerator;
use flakeid_core::{Clock, MonotonicClock};
use flakeid_sql::StoreError;

/// A blocking store as the claim round (written for async stores) sees
/// it: every call runs to its end before its future is returned, so the
/// futures are ready at their first poll ([`run`]).
#[derive(Clone)]
pub(super) struct Blocking(Arc<Mutex<Box<dyn LeaseStore>>>);

impl Blocking {
    pub(super) fn new(store: impl LeaseStore + 'static) -> Self {
        Blocking(Arc::new(Mutex::new(Box::new(store))))
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn LeaseStore>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl AsyncLeaseStore for Blocking {
    fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        ready(self.lock().ensure_nodes(space, nodes))
    }

    fn try_claim(
        &self,
        request: &ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<NodeRow>, StoreError>> + Send {
        ready(self.lock().try_claim(request))
    }

    fn renew(
        &self,
        request: &RenewRequest<'_>,
    ) -> impl Future<Output = Result<Renewal, StoreError>> + Send {
        ready(self.lock().renew(request))
    }

    fn release(
        &self,
        request: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        ready(self.lock().release(request))
    }

    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send {
        ready(self.lock().list(space))
    }
}

/// Runs a future whose inner futures are all ready at once (the calls of
/// [`Blocking`]) to its end on this thread.
pub(super) fn run<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        // Not reached with `Blocking`; a future that is not ready is polled
        // again rather than lost.
        std::thread::yield_now();
    }
}

impl<L: Layout + Clone, C: Clock + Clone> LeaseOptions<L, C> {
    /// Claims a free node from a blocking store, persists its first
    /// ceiling, and starts a thread that renews the lease every
    /// [`renew_every`](Self::renew_every) with the store (which the thread
    /// then uses; give the store its own connection).
    ///
    /// The table is read once per round (one statement), then the nodes
    /// free by the store's clock are tried from a random one on, wrapping
    /// around, so that processes starting together spread over the space.
    /// A claimant waiting for a node ([`wait_for_node`](Self::wait_for_node))
    /// reads the table every [`LeaseOptions::POLL_EVERY`] (50 ms) and takes
    /// a released node then.
    ///
    /// # Errors
    /// [`LeaseError::InvalidOption`], [`LeaseError::AllTaken`] (after
    /// [`wait_for_node`](Self::wait_for_node)), [`LeaseError::ClockAhead`],
    /// [`LeaseError::Store`], [`LeaseError::Renewal`] when the thread
    /// cannot be started.
    pub fn claim<S: LeaseStore + 'static>(self, store: S) -> Result<NodeLease<L, C>, LeaseError> {
        let plan = self.plan()?;
        let store = Blocking::new(store);
        run(store.ensure_nodes(&plan.options.space, plan.nodes.clone()))
            .map_err(|e| plan.store_error("insert the node rows", e))?;
        let started = Instant::now();
        let won = loop {
            match run(plan.claim_round(&store))? {
                Round::Won(won) => break won,
                Round::NoneFree(table) => {
                    std::thread::sleep(plan.retry_after(&table, started.elapsed())?);
                }
            }
        };
        let core = Core::new(plan, won);
        let (thread_core, thread_store) = (core.clone(), store.clone());
        let node = core.holding().node;
        let spawned = std::thread::Builder::new()
            .name(format!("flakeid-lease-{node}"))
            .spawn(move || renew_blocking(&thread_core, &thread_store));
        match spawned {
            Ok(thread) => Ok(NodeLease {
                core,
                store,
                _thread: Some(thread),
            }),
            Err(e) => {
                let lease = NodeLease::detached(core, store);
                let _ = lease.release_unused();
                Err(LeaseError::Renewal {
                    node,
                    message: format!("cannot start the renewal thread: {e}"),
                })
            }
        }
    }
}

/// A held node lease, renewed by a background thread (see
/// [`LeaseOptions::claim`]). Release it with [`release`](Self::release)
/// when the process shuts down; dropping it stops the renewal and the
/// generator, and the row frees itself after the TTL.
pub struct NodeLease<L = BitLayout, C = MonotonicClock> {
    core: Arc<Core<L, C>>,
    store: Blocking,
    /// The renewal thread: it ends on its own once the lease stops (and
    /// is not waited for: it may be waiting for a store that does not answer).
    _thread: Option<JoinHandle<()>>,
}

impl<L, C> core::fmt::Debug for NodeLease<L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.core, f)
    }
}

impl<L: Layout + Clone, C: Clock + Clone> NodeLease<L, C> {
    fn detached(core: Arc<Core<L, C>>, store: Blocking) -> Self {
        NodeLease {
            core,
            store,
            _thread: None,
        }
    }

    lease_accessors!();

    /// Releases the node: stops the renewal and `generator` (it issues
    /// nothing more), and frees the row with the node's exact high-water
    /// mark, the last millisecond of the last tick `generator` issued IDs
    /// in, so the next holder (a restart of this process) need not wait.
    /// Returns the mark recorded. `generator` is the one built from
    /// [`generator_builder`](Self::generator_builder), or the
    /// process-wide one [`global::init`](flakeid_core::global::init) returned.
    ///
    /// Returns within the TTL whatever the store does: a store that does
    /// not answer by then is an error, and the row frees itself after the
    /// TTL.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::{FenceReason, Fenced, GenerateError};
    /// use flakeid_lease::{LeaseOptions, MemoryLeaseStore};
    ///
    /// let lease = LeaseOptions::new("orders", presets::twitter()).claim(MemoryLeaseStore::new())?;
    /// let generator = lease.generator_builder().build()?;
    /// generator.next_id()?;
    /// lease.release(&generator)?;
    /// // A released node's generator never issues again.
    /// let e = generator.next_id().unwrap_err();
    /// assert!(matches!(e, GenerateError::Fenced(Fenced { reason: FenceReason::Released { .. }, .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`LeaseError::NotThisLease`] when `generator` was not built from
    /// this lease (the lease is then dropped: its renewal and its own
    /// generator stop, and the row frees itself after the TTL),
    /// [`LeaseError::Lost`] when another holder took the node,
    /// [`LeaseError::Store`] when the store fails or does not answer
    /// within the TTL (the row then frees itself after the TTL, keeping the
    /// higher ceiling).
    pub fn release<G: LeasedGenerator + ?Sized>(self, generator: &G) -> Result<u64, LeaseError> {
        let (holding, mark) = self.core.finish(Some(sealable(generator)))?;
        self.release_with(&holding, mark)
    }

    /// Releases a lease from which no generator was built.
    ///
    /// # Errors
    /// [`LeaseError::GeneratorInUse`] when a generator was built from it;
    /// otherwise as [`release`](Self::release).
    pub fn release_unused(self) -> Result<u64, LeaseError> {
        let (holding, mark) = self.core.finish(None)?;
        self.release_with(&holding, mark)
    }

    fn release_with(
        &self,
        holding: &Arc<super::holder::Holding>,
        high_water: u64,
    ) -> Result<u64, LeaseError> {
        // On a thread of its own, so that a store that stopped answering
        // (or a renewal still waiting for it) cannot hold the caller: after
        // the TTL the row frees itself anyway.
        let (core, store, call_holding) = (self.core.clone(), self.store.clone(), holding.clone());
        let ttl = self.core.plan.options.ttl;
        let result = call_with_timeout(ttl, move || {
            store
                .lock()
                .release(&core.release_request(&call_holding, high_water))
        })
        .unwrap_or_else(|e| Err(e.into()));
        self.core.released(holding, high_water, result)
    }
}

impl<L, C> Drop for NodeLease<L, C> {
    fn drop(&mut self) {
        self.core.dropped();
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

/// The renewal thread: renews every interval until the lease stops or is
/// lost; moves to a new node when it is lost and the process-wide
/// generator waits. Each renewal runs on a thread of its own: each interval
/// the store leaves it unanswered counts as a failed renewal (the ceiling
/// stays where it is, so the generator fences at it; the failures, the
/// ceiling warning and the fence are reported as they happen) and the
/// renewal thread stays free to stop. A late answer still raises the ceiling: the time it
/// carries was persisted. The next renewal waits for it (one statement at a
/// time).
fn renew_blocking<L: Layout + Clone, C: Clock + Clone>(core: &Arc<Core<L, C>>, store: &Blocking) {
    let every = core.plan.options.renew_every;
    let slice = Duration::from_millis(50).min(every);
    let mut wait = core.first_renewal_in();
    loop {
        if core.wait_stopped(wait) {
            return;
        }
        wait = every;
        let Some((holding, ceiling)) = core.renewal() else {
            return;
        };
        let started = Instant::now();
        let (tx, rx) = mpsc::channel();
        let (call_core, call_store, call_holding) = (core.clone(), store.clone(), holding.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("flakeid-lease-{}-renew", holding.node))
            .spawn(move || {
                let result = call_store
                    .lock()
                    .renew(&call_core.renew_request(&call_holding, ceiling));
                let _ = tx.send(result);
            });
        let result = match spawned {
            Err(e) => Err(format!("cannot start a renewal thread: {e}").into()),
            Ok(_) => {
                let mut noted = Duration::ZERO;
                loop {
                    match rx.recv_timeout(slice) {
                        Ok(result) => break result,
                        Err(RecvTimeoutError::Timeout) => {
                            if core.is_stopped() {
                                return;
                            }
                            // A failure per interval without an answer, as
                            // if each interval's renewal had failed: the
                            // warnings, the fence and the status come on time.
                            let waited = started.elapsed();
                            if waited >= noted + every {
                                noted = waited;
                                core.no_answer(&holding, waited);
                            }
                        }
                        Err(RecvTimeoutError::Disconnected) => {
                            break Err("the renewal call panicked".into());
                        }
                    }
                }
            }
        };
        match core.renewed(&holding, ceiling, started, result) {
            Next::Renew => {}
            Next::Stop => return,
            Next::Move => move_blocking(core, store),
        }
    }
}

/// Claims a new node for the process-wide generator, reading the table
/// every [`LeaseOptions::POLL_EVERY`] until one is won or the lease stops.
fn move_blocking<L: Layout + Clone, C: Clock + Clone>(core: &Arc<Core<L, C>>, store: &Blocking) {
    while core.is_moving() {
        match run(core.plan.claim_round(store)) {
            Ok(Round::Won(won)) => {
                if let Err(won) = core.moved(won) {
                    let holding = won.node;
                    let _ = run(store.release(&ReleaseRequest {
                        space: &core.plan.options.space,
                        node: holding,
                        owner: &core.plan.owner,
                        fence: won.row.fence,
                        high_water_millis: won.row.high_water_millis,
                    }));
                }
                return;
            }
            Ok(Round::NoneFree(_)) => {}
            Err(e) => core.move_failed(&e),
        }
        if core.wait_stopped(LeaseOptions::POLL_EVERY) {
            return;
        }
    }
}
