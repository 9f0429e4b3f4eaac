//! What a generator does when it cannot issue an ID at the clock's current
//! tick: its sequence is used up, the clock went back, or the next ID would
//! pass the ceiling its node source persisted.

use core::time::Duration;

/// What happens when the current tick's sequence numbers are used up.
///
/// A tick holds [`Layout::sequences_per_tick`](crate::layout::Layout::sequences_per_tick)
/// IDs per node (4,096 per millisecond for Twitter's layout). A caller that
/// asks for more within one tick must either wait for the next tick, borrow
/// from future ticks, or be told no.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::SequenceExhaustion;
///
/// let default = SequenceExhaustion::default();
/// assert_eq!(default, SequenceExhaustion::Wait);
/// let bursty = SequenceExhaustion::RunAhead { max_lead: Duration::from_millis(5) };
/// assert_ne!(bursty, default);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SequenceExhaustion {
    /// Wait for the clock to reach the next tick (the default). IDs always
    /// carry a time no later than the clock's.
    #[default]
    Wait,
    /// Keep issuing IDs stamped with future ticks, up to `max_lead` ahead of
    /// the clock, then wait. Absorbs bursts without blocking, at the price of
    /// IDs that claim a creation time up to `max_lead` in the future. The
    /// lead also lets the generator ride over a backwards clock step of up to
    /// `max_lead` without treating it as a regression.
    RunAhead {
        /// How far ahead of the clock an ID's time may be.
        max_lead: Duration,
    },
    /// Return [`GenerateError::SequenceExhausted`](crate::GenerateError::SequenceExhausted)
    /// instead of waiting.
    Fail,
}

/// What happens when the clock reads earlier than the last issued ID
/// (beyond any lead allowed by [`SequenceExhaustion::RunAhead`]).
///
/// [`MonotonicClock`](crate::MonotonicClock) never runs backwards inside a
/// process; this matters for custom clocks (the raw wall clock, for
/// one), whose time can be stepped back (NTP, a VM resumed from a
/// snapshot). IDs stay unique and increasing under every policy; the policy
/// decides whether the generator waits for time to catch up or reports it.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::ClockRegression;
///
/// assert_eq!(ClockRegression::default(), ClockRegression::Wait { max: Duration::from_secs(1) });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClockRegression {
    /// Wait up to `max` for the clock to catch up with the last issued ID;
    /// a larger regression is an error
    /// ([`GenerateError::ClockRegressed`](crate::GenerateError::ClockRegressed)).
    /// The default waits up to one second.
    Wait {
        /// The longest regression the generator waits out.
        max: Duration,
    },
    /// Return [`GenerateError::ClockRegressed`](crate::GenerateError::ClockRegressed) at once.
    Fail,
}

impl Default for ClockRegression {
    fn default() -> Self {
        ClockRegression::Wait {
            max: Duration::from_secs(1),
        }
    }
}

/// What a generator does when its next ID would be stamped later than its
/// ceiling and the ceiling may still rise (its node source keeps trying to
/// persist a later one). A ceiling that can no longer rise (lease lost,
/// released) fails at once under every policy.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::CeilingWait;
///
/// assert_eq!(CeilingWait::default(), CeilingWait::Wait { max: Duration::from_secs(1) });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CeilingWait {
    /// Wait up to `max` for the ceiling to rise, then fail with
    /// [`Fenced`](crate::Fenced). The default waits up to one second, the same bound as
    /// [`ClockRegression`](crate::ClockRegression)'s default: the longest a
    /// call blocks by default, long enough to ride over one slow renewal.
    Wait {
        /// The longest one call waits.
        max: Duration,
    },
    /// Fail with [`Fenced`](crate::Fenced) at once.
    Fail,
}

impl Default for CeilingWait {
    fn default() -> Self {
        CeilingWait::Wait {
            max: Duration::from_secs(1),
        }
    }
}
