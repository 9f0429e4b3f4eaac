//! ID sources beyond Twitter-style bit layouts, each in one file with its
//! types, builder, errors and [`IdScheme`](flakeid_core::IdScheme) /
//! [`IdSource`](flakeid_core::IdSource) impls:
//!
//! * [`RandomKeys`] — random low bits instead of a sequence (the
//!   "nonsequential key"), with its collision probability
//!   (`random_key.rs`).
//! * [`DecimalIdScheme`] — DecimalId: `counter · 10^10 + generator_id ·
//!   10^5 + launch_id`, not time-based (`decimal_id.rs`).
//! * [`TraceIdLayout`] — TraceId: wrapping 25-bit seconds, per-thread
//!   counters (`trace.rs`).
//! * [`OffsetRanges`] — per-location offset ranges of a database sequence,
//!   with detection when a location outgrows its range; its docs also cover
//!   database-produced IDs, the baseline every scheme is compared with
//!   (`offset_range/`, with its SQL).
//!
//! * [`Permutation`] — a keyed, reversible permutation of an ID domain,
//!   for IDs shown to the public: it hides creation time and volume while
//!   the stored key stays time-ordered (obfuscation, not encryption;
//!   `permute.rs`).
//!
//! Bit layouts, decimal digit layouts and random starting sequences are
//! [`layout`](flakeid_core::layout)s run by a [`Generator`](flakeid_core::Generator)
//! of `flakeid-core`; 128-bit flakes are in `flakeid-flake128`, short keys
//! and dense IDs served from database segments in `flakeid-segment`.

mod decimal_id;
mod offset_range;
mod permute;
mod random_key;
mod trace;

pub use decimal_id::{
    DecimalIdError, DecimalIdGenerator, DecimalIdGeneratorBuilder, DecimalIdParts, DecimalIdScheme,
    GeneratorIdSource, init_generator_ids,
};
pub use permute::{Permutation, PermuteError};
pub use offset_range::{LocationRange, OffsetRangeError, OffsetRanges};
pub use random_key::{RandomKeyGenerator, RandomKeyGeneratorBuilder, RandomKeys};
pub use trace::{
    TraceIdError, TraceIdGenerator, TraceIdGeneratorBuilder, TraceIdLayout, TraceIdParts,
};
