//! The trace scheme; see [`TraceIdLayout`].

use core::cell::RefCell;
use core::fmt;
use core::time::Duration;
use std::ops::{Bound, RangeInclusive};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use thiserror::Error;

use flakeid_core::__private::{scheme_of, tick_span};
use flakeid_core::{Clock, MonotonicClock, TimeBoundsError};

/// TraceId: a periodically monotonic 63-bit ID for logs, traces and dumps,
/// issued from per-thread counters without any shared atomic.
///
/// From the most significant bit:
///
/// | bits | field | range | source |
/// |---|---|---|---|
/// | 1 | reserved | 0 | — |
/// | 25 | timestamp, Unix seconds mod 2^25 | 0..=33,554,431 | the clock |
/// | 16 | node_no | 0..=65,535 | the deployment (unique per process) |
/// | 22 | thread_id and counter | 1..=4,194,303 | per thread, unsynchronised |
///
/// ```text
/// trace_id = timestamp << 38 | node_no << 22 | thread_id << counter_bits | counter
/// ```
///
/// (The field table puts `node_no` at bit 22; a formula printed next to the
/// same table shifts it by 18, which would overlap the thread field. This
/// module follows the table.)
///
/// # Periodic monotonicity
///
/// The timestamp wraps every 2^25 s ≈ 388.4 days (at Unix seconds that are
/// multiples of 2^25), so IDs increase from second to second for about a
/// year and then start again near 0. Within one second, IDs of different
/// threads interleave (each thread's own IDs increase).
///
/// * **Ordering across wraps**: sort by a fully monotonic column stored next
///   to the ID (`created_at`, or a sequence number), not by the ID. To
///   recover the full time of an ID from a nearby reference (such as its
///   row's `created_at`), use [`TraceIdParts::unix_seconds_at_or_before`].
/// * **Uniqueness holds for one period**: an ID can recur 388 days later.
///   Keep the primary key unique per period — e.g. `(period, id)` with
///   `period = created_at / 2^25 s`, or partitions dropped before they are
///   a period old.
///
/// # Capacity
///
/// At construction the generator is told how many threads may use it; the
/// 22 low bits split into `thread_bits = ⌈log2 threads⌉` of thread ID and
/// `counter_bits = 22 − thread_bits` of counter, and the counter starts at
/// 1 (so no ID is 0):
///
/// ```text
/// RPS_max per thread = 2^counter_bits − 1        (32 threads: 2^17 − 1 = 131,071 IDs/s)
/// RPS_max per node   = 2^thread_bits · (2^counter_bits − 1)   (32 threads: 4,194,272 IDs/s)
/// ```
///
/// A thread that uses up its counter within a second gets
/// [`TraceIdError::CounterExhausted`] until the next second.
///
/// ```
/// use flakeid_schemes::{TraceIdGenerator, TraceIdLayout};
///
/// let generator = TraceIdGenerator::builder(7).threads(32).build()?;
/// let id = generator.next_id()?;
/// let parts = generator.layout().decompose(id)?;
/// assert_eq!(parts.node, 7);
/// assert!(parts.counter >= 1);
/// assert_eq!(TraceIdLayout::for_threads(32)?.max_counter(), 131_071);
/// # Ok::<(), flakeid_schemes::TraceIdError>(())
/// ```
///
/// How the 22 low bits split into thread ID and counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceIdLayout {
    thread_bits: u8,
}

/// The fields of a TraceId.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceIdParts {
    /// Unix seconds mod 2^25.
    pub timestamp: u32,
    /// The node number.
    pub node: u16,
    /// The thread ID within the node.
    pub thread: u32,
    /// The thread's counter within the second, from 1.
    pub counter: u32,
}

impl TraceIdParts {
    /// The latest Unix second at or before `reference_unix_seconds` whose
    /// wrapped value is this timestamp, or `None` if there is none. Given a
    /// reference within one wrap period after the ID was made (its row's
    /// `created_at`, say), this is the second the ID was made in.
    ///
    /// ```
    /// use flakeid_schemes::{TraceIdLayout, TraceIdParts};
    /// let p = TraceIdParts { timestamp: 100, node: 0, thread: 0, counter: 1 };
    /// let made = 53 * TraceIdLayout::WRAP_SECONDS + 100;
    /// assert_eq!(p.unix_seconds_at_or_before(made + 3_600), Some(made));
    /// assert_eq!(p.unix_seconds_at_or_before(99), None);
    /// ```
    pub fn unix_seconds_at_or_before(&self, reference_unix_seconds: u64) -> Option<u64> {
        let ts = u64::from(self.timestamp);
        let back = reference_unix_seconds.checked_sub(ts)? % TraceIdLayout::WRAP_SECONDS;
        Some(reference_unix_seconds - back)
    }
}

