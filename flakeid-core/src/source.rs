//! [`IdSource`]: where an ID type's IDs come from, whatever the scheme.
//!
//! An ID type declared with `#[flake_id]` draws its IDs from an
//! [`IdSource`], which also states the scheme's rules for values read back
//! (their largest value and field ranges) and decodes them into named
//! fields. Every 64-bit scheme's generator implements it:
//!
//! | source | IDs | rules beyond `1..=max_id` |
//! |---|---|---|
//! | [`Generator<L>`](crate::Generator) for a [`DecodeLayout`] ([`BitLayout`], [`DecimalLayout`], [`RandomStart`]) | time-ordered, unique | none |
//! | [`RandomKeyGenerator<L>`](crate::random_key::RandomKeyGenerator) | time + random low part (can collide) | random part ≥ 1 |
//! | [`DecimalIdGenerator`] | `counter · 10^10 + generator_id · 10^5 + launch_id` | counter ≥ 1, launch ID ≥ 1 (unless the generator's own launch ID is the test launch 0) |
//! | [`TraceIdGenerator`] | wrapping seconds + node + thread + counter | counter ≥ 1 |
//!
//! A source's rules describe the IDs of every process of the system, so
//! processes sharing an ID type must configure it alike (layout, epoch,
//! `max_counter`, thread count).
//!
//! Use one with `#[flake_id(generator = path)]`, where `path` is a function
//! returning `Result<&'static G, ConfigError>` for any `G: IdSource` (see
//! [`FlakeId`](crate::FlakeId#any-scheme) for a DecimalId example), or
//! directly:
//!
//! ```
//! use flakeid_core::trace::TraceIdGenerator;
//! use flakeid_core::IdSource;
//!
//! let traces = TraceIdGenerator::builder(7).threads(4).build()?;
//! let source: &dyn IdSource = &traces;
//! let id = source.next_id()?;
//! let d = source.decode(id);
//! assert_eq!(d.field("node"), Some(7));
//! assert_eq!(d.timestamp, None); // TraceId seconds wrap every 2^25 s
//! // The counter starts at 1: an ID whose counter is 0 is not a TraceId.
//! assert!(source.check(id & !0xFFFF).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`BitLayout`]: crate::BitLayout
//! [`DecimalLayout`]: crate::layout::DecimalLayout
//! [`RandomStart`]: crate::layout::RandomStart

use std::borrow::Cow;
use std::time::{Duration, UNIX_EPOCH};

use crate::decimal_id::{DecimalIdGenerator, GeneratorIdSource, MAX_GENERATOR_ID, MAX_LAUNCH_ID};
use crate::layout::{DecimalLayout, RandomStart};
use crate::random_key::RandomKeyGenerator;
use crate::trace::{MAX_NODE, NODE_SHIFT, TIMESTAMP_MAX, TIMESTAMP_SHIFT, TraceIdGenerator};
use crate::{
    BitLayout, Clock, Decoded, FieldOutOfRange, GenerateError, Generator, Layout, SchemeError,
};

/// A source of 64-bit IDs: issues them, states which values are IDs of
/// its scheme, and decodes them. See the [module documentation](self).
pub trait IdSource: Send + Sync + 'static {
    /// A new ID; may wait (as the source's policies allow) when none is
    /// available right now.
    ///
    /// # Errors
    /// The source's [`GenerateError`]; errors of a scheme's own generator
    /// come as [`GenerateError::Scheme`].
    fn next_id(&self) -> Result<u64, GenerateError>;

    /// A new ID without waiting. By default [`next_id`](IdSource::next_id),
    /// for sources that never wait.
    ///
    /// # Errors
    /// As [`next_id`](IdSource::next_id), or [`GenerateError::WouldBlock`].
    fn try_next_id(&self) -> Result<u64, GenerateError> {
        self.next_id()
    }

    /// `n` new IDs, in the order issued. By default `n` calls of
    /// [`next_id`](IdSource::next_id); a [`Generator`] reserves them in one
    /// atomic step.
    ///
    /// # Errors
    /// As [`next_id`](IdSource::next_id); IDs issued before the error are
    /// not returned (and never issued again).
    fn next_ids(&self, n: usize) -> Result<Vec<u64>, GenerateError> {
        (0..n).map(|_| self.next_id()).collect()
    }

    /// The largest ID of the scheme (at most `2^63 − 1`).
    fn max_id(&self) -> u64;

    /// Checks the scheme's rules for a value in `1..=max_id` read from
    /// outside (a database row, a string). By default every such value is
    /// an ID.
    ///
    /// # Errors
    /// [`FieldOutOfRange`] naming the field that breaks its range.
    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        let _ = id;
        Ok(())
    }

    /// The ID's time (when the scheme records one) and named fields. For
    /// values that pass [`check`](IdSource::check); others decode into
    /// meaningless fields but never panic.
    fn decode(&self, id: u64) -> Decoded;
}

/// A 64-bit [`Layout`] that bounds and names its IDs, so that a
/// [`Generator`] or [`RandomKeyGenerator`] running it is an [`IdSource`].
pub trait DecodeLayout: Layout<Raw = u64> {
    /// The largest ID the layout composes.
    fn max_id(&self) -> u64;

    /// The ID's time and fields: `tick`, the node subfields (or `node`),
    /// `sequence`.
    fn decode(&self, id: u64) -> Decoded;
}

impl DecodeLayout for BitLayout {
    fn max_id(&self) -> u64 {
        BitLayout::max_id(self)
    }

    fn decode(&self, id: u64) -> Decoded {
        Decoded::new(self, id)
    }
}

impl DecodeLayout for DecimalLayout {
    fn max_id(&self) -> u64 {
        DecimalLayout::max_id(self)
    }

