//! Generator policies under a manual clock: standing still, jumping ahead,
//! stepping back, running out of sequence numbers and of time.

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::layout::Layout;
use flakeid_core::layout::Parts;
use flakeid_core::layout::presets;
use flakeid_core::{
    Clock, ClockRegression, ConfigError, GenerateError, Generator, GeneratorBuilder, ManualClock,
    SequenceExhaustion,
};

const EPOCH: u64 = 1_600_000_000_000;

/// A small decimal-style layout: `id = (tick * nodes + node) * seqs + seq`.
/// Its sequence count need not be a power of two, and its time runs out soon.
#[derive(Debug, Clone, PartialEq)]
struct TinyLayout {
    seqs: u64,
    nodes: u64,
    max_tick: u64,
    tick_millis: u64,
}

impl TinyLayout {
    fn new(seqs: u64) -> Self {
        TinyLayout {
            seqs,
            nodes: 4,
            max_tick: 1_000_000_000,
            tick_millis: 1,
        }
    }

    /// The layout with its time running out after tick `max_tick`.
    fn ending_at(self, max_tick: u64) -> Self {
        TinyLayout { max_tick, ..self }
    }
}

impl Layout for TinyLayout {
    type Raw = u64;
    fn tick_millis(&self) -> u64 {
        self.tick_millis
    }
    fn epoch_millis(&self) -> u64 {
        EPOCH
    }
    fn max_tick(&self) -> u64 {
        self.max_tick
    }
    fn sequences_per_tick(&self) -> u64 {
        self.seqs
    }
    fn max_node(&self) -> u64 {
        self.nodes - 1
    }
    fn compose(&self, tick: u64, node: u64, sequence: u64) -> u64 {
        (tick * self.nodes + node) * self.seqs + sequence
    }
    fn decompose(&self, id: u64) -> Parts {
        Parts {
            tick: id / (self.nodes * self.seqs),
            node: id / self.seqs % self.nodes,
            sequence: id % self.seqs,
        }
    }
}

/// Clock at `EPOCH + tick` milliseconds.
fn clock_at(tick: u64) -> Arc<ManualClock> {
    Arc::new(ManualClock::new(EPOCH + tick))
}

fn builder(
    layout: TinyLayout,
    clock: &Arc<ManualClock>,
) -> GeneratorBuilder<TinyLayout, Arc<ManualClock>> {
    Generator::builder(layout, 1).clock(clock.clone())
}

/// Builds a generator whose first IDs may take the clock's current tick, as
/// if it had been built one tick earlier: a generator never issues IDs in
/// the tick it was built in (see `generator_guarantees.rs`).
trait BuildStarted<L: Layout> {
    fn started(self, clock: &ManualClock) -> Generator<L, Arc<ManualClock>>;
}

impl<L: Layout> BuildStarted<L> for GeneratorBuilder<L, Arc<ManualClock>> {
    fn started(self, clock: &ManualClock) -> Generator<L, Arc<ManualClock>> {
        let tick = Duration::from_millis(self.layout().tick_millis());
        clock.step_back(tick);
        let g = self.build().unwrap();
        clock.advance(tick);
        g
    }
}

type Tiny = Generator<TinyLayout, Arc<ManualClock>>;

/// A clock at `EPOCH + tick` and, on it, a generator of four IDs a tick for
/// node 1 as `configure` sets it up, started (see `BuildStarted`).
fn start(
    tick: u64,
    configure: impl FnOnce(
        GeneratorBuilder<TinyLayout, Arc<ManualClock>>,
    ) -> GeneratorBuilder<TinyLayout, Arc<ManualClock>>,
) -> (Arc<ManualClock>, Tiny) {
    start_layout(TinyLayout::new(4), tick, configure)
}

