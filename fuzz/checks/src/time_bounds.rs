//! Key bounds of arbitrary time ranges ([`IdScheme::time_bounds`],
//! [`FlakeId::time_bounds`]) for arbitrary layouts: the presets, bit and
//! decimal layouts built from arbitrary settings, random starts, random
//! keys, TraceId, and an ID type with a cut-over.
//!
//! The input is a stream of numbers (`Bytes`): the scheme and its
//! settings, then each end of the range (included, excluded or unbounded;
//! a time as milliseconds and nanoseconds from the Unix epoch, the
//! layout's epoch or the end of its time). Property: a layout's settings
//! build it or are a [`LayoutError`](flakeid_core::layout::LayoutError);
//! the bounds are exact (every ID whose tick holds an instant of the range
//! is inside them, and they hold no tick outside it: computed here in
//! nanoseconds apart from the code), both bounds are IDs of the scheme,
//! and a range with no such tick is the [`TimeBoundsError`] that says why.
//! Nothing panics or overflows.

use std::ops::{Bound, RangeInclusive};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::layout::{BitLayout, Domain, FieldOrder, Layout, presets};
use flakeid_core::{FlakeId, IdScheme, TimeBoundsError};
use flakeid_schemes::{DecimalLayout, RandomStart};
use flakeid_schemes::{RandomKeys, TraceIdLayout};

use crate::ids::AdoptedId;
use crate::input::Bytes;

const NANOS_PER_MS: i128 = 1_000_000;

pub fn check(data: &[u8]) {
    let mut input = Bytes::new(data);
    let kind = input.u8() % 16;
    let preset = presets::ALL[usize::from(input.u8()) % presets::ALL.len()].1();
    match kind {
        0..=8 => {
            let layout = presets::ALL[usize::from(kind)].1();
            layout_case(&layout, &layout, &mut input);
        }
        9 => {
            let built = BitLayout::builder()
                .time_bits(input.u8())
                .node_bits(input.u8())
                .sequence_bits(input.u8())
                .tick_millis(input.u64())
                .epoch_millis(input.u64())
                .order(order(input.bool()))
                .domain(domain(input.bool()))
                .build();
            if let Ok(layout) = built {
                round_trip(&layout, input.u64());
                layout_case(&layout, &layout, &mut input);
            }
        }
        10 => {
            let built = DecimalLayout::builder()
                .time_digits(input.u8())
                .sequence_digits(input.u8())
                .node_digits(input.u8())
                .tick_millis(input.u64())
                .epoch_millis(input.u64())
                .order(order(input.bool()))
                .domain(domain(input.bool()))
                .build();
            if let Ok(layout) = built {
                round_trip(&layout, input.u64());
                layout_case(&layout, &layout, &mut input);
            }
        }
        11 => {
            let range = input.u64();
            if let Ok(layout) = RandomStart::with_start_range(preset.clone(), range) {
                let layout = layout.seed(input.u64());
                layout_case(&layout, &preset, &mut input);
            }
        }
        12 => {
            let threads = input.u32();
            if let Ok(layout) = TraceIdLayout::for_threads(threads) {
                let (start, end) = range(&mut input, 0, i128::from(u32::MAX) * 1_000_000_000);
                trace_case(&layout, start, end);
            }
        }
        13 => layout_case(&RandomKeys(preset.clone()), &preset, &mut input),
        _ => {
            let twitter = presets::twitter();
            let (start, end) = range(&mut input, epoch_nanos(&twitter), end_nanos(&twitter));
            cut_over_case(start, end);
        }
    }
}

fn order(b: bool) -> FieldOrder {
    if b {
        FieldOrder::SequenceThenNode
    } else {
        FieldOrder::NodeThenSequence
    }
}

fn domain(b: bool) -> Domain {
    if b { Domain::JsSafe } else { Domain::BigInt }
}

/// A layout composes the parts of any of its IDs back into it.
fn round_trip<L: Layout<Raw = u64> + IdScheme>(layout: &L, value: u64) {
    let id = value % (layout.max_id() + 1);
    let p = layout.decompose(id);
    assert!(
        p.tick <= layout.max_tick() && p.node <= layout.max_node(),
        "{layout:?} {id}"
    );
    assert!(p.sequence < layout.sequences_per_tick(), "{layout:?} {id}");
    assert_eq!(layout.compose(p.tick, p.node, p.sequence), id, "{layout:?}");
    let _ = layout.decode(id).to_string();
}

fn epoch_nanos<L: Layout>(layout: &L) -> i128 {
    i128::from(layout.epoch_millis()) * NANOS_PER_MS
}

