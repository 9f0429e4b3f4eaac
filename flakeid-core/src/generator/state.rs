//! The generator's state word and the pure decision of what to issue next.
//!
//! The state is the last issued `(tick, sequence)` packed as
//! `saturating << 63 | tick << tick_shift | sequence << seq_shift | fill`,
//! where the sequence takes `seq_bits` bits (enough for
//! `sequences_per_tick - 1`) and `saturating` says that `tick` was entered
//! because the tick before it was used up (the caller is issuing IDs as fast
//! as the layout allows). Normally `seq_shift` is 0, `tick_shift` is
//! `seq_bits` and `fill` 0; for bit layouts the state is shaped like the ID
//! instead (`fill` is the node field), so that the state word without its
//! top bit *is* the ID. Deciding the next
//! reservation is a pure function of that word and the clock's tick, so it
//! can be tested without threads and model-checked with loom.

/// Precomputed constants of one generator; everything the per-ID path needs
/// without dividing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    /// Sequence values per tick (`S`), at least 1.
    pub(crate) seqs: u64,
    /// Bits of the sequence part of the state word.
    pub(crate) seq_bits: u32,
    /// `2^seq_bits - 1`: selects the sequence of a state word.
    pub(crate) seq_mask: u64,
    /// Position of the sequence in the state word.
    pub(crate) seq_shift: u32,
    /// Position of the tick in the state word, at least `seq_shift + seq_bits`.
    pub(crate) tick_shift: u32,
    /// Constant bits below `tick_shift`, outside the sequence: the node
    /// field of an ID-shaped state, else 0.
    pub(crate) fill: u64,
    /// The largest tick the generator issues (layout limit and state limit).
    pub(crate) max_tick: u64,
    /// How many ticks ahead of the clock an ID's tick may be.
    pub(crate) lead: u64,
    /// How many ticks behind the clock a saturating caller may catch up.
    pub(crate) catch_up: u64,
    /// The first tick the generator may issue, at least 1: by default the
    /// tick after the one in which it was built, so a restarted process never
    /// re-enters ticks its predecessor may have used (see `Generator`).
    pub(crate) floor: u64,
}

/// The flag bit of the state word: the last tick was entered from a used-up tick.
pub(crate) const SATURATING: u64 = 1 << 63;

/// The constants of the generator's inlined shortcut, [`SameTick::next`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SameTick {
    /// The epoch plus the fork tag of the generator's process (see
    /// `crate::fork`): subtracted from a tagged clock reading, it leaves the
    /// milliseconds since the epoch, or (a reading of another fork
    /// generation) a number far beyond any tick, which the shortcut refuses.
    tagged_epoch: u64,
    /// One-millisecond ticks: the tick is `now - epoch`.
    ms_ticks: bool,
    /// Otherwise `tick = (ms * magic) >> 64`, exact for `ms < limit`
    /// (see [`SameTick::magic`]); `limit` 0 turns the shortcut off.
    limit: u64,
    magic: u64,
    tick_shift: u32,
    seq_shift: u32,
    /// One sequence step in the state word, `1 << seq_shift`.
    seq_unit: u64,
    /// The sequence field of a state word: `seq_mask << seq_shift`.
    seq_field: u64,
    /// The last sequence value of a tick, `S - 1`, in place.
    last_seq: u64,
    /// The run-ahead lead in ticks ([`Params::lead`]): a last issued tick
    /// at most this far ahead of the clock's tick is continued too.
    lead: u64,
}

impl SameTick {
    /// Ticks longer than this take the general path.
    const MAX_TICK_MILLIS: u64 = 1 << 14;

    /// `floor(2^64 / tick_millis) + 1`: `(ms * magic) >> 64 == ms / tick_millis`
    /// for `ms < 2^50` and `2 <= tick_millis <= 2^14`, because the error
    /// `ms * (magic - 2^64 / tick_millis) / 2^64 < 2^50 / 2^64 <= 1 / tick_millis`.
    pub(crate) fn magic(tick_millis: u64) -> u64 {
        u64::try_from((1u128 << 64) / u128::from(tick_millis.max(2)) + 1).unwrap_or(u64::MAX)
    }

