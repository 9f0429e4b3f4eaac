//! The short keys scheme; see [`ShortKeys`].

use core::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::cursor::{Cursor, NO_TRIGGER, Take};
use flakeid_core::__private::excerpt;

/// A validated alphabet: 2 to 95 distinct printable ASCII characters.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Alphabet {
    chars: Vec<u8>,
    /// Digit value of each ASCII byte, or `u8::MAX` for bytes not in the alphabet.
    values: [u8; 128],
}

impl Alphabet {
    /// Validates `chars` as an alphabet (digit values in the given order).
    ///
    /// # Errors
    /// [`ShortKeyError::AlphabetTooShort`], [`ShortKeyError::AlphabetNotAscii`]
    /// (control characters and spaces included) or
    /// [`ShortKeyError::AlphabetDuplicate`].
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyError};
    /// assert_eq!(Alphabet::new("0123456789abcdef")?.len(), 16);
    /// assert_eq!(Alphabet::new("abca"), Err(ShortKeyError::AlphabetDuplicate { character: 'a' }));
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn new(chars: &str) -> Result<Self, ShortKeyError> {
        let mut values = [u8::MAX; 128];
        let mut bytes = Vec::with_capacity(chars.len());
        for (position, c) in chars.chars().enumerate() {
            if !c.is_ascii_graphic() {
                return Err(ShortKeyError::AlphabetNotAscii {
                    character: c,
                    position,
                });
            }
            let b = c as u8;
            if values[usize::from(b)] != u8::MAX {
                return Err(ShortKeyError::AlphabetDuplicate { character: c });
            }
            // At most 94 graphic ASCII characters, so the position fits a u8.
            values[usize::from(b)] = position as u8;
            bytes.push(b);
        }
        if bytes.len() < 2 {
            return Err(ShortKeyError::AlphabetTooShort { len: bytes.len() });
        }
        Ok(Alphabet {
            chars: bytes,
            values,
        })
    }

    /// `0-9A-Za-z`.
    pub fn base62() -> Self {
        match Alphabet::new(Alphabet::BASE62) {
            Ok(a) => a,
            Err(_) => unreachable!("Alphabet::BASE62 is a valid alphabet"),
        }
    }

    /// The number of characters (the base).
    pub fn len(&self) -> usize {
        self.chars.len()
    }

    /// Always `false`: an alphabet has at least two characters.
    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The characters, in digit order.
    pub fn as_str(&self) -> &str {
        // Only ASCII bytes were stored.
        core::str::from_utf8(&self.chars).unwrap_or_default()
    }
}

impl fmt::Debug for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Alphabet").field(&self.as_str()).finish()
    }
}

/// Everything that fixes a key sequence: alphabet, length, step and offset.
///
/// **Never change a configuration in use**: keys from a different
/// configuration are a different sequence and may repeat earlier ones.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShortKeyConfig {
    alphabet: Alphabet,
    length: u32,
    n: u64,
    step: u64,
    /// `step⁻¹ mod n`, for [`index_of`](Self::index_of).
    inverse: u64,
    offset: u64,
}

impl Default for ShortKeyConfig {
    /// Six characters of `0-9A-Za-z` (`n = 62^6`), step
    /// `67·71·73·79·83·89 mod 62^6 = 32,251,436,801`, offset 0.
    fn default() -> Self {
        match ShortKeyConfig::new(Alphabet::base62(), ShortKeyConfig::DEFAULT_LENGTH) {
            Ok(c) => c,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }
}

impl ShortKeyConfig {
    /// Keys of `length` characters of `alphabet`, with the default step
    /// ([`ShortKeyConfig::DEFAULT_STEP`] reduced modulo `n`) and offset 0.
    ///
    /// # Errors
    /// [`ShortKeyError::TooManyKeys`] when `length` is 0 or
    /// `alphabet.len()^length` exceeds `u64::MAX`;
    /// [`ShortKeyError::StepNotCoprime`] when the default step shares a
    /// factor with `n` (alphabets whose size has a prime factor in
    /// 67, 71, 73, 79, 83, 89: choose a step with [`with_step`](Self::with_step)).
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyConfig};
    /// let config = ShortKeyConfig::new(Alphabet::base62(), 7)?;
    /// assert_eq!(config.n(), 3_521_614_606_208);
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn new(alphabet: Alphabet, length: u32) -> Result<Self, ShortKeyError> {
        Self::build(alphabet, length, None)
    }