/// The end of the layout's last tick, in nanoseconds since the Unix epoch.
fn end_nanos<L: Layout>(layout: &L) -> i128 {
    epoch_nanos(layout)
        + (i128::from(layout.max_tick()) + 1) * i128::from(layout.tick_millis()) * NANOS_PER_MS
}

/// A range's two ends, read from the input; an instant is kept in
/// nanoseconds since the Unix epoch beside its `SystemTime`.
type End = Bound<(SystemTime, i128)>;

fn range(input: &mut Bytes<'_>, epoch: i128, end: i128) -> (End, End) {
    let mut one = || {
        let kind = input.u8() % 3;
        let anchor = match input.u8() % 3 {
            0 => 0,
            1 => epoch,
            _ => end,
        };
        let offset =
            i128::from(input.u64() as i64) * NANOS_PER_MS + i128::from(input.u32() % 1_000_000_000);
        let t = anchor + offset - i128::from(input.u8() % 2) * 1_000_000_000;
        let time = instant(t);
        match (kind, time) {
            (0, Some(time)) => Bound::Included((time, t)),
            (1, Some(time)) => Bound::Excluded((time, t)),
            _ => Bound::Unbounded,
        }
    };
    (one(), one())
}

/// `nanos` after (before, if negative) the Unix epoch, if `SystemTime` holds it.
fn instant(nanos: i128) -> Option<SystemTime> {
    let magnitude = nanos.unsigned_abs();
    let secs = u64::try_from(magnitude / 1_000_000_000).ok()?;
    let d = Duration::new(secs, (magnitude % 1_000_000_000) as u32);
    if nanos >= 0 {
        UNIX_EPOCH.checked_add(d)
    } else {
        UNIX_EPOCH.checked_sub(d)
    }
}

fn time_of(end: End) -> Bound<SystemTime> {
    end.map(|(t, _)| t)
}

/// The first and last instant of the range (nanoseconds since the Unix
/// epoch), `None` where unbounded.
fn instants(start: End, end: End) -> (Option<i128>, Option<i128>) {
    let first = match start {
        Bound::Included((_, n)) => Some(n),
        Bound::Excluded((_, n)) => Some(n + 1),
        Bound::Unbounded => None,
    };
    let last = match end {
        Bound::Included((_, n)) => Some(n),
        Bound::Excluded((_, n)) => Some(n - 1),
        Bound::Unbounded => None,
    };
    (first, last)
}

/// What the oracle expects: the ticks the range overlaps, or the names of
/// the refusals that apply.
#[derive(Debug)]
enum Want {
    Ticks(u64, u64),
    Refused(Vec<&'static str>),
}

fn want<L: Layout>(layout: &L, start: End, end: End) -> Want {
    let (first, last) = instants(start, end);
    let epoch = epoch_nanos(layout);
    let mut refused = Vec::new();
    if let (Some(f), Some(l)) = (first, last)
        && f > l
    {
        refused.push("Empty");
    }
    if last.is_some_and(|l| l < epoch) {
        refused.push("BeforeEpoch");
    }
    if first.is_some_and(|f| f >= end_nanos(layout)) {
        refused.push("AfterEnd");
    }
    if !refused.is_empty() {
        return Want::Refused(refused);
    }
    let tick = i128::from(layout.tick_millis()) * NANOS_PER_MS;
    let tick_of = |n: i128| u64::try_from((n - epoch).max(0) / tick).unwrap_or(u64::MAX);
    let a = first.map_or(0, tick_of);
    let b = last.map_or(layout.max_tick(), |l| tick_of(l).min(layout.max_tick()));
    Want::Ticks(a, b)
}

fn variant(e: &TimeBoundsError) -> &'static str {
    match e {
        TimeBoundsError::NoTime { .. } => "NoTime",
        TimeBoundsError::BeforeEpoch { .. } => "BeforeEpoch",
        TimeBoundsError::AfterEnd { .. } => "AfterEnd",
        TimeBoundsError::Empty { .. } => "Empty",
        TimeBoundsError::CrossesWrap { .. } => "CrossesWrap",
        _ => "another",
    }
}

/// `scheme`'s bounds of a range read from the input, against the ticks of
/// `layout` (the layout `scheme` stores its IDs in).
fn layout_case<L: Layout<Raw = u64>>(scheme: &dyn IdScheme, layout: &L, input: &mut Bytes<'_>) {
    let (start, end) = range(input, epoch_nanos(layout), end_nanos(layout));
    let got = scheme.time_bounds(time_of(start), time_of(end));
    assert_exact(scheme, layout, got, want(layout, start, end), (start, end));
}