    pub(crate) fn new(p: &Params, epoch_millis: u64, tick_millis: u64, fork_tag: u64) -> Self {
        // A reading before the epoch wraps to at least `2^64 - epoch`, and a
        // reading of another fork generation is at least `2^TAG_SHIFT` away:
        // both more than any tick and than `limit` when the layout ends
        // before 2^TAG_SHIFT ms (71,000 years after 1970). Always true for
        // real layouts; otherwise the shortcut is off.
        let end = (p.max_tick.checked_add(1))
            .and_then(|t| t.checked_mul(tick_millis))
            .and_then(|ms| ms.checked_add(epoch_millis));
        let enabled = end.is_some_and(|end| end < 1 << crate::fork::TAG_SHIFT);
        SameTick {
            tagged_epoch: epoch_millis | fork_tag,
            ms_ticks: enabled && tick_millis == 1,
            limit: if enabled && tick_millis <= Self::MAX_TICK_MILLIS {
                1 << 50
            } else {
                0
            },
            magic: Self::magic(tick_millis),
            tick_shift: p.tick_shift,
            seq_shift: p.seq_shift,
            seq_unit: 1 << p.seq_shift,
            seq_field: p.seq_mask << p.seq_shift,
            last_seq: (p.seqs - 1) << p.seq_shift,
            lead: p.lead,
        }
    }

    /// These constants with the shortcut off: [`next`](Self::next) always
    /// answers `None`, whatever the clock reads.
    pub(crate) fn off(self) -> Self {
        SameTick {
            ms_ticks: false,
            limit: 0,
            ..self
        }
    }

    /// Whether the shortcut is off (see [`off`](Self::off)).
    pub(crate) fn is_off(&self) -> bool {
        !self.ms_ticks && self.limit == 0
    }

    /// The most common case of [`Params::plan_one`]: the clock (Unix ms
    /// `now`, tagged with the fork generation as [`Clock::try_tagged_now`]
    /// returns it) is still in the last issued tick, or behind it by at
    /// most the run-ahead lead (a burst running ahead of the clock), and
    /// the tick has a sequence number left, so the next state is `last`
    /// with the sequence plus one (saturating or not).
    ///
    /// [`Clock::try_tagged_now`]: crate::Clock::try_tagged_now
    /// Returns `(new state, tick, sequence)`; `None` means "ask `plan_one`",
    /// not "blocked".
    #[inline(always)]
    pub(crate) fn next(&self, last: u64, now: u64) -> Option<(u64, u64, u64)> {
        // The clock's tick depends on the clock reading only, so it is
        // computed alongside the state word's tick, not after it.
        let ms = now.wrapping_sub(self.tagged_epoch);
        let now_tick = if self.ms_ticks {
            ms
        } else if ms < self.limit {
            ((u128::from(ms) * u128::from(self.magic)) >> 64) as u64
        } else {
            return None;
        };
        let tick = (last & !SATURATING) >> self.tick_shift;
        let seq = last & self.seq_field;
        // Without a lead: `tick == now_tick`.
        let within_lead = (tick >= now_tick) & (tick.wrapping_sub(now_tick) <= self.lead);
        (within_lead & (seq < self.last_seq))
            .then(|| (last + self.seq_unit, tick, (seq >> self.seq_shift) + 1))
    }
}

/// A successful plan: the first reserved `(tick, sequence)`, the last
/// reserved tick and the new state word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reservation {
    pub(crate) tick: u64,
    pub(crate) seq: u64,
    pub(crate) end_tick: u64,
    pub(crate) new_state: u64,
    /// The batch ends beyond the clock's tick plus the lead (a reservation
    /// made with `reserve_ahead`): its caller waits for the clock to reach
    /// `end_tick - lead` before handing the IDs out.
    pub(crate) ahead: bool,
}

/// Ticks reserved ahead of the clock by batches too large for the ticks
/// the clock had reached (see [`Params::plan`]'s `reserve_ahead`).
///
/// Both numbers only grow. A last issued tick beyond the clock that they
/// cover is a batch's reservation that other callers wait out like a used-up
/// sequence; anything else beyond the clock is a clock regression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Ahead {
    /// The latest tick a batch reserved ahead (0: none).
    pub(crate) until: u64,
    /// The most ticks such a batch reached beyond the horizon (clock + lead)
    /// when it reserved.
    pub(crate) span: u64,
}

