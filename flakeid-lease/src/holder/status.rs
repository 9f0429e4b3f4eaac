//! The holder's status (see [`LeaseStatus`]): computed from its state,
//! and told to subscribers at every change.

use super::{Core, Phase, State};
use crate::changes::LeaseChanges;
use crate::status::LeaseStatus;
use flakeid_core::Clock;
use flakeid_core::FenceReason;
use flakeid_core::layout::Layout;

impl<L, C> Core<L, C> {
    /// Tells the subscribers the status at `now` if it changed.
    pub(super) fn publish_at(&self, state: &mut State, now: u64) {
        let status = self.status_at(state, now);
        state.subscribers.publish(&status);
    }

    /// The lease's status at `now` (see [`LeaseStatus`]).
    pub(super) fn status_at(&self, state: &State, now: u64) -> LeaseStatus {
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
}

impl<L: Layout + Clone, C: Clock + Clone> Core<L, C> {
    /// The lease's state for health checks (see [`LeaseStatus`]).
    pub(crate) fn status(&self) -> LeaseStatus {
        self.status_at(&self.lock(), self.now())
    }

    /// Tells the subscribers the status if it changed.
    pub(super) fn publish(&self, state: &mut State) {
        self.publish_at(state, self.now());
    }

    /// Every change of the status from now on, starting with the status now.
    pub(crate) fn changes(&self) -> LeaseChanges {
        let mut state = self.lock();
        let now = self.status_at(&state, self.now());
        state.subscribers.changes(&now)
    }

    /// A watch of the latest status.
    #[cfg(feature = "tokio")]
    pub(crate) fn watch(&self) -> tokio::sync::watch::Receiver<LeaseStatus> {
        let mut state = self.lock();
        let now = self.status_at(&state, self.now());
        state.subscribers.watch(&now)
    }
}