    fn decode(&self, id: u64) -> Decoded {
        let parts = self.decompose(id);
        let time = UNIX_EPOCH.checked_add(Duration::from_millis(self.timestamp_millis(id)));
        let node = (self.node_digits() > 0).then_some((Cow::Borrowed("node"), parts.node));
        Decoded::from_layout_parts(id, time, parts, node)
    }
}

/// Decodes with the inner layout: the `sequence` field is the stored
/// value (the tick's random start plus the count), because the start
/// depends on the seed of the process that issued the ID.
impl<L: DecodeLayout> DecodeLayout for RandomStart<L> {
    fn max_id(&self) -> u64 {
        self.inner().max_id()
    }

    fn decode(&self, id: u64) -> Decoded {
        self.inner().decode(id)
    }
}

impl<L: DecodeLayout, C: Clock> IdSource for Generator<L, C> {
    fn next_id(&self) -> Result<u64, GenerateError> {
        Generator::next_id(self)
    }

    fn try_next_id(&self) -> Result<u64, GenerateError> {
        Generator::try_next_id(self)
    }

    fn next_ids(&self, n: usize) -> Result<Vec<u64>, GenerateError> {
        Ok(self.next_batch(n)?.collect())
    }

    fn max_id(&self) -> u64 {
        self.layout().max_id()
    }

    fn decode(&self, id: u64) -> Decoded {
        self.layout().decode(id)
    }
}

/// The random part is the `sequence` field, `1..sequences_per_tick`.
impl<L: DecodeLayout, C: Clock> IdSource for RandomKeyGenerator<L, C> {
    fn next_id(&self) -> Result<u64, GenerateError> {
        RandomKeyGenerator::next_id(self)
    }

    fn max_id(&self) -> u64 {
        self.layout().max_id()
    }

    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        let random = self.layout().decompose(id).sequence;
        if random == 0 {
            return Err(FieldOutOfRange {
                field: "sequence",
                value: random,
                min: 1,
                max: self.values_per_tick(),
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> Decoded {
        self.layout().decode(id)
    }
}

const DECIMAL_ID_COUNTER: u64 = 10_000_000_000;
const DECIMAL_ID_GENERATOR: u64 = 100_000;

/// Errors of the generator come as [`GenerateError::Scheme`] wrapping a
/// [`DecimalIdError`](crate::DecimalIdError).
impl<S: GeneratorIdSource + 'static> IdSource for DecimalIdGenerator<S> {
    fn next_id(&self) -> Result<u64, GenerateError> {
        DecimalIdGenerator::next_id(self).map_err(|e| SchemeError::new("DecimalId", e).into())
    }

    /// The largest counter this generator issues, with the largest
    /// generator and launch IDs.
    fn max_id(&self) -> u64 {
        self.max_counter() * DECIMAL_ID_COUNTER
            + u64::from(MAX_GENERATOR_ID) * DECIMAL_ID_GENERATOR
            + u64::from(MAX_LAUNCH_ID)
    }

    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        let counter = id / DECIMAL_ID_COUNTER;
        if counter == 0 {
            return Err(FieldOutOfRange {
                field: "counter",
                value: 0,
                min: 1,
                max: self.max_counter(),
            });
        }
        let launch_id = id % DECIMAL_ID_GENERATOR;
        // Launch 0 is for tests: only a test generator accepts it.
        if launch_id == 0 && self.launch_id() != 0 {
            return Err(FieldOutOfRange {
                field: "launch_id",
                value: 0,
                min: 1,
                max: u64::from(MAX_LAUNCH_ID),
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> Decoded {
        let fields = vec![
            (Cow::Borrowed("counter"), id / DECIMAL_ID_COUNTER),
            (
                Cow::Borrowed("generator_id"),
                id / DECIMAL_ID_GENERATOR % DECIMAL_ID_GENERATOR,
            ),
            (Cow::Borrowed("launch_id"), id % DECIMAL_ID_GENERATOR),
        ];
        Decoded::from_fields(id, None, fields)
    }
}

/// Never waits: a thread whose counter ran out in the current second gets
/// [`GenerateError::Scheme`] wrapping
/// [`TraceIdError::CounterExhausted`](crate::TraceIdError::CounterExhausted)
/// (with the time to retry after). `timestamp` is a field (Unix seconds
/// mod 2^25), not a [`Decoded::timestamp`]: it wraps.
impl<C: Clock> IdSource for TraceIdGenerator<C> {
    fn next_id(&self) -> Result<u64, GenerateError> {
        TraceIdGenerator::next_id(self).map_err(|e| SchemeError::new("TraceId", e).into())
    }

    /// `2^63 − 1`: only the reserved top bit is excluded.
    fn max_id(&self) -> u64 {
        i64::MAX as u64
    }

    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        let max = self.layout().max_counter();
        let counter = id & u64::from(max);
        if counter == 0 {
            return Err(FieldOutOfRange {
                field: "counter",
                value: 0,
                min: 1,
                max: u64::from(max),
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> Decoded {
        let layout = self.layout();
        let fields = vec![
            (
                Cow::Borrowed("timestamp"),
                (id >> TIMESTAMP_SHIFT) & TIMESTAMP_MAX,
            ),
            (Cow::Borrowed("node"), (id >> NODE_SHIFT) & MAX_NODE),
            (
                Cow::Borrowed("thread"),
                (id >> layout.counter_bits()) & u64::from(layout.max_threads() - 1),
            ),
            (
                Cow::Borrowed("counter"),
                id & u64::from(layout.max_counter()),
            ),
        ];
        Decoded::from_fields(id, None, fields)
    }
}
