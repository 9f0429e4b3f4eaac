//! ID sources beyond Twitter-style bit layouts, each in one file with its
//! types, builder, errors and [`IdScheme`](crate::IdScheme) /
//! [`IdSource`](crate::IdSource) impls:
//!
//! * [`random_key`] — random low bits instead of a sequence (the
//!   "nonsequential key"), with its collision probability.
//! * [`decimal_id`] — DecimalId: `counter · 10^10 + generator_id · 10^5 +
//!   launch_id`, not time-based.
//! * [`trace`] — TraceId: wrapping 25-bit seconds, per-thread counters.
//! * [`offset_range`] — per-location offset ranges of a database sequence,
//!   with detection when a location outgrows its range; its docs also cover
//!   database-produced IDs, the baseline every scheme is compared with.
//!
//! Bit layouts, decimal digit layouts and random starting sequences are
//! [`layout`](crate::layout)s run by a [`Generator`](crate::Generator);
//! 128-bit flakes are in [`flake128`](crate::flake128).

pub mod decimal_id;
pub mod offset_range;
pub mod random_key;
pub mod trace;
