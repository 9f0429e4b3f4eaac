//! Where short keys' sequence indices come from: [`Block`]s of indices
//! reserved by a [`BlockAllocator`] ([`LocalBlocks`] in one process),
//! served index by index by [`Blocks`], an [`IndexSource`].

use core::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{AllocError, ShortKeyConfig, ShortKeyError};
use crate::cursor::{Cursor, NO_TRIGGER, Take};

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
/// [`ShortKeys`](crate::ShortKeys) calls [`refill`](Self::refill) when its current block is
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

/// Where [`ShortKeys`](crate::ShortKeys) takes its sequence indices from, each handed out
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
