//! The lock-free cursor over one range of values: what [`SegmentIds`]
//! and [`ShortKeys`] take values from.
//!
//! Taking a value is one compare-and-swap on a state word holding the
//! range's generation and the position within it; the range itself sits in
//! a seqlock-protected slot. Installing the next range happens under the
//! owner's lock (one writer at a time), while readers keep taking values
//! of the current range without any lock.
//!
//! [`SegmentIds`]: crate::SegmentIds
//! [`ShortKeys`]: crate::ShortKeys

use std::sync::atomic::{AtomicU64, Ordering, fence};

/// The longest range a cursor holds: `2^40 − 1` values (the position
/// within the range takes 40 bits of the state word).
pub(crate) const MAX_RANGE_LEN: u64 = (1 << POS_BITS) - 1;

/// A trigger position no taker reaches.
pub(crate) const NO_TRIGGER: u64 = u64::MAX;

/// What one attempt to take a value found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Take {
    /// The value taken; `triggered` for the one taker of the range's
    /// trigger position.
    Value {
        /// The value.
        value: u64,
        /// Whether this taker took the trigger position.
        triggered: bool,
    },
    /// The range is used up; the state word as seen, for
    /// [`Cursor::install`]'s caller to check that nobody installed a range
    /// meanwhile.
    Empty(u64),
}

/// One range `start..start + len` served value by value, lock-free.
#[derive(Debug)]
pub(crate) struct Cursor {
    /// Generation (high 24 bits) and position within the range (low 40 bits).
    state: AtomicU64,
    /// The current range: its full generation, start, length and trigger.
    slot_generation: AtomicU64,
    slot_start: AtomicU64,
    slot_len: AtomicU64,
    slot_trigger: AtomicU64,
}

impl Cursor {
    /// A cursor with no range: the first take finds it empty.
    pub(crate) fn new() -> Self {
        Cursor {
            state: AtomicU64::new(0),
            slot_generation: AtomicU64::new(0),
            slot_start: AtomicU64::new(0),
            slot_len: AtomicU64::new(0),
            slot_trigger: AtomicU64::new(NO_TRIGGER),
        }
    }

    /// Takes the next value of the current range.
    #[inline]
    pub(crate) fn take(&self) -> Take {
        loop {
            let state = self.state.load(Ordering::Acquire);
            let (generation, pos) = (state >> POS_BITS, state & POS_MASK);
            let Some((start, len, trigger)) = self.read_slot(generation) else {
                // The slot is being rewritten or already holds a newer range.
                core::hint::spin_loop();
                continue;
            };
            if pos >= len {
                return Take::Empty(state);
            }
            // Success means the state was still (generation, pos), so the
            // slot read above belongs to the current range.
            if self
                .state
                .compare_exchange_weak(state, state + 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return Take::Value {
                    value: start + pos,
                    triggered: pos == trigger,
                };
            }
        }
    }

    /// The state word (to compare with [`Take::Empty`]'s).
    pub(crate) fn state(&self) -> u64 {
        self.state.load(Ordering::Acquire)
    }

    /// The current range as `(start, len, taken)`, or `None` while it is
    /// being replaced.
    pub(crate) fn current(&self) -> Option<(u64, u64, u64)> {
        let state = self.state.load(Ordering::Acquire);
        let (start, len, _) = self.read_slot(state >> POS_BITS)?;
        Some((start, len, (state & POS_MASK).min(len)))
    }

    /// The slot's range if it belongs to `generation` (low 24 bits compared).
    fn read_slot(&self, generation: u64) -> Option<(u64, u64, u64)> {
        let g1 = self.slot_generation.load(Ordering::Acquire);
        if g1 == WRITING || g1 & GEN_MASK != generation {
            return None;
        }
        let start = self.slot_start.load(Ordering::Relaxed);
        let len = self.slot_len.load(Ordering::Relaxed);
        let trigger = self.slot_trigger.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let g2 = self.slot_generation.load(Ordering::Relaxed);
        (g1 == g2).then_some((start, len, trigger))
    }

    /// Replaces the range by `start..start + len` (`len <= MAX_RANGE_LEN`);
    /// the taker of position `trigger` is told so. Callers serialise
    /// installs (one lock) and install only over the state they saw empty.
    pub(crate) fn install(&self, start: u64, len: u64, trigger: u64) {
        debug_assert!(len <= MAX_RANGE_LEN);
        let full_generation = self.slot_generation.load(Ordering::Relaxed) + 1;
        self.slot_generation.store(WRITING, Ordering::Relaxed);
        fence(Ordering::Release);
        self.slot_start.store(start, Ordering::Relaxed);
        self.slot_len.store(len, Ordering::Relaxed);
        self.slot_trigger.store(trigger, Ordering::Relaxed);
        self.slot_generation
            .store(full_generation, Ordering::Release);
        self.state
            .store((full_generation & GEN_MASK) << POS_BITS, Ordering::Release);
    }
}

const POS_BITS: u32 = 40;
const POS_MASK: u64 = (1 << POS_BITS) - 1;
const GEN_MASK: u64 = (1 << (64 - POS_BITS)) - 1;
/// Marks the slot as being rewritten (seqlock).
const WRITING: u64 = u64::MAX;

#[cfg(test)]
#[path = "../tests/unit/cursor.rs"]
mod tests;
