//! The holder's side of a lease, shared by the blocking and the async
//! handle and by their renewals: the node held now, what a renewal's
//! outcome means, moving to a new node, the status, the events, releasing.
//!
//! Every step here is synchronous and does no I/O: the renewals
//! (`blocking.rs`, `asynchronous.rs`) call the store and hand the outcome
//! to these steps, and the protocol simulation drives the same steps.

mod accessors;
mod renewal;
mod status;

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use super::changes::Subscribers;
use super::claim::Won;
use super::error::LeaseError;
use super::events::lease_event;
use super::options::Plan;
use super::store::{ReleaseRequest, RenewRequest};
use flakeid_core::__private::{Attach, Ceiling, Movable, Sealable};
use flakeid_core::__private::{Counter, Histogram};
use flakeid_core::Clock;
use flakeid_core::FenceReason;
use flakeid_core::layout::Layout;
use flakeid_core::{Generator, GeneratorBuilder};
use flakeid_sql::StoreError;

pub(super) use accessors::lease_accessors;

/// The node a lease holds now (a new one after a move).
#[derive(Debug)]
pub(super) struct Holding {
    pub(super) node: u64,
    pub(super) fence: u64,
    pub(super) ceiling: Arc<Ceiling>,
    /// The previous holders' high-water mark: the generator starts after it.
    pub(super) resume_after: u64,
    /// When the lease first ended, by the store's clock.
    pub(super) lease_until_millis: i64,
}

/// What the renewal does after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// Renew again after the interval.
    Renew,
    /// The node was lost and the process-wide generator waits: claim a new
    /// node ([`Core::claim_round`](super::options::Plan::claim_round)), then [`Core::moved`].
    Move,
    /// Stop renewing.
    Stop,
}

/// A lease's state, shared by its handle and its renewal.
pub(super) struct Core<L, C> {
    pub(super) plan: Plan<L, C>,
    state: Mutex<State>,
    /// Notified when the lease stops (the blocking renewal waits on it).
    stopped: Condvar,
    /// The process-wide generator, once the lease's builder went to
    /// [`global::init`](flakeid_core::global::init).
    process: OnceLock<Arc<dyn Movable>>,
    metrics: LeaseMetrics,
}

impl<L, C> core::fmt::Debug for Core<L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let holding = self.holding();
        f.debug_struct("Lease")
            .field("space", &self.plan.options.space)
            .field("node", &holding.node)
            .field("fence", &holding.fence)
            .field("ceiling_millis", &holding.ceiling.millis())
            .finish_non_exhaustive()
    }
}

impl<L, C> Attach for Core<L, C>
where
    L: Send + Sync,
    C: Send + Sync,
{
    fn attach(&self, process: Arc<dyn Movable>) {
        let _ = self.process.set(process);
    }
}

impl<L, C> Core<L, C> {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The node held now.
    pub(super) fn holding(&self) -> Arc<Holding> {
        self.lock().holding.clone()
    }

    pub(super) fn is_stopped(&self) -> bool {
        self.lock().stopped
    }

    /// Sleeps for `d` unless the lease stops first; whether it stopped.
    pub(super) fn wait_stopped(&self, d: Duration) -> bool {
        let guard = self.lock();
        let (guard, _) = self
            .stopped
            .wait_timeout_while(guard, d, |s| !s.stopped)
            .unwrap_or_else(PoisonError::into_inner);
        guard.stopped
    }

    fn stop(&self, state: &mut State) {
        state.stopped = true;
        if matches!(state.phase, Phase::Moving { .. })
            && let Some(p) = self.process.get()
        {
            p.abandon_move();
        }
        self.stopped.notify_all();
    }

    /// The handle was dropped without a release: the renewal stops, the
    /// generator stops at once, the row frees itself after the TTL.
    pub(super) fn dropped(&self) {
        let mut state = self.lock();
        if state.stopped {
            return;
        }
        state.holding.ceiling.close(FenceReason::Dropped);
        self.stop(&mut state);
        // Closed: fenced whatever the time.
        self.publish_at(&mut state, 0);
        lease_event!(
            WARN,
            self.plan,
            state.holding,
            "node lease dropped without release: IDs stop now, the node frees itself after the TTL"
        );
    }

    pub(super) fn release_request<'a>(
        &'a self,
        holding: &Holding,
        high_water_millis: u64,
    ) -> ReleaseRequest<'a> {
        ReleaseRequest {
            space: &self.plan.options.space,
            node: holding.node,
            owner: &self.plan.owner,
            fence: holding.fence,
            high_water_millis,
        }
    }

    pub(super) fn renew_request<'a>(
        &'a self,
        holding: &Holding,
        ceiling_millis: u64,
    ) -> RenewRequest<'a> {
        let ReleaseRequest {
            space,
            node,
            owner,
            fence,
            ..
        } = self.release_request(holding, 0);
        RenewRequest {
            space,
            node,
            owner,
            fence,
            ttl: self.plan.options.ttl,
            ceiling_millis,
            max_ahead_millis: self.plan.max_ahead_millis,
        }
    }
}

