//! Dense IDs: a segment source's values as the IDs of an ID type, and
//! the other users of a source (DecimalId generator IDs, short keys).

use std::borrow::Cow;
use std::sync::Arc;

use super::error::SegmentError;
use super::source::SegmentIds;
use crate::short_keys::{AllocError, IndexSource, ShortKeyError};
use flakeid_core::Decoded;
use flakeid_core::runtime::Attempt;
use flakeid_core::{ConfigError, FieldOutOfRange, GenerateError, SchemeError};
use flakeid_core::{GlobalScheme, IdScheme, IdSource, NodeConfig};
use flakeid_schemes::GeneratorIdSource;

/// The rules of dense IDs: every value in `1..=2^63 − 1` is one; `decode`
/// names it `value`. Dense and ascending per process, with gaps after
/// restarts (the rest of a process's segments), and no clock: an ID says
/// nothing about when it was issued.
///
/// IDs of this scheme come from a [`SegmentIds`] source of your own,
/// given to `#[flake_id]` with `source = …` (the process-wide
/// configuration cannot build one: it needs a database):
///
/// ```
/// use std::sync::OnceLock;
/// use flakeid_core::{flake_id, ConfigError, FlakeId};
/// use flakeid_segment::{DenseIds, MemorySegmentStore, SegmentIds, SegmentOptions};
///
/// static ORDER_IDS: OnceLock<SegmentIds> = OnceLock::new();
///
/// fn order_ids() -> Result<&'static SegmentIds, ConfigError> {
///     ORDER_IDS.get().ok_or(ConfigError::SegmentsNotStarted)
/// }
///
/// #[flake_id(scheme = DenseIds::default, source = order_ids)]
/// pub struct OrderId(i64);
///
/// // At start-up (a database row through flakeid-seaorm or flakeid-diesel in production):
/// let started = SegmentOptions::new("orders").start(MemorySegmentStore::new())?;
/// ORDER_IDS.set(started).map_err(|_| ConfigError::AlreadyInitialized)?;
///
/// let a = OrderId::generate()?;
/// let b = OrderId::generate()?;
/// assert_eq!((a.get(), b.get()), (1, 2));
/// assert_eq!(b.decode().to_string(), "2 (value 2)");
/// assert_eq!(OrderId::try_from(9_000_000_000_i64)?.decode().field("value"), Some(9_000_000_000));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DenseIds;

impl IdScheme for DenseIds {
    /// `2^63 − 1`.
    fn max_id(&self) -> u64 {
        i64::MAX as u64
    }

    fn decode(&self, id: u64) -> Decoded {
        Decoded::from_fields(id, None, vec![(Cow::Borrowed("value"), id)])
    }
}

/// The process-wide configuration has no database to fetch segments from:
/// building a source fails with [`ConfigError::SegmentSourceRequired`].
impl flakeid_core::GlobalScheme for DenseIds {
    fn build_source(&self, _config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        Err(ConfigError::SegmentSourceRequired)
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        (other as &dyn core::any::Any)
            .downcast_ref::<Self>()
            .is_some()
    }
}

/// A source's values are dense IDs.
impl IdScheme for SegmentIds {
    fn max_id(&self) -> u64 {
        DenseIds.max_id()
    }

    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        DenseIds.check(id)
    }

    fn decode(&self, id: u64) -> Decoded {
        DenseIds.decode(id)
    }
}

/// Errors come as [`GenerateError::Scheme`] holding the [`SegmentError`],
/// as the errors of the other schemes' generators do:
///
/// ```
/// use flakeid_core::{GenerateError, IdSource};
/// use flakeid_segment::{MemorySegmentStore, SegmentError, SegmentOptions};
///
/// let ids = SegmentOptions::new("orders").step(1).max_step(1).start(MemorySegmentStore::new())?;
/// ids.stop();
/// while ids.next_id().is_ok() {} // a stopped source hands out what it holds, then stops
/// let Err(GenerateError::Scheme(e)) = ids.next_id() else { panic!("a stopped source") };
/// assert!(matches!(e.downcast_ref::<SegmentError>(), Some(SegmentError::Stopped { .. })));
/// # Ok::<(), SegmentError>(())
/// ```
impl IdSource for SegmentIds {
    fn next_id(&self) -> Result<u64, GenerateError> {
        self.next_value().map_err(segment_failed)
    }

    fn try_next_id(&self) -> Result<u64, GenerateError> {
        self.try_next_value().map_err(segment_failed)
    }

    fn attempt_next_id(&self) -> Result<Attempt<u64>, GenerateError> {
        self.attempt_next_value().map_err(segment_failed)
    }
}

/// DecimalId generator IDs from a segment row: each value once, across
/// processes and restarts. A value above `u32::MAX` is passed on as
/// `u32::MAX`, which the generator refuses as out of range (generator IDs
/// end at 99,999).
///
/// ```
/// use flakeid_schemes::DecimalIdGenerator;
/// use flakeid_segment::{MemorySegmentStore, SegmentOptions};
///
/// // Generator IDs are taken rarely: a fixed step of 1 loses at most two per process.
/// let ids = SegmentOptions::new("generator_ids").step(1).max_step(1).start(MemorySegmentStore::new())?;
/// let generator = DecimalIdGenerator::builder(65, ids).max_counter(2).build()?;
/// assert_eq!(generator.generator_id(), 1);
/// generator.next_id()?;
/// generator.next_id()?;
/// generator.next_id()?; // the counter ran out: the next generator ID
/// assert_eq!(generator.generator_id(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl GeneratorIdSource for SegmentIds {
    type Error = SegmentError;

    fn next_generator_id(&self) -> Result<u32, SegmentError> {
        Ok(u32::try_from(self.next_value()?).unwrap_or(u32::MAX))
    }
}

/// Short-key indices from a segment row: value `v` is index `v − 1`.
impl IndexSource for SegmentIds {
    type Error = SegmentError;

    fn next_index(&self, n: u64) -> Result<u64, AllocError<SegmentError>> {
        let index = self.next_value().map_err(AllocError::Refill)? - 1;
        if index >= n {
            return Err(ShortKeyError::Exhausted { n }.into());
        }
        Ok(index)
    }
}

impl<S: IndexSource + ?Sized> IndexSource for Arc<S> {
    type Error = S::Error;

    fn next_index(&self, n: u64) -> Result<u64, AllocError<S::Error>> {
        (**self).next_index(n)
    }
}

/// A segment source's error as a generator's.
fn segment_failed(e: SegmentError) -> GenerateError {
    SchemeError::new("segment", e).into()
}
