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
mod tests {
    use super::*;
    use crate::generator::tests::assert_multiply_shift_divides;

    fn params(seqs: u64, lead: u64, catch_up: u64) -> Params {
        let seq_bits = if seqs == 1 {
            0
        } else {
            64 - (seqs - 1).leading_zeros()
        };
        Params {
            seqs,
            seq_bits,
            seq_mask: Params::mask_of(seq_bits),
            seq_shift: 0,
            tick_shift: seq_bits,
            fill: 0,
            max_tick: 1_000,
            lead,
            catch_up,
            floor: 1,
        }
    }

    /// `p` with a 3-bit node field kept in the state word, as for bit
    /// layouts: above the sequence for a node below 4 (Twitter's order),
    /// below it otherwise (Sonyflake's).
    fn id_shaped(mut p: Params, node: u64) -> Params {
        let node_at = if node < 4 {
            p.seq_shift = 0;
            p.seq_bits
        } else {
            p.seq_shift = 3;
            0
        };
        p.tick_shift = p.seq_bits + 3;
        p.fill = node << node_at;
        for (t, q, sat) in [(0, 0, false), (9, p.seqs - 1, true), (13, 0, true)] {
            let state = p.pack(t, q, sat);
            assert_eq!(p.unpack(state), (t, q, sat));
            assert_eq!((state >> node_at) & 7, node);
        }
        p
    }

    fn first(p: &Params, last: u64, now: u64, n: u64) -> (u64, u64) {
        let r = p.plan(last, now, n, Ahead::default(), false).unwrap();
        (r.tick, r.seq)
    }

    #[test]
    fn plan_one_agrees_with_plan() {
        for (seqs, lead, catch_up, floor, node) in [
            (4, 0, 3, 1, None),
            (4, 2, 0, 5, None),
            (1, 0, 0, 3, None),
            (10, 1, 2, 7, None),
            (4, 0, 3, 1, Some(5)),
            (4, 2, 1, 2, Some(3)),
            (1, 0, 0, 3, Some(2)),
            (10, 1, 2, 7, Some(7)),
        ] {
            let mut p = params(seqs, lead, catch_up);
            p.floor = floor;
            if let Some(node) = node {
                p = id_shaped(p, node);
            }
            // Reachable states: the initial one, or one at or after the floor.
            let mut states = vec![p.initial_state()];
            for t in p.floor..14 {
                for q in 0..seqs {
                    for sat in [false, true] {
                        states.push(p.pack(t, q, sat));
                    }
                }
            }
            for &last in &states {
                for now in 0..16 {
                    let one = p.plan_one(last, now, Ahead::default);
                    let full = p
                        .plan(last, now, 1, Ahead::default(), false)
                        .map(|r| r.new_state);
                    assert_eq!(one, full, "seqs {seqs} last {:?} now {now}", p.unpack(last));
                }
            }
        }
    }