/// As `start`, of `layout`.
fn start_layout(
    layout: TinyLayout,
    tick: u64,
    configure: impl FnOnce(
        GeneratorBuilder<TinyLayout, Arc<ManualClock>>,
    ) -> GeneratorBuilder<TinyLayout, Arc<ManualClock>>,
) -> (Arc<ManualClock>, Tiny) {
    let clock = clock_at(tick);
    let g = configure(builder(layout, &clock)).started(&clock);
    (clock, g)
}

/// `n` IDs of `g`, one call each.
fn issue(g: &Tiny, n: usize) -> Vec<u64> {
    (0..n).map(|_| g.next_id().unwrap()).collect()
}

/// Running ahead of the clock by up to `max_lead`.
fn run_ahead(max_lead: Duration) -> SequenceExhaustion {
    SequenceExhaustion::RunAhead { max_lead }
}

/// Issues an ID of `g`, then steps `clock` back by `by`; returns the ID.
fn id_then_step_back(g: &Tiny, clock: &ManualClock, by: Duration) -> u64 {
    let id = g.next_id().unwrap();
    clock.step_back(by);
    id
}

/// Waiting out a clock that stepped back by up to `max`.
fn wait_back(max: Duration) -> ClockRegression {
    ClockRegression::Wait { max }
}

/// `WouldBlock` until the clock reaches tick `tick`, one millisecond away.
fn blocked_until(tick: u64) -> GenerateError {
    GenerateError::WouldBlock {
        retry_after: Duration::from_millis(1),
        until_millis: EPOCH + tick,
    }
}

fn parts(g: &Tiny, id: u64) -> (u64, u64) {
    let p = g.layout().decompose(id);
    assert_eq!(p.node, 1);
    (p.tick, p.sequence)
}

/// The tick and sequence of `g`'s next ID.
fn next_parts(g: &Tiny) -> (u64, u64) {
    parts(g, g.next_id().unwrap())
}

// ---------------------------------------------------------------------------
// Clock standing still: sequence exhaustion policies
// ---------------------------------------------------------------------------

#[test]
fn wait_policy_moves_to_next_tick_when_sequence_runs_out() {
    let (clock, g) = start(100, |b| b);
    let ids = issue(&g, 4);
    let got: Vec<_> = ids.iter().map(|&id| parts(&g, id)).collect();
    assert_eq!(got, [(100, 0), (100, 1), (100, 2), (100, 3)]);
    assert_eq!(clock.now_millis(), EPOCH + 100, "no waiting yet");

    let fifth = g.next_id().unwrap();
    assert_eq!(parts(&g, fifth), (101, 0));
    assert_eq!(clock.now_millis(), EPOCH + 101, "waited for the next tick");
    assert!(fifth > ids[3]);
}

#[test]
fn try_next_id_reports_how_long_to_wait() {
    let (clock, g) = start(100, |b| b);
    for _ in 0..4 {
        g.try_next_id().unwrap();
    }
    assert_eq!(g.try_next_id(), Err(blocked_until(101)));
    assert_eq!(clock.now_millis(), EPOCH + 100, "try_ never waits");
    clock.advance(Duration::from_millis(1));
    assert_eq!(parts(&g, g.try_next_id().unwrap()), (101, 0));
}

#[test]
fn run_ahead_issues_up_to_max_lead_then_waits() {
    let (clock, g) = start(100, |b| {
        b.sequence_exhaustion(run_ahead(Duration::from_millis(2)))
    });
    // Ticks 100, 101 and 102 without the clock moving: 12 IDs.
    let mut last = 0;
    for i in 0..12u64 {
        let id = g.try_next_id().unwrap();
        assert_eq!(parts(&g, id), (100 + i / 4, i % 4));
        assert!(id > last);
        last = id;
    }
    // Tick 103 would be 3 ms ahead: wait until the clock reads tick 101.
    assert_eq!(g.try_next_id(), Err(blocked_until(101)));
    let id = g.next_id().unwrap();
    assert_eq!(parts(&g, id), (103, 0));
    assert_eq!(clock.now_millis(), EPOCH + 101);
}

