//! Where a generator's time comes from.
//!
//! Generators read time through the [`Clock`] trait so that tests can
//! inject a [`ManualClock`] and step it forwards and backwards.
//!
//! * [`MonotonicClock`] (the default) never runs backwards inside a
//!   process and costs one relaxed atomic load per reading.
//! * A clock of your own (the raw wall clock, a time service) implements
//!   [`Clock`] in a few lines; if it can run backwards, the generator's
//!   [`ClockRegression`](crate::ClockRegression) policy handles that.
//! * [`ManualClock`] moves only when told to; its [`Clock::wait_until`]
//!   advances it, so tests that block are deterministic.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread;

use crate::fork;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A source of wall-clock time with millisecond resolution.
///
/// Implementations must be cheap to read: a generator reads the clock once
/// per ID (more often only when it has to wait).
///
/// The raw wall clock, for deployments that want every ID to carry the
/// time as the operating system sees it (a step back makes the generator
/// wait or fail, as [`ClockRegression`](crate::ClockRegression) says):
///
/// ```
/// use std::time::{SystemTime, UNIX_EPOCH};
/// use flakeid_core::layout::presets;
/// use flakeid_core::{Clock, Generator};
///
/// struct WallClock;
///
/// impl Clock for WallClock {
///     fn now_millis(&self) -> u64 {
///         SystemTime::now()
///             .duration_since(UNIX_EPOCH)
///             .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
///     }
/// }
///
/// let generator = Generator::builder(presets::twitter(), 1).clock(WallClock).build()?;
/// assert!(generator.next_id()? > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_millis(&self) -> u64;

    /// A reading if one is at hand without extra work, else `None`; the
    /// milliseconds of [`now_millis`](Self::now_millis) plus the process's
    /// fork tag (see [`GenerateError::Forked`](crate::GenerateError::Forked)), so that a generator can tell a
    /// reading of another fork generation at no extra cost.
    ///
    /// The generator's inlined fast path calls this and, on `None`, goes to
    /// its out-of-line path, which calls [`now_millis`](Self::now_millis);
    /// so an implementation keeps its rare expensive branch (and any call)
    /// out of every caller's code. The default is
    /// `Some(self.now_millis() | fork tag)`.
    #[doc(hidden)]
    #[inline]
    fn try_tagged_now(&self) -> Option<u64> {
        Some(self.now_millis() | fork::current_tag())
    }

    /// Blocks the calling thread until `now_millis() >= target_millis`.
    ///
    /// The default sleeps for most of the remaining time and yields for the
    /// last millisecond, so it returns shortly after the target is reached.
    /// [`ManualClock`] advances itself instead of blocking.
    fn wait_until(&self, target_millis: u64) {
        loop {
            let now = self.now_millis();
            if now >= target_millis {
                return;
            }
            let remaining = target_millis - now;
            if remaining > 1 {
                thread::sleep(Duration::from_millis(remaining - 1));
            } else {
                thread::yield_now();
            }
        }
    }

    /// How long an async caller sleeps, on its runtime's timer, before
    /// `now_millis() >= target_millis`: the async twin of
    /// [`wait_until`](Self::wait_until), asked again after the sleep. The
    /// default is the difference of the target and a reading (zero once
    /// reached); [`ManualClock`] moves itself to the target and answers
    /// zero, as its `wait_until` does.
    ///
    /// ```
    /// use std::time::Duration;
    /// use flakeid_core::{Clock, ManualClock};
    ///
    /// let clock = ManualClock::new(1_000);
    /// assert_eq!(clock.sleep_before(1_005), Duration::ZERO); // it moved itself
    /// assert_eq!(clock.now_millis(), 1_005);
    /// ```
    fn sleep_before(&self, target_millis: u64) -> Duration {
        Duration::from_millis(target_millis.saturating_sub(self.now_millis()))
    }
}

/// A shared clock is a clock: every call goes to the clock it points to.
macro_rules! clock_behind_pointer {
    ($($pointer:ty),+) => {$(
        impl<C: Clock + ?Sized> Clock for $pointer {
            fn now_millis(&self) -> u64 {
                (**self).now_millis()
            }
            #[inline]
            fn try_tagged_now(&self) -> Option<u64> {
                (**self).try_tagged_now()
            }
            fn wait_until(&self, target_millis: u64) {
                (**self).wait_until(target_millis)
            }
            fn sleep_before(&self, target_millis: u64) -> Duration {
                (**self).sleep_before(target_millis)
            }
        }
    )+};
}