impl TraceIdLayout {
    /// The split for up to `threads` threads: `⌈log2 threads⌉` thread bits.
    ///
    /// # Errors
    /// [`TraceIdError::ThreadCountOutOfRange`] unless `1 <= threads <= 2^21`.
    ///
    /// ```
    /// use flakeid_schemes::TraceIdLayout;
    /// let l = TraceIdLayout::for_threads(20)?;
    /// assert_eq!((l.thread_bits(), l.counter_bits(), l.max_threads()), (5, 17, 32));
    /// assert_eq!(TraceIdLayout::for_threads(1)?.max_counter(), 4_194_303);
    /// # Ok::<(), flakeid_schemes::TraceIdError>(())
    /// ```
    pub fn for_threads(threads: u32) -> Result<Self, TraceIdError> {
        if !(1..=TraceIdLayout::MAX_THREADS).contains(&threads) {
            return Err(TraceIdError::ThreadCountOutOfRange {
                threads,
                max: TraceIdLayout::MAX_THREADS,
            });
        }
        let thread_bits = 32 - (threads - 1).leading_zeros();
        Ok(TraceIdLayout {
            thread_bits: thread_bits as u8,
        })
    }

    /// Bits of the thread ID.
    pub const fn thread_bits(&self) -> u32 {
        self.thread_bits as u32
    }

    /// Bits of the counter.
    pub const fn counter_bits(&self) -> u32 {
        TraceIdLayout::THREAD_AND_COUNTER_BITS - self.thread_bits()
    }

    /// Thread IDs available, `2^thread_bits`.
    pub const fn max_threads(&self) -> u32 {
        1 << self.thread_bits()
    }

    /// The largest counter, `2^counter_bits − 1`: IDs per thread per second.
    pub const fn max_counter(&self) -> u32 {
        (1 << self.counter_bits()) - 1
    }

    /// IDs per node per second with every thread ID busy.
    pub const fn capacity_per_node_per_second(&self) -> u64 {
        self.max_threads() as u64 * self.max_counter() as u64
    }

    /// The ID of `parts`.
    ///
    /// # Errors
    /// [`TraceIdError::PartOutOfRange`] for a timestamp above 2^25 − 1, a
    /// thread ID or counter that does not fit, or a counter of 0.
    ///
    /// ```
    /// use flakeid_schemes::{TraceIdLayout, TraceIdParts};
    /// let l = TraceIdLayout::for_threads(1)?;
    /// let id = l.compose(TraceIdParts { timestamp: 1, node: 1, thread: 0, counter: 1 })?;
    /// assert_eq!(id, (1 << 38) | (1 << 22) | 1);
    /// # Ok::<(), flakeid_schemes::TraceIdError>(())
    /// ```
    pub fn compose(&self, parts: TraceIdParts) -> Result<u64, TraceIdError> {
        let checks = [
            (
                "timestamp",
                u64::from(parts.timestamp),
                0,
                TraceIdLayout::TIMESTAMP_MAX,
            ),
            (
                "thread",
                u64::from(parts.thread),
                0,
                u64::from(self.max_threads() - 1),
            ),
            (
                "counter",
                u64::from(parts.counter),
                1,
                u64::from(self.max_counter()),
            ),
        ];
        for (part, value, min, max) in checks {
            if value < min || value > max {
                return Err(TraceIdError::PartOutOfRange { part, value, max });
            }
        }
        Ok(self.compose_unchecked(
            u64::from(parts.timestamp),
            parts.node,
            parts.thread,
            parts.counter,
        ))
    }

    #[inline]
    const fn compose_unchecked(&self, timestamp: u64, node: u16, thread: u32, counter: u32) -> u64 {
        (timestamp << TraceIdLayout::TIMESTAMP_SHIFT)
            | ((node as u64) << TraceIdLayout::NODE_SHIFT)
            | ((thread as u64) << self.counter_bits())
            | counter as u64
    }

