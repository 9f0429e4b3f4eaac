//! Key bounds of time ranges (`IdScheme::time_bounds`, `FlakeId::time_bounds`)
//! of the layouts and schemes of this crate: decimal layouts, random starts
//! and random keys checked against IDs their generators issue and against
//! the smallest and largest key of each tick
//! near the range's ends (with a copy of the oracle of flakeid-core's
//! `tests/all/time_bounds.rs`, which checks every layout: keep the two
//! alike), TraceIds whose seconds wrap, and schemes that record no time.
//!
//! The oracle is written apart from the implementation: an ID belongs to a
//! range when the interval of its tick, `[start, start + tick)` to the
//! nanosecond, shares an instant with the range.

use std::ops::Bound::{self, Excluded, Included, Unbounded};
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::layout::{FieldOrder, Layout, presets};
use flakeid_core::{Generator, IdScheme, ManualClock, TimeBoundsError, flake_id};
use flakeid_schemes::{
    DecimalIdGenerator, DecimalIdScheme, DecimalLayout, RandomKeyGenerator, RandomKeys,
    RandomStart, TraceIdGenerator, TraceIdLayout,
};
use proptest::prelude::*;

/// 2024-01-01T00:00:00Z in Unix ms.
const EPOCH_2024: u64 = 1_704_067_200_000;
const NANOS_PER_MS: i128 = 1_000_000;

/// A scheme under test: how it counts time, the extreme IDs of a tick, and
/// what its generators issue at a clock reading.
struct Subject {
    name: String,
    scheme: Box<dyn IdScheme>,
    epoch_ms: u64,
    tick_ms: u64,
    max_tick: u64,
    /// The smallest and largest valid ID of a tick (composed).
    extremes: Box<dyn Fn(u64) -> [u64; 2]>,
    /// The tick an ID records.
    tick_of: Box<dyn Fn(u64) -> u64>,
    /// The IDs generators of the scheme (the smallest and the largest node)
    /// issue when their clock reads `ms`; none where they cannot issue.
    issue: Box<dyn Fn(u64) -> Vec<u64>>,
}

impl Subject {
    /// Nanoseconds since the Unix epoch of the start of `tick`.
    fn tick_start(&self, tick: u64) -> i128 {
        (i128::from(self.epoch_ms) + i128::from(tick) * i128::from(self.tick_ms)) * NANOS_PER_MS
    }
}

/// The tick of `layout` a clock reading `ms` (Unix ms) falls in, if the
/// layout's time runs from its epoch to then.
fn tick_at(layout: &impl Layout, ms: u64) -> Option<u64> {
    let tick = ms.checked_sub(layout.epoch_millis())? / layout.tick_millis();
    (tick <= layout.max_tick()).then_some(tick)
}

/// A layout whose IDs a `RandomKeyGenerator` issues (random part ≥ 1).
fn random_key_subject<L>(name: &str, layout: L) -> Subject
where
    L: Layout<Raw = u64> + IdScheme + Clone + PartialEq,
{
    let l = layout.clone();
    let issue = move |ms: u64| {
        if tick_at(&l, ms).is_none() {
            return Vec::new();
        }
        [0, l.max_node()]
            .into_iter()
            .map(|node| {
                let g = RandomKeyGenerator::builder(l.clone(), node)
                    .clock(ManualClock::new(ms))
                    .seed(ms ^ node)
                    .build()
                    .expect("a random-key generator");
                g.next_id().expect("a random key")
            })
            .collect()
    };
    let scheme = Box::new(RandomKeys(layout.clone()));
    layout_subject(name, layout, scheme, 1, issue)
}

/// A layout run by a `Generator` (bounds from `scheme`,
/// which is the layout or a scheme over it).
fn sequence_subject<L>(name: &str, layout: L, scheme: Box<dyn IdScheme>) -> Subject
where
    L: Layout<Raw = u64> + IdScheme + Clone,
{
    let tick_ms = layout.tick_millis();
    let l = layout.clone();
    let issue = move |ms: u64| {
        // A generator issues nothing in its build tick nor in tick 0: build
        // it one tick earlier.
        let Some(tick) = tick_at(&l, ms).filter(|&tick| tick != 0) else {
            return Vec::new();
        };
        [0, l.max_node()]
            .into_iter()
            .map(|node| {
                let clock = Arc::new(ManualClock::new(ms - tick_ms));
                let g = Generator::builder(l.clone(), node)
                    .clock(Arc::clone(&clock))
                    .build()
                    .expect("a generator one tick before");
                clock.set(ms);
                let id = g.next_id().expect("an ID at the clock's tick");
                assert_eq!(l.decompose(id).tick, tick, "stamped with the clock's tick");
                id
            })
            .collect()
    };
    layout_subject(name, layout, scheme, 0, issue)
}