fn assert_exact<L: Layout<Raw = u64>>(
    scheme: &dyn IdScheme,
    layout: &L,
    got: Result<RangeInclusive<u64>, TimeBoundsError>,
    want: Want,
    range: (End, End),
) {
    let tick = |id: u64| layout.decompose(id).tick;
    match (got, want) {
        (Ok(ids), Want::Ticks(a, b)) => {
            let (lo, hi) = ids.into_inner();
            assert!(
                1 <= lo && lo <= hi && hi <= scheme.max_id(),
                "{lo}..={hi} of {scheme:?}, {range:?}"
            );
            assert!(
                scheme.check(lo).is_ok() && scheme.check(hi).is_ok(),
                "{lo}..={hi} of {scheme:?}"
            );
            assert_eq!(
                (tick(lo), tick(hi)),
                (a, b),
                "{lo}..={hi} of {scheme:?}, {range:?}"
            );
            // Nothing of the first and last tick left outside.
            if lo > 1 && tick(lo - 1) == a {
                assert!(
                    scheme.check(lo - 1).is_err(),
                    "{} left out of {scheme:?}, {range:?}",
                    lo - 1
                );
            }
            if hi < scheme.max_id() && tick(hi + 1) == b {
                assert!(
                    scheme.check(hi + 1).is_err(),
                    "{} left out of {scheme:?}, {range:?}",
                    hi + 1
                );
            }
        }
        (Err(e), Want::Refused(kinds)) => {
            assert!(
                kinds.contains(&variant(&e)),
                "{e:?}, want one of {kinds:?}, {range:?}"
            );
            assert!(!e.to_string().is_empty());
        }
        (got, want) => panic!("{scheme:?}, {range:?}: got {got:?}, want {want:?}"),
    }
}

/// TraceId: bounds within one period of its wrapping seconds, or the
/// refusal of a range that crosses a wrap.
fn trace_case(layout: &TraceIdLayout, start: End, end: End) {
    let got = layout.time_bounds(time_of(start), time_of(end));
    let (first, last) = instants(start, end);
    let empty = matches!((first, last), (Some(f), Some(l)) if f > l);
    let before = last.is_some_and(|l| l < 0);
    match got {
        Ok(ids) => {
            let (lo, hi) = ids.into_inner();
            assert!(!empty && !before, "{start:?}..{end:?}: {lo}..={hi}");
            assert!(
                lo <= hi && layout.check(lo).is_ok() && layout.check(hi).is_ok(),
                "{lo}..={hi}"
            );
            let second = |n: i128| (n.max(0) / 1_000_000_000) as u64 / TraceIdLayout::WRAP_SECONDS;
            if let (Some(f), Some(l)) = (first, last) {
                assert_eq!(
                    second(f),
                    second(l),
                    "a range across a wrap: {start:?}..{end:?}"
                );
            }
        }
        Err(e) => {
            let kinds = match (empty, before) {
                (true, _) => vec!["Empty", "BeforeEpoch", "CrossesWrap", "AfterEnd"],
                (false, true) => vec!["BeforeEpoch"],
                (false, false) => vec!["CrossesWrap", "AfterEnd"],
            };
            assert!(kinds.contains(&variant(&e)), "{e:?} for {start:?}..{end:?}");
        }
    }
}

/// An ID type with a cut-over: keys below it are older than every flake
/// key, so a range reaching back to the epoch holds all of them, and any
/// other range none.
fn cut_over_case(start: End, end: End) {
    let twitter = presets::twitter();
    let cut_over = AdoptedId::CUT_OVER.expect("AdoptedId has a cut-over");
    let got = AdoptedId::time_bounds((time_of(start), time_of(end)));
    match (got, want(&twitter, start, end)) {
        (Ok(ids), Want::Ticks(a, b)) => {
            let (lo, hi) = (ids.start().get() as u64, ids.end().get() as u64);
            let scheme_lo = twitter.compose(a, 0, 0).max(1);
            let scheme_hi = twitter.compose(b, twitter.max_node(), twitter.max_sequence());
            let expected = if a == 0 {
                (1, scheme_hi.max(cut_over - 1))
            } else {
                (scheme_lo.max(cut_over), scheme_hi)
            };
            assert_eq!((lo, hi), expected, "{start:?}..{end:?}");
        }
        (Err(e), Want::Refused(kinds)) => {
            assert!(kinds.contains(&variant(&e)), "{e:?}, want one of {kinds:?}");
        }
        (got, want) => panic!("AdoptedId {start:?}..{end:?}: got {got:?}, want {want:?}"),
    }
}