#[test]
fn run_ahead_returns_to_the_clock_when_rate_drops() {
    let (clock, g) = start(100, |b| {
        b.sequence_exhaustion(run_ahead(Duration::from_millis(5)))
    });
    issue(&g, 10);
    // Ahead at tick 102 after a saturated run. Once the clock has passed that
    // by more than the catch-up window (10 ms), IDs carry the clock's tick.
    clock.set(EPOCH + 200);
    assert_eq!(next_parts(&g), (200, 0));
}

#[test]
fn fail_policy_reports_exhausted_sequence() {
    let (clock, g) = start(100, |b| b.sequence_exhaustion(SequenceExhaustion::Fail));
    issue(&g, 4);
    assert_eq!(
        g.next_id(),
        Err(GenerateError::SequenceExhausted {
            tick: 100,
            retry_after: Duration::from_millis(1),
        })
    );
    assert_eq!(clock.now_millis(), EPOCH + 100, "Fail never waits");
    clock.advance(Duration::from_millis(1));
    assert_eq!(next_parts(&g), (101, 0));
}

#[test]
fn twitter_layout_issues_4096_ids_per_millisecond() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let g = Generator::builder(presets::twitter(), 9)
        .clock(clock.clone())
        .started(&clock);
    let mut last = 0;
    for seq in 0..4096 {
        let id = g.try_next_id().unwrap();
        let p = g.layout().decompose(id);
        assert_eq!((p.node, p.sequence), (9, seq));
        assert!(id > last);
        last = id;
    }
    assert!(matches!(
        g.try_next_id(),
        Err(GenerateError::WouldBlock { .. })
    ));
    assert!(g.next_id().unwrap() > last);
    assert_eq!(clock.now_millis(), 1_700_000_000_001);
}

// ---------------------------------------------------------------------------
// Clock jumping ahead: accurate timestamps and catch-up
// ---------------------------------------------------------------------------

#[test]
fn low_rate_caller_gets_the_clock_tick_after_a_jump() {
    let (clock, g) = start(100, |b| b.catch_up_window(Duration::from_millis(50)));
    g.next_id().unwrap();
    g.next_id().unwrap();
    clock.advance(Duration::from_millis(20));
    // The previous tick was not used up: no catch-up, straight to the clock.
    assert_eq!(next_parts(&g), (120, 0));
}

#[test]
fn saturating_caller_catches_up_within_the_window() {
    let (clock, g) = start(100, |b| b.catch_up_window(Duration::from_millis(3)));
    issue(&g, 4);
    // Tick 100 used up; the caller was descheduled while the clock moved 2 ms.
    clock.advance(Duration::from_millis(2));
    let ticks: Vec<_> = (0..12).map(|_| next_parts(&g)).collect();
    assert_eq!(ticks[0], (101, 0), "the missed tick 101 is used");
    assert_eq!(ticks[4], (102, 0));
    assert_eq!(ticks[8], (103, 0), "and the generator waits for tick 103");
    assert_eq!(clock.now_millis(), EPOCH + 103);

    // A jump longer than the window: at most 3 ms behind the clock.
    clock.set(EPOCH + 200);
    assert_eq!(ticks[11], (103, 3), "tick 103 is used up");
    assert_eq!(next_parts(&g), (197, 0));
}

#[test]
fn zero_catch_up_window_always_uses_the_clock_tick() {
    let (clock, g) = start(100, |b| b.catch_up_window(Duration::ZERO));
    issue(&g, 4);
    clock.advance(Duration::from_millis(5));
    assert_eq!(next_parts(&g), (105, 0));
}

// ---------------------------------------------------------------------------
// Clock stepping back
// ---------------------------------------------------------------------------