/// A subject of `layout`'s ticks, whose smallest ID of a tick has node 0
/// and sequence `min_sequence` (at least 1) and whose generators `issue`.
fn layout_subject<L>(
    name: &str,
    layout: L,
    scheme: Box<dyn IdScheme>,
    min_sequence: u64,
    issue: impl Fn(u64) -> Vec<u64> + 'static,
) -> Subject
where
    L: Layout<Raw = u64> + Clone,
{
    let (max_node, max_seq) = (layout.max_node(), layout.sequences_per_tick() - 1);
    let l = layout.clone();
    let extremes = move |t: u64| {
        [
            l.compose(t, 0, min_sequence).max(1),
            l.compose(t, max_node, max_seq),
        ]
    };
    let l = layout.clone();
    let tick_of = move |id: u64| l.decompose(id).tick;
    Subject {
        name: name.to_owned(),
        scheme,
        epoch_ms: layout.epoch_millis(),
        tick_ms: layout.tick_millis(),
        max_tick: layout.max_tick(),
        extremes: Box::new(extremes),
        tick_of: Box::new(tick_of),
        issue: Box::new(issue),
    }
}

/// Decimal layouts, a random start and the random-key schemes (every one
/// records its full time).
fn subjects() -> Vec<Subject> {
    let mut all = Vec::new();
    let decimal = DecimalLayout::time_sequence_server(EPOCH_2024).expect("13 + 6 + 1 digits");
    all.push(sequence_subject(
        "decimal 13+6+1",
        decimal,
        Box::new(decimal),
    ));
    let decimal_seconds = DecimalLayout::builder()
        .time_digits(10)
        .tick_millis(1000)
        .epoch_millis(EPOCH_2024)
        .node_digits(3)
        .sequence_digits(4)
        .order(FieldOrder::NodeThenSequence)
        .build()
        .expect("10 + 3 + 4 digits");
    all.push(sequence_subject(
        "decimal seconds",
        decimal_seconds,
        Box::new(decimal_seconds),
    ));
    // A random start: the generator's seed differs from the scheme's, as
    // between two processes.
    let issuing = RandomStart::new(presets::twitter())
        .expect("random start")
        .seed(1);
    let reading = RandomStart::new(presets::twitter())
        .expect("random start")
        .seed(2);
    let mut random_start = sequence_subject("random start", issuing, Box::new(reading));
    // Extremes of any seed: the stored sequence field spans the inner layout's.
    let twitter = presets::twitter();
    random_start.extremes = Box::new(move |t| {
        [
            twitter.compose(t, 0, 0).max(1),
            twitter.compose(t, 1023, 4095),
        ]
    });
    all.push(random_start);
    all.push(random_key_subject(
        "nonsequential (random)",
        presets::nonsequential(),
    ));
    all.push(random_key_subject("decimal 13+6+1 (random)", decimal));
    all
}

/// Which tick of a layout a time lies in or near.
#[derive(Debug, Clone, Copy)]
enum TickPick {
    /// `k` ticks before the epoch.
    BeforeEpoch(u64),
    /// Tick `k` from the epoch.
    First(u64),
    /// A tick at a fraction `f / 2^32` of the layout's ticks.
    Anywhere(u32),
    /// `k` ticks before the last.
    Last(u64),
    /// `k` ticks after the last.
    AfterEnd(u64),
}

/// Where in its tick a time lies, in ms, plus nanoseconds.
#[derive(Debug, Clone, Copy)]
enum Offset {
    Start,
    OneMs,
    LastMs,
    Anywhere(u32),
}

#[derive(Debug, Clone, Copy)]
struct Pick {
    tick: TickPick,
    offset: Offset,
    /// Nanoseconds past the millisecond (0 half the time).
    nanos: u32,
}

