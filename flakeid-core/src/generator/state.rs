//! The generator's state word and the pure decision of what to issue next.
//!
//! The state is the last issued `(tick, sequence)` packed as
//! `saturating << 63 | tick << seq_bits | sequence`, where `seq_bits` is the
//! number of bits needed for `sequences_per_tick - 1` and `saturating` says
//! that `tick` was entered because the tick before it was used up (the
//! caller is issuing IDs as fast as the layout allows). Deciding the next
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
    /// The largest tick the generator issues (layout limit and state limit).
    pub(crate) max_tick: u64,
    /// How many ticks ahead of the clock an ID's tick may be.
    pub(crate) lead: u64,
    /// How many ticks behind the clock a saturating caller may catch up.
    pub(crate) catch_up: u64,
    /// The clock's tick when the generator was built; no ID goes below it, so
    /// a restarted process never re-enters ticks its predecessor may have used.
    pub(crate) floor: u64,
}

/// The flag bit of the state word: the last tick was entered from a used-up tick.
pub(crate) const SATURATING: u64 = 1 << 63;

/// A successful plan: the first reserved `(tick, sequence)` and the new state word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reservation {
    pub(crate) tick: u64,
    pub(crate) seq: u64,
    pub(crate) new_state: u64,
}

/// Why nothing can be reserved right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Blocked {
    /// The sequence (or the lead) is used up; possible once the clock reaches `until_tick`.
    Exhausted { until_tick: u64, last_usable: u64 },
    /// The clock is behind the last issued tick by more than the lead.
    Regressed { until_tick: u64, behind_ticks: u64 },
    /// The reservation would pass the last tick the layout can hold.
    TimeExhausted,
}

impl Params {
    /// The largest tick a state word can hold, less one so that `tick + 1`
    /// never overflows.
    pub(crate) fn state_max_tick(seq_bits: u32) -> u64 {
        ((!SATURATING) >> seq_bits) - 1
    }

    /// The state word of a generator that has issued nothing: just below
    /// `(floor, 0)`, which it may issue unless that is `(0, 0)`.
    pub(crate) fn initial_state(&self) -> u64 {
        if self.floor == 0 {
            0
        } else {
            self.pack(self.floor - 1, self.seqs - 1, false)
        }
    }

    /// The sequence bits of a state word.
    #[inline(always)]
    pub(crate) fn seq_mask(&self) -> u64 {
        (1u64 << self.seq_bits) - 1
    }

    /// `(tick, sequence, saturating)` of a state word.
    #[inline]
    pub(crate) fn unpack(&self, state: u64) -> (u64, u64, bool) {
        (
            (state & !SATURATING) >> self.seq_bits,
            state & self.seq_mask(),
            state & SATURATING != 0,
        )
    }

    #[inline]
    pub(crate) fn pack(&self, tick: u64, seq: u64, saturating: bool) -> u64 {
        (u64::from(saturating) << 63) | (tick << self.seq_bits) | seq
    }

    /// The most common case of [`plan_one`](Self::plan_one): the clock is
    /// on the last issued tick `now` and it has a sequence number left, so
    /// the next state is `last + 1` (whether or not the run is saturating).
    /// `None` means "ask `plan_one`", not "blocked".
    #[inline(always)]
    pub(crate) fn same_tick_next(&self, last: u64, now: u64) -> Option<u64> {
        let (lt, ls, _) = self.unpack(last);
        (lt == now && ls + 1 < self.seqs).then_some(last + 1)
    }

    /// [`plan`](Self::plan) for one ID, returning the new state word (which
    /// is the issued `(tick, sequence)`). The common cases — next sequence
    /// number in the same tick, or the first of a new tick — take a few
    /// instructions; the rest goes to `plan`.
    #[inline(always)]
    pub(crate) fn plan_one(&self, last: u64, now: u64) -> Result<u64, Blocked> {
        let (lt, ls, saturating) = self.unpack(last);
        if ls + 1 < self.seqs && lt <= now {
            if now == lt || (saturating && lt >= now.saturating_sub(self.catch_up).max(self.floor))
            {
                // Same tick, or a saturated run catching up: next sequence number.
                return Ok(last + 1);
            }
            if now <= self.max_tick {
                return Ok(now << self.seq_bits);
            }
        }
        self.plan_one_slow(last, now)
    }