clock_behind_pointer!(Arc<C>, &'static C);

// ---------------------------------------------------------------------------
// MonotonicClock
// ---------------------------------------------------------------------------

/// The default clock: monotonic inside the process, anchored to wall time once.
///
/// On first use the process reads the wall clock (`SystemTime`) and a
/// monotonic [`Instant`] together; every later reading is
/// `anchor_wall + anchor_instant.elapsed()`. All `MonotonicClock` values in
/// a process share that one anchor, so readings never run backwards, across
/// threads and generators alike, even when the system time is stepped.
///
/// # Cost and accuracy
///
/// Reading `Instant::now()` costs tens of nanoseconds (more inside virtual
/// machines), several times the cost of issuing an ID. So while the clock is
/// read at a high rate, a background thread (the "ticker") publishes the
/// current millisecond into an atomic once per millisecond and a reading is
/// one atomic load. At a low rate the ticker would cost more than it saves (a
/// wake-up costs microseconds of CPU, a thousand a second), so there is none
/// and every reading computes the time itself:
///
/// * **No ticker** (the start, and whenever the clock is read at a low
///   rate): a reading costs one `Instant::now()` and an uncontended atomic
///   update or two; no background thread exists and an idle process pays
///   nothing.
/// * **Ticker**: started by the first millisecond in which the clock is read
///   at least 64 times (64,000 readings a second). It wakes about 1,000
///   times per second (a few microseconds of CPU each) and stops when a
///   16 ms period passes without a reading, or when a 3 ms trial, made every
///   256 ms, finds fewer than 64 readings in a millisecond.
/// * **Lag:** with a ticker, a reading is behind the true monotonic time by
///   less than one millisecond plus the ticker's wake-up latency (normally
///   well under a millisecond; longer on an overloaded machine). IDs are then
///   stamped a little early, never late; uniqueness never depends on it.
/// * **Steps:** after the anchor is taken the clock follows the monotonic
///   clock, which NTP slews like the wall clock but does not step: a step of
///   the system time (by hand, or NTP correcting a large offset) is not
///   followed until the process restarts.
/// * **fork():** the ticker does not survive into a child process; the
///   child's clock notices the fork and works on (see [`GenerateError::Forked`](crate::GenerateError::Forked)
///   for what generators built before the fork do).
/// * If the ticker thread cannot be spawned every reading computes the time
///   itself: slower, equally correct.
///
/// ```
/// use flakeid_core::{Clock, MonotonicClock};
///
/// let clock = MonotonicClock::new();
/// let a = clock.now_millis();
/// let b = clock.now_millis();
/// assert!(b >= a);
/// assert!(a > 1_700_000_000_000); // after November 2023
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MonotonicClock {
    // Keeps the type open to options without a breaking change.
    _private: (),
}

impl MonotonicClock {
    /// A handle to the process-wide monotonic clock.
    pub const fn new() -> Self {
        MonotonicClock { _private: () }
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn now_millis(&self) -> u64 {
        // Acquire: a generator that loads a state word and then reads the
        // clock must not see a time older than the reading that produced the
        // state (see the generator's `reserve`).
        let v = NOW.0.load(Ordering::Acquire);
        if v & FLAGS == 0 {
            return v & TIME_MASK;
        }
        slow_now(v)
    }

    #[inline]
    fn try_tagged_now(&self) -> Option<u64> {
        // The published word is already tagged with the fork generation.
        let v = NOW.0.load(Ordering::Relaxed);
        (v & FLAGS == 0).then_some(v)
    }
}

/// A clock that only moves when told to; for tests.
///
/// [`Clock::wait_until`] moves the clock forward to the target instead of
/// blocking, so tests of waiting policies are deterministic. Share one clock
/// between a generator and the test with `Arc<ManualClock>` or a
/// `&'static ManualClock`; both implement [`Clock`].
///
/// ```
/// use std::{sync::Arc, time::Duration};
/// use flakeid_core::{Clock, ManualClock};
///
/// let clock = Arc::new(ManualClock::new(1_000));
/// clock.advance(Duration::from_millis(5));
/// assert_eq!(clock.now_millis(), 1_005);
/// clock.step_back(Duration::from_millis(10));
/// assert_eq!(clock.now_millis(), 995);
/// clock.wait_until(2_000); // returns at once, the clock jumped
/// assert_eq!(clock.now_millis(), 2_000);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    millis: AtomicU64,
}

impl ManualClock {
    /// A clock reading `millis` (milliseconds since the Unix epoch).
    pub const fn new(millis: u64) -> Self {
        ManualClock {
            millis: AtomicU64::new(millis),
        }
    }

    /// Sets the time, forwards or backwards.
    pub fn set(&self, millis: u64) {
        self.millis.store(millis, Ordering::SeqCst);
    }

    /// Moves the time forward by `by` (whole milliseconds).
    pub fn advance(&self, by: Duration) {
        let by = saturating_millis(by);
        let _ = self
            .millis
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |m| {
                Some(m.saturating_add(by))
            });
    }

    /// Moves the time backward by `by` (whole milliseconds), as an NTP step would.
    pub fn step_back(&self, by: Duration) {
        let by = saturating_millis(by);
        let _ = self
            .millis
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |m| {
                Some(m.saturating_sub(by))
            });
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> u64 {
        self.millis.load(Ordering::SeqCst)
    }

    fn wait_until(&self, target_millis: u64) {
        self.millis.fetch_max(target_millis, Ordering::SeqCst);
    }

    fn sleep_before(&self, target_millis: u64) -> Duration {
        self.wait_until(target_millis);
        Duration::ZERO
    }
}

