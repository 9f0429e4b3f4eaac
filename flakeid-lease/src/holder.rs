//! The holder's side of a lease, shared by the blocking and the async
//! handle and by their renewals: the node held now, what a renewal's
//! outcome means, moving to a new node, the status, the events, releasing.
//!
//! Every step here is synchronous and does no I/O: the renewals
//! (`blocking.rs`, `asynchronous.rs`) call the store and hand the outcome
//! to these steps, and the protocol simulation drives the same steps.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::changes::{LeaseChanges, Subscribers};
use super::claim::Won;
use super::error::LeaseError;
use super::events::{TARGET, lease_event};
use super::options::Plan;
use super::status::LeaseStatus;
use super::store::{ReleaseRequest, RenewRequest, Renewal};
use flakeid_core::__private::{Attach, Ceiling, Movable, Sealable};
use flakeid_core::__private::{Counter, Histogram};
use flakeid_core::Clock;
use flakeid_core::FenceReason;
use flakeid_core::layout::Layout;
use flakeid_core::{Generator, GeneratorBuilder};
use flakeid_sql::StoreError;

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

    /// Tells the subscribers the status at `now` if it changed.
    fn publish_at(&self, state: &mut State, now: u64) {
        let status = self.status_at(state, now);
        state.subscribers.publish(&status);
    }

    /// The lease's status at `now` (see [`LeaseStatus`]).
    fn status_at(&self, state: &State, now: u64) -> LeaseStatus {
        let h = &state.holding;
        match state.phase {
            Phase::Released => return LeaseStatus::Released,
            Phase::Moving {
                from_node,
                since_millis,
            } => {
                return LeaseStatus::Moving {
                    from_node,
                    since_millis,
                };
            }
            Phase::Lost { .. } | Phase::Held => {}
        }
        let reason = h.ceiling.reason();
        let ceiling_millis = h.ceiling.millis();
        let closed = h.ceiling.is_closed();
        if closed || now >= ceiling_millis {
            let since_millis = match (&reason, state.phase) {
                (_, Phase::Lost { since_millis }) => since_millis,
                (FenceReason::Released { released_millis }, _) => *released_millis,
                _ => ceiling_millis,
            };
            return LeaseStatus::Fenced {
                node: h.node,
                fence: h.fence,
                since_millis,
                reason,
            };
        }
        match state.failing_since {
            Some(since_millis) => LeaseStatus::RenewingLate {
                node: h.node,
                fence: h.fence,
                since_millis,
                ceiling_millis,
                last_error: state.last_error.clone(),
            },
            None => LeaseStatus::Held {
                node: h.node,
                fence: h.fence,
                ceiling_millis,
            },
        }
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

    /// When the first renewal is due: an interval after the claim asked
    /// for its first ceiling, so that a claim the store answered slowly is
    /// renewed that much sooner.
    pub(super) fn first_renewal_in(&self) -> Duration {
        let asked = self
            .holding()
            .ceiling
            .millis()
            .saturating_sub(self.plan.lead_millis);
        let since = self.now().saturating_sub(asked);
        self.plan
            .options
            .renew_every
            .saturating_sub(Duration::from_millis(since))
    }

    /// What the next renewal asks for: the node held now and the new
    /// ceiling (the lead ahead of the clock, never lower than the current
    /// one). `None` once the lease stopped.
    pub(super) fn renewal(&self) -> Option<(Arc<Holding>, u64)> {
        let state = self.lock();
        if state.stopped || !matches!(state.phase, Phase::Held) {
            return None;
        }
        let ceiling = self
            .now()
            .saturating_add(self.plan.lead_millis)
            .max(state.holding.ceiling.millis());
        Some((state.holding.clone(), ceiling))
    }

    /// A renewal of `holding` to `ceiling_millis` has not been answered
    /// within the interval.
    pub(super) fn no_answer(&self, holding: &Arc<Holding>, waited: Duration) {
        let mut state = self.lock();
        if Arc::ptr_eq(holding, &state.holding) && !state.stopped {
            self.failed(&mut state, format!("no answer within {waited:?}"));
            self.publish(&mut state);
        }
    }

    /// Applies a renewal's outcome.
    pub(super) fn renewed(
        &self,
        holding: &Arc<Holding>,
        ceiling_millis: u64,
        started: Instant,
        result: Result<Renewal, StoreError>,
    ) -> Next {
        let mut state = self.lock();
        let next = self.apply(&mut state, holding, ceiling_millis, started, result);
        self.publish(&mut state);
        next
    }

    fn apply(
        &self,
        state: &mut State,
        holding: &Arc<Holding>,
        ceiling_millis: u64,
        started: Instant,
        result: Result<Renewal, StoreError>,
    ) -> Next {
        if state.stopped {
            return Next::Stop;
        }
        if !Arc::ptr_eq(holding, &state.holding) {
            return Next::Renew;
        }
        let now = self.now();
        self.metrics.renewal.record(started.elapsed());
        match result {
            Ok(Renewal::Renewed) => {
                // Persisted: the generator may use it.
                holding.ceiling.raise(ceiling_millis, now);
                if let Some(since) = state.failing_since.take() {
                    lease_event!(
                        INFO,
                        self.plan,
                        holding,
                        failing_for_ms = now.saturating_sub(since),
                        ceiling_millis,
                        "node lease renewed again after failures"
                    );
                }
                state.last_error = None;
                state.warned_ceiling = false;
                state.logged_fenced = false;
                Next::Renew
            }
            Ok(Renewal::ClockAhead { store_now_millis }) => {
                let holder_millis = ceiling_millis.saturating_sub(self.plan.lead_millis);
                let ahead =
                    holder_millis.saturating_sub(u64::try_from(store_now_millis).unwrap_or(0));
                lease_event!(
                    ERROR,
                    self.plan,
                    holding,
                    holder = %self.plan.holder,
                    holder_millis,
                    store_millis = store_now_millis,
                    ahead_ms = ahead,
                    max_skew_ms = u64::try_from(self.plan.options.max_clock_skew.as_millis()).unwrap_or(u64::MAX),
                    "node lease renewal refused: this holder's clock runs ahead of the store's by more than the allowed skew"
                );
                self.failed(
                    state,
                    format!(
                        "the store refused the ceiling: this holder's clock reads {holder_millis} ms, \
                         {ahead} ms ahead of the store's ({store_now_millis} ms)"
                    ),
                );
                Next::Renew
            }
            Ok(_) => {
                // Lost (`Renewal` is non-exhaustive; nothing else means the row is ours).
                self.metrics.lost.increment(1);
                holding.ceiling.close(FenceReason::Lost {
                    fence: holding.fence,
                    detected_millis: now,
                });
                let moving = self.plan.options.heal
                    && self
                        .process
                        .get()
                        .is_some_and(|p| p.begin_move(&holding.ceiling));
                lease_event!(
                    ERROR,
                    self.plan,
                    holding,
                    moving,
                    "node lease lost: another holder took the node; IDs of this node stopped"
                );
                if moving {
                    state.phase = Phase::Moving {
                        from_node: holding.node,
                        since_millis: now,
                    };
                    Next::Move
                } else {
                    state.phase = Phase::Lost { since_millis: now };
                    self.stop(state);
                    Next::Stop
                }
            }
            Err(e) => {
                self.failed(state, e.to_string());
                Next::Renew
            }
        }
    }

    /// Records a failed renewal: on the ceiling (for the generator's
    /// error), in the status, and as events.
    fn failed(&self, state: &mut State, error: String) {
        let now = self.now();
        let holding = state.holding.clone();
        holding.ceiling.record_failure(error.clone());
        self.metrics.failures.increment(1);
        let since = *state.failing_since.get_or_insert(now);
        let ceiling = holding.ceiling.millis();
        let ceiling_in_ms = ceiling.saturating_sub(now);
        lease_event!(
            WARN,
            self.plan,
            holding,
            error = %error,
            failing_for_ms = now.saturating_sub(since),
            ceiling_in_ms,
            "node lease renewal failed"
        );
        let renew_every = u64::try_from(self.plan.options.renew_every.as_millis()).unwrap_or(0);
        if now >= ceiling {
            if !state.logged_fenced {
                state.logged_fenced = true;
                self.metrics.fenced.increment(1);
                lease_event!(
                    ERROR,
                    self.plan,
                    holding,
                    ceiling_millis = ceiling,
                    error = %error,
                    "node lease fenced: the generator reached its ceiling and issues no IDs until a renewal gets through"
                );
            }
        } else if ceiling_in_ms <= renew_every.saturating_mul(2) && !state.warned_ceiling {
            state.warned_ceiling = true;
            lease_event!(
                WARN,
                self.plan,
                holding,
                ceiling_millis = ceiling,
                ceiling_in_ms,
                "node lease ceiling approaching: IDs stop at the ceiling unless a renewal gets through"
            );
        }
        state.last_error = Some(error);
    }

    /// A node was won for the process-wide generator after the lease was
    /// lost: it becomes the lease's node and the generator moves to it.
    /// Gives the node back when the lease stopped meanwhile, or when the
    /// generator cannot move to it (then the lease is lost for good).
    pub(super) fn moved(&self, won: Won) -> Result<(), Won> {
        let mut state = self.lock();
        let Phase::Moving {
            from_node,
            since_millis,
        } = state.phase
        else {
            return Err(won);
        };
        if state.stopped {
            return Err(won);
        }
        let holding = Arc::new(self.plan.holding(&won));
        let Some(process) = self.process.get() else {
            return Err(won);
        };
        if let Err(e) = process.move_to(holding.node, holding.resume_after, holding.ceiling.clone())
        {
            tracing::error!(
                target: TARGET,
                space = %self.plan.options.space,
                node = holding.node,
                owner = %self.plan.owner,
                error = %e,
                "node lease: the generator cannot move to the new node; the lease stays lost"
            );
            state.phase = Phase::Lost {
                since_millis: self.now(),
            };
            self.stop(&mut state);
            self.publish(&mut state);
            return Err(won);
        }
        let now = self.now();
        lease_event!(
            WARN,
            self.plan,
            holding,
            from_node,
            resume_after_millis = holding.resume_after,
            moving_for_ms = now.saturating_sub(since_millis),
            "node lease re-claimed: the process-wide generator moved to a new node"
        );
        self.metrics.moves.increment(1);
        state.holding = holding;
        state.phase = Phase::Held;
        state.failing_since = None;
        state.last_error = None;
        state.warned_ceiling = false;
        state.logged_fenced = false;
        self.publish(&mut state);
        Ok(())
    }

    /// A claim round for the move failed; it is tried again.
    pub(super) fn move_failed(&self, error: &LeaseError) {
        let state = self.lock();
        if let Phase::Moving { from_node, .. } = state.phase {
            tracing::warn!(
                target: TARGET,
                space = %self.plan.options.space,
                from_node,
                owner = %self.plan.owner,
                error = %error,
                "node lease: claiming a new node failed; trying again"
            );
        }
    }

    /// Whether the lease is moving to a new node (and not stopped).
    pub(super) fn is_moving(&self) -> bool {
        let state = self.lock();
        !state.stopped && matches!(state.phase, Phase::Moving { .. })
    }

    /// The lease's state for health checks (see [`LeaseStatus`]).
    pub(super) fn status(&self) -> LeaseStatus {
        self.status_at(&self.lock(), self.now())
    }

    /// Tells the subscribers the status if it changed.
    fn publish(&self, state: &mut State) {
        self.publish_at(state, self.now());
    }

    /// Every change of the status from now on, starting with the status now.
    pub(super) fn changes(&self) -> LeaseChanges {
        let mut state = self.lock();
        let now = self.status_at(&state, self.now());
        state.subscribers.changes(&now)
    }

    /// A watch of the latest status.
    #[cfg(feature = "tokio")]
    pub(super) fn watch(&self) -> tokio::sync::watch::Receiver<LeaseStatus> {
        let mut state = self.lock();
        let now = self.status_at(&state, self.now());
        state.subscribers.watch(&now)
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

/// Accessors shared by both lease handles.
macro_rules! lease_accessors {
    () => {
        /// The leased node ID (another one after the lease moved; see
        /// [`LeaseOptions::heal`](crate::LeaseOptions::heal)).
        pub fn node(&self) -> u64 {
            self.core.holding().node
        }

        /// The ID space.
        pub fn space(&self) -> &str {
            &self.core.plan.options.space
        }

        /// This holder's generation on its node: one more than the previous holder's.
        pub fn fence(&self) -> u64 {
            self.core.holding().fence
        }

        /// This holder's random token: the `owner` column of the node it
        /// holds (and the `owner` field of its events).
        pub fn owner(&self) -> &str {
            &self.core.plan.owner
        }

        /// The previous holders' high-water mark (Unix ms): the generator
        /// stamps its IDs after it.
        pub fn resume_after_millis(&self) -> u64 {
            self.core.holding().resume_after
        }

        /// When the lease first ended, by the store's clock (Unix ms).
        pub fn claimed_until_millis(&self) -> i64 {
            self.core.holding().lease_until_millis
        }

        /// The lease's state, for health checks: cheap (a lock and a
        /// clock reading; no store call).
        ///
        /// ```
        /// use flakeid_core::layout::presets;
        /// use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};
        ///
        /// let lease = LeaseOptions::new("orders", presets::twitter()).claim(MemoryLeaseStore::new())?;
        /// assert!(matches!(lease.status(), LeaseStatus::Held { .. }));
        /// assert!(lease.status().is_issuing());
        /// # Ok::<(), flakeid_lease::LeaseError>(())
        /// ```
        pub fn status(&self) -> $crate::LeaseStatus {
            self.core.status()
        }

        /// Every change of the lease's state from now on, in order,
        /// starting with the state now: held, renewing late, fenced, lost
        /// (moving, or fenced for good), held on another node, released.
        /// Receiving blocks: for blocking code and threads; async code
        /// uses [`watch`](Self::watch). See [`LeaseChanges`](crate::LeaseChanges).
        pub fn changes(&self) -> $crate::LeaseChanges {
            self.core.changes()
        }

        /// The lease's state as a `tokio::sync::watch` (feature `tokio`):
        /// the state now, updated at every change
        /// ([`changed`](tokio::sync::watch::Receiver::changed) wakes a task
        /// without polling). A watch keeps only the latest state: changes
        /// that follow each other quickly may be seen as their last one;
        /// [`changes`](Self::changes) keeps every one.
        ///
        /// ```
        /// # #[tokio::main(flavor = "current_thread")]
        /// # async fn main() -> Result<(), flakeid_lease::LeaseError> {
        /// use flakeid_core::layout::presets;
        /// use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};
        ///
        /// let lease = LeaseOptions::new("orders", presets::twitter()).claim(MemoryLeaseStore::new())?;
        /// let mut state = lease.watch();
        /// assert!(state.borrow().is_issuing());
        /// lease.release_unused()?;
        /// state.changed().await.expect("told before the lease is gone");
        /// assert_eq!(*state.borrow(), LeaseStatus::Released);
        /// # Ok(())
        /// # }
        /// ```
        #[cfg(feature = "tokio")]
        pub fn watch(&self) -> tokio::sync::watch::Receiver<$crate::LeaseStatus> {
            self.core.watch()
        }

        /// A builder for this lease's generator: the leased node, the
        /// options' clock, [`resume_after`](GeneratorBuilder::resume_after)
        /// the previous holders' mark, and the lease's ceiling. Set
        /// policies on it as usual; one generator per lease. Its node and
        /// resume point are the lease's: changing them makes
        /// [`build`](GeneratorBuilder::build) fail with
        /// [`ConfigError::FixedBySource`](flakeid_core::ConfigError::FixedBySource).
        ///
        /// Give it to [`global::init`](flakeid_core::global::init) to make it the
        /// process-wide generator, which the lease moves to a new node
        /// when it is lost ([`LeaseOptions::heal`](crate::LeaseOptions::heal)).
        pub fn generator_builder(&self) -> GeneratorBuilder<L, C> {
            self.core.generator_builder()
        }
    };
}

pub(super) use lease_accessors;

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