    /// Keys of `length` characters of `alphabet` with step `k` and offset 0.
    ///
    /// # Errors
    /// [`ShortKeyError::TooManyKeys`] as for [`new`](Self::new);
    /// [`ShortKeyError::StepNotCoprime`] unless `1 <= k < n` and `gcd(k, n) = 1`.
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyConfig, ShortKeyError};
    /// // 67 characters: the default step is a multiple of 67, so pick one.
    /// let alphabet = Alphabet::new(&(b'!'..b'!' + 67).map(char::from).collect::<String>())?;
    /// assert!(matches!(ShortKeyConfig::new(alphabet.clone(), 4), Err(ShortKeyError::StepNotCoprime { .. })));
    /// let config = ShortKeyConfig::with_alphabet_and_step(alphabet, 4, 1_000_003)?;
    /// assert_eq!(config.step(), 1_000_003);
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn with_alphabet_and_step(
        alphabet: Alphabet,
        length: u32,
        k: u64,
    ) -> Result<Self, ShortKeyError> {
        Self::build(alphabet, length, Some(k))
    }

    fn build(alphabet: Alphabet, length: u32, step: Option<u64>) -> Result<Self, ShortKeyError> {
        let too_many = ShortKeyError::TooManyKeys {
            alphabet: alphabet.len(),
            length,
        };
        if length == 0 {
            return Err(too_many);
        }
        let n = (alphabet.len() as u64)
            .checked_pow(length)
            .ok_or(too_many)?;
        let mut config = ShortKeyConfig {
            alphabet,
            length,
            n,
            step: 1,
            inverse: 1,
            offset: 0,
        };
        config.set_step(step.unwrap_or(ShortKeyConfig::DEFAULT_STEP % n))?;
        Ok(config)
    }

    /// Uses step `k` instead of the default.
    ///
    /// # Errors
    /// [`ShortKeyError::StepNotCoprime`] unless `1 <= k < n` and `gcd(k, n) = 1`.
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyConfig, ShortKeyError};
    /// // n = 5 (one character of a 5-letter alphabet), k = 3.
    /// let five = ShortKeyConfig::new(Alphabet::new("01234")?, 1)?.with_step(3)?;
    /// let keys: Vec<u64> = (0..5).map(|i| five.key_at(i)).collect::<Result<_, _>>()?;
    /// assert_eq!(keys, [0, 3, 1, 4, 2]);
    /// assert!(five.key_at(5).is_err()); // the sixth key would repeat the first
    /// assert!(matches!(
    ///     ShortKeyConfig::default().with_step(62),
    ///     Err(ShortKeyError::StepNotCoprime { gcd: 62, .. })
    /// ));
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn with_step(mut self, k: u64) -> Result<Self, ShortKeyError> {
        self.set_step(k)?;
        Ok(self)
    }

    fn set_step(&mut self, k: u64) -> Result<(), ShortKeyError> {
        let n = self.n;
        let g = gcd(k, n);
        if k == 0 || k >= n || g != 1 {
            // n = 1 (one key) admits no step in 1..n; that case never reaches
            // here because an alphabet has at least 2 characters.
            return Err(ShortKeyError::StepNotCoprime {
                step: k,
                n,
                gcd: if k == 0 { n } else { g },
            });
        }
        self.step = k;
        self.inverse = mod_inverse(k, n);
        Ok(())
    }

    /// Starts the sequence at key `offset` instead of 0 (`key(0) = offset`).
    ///
    /// # Errors
    /// [`ShortKeyError::OffsetOutOfRange`] unless `offset < n`.
    pub fn with_offset(mut self, offset: u64) -> Result<Self, ShortKeyError> {
        if offset >= self.n {
            return Err(ShortKeyError::OffsetOutOfRange { offset, n: self.n });
        }
        self.offset = offset;
        Ok(self)
    }

    /// The number of distinct keys: `alphabet.len()^length`.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The step `k`.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The first key, `key(0)`.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The key length in characters.
    pub fn length(&self) -> u32 {
        self.length
    }

    /// The alphabet.
    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    /// The key at sequence position `index`: `(offset + index·k) mod n`.
    ///
    /// # Errors
    /// [`ShortKeyError::IndexOutOfRange`] for `index >= n`: from there on the
    /// keys repeat.
    ///
    /// ```
    /// use flakeid_segment::ShortKeyConfig;
    /// let config = ShortKeyConfig::default();
    /// assert_eq!(config.key_at(0)?, 0);
    /// assert_eq!(config.key_at(1)?, 32_251_436_801);
    /// assert!(config.key_at(config.n()).is_err());
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn key_at(&self, index: u64) -> Result<u64, ShortKeyError> {
        if index >= self.n {
            return Err(ShortKeyError::IndexOutOfRange { index, n: self.n });
        }
        let n = u128::from(self.n);
        let key = (u128::from(self.offset) + u128::from(index) * u128::from(self.step)) % n;
        // Below n, which is a u64.
        Ok(key as u64)
    }

    /// The sequence position of `key`: the inverse of [`key_at`](Self::key_at).
    ///
    /// # Errors
    /// [`ShortKeyError::KeyOutOfRange`] for `key >= n`.
    ///
    /// ```
    /// use flakeid_segment::ShortKeyConfig;
    /// let config = ShortKeyConfig::default();
    /// let key = config.key_at(123_456)?;
    /// assert_eq!(config.index_of(key)?, 123_456);
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn index_of(&self, key: u64) -> Result<u64, ShortKeyError> {
        if key >= self.n {
            return Err(ShortKeyError::KeyOutOfRange { key, n: self.n });
        }
        let n = u128::from(self.n);
        let diff = (u128::from(key) + n - u128::from(self.offset)) % n;
        Ok((diff * u128::from(self.inverse) % n) as u64)
    }

    /// Renders `key` as exactly [`length`](Self::length) characters.
    ///
    /// # Errors
    /// [`ShortKeyError::KeyOutOfRange`] for `key >= n`.
    ///
    /// ```
    /// use flakeid_segment::ShortKeyConfig;
    /// let config = ShortKeyConfig::default();
    /// assert_eq!(config.encode(0)?, "000000");
    /// assert_eq!(config.encode(61)?, "00000z");
    /// assert_eq!(config.encode(config.n() - 1)?, "zzzzzz");
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn encode(&self, key: u64) -> Result<String, ShortKeyError> {
        if key >= self.n {
            return Err(ShortKeyError::KeyOutOfRange { key, n: self.n });
        }
        let base = self.alphabet.len() as u64;
        let mut out = vec![0u8; self.length as usize];
        let mut v = key;
        for slot in out.iter_mut().rev() {
            *slot = self.alphabet.chars[(v % base) as usize];
            v /= base;
        }
        Ok(out.into_iter().map(char::from).collect())
    }

    /// Parses a key of exactly [`length`](Self::length) alphabet characters.
    ///
    /// # Errors
    /// [`ShortKeyError::KeyLength`] or [`ShortKeyError::KeyChar`] naming the input.
    ///
    /// ```
    /// use flakeid_segment::{ShortKeyConfig, ShortKeyError};
    /// let config = ShortKeyConfig::default();
    /// assert_eq!(config.decode("00000z")?, 61);
    /// assert!(matches!(config.decode("00000"), Err(ShortKeyError::KeyLength { len: 5, .. })));
    /// assert!(matches!(config.decode("0000-0"), Err(ShortKeyError::KeyChar { character: '-', position: 4, .. })));
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn decode(&self, text: &str) -> Result<u64, ShortKeyError> {
        let len = text.chars().count();
        if len != self.length as usize {
            return Err(ShortKeyError::KeyLength {
                input: excerpt(text),
                len,
                expected: self.length as usize,
            });
        }
        let base = self.alphabet.len() as u64;
        let mut v: u64 = 0;
        for (position, c) in text.chars().enumerate() {
            let d = u8::try_from(c)
                .ok()
                .and_then(|b| self.alphabet.values.get(usize::from(b)).copied())
                .filter(|&d| d != u8::MAX)
                .ok_or_else(|| ShortKeyError::KeyChar {
                    input: excerpt(text),
                    character: c,
                    position,
                })?;
            // length digits of base `base` are below n <= u64::MAX: no overflow.
            v = v * base + u64::from(d);
        }
        Ok(v)
    }
}