/// Set in [`NOW`] while no ticker keeps it current: readers compute the time.
const DORMANT: u64 = 1 << 63;
/// Set in [`NOW`] by the ticker once per probe period and cleared by the
/// next reader; still set at the next check means nobody read the time.
const PROBE: u64 = 1 << 62;
const FLAGS: u64 = DORMANT | PROBE;
/// The time part of [`NOW`] (below the fork tag; 2^51 ms is 71,000 years).
const TIME_MASK: u64 = (1 << fork::TAG_SHIFT) - 1;

/// Readings within one millisecond that start a ticker.
const START_READINGS: u32 = 64;
/// A ticker stops after this many milliseconds without a reading.
const PROBE_PERIOD_MS: u64 = 16;
/// How often a ticker checks that the reading rate still pays for it ...
const TRIAL_PERIOD_MS: u64 = 256;
/// ... by letting readers compute the time and count themselves for this long.
const TRIAL_MS: u64 = 3;

const TICKER_NONE: u8 = 0;
const TICKER_RUNNING: u8 = 1;

/// The published time in Unix milliseconds, tagged with the fork generation
/// (see [`GenerateError::Forked`](crate::GenerateError::Forked)), plus the [`DORMANT`] and [`PROBE`] bits. [`DORMANT`] is
/// clear only while a ticker runs, which sets it again before it stops.
static NOW: Padded<AtomicU64> = Padded(AtomicU64::new(DORMANT));
/// Whether a ticker thread runs (or is being started).
static TICKER: AtomicU8 = AtomicU8::new(TICKER_NONE);
/// Readings made while dormant since the published millisecond last moved.
static READINGS: AtomicU32 = AtomicU32::new(0);
/// Set by readers during a ticker's trial when the rate justifies it.
static DEMAND: AtomicBool = AtomicBool::new(false);
static ANCHOR: OnceLock<Anchor> = OnceLock::new();

// ---------------------------------------------------------------------------
// ManualClock
// ---------------------------------------------------------------------------

#[repr(align(128))]
struct Padded<T>(T);

#[derive(Clone, Copy)]
struct Anchor {
    instant: Instant,
    wall_millis: u64,
}

impl Anchor {
    fn take() -> Anchor {
        let instant = Instant::now();
        let wall_millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, saturating_millis);
        Anchor {
            instant,
            wall_millis,
        }
    }

    fn elapsed_millis(&self) -> u64 {
        saturating_millis(self.instant.elapsed())
    }

    fn at(&self, elapsed_millis: u64) -> u64 {
        self.wall_millis
            .saturating_add(elapsed_millis)
            .min(TIME_MASK)
    }

    fn now_millis(&self) -> u64 {
        self.at(self.elapsed_millis())
    }
}

fn saturating_millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn anchor() -> &'static Anchor {
    ANCHOR.get_or_init(|| {
        // From now on a fork is noticed and resets the clock in the child.
        fork::on_fork(after_fork);
        fork::tag();
        Anchor::take()
    })
}

