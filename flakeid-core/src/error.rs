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
    /// A digit field of a decimal layout has no digits.
    #[error("the {field} field needs at least 1 digit, got 0")]
    ZeroDigits {
        /// `"time"` or `"sequence"`.
        field: &'static str,
    },
    /// A decimal layout's fields need more digits than the ID domain has.
    #[error(
        "{time} time + {sequence} sequence + {node} node digits do not fit the {domain} \
         domain (largest ID {max})"
    )]
    TooManyDigits {
        /// Digits of the time field.
        time: u32,
        /// Digits of the sequence field.
        sequence: u32,
        /// Digits of the node field.
        node: u32,
        /// The domain's name.
        domain: &'static str,
        /// The domain's largest ID.
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
    /// The value is in range but breaks a rule of the ID type's scheme
    /// (checked by [`IdSource::check`](crate::IdSource::check)), such as a
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
/// [`IdSource::check`](crate::IdSource::check)).
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
    /// A fixed-width form (base62, Crockford base32) does not have exactly
    /// its width in characters.
    #[error(
        "wrong length: expected {expected} characters, got {len}, in {encoding} string {input:?}"
    )]
    Length {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// Its length in characters.
        len: usize,
        /// The encoding's width.
        expected: usize,
    },
    /// The input has more digits than the encoding of a `u64` can have
    /// (decimal, and the lenient base62 and Crockford decoders).
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
    /// The [`Ceiling`](crate::lease::Ceiling) given to the builder already
    /// serves another generator; each generator needs its own lease.
    #[error(
        "this ceiling already serves another generator: two generators under one node lease \
         would issue the same IDs; claim a lease per generator"
    )]
    CeilingInUse,
}

/// A value that is not a valid [`Flake128`](crate::flake128::Flake128):
/// zero, a part out of range, or a text or byte form that does not decode;
/// or a [`Flake128Generator`](crate::flake128::Flake128Generator) that
/// cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Flake128Error {
    /// The value is zero; flakes start at 1.
    #[error("0 is not a valid Flake128: flakes start at 1")]
    Zero,
    /// A part given to `Flake128::from_parts` is larger than its field holds.
    #[error("Flake128 {part} {value} does not fit its field: the largest is {max}")]
    PartOutOfRange {
        /// `"worker"` or `"sequence"`.
        part: &'static str,
        /// The value given.
        value: u64,
        /// The field's largest value.
        max: u64,
    },
    /// A byte slice is not 16 bytes long.
    #[error("a Flake128 is 16 bytes, got {len}")]
    ByteLength {
        /// The slice's length.
        len: usize,
    },
    /// A text form is empty.
    #[error("empty Flake128 {form} string")]
    Empty {
        /// `"hex"` or `"decimal"`.
        form: &'static str,
    },
    /// A text form has the wrong length.
    #[error("Flake128 {form} string {input:?} is {len} characters long; expected {expected}")]
    Length {
        /// `"hex"` or `"decimal"`.
        form: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// Its length in characters.
        len: usize,
        /// The expected length (the longest accepted length for decimal).
        expected: usize,
    },
    /// A text form holds a character that is not allowed where it is.
    #[error(
        "invalid character {character:?} at position {position} in Flake128 {form} string {input:?} (expected {expected})"
    )]
    InvalidChar {
        /// `"hex"` or `"decimal"`.
        form: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// The offending character.
        character: char,
        /// Its position, counted in characters from 0.
        position: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// A decimal string has a leading zero (only the canonical form is accepted).
    #[error("Flake128 decimal string {input:?} has a leading zero")]
    LeadingZero {
        /// The input (shortened to its first 64 characters).
        input: String,
    },
    /// A decimal string is larger than `2^128 - 1`.
    #[error("Flake128 decimal string {input:?} is larger than 2^128 - 1")]
    Overflow {
        /// The input (shortened to its first 64 characters).
        input: String,
    },
    /// Another generator on this host holds the MAC-derived worker: its
    /// process holds the worker's lock.
    #[error(
        "Flake128 worker {:#014x} (MAC address {}) is in use on this host: another generator \
         holds the lock {lock_path}; two generators with one worker would issue the same \
         flakes in the same millisecond. Give each process its own worker explicitly \
         (Flake128Generator::builder().worker(..))",
        worker, crate::flake128::node::format_mac(*worker)
    )]
    WorkerInUse {
        /// The worker ID (the MAC address).
        worker: u64,
        /// The lock (a directory) another generator holds.
        lock_path: String,
    },
    /// The worker's lock could not be created, opened or locked.
    #[error(
        "cannot lock Flake128 worker {worker:#014x} with {lock_path}: {message}; \
         give the worker explicitly if this host has no usable lock directory"
    )]
    WorkerLock {
        /// The worker ID (the MAC address).
        worker: u64,
        /// The lock (a directory).
        lock_path: String,
        /// The operating system's message.
        message: String,
    },
    /// No worker ID could be derived from a MAC address.
    #[error("no Flake128 worker from a MAC address: {0}")]
    NoWorker(#[source] NodeSourceError),
    /// The generator could not be configured.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// No worker ID could be derived from the machine's network interfaces.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NodeSourceError {
    /// The interface directory could not be read.
    #[error("cannot read network interfaces in {path}: {message}")]
    Unreadable {
        /// The directory (normally `/sys/class/net`).
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// No interface other than loopback has a usable (non-zero) MAC address.
    #[error(
        "no network interface in {path} has a non-zero MAC address (loopback excluded); \
         configure the worker ID explicitly"
    )]
    NoMacAddress {
        /// The directory searched.
        path: String,
    },
    /// A MAC address is not six colon-separated hex bytes.
    #[error("{value:?} is not a MAC address (expected six colon-separated hex bytes)")]
    InvalidMac {
        /// The text that was read.
        value: String,
    },
}

