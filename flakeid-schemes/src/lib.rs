//! ID schemes beyond the Snowflake-style bit layouts of `flakeid-core`:
//! for keys that must be decimal and readable, carry no time, wrap, be
//! random, stay in per-location ranges, or be shown to the public without
//! their order. Each scheme lives in one module with its types, builder,
//! errors and [`IdScheme`](flakeid_core::IdScheme) /
//! [`IdSource`](flakeid_core::IdSource) impls (one file, or a folder with a
//! file for each of them), so an ID type of any of them is declared with
//! `#[flake_id(scheme = …)]` like one of a layout:
//!
//! * [`DecimalLayout`] — time, sequence and node fields as groups of
//!   decimal digits, so that an ID reads as its parts (the 13 + 6 + 1
//!   digit "BigInt UID" among them), run by a
//!   [`Generator`](flakeid_core::Generator) like a bit layout
//!   (`decimal_layout.rs`).
//! * [`RandomStart`] — a random starting sequence per tick around any
//!   layout: hides how many IDs a node issued, keeps every guarantee of the
//!   generator (`random_start.rs`).
//! * [`RandomKeys`] ([`RandomKeyGenerator`]) — random low bits instead of a
//!   sequence (the "nonsequential key"), with its collision probability
//!   (`random_key.rs`).
//! * [`DecimalIdScheme`] ([`DecimalIdGenerator`]) — DecimalId:
//!   `counter · 10^10 + generator_id · 10^5 + launch_id`, not time-based;
//!   generator IDs come from a counter the whole system shares
//!   ([`GeneratorIdSource`], [`init_generator_ids`]; `decimal_id/`).
//! * [`TraceIdLayout`] ([`TraceIdGenerator`]) — TraceId: wrapping 25-bit
//!   seconds, per-thread counters (`trace/`).
//! * [`OffsetRanges`] ([`LocationRange`]) — per-location offset ranges of a
//!   database sequence, with detection when a location outgrows its range;
//!   its docs also cover database-produced IDs, the baseline every scheme
//!   is compared with (`offset_range/`, with its SQL).
//! * [`Permutation`] — a keyed, reversible permutation of an ID domain,
//!   for IDs shown to the public: it hides creation time and volume while
//!   the stored key stays time-ordered (obfuscation, not encryption;
//!   `permute.rs`).
//!
//! Bit layouts are in `flakeid-core`'s [`layout`](flakeid_core::layout);
//! 128-bit flakes are in `flakeid-flake128`, short keys
//! and dense IDs served from database segments in `flakeid-segment` (whose
//! `SegmentIds` is a [`GeneratorIdSource`] for DecimalId).
//!
//! ```
//! use std::sync::atomic::AtomicU32;
//! use flakeid_schemes::{DecimalIdGenerator, DecimalIdParts, Permutation};
//!
//! // DecimalId of launch 65; generator IDs from a counter the whole system
//! // shares (an atomic here, a database segment in production).
//! let generator = DecimalIdGenerator::builder(65, AtomicU32::new(92)).build()?;
//! let id = generator.next_id()?;
//! assert_eq!(DecimalIdParts::decompose(id)?.to_string(), "1 00092 00065");
//!
//! // Shown to the public through a keyed permutation, read back from it.
//! let public = Permutation::i63(0x5eed_0f_c0ffee_u128);
//! let shown = public.encode(id)?;
//! assert_eq!(public.decode(shown)?, id);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The crate has no features. It builds on `flakeid-core` (schemes, sources
//! and generators) and `flakeid-sql` (the SQL of the offset ranges'
//! counters).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod decimal_id;
mod decimal_layout;
mod offset_range;
mod permute;
mod random_key;
mod random_start;
mod trace;

pub use decimal_id::{
    DecimalIdError, DecimalIdGenerator, DecimalIdGeneratorBuilder, DecimalIdParts, DecimalIdScheme,
    GeneratorIdSource, init_generator_ids,
};
pub use decimal_layout::{DecimalLayout, DecimalLayoutBuilder};
pub use offset_range::{LocationRange, OffsetRangeError, OffsetRanges};
pub use permute::{Permutation, PermuteError};
pub use random_key::{RandomKeyGenerator, RandomKeyGeneratorBuilder, RandomKeys};
pub use random_start::RandomStart;
pub use trace::{
    TraceIdError, TraceIdGenerator, TraceIdGeneratorBuilder, TraceIdLayout, TraceIdParts,
};

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