    /// The parts of an ID.
    ///
    /// # Errors
    /// [`TraceIdError::InvalidId`] when the reserved top bit is set or the
    /// counter is 0.
    pub fn decompose(&self, id: u64) -> Result<TraceIdParts, TraceIdError> {
        if id >> 63 != 0 {
            return Err(TraceIdError::InvalidId {
                id,
                reason: "the reserved top bit is set",
            });
        }
        let counter = (id & u64::from(self.max_counter())) as u32;
        if counter == 0 {
            return Err(TraceIdError::InvalidId {
                id,
                reason: "its counter is 0",
            });
        }
        Ok(TraceIdParts {
            timestamp: ((id >> TraceIdLayout::TIMESTAMP_SHIFT) & TraceIdLayout::TIMESTAMP_MAX)
                as u32,
            node: ((id >> TraceIdLayout::NODE_SHIFT) & TraceIdLayout::MAX_NODE) as u16,
            thread: ((id >> self.counter_bits()) & u64::from(self.max_threads() - 1)) as u32,
            counter,
        })
    }
}

thread_local! {
    static SLOTS: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// Issues TraceIds for one node; see [`TraceIdLayout`].
///
/// Each thread that calls [`next_id`](Self::next_id) takes a thread ID on
/// its first call and then counts in thread-local state: no atomic is
/// shared between threads on the per-ID path. When a thread exits its
/// thread ID (with its last second and counter) is returned for reuse.
///
/// A generator never stamps an ID with the second in which it was built,
/// nor with a second its clock has not reached: a process restarted within
/// the same second, with the same node number, would otherwise repeat its
/// predecessor's IDs. So the first [`next_id`](Self::next_id) in that first
/// partial second waits for the next second (at most one second, once per
/// generator). The node number must be unique among running processes, a
/// process must have one generator per node number, and a forked child must
/// build its own (see [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
///
/// ```
/// use std::sync::Arc;
/// use flakeid_core::ManualClock;
/// use flakeid_schemes::{TraceIdGenerator, TraceIdLayout};
///
/// let clock = Arc::new(ManualClock::new(1_750_000_000_500));
/// let generator = TraceIdGenerator::builder(7).threads(4).clock(clock).build()?;
/// // The first call waits for the next second (a manual clock jumps there).
/// let a = generator.layout().decompose(generator.next_id()?)?;
/// let b = generator.layout().decompose(generator.next_id()?)?;
/// assert_eq!((a.node, a.counter), (7, 1));
/// assert_eq!((b.thread, b.counter), (a.thread, 2)); // this thread's counter goes on
/// assert_eq!(u64::from(a.timestamp), 1_750_000_001 % TraceIdLayout::WRAP_SECONDS);
/// # Ok::<(), flakeid_schemes::TraceIdError>(())
/// ```
pub struct TraceIdGenerator<C = MonotonicClock> {
    layout: TraceIdLayout,
    node: u16,
    clock: C,
    key: u64,
    ids: Arc<ThreadIds>,
    floor_second: u64,
    fork_tag: u64,
}

impl<C> fmt::Debug for TraceIdGenerator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceIdGenerator")
            .field("layout", &self.layout)
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

impl<C> Drop for TraceIdGenerator<C> {
    fn drop(&mut self) {
        // Lets threads drop their slots for this generator.
        self.ids.alive.store(false, Ordering::Relaxed);
    }
}

/// Configures a [`TraceIdGenerator`].
///
/// ```
/// use flakeid_schemes::{TraceIdError, TraceIdGenerator};
///
/// // 3 threads round up to 4 thread IDs; fewer threads leave more counter values each.
/// let generator = TraceIdGenerator::builder(7).threads(3).build()?;
/// assert_eq!(generator.layout().max_threads(), 4);
/// assert_eq!(generator.layout().max_counter(), 1_048_575);
/// let e = TraceIdGenerator::builder(70_000).build().unwrap_err();
/// assert_eq!(e, TraceIdError::NodeOutOfRange { node: 70_000, max: 65_535 });
/// # Ok::<(), TraceIdError>(())
/// ```
#[derive(Debug, Clone)]
pub struct TraceIdGeneratorBuilder<C> {
    node: u64,
    threads: u32,
    clock: C,
}

impl TraceIdGenerator<MonotonicClock> {
    /// Starts configuring a generator for `node` (0..=65,535), for up to 32
    /// threads unless [`threads`](TraceIdGeneratorBuilder::threads) says otherwise.
    pub fn builder(node: u64) -> TraceIdGeneratorBuilder<MonotonicClock> {
        TraceIdGeneratorBuilder {
            node,
            threads: 32,
            clock: MonotonicClock::new(),
        }
    }
}

impl<C: Clock> TraceIdGeneratorBuilder<C> {
    flakeid_core::__private::setters! {
        /// The most threads that will use the generator at once (rounded up to
        /// a power of two); fewer threads leave more counter values per thread.
        threads(threads: u32) => threads = threads;
    }

    /// Uses `clock` instead of the current one.
    pub fn clock<C2: Clock>(self, clock: C2) -> TraceIdGeneratorBuilder<C2> {
        TraceIdGeneratorBuilder {
            node: self.node,
            threads: self.threads,
            clock,
        }
    }

    /// Checks the configuration and builds the generator.
    ///
    /// # Errors
    /// [`TraceIdError::NodeOutOfRange`], [`TraceIdError::ThreadCountOutOfRange`].
    pub fn build(self) -> Result<TraceIdGenerator<C>, TraceIdError> {
        let node = u16::try_from(self.node).map_err(|_| TraceIdError::NodeOutOfRange {
            node: self.node,
            max: TraceIdLayout::MAX_NODE,
        })?;
        let layout = TraceIdLayout::for_threads(self.threads)?;
        let fork_tag = flakeid_core::__private::fork_tag();
        // The build second may hold IDs of a predecessor with this node number.
        let floor_second = self.clock.now_millis() / 1000 + 1;
        Ok(TraceIdGenerator {
            layout,
            node,
            clock: self.clock,
            key: NEXT_GENERATOR.fetch_add(1, Ordering::Relaxed),
            ids: Arc::new(ThreadIds {
                max_threads: layout.max_threads(),
                alive: AtomicBool::new(true),
                inner: Mutex::new(ThreadIdsInner::default()),
            }),
            floor_second,
            fork_tag,
        })
    }
}

impl<C: Clock> TraceIdGenerator<C> {
    /// How the low bits split; use it to decode IDs.
    pub fn layout(&self) -> TraceIdLayout {
        self.layout
    }

    /// This generator's node number.
    pub fn node(&self) -> u16 {
        self.node
    }

    /// A new ID from the calling thread's counter. The generator's first
    /// call within the second it was built in waits for the next second.
    ///
    /// # Errors
    /// [`TraceIdError::TooManyThreads`] when more threads than the layout
    /// has thread IDs use the generator at once;
    /// [`TraceIdError::CounterExhausted`] when this thread issued
    /// [`max_counter`](TraceIdLayout::max_counter) IDs in the current second;
    /// [`TraceIdError::Forked`] in a forked child of the process that built it.
    pub fn next_id(&self) -> Result<u64, TraceIdError> {
        if flakeid_core::__private::fork_current_tag() != self.fork_tag {
            return Err(TraceIdError::Forked);
        }
        let mut now_millis = self.clock.now_millis();
        if now_millis / 1000 + 1 == self.floor_second {
            // Still the build second: wait for the next one (a clock further
            // back was stepped back; the floor below keeps IDs unique then).
            self.clock
                .wait_until(self.floor_second.saturating_mul(1000));
            now_millis = self.clock.now_millis();
        }
        SLOTS.with_borrow_mut(|slots| {
            let index = match slots.iter().position(|s| s.generator == self.key) {
                Some(i) => i,
                None => {
                    // Slots of dropped generators are dead weight; drop them.
                    slots.retain(|s| s.ids.alive.load(Ordering::Relaxed));
                    let (thread, second, counter) = self.ids.acquire()?;
                    slots.push(Slot {
                        generator: self.key,
                        thread,
                        second,
                        counter,
                        ids: Arc::clone(&self.ids),
                    });
                    slots.len() - 1
                }
            };
            let slot = &mut slots[index];
            // Never earlier than this thread's last second: a clock stepping
            // back continues the last second's counter instead of repeating it.
            let second = (now_millis / 1000).max(slot.second).max(self.floor_second);
            let counter = if second == slot.second {
                slot.counter + 1
            } else {
                1
            };
            if counter > self.layout.max_counter() {
                let next = second.saturating_add(1).saturating_mul(1000);
                return Err(TraceIdError::CounterExhausted {
                    thread: slot.thread,
                    unix_second: second,
                    max_counter: self.layout.max_counter(),
                    retry_after: Duration::from_millis(next.saturating_sub(now_millis)),
                });
            }
            slot.second = second;
            slot.counter = counter;
            Ok(self.layout.compose_unchecked(
                second & TraceIdLayout::TIMESTAMP_MAX,
                self.node,
                slot.thread,
                counter,
            ))
        })
    }
}

// ---------------------------------------------------------------------------
// Scheme and source
// ---------------------------------------------------------------------------

/// `timestamp` is a field (Unix seconds mod 2^25), not a
/// [`Decoded::timestamp`](flakeid_core::Decoded::timestamp): it wraps. The counter
/// of every TraceId is at least 1.
impl flakeid_core::IdScheme for TraceIdLayout {
    /// `2^63 − 1`: only the reserved top bit is excluded.
    fn max_id(&self) -> u64 {
        i64::MAX as u64
    }

    fn check(&self, id: u64) -> Result<(), flakeid_core::FieldOutOfRange> {
        let max = self.max_counter();
        let counter = id & u64::from(max);
        if counter == 0 {
            return Err(flakeid_core::FieldOutOfRange {
                field: "counter",
                value: 0,
                min: 1,
                max: u64::from(max),
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> flakeid_core::Decoded {
        use std::borrow::Cow;
        let fields = vec![
            (
                Cow::Borrowed("timestamp"),
                (id >> TraceIdLayout::TIMESTAMP_SHIFT) & TraceIdLayout::TIMESTAMP_MAX,
            ),
            (
                Cow::Borrowed("node"),
                (id >> TraceIdLayout::NODE_SHIFT) & TraceIdLayout::MAX_NODE,
            ),
            (
                Cow::Borrowed("thread"),
                (id >> self.counter_bits()) & u64::from(self.max_threads() - 1),
            ),
            (Cow::Borrowed("counter"), id & u64::from(self.max_counter())),
        ];
        flakeid_core::Decoded::from_fields(id, None, fields)
    }

    /// Node 1, thread 0, counter 1 in the second 2025-01-01T00:00:00Z.
    fn example_id(&self) -> Option<u64> {
        let second = flakeid_core::__private::EXAMPLE_UNIX_MILLIS / 1000;
        Some(self.compose_unchecked(second & TraceIdLayout::TIMESTAMP_MAX, 1, 0, 1))
    }

    /// Bounds within one period of the wrapping seconds: from node 0,
    /// thread 0, counter 1 of the range's first second to the largest
    /// node, thread and counter of its last, both as seconds mod 2^25.
    ///
    /// The seconds wrap every 2^25 s (≈ 388.4 days), so the bounds also
    /// hold the IDs made in the same seconds of every other period: select
    /// the period with a column of its own too (`created_at`, or the
    /// `period` of a `(period, id)` key). A range whose seconds lie in two
    /// periods (it holds an instant at or after a multiple of 2^25 s and
    /// one before it, as `..t` and `t..` do) is refused with
    /// [`TimeBoundsError::CrossesWrap`] naming the wrap: split it there.
    ///
    /// ```
    /// use std::ops::Bound::{Excluded, Included};
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_core::{IdScheme, TimeBoundsError};
    /// use flakeid_schemes::TraceIdLayout;
    ///
    /// let layout = TraceIdLayout::for_threads(32)?;
    /// let second = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
    /// let wrap = 52 * TraceIdLayout::WRAP_SECONDS; // 2025-04-16T19:07:44Z
    /// let ids = layout.time_bounds(Included(second(wrap + 10)), Excluded(second(wrap + 20)))?;
    /// assert_eq!(ids, (10 << 38 | 1)..=(19 << 38 | ((1 << 38) - 1)));
    /// let e = layout.time_bounds(Included(second(wrap - 1)), Excluded(second(wrap + 1)));
    /// assert!(matches!(e, Err(TimeBoundsError::CrossesWrap { wrap: w, .. }) if w == second(wrap)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        // Unix seconds; the generator's clock stops at u64::MAX ms.
        let seconds = tick_span(0, 1000, u64::MAX / 1000 - 1, start, end)?;
        let (first, last) = seconds.into_inner();
        let period = |s: u64| s / TraceIdLayout::WRAP_SECONDS;
        if period(first) != period(last) {
            let wrap = (period(first) + 1) * TraceIdLayout::WRAP_SECONDS;
            return Err(TimeBoundsError::CrossesWrap {
                start,
                end,
                // Before the last second of the range: a representable time.
                wrap: UNIX_EPOCH + Duration::from_secs(wrap),
            });
        }
        let last_thread = self.max_threads() - 1;
        let field = |s: u64| s & TraceIdLayout::TIMESTAMP_MAX;
        let lowest = self.compose_unchecked(field(first), 0, 0, 1);
        let node = TraceIdLayout::MAX_NODE as u16;
        let highest = self.compose_unchecked(field(last), node, last_thread, self.max_counter());
        Ok(lowest..=highest)
    }
}

/// A [`TraceIdGenerator`] for the process's node ID (0..=65,535) and this
/// layout's thread count.
impl flakeid_core::GlobalScheme for TraceIdLayout {
    fn build_source(
        &self,
        config: &flakeid_core::NodeConfig,
    ) -> Result<Box<dyn flakeid_core::IdSource>, flakeid_core::ConfigError> {
        let generator = TraceIdGenerator::builder(config.node())
            .threads(self.max_threads())
            .build()
            .map_err(|e| match e {
                TraceIdError::NodeOutOfRange { node, max } => {
                    config.node_error(flakeid_core::ConfigError::NodeOutOfRange { node, max }, max)
                }
                e => {
                    flakeid_core::ConfigError::Scheme(flakeid_core::SchemeError::new("TraceId", e))
                }
            })?;
        Ok(Box::new(generator))
    }

    fn same_scheme(&self, other: &dyn flakeid_core::GlobalScheme) -> bool {
        (other as &dyn core::any::Any).downcast_ref::<Self>() == Some(self)
    }
}

scheme_of!(impl[C: Clock] TraceIdGenerator<C>, |generator| &generator.layout);

/// Waits only once, in the generator's first second (see
/// [`TraceIdGenerator`]); a thread whose counter ran out in the current
/// second gets [`GenerateError::Scheme`](flakeid_core::GenerateError::Scheme)
/// wrapping [`TraceIdError::CounterExhausted`] (with the time to retry
/// after).
///
/// An async caller ([`attempt_next_id`](flakeid_core::IdSource::attempt_next_id))
/// waits out that first second on its runtime's timer.
impl<C: Clock> flakeid_core::IdSource for TraceIdGenerator<C> {
    fn next_id(&self) -> Result<u64, flakeid_core::GenerateError> {
        TraceIdGenerator::next_id(self)
            .map_err(|e| flakeid_core::SchemeError::new("TraceId", e).into())
    }

    fn attempt_next_id(
        &self,
    ) -> Result<flakeid_core::runtime::Attempt<u64>, flakeid_core::GenerateError> {
        if self.clock.now_millis() / 1000 + 1 == self.floor_second {
            let wait = self
                .clock
                .sleep_before(self.floor_second.saturating_mul(1000));
            return Ok(flakeid_core::runtime::Attempt::Wait(
                flakeid_core::runtime::Wait::sleep(wait),
            ));
        }
        flakeid_core::IdSource::next_id(self).map(flakeid_core::runtime::Attempt::Ready)
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// A `TraceId` could not be configured, issued or decoded
/// (see [`TraceIdLayout`](crate::TraceIdLayout)).
///
/// ```
/// use flakeid_schemes::{TraceIdError, TraceIdLayout, TraceIdParts};
///
/// let e = TraceIdLayout::for_threads(0).unwrap_err();
/// assert!(matches!(e, TraceIdError::ThreadCountOutOfRange { threads: 0, .. }));
/// let layout = TraceIdLayout::for_threads(4)?; // thread IDs 0..=3
/// let e = layout.compose(TraceIdParts { timestamp: 1, node: 7, thread: 4, counter: 1 }).unwrap_err();
/// assert_eq!(e, TraceIdError::PartOutOfRange { part: "thread", value: 4, max: 3 });
/// assert_eq!(e.to_string(), "thread 4 is out of range: the largest is 3");
/// # Ok::<(), TraceIdError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TraceIdError {
    /// The expected thread count is 0 or leaves no bit for the counter.
    #[error("expected thread count {threads} is out of range: 1..={max}")]
    ThreadCountOutOfRange {
        /// The thread count given.
        threads: u32,
        /// The largest thread count.
        max: u32,
    },
    /// The node number does not fit 16 bits.
    #[error("node_no {node} is out of range: the largest is {max}")]
    NodeOutOfRange {
        /// The node number given.
        node: u64,
        /// The largest node number.
        max: u64,
    },
    /// A part does not fit its field.
    #[error("{part} {value} is out of range: the largest is {max}")]
    PartOutOfRange {
        /// `"timestamp"`, `"thread"` or `"counter"`.
        part: &'static str,
        /// The value given.
        value: u64,
        /// The field's largest value.
        max: u64,
    },
    /// More threads use the generator at once than it has thread IDs for.
    #[error("all {max_threads} thread IDs are in use; build the generator for more threads")]
    TooManyThreads {
        /// How many thread IDs the layout has.
        max_threads: u32,
    },
    /// This thread issued its last counter value of the current second.
    #[error(
        "thread {thread} used all {max_counter} counter values of second {unix_second}; retry in {retry_after:?}"
    )]
    CounterExhausted {
        /// The thread ID whose counter ran out.
        thread: u32,
        /// The Unix second (not wrapped) whose counter ran out.
        unix_second: u64,
        /// Counter values per thread per second.
        max_counter: u32,
        /// Time until the next second, by the generator's clock.
        retry_after: core::time::Duration,
    },
    /// The value is not a TraceId: its reserved top bit is set or its counter is 0.
    #[error("{id} is not a valid TraceId: {reason}")]
    InvalidId {
        /// The value.
        id: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The generator was built before this process was forked (see
    /// [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    #[error(
        "this TraceId generator was built before the process forked; a forked child would \
         repeat its parent's IDs: build a new generator, with its own node number, after fork()"
    )]
    Forked,
}

impl TraceIdLayout {
    /// Bits of the timestamp field.
    pub const TIMESTAMP_BITS: u32 = 25;

    /// Bits of the node field.
    pub const NODE_BITS: u32 = 16;

    /// Bits shared by thread ID and counter.
    pub const THREAD_AND_COUNTER_BITS: u32 = 22;

    /// Position of the node field.
    pub const NODE_SHIFT: u32 = Self::THREAD_AND_COUNTER_BITS;

    /// Position of the timestamp field.
    pub const TIMESTAMP_SHIFT: u32 = Self::NODE_SHIFT + Self::NODE_BITS;

    /// The largest timestamp, `2^25 − 1`.
    pub const TIMESTAMP_MAX: u64 = (1 << Self::TIMESTAMP_BITS) - 1;

    /// Seconds after which the timestamp wraps, `2^25` (≈ 388.4 days).
    pub const WRAP_SECONDS: u64 = 1 << Self::TIMESTAMP_BITS;

    /// The largest node number, 65,535.
    pub const MAX_NODE: u64 = (1 << Self::NODE_BITS) - 1;

    /// The largest expected thread count (leaves one counter bit).
    pub const MAX_THREADS: u32 = 1 << (Self::THREAD_AND_COUNTER_BITS - 1);
}

/// Distinguishes generators in the thread-local slots; never reused.
static NEXT_GENERATOR: AtomicU64 = AtomicU64::new(0);

/// Thread IDs of one generator; returned IDs keep their last second and
/// counter so that a thread that takes one over continues after them.
#[derive(Debug)]
struct ThreadIds {
    max_threads: u32,
    alive: AtomicBool,
    inner: Mutex<ThreadIdsInner>,
}

#[derive(Debug, Default)]
struct ThreadIdsInner {
    next: u32,
    free: Vec<(u32, u64, u32)>,
}

impl ThreadIds {
    fn acquire(&self) -> Result<(u32, u64, u32), TraceIdError> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(released) = inner.free.pop() {
            return Ok(released);
        }
        if inner.next < self.max_threads {
            inner.next += 1;
            return Ok((inner.next - 1, 0, 0));
        }
        Err(TraceIdError::TooManyThreads {
            max_threads: self.max_threads,
        })
    }

    fn release(&self, thread: u32, second: u64, counter: u32) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.free.push((thread, second, counter));
    }
}

/// One thread's state for one generator.
struct Slot {
    generator: u64,
    thread: u32,
    second: u64,
    counter: u32,
    ids: Arc<ThreadIds>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.ids.release(self.thread, self.second, self.counter);
    }
}