    /// The shortcut agrees with `plan` wherever it answers, and answers
    /// wherever `plan` issues the next sequence number of the last issued
    /// tick while that tick is the clock's or at most the lead ahead of it.
    #[test]
    fn same_tick_agrees_with_plan() {
        for (seqs, lead, catch_up, floor, node) in [
            (4, 0, 3, 1, None),
            (4, 2, 0, 5, None),
            (1, 0, 0, 3, None),
            (10, 1, 2, 7, None),
            (4, 2, 0, 5, Some(6)),
            (10, 1, 2, 7, Some(1)),
        ] {
            for (epoch, tick_millis) in [(0, 1), (5, 1), (7, 3), (100, 10)] {
                let mut p = params(seqs, lead, catch_up);
                p.floor = floor;
                if let Some(node) = node {
                    p = id_shaped(p, node);
                }
                let fast = SameTick::new(&p, epoch, tick_millis, 0);
                // Reachable states: the initial one, or one at or after the floor.
                let mut states = vec![p.initial_state()];
                for t in p.floor..14 {
                    for q in 0..seqs {
                        for sat in [false, true] {
                            states.push(p.pack(t, q, sat));
                        }
                    }
                }
                let mut answered = 0;
                for &last in &states {
                    for now in 0..epoch + 16 * tick_millis {
                        let tick = now.saturating_sub(epoch) / tick_millis;
                        let full = p
                            .plan(last, tick, 1, Ahead::default(), false)
                            .map(|r| r.new_state);
                        let (lt, ls, _) = p.unpack(last);
                        let within_lead = lt >= tick && lt - tick <= lead;
                        let expected = (now >= epoch && within_lead && ls + 1 < seqs)
                            .then(|| (p.pack(lt, ls + 1, p.unpack(last).2), lt, ls + 1));
                        let got = fast.next(last, now);
                        assert_eq!(
                            got,
                            expected,
                            "last {:?} now {now} epoch {epoch}",
                            p.unpack(last)
                        );
                        if let Some((next, t, q)) = got {
                            answered += 1;
                            assert_eq!(Ok(next), full, "last {:?} now {now}", p.unpack(last));
                            assert_eq!(p.unpack(next), (t, q, p.unpack(last).2));
                        }
                    }
                }
                assert!(seqs == 1 || answered > 0);
            }
        }
        // A layout whose last tick ends past u64::MAX ms: shortcut off.
        let mut p = params(4, 0, 0);
        p.max_tick = u64::MAX >> 3;
        let fast = SameTick::new(&p, 0, 16, 0);
        assert_eq!(fast.next(p.pack(0, 0, false), 0), None);
        // An epoch past 2^63 ms, a tick longer than 2^14 ms: shortcut off.
        let p = params(4, 0, 0);
        let fast = SameTick::new(&p, (1 << 63) + 5, 1, 0);
        assert_eq!(fast.next(p.pack(0, 0, false), (1 << 63) + 5), None);
        let fast = SameTick::new(&p, 0, 86_400_000, 0);
        assert_eq!(fast.next(p.pack(0, 0, false), 0), None);
    }

    /// A reading tagged with another fork generation never takes the
    /// shortcut, whichever generation the generator was built in.
    #[test]
    fn same_tick_refuses_readings_of_another_fork_generation() {
        use crate::fork::{TAG_MASK, TAG_SHIFT};
        let p = params(4, 0, 0);
        for (epoch, tick_millis) in [(0, 1), (1_600_000_000_000, 1), (7, 10), (5, 1000)] {
            for built in [0, 1, 2, 2047] {
                let tag = |g: u64| (g << TAG_SHIFT) & TAG_MASK;
                let fast = SameTick::new(&p, epoch, tick_millis, tag(built));
                let last = p.pack(3, 0, false);
                let now = epoch + 3 * tick_millis;
                assert!(fast.next(last, now | tag(built)).is_some());
                for other in [built + 1, built + 2, built.wrapping_sub(1)] {
                    assert_eq!(fast.next(last, now | tag(other)), None, "{built} {other}");
                }
            }
        }
    }

    #[test]
    fn same_tick_magic_divides_exactly() {
        for tick_millis in [2u64, 3, 7, 10, 1000, 1024, 9999, 1 << 14] {
            // The last millisecond of ticks near both ends of the range.
            let tick_ends = (1..2000)
                .map(|k| k * tick_millis - 1)
                .chain((1..2000).map(|k| ((1 << 50) / tick_millis - k) * tick_millis - 1));
            let magic = SameTick::magic(tick_millis);
            assert_multiply_shift_divides(tick_millis, magic, 64, tick_ends, 100_000);
        }
    }

