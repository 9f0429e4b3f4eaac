//! Tools for IDs shown to the public, where the stored key's order and
//! density should not show:
//!
//! * [`permute`] — a keyed, reversible permutation of an ID domain that
//!   hides creation time and volume (obfuscation, not encryption).
//! * [`short_keys`] — coprime-step short keys: fixed-length base-62 strings
//!   served from blocks of indices.

pub mod permute;
pub mod short_keys;