impl<L: Layout + Clone, C: Clock + Clone> Core<L, C> {
    /// The lease of a node just won.
    pub(super) fn new(plan: Plan<L, C>, won: Won) -> Arc<Self> {
        let holding = Arc::new(plan.holding(&won));
        lease_event!(
            INFO,
            plan,
            holding,
            holder = %plan.holder,
            resume_after_millis = holding.resume_after,
            ceiling_millis = won.ceiling_millis,
            "node lease claimed"
        );
        let metrics = LeaseMetrics::new(&plan.options.space);
        Arc::new(Core {
            plan,
            state: Mutex::new(State {
                holding,
                phase: Phase::Held,
                stopped: false,
                failing_since: None,
                last_error: None,
                warned_ceiling: false,
                logged_fenced: false,
                subscribers: Subscribers::default(),
            }),
            stopped: Condvar::new(),
            process: OnceLock::new(),
            metrics,
        })
    }

    fn now(&self) -> u64 {
        self.plan.options.clock.now_millis()
    }

    /// A builder for the generator of the node held now; see
    /// `NodeLease::generator_builder`.
    pub(super) fn generator_builder(self: &Arc<Self>) -> GeneratorBuilder<L, C> {
        let holding = self.holding();
        let attach: Arc<dyn Attach> = self.clone();
        Generator::builder(self.plan.options.layout.clone(), holding.node)
            .clock(self.plan.options.clock.clone())
            .resume_after(holding.resume_after)
            .ceiling(holding.ceiling.clone())
            .owned_by(
                format!(
                    "the node lease of node {} in space {:?}",
                    holding.node, self.plan.options.space
                ),
                Some(attach),
            )
    }

    /// Starts a release: stops the renewal and `generator` (it issues
    /// nothing more); the node and the exact high-water mark to record.
    pub(super) fn finish(
        &self,
        generator: Option<&dyn Sealable>,
    ) -> Result<(Arc<Holding>, u64), LeaseError> {
        let mut state = self.lock();
        let holding = state.holding.clone();
        match generator {
            Some(g) if !g.uses(&holding.ceiling) => {
                return Err(LeaseError::NotThisLease { node: holding.node });
            }
            None if holding.ceiling.is_attached() => {
                return Err(LeaseError::GeneratorInUse { node: holding.node });
            }
            _ => {}
        }
        holding.ceiling.close(FenceReason::Released {
            released_millis: self.now(),
        });
        let last = generator.and_then(Sealable::seal);
        state.phase = Phase::Released;
        self.stop(&mut state);
        self.publish(&mut state);
        Ok((holding.clone(), last.unwrap_or(0).max(holding.resume_after)))
    }

    /// The outcome of the release statement for `holding`.
    pub(super) fn released(
        &self,
        holding: &Holding,
        high_water_millis: u64,
        result: Result<bool, StoreError>,
    ) -> Result<u64, LeaseError> {
        let space = &self.plan.options.space;
        match result {
            Ok(true) => {
                lease_event!(
                    INFO,
                    self.plan,
                    holding,
                    high_water_millis,
                    "node lease released"
                );
                Ok(high_water_millis)
            }
            Ok(false) => Err(LeaseError::Lost {
                space: space.clone(),
                node: holding.node,
                fence: holding.fence,
            }),
            Err(e) => {
                lease_event!(
                    WARN,
                    self.plan,
                    holding,
                    error = %e,
                    "node lease release failed; the node frees itself after the TTL"
                );
                Err(self.plan.store_error(
                    &format!(
                        "release node {} (fence {}; the row frees itself after the TTL)",
                        holding.node, holding.fence
                    ),
                    e,
                ))
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Held,
    /// Lost; claiming another node for the process-wide generator.
    Moving {
        from_node: u64,
        since_millis: u64,
    },
    /// Lost for good (no process-wide generator to move, or healing off).
    Lost {
        since_millis: u64,
    },
    Released,
}

#[derive(Debug)]
struct State {
    holding: Arc<Holding>,
    phase: Phase,
    /// The renewal ends: released, dropped, or lost for good.
    stopped: bool,
    /// Renewals have failed in a row since (generator clock, Unix ms).
    failing_since: Option<u64>,
    last_error: Option<String>,
    /// Events already emitted for this run of failures.
    warned_ceiling: bool,
    logged_fenced: bool,
    /// When the renewal in flight was asked for (its latency's start).
    /// Told of every change of the status.
    subscribers: Subscribers,
}

impl<L: Layout + Clone, C: Clock + Clone> Plan<L, C> {
    /// The holding of a node just won, its ceiling raised to the first
    /// ceiling persisted.
    fn holding(&self, won: &Won) -> Holding {
        let ceiling = Arc::new(Ceiling::new(self.options.at_ceiling));
        ceiling.raise(won.ceiling_millis, self.options.clock.now_millis());
        Holding {
            node: won.node,
            fence: won.row.fence,
            ceiling,
            resume_after: won.row.high_water_millis,
            lease_until_millis: won.row.lease_until_millis,
        }
    }
}

/// The metrics of a node lease (labelled with its space).
#[derive(Clone, Debug, Default)]
struct LeaseMetrics {
    renewal: Histogram,
    failures: Counter,
    fenced: Counter,
    lost: Counter,
    moves: Counter,
}

impl LeaseMetrics {
    fn new(space: &str) -> Self {
        let l = [("space", space)];
        LeaseMetrics {
            renewal: Histogram::new("flakeid_lease_renewal_duration_seconds", &l),
            failures: Counter::new("flakeid_lease_renewal_failures_total", &l),
            fenced: Counter::new("flakeid_lease_fenced_total", &l),
            lost: Counter::new("flakeid_lease_lost_total", &l),
            moves: Counter::new("flakeid_node_moves_total", &l),
        }
    }
}