/// A range of sequence indices `start..start + len` reserved for one process.
///
/// ```
/// use flakeid_segment::{Block, BlockAllocator, LocalBlocks, ShortKeyConfig};
///
/// let blocks = LocalBlocks::new(&ShortKeyConfig::default(), 1_000)?;
/// assert_eq!(blocks.refill()?, Block { start: 0, len: 1_000 });
/// assert_eq!(blocks.refill()?, Block { start: 1_000, len: 1_000 });
/// # Ok::<(), flakeid_segment::ShortKeyError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block {
    /// The first index.
    pub start: u64,
    /// How many indices.
    pub len: u64,
}

/// Hands out blocks of indices that no other process (and no earlier call)
/// ever receives — typically by advancing a one-row counter table inside a
/// serializable transaction.
///
/// [`ShortKeys`] calls [`refill`](Self::refill) when its current block is
/// used up, from one thread at a time.
///
/// ```
/// use std::sync::Mutex;
/// use flakeid_segment::{Block, BlockAllocator, ShortKeyConfig, ShortKeys};
///
/// /// Blocks of 100 from a counter row; a mutex stands in for the database's transaction.
/// struct CounterRow(Mutex<u64>);
///
/// impl BlockAllocator for CounterRow {
///     type Error = std::convert::Infallible;
///     fn refill(&self) -> Result<Block, Self::Error> {
///         let mut next = self.0.lock().unwrap();
///         let block = Block { start: *next, len: 100 };
///         *next += 100;
///         Ok(block)
///     }
/// }
///
/// let config = ShortKeyConfig::default();
/// let keys = ShortKeys::new(config.clone(), CounterRow(Mutex::new(500)));
/// assert_eq!(config.index_of(keys.next_key()?)?, 500);
/// assert_eq!(*keys.allocator().0.lock().unwrap(), 600); // one block reserved
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait BlockAllocator: Send + Sync {
    /// The allocator's error (a database error, for instance).
    type Error: std::error::Error + Send + Sync + 'static;

    /// Reserves the next block of indices. Blocks must not overlap any block
    /// handed out before, in this or any other process.
    ///
    /// # Errors
    /// Whatever prevents the reservation.
    fn refill(&self) -> Result<Block, Self::Error>;
}

