//! Key bounds of time ranges (`IdScheme::time_bounds`, `FlakeId::time_bounds`)
//! for every preset and layout, checked against IDs that generators on a
//! manual clock issue at chosen times and against the smallest and largest
//! ID of each tick near the range's ends (composed from the fields). (The
//! schemes beyond bit layouts, 128-bit flakes and dense IDs are tested in
//! their crates; flakeid-schemes checks decimal layouts, random starts and
//! random keys against a copy of this oracle: keep the two alike.)
//!
//! The oracle is written apart from the implementation: an ID belongs to a
//! range when the interval of its tick, `[start, start + tick)` to the
//! nanosecond, shares an instant with the range.

use std::ops::Bound::{self, Excluded, Included, Unbounded};
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::layout::{Layout, presets};
use flakeid_core::{FlakeId, Generator, IdScheme, ManualClock, TimeBoundsError, flake_id};
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

/// Every preset (each records its IDs' full time).
fn subjects() -> Vec<Subject> {
    // Every preset, nonsequential's IDs read as a plain sequence here.
    presets::ALL
        .iter()
        .map(|(name, make)| sequence_subject(name, make(), Box::new(make())))
        .collect()
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
fn bounds_of_layouts_are_their_whole_ticks() {
    // LSID: 1 s ticks; a range within one second gives the whole second.
    let lsid = presets::lsid();
    let t = UNIX_EPOCH + Duration::from_millis(EPOCH_2024 + 5_000);
    let ids = lsid
        .time_bounds(
            Included(t + Duration::from_millis(250)),
            Excluded(t + Duration::from_millis(750)),
        )
        .unwrap();
    assert_eq!(ids, lsid.compose(5, 0, 0)..=lsid.compose(5, 65_535, 65_535));
    // Half-open on a second's edge: up to the second before; closed: that second too.
    let half = lsid
        .time_bounds(Included(t), Excluded(t + Duration::from_secs(2)))
        .unwrap();
    assert_eq!(*half.end(), lsid.compose(6, 65_535, 65_535));
    let closed = lsid
        .time_bounds(Included(t), Included(t + Duration::from_secs(2)))
        .unwrap();
    assert_eq!(*closed.end(), lsid.compose(7, 65_535, 65_535));
    // Sonyflake: 10 ms ticks, sequence above the machine.
    let sony = presets::sonyflake();
    let t = UNIX_EPOCH + Duration::from_millis(presets::sonyflake().epoch_millis() + 1_000);
    let ids = sony
        .time_bounds(Included(t), Excluded(t + Duration::from_millis(10)))
        .unwrap();
    assert_eq!(
        ids,
        sony.compose(100, 0, 0)..=sony.compose(100, 65_535, 255)
    );
    assert_eq!(*ids.end() - *ids.start(), (1 << 24) - 1);
}

#[flake_id]
struct UserId(i64);

#[flake_id(layout = presets::sonyflake)]
struct EventId(i64);

#[test]
fn id_types_take_any_range_of_times() {
    let t = UNIX_EPOCH + Duration::from_millis(1_750_000_000_000);
    let ms = Duration::from_millis(1);
    let of = |r: RangeInclusive<UserId>| (r.start().get() as u64, r.end().get() as u64);
    let twitter = presets::twitter();
    let bounds = |s, e| twitter.time_bounds(s, e).unwrap();
    let raw = |r: RangeInclusive<u64>| r.into_inner();
    assert_eq!(
        of(UserId::time_bounds(t..t + ms).unwrap()),
        raw(bounds(Included(t), Excluded(t + ms)))
    );
    assert_eq!(
        of(UserId::time_bounds(t..=t).unwrap()),
        raw(bounds(Included(t), Included(t)))
    );
    assert_eq!(
        of(UserId::time_bounds(t..).unwrap()),
        raw(bounds(Included(t), Unbounded))
    );
    assert_eq!(
        of(UserId::time_bounds(..t).unwrap()),
        raw(bounds(Unbounded, Excluded(t)))
    );
    assert_eq!(
        of(UserId::time_bounds(..=t).unwrap()),
        raw(bounds(Unbounded, Included(t)))
    );
    assert_eq!(of(UserId::time_bounds(..).unwrap()), (1, i64::MAX as u64));
    assert_eq!(
        of(UserId::time_bounds((Excluded(t), Excluded(t + ms + ms))).unwrap()),
        raw(bounds(Excluded(t), Excluded(t + ms + ms)))
    );
    assert_eq!(
        UserId::tick_bounds(t).unwrap(),
        UserId::time_bounds(t..=t).unwrap()
    );
    // The inherent forms need no trait import; the trait's are the same.
    assert_eq!(
        <EventId as FlakeId>::time_bounds(t..t + ms).unwrap(),
        EventId::tick_bounds(t).unwrap()
    );
    // An empty range names both ends.
    let e = UserId::time_bounds(t..t).unwrap_err();
    assert_eq!(
        e,
        TimeBoundsError::Empty {
            start: Included(t),
            end: Excluded(t)
        }
    );
    assert_eq!(
        e.to_string(),
        "the range from 2025-06-15T15:06:40.000Z to before 2025-06-15T15:06:40.000Z is empty"
    );
    // Past the end of Twitter's time.
    let e = UserId::time_bounds(presets::twitter().end()..).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the range starts at 2080-07-10T17:30:30.209Z, and the IDs' time runs out at \
         2080-07-10T17:30:30.209Z: no ID records a time in it"
    );
}
