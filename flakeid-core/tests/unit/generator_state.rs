//! Unit tests of `src/generator/state.rs` (private items; included with `#[path]` as its
//! `tests` module).

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