/// Raises the published time to at least `fresh`, then sets the flag bits
/// in `set` and clears those in `clear` (the fork tag and other flag bits
/// are kept). Returns the published word and whether the time moved.
fn publish(fresh: u64, set: u64, clear: u64) -> (u64, bool) {
    let mut cur = NOW.0.load(Ordering::Acquire);
    loop {
        let time = (cur & TIME_MASK).max(fresh);
        let new = time | (cur & !TIME_MASK & !clear) | set;
        if new == cur {
            return (cur, false);
        }
        match NOW
            .0
            .compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => return (new, time > cur & TIME_MASK),
            Err(actual) => cur = actual,
        }
    }
}

/// A reading that found a flag bit: answer the ticker's probe, or (no
/// ticker) compute the time, publish it and count the reading.
#[cold]
#[inline(never)]
fn slow_now(seen: u64) -> u64 {
    if seen & DORMANT == 0 {
        // Only the probe: report that the time is being read.
        return NOW.0.fetch_and(!PROBE, Ordering::AcqRel) & TIME_MASK;
    }
    let (word, moved) = publish(anchor().now_millis(), 0, 0);
    if moved {
        // The first reading of a new millisecond judges the last one's rate.
        if READINGS.swap(1, Ordering::Relaxed) >= START_READINGS {
            start_ticker();
        }
    } else {
        READINGS.fetch_add(1, Ordering::Relaxed);
    }
    word & TIME_MASK
}

fn start_ticker() {
    if TICKER
        .compare_exchange(
            TICKER_NONE,
            TICKER_RUNNING,
            Ordering::AcqRel,
            Ordering::Relaxed,
        )
        .is_err()
    {
        // A ticker in its trial: tell it the rate is still high.
        DEMAND.store(true, Ordering::Relaxed);
        return;
    }
    let spawned = thread::Builder::new()
        .name("flakeid-clock".into())
        .spawn(ticker_loop);
    if spawned.is_err() {
        TICKER.store(TICKER_NONE, Ordering::Release);
    }
}

fn ticker_loop() {
    let anchor = anchor();
    let mut ticks = 0u64;
    loop {
        let elapsed = anchor.elapsed_millis();
        // Running: readers may use the published word as it is.
        let (word, _) = publish(anchor.at(elapsed), 0, DORMANT);
        ticks += 1;
        if ticks.is_multiple_of(PROBE_PERIOD_MS) {
            if word & PROBE != 0 {
                return stop_ticker();
            }
            // Ask again: the next reader clears the bit.
            publish(0, PROBE, 0);
        }
        if ticks.is_multiple_of(TRIAL_PERIOD_MS) {
            // A ticker pays for itself only at a high reading rate: let the
            // readers compute the time for a moment and count themselves.
            READINGS.store(0, Ordering::Relaxed);
            DEMAND.store(false, Ordering::Relaxed);
            publish(0, DORMANT, PROBE);
            thread::sleep(Duration::from_millis(TRIAL_MS));
            if !DEMAND.swap(false, Ordering::Relaxed) {
                return stop_ticker();
            }
            continue;
        }
        // Sleep to the next millisecond boundary of the anchor.
        let target = anchor.instant + Duration::from_millis(elapsed.saturating_add(1));
        let now = Instant::now();
        if target > now {
            thread::sleep(target - now);
        }
    }
}

/// Leaves the time to the readers, then lets a new ticker start.
fn stop_ticker() {
    publish(0, DORMANT, PROBE);
    READINGS.store(0, Ordering::Relaxed);
    TICKER.store(TICKER_NONE, Ordering::Release);
}

/// In a child process right after `fork()` (called by [`GenerateError::Forked`](crate::GenerateError::Forked)'s handler,
/// with one thread and only atomics touched): no ticker survived, so the
/// readers take over; readings carry the child's fork `tag`.
fn after_fork(tag: u64) {
    let v = NOW.0.load(Ordering::Relaxed);
    NOW.0
        .store((v & TIME_MASK) | tag | DORMANT, Ordering::Relaxed);
    TICKER.store(TICKER_NONE, Ordering::Relaxed);
    READINGS.store(0, Ordering::Relaxed);
    DEMAND.store(false, Ordering::Relaxed);
}

#[cfg(test)]
#[path = "../tests/unit/clock.rs"]
mod tests;