/// An in-process [`BlockAllocator`]: consecutive blocks of a fixed length
/// from an atomic counter. Unique within one process only (and only for
/// one `LocalBlocks` value); across processes use a database-backed allocator.
///
/// ```
/// use flakeid_segment::{Alphabet, Block, BlockAllocator, LocalBlocks, ShortKeyConfig, ShortKeyError};
///
/// // Ten keys, blocks of three from index 2: the last block stops at the tenth.
/// let config = ShortKeyConfig::new(Alphabet::new("0123456789")?, 1)?;
/// let blocks = LocalBlocks::starting_at(&config, 2, 3)?;
/// assert_eq!(blocks.refill()?, Block { start: 2, len: 3 });
/// assert_eq!(blocks.refill()?, Block { start: 5, len: 3 });
/// assert_eq!(blocks.refill()?, Block { start: 8, len: 2 });
/// assert_eq!(blocks.refill(), Err(ShortKeyError::Exhausted { n: 10 }));
/// assert!(matches!(LocalBlocks::new(&config, 0), Err(ShortKeyError::InvalidBlock { len: 0, .. })));
/// # Ok::<(), ShortKeyError>(())
/// ```
#[derive(Debug)]
pub struct LocalBlocks {
    next: AtomicU64,
    block_len: u64,
    n: u64,
}