/// An invalid short-key configuration, or a key or index outside it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ShortKeyError {
    /// The alphabet has fewer than two characters.
    #[error("a short-key alphabet needs at least 2 characters, got {len}")]
    AlphabetTooShort {
        /// The number of characters given.
        len: usize,
    },
    /// The alphabet holds a character that is not printable ASCII.
    #[error(
        "short-key alphabet character {character:?} at position {position} is not printable ASCII"
    )]
    AlphabetNotAscii {
        /// The offending character.
        character: char,
        /// Its position, counted in characters from 0.
        position: usize,
    },
    /// The alphabet holds a character twice.
    #[error("short-key alphabet character {character:?} appears twice")]
    AlphabetDuplicate {
        /// The repeated character.
        character: char,
    },
    /// The key length is zero, or `alphabet^length` does not fit in 64 bits.
    #[error(
        "{alphabet}^{length} short keys do not fit in 64 bits (length must be 1 or more and the count at most 2^64 - 1)"
    )]
    TooManyKeys {
        /// The alphabet's size.
        alphabet: usize,
        /// The key length.
        length: u32,
    },
    /// The step is zero, not below `n`, or shares a factor with `n`.
    #[error(
        "step {step} is not coprime to {n} (gcd {gcd}) or not in 1..{n}: keys would repeat before all {n} are used"
    )]
    StepNotCoprime {
        /// The step given.
        step: u64,
        /// The number of keys.
        n: u64,
        /// `gcd(step, n)` (`n` for a step of 0).
        gcd: u64,
    },
    /// The offset (the first key) is not below `n`.
    #[error("offset {offset} is not a key: keys are 0..{n}")]
    OffsetOutOfRange {
        /// The offset given.
        offset: u64,
        /// The number of keys.
        n: u64,
    },
    /// An index is not below `n`: the key sequence would start repeating.
    #[error("index {index} is past the last of the {n} unique keys")]
    IndexOutOfRange {
        /// The index given.
        index: u64,
        /// The number of keys.
        n: u64,
    },
    /// A key value is not below `n`.
    #[error("{key} is not a key: keys are 0..{n}")]
    KeyOutOfRange {
        /// The key given.
        key: u64,
        /// The number of keys.
        n: u64,
    },
    /// A key string has the wrong length.
    #[error("short key {input:?} is {len} characters long; expected {expected}")]
    KeyLength {
        /// The input (shortened to its first 64 characters).
        input: String,
        /// Its length in characters.
        len: usize,
        /// The configured key length.
        expected: usize,
    },
    /// A key string holds a character outside the alphabet.
    #[error("invalid character {character:?} at position {position} in short key {input:?}")]
    KeyChar {
        /// The input (shortened to its first 64 characters).
        input: String,
        /// The offending character.
        character: char,
        /// Its position, counted in characters from 0.
        position: usize,
    },
    /// A block of indices handed to the allocator is empty, too long, or reaches past `n`.
    #[error(
        "block of {len} indices starting at {start} is invalid: it must hold 1..={max_len} indices below {n}"
    )]
    InvalidBlock {
        /// The block's first index.
        start: u64,
        /// The block's length.
        len: u64,
        /// The longest block the allocator accepts.
        max_len: u64,
        /// The number of keys.
        n: u64,
    },
    /// Every index has been handed out: no key is left that was not issued before.
    #[error("all {n} short keys are used up")]
    Exhausted {
        /// The number of keys.
        n: u64,
    },
}

/// The allocator of short keys could not serve a key.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AllocError<E: std::error::Error + 'static> {
    /// The block source failed to reserve a block.
    #[error("reserving a block of short-key indices failed: {0}")]
    Refill(#[source] E),
    /// The block source handed in a block the allocator cannot use.
    #[error(transparent)]
    Key(#[from] ShortKeyError),
    /// The keys were set up before this process was forked: the child holds
    /// a copy of the parent's block (see [`GenerateError::Forked`]).
    #[error(
        "these short keys were set up before the process forked; a forked child would repeat \
         its parent's keys: set them up again after fork()"
    )]
    Forked,
}

