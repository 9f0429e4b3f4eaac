//! The ceiling: the latest time a generator may stamp an ID with.
//!
//! A node source that can be lost (a lease) or that must survive a clock
//! stepped back between runs (a high-water file) first persists a time as
//! the node's high-water mark, then raises the [`Ceiling`] to it. The
//! generator never stamps an ID later than the ceiling: it checks it when
//! it enters a new tick (the per-ID shortcut only continues a tick entered
//! that way, so it pays nothing), and at the ceiling it waits or fails as
//! [`CeilingWait`] says, with a [`Fenced`] error that says why and since
//! when. A holder that lost its lease, was paused past it, or cannot reach
//! its store therefore stops issuing on its own.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::error::{FenceReason, Fenced};

/// What a generator does when its next ID would be stamped later than its
/// ceiling and the ceiling may still rise (its node source keeps trying to
/// persist a later one). A ceiling that can no longer rise (lease lost,
/// released) fails at once under every policy.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::node::CeilingWait;
///
/// assert_eq!(CeilingWait::default(), CeilingWait::Wait { max: Duration::from_secs(1) });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CeilingWait {
    /// Wait up to `max` for the ceiling to rise, then fail with
    /// [`Fenced`]. The default waits up to one second, the same bound as
    /// [`ClockRegression`](crate::ClockRegression)'s default: the longest a
    /// call blocks by default, long enough to ride over one slow renewal.
    Wait {
        /// The longest one call waits.
        max: Duration,
    },
    /// Fail with [`Fenced`] at once.
    Fail,
}

impl Default for CeilingWait {
    fn default() -> Self {
        CeilingWait::Wait {
            max: Duration::from_secs(1),
        }
    }
}

#[derive(Debug)]
struct State {
    /// Set once the ceiling can never rise again.
    closed: Option<FenceReason>,
    /// The ceiling when it was closed (the atomic then reads 0).
    closed_at_millis: u64,
    last_raised_millis: u64,
    last_error: Option<String>,
}

/// The latest time (Unix ms) a generator may stamp an ID with, shared by
/// the generator and the node source that persists it.
///
/// The generator checks it when it enters a new tick (the per-ID
/// shortcut only continues a tick entered that way, so it pays nothing);
/// at the ceiling it waits or fails as [`CeilingWait`] says, with a
/// [`Fenced`] error naming the reason and since when. So a holder that
/// lost its lease, was paused past it, or cannot reach its store stamps
/// nothing later than its last persisted ceiling (see [`crate::node`]).
///
/// It starts at 0 (nothing may be issued). A node source calls
/// [`raise`](Self::raise) only after it has persisted the new value as the
/// node's high-water mark, so that every ID the generator stamps is at or
/// below a persisted mark; the next holder of the node starts after it.
/// Lease-backed generators get their ceiling from their lease
/// ([`NodeLease::generator_builder`](crate::node::NodeLease::generator_builder));
/// other node sources attach one with
/// [`GeneratorBuilder::ceiling`](crate::GeneratorBuilder::ceiling).
///
/// ```
/// use std::{sync::Arc, time::Duration};
/// use flakeid_core::layout::presets;
/// use flakeid_core::node::{Ceiling, CeilingWait};
/// use flakeid_core::{GenerateError, Generator, ManualClock};
///
/// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
/// let ceiling = Arc::new(Ceiling::new(CeilingWait::Fail));
/// let generator = Generator::builder(presets::twitter(), 1)
///     .clock(clock.clone())
///     .ceiling(ceiling.clone())
///     .build()?;
/// clock.advance(Duration::from_millis(1));
/// // Nothing persisted yet: nothing issued.
/// assert!(matches!(generator.next_id(), Err(GenerateError::Fenced(_))));
/// // Persisted (by the node source) up to 10 ms ahead.
/// ceiling.raise(1_700_000_000_010, clock.now_millis());
/// assert!(generator.next_id().is_ok());
/// clock.advance(Duration::from_millis(20));
/// assert!(matches!(generator.next_id(), Err(GenerateError::Fenced(_))));
/// # use flakeid_core::Clock;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Ceiling {
    millis: AtomicU64,
    wait: CeilingWait,
    /// Whether a generator uses this ceiling (one generator per ceiling).
    attached: AtomicBool,
    state: Mutex<State>,
    raised: Condvar,
}

