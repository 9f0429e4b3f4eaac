//! [`DecimalIdError`]: what configuring, issuing or decoding a DecimalId
//! can fail with.

use thiserror::Error;

/// A `DecimalId` could not be configured, issued or decoded
/// (see [`DecimalIdScheme`](crate::DecimalIdScheme)).
///
/// ```
/// use std::sync::atomic::AtomicU32;
/// use flakeid_schemes::{DecimalIdError, DecimalIdGenerator};
///
/// let e = DecimalIdGenerator::builder(100_000, AtomicU32::new(1)).build().unwrap_err();
/// assert!(matches!(e, DecimalIdError::LaunchIdOutOfRange { launch_id: 100_000, max: 99_999 }));
/// // Generator IDs have five digits: the system's are used up past 99,999.
/// let e = DecimalIdGenerator::builder(65, AtomicU32::new(100_000)).build().unwrap_err();
/// assert_eq!(e.to_string(), "generator_id 100000 is out of range: the largest is 99999");
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DecimalIdError {
    /// The generator was built before this process was forked (see
    /// [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    #[error(
        "this DecimalId generator was built before the process forked; a forked child would \
         repeat its parent's IDs: build a new generator after fork()"
    )]
    Forked,
    /// Launch ID 0 is reserved for tests and was not explicitly allowed.
    #[error(
        "launch_id 0 is reserved for tests; use a launch ID in 1..=99999 (or allow_test_launch_id() in tests)"
    )]
    TestLaunchId,
    /// The launch ID does not fit its five digits.
    #[error("launch_id {launch_id} is out of range: the largest is {max}")]
    LaunchIdOutOfRange {
        /// The launch ID given.
        launch_id: u32,
        /// The largest launch ID.
        max: u32,
    },
    /// The generator ID source returned a value that does not fit five digits:
    /// the system's generator IDs are used up.
    #[error("generator_id {generator_id} is out of range: the largest is {max}")]
    GeneratorIdOutOfRange {
        /// The generator ID returned by the source.
        generator_id: u32,
        /// The largest generator ID.
        max: u32,
    },
    /// The generator ID source returned a value this generator has used
    /// already; issuing with it would repeat IDs.
    #[error("generator_id {generator_id} was returned twice by the generator ID source")]
    GeneratorIdRepeated {
        /// The repeated generator ID.
        generator_id: u32,
    },
    /// The generator ID source failed.
    #[error("the generator ID source failed: {source}")]
    Source {
        /// The source's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// A counter is outside `1..=max`.
    #[error("counter {counter} is out of range: counters are 1..={max}")]
    CounterOutOfRange {
        /// The counter.
        counter: u64,
        /// The largest counter.
        max: u64,
    },
}
