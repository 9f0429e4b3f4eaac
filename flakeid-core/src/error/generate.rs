//! What can stop a source from issuing an ID.

use thiserror::Error;

use super::{ConfigError, Fenced, SchemeError};

/// A generator could not issue an ID.
///
/// ```
/// use std::{sync::Arc, time::Duration};
/// use flakeid_core::layout::presets;
/// use flakeid_core::{GenerateError, Generator, ManualClock};
///
/// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
/// let generator = Generator::builder(presets::twitter(), 1).clock(clock.clone()).build()?;
/// // No ID in the tick the generator was built in, and `try_` does not wait.
/// match generator.try_next_id() {
///     Err(GenerateError::WouldBlock { retry_after, .. }) => assert!(retry_after <= Duration::from_millis(1)),
///     other => panic!("expected WouldBlock, got {other:?}"),
/// }
/// clock.advance(Duration::from_millis(1));
/// assert!(generator.try_next_id().is_ok());
/// # Ok::<(), flakeid_core::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// A non-blocking call (`try_next_id`, `try_next_batch`) would have had
    /// to wait for the clock; retry after `retry_after`.
    #[error(
        "no ID available without waiting; retry in {retry_after:?} (until clock reads {until_millis} ms)"
    )]
    WouldBlock {
        /// How long until an ID (or the batch) can be issued, by the generator's clock.
        retry_after: core::time::Duration,
        /// The clock reading (Unix ms) the generator waits for.
        until_millis: u64,
    },
    /// The current tick's sequence is used up and the
    /// [`SequenceExhaustion::Fail`](crate::SequenceExhaustion::Fail) policy forbids waiting.
    #[error("sequence exhausted in tick {tick}; the next tick starts in {retry_after:?}")]
    SequenceExhausted {
        /// The tick (since the layout's epoch) whose sequence ran out.
        tick: u64,
        /// How long until the next usable tick, by the generator's clock.
        retry_after: core::time::Duration,
    },
    /// The clock is behind the last issued ID by more than the generator may
    /// wait or run ahead (see [`ClockRegression`](crate::ClockRegression)).
    #[error(
        "clock moved backwards: it is {behind:?} behind the last issued ID (allowed wait {max_wait:?})"
    )]
    ClockRegressed {
        /// How far the clock is behind the last issued tick.
        behind: core::time::Duration,
        /// The longest wait the policy allows (zero for `Fail`).
        max_wait: core::time::Duration,
    },
    /// The layout's time field is used up: no ID can be issued at or after
    /// `end_millis` (Unix ms); a layout with a later epoch or more time bits is needed.
    #[error("the layout's time field ran out at {end_millis} ms since the Unix epoch")]
    TimeExhausted {
        /// First Unix millisecond the layout cannot represent.
        end_millis: u64,
    },
    /// A batch larger than one call may reserve: more than
    /// [`Generator::max_batch_len`](crate::Generator::max_batch_len) (a
    /// minute of the layout's full rate), or more than remain before the
    /// layout's end. Nothing was reserved.
    #[error(
        "a batch of {requested} IDs is more than one call can reserve (at most {max}); \
         reserve it in smaller batches"
    )]
    BatchTooLarge {
        /// The length asked for.
        requested: u64,
        /// The most IDs a call could reserve now.
        max: u64,
    },
    /// The generator was built before this process was forked: the child
    /// holds a copy of its state and node ID, so issuing from it could
    /// repeat IDs of the parent or of other children. Build generators after
    /// forking, with a node ID per process (see [`GenerateError::Forked`](crate::GenerateError::Forked)).
    #[error(
        "this generator was built before the process forked; a forked child would repeat \
         its parent's IDs: build a new generator, with its own node ID, after fork()"
    )]
    Forked,
    /// The next ID would be stamped later than the generator's ceiling,
    /// the latest time its node source has persisted (see
    /// [`node`](crate::node)): the lease was lost, released or not renewed
    /// in time (node leases: the `flakeid-lease` crate).
    #[error(transparent)]
    Fenced(#[from] Fenced),
    /// A scheme's own generator failed (see [`SchemeError`]).
    #[error(transparent)]
    Scheme(#[from] SchemeError),
    /// The generator could not be configured (process-wide generator only).
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// An ID type could not generate an ID: which type asked, and why. What
/// [`FlakeId::generate`](crate::FlakeId::generate), `try_generate` and
/// `generate_many` (and the inherent methods `#[flake_id]` writes) return,
/// so that a log line or `fn main() -> Result<…>` names the type.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::{flake_id, ConfigError, GenerateError, Generator};
///
/// // A source that is not set up yet.
/// fn user_ids() -> Result<&'static Generator, ConfigError> {
///     Err(ConfigError::MissingNodeId)
/// }
///
/// #[flake_id(layout = presets::twitter, source = user_ids)]
/// pub struct UserId(i64);
///
/// let e = UserId::generate().unwrap_err();
/// assert_eq!(e.id_type, "UserId");
/// assert!(e.to_string().starts_with("cannot generate an ID of type UserId: "));
/// assert!(matches!(e.error, GenerateError::Config(ConfigError::MissingNodeId)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot generate an ID of type {id_type}: {error}")]
#[non_exhaustive]
pub struct IdGenerateError {
    /// The ID type's name ([`FlakeId::NAME`](crate::FlakeId::NAME)).
    pub id_type: &'static str,
    /// Why its source issued no ID (part of this error's message).
    pub error: GenerateError,
}

impl IdGenerateError {
    /// `error`, for the ID type `id_type`.
    pub(crate) fn new(id_type: &'static str, error: GenerateError) -> Self {
        IdGenerateError { id_type, error }
    }
}
