//! Where a generator's time comes from.
//!
//! Generators read time through the [`Clock`] trait so that tests can
//! inject a [`ManualClock`] and step it forwards and backwards.
//!
//! * [`MonotonicClock`] (the default) never runs backwards inside a
//!   process and costs one relaxed atomic load per reading.
//! * [`SystemClock`] is the raw wall clock; it can run backwards when the
//!   system time is stepped, which the generator's
//!   [`ClockRegression`](crate::ClockRegression) policy then handles.
//! * [`ManualClock`] moves only when told to; its [`Clock::wait_until`]
//!   advances it, so tests that block are deterministic.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A source of wall-clock time with millisecond resolution.
///
/// Implementations must be cheap to read: a generator reads the clock once
/// per ID (more often only when it has to wait).
pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_millis(&self) -> u64;

    /// A reading if one is at hand without extra work, else `None`.
    ///
    /// The generator's inlined fast path calls this and, on `None`, goes to
    /// its out-of-line path, which calls [`now_millis`](Self::now_millis);
    /// so an implementation keeps its rare expensive branch (and any call)
    /// out of every caller's code. Must agree with `now_millis`. The
    /// default is `Some(self.now_millis())`.
    #[doc(hidden)]
    #[inline]
    fn try_now_millis(&self) -> Option<u64> {
        Some(self.now_millis())
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
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now_millis(&self) -> u64 {
        (**self).now_millis()
    }
    #[inline]
    fn try_now_millis(&self) -> Option<u64> {
        (**self).try_now_millis()
    }
    fn wait_until(&self, target_millis: u64) {
        (**self).wait_until(target_millis)
    }
}

impl<C: Clock + ?Sized> Clock for &'static C {
    fn now_millis(&self) -> u64 {
        (**self).now_millis()
    }
    #[inline]
    fn try_now_millis(&self) -> Option<u64> {
        (**self).try_now_millis()
    }
    fn wait_until(&self, target_millis: u64) {
        (**self).wait_until(target_millis)
    }
}

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
/// machines), several times the cost of issuing an ID, so a background thread ("ticker") publishes the current
/// millisecond into an atomic once per millisecond and
/// [`now_millis`](Clock::now_millis) is a relaxed atomic load.
///
/// * **Lag:** a reading is behind the true monotonic time by less than one
///   millisecond plus the ticker's wake-up latency (normally well under a
///   millisecond; longer on an overloaded machine). IDs are then stamped a
///   little early, never late; uniqueness never depends on it.
/// * **Drift:** after the anchor is taken the clock follows the monotonic
///   clock, not NTP steps; on a machine whose wall clock is slewed the two
///   can drift apart by the slew (a few ms per hour at most).
/// * **Ticker cost:** one thread, waking about 1,000 times per second while
///   the clock is being read (a few microseconds of CPU per wake-up, about
///   0.1–0.5 % of one core). When nothing reads the clock for 0.25–0.5 s the
///   ticker parks itself, so an idle process pays nothing; the next reading
///   computes the time directly (one `Instant::now()`) and wakes it. To
///   notice idleness without a write on every reading, the ticker sets a
///   flag bit in the published word every 0.25 s and the next reading
///   clears it.
/// * If the ticker thread cannot be spawned every reading falls back to
///   `Instant::now()`: slower, equally correct.
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
        // One relaxed load: usage is reported only when the ticker asks
        // for it (the `PROBE` bit), so the common reading writes nothing.
        let v = NOW.0.load(Ordering::Relaxed);
        if v & FLAGS == 0 {
            return v;
        }
        slow_now(v)
    }

    #[inline]
    fn try_now_millis(&self) -> Option<u64> {
        let v = NOW.0.load(Ordering::Relaxed);
        (v & FLAGS == 0).then_some(v)
    }
}

/// Set in [`NOW`] while no ticker keeps it current (not started yet, or parked).
const DORMANT: u64 = 1 << 63;
/// Set in [`NOW`] by the ticker once per idle-check period and cleared by the
/// next reader; still set at the next check means nobody read the time.
const PROBE: u64 = 1 << 62;
const FLAGS: u64 = DORMANT | PROBE;
/// How many ticker periods without a reading before the ticker parks.
const IDLE_CHECK_TICKS: u64 = 256;

const TICKER_AWAKE: u8 = 0;
const TICKER_PARKED: u8 = 1;

#[repr(align(128))]
struct Padded<T>(T);

/// The published time, in Unix milliseconds, plus the [`DORMANT`] and [`PROBE`] bits.
static NOW: Padded<AtomicU64> = Padded(AtomicU64::new(DORMANT));
static TICKER: OnceLock<Ticker> = OnceLock::new();

struct Ticker {
    anchor: Anchor,
    state: AtomicU8,
    thread: Option<Thread>,
}

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

    fn now_millis(&self) -> u64 {
        self.wall_millis
            .saturating_add(self.elapsed_millis())
            .min(PROBE - 1)
    }
}

