//! What flakeid tells operators: metrics through the [`metrics`] facade
//! (feature `metrics`) and `tracing` events of the generator.
//!
//! # Metrics
//!
//! With the feature `metrics`, generators record through the `metrics`
//! facade; install a recorder (an exporter such as
//! `metrics-exporter-prometheus`) in the application. flakeid installs
//! none, and with no recorder installed nothing is recorded. Handles are
//! registered when a generator is built, so install the recorder before
//! building one (before the first `UserId::generate()` for the
//! process-wide generators). Node leases and segments record metrics of
//! their own, listed in the `flakeid-lease` and `flakeid-segment` crates
//! (their feature `metrics`).
//!
//! | name | kind | labels | meaning |
//! |---|---|---|---|
//! | `flakeid_ids_issued_total` | counter | `node` | IDs a generator issued; counted per tick, when the generator enters its next tick (so it lags by the IDs of the current tick), and the last tick's when the generator stops on its node (a release, or a move off a lost lease's node) |
//! | `flakeid_waits_total` | counter | `node`, `cause` | times a generator waited (blocking, or an async task's timer/signal) before it could issue; `cause`: `sequence` (a tick's sequence used up, or a batch reserved ahead of the clock), `first_tick` (the tick the generator was built in), `clock_regression`, `lease_ceiling` |
//! | `flakeid_clock_regressions_total` | counter | `node` | the clock found behind the last issued tick (counted once per step back, not per caller: stepping back again before the generator reaches a new tick counts again) |
//!
//! Labels are chosen for few series: `node` is the node IDs a process
//! held (one, or a few after its lease moved it to another node), `cause`
//! one of four.
//!
//! The hot path records nothing: issued IDs are counted when a tick is
//! entered, and waits and regressions are rare. See BENCHMARKS.md for the
//! cost measured by `--bin compare`.
//!
//! # `tracing` events of the generator
//!
//! On the target [`GENERATOR_TARGET`] (`flakeid::generator`), at `WARN`:
//! * a wait longer than [`wait_event_threshold`] (default
//!   [`DEFAULT_WAIT_EVENT_THRESHOLD`], 50 ms), with `node`, `cause` and
//!   `wait_ms` (the wait foreseen; for the lease ceiling, the longest wait
//!   the policy allows, once per ceiling value);
//! * the clock stepped back (`behind_ms`, once per step back);
//! * the clock stepped forward: between two ticks the generator entered,
//!   the clock advanced more than [`CLOCK_JUMP_THRESHOLD`] beyond the time
//!   that passed on the monotonic clock (`jump_ms`).
//!
//! ```
//! use std::time::Duration;
//! use flakeid_core::telemetry;
//!
//! telemetry::set_wait_event_threshold(Duration::from_millis(200));
//! assert_eq!(telemetry::wait_event_threshold(), Duration::from_millis(200));
//! ```

pub(crate) mod handles;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use handles::Counter;

/// Where the generator's `tracing` events go.
pub const GENERATOR_TARGET: &str = "flakeid::generator";

/// The wait above which the generator logs an event, unless set with
/// [`set_wait_event_threshold`].
pub const DEFAULT_WAIT_EVENT_THRESHOLD: Duration = Duration::from_millis(50);

/// How far the clock may move ahead of the monotonic clock between two
/// ticks a generator entered before it logs a forward step.
pub const CLOCK_JUMP_THRESHOLD: Duration = Duration::from_secs(1);

/// Sets, for the whole process, the wait above which a generator logs an
/// event (see the [module](self) docs).
///
/// ```
/// use std::time::Duration;
/// flakeid_core::telemetry::set_wait_event_threshold(Duration::from_millis(20));
/// ```
pub fn set_wait_event_threshold(threshold: Duration) {
    WAIT_EVENT_THRESHOLD_MS.store(
        u64::try_from(threshold.as_millis()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
}

/// The wait above which a generator logs an event.
///
/// ```
/// use flakeid_core::telemetry;
/// assert!(telemetry::wait_event_threshold() > std::time::Duration::ZERO);
/// ```
pub fn wait_event_threshold() -> Duration {
    Duration::from_millis(WAIT_EVENT_THRESHOLD_MS.load(Ordering::Relaxed))
}

/// Why a generator or segment waited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitCause {
    Sequence,
    FirstTick,
    ClockRegression,
    LeaseCeiling,
}

impl WaitCause {
    const ALL: [WaitCause; 4] = [
        WaitCause::Sequence,
        WaitCause::FirstTick,
        WaitCause::ClockRegression,
        WaitCause::LeaseCeiling,
    ];

    fn label(self) -> &'static str {
        match self {
            WaitCause::Sequence => "sequence",
            WaitCause::FirstTick => "first_tick",
            WaitCause::ClockRegression => "clock_regression",
            WaitCause::LeaseCeiling => "lease_ceiling",
        }
    }
}

/// What a generator records: its metrics, and what it needs to notice
/// clock steps and to count issued IDs per tick.
#[derive(Debug)]
pub(crate) struct GeneratorTelemetry {
    node: u64,
    /// The linear position (`tick * sequences + sequence`) of the initial
    /// state: IDs issued = position of the state − `base` − `skipped`.
    base: u64,
    /// Positions passed over when entering ticks (never issued).
    skipped: AtomicU64,
    /// IDs counted so far.
    reported: AtomicU64,
    /// 1 + the tick a regression was last reported for (0: none).
    regression: AtomicU64,
    /// The lowest clock reading seen in that regression: a reading below
    /// it is the clock stepping back again.
    regression_low: AtomicU64,
    /// The ceiling a wait was last reported for.
    ceiling_reported: AtomicU64,
    /// Clock reading and monotonic milliseconds since `origin` when a tick
    /// was last entered.
    wall: AtomicU64,
    mono: AtomicU64,
    origin: Instant,
    issued: Counter,
    waits: [Counter; 4],
    regressions: Counter,
}