impl LocalBlocks {
    /// Blocks of `block_len` indices for `config`, starting at index 0.
    ///
    /// # Errors
    /// [`ShortKeyError::InvalidBlock`] when `block_len` is 0 or above [`ShortKeyConfig::MAX_BLOCK_LEN`].
    pub fn new(config: &ShortKeyConfig, block_len: u64) -> Result<Self, ShortKeyError> {
        Self::starting_at(config, 0, block_len)
    }

    /// Like [`new`](Self::new), with the first block starting at index `start`.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn starting_at(
        config: &ShortKeyConfig,
        start: u64,
        block_len: u64,
    ) -> Result<Self, ShortKeyError> {
        if block_len == 0 || block_len > ShortKeyConfig::MAX_BLOCK_LEN {
            return Err(ShortKeyError::InvalidBlock {
                start,
                len: block_len,
                max_len: ShortKeyConfig::MAX_BLOCK_LEN,
                n: config.n,
            });
        }
        Ok(LocalBlocks {
            next: AtomicU64::new(start),
            block_len,
            n: config.n,
        })
    }
}

impl BlockAllocator for LocalBlocks {
    type Error = ShortKeyError;

    fn refill(&self) -> Result<Block, ShortKeyError> {
        let (n, len) = (self.n, self.block_len);
        let start = self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                (s < n).then(|| s.saturating_add(len).min(n))
            })
            .map_err(|_| ShortKeyError::Exhausted { n })?;
        Ok(Block {
            start,
            len: len.min(n - start),
        })
    }
}

/// Where [`ShortKeys`] takes its sequence indices from, each handed out
/// once: a [`BlockAllocator`]'s blocks served by [`Blocks`], or the values
/// of a [`SegmentIds`](crate::SegmentIds) source (index = value − 1),
/// double-buffered from a database row.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use flakeid_segment::{AllocError, Alphabet, IndexSource, ShortKeyConfig, ShortKeyError, ShortKeys};
///
/// /// Indices 0, 1, 2, … from memory, for one process.
/// struct Counter(AtomicU64);
///
/// impl IndexSource for Counter {
///     type Error = std::convert::Infallible;
///     fn next_index(&self, n: u64) -> Result<u64, AllocError<Self::Error>> {
///         let index = self.0.fetch_add(1, Ordering::Relaxed);
///         if index >= n {
///             return Err(ShortKeyError::Exhausted { n }.into());
///         }
///         Ok(index)
///     }
/// }
///
/// // Five keys, step 3: every key once, in a scrambled order.
/// let config = ShortKeyConfig::new(Alphabet::new("01234")?, 1)?.with_step(3)?;
/// let keys = ShortKeys::with_source(config, Counter(AtomicU64::new(0)));
/// let all: Vec<String> = (0..5).map(|_| keys.next_key_string()).collect::<Result<_, _>>()?;
/// assert_eq!(all, ["0", "3", "1", "4", "2"]);
/// assert!(keys.next_key().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait IndexSource: Send + Sync {
    /// What can go wrong when taking an index.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The next index below `n` (the number of keys); an index at or past
    /// `n` is reported as [`ShortKeyError::Exhausted`] or
    /// [`ShortKeyError::InvalidBlock`].
    ///
    /// # Errors
    /// The source's error as [`AllocError::Refill`], or
    /// [`AllocError::Key`].
    fn next_index(&self, n: u64) -> Result<u64, AllocError<Self::Error>>;
}

