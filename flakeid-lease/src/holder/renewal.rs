//! What a renewal's outcome means for the holder: renewed, refused for a
//! clock ahead of the store's, failed, lost; and moving the process-wide
//! generator to a new node after a loss.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Core, Holding, Next, Phase, State};
use crate::claim::Won;
use crate::error::LeaseError;
use crate::events::{TARGET, lease_event};
use crate::store::Renewal;
use flakeid_core::Clock;
use flakeid_core::FenceReason;
use flakeid_core::layout::Layout;
use flakeid_sql::StoreError;

impl<L: Layout + Clone, C: Clock + Clone> Core<L, C> {
    /// When the first renewal is due: an interval after the claim asked
    /// for its first ceiling, so that a claim the store answered slowly is
    /// renewed that much sooner.
    pub(crate) fn first_renewal_in(&self) -> Duration {
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
    pub(crate) fn renewal(&self) -> Option<(Arc<Holding>, u64)> {
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
    pub(crate) fn no_answer(&self, holding: &Arc<Holding>, waited: Duration) {
        let mut state = self.lock();
        if Arc::ptr_eq(holding, &state.holding) && !state.stopped {
            self.failed(&mut state, format!("no answer within {waited:?}"));
            self.publish(&mut state);
        }
    }

    /// Applies a renewal's outcome.
    pub(crate) fn renewed(
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
    pub(crate) fn moved(&self, won: Won) -> Result<(), Won> {
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
    pub(crate) fn move_failed(&self, error: &LeaseError) {
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
    pub(crate) fn is_moving(&self) -> bool {
        let state = self.lock();
        !state.stopped && matches!(state.phase, Phase::Moving { .. })
    }
}