impl Ahead {
    /// Whether a last issued tick `lt` beyond `horizon` is a batch's reservation.
    #[inline]
    pub(crate) fn covers(self, lt: u64, horizon: u64) -> bool {
        lt <= self.until && lt - horizon <= self.span
    }
}

/// Why nothing can be reserved right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Blocked {
    /// The sequence (or the lead) is used up; possible once the clock reaches `until_tick`.
    Exhausted { until_tick: u64, last_usable: u64 },
    /// The clock is behind the last issued tick by more than the lead.
    Regressed { until_tick: u64, behind_ticks: u64 },
    /// Nothing was issued yet and the clock (plus the lead) has not reached
    /// the floor; possible once the clock reaches `until_tick`.
    BeforeFloor { until_tick: u64, behind_ticks: u64 },
    /// The reservation would pass the last tick the layout can hold.
    TimeExhausted,
    /// A batch longer than what is left before the layout's end: only
    /// `available` IDs remain from its first position on.
    TooLarge { available: u64 },
}

impl Params {
    /// The largest tick a state word with the tick at `tick_shift` can
    /// hold. (`tick + 1` of any such tick still fits a `u64`; it is checked
    /// against `max_tick` before it is packed.)
    pub(crate) fn state_max_tick(tick_shift: u32) -> u64 {
        (!SATURATING) >> tick_shift
    }

    /// The state word of a generator that has issued nothing: just below
    /// `(floor, 0)`. The floor is at least 1, so `(0, 0)` is never issued.
    pub(crate) fn initial_state(&self) -> u64 {
        debug_assert!(self.floor >= 1);
        self.pack(self.floor - 1, self.seqs - 1, false)
    }

    /// `seq_mask` for `seq_bits` (at most 61).
    pub(crate) const fn mask_of(seq_bits: u32) -> u64 {
        (1u64 << seq_bits) - 1
    }

    /// `(tick, sequence, saturating)` of a state word.
    #[inline]
    pub(crate) fn unpack(&self, state: u64) -> (u64, u64, bool) {
        (
            (state & !SATURATING) >> self.tick_shift,
            (state >> self.seq_shift) & self.seq_mask,
            state & SATURATING != 0,
        )
    }

    #[inline]
    pub(crate) fn pack(&self, tick: u64, seq: u64, saturating: bool) -> u64 {
        (u64::from(saturating) << 63)
            | (tick << self.tick_shift)
            | (seq << self.seq_shift)
            | self.fill
    }

    /// [`plan`](Self::plan) for one ID, returning the new state word (which
    /// is the issued `(tick, sequence)`). The common cases — next sequence
    /// number in the same tick, or the first of a new tick — take a few
    /// instructions; the rest goes to `plan`.
    ///
    /// `ahead` is called only when the state is beyond the clock.
    #[inline(always)]
    pub(crate) fn plan_one(
        &self,
        last: u64,
        now: u64,
        ahead: impl FnOnce() -> Ahead,
    ) -> Result<u64, Blocked> {
        let (lt, ls, saturating) = self.unpack(last);
        if ls + 1 < self.seqs && lt <= now {
            if now == lt || (saturating && lt >= now.saturating_sub(self.catch_up).max(self.floor))
            {
                // Same tick, or a saturated run catching up: next sequence number.
                return Ok(last + (1 << self.seq_shift));
            }
            if now <= self.max_tick {
                return Ok(self.pack(now, 0, false));
            }
        } else if ls + 1 < self.seqs && lt - now <= self.lead {
            // Running ahead of the clock within the lead: next sequence number.
            return Ok(last + (1 << self.seq_shift));
        }
        self.plan_one_slow(last, now, ahead)
    }

    #[cold]
    #[inline(never)]
    fn plan_one_slow(
        &self,
        last: u64,
        now: u64,
        ahead: impl FnOnce() -> Ahead,
    ) -> Result<u64, Blocked> {
        let (lt, _, _) = self.unpack(last);
        let ahead = if lt > now { ahead() } else { Ahead::default() };
        self.plan(last, now, 1, ahead, false).map(|r| r.new_state)
    }