impl Ceiling {
    /// A ceiling at 0: nothing may be stamped until it is raised.
    pub fn new(wait: CeilingWait) -> Self {
        Ceiling {
            millis: AtomicU64::new(0),
            wait,
            attached: AtomicBool::new(false),
            state: Mutex::new(State {
                closed: None,
                closed_at_millis: 0,
                last_raised_millis: 0,
                last_error: None,
            }),
            raised: Condvar::new(),
        }
    }

    /// The ceiling, Unix ms (0: nothing may be stamped).
    #[inline]
    pub fn millis(&self) -> u64 {
        self.millis.load(Ordering::Relaxed)
    }

    /// What a generator does at the ceiling.
    pub fn wait_policy(&self) -> CeilingWait {
        self.wait
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Raises the ceiling to `to_millis`, which the caller has persisted as
    /// the node's high-water mark; `now_millis` is the generator clock's
    /// reading, reported by [`FenceReason::NotRenewed`]. A lower value
    /// leaves the ceiling as it is. Returns `false` (and changes nothing)
    /// once the ceiling is closed ([`close`](Self::close)).
    pub fn raise(&self, to_millis: u64, now_millis: u64) -> bool {
        let mut state = self.state();
        if state.closed.is_some() {
            return false;
        }
        self.millis.fetch_max(to_millis, Ordering::Relaxed);
        state.last_raised_millis = now_millis;
        state.last_error = None;
        drop(state);
        self.raised.notify_all();
        true
    }

    /// Records that persisting a later ceiling failed with `error`; reported
    /// by [`FenceReason::NotRenewed`] until the next [`raise`](Self::raise).
    pub fn record_failure(&self, error: impl Into<String>) {
        let mut state = self.state();
        if state.closed.is_none() {
            state.last_error = Some(error.into());
        }
    }

    /// Closes the ceiling for good: it drops to 0 (no new tick may be
    /// entered) and never rises again. The first reason given is kept.
    pub fn close(&self, reason: FenceReason) {
        let mut state = self.state();
        if state.closed.is_none() {
            state.closed = Some(reason);
            state.closed_at_millis = self.millis.swap(0, Ordering::Relaxed);
        }
        drop(state);
        self.raised.notify_all();
    }

    /// Why the generator may currently stamp nothing later than the
    /// ceiling: the closing reason, or [`FenceReason::NotRenewed`].
    pub fn reason(&self) -> FenceReason {
        let state = self.state();
        match &state.closed {
            Some(reason) => reason.clone(),
            None => FenceReason::NotRenewed {
                last_renewed_millis: state.last_raised_millis,
                last_error: state.last_error.clone(),
            },
        }
    }

    /// Whether the ceiling can no longer rise.
    pub fn is_closed(&self) -> bool {
        self.state().closed.is_some()
    }

    /// Marks the ceiling as used by a generator; `false` if one already uses it.
    pub(crate) fn attach(&self) -> bool {
        !self.attached.swap(true, Ordering::AcqRel)
    }

    /// Whether a generator was built with this ceiling.
    pub(crate) fn is_attached(&self) -> bool {
        self.attached.load(Ordering::Acquire)
    }

    /// Waits until the ceiling is above `millis` or closed, or `deadline`
    /// passes; whether it rose above `millis`.
    pub(crate) fn wait_above(&self, millis: u64, deadline: Instant) -> bool {
        let mut state = self.state();
        loop {
            if self.millis() > millis {
                return true;
            }
            if state.closed.is_some() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self
                .raised
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The error of a generator of `node` blocked at this ceiling.
    #[cold]
    pub(crate) fn fenced(&self, node: u64, ceiling_millis: u64) -> Fenced {
        let state = self.state();
        let (ceiling_millis, reason) = match &state.closed {
            Some(reason) => (state.closed_at_millis, reason.clone()),
            None => (
                ceiling_millis,
                FenceReason::NotRenewed {
                    last_renewed_millis: state.last_raised_millis,
                    last_error: state.last_error.clone(),
                },
            ),
        };
        Fenced {
            node,
            ceiling_millis,
            reason,
        }
    }
}