    #[cold]
    #[inline(never)]
    fn plan_one_slow(&self, last: u64, now: u64) -> Result<u64, Blocked> {
        self.plan(last, now, 1).map(|r| r.new_state)
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
    /// last issued ID) so that its last ID is not ahead of the clock.
    #[inline]
    pub(crate) fn plan(&self, last: u64, now: u64, n: u64) -> Result<Reservation, Blocked> {
        debug_assert!(n >= 1);
        let (lt, ls, saturating) = self.unpack(last);
        let horizon = now.saturating_add(self.lead);
        if lt > horizon {
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
        } else if lt >= self.floor {
            (((lt + 1).max(oldest), 0), true)
        } else {
            // The initial state (just below the floor), not a used-up tick.
            ((self.floor, 0), false)
        };
        // Where an accurately stamped first ID would go.
        let (accurate, accurate_saturating) =
            if (ls + 1 < self.seqs || lt < self.floor) && now > lt && !(saturating && lt >= oldest)
            {
                ((now, 0), false)
            } else {
                (next, next_saturating)
            };

        let (tick, seq, end_tick, end_seq, end_saturating) = if n == 1 {
            (
                accurate.0,
                accurate.1,
                accurate.0,
                accurate.1,
                accurate_saturating,
            )
        } else {
            // Linear positions (`tick * S + seq`); u128 so nothing overflows.
            let s = u128::from(self.seqs);
            let lin = |(t, q): (u64, u64)| u128::from(t) * s + u128::from(q);
            let span = u128::from(n - 1);
            let latest_fit = (u128::from(horizon) * s + (s - 1)).saturating_sub(span);
            let start = lin(next).max(lin(accurate).min(latest_fit));
            let end = start + span;
            let tick_of = |p: u128| u64::try_from(p / s).map_err(|_| Blocked::TimeExhausted);
            let (tick, end_tick) = (tick_of(start)?, tick_of(end)?);
            let seq = (start % s) as u64;
            let end_seq = (end % s) as u64;
            let end_saturating = if end_tick > tick {
                true
            } else if start == lin(next) {
                next_saturating
            } else {
                accurate_saturating && start == lin(accurate)
            };
            (tick, seq, end_tick, end_seq, end_saturating)
        };
        if end_tick > self.max_tick {
            return Err(Blocked::TimeExhausted);
        }
        if end_tick > horizon {
            return Err(Blocked::Exhausted {
                until_tick: end_tick - self.lead,
                last_usable: horizon,
            });
        }
        Ok(Reservation {
            tick,
            seq,
            new_state: self.pack(end_tick, end_seq, end_saturating),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(seqs: u64, lead: u64, catch_up: u64) -> Params {
        let seq_bits = if seqs == 1 {
            0
        } else {
            64 - (seqs - 1).leading_zeros()
        };
        Params {
            seqs,
            seq_bits,
            max_tick: 1_000,
            lead,
            catch_up,
            floor: 0,
        }
    }

    fn first(p: &Params, last: u64, now: u64, n: u64) -> (u64, u64) {
        let r = p.plan(last, now, n).unwrap();
        (r.tick, r.seq)
    }

    #[test]
    fn plan_one_agrees_with_plan() {
        for (seqs, lead, catch_up, floor) in
            [(4, 0, 3, 0), (4, 2, 0, 5), (1, 0, 0, 3), (10, 1, 2, 7)]
        {
            let mut p = params(seqs, lead, catch_up);
            p.floor = floor;
            let mut states = vec![p.initial_state()];
            for t in 0..14 {
                for q in 0..seqs {
                    for sat in [false, true] {
                        states.push(p.pack(t, q, sat));
                    }
                }
            }
            for &last in &states {
                for now in 0..16 {
                    let one = p.plan_one(last, now);
                    let full = p.plan(last, now, 1).map(|r| r.new_state);
                    assert_eq!(one, full, "seqs {seqs} last {:?} now {now}", p.unpack(last));
                    if let Some(next) = p.same_tick_next(last, now) {
                        assert_eq!(Ok(next), full, "same tick, last {:?} now {now}", p.unpack(last));
                    }
                }
            }
        }
    }

    #[test]
    fn never_issues_tick_zero_sequence_zero() {
        let p = params(4, 0, 0);
        assert_eq!(first(&p, 0, 0, 1), (0, 1));
        let p1 = params(1, 0, 0);
        assert_eq!(
            p1.plan(0, 0, 1),
            Err(Blocked::Exhausted {
                until_tick: 1,
                last_usable: 0
            })
        );
        assert_eq!(first(&p1, 0, 1, 1), (1, 0));
    }

    #[test]
    fn catch_up_uses_missed_ticks_only_when_saturating() {
        let p = params(4, 0, 3);
        // Used up tick 10, clock at 12: continue in tick 11, and stay there.
        let r = p.plan(p.pack(10, 3, false), 12, 1).unwrap();
        assert_eq!((r.tick, r.seq), (11, 0));
        assert_eq!(p.unpack(r.new_state), (11, 0, true));
        assert_eq!(first(&p, r.new_state, 12, 1), (11, 1));
        // Clock far ahead: at most `catch_up` ticks behind.
        assert_eq!(first(&p, p.pack(10, 3, false), 20, 1), (17, 0));
        assert_eq!(first(&p, p.pack(10, 1, true), 20, 1), (20, 0));
        // Not saturating: jump to the clock.
        assert_eq!(first(&p, p.pack(10, 2, false), 12, 1), (12, 0));
    }

    #[test]
    fn batches_end_no_later_than_the_clock_allows() {
        let p = params(4, 0, 0);
        // Idle since tick 5; a 10-ID batch at tick 100 ends in tick 100.
        let r = p.plan(p.pack(5, 0, false), 100, 10).unwrap();
        assert_eq!((r.tick, r.seq), (98, 2));
        assert_eq!(p.unpack(r.new_state), (100, 3, true));
        // Never before the last issued ID: wait instead.
        assert_eq!(
            p.plan(p.pack(99, 0, false), 100, 10),
            Err(Blocked::Exhausted {
                until_tick: 101,
                last_usable: 100
            })
        );
    }

    #[test]
    fn nothing_below_the_floor() {
        let mut p = params(4, 0, 5);
        p.floor = 50;
        let init = p.initial_state();
        let r = p.plan(init, 50, 1).unwrap();
        assert_eq!((r.tick, r.seq), (50, 0));
        assert!(!p.unpack(r.new_state).2, "not a saturated run");
        // A batch cannot reach back before the floor.
        let r = p.plan(init, 52, 12).unwrap();
        assert_eq!((r.tick, r.seq), (50, 0));
        assert!(p.plan(init, 52, 13).is_err());
        // Clock behind the floor before the first ID: a regression.
        assert!(matches!(
            p.plan(init, 40, 1),
            Err(Blocked::Regressed { .. })
        ));
        // One-sequence layouts too.
        let mut p1 = params(1, 0, 5);
        p1.floor = 50;
        assert_eq!(first(&p1, p1.initial_state(), 53, 1), (53, 0));
    }

    #[test]
    fn non_power_of_two_batches_carry() {
        let p = params(10, 2, 0);
        let r = p.plan(p.pack(5, 7, false), 9, 25).unwrap();
        assert_eq!((r.tick, r.seq), (9, 0));
        assert_eq!(p.unpack(r.new_state), (11, 4, true));
        // Ends exactly at the lead's last ID, so it starts earlier.
        let r = p.plan(p.pack(5, 7, false), 9, 30).unwrap();
        assert_eq!((r.tick, r.seq), (9, 0));
        let r = p.plan(p.pack(5, 7, false), 9, 31).unwrap();
        assert_eq!((r.tick, r.seq), (8, 9));
        // More than fits after the last ID: wait.
        assert_eq!(
            p.plan(p.pack(8, 9, false), 9, 31),
            Err(Blocked::Exhausted {
                until_tick: 10,
                last_usable: 11
            })
        );
    }
}
