//! Where generator IDs come from: a [`GeneratorIdSource`] shared by the
//! whole system, and the one installed for the process-wide generator.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use flakeid_core::ConfigError;

/// Hands out generator IDs from a counter shared by the whole system
/// (e.g. a database sequence); every call returns a value no generator of
/// the same launch has had.
///
/// Called when a [`DecimalIdGenerator`](crate::DecimalIdGenerator) is built and each time its counter
/// runs out; calls are serialised per generator and rare, so a database
/// round trip is fine.
///
/// ```
/// use std::sync::Mutex;
/// use flakeid_schemes::{DecimalIdError, DecimalIdGenerator, GeneratorIdSource};
///
/// /// A shared sequence; a list of the values it has left stands in for the database.
/// struct Sequence(Mutex<Vec<u32>>);
///
/// impl GeneratorIdSource for Sequence {
///     type Error = std::io::Error;
///     fn next_generator_id(&self) -> Result<u32, std::io::Error> {
///         let next = self.0.lock().unwrap().pop();
///         next.ok_or_else(|| std::io::Error::other("the sequence is unreachable"))
///     }
/// }
///
/// let sequence = Sequence(Mutex::new(vec![8, 7]));
/// let generator = DecimalIdGenerator::builder(65, sequence).max_counter(1).build()?;
/// assert_eq!(generator.next_id()?, 10_000_700_065); // generator ID 7
/// assert_eq!(generator.next_id()?, 10_000_800_065); // counter used up: generator ID 8
/// // The source fails: no ID (the next call asks it again).
/// assert!(matches!(generator.next_id(), Err(DecimalIdError::Source { .. })));
/// # Ok::<(), DecimalIdError>(())
/// ```
pub trait GeneratorIdSource: Send + Sync {
    /// What can go wrong when taking the next value.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The next generator ID.
    ///
    /// # Errors
    /// Whatever prevents taking the next value (e.g. the database is down).
    fn next_generator_id(&self) -> Result<u32, Self::Error>;
}

impl<S: GeneratorIdSource + ?Sized> GeneratorIdSource for Arc<S> {
    type Error = S::Error;
    fn next_generator_id(&self) -> Result<u32, S::Error> {
        (**self).next_generator_id()
    }
}

impl<S: GeneratorIdSource + ?Sized> GeneratorIdSource for &S {
    type Error = S::Error;
    fn next_generator_id(&self) -> Result<u32, S::Error> {
        (**self).next_generator_id()
    }
}

/// An in-memory counter is a source: each call takes its value and adds
/// one; for tests and single-process use (share it with `Arc` or `&`).
/// Past `u32::MAX` it stays there, which the generator reports as out of
/// range.
///
/// ```
/// use std::sync::atomic::AtomicU32;
/// use flakeid_schemes::GeneratorIdSource;
///
/// let source = AtomicU32::new(7);
/// assert_eq!(source.next_generator_id(), Ok(7));
/// assert_eq!(source.next_generator_id(), Ok(8));
/// ```
impl GeneratorIdSource for AtomicU32 {
    type Error = core::convert::Infallible;
    fn next_generator_id(&self) -> Result<u32, Self::Error> {
        Ok(self
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_add(1))
            })
            .unwrap_or(u32::MAX))
    }
}

/// A [`GeneratorIdSource`] of any error type, as installed process-wide
/// with [`init_generator_ids`].
pub(crate) trait AnyGeneratorIds: Send + Sync {
    fn next(&self) -> Result<u32, flakeid_core::SchemeError>;
}

impl<S: GeneratorIdSource> AnyGeneratorIds for S {
    fn next(&self) -> Result<u32, flakeid_core::SchemeError> {
        self.next_generator_id()
            .map_err(|e| flakeid_core::SchemeError::new("generator ID source", e))
    }
}

/// Installs the counter that DecimalId generator IDs come from for ID
/// types declared with `#[flake_id(scheme = …)]` of a
/// [`DecimalIdScheme`](crate::DecimalIdScheme): a counter shared
/// by the whole system (see [`DecimalIdScheme`](crate::DecimalIdScheme)).
///
/// # Errors
/// [`ConfigError::AlreadyInitialized`] when one is installed already.
///
/// ```
/// use std::sync::atomic::AtomicU32;
/// use flakeid_core::layout::presets;
/// use flakeid_core::{flake_id, global, ConfigError, Generator};
/// use flakeid_schemes::{init_generator_ids, DecimalIdScheme};
///
/// #[flake_id(scheme = DecimalIdScheme::default)]
/// pub struct InvoiceId(i64);
///
/// // At start-up: the node ID is the launch ID; generator IDs come from a
/// // counter the whole system shares (a segment row in production).
/// global::init(Generator::builder(presets::twitter(), 65))?;
/// init_generator_ids(AtomicU32::new(92))?;
/// assert_eq!(InvoiceId::generate()?.get(), 10_009_200_065); // counter 1, generator 92, launch 65
/// assert_eq!(init_generator_ids(AtomicU32::new(1)), Err(ConfigError::AlreadyInitialized));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn init_generator_ids(source: impl GeneratorIdSource + 'static) -> Result<(), ConfigError> {
    GENERATOR_IDS
        .set(Box::new(source))
        .map_err(|_| ConfigError::AlreadyInitialized)
}

impl GeneratorIdSource for dyn AnyGeneratorIds {
    type Error = flakeid_core::SchemeError;

    fn next_generator_id(&self) -> Result<u32, Self::Error> {
        self.next()
    }
}

/// The counter installed with [`init_generator_ids`].
pub(super) fn generator_ids() -> Option<&'static dyn AnyGeneratorIds> {
    GENERATOR_IDS.get().map(|b| &**b)
}

/// The counter process-wide DecimalId generators take their generator IDs
/// from (installed by [`init_generator_ids`]).
static GENERATOR_IDS: OnceLock<Box<dyn AnyGeneratorIds>> = OnceLock::new();
