//! Typed errors. Every error names the value that was wrong.
use thiserror::Error;

/// An invalid layout configuration, or parts that do not fit a layout.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// A required builder setting was never given.
    #[error("layout setting `{setting}` is required but was not set")]
    Missing {
        /// The setting's builder method (`time_bits`, `sequence_bits`, `epoch`).
        setting: &'static str,
    },
    /// The time or sequence field has no bits.
    #[error("the {field} field needs at least 1 bit, got 0")]
    ZeroBits {
        /// `"time"` or `"sequence"`.
        field: &'static str,
    },
    /// The fields need more bits than the ID domain has.
    #[error(
        "{time} time + {node} node + {sequence} sequence bits = {total} bits, \
         but the {domain} domain holds only {max} bits"
    )]
    TooManyBits {
        /// Bits of the time field.
        time: u32,
        /// Bits of the node field.
        node: u32,
        /// Bits of the sequence field.
        sequence: u32,
        /// Their sum.
        total: u32,
        /// The domain's name.
        domain: &'static str,
        /// The domain's bit width (63 or 53).
        max: u32,
    },
    /// The tick length is zero.
    #[error("the tick length must be at least 1 ms, got {tick:?}")]
    ZeroTick {
        /// The tick that was given.
        tick: core::time::Duration,
    },
    /// The tick length is not a whole number of milliseconds.
    #[error("the tick length must be a whole number of milliseconds, got {tick:?}")]
    TickNotWholeMillis {
        /// The tick that was given.
        tick: core::time::Duration,
    },
    /// The epoch is before 1970-01-01T00:00:00Z.
    #[error(
        "the epoch is {millis_before} ms before the Unix epoch; it must not be earlier than 1970-01-01T00:00:00Z"
    )]
    EpochBeforeUnixEpoch {
        /// How far before the Unix epoch, in milliseconds (rounded up).
        millis_before: u128,
    },
    /// The epoch is not a whole number of milliseconds after the Unix epoch.
    #[error(
        "the epoch must be a whole number of milliseconds after the Unix epoch, got {since_unix:?}"
    )]
    EpochNotWholeMillis {
        /// The epoch as a duration since the Unix epoch.
        since_unix: core::time::Duration,
    },
    /// The last instant the time field can express is not representable
    /// (as milliseconds in a `u64`, or as a `SystemTime` on this platform).
    #[error(
        "epoch {epoch_millis} ms + 2^{time_bits} ticks of {tick_millis} ms \
         is past the last representable time"
    )]
    TimeOverflow {
        /// The epoch, in milliseconds since the Unix epoch.
        epoch_millis: u64,
        /// The tick length in milliseconds.
        tick_millis: u64,
        /// Bits of the time field.
        time_bits: u32,
    },
    /// The named node subfields do not add up to the node field's width.
    #[error("node subfields add up to {sum} bits but the node field has {node_bits} bits")]
    NodeFieldsMismatch {
        /// Sum of the subfield widths.
        sum: u32,
        /// The node field's width.
        node_bits: u32,
    },
    /// A node subfield has zero bits.
    #[error("node subfield `{name}` has 0 bits; every subfield needs at least 1")]
    ZeroWidthNodeField {
        /// The subfield's name.
        name: String,
    },
    /// A node subfield has an empty name.
    #[error("node subfield #{index} has an empty name")]
    EmptyNodeFieldName {
        /// The subfield's position (0 = most significant).
        index: usize,
    },
    /// Two node subfields have the same name.
    #[error("node subfield name `{name}` is used twice")]
    DuplicateNodeField {
        /// The repeated name.
        name: String,
    },
    /// A part (tick, node, sequence or node subfield) is larger than its field holds.
    #[error("{part} {value} does not fit its field: the largest is {max}")]
    PartOutOfRange {
        /// Which part: `"tick"`, `"node"`, `"sequence"` or a node subfield's name.
        part: String,
        /// The value given.
        value: u64,
        /// The field's largest value.
        max: u64,
    },
    /// Node subfield values were given in the wrong number.
    #[error("the node has {expected} subfields, got {got} values")]
    NodeFieldCount {
        /// Number of declared subfields.
        expected: usize,
        /// Number of values given.
        got: usize,
    },
    /// An ID is outside the layout's range `0..=max_id`.
    #[error("ID {id} is outside this layout's range (largest ID {max})")]
    IdOutOfRange {
        /// The ID.
        id: u64,
        /// The layout's largest ID.
        max: u64,
    },
}

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

/// A text form (decimal, base62, Crockford base32) that does not decode.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input is empty.
    #[error("empty {encoding} string")]
    Empty {
        /// The encoding's name (`"decimal"`, `"base62"`, `"Crockford base32"`).
        encoding: &'static str,
    },
    /// The input holds a character outside the encoding's alphabet.
    #[error(
        "invalid character {character:?} at position {position} in {encoding} string {input:?}"
    )]
    InvalidChar {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// The offending character.
        character: char,
        /// Its position, counted in characters from 0.
        position: usize,
    },
    /// A decimal string has a leading zero (only the canonical form is accepted).
    #[error("{encoding} string {input:?} has a leading zero")]
    LeadingZero {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
    },
    /// The input has more digits than the encoding of a `u64` can have.
    #[error("{encoding} string {input:?} is {len} digits long; at most {max} are allowed")]
    TooLong {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// Its length in digits.
        len: usize,
        /// The longest accepted length.
        max: usize,
    },
    /// The input's value does not fit in 64 bits.
    #[error("{encoding} string {input:?} is larger than the largest 64-bit value")]
    Overflow {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
    },
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
    /// The layout could not be built from the configuration.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}