fn saturating_millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn ticker() -> &'static Ticker {
    TICKER.get_or_init(|| {
        let anchor = Anchor::take();
        let thread = thread::Builder::new()
            .name("flakeid-clock".into())
            .spawn(ticker_loop)
            .ok()
            .map(|h| h.thread().clone());
        Ticker {
            anchor,
            state: AtomicU8::new(TICKER_AWAKE),
            thread,
        }
    })
}

/// Raises the published time to at least `fresh`, then sets the flag bits
/// in `set` and clears those in `clear` (other flag bits are kept).
/// Returns the published word.
fn publish(fresh: u64, set: u64, clear: u64) -> u64 {
    let mut cur = NOW.0.load(Ordering::Relaxed);
    loop {
        let time = (cur & !FLAGS).max(fresh);
        let new = time | ((cur & FLAGS & !clear) | set);
        match NOW
            .0
            .compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed)
        {
            Ok(_) => return new,
            Err(actual) => cur = actual,
        }
    }
}

/// A reading that found a flag bit: answer the ticker's probe, or (dormant)
/// compute the time directly and wake the ticker.
#[cold]
#[inline(never)]
fn slow_now(seen: u64) -> u64 {
    if seen & DORMANT == 0 {
        // Only the probe: report that the time is being read.
        return NOW.0.fetch_and(!PROBE, Ordering::Relaxed) & !FLAGS;
    }
    let t = ticker();
    let time = publish(t.anchor.now_millis(), 0, PROBE) & !FLAGS;
    if t.state.swap(TICKER_AWAKE, Ordering::AcqRel) == TICKER_PARKED
        && let Some(thread) = &t.thread
    {
        thread.unpark();
    }
    time
}

fn ticker_loop() {
    // `TICKER` is being initialised by the thread that spawned us; wait for it.
    let t = loop {
        if let Some(t) = TICKER.get() {
            break t;
        }
        thread::sleep(Duration::from_micros(100));
    };
    let mut since_check = 0u64;
    loop {
        let elapsed = t.anchor.elapsed_millis();
        let word = publish(t.anchor.now_millis(), 0, DORMANT);
        since_check += 1;
        if since_check >= IDLE_CHECK_TICKS {
            since_check = 0;
            if word & PROBE != 0 {
                // Nobody read the time for a whole period: park until a reader
                // finds the dormant bit and wakes us.
                t.state.store(TICKER_PARKED, Ordering::SeqCst);
                publish(t.anchor.now_millis(), DORMANT, PROBE);
                while t.state.load(Ordering::SeqCst) == TICKER_PARKED {
                    thread::park();
                }
                continue;
            }
            // Ask again: the next reader clears the bit.
            publish(0, PROBE, 0);
        }
        // Sleep to the next millisecond boundary of the anchor.
        let target = t.anchor.instant + Duration::from_millis(elapsed.saturating_add(1));
        let now = Instant::now();
        if target > now {
            thread::sleep(target - now);
        }
    }
}

// ---------------------------------------------------------------------------
// SystemClock
// ---------------------------------------------------------------------------

/// The raw wall clock (`SystemTime::now()`); runs backwards when the system
/// time is stepped back.
///
/// Prefer [`MonotonicClock`]. This clock exists for deployments that want
/// every ID to carry the wall-clock time as the operating system sees it,
/// accepting that a backwards step makes the generator wait or fail (see
/// [`ClockRegression`](crate::ClockRegression)).
///
/// ```
/// use flakeid_core::{Clock, clock::SystemClock};
///
/// assert!(SystemClock.now_millis() > 1_700_000_000_000);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, saturating_millis)
    }
}

// ---------------------------------------------------------------------------
// ManualClock
// ---------------------------------------------------------------------------

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_clock_is_close_to_wall_time() {
        let wall = SystemClock.now_millis();
        let mono = MonotonicClock::new().now_millis();
        // Anchored to wall time; generous bound for a loaded machine.
        assert!(mono.abs_diff(wall) < 60_000, "mono {mono} wall {wall}");
    }

    #[test]
    fn monotonic_clock_never_goes_back() {
        let clock = MonotonicClock::new();
        let mut last = clock.now_millis();
        for _ in 0..100_000 {
            let now = clock.now_millis();
            assert!(now >= last);
            last = now;
        }
    }

    #[test]
    fn readings_answer_the_probe_and_carry_no_flag_bits() {
        let clock = MonotonicClock::new();
        let before = clock.now_millis();
        // As the ticker does once per idle-check period.
        publish(0, PROBE, 0);
        let after = clock.now_millis();
        assert!(after >= before && after & FLAGS == 0, "{before} {after}");
        if let Some(fast) = clock.try_now_millis() {
            assert!(fast >= after && fast & FLAGS == 0, "{after} {fast}");
        }
        assert!(clock.now_millis() >= after);
    }

    #[test]
    fn monotonic_wait_until_reaches_target() {
        let clock = MonotonicClock::new();
        let target = clock.now_millis() + 3;
        clock.wait_until(target);
        assert!(clock.now_millis() >= target);
    }

    #[test]
    fn manual_wait_until_never_moves_back() {
        let clock = ManualClock::new(50);
        clock.wait_until(10);
        assert_eq!(clock.now_millis(), 50);
    }
}
