//! The holder's side of a lease, common to the blocking and the async
//! handle: what the renewal and the handle share, and what releasing does.

use core::time::Duration;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::error::LeaseError;
use super::store::{ReleaseRequest, RenewRequest};
use crate::clock::Clock;
use crate::error::FenceReason;
use crate::generator::{Ceiling, Generator, GeneratorBuilder};
use crate::layout::Layout;
use crate::store::StoreError;

/// What the renewal and the lease handle share.
pub(super) struct Shared<C> {
    pub(super) space: String,
    pub(super) node: u64,
    pub(super) owner: String,
    pub(super) fence: u64,
    pub(super) ttl: Duration,
    pub(super) renew_every: Duration,
    pub(super) lead_millis: u64,
    pub(super) clock: C,
    pub(super) ceiling: Arc<Ceiling>,
    pub(super) stop: Mutex<bool>,
    pub(super) stopped: Condvar,
}

impl<C: Clock> Shared<C> {
    pub(super) fn renew_request(&self, ceiling_millis: u64) -> RenewRequest<'_> {
        RenewRequest {
            space: &self.space,
            node: self.node,
            owner: &self.owner,
            fence: self.fence,
            ttl: self.ttl,
            ceiling_millis,
        }
    }

    /// The next ceiling: the lead ahead of the clock, never lower than the
    /// current one.
    pub(super) fn next_ceiling(&self) -> u64 {
        self.clock
            .now_millis()
            .saturating_add(self.lead_millis)
            .max(self.ceiling.millis())
    }

    /// Applies a renewal's outcome; whether to keep renewing.
    pub(super) fn renewed(&self, ceiling_millis: u64, result: Result<bool, StoreError>) -> bool {
        let now = self.clock.now_millis();
        match result {
            // Persisted: the generator may use it. (Refused once closed.)
            Ok(true) => self.ceiling.raise(ceiling_millis, now),
            Ok(false) => {
                self.ceiling.close(FenceReason::Lost {
                    fence: self.fence,
                    detected_millis: now,
                });
                false
            }
            Err(e) => {
                self.ceiling.record_failure(e.to_string());
                !self.is_stopped()
            }
        }
    }
}

impl<C> Shared<C> {
    pub(super) fn is_stopped(&self) -> bool {
        *self.stop.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn stop(&self) {
        *self.stop.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.stopped.notify_all();
    }

    /// Sleeps for `d` unless stopped first; whether it was stopped.
    pub(super) fn wait_stopped(&self, d: Duration) -> bool {
        let guard = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        let (guard, _) = self
            .stopped
            .wait_timeout_while(guard, d, |stop| !*stop)
            .unwrap_or_else(PoisonError::into_inner);
        *guard
    }
}

/// The holder's side of a lease, common to [`NodeLease`] and [`AsyncNodeLease`].
pub(super) struct Lease<L, C> {
    pub(super) shared: Arc<Shared<C>>,
    pub(super) layout: L,
    pub(super) resume_after: u64,
    pub(super) lease_until_millis: i64,
    /// Released (or found lost): nothing left to do on drop.
    pub(super) done: bool,
}

impl<L: Layout + Clone, C: Clock + Clone> Lease<L, C> {
    pub(super) fn generator_builder(&self) -> GeneratorBuilder<L, C> {
        Generator::builder(self.layout.clone(), self.shared.node)
            .clock(self.shared.clock.clone())
            .resume_after(self.resume_after)
            .ceiling(self.shared.ceiling.clone())
    }

    /// Stops renewing and the generator; the exact high-water mark to record.
    pub(super) fn finish<L2: Layout, C2: Clock>(
        &mut self,
        generator: Option<&Generator<L2, C2>>,
    ) -> Result<u64, LeaseError> {
        let s = &self.shared;
        match generator {
            Some(g) if !g.uses_ceiling(&s.ceiling) => {
                return Err(LeaseError::NotThisLease { node: s.node });
            }
            None if s.ceiling.is_attached() => {
                return Err(LeaseError::GeneratorInUse { node: s.node });
            }
            _ => {}
        }
        s.stop();
        s.ceiling.close(FenceReason::Released {
            released_millis: s.clock.now_millis(),
        });
        self.done = true;
        let last = generator.and_then(Generator::seal);
        Ok(last.unwrap_or(0).max(self.resume_after))
    }

    pub(super) fn release_request(&self, high_water_millis: u64) -> ReleaseRequest<'_> {
        ReleaseRequest {
            space: &self.shared.space,
            node: self.shared.node,
            owner: &self.shared.owner,
            fence: self.shared.fence,
            high_water_millis,
        }
    }

    pub(super) fn released(&self, result: Result<bool, StoreError>) -> Result<u64, LeaseError> {
        let s = &self.shared;
        match result {
            Ok(true) => Ok(s.fence),
            Ok(false) => Err(LeaseError::Lost {
                space: s.space.clone(),
                node: s.node,
                fence: s.fence,
            }),
            Err(e) => Err(LeaseError::Store {
                operation: format!(
                    "release node {} (fence {}; the row frees itself after the TTL)",
                    s.node, s.fence
                ),
                space: s.space.clone(),
                source: e,
            }),
        }
    }
}

impl<L, C> Drop for Lease<L, C> {
    fn drop(&mut self) {
        if !self.done {
            // Not released: stop renewing; the row frees itself after the
            // TTL, and the generator stops at its ceiling at once.
            self.shared.stop();
            self.shared.ceiling.close(FenceReason::Dropped);
        }
    }
}

/// Accessors shared by both lease handles.
macro_rules! lease_accessors {
    () => {
        /// The leased node ID.
        pub fn node(&self) -> u64 {
            self.lease.shared.node
        }

        /// The ID space.
        pub fn space(&self) -> &str {
            &self.lease.shared.space
        }

        /// This holder's generation: one more than the previous holder's.
        pub fn fence(&self) -> u64 {
            self.lease.shared.fence
        }

        /// The previous holders' high-water mark (Unix ms): the generator
        /// stamps its IDs after it.
        pub fn resume_after_millis(&self) -> u64 {
            self.lease.resume_after
        }

        /// When the lease first ended, by the store's clock (Unix ms).
        pub fn claimed_until_millis(&self) -> i64 {
            self.lease.lease_until_millis
        }

        /// The generator's ceiling, raised by each renewal.
        pub fn ceiling(&self) -> &Arc<Ceiling> {
            &self.lease.shared.ceiling
        }

        /// A builder for this lease's generator: the leased node, the
        /// options' clock, [`resume_after`](GeneratorBuilder::resume_after)
        /// the previous holders' mark and the lease's
        /// [`ceiling`](GeneratorBuilder::ceiling). Set policies on it as
        /// usual; one generator per lease.
        pub fn generator_builder(&self) -> GeneratorBuilder<L, C> {
            self.lease.generator_builder()
        }
    };
}

pub(super) use lease_accessors;