/// A [`BlockAllocator`]'s blocks, served index by index without a lock.
///
/// Taking an index is one compare-and-swap on a state word holding the
/// current block's generation and the position within it; the block itself
/// sits in a seqlock-protected slot. When the block is used up one thread
/// calls [`BlockAllocator::refill`] (under a mutex, as the refill usually
/// talks to a database) while the others wait for it.
///
/// ```
/// use flakeid_segment::{BlockAllocator, Blocks, IndexSource, LocalBlocks, ShortKeyConfig};
///
/// let config = ShortKeyConfig::default();
/// let blocks = Blocks::new(LocalBlocks::new(&config, 2)?);
/// let indices: Vec<u64> = (0..5).map(|_| blocks.next_index(config.n())).collect::<Result<_, _>>()?;
/// assert_eq!(indices, [0, 1, 2, 3, 4]);
/// // Three blocks of two were reserved; the allocator's next block starts at 6.
/// assert_eq!(blocks.allocator().refill()?.start, 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Blocks<A> {
    allocator: A,
    cursor: Cursor,
    refill_lock: Mutex<()>,
}

impl<A: fmt::Debug> fmt::Debug for Blocks<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blocks")
            .field("allocator", &self.allocator)
            .finish_non_exhaustive()
    }
}

impl<A: BlockAllocator> Blocks<A> {
    /// Indices from `allocator`'s blocks; none is reserved until the first
    /// is asked for.
    pub fn new(allocator: A) -> Self {
        Blocks {
            allocator,
            cursor: Cursor::new(),
            refill_lock: Mutex::new(()),
        }
    }

    /// The block allocator.
    pub fn allocator(&self) -> &A {
        &self.allocator
    }

    #[cold]
    fn refill(&self, seen: u64, n: u64) -> Result<(), AllocError<A::Error>> {
        // A poisoned lock only means another refill panicked; the state is
        // consistent between refills, so carry on.
        let _guard = self
            .refill_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.cursor.state() != seen {
            return Ok(()); // another thread refilled meanwhile
        }
        let block = self.allocator.refill().map_err(AllocError::Refill)?;
        if block.len == 0
            || block.len > ShortKeyConfig::MAX_BLOCK_LEN
            || block.start >= n
            || block.len > n - block.start
        {
            return Err(ShortKeyError::InvalidBlock {
                start: block.start,
                len: block.len,
                max_len: ShortKeyConfig::MAX_BLOCK_LEN,
                n,
            }
            .into());
        }
        self.cursor.install(block.start, block.len, NO_TRIGGER);
        Ok(())
    }
}

impl<A: BlockAllocator> IndexSource for Blocks<A> {
    type Error = A::Error;

    fn next_index(&self, n: u64) -> Result<u64, AllocError<A::Error>> {
        loop {
            match self.cursor.take() {
                Take::Value { value, .. } => return Ok(value),
                Take::Empty(seen) => self.refill(seen, n)?,
            }
        }
    }
}

