//! What short keys can fail with: an invalid configuration, key or index
//! ([`ShortKeyError`]), or an allocator that could not serve a key
//! ([`AllocError`]).

use thiserror::Error;

/// An invalid short-key configuration, or a key or index outside it.
///
/// ```
/// use flakeid_segment::{Alphabet, ShortKeyConfig, ShortKeyError};
///
/// assert_eq!(Alphabet::new("a"), Err(ShortKeyError::AlphabetTooShort { len: 1 }));
/// let config = ShortKeyConfig::default(); // 6 characters of 0-9A-Za-z
/// let e = config.decode("8Xk2P").unwrap_err();
/// assert!(matches!(e, ShortKeyError::KeyLength { len: 5, expected: 6, .. }));
/// assert_eq!(e.to_string(), "short key \"8Xk2P\" is 5 characters long; expected 6");
/// ```
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
///
/// ```
/// use flakeid_segment::{AllocError, Alphabet, LocalBlocks, ShortKeyConfig, ShortKeyError, ShortKeys};
///
/// // Five keys in all, in blocks of two.
/// let config = ShortKeyConfig::new(Alphabet::new("01234")?, 1)?;
/// let keys = ShortKeys::new(config.clone(), LocalBlocks::new(&config, 2)?);
/// for _ in 0..5 {
///     keys.next_key()?;
/// }
/// let e = keys.next_key().unwrap_err();
/// assert!(matches!(e, AllocError::Refill(ShortKeyError::Exhausted { n: 5 })));
/// assert_eq!(e.to_string(), "reserving a block of short-key indices failed: all 5 short keys are used up");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// a copy of the parent's block (see [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    #[error(
        "these short keys were set up before the process forked; a forked child would repeat \
         its parent's keys: set them up again after fork()"
    )]
    Forked,
}