    #[test]
    fn never_issues_tick_zero_sequence_zero() {
        // The floor is at least 1: nothing before tick 1, whatever the clock.
        for p in [params(4, 0, 0), params(1, 0, 0)] {
            let init = p.initial_state();
            assert_eq!(p.unpack(init).0, 0);
            assert_eq!(
                p.plan(init, 0, 1, Ahead::default(), false),
                Err(Blocked::BeforeFloor {
                    until_tick: 1,
                    behind_ticks: 1
                })
            );
            assert_eq!(first(&p, init, 1, 1), (1, 0));
        }
    }

    #[test]
    fn the_first_id_waits_for_the_floor_unless_the_lead_reaches_it() {
        let mut p = params(4, 0, 0);
        p.floor = 10;
        let init = p.initial_state();
        // Built in tick 9: the floor is the next tick.
        assert_eq!(
            p.plan(init, 9, 1, Ahead::default(), true),
            Err(Blocked::BeforeFloor {
                until_tick: 10,
                behind_ticks: 1
            })
        );
        assert_eq!(first(&p, init, 10, 1), (10, 0));
        // A lead lets the first ID be stamped at the floor one tick early.
        let mut p = params(4, 1, 0);
        p.floor = 10;
        assert_eq!(first(&p, p.initial_state(), 9, 1), (10, 0));
        assert!(matches!(
            p.plan(p.initial_state(), 8, 1, Ahead::default(), false),
            Err(Blocked::BeforeFloor {
                until_tick: 9,
                behind_ticks: 2
            })
        ));
    }

    #[test]
    fn a_batch_that_does_not_fit_reserves_ahead_only_when_asked() {
        let p = params(4, 0, 0);
        // The clock's tick 100 has one ID left; 10 IDs need 9 more.
        let last = p.pack(100, 2, false);
        assert_eq!(
            p.plan(last, 100, 10, Ahead::default(), false),
            Err(Blocked::Exhausted {
                until_tick: 103,
                last_usable: 100
            })
        );
        let r = p.plan(last, 100, 10, Ahead::default(), true).unwrap();
        assert_eq!((r.tick, r.seq, r.end_tick), (100, 3, 103));
        assert!(r.ahead);
        assert_eq!(p.unpack(r.new_state), (103, 0, true));
        // A batch that fits is not "ahead".
        let r = p.plan(last, 100, 1, Ahead::default(), true).unwrap();
        assert!(!r.ahead);
        // Single IDs never reserve ahead: they wait for their tick.
        let full = p.pack(100, 3, false);
        assert!(matches!(
            p.plan(full, 100, 1, Ahead::default(), true),
            Err(Blocked::Exhausted {
                until_tick: 101,
                ..
            })
        ));
    }

    #[test]
    fn ticks_reserved_ahead_are_waited_out_not_taken_for_a_regression() {
        let p = params(4, 0, 0);
        let r = p
            .plan(p.pack(100, 2, false), 100, 10, Ahead::default(), true)
            .unwrap();
        let ahead = Ahead {
            until: r.end_tick,
            span: r.end_tick - 100,
        };
        // Another caller at tick 101 finds the state at 103.
        assert_eq!(
            p.plan(r.new_state, 101, 1, ahead, false),
            Err(Blocked::Exhausted {
                until_tick: 103,
                last_usable: 101
            })
        );
        // Without the record it would be a clock 2 ticks behind.
        assert_eq!(
            p.plan(r.new_state, 101, 1, Ahead::default(), false),
            Err(Blocked::Regressed {
                until_tick: 103,
                behind_ticks: 2
            })
        );
        // A clock further back than any batch reached ahead is a regression.
        assert!(matches!(
            p.plan(r.new_state, 99, 1, ahead, false),
            Err(Blocked::Regressed {
                behind_ticks: 4,
                ..
            })
        ));
        // A second batch queues behind the first.
        let r2 = p.plan(r.new_state, 101, 6, ahead, true).unwrap();
        assert_eq!((r2.tick, r2.seq, r2.end_tick), (103, 1, 104));
        assert!(r2.ahead);
        // Once the clock reaches the reserved tick, IDs continue after it.
        assert_eq!(first(&p, r2.new_state, 104, 1), (104, 3));
    }

