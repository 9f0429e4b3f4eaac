//! Typed errors. Every error names the value that was wrong.
use thiserror::Error;

use crate::{DecodeError, LayoutError};

/// A value that is not a valid ID (from a database, a string, JSON …).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IdError {
    /// The value is zero; IDs start at 1.
    #[error("0 is not a valid {type_name}: IDs start at 1")]
    Zero {
        /// The ID type's name.
        type_name: &'static str,
    },
    /// The value is negative.
    #[error("{value} is not a valid {type_name}: IDs are positive")]
    Negative {
        /// The ID type's name.
        type_name: &'static str,
        /// The value.
        value: i128,
    },
    /// The value is larger than the layout's largest ID.
    #[error("{value} is not a valid {type_name}: the largest is {max}")]
    TooLarge {
        /// The ID type's name.
        type_name: &'static str,
        /// The value.
        value: u128,
        /// The largest valid ID.
        max: u64,
    },
    /// The value is in range but breaks a rule of the ID type's scheme
    /// (checked by [`IdScheme::check`](crate::IdScheme::check)), such as a
    /// DecimalId whose counter is 0.
    #[error("{value} is not a valid {type_name}: {source}")]
    Field {
        /// The ID type's name.
        type_name: &'static str,
        /// The value.
        value: u64,
        /// The field that is out of its range.
        #[source]
        source: FieldOutOfRange,
    },
    /// A text form did not decode to a number.
    #[error("not a valid {type_name}: {source}")]
    Text {
        /// The ID type's name.
        type_name: &'static str,
        /// What was wrong with the text.
        #[source]
        source: DecodeError,
    },
}

/// A field of an ID outside the range its scheme allows (see
/// [`IdScheme::check`](crate::IdScheme::check)).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("its {field} is {value}, outside {min}..={max}")]
pub struct FieldOutOfRange {
    /// The field's name (`"counter"`, `"launch_id"` …).
    pub field: &'static str,
    /// The field's value in the ID.
    pub value: u64,
    /// The smallest value the scheme allows.
    pub min: u64,
    /// The largest value the scheme allows.
    pub max: u64,
}

/// An error of a scheme's own generator (a DecimalId generator's source
/// failing, a TraceId thread's counter running out …), passed on by an
/// [`IdSource`](crate::IdSource) as [`GenerateError::Scheme`].
///
/// The original error is its [`source`](std::error::Error::source) and can
/// be recovered with [`downcast_ref`](Self::downcast_ref). Two values are
/// equal when they share the same original error (clones of one another).
#[derive(Debug, Clone)]
pub struct SchemeError {
    scheme: &'static str,
    error: std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>,
}

impl SchemeError {
    /// Wraps `error` of the generator of `scheme` (a short name such as `"DecimalId"`).
    pub fn new(
        scheme: &'static str,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        SchemeError {
            scheme,
            error: std::sync::Arc::new(error),
        }
    }

    /// The scheme's name.
    pub fn scheme(&self) -> &'static str {
        self.scheme
    }

    /// The original error, if it is an `E`.
    ///
    /// ```
    /// use flakeid_core::{SchemeError, TraceIdError};
    /// let e = SchemeError::new("TraceId", TraceIdError::TooManyThreads { max_threads: 4 });
    /// assert!(matches!(e.downcast_ref::<TraceIdError>(), Some(TraceIdError::TooManyThreads { .. })));
    /// ```
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.error.downcast_ref::<E>()
    }
}

impl PartialEq for SchemeError {
    fn eq(&self, other: &Self) -> bool {
        self.scheme == other.scheme && std::sync::Arc::ptr_eq(&self.error, &other.error)
    }
}

impl Eq for SchemeError {}

impl core::fmt::Display for SchemeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "the {} generator failed: {}", self.scheme, self.error)
    }
}

impl std::error::Error for SchemeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.error)
    }
}