#[test]
fn regression_wait_waits_out_a_one_millisecond_step_back() {
    let (clock, g) = start(100, |b| {
        b.clock_regression(wait_back(Duration::from_millis(10)))
    });
    let first = id_then_step_back(&g, &clock, Duration::from_millis(1));
    assert_eq!(g.try_next_id(), Err(blocked_until(100)));
    let second = g.next_id().unwrap();
    assert!(second > first);
    assert_eq!(parts(&g, second), (100, 1));
    assert_eq!(
        clock.now_millis(),
        EPOCH + 100,
        "waited for the clock to return"
    );
}

#[test]
fn regression_wait_fails_beyond_its_bound() {
    let (clock, g) = start(20_000, |b| {
        b.clock_regression(wait_back(Duration::from_secs(1)))
    });
    let first = id_then_step_back(&g, &clock, Duration::from_secs(10));
    let expected = GenerateError::ClockRegressed {
        behind: Duration::from_secs(10),
        max_wait: Duration::from_secs(1),
    };
    assert_eq!(g.next_id(), Err(expected.clone()));
    assert_eq!(g.try_next_id(), Err(expected));
    assert_eq!(clock.now_millis(), EPOCH + 10_000, "did not wait");
    // Once time is back, IDs continue after the last one.
    clock.set(EPOCH + 20_000);
    assert!(g.next_id().unwrap() > first);
}

#[test]
fn regression_fail_reports_even_one_millisecond() {
    let (clock, g) = start(100, |b| b.clock_regression(ClockRegression::Fail));
    id_then_step_back(&g, &clock, Duration::from_millis(1));
    let expected = GenerateError::ClockRegressed {
        behind: Duration::from_millis(1),
        max_wait: Duration::ZERO,
    };
    assert_eq!(g.next_id(), Err(expected.clone()));
    assert_eq!(g.try_next_id(), Err(expected));
}

#[test]
fn run_ahead_lead_absorbs_a_small_step_back() {
    let (clock, g) = start(100, |b| {
        b.sequence_exhaustion(run_ahead(Duration::from_millis(5)))
            .clock_regression(ClockRegression::Fail)
    });
    let first = id_then_step_back(&g, &clock, Duration::from_millis(1));
    let second = g.next_id().unwrap();
    assert_eq!(parts(&g, second), (100, 1));
    assert!(second > first);
    // Ten seconds back is beyond the lead: a regression.
    clock.step_back(Duration::from_secs(10));
    assert!(matches!(
        g.next_id(),
        Err(GenerateError::ClockRegressed { .. })
    ));
}

// ---------------------------------------------------------------------------
// Tick zero, time exhaustion
// ---------------------------------------------------------------------------

#[test]
fn first_id_is_never_zero_even_at_the_epoch() {
    // Built at tick 0: IDs start at tick 1, never at (0, 0).
    let clock = clock_at(0);
    let g = builder(TinyLayout::new(4), &clock).build().unwrap();
    let id = g.next_id().unwrap();
    assert_eq!(parts(&g, id), (1, 0));
    assert_ne!(id, 0);
    assert_eq!(clock.now_millis(), EPOCH + 1);

    // Node 0 of a one-sequence layout: the first ID waits for tick 1.
    let clock = clock_at(0);
    let g = Generator::builder(TinyLayout::new(1), 0)
        .clock(clock.clone())
        .build()
        .unwrap();
    assert!(matches!(
        g.try_next_id(),
        Err(GenerateError::WouldBlock { .. })
    ));
    assert_eq!(g.next_id().unwrap(), 4);
    assert_eq!(clock.now_millis(), EPOCH + 1);

    // Twitter layout, node 0, clock at the epoch: tick 1, sequence 0.
    let clock = Arc::new(ManualClock::new(
        flakeid_core::layout::presets::twitter().epoch_millis(),
    ));
    let g = Generator::builder(presets::twitter(), 0)
        .clock(clock)
        .build()
        .unwrap();
    assert_eq!(g.next_id().unwrap(), 1 << 22);
}