    #[test]
    fn batches_past_the_layout_end_are_too_large_or_out_of_time() {
        let mut p = params(4, 0, 0);
        p.max_tick = 10;
        let last = p.pack(9, 0, false);
        // Positions (9, 1) .. (10, 3) remain: 7 IDs.
        assert_eq!(
            p.plan(last, 10, 8, Ahead::default(), true),
            Err(Blocked::TooLarge { available: 7 })
        );
        let r = p.plan(last, 10, 7, Ahead::default(), true).unwrap();
        assert_eq!((r.tick, r.seq, r.end_tick), (9, 1, 10));
        assert_eq!(
            p.plan(r.new_state, 10, 1, Ahead::default(), true),
            Err(Blocked::TimeExhausted)
        );
        assert_eq!(
            p.plan(last, 10, u64::MAX, Ahead::default(), true),
            Err(Blocked::TooLarge { available: 7 })
        );
    }

    #[test]
    fn catch_up_uses_missed_ticks_only_when_saturating() {
        let p = params(4, 0, 3);
        // Used up tick 10, clock at 12: continue in tick 11, and stay there.
        let r = p
            .plan(p.pack(10, 3, false), 12, 1, Ahead::default(), false)
            .unwrap();
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
        let r = p
            .plan(p.pack(5, 0, false), 100, 10, Ahead::default(), false)
            .unwrap();
        assert_eq!((r.tick, r.seq), (98, 2));
        assert_eq!(p.unpack(r.new_state), (100, 3, true));
        // Never before the last issued ID: wait instead.
        assert_eq!(
            p.plan(p.pack(99, 0, false), 100, 10, Ahead::default(), false),
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
        let r = p.plan(init, 50, 1, Ahead::default(), false).unwrap();
        assert_eq!((r.tick, r.seq), (50, 0));
        assert!(!p.unpack(r.new_state).2, "not a saturated run");
        // A batch cannot reach back before the floor.
        let r = p.plan(init, 52, 12, Ahead::default(), false).unwrap();
        assert_eq!((r.tick, r.seq), (50, 0));
        assert!(p.plan(init, 52, 13, Ahead::default(), false).is_err());
        // Clock behind the floor before the first ID: the generator's
        // clock-regression policy decides (more than one tick behind).
        assert_eq!(
            p.plan(init, 40, 1, Ahead::default(), false),
            Err(Blocked::BeforeFloor {
                until_tick: 50,
                behind_ticks: 10
            })
        );
        // One-sequence layouts too.
        let mut p1 = params(1, 0, 5);
        p1.floor = 50;
        assert_eq!(first(&p1, p1.initial_state(), 53, 1), (53, 0));
    }

    #[test]
    fn non_power_of_two_batches_carry() {
        let p = params(10, 2, 0);
        let r = p
            .plan(p.pack(5, 7, false), 9, 25, Ahead::default(), false)
            .unwrap();
        assert_eq!((r.tick, r.seq), (9, 0));
        assert_eq!(p.unpack(r.new_state), (11, 4, true));
        // Ends exactly at the lead's last ID, so it starts earlier.
        let r = p
            .plan(p.pack(5, 7, false), 9, 30, Ahead::default(), false)
            .unwrap();
        assert_eq!((r.tick, r.seq), (9, 0));
        let r = p
            .plan(p.pack(5, 7, false), 9, 31, Ahead::default(), false)
            .unwrap();
        assert_eq!((r.tick, r.seq), (8, 9));
        // More than fits after the last ID: wait.
        assert_eq!(
            p.plan(p.pack(8, 9, false), 9, 31, Ahead::default(), false),
            Err(Blocked::Exhausted {
                until_tick: 10,
                last_usable: 11
            })
        );
    }
}