impl GeneratorTelemetry {
    pub(crate) fn new(node: u64) -> Self {
        let node_label = node.to_string();
        let l = [("node", node_label.as_str())];
        GeneratorTelemetry {
            node,
            base: 0,
            skipped: AtomicU64::new(0),
            reported: AtomicU64::new(0),
            regression: AtomicU64::new(0),
            regression_low: AtomicU64::new(u64::MAX),
            ceiling_reported: AtomicU64::new(0),
            wall: AtomicU64::new(0),
            mono: AtomicU64::new(0),
            origin: Instant::now(),
            issued: Counter::new("flakeid_ids_issued_total", &l),
            waits: WaitCause::ALL.map(|c| {
                Counter::new(
                    "flakeid_waits_total",
                    &[("node", node_label.as_str()), ("cause", c.label())],
                )
            }),
            regressions: Counter::new("flakeid_clock_regressions_total", &l),
        }
    }

    /// Starts counting from the generator's initial state (its linear
    /// position `base`), the clock at `now_millis`.
    pub(crate) fn start(&mut self, base: u64, now_millis: u64) {
        self.base = base;
        self.wall = AtomicU64::new(now_millis);
        self.origin = Instant::now();
    }

    /// A reservation moved the state from position `last` to a new tick,
    /// its first ID at position `start`, with the clock at `now_millis`.
    #[cold]
    pub(crate) fn entered_tick(&self, last: u64, start: u64, now_millis: u64) {
        let skipped = self.skipped.load(Ordering::Relaxed);
        let issued = last.saturating_sub(self.base).saturating_sub(skipped);
        self.skipped.fetch_add(
            start.saturating_sub(last).saturating_sub(1),
            Ordering::Relaxed,
        );
        let before = self.reported.fetch_max(issued, Ordering::Relaxed);
        if issued > before {
            self.issued.increment(issued - before);
        }
        self.check_step(now_millis);
    }

    /// The generator was sealed with its last issued ID at position
    /// `last`: the IDs of its last tick, which no later tick will count,
    /// are counted now.
    #[cold]
    pub(crate) fn sealed(&self, last: u64) {
        let skipped = self.skipped.load(Ordering::Relaxed);
        let issued = last.saturating_sub(self.base).saturating_sub(skipped);
        let before = self.reported.fetch_max(issued, Ordering::Relaxed);
        if issued > before {
            self.issued.increment(issued - before);
        }
    }

    fn check_step(&self, now_millis: u64) {
        let mono = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last_wall = self.wall.swap(now_millis, Ordering::Relaxed);
        let last_mono = self.mono.swap(mono, Ordering::Relaxed);
        let wall_passed = now_millis.saturating_sub(last_wall);
        let mono_passed = mono.saturating_sub(last_mono);
        let jump = wall_passed.saturating_sub(mono_passed);
        if jump > u64::try_from(CLOCK_JUMP_THRESHOLD.as_millis()).unwrap_or(u64::MAX) {
            tracing::warn!(
                target: GENERATOR_TARGET,
                node = self.node,
                jump_ms = jump,
                now_millis,
                "clock stepped forward: IDs are stamped with the new time"
            );
        }
    }

    /// The clock was found `behind_ms` behind the last issued tick, which
    /// ends at `until_tick`. Counted once per step back: a caller that finds
    /// the same regression (the same tick, the clock at or above the lowest
    /// reading seen in it) counts nothing; the clock found lower again, or
    /// behind a later tick, is a new step back. (A caller held up between
    /// reading the clock and getting here can bring a reading older than
    /// another caller's: it is counted as a step back, rarely.)
    #[cold]
    pub(crate) fn regressed(&self, until_tick: u64, behind_ms: u64, now_millis: u64) {
        let key = until_tick.saturating_add(1);
        let new_tick = self.regression.swap(key, Ordering::Relaxed) != key;
        let lowest = if new_tick {
            self.regression_low.swap(now_millis, Ordering::Relaxed);
            u64::MAX
        } else {
            self.regression_low.fetch_min(now_millis, Ordering::Relaxed)
        };
        if new_tick || now_millis < lowest {
            self.regressions.increment(1);
            tracing::warn!(
                target: GENERATOR_TARGET,
                node = self.node,
                behind_ms,
                now_millis,
                "clock stepped back: the generator waits for it or fails, as its clock regression policy says"
            );
        }
        // The monotonic reference restarts from the stepped clock.
        self.wall.store(now_millis, Ordering::Relaxed);
        self.mono.store(
            u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// A caller waits for `cause`, for `wait` (for the lease ceiling: at
    /// most `wait`, for the ceiling `ceiling_millis`).
    #[cold]
    pub(crate) fn waiting(&self, cause: WaitCause, wait: Duration, ceiling_millis: u64) {
        self.waits[cause as usize].increment(1);
        if wait <= wait_event_threshold() {
            return;
        }
        if cause == WaitCause::LeaseCeiling
            && self
                .ceiling_reported
                .swap(ceiling_millis, Ordering::Relaxed)
                == ceiling_millis
        {
            return;
        }
        tracing::warn!(
            target: GENERATOR_TARGET,
            node = self.node,
            cause = cause.label(),
            wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
            "generator waiting before it can issue"
        );
    }
}

static WAIT_EVENT_THRESHOLD_MS: AtomicU64 = AtomicU64::new(50);
