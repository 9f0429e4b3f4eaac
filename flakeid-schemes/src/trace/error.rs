//! [`TraceIdError`]: what configuring, issuing or decoding a TraceId can
//! fail with.

use thiserror::Error;

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