#[test]
fn time_runs_out_at_max_tick_without_wrapping() {
    let layout = TinyLayout::new(4).ending_at(10);
    let (clock, g) = start_layout(layout, 10, |b| b);
    let end = EPOCH + 11;
    assert_eq!(g.end_millis(), end);
    issue(&g, 4);
    assert_eq!(
        g.next_id(),
        Err(GenerateError::TimeExhausted { end_millis: end })
    );
    assert_eq!(
        g.try_next_id(),
        Err(GenerateError::TimeExhausted { end_millis: end })
    );
    clock.advance(Duration::from_secs(1));
    assert_eq!(
        g.next_id(),
        Err(GenerateError::TimeExhausted { end_millis: end })
    );
}

#[test]
fn run_ahead_stops_at_max_tick() {
    let layout = TinyLayout::new(4).ending_at(10);
    let (_, g) = start_layout(layout, 9, |b| {
        b.sequence_exhaustion(run_ahead(Duration::from_secs(1)))
    });
    issue(&g, 8);
    assert!(matches!(
        g.next_id(),
        Err(GenerateError::TimeExhausted { .. })
    ));
}

// ---------------------------------------------------------------------------
// Batches
// ---------------------------------------------------------------------------

/// The position of `(tick, seq)` in the sequence of all IDs of a node.
fn position(g: &Tiny, id: u64) -> u64 {
    let (tick, seq) = parts(g, id);
    tick * g.layout().seqs + seq
}

#[test]
fn batch_spans_ticks_in_ascending_order() {
    let (clock, g) = start(100, |b| b);
    let single = g.next_id().unwrap(); // (100, 0)
    let batch = g.next_batch(10).unwrap();
    assert_eq!(batch.len(), 10);
    let ids: Vec<_> = batch.collect();
    assert!(ids[0] > single);
    // Consecutive positions across three ticks.
    for w in ids.windows(2) {
        assert_eq!(position(&g, w[1]), position(&g, w[0]) + 1);
    }
    let (first_tick, _) = parts(&g, ids[0]);
    let (last_tick, _) = parts(&g, ids[9]);
    assert_eq!(last_tick - first_tick, 2);
    // The policy applied to the batch's last tick: the clock waited for it,
    // and the batch ends at the clock's tick, not ahead of it.
    assert_eq!(last_tick, 102);
    assert_eq!(clock.now_millis(), EPOCH + 102);
    assert!(g.next_id().unwrap() > ids[9]);
}

#[test]
fn batch_after_idle_time_ends_at_the_clock_tick() {
    let (clock, g) = start(100, |b| b);
    g.next_id().unwrap();
    clock.advance(Duration::from_secs(1));
    // 10 IDs need three ticks: the batch uses the two ticks before the clock's
    // (the generator left them unused) instead of waiting.
    let ids: Vec<_> = g.try_next_batch(10).unwrap().collect();
    assert_eq!(parts(&g, ids[0]), (1098, 2));
    assert_eq!(parts(&g, ids[9]), (1100, 3));
    assert_eq!(clock.now_millis(), EPOCH + 1100);
}

#[test]
fn try_next_batch_would_block_and_reserves_nothing() {
    let (_, g) = start(100, |b| b);
    assert_eq!(g.try_next_batch(6).unwrap_err(), blocked_until(101));
    let ids: Vec<_> = g.try_next_batch(4).unwrap().collect();
    assert_eq!(parts(&g, ids[0]), (100, 0));
    assert_eq!(parts(&g, ids[3]), (100, 3));
}

#[test]
fn batch_with_fail_policy_and_empty_batch() {
    let (_, g) = start(100, |b| b.sequence_exhaustion(SequenceExhaustion::Fail));
    assert!(matches!(
        g.next_batch(5),
        Err(GenerateError::SequenceExhausted { tick: 100, .. })
    ));
    assert_eq!(g.next_batch(0).unwrap().count(), 0);
    assert_eq!(next_parts(&g), (100, 0));
}