fn tick_pick() -> impl Strategy<Value = TickPick> {
    prop_oneof![
        1 => (1..4u64).prop_map(TickPick::BeforeEpoch),
        1 => (0..4u64).prop_map(TickPick::First),
        4 => any::<u32>().prop_map(TickPick::Anywhere),
        1 => (0..4u64).prop_map(TickPick::Last),
        1 => (1..3u64).prop_map(TickPick::AfterEnd),
    ]
}

fn offset() -> impl Strategy<Value = Offset> {
    prop_oneof![
        Just(Offset::Start),
        Just(Offset::OneMs),
        Just(Offset::LastMs),
        any::<u32>().prop_map(Offset::Anywhere),
    ]
}

fn pick() -> impl Strategy<Value = Pick> {
    let nanos = prop_oneof![Just(0u32), 1..1_000_000u32];
    (tick_pick(), offset(), nanos).prop_map(|(tick, offset, nanos)| Pick {
        tick,
        offset,
        nanos,
    })
}

/// One end of a range: included, excluded or unbounded (rarely).
#[derive(Debug, Clone, Copy)]
enum Kind {
    Included,
    Excluded,
    Unbounded,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        4 => Just(Kind::Included),
        4 => Just(Kind::Excluded),
        1 => Just(Kind::Unbounded),
    ]
}

/// Nanoseconds since the Unix epoch of a picked time, for `s`.
fn nanos_of(s: &Subject, p: Pick) -> i128 {
    let tick = match p.tick {
        TickPick::BeforeEpoch(k) => -i128::from(k),
        TickPick::First(k) => i128::from(k),
        TickPick::Anywhere(f) => (i128::from(s.max_tick) * i128::from(f)) >> 32,
        TickPick::Last(k) => i128::from(s.max_tick) - i128::from(k),
        TickPick::AfterEnd(k) => i128::from(s.max_tick) + i128::from(k),
    };
    let tick_ms = i128::from(s.tick_ms);
    let ms = match p.offset {
        Offset::Start => 0,
        Offset::OneMs => 1.min(tick_ms - 1),
        Offset::LastMs => tick_ms - 1,
        Offset::Anywhere(f) => (tick_ms * i128::from(f)) >> 32,
    };
    (i128::from(s.epoch_ms) + tick * tick_ms + ms) * NANOS_PER_MS + i128::from(p.nanos)
}

fn time(nanos: i128) -> SystemTime {
    let d = |n: i128| Duration::from_nanos(u64::try_from(n).expect("within 584 years of 1970"));
    if nanos >= 0 {
        UNIX_EPOCH + d(nanos)
    } else {
        UNIX_EPOCH - d(-nanos)
    }
}

fn bound(kind: Kind, nanos: i128) -> Bound<SystemTime> {
    match kind {
        Kind::Included => Included(time(nanos)),
        Kind::Excluded => Excluded(time(nanos)),
        Kind::Unbounded => Unbounded,
    }
}

/// The range's first and last instant (ns since 1970), `None` where open.
fn instants(start: Bound<SystemTime>, end: Bound<SystemTime>) -> (Option<i128>, Option<i128>) {
    let ns = |t: SystemTime| match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    };
    let first = match start {
        Included(t) => Some(ns(t)),
        Excluded(t) => Some(ns(t) + 1),
        Unbounded => None,
    };
    let last = match end {
        Included(t) => Some(ns(t)),
        Excluded(t) => Some(ns(t) - 1),
        Unbounded => None,
    };
    (first, last)
}

/// Whether the instants `[from, to)` share one with the range.
fn overlaps(range: (Option<i128>, Option<i128>), from: i128, to: i128) -> bool {
    let lo = range.0.map_or(from, |f| f.max(from));
    let hi = range.1.map_or(to - 1, |l| l.min(to - 1));
    lo <= hi
}

/// The ticks whose IDs a check looks at: the first ticks, the last ones,
/// and those around each end of the range.
fn ticks_to_check(s: &Subject, ends: &[i128]) -> Vec<u64> {
    let mut ticks = vec![0, 1, 2, s.max_tick - 1, s.max_tick];
    for &ns in ends {
        let since = ns / NANOS_PER_MS - i128::from(s.epoch_ms);
        let t = since.div_euclid(i128::from(s.tick_ms));
        for k in t - 1..=t + 1 {
            if let Ok(k) = u64::try_from(k)
                && k <= s.max_tick
            {
                ticks.push(k);
            }
        }
    }
    ticks.sort_unstable();
    ticks.dedup();
    ticks
}