/// A value outside a keyed permutation's domain, or an empty domain.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PermuteError {
    /// The value is 0 or larger than the domain's largest value.
    #[error("{value} is outside the permutation's domain 1..={max}")]
    OutOfDomain {
        /// The value given.
        value: u64,
        /// The domain's largest value.
        max: u64,
    },
    /// The domain's largest value is 0: the domain is empty.
    #[error("a permutation domain 1..=max needs max >= 1, got 0")]
    EmptyDomain,
}

/// A `DecimalId` could not be configured, issued or decoded
/// (see [`decimal_id`](crate::decimal_id)).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DecimalIdError {
    /// The generator was built before this process was forked (see
    /// [`GenerateError::Forked`]).
    #[error(
        "this DecimalId generator was built before the process forked; a forked child would \
         repeat its parent's IDs: build a new generator after fork()"
    )]
    Forked,
    /// Launch ID 0 is reserved for tests and was not explicitly allowed.
    #[error(
        "launch_id 0 is reserved for tests; use a launch ID in 1..=99999 (or allow_test_launch_id() in tests)"
    )]
    TestLaunchId,
    /// The launch ID does not fit its five digits.
    #[error("launch_id {launch_id} is out of range: the largest is {max}")]
    LaunchIdOutOfRange {
        /// The launch ID given.
        launch_id: u32,
        /// The largest launch ID.
        max: u32,
    },
    /// The generator ID source returned a value that does not fit five digits:
    /// the system's generator IDs are used up.
    #[error("generator_id {generator_id} is out of range: the largest is {max}")]
    GeneratorIdOutOfRange {
        /// The generator ID returned by the source.
        generator_id: u32,
        /// The largest generator ID.
        max: u32,
    },
    /// The generator ID source returned a value this generator has used
    /// already; issuing with it would repeat IDs.
    #[error("generator_id {generator_id} was returned twice by the generator ID source")]
    GeneratorIdRepeated {
        /// The repeated generator ID.
        generator_id: u32,
    },
    /// The generator ID source failed.
    #[error("the generator ID source failed: {source}")]
    Source {
        /// The source's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// A counter is outside `1..=max`.
    #[error("counter {counter} is out of range: counters are 1..={max}")]
    CounterOutOfRange {
        /// The counter.
        counter: u64,
        /// The largest counter.
        max: u64,
    },
}

/// A `TraceId` could not be configured, issued or decoded
/// (see [`trace`](crate::trace)).
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
    /// [`GenerateError::Forked`]).
    #[error(
        "this TraceId generator was built before the process forked; a forked child would \
         repeat its parent's IDs: build a new generator, with its own node number, after fork()"
    )]
    Forked,
}

/// Offset ranges that cannot be configured, or an ID outside its location's
/// range (see [`offset_range`](crate::offset_range)).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OffsetRangeError {
    /// The range size is below 2 (location 0's range `[1, size)` would be empty).
    #[error("range size {range_size} is too small: each location needs at least 2 values")]
    RangeSizeTooSmall {
        /// The range size given.
        range_size: u64,
    },
    /// `10^k` does not fit a positive BIGINT.
    #[error("range size 10^{exponent} does not fit 1..=2^63-1: the largest exponent is 18")]
    ExponentTooLarge {
        /// The exponent given.
        exponent: u32,
    },
    /// No locations were asked for.
    #[error("max_locations must be at least 1, got 0")]
    NoLocations,
    /// The last location's range would end past `2^63 − 1`.
    #[error(
        "{max_locations} locations of {range_size} values do not fit 1..=2^63-1: \
         at most {max} locations fit"
    )]
    TooManyLocations {
        /// The range size.
        range_size: u64,
        /// The number of locations given.
        max_locations: u64,
        /// How many locations of this size fit.
        max: u64,
    },
    /// The location has no range.
    #[error("location {location} is out of range: locations are 0..{max_locations}")]
    LocationOutOfRange {
        /// The location given.
        location: u64,
        /// The number of locations.
        max_locations: u64,
    },
    /// The location used up its range: the value is at or past the range's end.
    #[error("location {location} outgrew its range: {value} is not below the range's end {end}")]
    Outgrown {
        /// The location.
        location: u64,
        /// The value that does not fit (saturated at `u64::MAX`).
        value: u64,
        /// The first value past the location's range.
        end: u64,
    },
    /// The value is below the location's range (another location's ID, or 0).
    #[error("{value} is below location {location}'s range, which starts at {start}")]
    BelowRange {
        /// The location.
        location: u64,
        /// The value.
        value: u64,
        /// The first value of the location's range.
        start: u64,
    },
    /// The value is in no location's range (0, or at or past the last range's end).
    #[error("{id} is in no location's range: the ranges cover 1..{end}")]
    NotInAnyRange {
        /// The value.
        id: u64,
        /// The first value past the last location's range.
        end: u64,
    },
}