#[test]
fn batch_past_max_tick_is_refused_and_reserves_nothing() {
    let layout = TinyLayout::new(4).ending_at(10);
    let (_, g) = start_layout(layout, 9, |b| b);
    // Eight IDs remain before the layout's end: a batch of nine cannot be
    // represented.
    assert_eq!(
        g.next_batch(9).unwrap_err(),
        GenerateError::BatchTooLarge {
            requested: 9,
            max: 8
        }
    );
    assert_eq!(g.next_batch(8).unwrap().count(), 8);
    assert!(matches!(
        g.next_batch(1),
        Err(GenerateError::TimeExhausted { .. })
    ));
}

#[test]
fn run_ahead_batch_within_the_lead_does_not_wait() {
    let (clock, g) = start_layout(TinyLayout::new(3), 100, |b| {
        b.sequence_exhaustion(run_ahead(Duration::from_millis(3)))
    });
    let ids: Vec<_> = g.try_next_batch(12).unwrap().collect();
    assert_eq!(parts(&g, ids[11]), (103, 2));
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(clock.now_millis(), EPOCH + 100);
}

// ---------------------------------------------------------------------------
// Builder
// ---------------------------------------------------------------------------

#[test]
fn builder_rejects_node_out_of_range() {
    let clock = clock_at(0);
    let err = Generator::builder(TinyLayout::new(4), 4)
        .clock(clock.clone())
        .build()
        .unwrap_err();
    assert_eq!(err, ConfigError::NodeOutOfRange { node: 4, max: 3 });
    assert!(err.to_string().contains('4') && err.to_string().contains("0..=3"));

    let err = Generator::builder(presets::twitter(), 1024)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        ConfigError::NodeOutOfRange {
            node: 1024,
            max: 1023
        }
    );
}

#[test]
fn builder_rejects_epoch_in_the_future() {
    let clock = Arc::new(ManualClock::new(EPOCH - 1));
    let err = builder(TinyLayout::new(4), &clock).build().unwrap_err();
    assert_eq!(
        err,
        ConfigError::EpochInFuture {
            epoch_millis: EPOCH,
            now_millis: EPOCH - 1
        }
    );
}

#[test]
fn builder_rejects_expired_layout_and_huge_sequence() {
    let layout = TinyLayout::new(4).ending_at(10);
    let clock = clock_at(11);
    assert_eq!(
        builder(layout, &clock).build().unwrap_err(),
        ConfigError::LayoutExpired {
            end_millis: EPOCH + 11,
            now_millis: EPOCH + 11
        }
    );
    let mut layout = TinyLayout::new(u64::MAX / 4);
    layout.nodes = 2;
    assert!(matches!(
        builder(layout, &clock).build().unwrap_err(),
        ConfigError::SequenceTooWide { .. }
    ));
}

#[test]
fn generator_exposes_its_configuration() {
    let clock = clock_at(0);
    let g = builder(TinyLayout::new(4), &clock)
        .catch_up_window(Duration::from_millis(7))
        .build()
        .unwrap();
    assert_eq!(g.node(), 1);
    assert_eq!(g.layout(), &TinyLayout::new(4));
    assert_eq!(g.catch_up_window(), Duration::from_millis(7));
    assert_eq!(g.sequence_exhaustion(), SequenceExhaustion::Wait);
    assert_eq!(g.clock_regression(), ClockRegression::default());
    assert!(format!("{g:?}").contains("Generator"));
}

#[test]
fn static_manual_clock_is_a_clock() {
    static CLOCK: ManualClock = ManualClock::new(EPOCH + 5);
    let g = Generator::builder(TinyLayout::new(4), 2)
        .clock(&CLOCK)
        .build()
        .unwrap();
    // Built in tick 5: the first ID waits for tick 6.
    assert_eq!(g.layout().decompose(g.next_id().unwrap()).tick, 6);
}