/// A generator could not issue an ID.
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
    /// forking, with a node ID per process (see [`fork`](crate::fork)).
    #[error(
        "this generator was built before the process forked; a forked child would repeat \
         its parent's IDs: build a new generator, with its own node ID, after fork()"
    )]
    Forked,
    /// The next ID would be stamped later than the generator's ceiling,
    /// the latest time its node source has persisted (see
    /// [`lease`](crate::lease)): the lease was lost, released or not
    /// renewed in time.
    #[error(transparent)]
    Fenced(#[from] crate::lease::Fenced),
    /// A scheme's own generator failed (see [`SchemeError`]).
    #[error(transparent)]
    Scheme(#[from] SchemeError),
    /// The generator could not be configured (process-wide generator only).
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// An invalid generator configuration (builder or environment).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The node ID does not fit the layout's node field.
    #[error("node ID {node} is out of range: the layout allows 0..={max}")]
    NodeOutOfRange {
        /// The node ID given.
        node: u64,
        /// The largest node ID the layout holds.
        max: u64,
    },
    /// The layout's epoch is later than the clock's current time.
    #[error(
        "epoch {epoch_millis} ms is in the future (clock reads {now_millis} ms since the Unix epoch)"
    )]
    EpochInFuture {
        /// The epoch, in Unix milliseconds.
        epoch_millis: u64,
        /// The clock's reading, in Unix milliseconds.
        now_millis: u64,
    },
    /// The layout's time field is already used up at start-up.
    #[error(
        "the layout's time field ran out at {end_millis} ms since the Unix epoch (clock reads {now_millis} ms)"
    )]
    LayoutExpired {
        /// First Unix millisecond the layout cannot represent.
        end_millis: u64,
        /// The clock's reading, in Unix milliseconds.
        now_millis: u64,
    },
    /// The layout's sequence field is too wide for the generator's 64-bit state.
    #[error(
        "{sequences_per_tick} sequences per tick leave no room for the tick in the generator state"
    )]
    SequenceTooWide {
        /// The layout's sequences per tick.
        sequences_per_tick: u64,
    },
    /// An environment variable has a value that cannot be used.
    #[error("{var}={value:?} is invalid: {reason}")]
    InvalidEnv {
        /// The variable's name.
        var: &'static str,
        /// The value found.
        value: String,
        /// What was expected.
        reason: String,
    },
    /// No node ID is configured and development mode is off.
    #[error(
        "FLAKEID_NODE_ID is not set; set it to this process's unique node ID (or FLAKEID_DEV_MODE=1 for a random one in development)"
    )]
    MissingNodeId,
    /// The process-wide generator is already initialised with a different configuration.
    #[error("the process-wide generator is already initialised with a different configuration")]
    AlreadyInitialized,
    /// The layout has too few sequence values per tick for the scheme.
    #[error(
        "the layout has {sequences_per_tick} sequence values per tick; this generator needs at least {needed}"
    )]
    TooFewSequences {
        /// The layout's sequences per tick.
        sequences_per_tick: u64,
        /// The least the generator needs.
        needed: u64,
    },
    /// The layout could not be built from the configuration.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// An ID type declared without a layout uses Twitter's layout, but the
    /// process-wide generator was configured with another one.
    #[error(
        "{type_name} IDs use the twitter layout but the process-wide generator was configured \
         with {configured}: declare the type with `#[flake_id(layout = ...)]` for that layout, \
         or configure the twitter layout"
    )]
    LayoutMismatch {
        /// The ID type.
        type_name: &'static str,
        /// The process-wide generator's layout.
        configured: String,
    },
    /// A DecimalId scheme's process-wide source needs the counter its
    /// generator IDs come from.
    #[error(
        "DecimalId types draw generator IDs from a counter shared by the whole system: install \
         one with flakeid_core::global::init_generator_ids(..) at start-up"
    )]
    MissingGeneratorIds,
    /// A scheme's own generator could not be built (see [`SchemeError`]).
    #[error(transparent)]
    Scheme(SchemeError),
    /// The [`Ceiling`](crate::lease::Ceiling) given to the builder already
    /// serves another generator; each generator needs its own lease.
    #[error(
        "this ceiling already serves another generator: two generators under one node lease \
         would issue the same IDs; claim a lease per generator"
    )]
    CeilingInUse,
    /// The process-wide generator stamps under a node lease of one ID
    /// space; an ID type of another scheme would use the node ID without
    /// that lease's fence.
    #[error(
        "this process's node ID is leased for {leased}: an ID type of another scheme needs a \
         lease of its own (declare it with `source = ...` returning a generator built from that \
         lease)"
    )]
    LeasedForOneLayout {
        /// The leased generator's layout.
        leased: String,
    },
}
