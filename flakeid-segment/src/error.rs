//! What can go wrong with a segment source.

use thiserror::Error;

/// A segment source could not be started or could not hand out a value.
///
/// Every variant names the segment row; times are Unix milliseconds by the
/// source's clock. Database errors are kept as their text, so that the
/// error can be cloned into every caller that meets it.
///
/// ```
/// use flakeid_segment::SegmentError;
///
/// let e = SegmentError::Unavailable {
///     name: "orders".into(),
///     empty_since_millis: 1_700_000_002_000,
///     requested_since_millis: 1_700_000_001_000,
///     failed_fetches: 3,
///     last_error: Some("connection refused".into()),
/// };
/// assert_eq!(
///     e.to_string(),
///     "segment \"orders\" has no value left since 1700000002000 ms: both segments are used up \
///      and the next has been fetched in vain since 1700000001000 ms (3 failed fetches, the last: \
///      connection refused); service resumes when the database answers",
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SegmentError {
    /// An option has a value that cannot work.
    #[error("segment option `{option}` = {value} is invalid: {reason}")]
    InvalidOption {
        /// The option (the `SegmentOptions` method's name).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The first segment could not be fetched when the source started.
    #[error("segment {name:?} could not start: fetching its first segment failed: {error}")]
    Start {
        /// The segment row's name.
        name: String,
        /// The store's error.
        error: String,
    },
    /// Both segments are used up and the next one has not arrived: the
    /// database is unreachable, slow or paused. Callers are refused
    /// (after waiting as the source's [`wait`](crate::SegmentOptions::wait)
    /// allows) until a fetch gets through; then service resumes by itself.
    #[error(
        "segment {name:?} has no value left since {empty_since_millis} ms: both segments are used \
         up and the next has been fetched in vain since {requested_since_millis} ms{}; service \
         resumes when the database answers",
        attempts(*failed_fetches, last_error)
    )]
    Unavailable {
        /// The segment row's name.
        name: String,
        /// When callers first found both segments used up.
        empty_since_millis: u64,
        /// When the fetch of the missing segment was asked for.
        requested_since_millis: u64,
        /// How many fetches of it failed so far (0: the first is still
        /// waiting for an answer).
        failed_fetches: u64,
        /// The last failed fetch's error, if one failed rather than hung.
        last_error: Option<String>,
    },
    /// Every value of the name up to `2^63 − 1` has been handed out (a
    /// step that no longer fits is first cut to what the row has left).
    /// Never resumes.
    #[error(
        "segment {name:?} is used up: its max_id {max_id} plus a step of {step} would pass \
         2^63 - 1, the largest ID"
    )]
    Exhausted {
        /// The segment row's name.
        name: String,
        /// The row's `max_id`.
        max_id: u64,
        /// The step that did not fit.
        step: u64,
    },
    /// The store returned a `max_id` that does not end a segment of the
    /// step asked for inside `1..=2^63 − 1` (a row changed by hand).
    #[error(
        "segment {name:?}: the store returned max_id {max_id} for a step of {step}; a segment \
         must lie within 1..=2^63 - 1"
    )]
    BadRow {
        /// The segment row's name.
        name: String,
        /// The `max_id` returned.
        max_id: i64,
        /// The step asked for.
        step: u64,
    },
    /// The source was stopped and has served every value it had fetched.
    #[error("segment {name:?} was stopped and has no value left")]
    Stopped {
        /// The segment row's name.
        name: String,
    },
    /// The source was started before this process was forked: the child
    /// holds a copy of the parent's segments (see
    /// [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    #[error(
        "segment {name:?} was started before the process forked; a forked child would repeat \
         its parent's values: start a source after fork()"
    )]
    Forked {
        /// The segment row's name.
        name: String,
    },
}

fn attempts(failed: u64, last: &Option<String>) -> String {
    match (failed, last) {
        (0, _) => " (the first fetch is still waiting for an answer)".to_owned(),
        (1, Some(e)) => format!(" (1 failed fetch: {e})"),
        (n, Some(e)) => format!(" ({n} failed fetches, the last: {e})"),
        (n, None) => format!(" ({n} failed fetches)"),
    }
}