    /// Plans reserving `n >= 1` consecutive IDs after the state word `last`,
    /// with the clock at tick `now`.
    ///
    /// The first ID goes to, in order of preference:
    /// * the clock's tick, when the caller is not saturating (accurate time);
    /// * the next sequence number of the last tick, when the caller is
    ///   saturating and that tick lags the clock by at most `catch_up`
    ///   (so ticks missed while a thread was descheduled get used);
    /// * the next tick after a used-up one, but at most `catch_up` ticks
    ///   behind the clock.
    ///
    /// A batch may start earlier than the clock's tick (never before the
    /// last issued ID or the floor) so that its last ID is not ahead of the
    /// clock. A batch that does not fit before the horizon (clock + lead)
    /// either waits, like a single ID would at its last tick, or — with
    /// `reserve_ahead` — takes the positions right after the last issued ID
    /// at once (`Reservation::ahead`), so that other callers cannot keep
    /// pushing it back; `ahead` tells such reservations from a clock that
    /// went backwards.
    #[inline]
    pub(crate) fn plan(
        &self,
        last: u64,
        now: u64,
        n: u64,
        ahead: Ahead,
        reserve_ahead: bool,
    ) -> Result<Reservation, Blocked> {
        debug_assert!(n >= 1);
        let (lt, ls, saturating) = self.unpack(last);
        let horizon = now.saturating_add(self.lead);
        // The initial state sits just below the floor.
        let fresh = lt < self.floor;
        if fresh && horizon < self.floor {
            return Err(Blocked::BeforeFloor {
                until_tick: self.floor - self.lead,
                behind_ticks: self.floor - now,
            });
        }
        if lt > horizon && !ahead.covers(lt, horizon) {
            return Err(Blocked::Regressed {
                until_tick: lt - self.lead,
                behind_ticks: lt - now,
            });
        }
        let oldest = now.saturating_sub(self.catch_up).max(self.floor);
        // The next unused position, and whether it continues a saturated run.
        // `lt <= max_tick < state_max_tick`, so `lt + 1` cannot overflow.
        let (next, next_saturating) = if ls + 1 < self.seqs {
            ((lt, ls + 1), saturating)
        } else if !fresh {
            (((lt + 1).max(oldest), 0), true)
        } else {
            // The initial state, not a used-up tick.
            ((self.floor, 0), false)
        };
        // Where an accurately stamped first ID would go.
        let (accurate, accurate_saturating) =
            if (ls + 1 < self.seqs || fresh) && now > lt && !(saturating && lt >= oldest) {
                ((now, 0), false)
            } else {
                (next, next_saturating)
            };

        let s = u128::from(self.seqs);
        // Linear positions (`tick * S + seq`); u128 so nothing overflows.
        let lin = |(t, q): (u64, u64)| u128::from(t) * s + u128::from(q);
        let (start, start_saturating) = if n == 1 {
            (lin(accurate), accurate_saturating)
        } else {
            let span = u128::from(n - 1);
            let latest_fit = (u128::from(horizon) * s + (s - 1)).saturating_sub(span);
            let start = lin(next).max(lin(accurate).min(latest_fit));
            let saturating = if start == lin(next) {
                next_saturating
            } else {
                accurate_saturating && start == lin(accurate)
            };
            (start, saturating)
        };
        let end = start + u128::from(n - 1);
        // One past the last position the layout can hold.
        let limit = (u128::from(self.max_tick) + 1) * s;
        if start >= limit {
            return Err(Blocked::TimeExhausted);
        }
        if end >= limit {
            return Err(Blocked::TooLarge {
                available: u64::try_from(limit - start).unwrap_or(u64::MAX),
            });
        }
        // Both below `limit`, so their ticks are at most `max_tick`.
        let (tick, seq) = ((start / s) as u64, (start % s) as u64);
        let (end_tick, end_seq) = ((end / s) as u64, (end % s) as u64);
        let end_saturating = end_tick > tick || start_saturating;
        let beyond = end_tick > horizon;
        if beyond && !(reserve_ahead && n > 1) {
            return Err(Blocked::Exhausted {
                until_tick: end_tick - self.lead,
                last_usable: horizon,
            });
        }
        Ok(Reservation {
            tick,
            seq,
            end_tick,
            new_state: self.pack(end_tick, end_seq, end_saturating),
            ahead: beyond,
        })
    }
}

#[cfg(test)]
#[path = "../../tests/unit/generator_state.rs"]
mod tests;
