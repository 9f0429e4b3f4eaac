//! The trace scheme; see [`TraceIdLayout`].

mod error;
mod generator;
mod scheme;

pub use error::TraceIdError;
pub use generator::{TraceIdGenerator, TraceIdGeneratorBuilder};

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