/// Checks one range of one subject against the oracle.
fn check_range(s: &Subject, start: Bound<SystemTime>, end: Bound<SystemTime>) {
    let range = instants(start, end);
    let got = s.scheme.time_bounds(start, end);
    let layout_start = s.tick_start(0);
    let layout_end = s.tick_start(s.max_tick) + i128::from(s.tick_ms) * NANOS_PER_MS;
    let name = &s.name;
    if let (Some(f), Some(l)) = range
        && f > l
    {
        assert!(
            matches!(got, Err(TimeBoundsError::Empty { .. })),
            "{name}: {start:?}..{end:?} is empty, got {got:?}"
        );
        return;
    }
    if !overlaps(range, layout_start, layout_end) {
        let before = range.1.is_some_and(|l| l < layout_start);
        match got {
            Err(TimeBoundsError::BeforeEpoch { epoch, .. }) if before => {
                assert_eq!(epoch, time(layout_start), "{name}");
            }
            Err(TimeBoundsError::AfterEnd { end: e, .. }) if !before => {
                assert_eq!(e, time(layout_end), "{name}");
            }
            other => {
                panic!("{name}: {start:?}..{end:?} is outside the layout's time, got {other:?}")
            }
        }
        return;
    }
    let bounds = got.unwrap_or_else(|e| panic!("{name}: {start:?}..{end:?}: {e}"));
    for b in [*bounds.start(), *bounds.end()] {
        assert!((1..=s.scheme.max_id()).contains(&b), "{name}: bound {b}");
        assert_eq!(s.scheme.check(b), Ok(()), "{name}: bound {b} is an ID");
    }
    let tick_len = i128::from(s.tick_ms) * NANOS_PER_MS;
    let in_range = |id: u64| {
        let from = s.tick_start((s.tick_of)(id));
        overlaps(range, from, from + tick_len)
    };
    let ends: Vec<i128> = [range.0, range.1].into_iter().flatten().collect();
    // Whether the range starts and ends on tick edges (where open, it does).
    let edge = |ns: i128| (ns - s.tick_start(0)).rem_euclid(tick_len) == 0;
    let on_edges = range.0.is_none_or(edge) && range.1.is_none_or(|l| edge(l + 1));
    // The extremes of each tick around the ends: the range's first and last
    // tick are inside with both extremes, their neighbours outside.
    for tick in ticks_to_check(s, &ends) {
        for id in (s.extremes)(tick) {
            assert_eq!(
                bounds.contains(&id),
                in_range(id),
                "{name}: ID {id} of tick {tick} against {bounds:?} for {start:?}..{end:?}"
            );
        }
    }
    // IDs generators issue at milliseconds around the ends.
    for &ns in &ends {
        let ms = ns.div_euclid(NANOS_PER_MS);
        for c in ms - 1..=ms + 1 {
            let Ok(c) = u64::try_from(c) else { continue };
            for id in (s.issue)(c) {
                assert_eq!(
                    bounds.contains(&id),
                    in_range(id),
                    "{name}: ID {id} issued at {c} ms against {bounds:?} for {start:?}..{end:?}"
                );
                // Ends on tick edges: exactly the IDs issued in the range.
                if on_edges {
                    let at = i128::from(c) * NANOS_PER_MS;
                    assert_eq!(
                        bounds.contains(&id),
                        overlaps(range, at, at + 1),
                        "{name}: ID {id} issued at {c} ms, range {start:?}..{end:?} on tick edges"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// For every preset and scheme, random ranges near the epoch, the end
    /// and anywhere, with ends on and off tick edges, included, excluded
    /// or open: the bounds hold exactly the IDs of the ticks the range
    /// overlaps, and fail with the error naming the limit outside the layout.
    #[test]
    fn bounds_hold_exactly_the_ids_of_the_ticks_a_range_overlaps(
        a in pick(),
        b in pick(),
        (ka, kb) in (kind(), kind()),
        sorted in prop::bool::weighted(0.9),
    ) {
        for s in subjects() {
            let (mut x, mut y) = (nanos_of(&s, a), nanos_of(&s, b));
            if sorted && x > y {
                std::mem::swap(&mut x, &mut y);
            }
            check_range(&s, bound(ka, x), bound(kb, y));
        }
    }

    /// The tick of a time, as `t..=t`: its extremes inside, its neighbours'
    /// outside, for every scheme.
    #[test]
    fn one_time_gives_the_ids_of_its_tick(a in pick()) {
        for s in subjects() {
            let x = nanos_of(&s, a);
            check_range(&s, Included(time(x)), Included(time(x)));
        }
    }
}

#[test]
fn every_preset_at_its_epoch_and_end() {
    for s in subjects() {
        let epoch = time(s.tick_start(0));
        let end = time(s.tick_start(s.max_tick) + i128::from(s.tick_ms) * NANOS_PER_MS);
        let tick = Duration::from_millis(s.tick_ms);
        let name = &s.name;
        // The first tick starts at the smallest key; the range before the epoch is empty of IDs.
        let first = s
            .scheme
            .time_bounds(Included(epoch), Excluded(epoch + tick))
            .unwrap();
        assert_eq!(*first.start(), (s.extremes)(0)[0], "{name}");
        assert!(*first.start() <= 1 << 13, "{name}: {first:?}");
        assert_eq!(*first.end(), (s.extremes)(0)[1], "{name}");
        let before = s.scheme.time_bounds(Unbounded, Excluded(epoch));
        assert_eq!(
            before,
            Err(TimeBoundsError::BeforeEpoch {
                end: Excluded(epoch),
                epoch
            }),
            "{name}"
        );
        // A range from before the epoch starts at the smallest key (cut-over keys are older).
        let from_before = s
            .scheme
            .time_bounds(Included(epoch - tick), Excluded(epoch + tick))
            .unwrap();
        assert_eq!(from_before, first, "{name}");
        // The last tick ends at the largest key; from the end on there is none.
        let last = s
            .scheme
            .time_bounds(Included(end - tick), Unbounded)
            .unwrap();
        assert_eq!(*last.end(), (s.extremes)(s.max_tick)[1], "{name}");
        assert_eq!(
            s.scheme.time_bounds(Included(end), Unbounded),
            Err(TimeBoundsError::AfterEnd {
                start: Included(end),
                end
            }),
            "{name}"
        );
        let all = s.scheme.time_bounds(Unbounded, Unbounded).unwrap();
        assert_eq!(*all.start(), (s.extremes)(0)[0], "{name}");
        assert_eq!(*all.end(), (s.extremes)(s.max_tick)[1], "{name}");
    }
}

#[test]
fn schemes_without_time_have_no_bounds() {
    let now = SystemTime::now();
    let decimal_id = DecimalIdScheme::default();
    let generator = DecimalIdGenerator::builder(65, AtomicU32::new(92))
        .build()
        .unwrap();
    let no_time: [&dyn IdScheme; 2] = [&decimal_id, &generator];
    for scheme in no_time {
        let e = scheme.time_bounds(Included(now), Unbounded).unwrap_err();
        assert!(
            matches!(e, TimeBoundsError::NoTime { .. }),
            "{scheme:?}: {e:?}"
        );
        assert!(e.to_string().contains("record no time"), "{e}");
    }
    let e = DecimalIdScheme::default()
        .time_bounds(Unbounded, Unbounded)
        .unwrap_err();
    assert!(e.to_string().contains("DecimalIdScheme"), "{e}");
}

#[flake_id(scheme = DecimalIdScheme::default)]
struct OrderNo(i64);

fn trace_layout() -> TraceIdLayout {
    TraceIdLayout::for_threads(32).unwrap()
}

#[flake_id(scheme = trace_layout)]
struct TraceKey(i64);

#[test]
fn id_types_take_any_range_of_times() {
    let t = UNIX_EPOCH + Duration::from_millis(1_750_000_000_000);
    assert!(matches!(
        OrderNo::time_bounds(t..),
        Err(TimeBoundsError::NoTime { .. })
    ));
    // A TraceId range within one period.
    let r = TraceKey::time_bounds(t..t + Duration::from_secs(1)).unwrap();
    assert_eq!(r.start().decode().field("counter"), Some(1));
}

/// TraceIds: the seconds wrap every 2^25 s, so bounds are exact within one
/// period, hold the same seconds of every other period, and a range
/// crossing a wrap is refused naming it.
mod trace {
    use super::*;

    const P: u64 = TraceIdLayout::WRAP_SECONDS;

    /// IDs of node 0 and node 65,535 issued when the clock reads `ms`.
    fn issue(ms: u64) -> Vec<u64> {
        [0, 65_535]
            .into_iter()
            .map(|node| {
                let clock = Arc::new(ManualClock::new(ms.saturating_sub(1000)));
                let g = TraceIdGenerator::builder(node)
                    .threads(32)
                    .clock(Arc::clone(&clock))
                    .build()
                    .unwrap();
                clock.set(ms);
                g.next_id().unwrap()
            })
            .collect()
    }

    fn second_of(id: u64) -> u64 {
        u64::from(trace_layout().decompose(id).unwrap().timestamp)
    }

    proptest! {
        #[test]
        fn bounds_hold_the_seconds_of_the_range_in_every_period(
            period in 40..60u64,
            a in prop_oneof![0..P, P - 6_000..P],
            len_ms in 0..5_000_000u64,
            closed in any::<bool>(),
            a_ms in 0..1000u64,
        ) {
            let layout = trace_layout();
            let start_ms = (period * P + a) * 1000 + a_ms;
            let end_ms = start_ms + len_ms;
            let (start, end) = (time(i128::from(start_ms) * NANOS_PER_MS), time(i128::from(end_ms) * NANOS_PER_MS));
            let end_bound = if closed { Included(end) } else { Excluded(end) };
            let last_ms = if closed { end_ms } else { end_ms.saturating_sub(1) };
            if !closed && len_ms == 0 {
                let got = layout.time_bounds(Included(start), end_bound);
                prop_assert!(matches!(got, Err(TimeBoundsError::Empty { .. })), "{:?}", got);
                return Ok(());
            }
            let (first_s, last_s) = (start_ms / 1000, last_ms / 1000);
            let got = layout.time_bounds(Included(start), end_bound);
            if first_s / P != last_s / P {
                let wrap = time(i128::from((first_s / P + 1) * P * 1000) * NANOS_PER_MS);
                prop_assert!(matches!(got, Err(TimeBoundsError::CrossesWrap { wrap: w, .. }) if w == wrap), "{got:?}");
                return Ok(());
            }
            let bounds = got.unwrap();
            prop_assert_eq!(layout.check(*bounds.start()), Ok(()));
            prop_assert_eq!(layout.check(*bounds.end()), Ok(()));
            // IDs issued at and around the ends, in this period and the next.
            for c in [start_ms.saturating_sub(1000), start_ms.saturating_sub(1), start_ms, last_ms, last_ms + 1, last_ms + 1000] {
                for shift in [0, P * 1000] {
                    for id in issue(c + shift) {
                        let s = (c + shift) / 1000;
                        prop_assert_eq!(second_of(id), s % P);
                        let inside = (first_s % P..=last_s % P).contains(&(s % P));
                        prop_assert_eq!(bounds.contains(&id), inside, "id {} issued at {} ms", id, c + shift);
                    }
                }
            }
        }
    }

    #[test]
    fn open_ranges_and_times_before_1970() {
        let layout = trace_layout();
        let t = UNIX_EPOCH + Duration::from_secs(53 * P + 10);
        assert!(
            matches!(layout.time_bounds(Unbounded, Excluded(t)), Err(TimeBoundsError::CrossesWrap { wrap, .. }) if wrap == UNIX_EPOCH + Duration::from_secs(P))
        );
        assert!(
            matches!(layout.time_bounds(Included(t), Unbounded), Err(TimeBoundsError::CrossesWrap { wrap, .. }) if wrap == UNIX_EPOCH + Duration::from_secs(54 * P))
        );
        let before = UNIX_EPOCH - Duration::from_secs(1);
        assert!(matches!(
            layout.time_bounds(Unbounded, Included(before)),
            Err(TimeBoundsError::BeforeEpoch { epoch, .. }) if epoch == UNIX_EPOCH
        ));
        // A whole period: every TraceId.
        let period = UNIX_EPOCH + Duration::from_secs(53 * P);
        let all = layout
            .time_bounds(Included(period), Excluded(period + Duration::from_secs(P)))
            .unwrap();
        assert_eq!(all, 1..=(i64::MAX as u64));
        let e = layout
            .time_bounds(Included(t - Duration::from_secs(20)), Excluded(t))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("crosses 2026-05-10T03:48:16.000Z, where the IDs' time wraps to 0"),
            "{e}"
        );
    }
}
