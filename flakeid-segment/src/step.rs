//! The adaptive step: how many values the next fetch asks for.

use core::time::Duration;

/// Meituan Leaf's rule for the step of the next segment, from how long the
/// previous one lasted:
///
/// | the previous segment lasted | next step |
/// |---|---|
/// | under 15 minutes ([`StepPolicy::DOUBLE_BELOW`]) | doubled, at most `max` |
/// | 15 to 30 minutes | unchanged |
/// | over 30 minutes ([`StepPolicy::HALVE_ABOVE`]) | halved, at least `base` |
///
/// A busy source thus fetches about every 15 to 30 minutes (once its step
/// has grown), and a quiet one shrinks back to `base`, so a restart loses
/// at most about two steps of values.
///
/// ```
/// use std::time::Duration;
/// use flakeid_segment::StepPolicy;
///
/// let policy = StepPolicy::new(1_000, 1_000_000);
/// let min = |m: u64| Duration::from_secs(m * 60);
/// assert_eq!(policy.next(1_000, min(1)), 2_000);
/// assert_eq!(policy.next(800_000, min(1)), 1_000_000); // capped
/// assert_eq!(policy.next(4_000, min(20)), 4_000);
/// assert_eq!(policy.next(4_000, min(31)), 2_000);
/// assert_eq!(policy.next(1_500, min(31)), 1_000); // never below the base
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StepPolicy {
    base: u64,
    max: u64,
}

impl StepPolicy {
    /// Steps between `base` (the configured step) and `max` (`base` when
    /// smaller: a fixed step).
    pub const fn new(base: u64, max: u64) -> Self {
        StepPolicy {
            base,
            max: if max < base { base } else { max },
        }
    }

    /// The configured step, the smallest the policy returns.
    pub const fn base(&self) -> u64 {
        self.base
    }

    /// The largest step the policy returns.
    pub const fn max(&self) -> u64 {
        self.max
    }

    /// The step after `current`, when the previous segment lasted `lasted`.
    pub fn next(&self, current: u64, lasted: Duration) -> u64 {
        let current = current.clamp(self.base, self.max);
        if lasted < StepPolicy::DOUBLE_BELOW {
            current.saturating_mul(2).min(self.max)
        } else if lasted > StepPolicy::HALVE_ABOVE {
            (current / 2).max(self.base)
        } else {
            current
        }
    }
}

/// A source's step and when it last fetched. The first two fetches (at
/// start, and the first prefetch, early in the first segment) use the
/// configured step; from the third on, the time since the previous
/// successful fetch (about how long the previous segment lasted) adapts
/// it, as Leaf does. Failed attempts change nothing: they are tries at the
/// same segment, so an outage does not inflate the step.
#[derive(Debug, Clone)]
pub(crate) struct StepState {
    policy: StepPolicy,
    current: u64,
    fetches: u64,
    last_fetch_millis: u64,
}

impl StepState {
    pub(crate) fn new(policy: StepPolicy) -> Self {
        StepState {
            policy,
            current: policy.base,
            fetches: 0,
            last_fetch_millis: 0,
        }
    }

    /// The step of a fetch attempt starting at `now_millis`.
    pub(crate) fn for_fetch_at(&self, now_millis: u64) -> u64 {
        if self.fetches >= 2 {
            let lasted = Duration::from_millis(now_millis.saturating_sub(self.last_fetch_millis));
            self.policy.next(self.current, lasted)
        } else {
            self.current
        }
    }

    /// Records a fetch of `step` that started at `at_millis` and succeeded.
    pub(crate) fn fetched(&mut self, step: u64, at_millis: u64) {
        self.current = step.clamp(self.policy.base, self.policy.max);
        self.fetches += 1;
        self.last_fetch_millis = at_millis;
    }

    /// The step of the last fetch (the configured one before any).
    pub(crate) fn current(&self) -> u64 {
        self.current
    }
}

impl StepPolicy {
    /// Below this, a segment lasted too short a time: the step doubles.
    pub const DOUBLE_BELOW: Duration = Duration::from_secs(15 * 60);

    /// Above this, a segment lasted too long: the step halves.
    pub const HALVE_ABOVE: Duration = Duration::from_secs(30 * 60);

    /// The largest step unless [`SegmentOptions::max_step`](crate::SegmentOptions::max_step)
    /// says otherwise: Leaf's cap, 1,000,000.
    pub const DEFAULT_MAX_STEP: u64 = 1_000_000;
}

#[cfg(test)]
#[path = "../tests/unit/step.rs"]
mod tests;
