//! The short keys scheme; see [`ShortKeys`].

mod alphabet;
mod blocks;
mod config;
mod error;

use core::fmt;

pub use alphabet::Alphabet;
pub use blocks::{Block, BlockAllocator, Blocks, IndexSource, LocalBlocks};
pub use config::ShortKeyConfig;
pub use error::{AllocError, ShortKeyError};

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
