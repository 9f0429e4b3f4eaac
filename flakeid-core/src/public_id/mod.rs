//! Tools for IDs shown to the public, where the stored key's order and
//! density should not show:
//!
//! * [`Permutation`] — a keyed, reversible permutation of an ID domain that
//!   hides creation time and volume (obfuscation, not encryption;
//!   `permute.rs`).
//! * [`ShortKeys`] — coprime-step short keys: fixed-length base-62 strings
//!   served from blocks of indices (`short_keys.rs`).

mod permute;
pub(crate) mod short_keys;

pub use permute::{Permutation, PermuteError};
pub use short_keys::{
    AllocError, Alphabet, Block, BlockAllocator, Blocks, IndexSource, LocalBlocks, ShortKeyConfig,
    ShortKeyError, ShortKeys,
};