/// Coprime-step short keys: fixed-length strings such as `"8Xk2Pq"` that
/// are unique without duplicate checks.
///
/// With `n` possible keys (`alphabet^length`: 62^6 = 56,800,235,584 for six
/// characters of `0-9A-Za-z`) and a step `k` coprime to `n`, the sequence
///
/// ```text
/// key(i) = (offset + i·k) mod n        i = 0, 1, 2, …, n − 1
/// ```
///
/// visits every value in `0..n` exactly once before repeating.
///
/// **Why.** If `key(i) = key(j)` for `0 <= i < j < n`, then `n` divides
/// `(j − i)·k`. As `gcd(k, n) = 1`, `n` divides `j − i`, which is impossible
/// for `0 < j − i < n`. So the first `n` keys are distinct, i.e. all of
/// `0..n`. Conversely a step with `gcd(k, n) = g > 1` returns to the start
/// after `n / g` keys, which is why such a step is refused
/// ([`ShortKeyError::StepNotCoprime`]).
///
/// Each key is rendered as exactly `length` characters of the alphabet
/// (base `alphabet.len()`, most significant digit first).
///
/// # Indices, blocks and the allocator
///
/// The sequence position `i` (the *index*) is what must be handed out only
/// once. [`ShortKeys`] serves keys from [`Block`]s of indices obtained from
/// a [`BlockAllocator`] — typically a one-row table holding the next free
/// index, read and advanced in a serializable transaction, one block at a
/// time — so the database is touched once per block. [`LocalBlocks`] is an
/// in-process allocator for tests and single-process use.
///
/// * Keys of an unfinished block are **lost** when the process stops: they
///   are never issued (no duplicates), but the key space shrinks by up to a
///   block per restart. Keep blocks small relative to `n`.
/// * The "randomness" is **weak**: consecutive keys differ by the constant
///   `k`, so anyone who sees two consecutive keys can compute the next ones
///   and count how many were issued between two keys. Use it for short,
///   non-sequential-looking keys, not for secrets or unguessable links
///   (see [`Permutation`](flakeid_schemes::Permutation) for a keyed permutation, or a random
///   token for secrets).
///
/// ```
/// use flakeid_segment::{LocalBlocks, ShortKeyConfig, ShortKeys};
///
/// let config = ShortKeyConfig::default(); // 6 characters of 0-9A-Za-z
/// assert_eq!(config.n(), 56_800_235_584);
/// let keys = ShortKeys::new(config.clone(), LocalBlocks::new(&config, 1_000)?);
/// let a = keys.next_key()?;
/// let b = keys.next_key()?;
/// assert_ne!(a, b);
/// let text = config.encode(b)?;
/// assert_eq!(text.len(), 6);
/// assert_eq!(config.decode(&text)?, b);
/// assert_eq!(config.index_of(b)?, 1); // the second key handed out
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Serves keys from sequence indices, without a lock while the current
/// block or segment lasts.
///
/// The indices come from an [`IndexSource`]: a [`BlockAllocator`]'s blocks
/// ([`ShortKeys::new`]; refilled when used up, the callers waiting for the
/// refill) or a [`SegmentIds`](crate::SegmentIds) source
/// ([`ShortKeys::with_source`]; the next segment fetched in the background
/// before the current one is used up, so callers do not wait on the
/// database while the buffer lasts).
///
/// A key is returned at most once per process; with a correct source
/// (every index handed out once across processes), at most once across
/// processes. Indices of a block or segment that is not used up when the
/// process stops are lost.
pub struct ShortKeys<S> {
    config: ShortKeyConfig,
    source: S,
    /// The process's fork tag when built (see [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    fork_tag: u64,
}

impl<S: fmt::Debug> fmt::Debug for ShortKeys<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShortKeys")
            .field("config", &self.config)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl<A: BlockAllocator> ShortKeys<Blocks<A>> {
    /// Keys of `config`, indices from `allocator`'s blocks. No block is
    /// reserved until the first key is asked for.
    pub fn new(config: ShortKeyConfig, allocator: A) -> Self {
        Self::with_source(config, Blocks::new(allocator))
    }

    /// The block allocator.
    pub fn allocator(&self) -> &A {
        self.source.allocator()
    }
}

