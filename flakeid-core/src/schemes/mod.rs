//! ID sources beyond Twitter-style bit layouts, each in one file with its
//! types, builder, errors and [`IdScheme`](crate::IdScheme) /
//! [`IdSource`](crate::IdSource) impls:
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
//! Bit layouts, decimal digit layouts and random starting sequences are
//! [`layout`](crate::layout)s run by a [`Generator`](crate::Generator);
//! 128-bit flakes are in [`flake128`](crate::flake128).

pub(crate) mod decimal_id;
mod offset_range;
mod random_key;
mod trace;

pub use decimal_id::{
    DecimalIdError, DecimalIdGenerator, DecimalIdGeneratorBuilder, DecimalIdParts, DecimalIdScheme,
    GeneratorIdSource,
};
pub use offset_range::{LocationRange, OffsetRangeError, OffsetRanges};
pub use random_key::{RandomKeyGenerator, RandomKeyGeneratorBuilder, RandomKeys};
pub use trace::{
    TraceIdError, TraceIdGenerator, TraceIdGeneratorBuilder, TraceIdLayout, TraceIdParts,
};