impl<S: IndexSource> ShortKeys<S> {
    /// Keys of `config`, indices from `source`: a
    /// [`SegmentIds`](crate::SegmentIds) source whose values
    /// `1, 2, 3, …` become indices `0, 1, 2, …` (give the key space a
    /// segment row of its own).
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, MemorySegmentStore, SegmentOptions, ShortKeyConfig, ShortKeys};
    ///
    /// // The article's example: n = 5 keys, step k = 3.
    /// let config = ShortKeyConfig::new(Alphabet::new("01234")?, 1)?.with_step(3)?;
    /// let store = MemorySegmentStore::new(); // a database row in production
    /// let keys = ShortKeys::with_source(config, SegmentOptions::new("keys").step(2).start(store)?);
    /// let five: Vec<String> = (0..5).map(|_| keys.next_key_string()).collect::<Result<_, _>>()?;
    /// assert_eq!(five, ["0", "3", "1", "4", "2"]);
    /// assert!(keys.next_key().is_err()); // all 5 keys are used
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_source(config: ShortKeyConfig, source: S) -> Self {
        ShortKeys {
            config,
            source,
            fork_tag: flakeid_core::__private::fork_tag(),
        }
    }

    /// The configuration keys are computed with.
    pub fn config(&self) -> &ShortKeyConfig {
        &self.config
    }

    /// Where the indices come from.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The next key (as a number; render it with [`ShortKeyConfig::encode`]).
    ///
    /// # Errors
    /// [`AllocError::Refill`] when the index source fails,
    /// [`AllocError::Key`] with [`ShortKeyError::InvalidBlock`] when an
    /// allocator hands in an empty, too long or out-of-range block, and
    /// with [`ShortKeyError::Exhausted`] when a segment source's values
    /// pass `n`. [`LocalBlocks`] reports that all `n` keys are used as
    /// `AllocError::Refill(ShortKeyError::Exhausted)`.
    pub fn next_key(&self) -> Result<u64, AllocError<S::Error>> {
        let index = self.next_index()?;
        Ok(self.config.key_at(index)?)
    }

    /// The next key, rendered.
    ///
    /// # Errors
    /// As [`next_key`](Self::next_key).
    pub fn next_key_string(&self) -> Result<String, AllocError<S::Error>> {
        let key = self.next_key()?;
        Ok(self.config.encode(key)?)
    }

    /// The next sequence index.
    ///
    /// # Errors
    /// As [`next_key`](Self::next_key).
    pub fn next_index(&self) -> Result<u64, AllocError<S::Error>> {
        if flakeid_core::__private::fork_current_tag() != self.fork_tag {
            // The block (and an in-memory allocator) are the parent's copies.
            return Err(AllocError::Forked);
        }
        self.source.next_index(self.config.n)
    }
}

impl ShortKeyConfig {
    /// The default key length.
    pub const DEFAULT_LENGTH: u32 = 6;

    /// The default step before reduction modulo `n`: `67·71·73·79·83·89`, a
    /// product of primes larger than 62, hence coprime to `62^length`.
    pub const DEFAULT_STEP: u64 = 67 * 71 * 73 * 79 * 83 * 89;

    /// The longest block [`ShortKeys`] accepts: `2^40 − 1` indices (its state
    /// word keeps the position within the block in 40 bits).
    pub const MAX_BLOCK_LEN: u64 = crate::cursor::MAX_RANGE_LEN;
}

impl Alphabet {
    /// The default alphabet: `0-9A-Za-z`, in ASCII order.
    pub const BASE62: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

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

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `k⁻¹ mod n` for `gcd(k, n) = 1`, `n >= 2` (extended Euclid).
fn mod_inverse(k: u64, n: u64) -> u64 {
    let (mut r0, mut r1) = (i128::from(n), i128::from(k));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    // r0 == 1 here; t0 is the inverse up to a multiple of n.
    t0.rem_euclid(i128::from(n)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_and_gcd() {
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(0, 7), 7);
        for n in 2..200u64 {
            for k in 1..n {
                if gcd(k, n) == 1 {
                    assert_eq!(
                        u128::from(k) * u128::from(mod_inverse(k, n)) % u128::from(n),
                        1
                    );
                }
            }
        }
    }

    #[test]
    fn default_step_is_reduced_and_coprime() {
        let c = ShortKeyConfig::default();
        assert_eq!(ShortKeyConfig::DEFAULT_STEP, 202_652_143_553);
        assert_eq!(c.step(), 202_652_143_553 - 3 * 56_800_235_584);
        assert_eq!(gcd(c.step(), c.n()), 1);
    }
}
