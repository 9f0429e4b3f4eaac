//! The decimal id scheme; see [`DecimalIdScheme`].

mod error;
mod generator;
mod generator_ids;
mod scheme;

use core::fmt;

pub use error::DecimalIdError;
pub use generator::{DecimalIdGenerator, DecimalIdGeneratorBuilder};
pub use generator_ids::{GeneratorIdSource, init_generator_ids};

/// DecimalId: a legible, not time-based ID in three decimal fields.
///
/// ```text
/// decimal_id = counter · 10^10 + generator_id · 10^5 + launch_id
///
///                ID 14150009200065
///                   ccccggggglllll
///    counter (1415) ─┘    │    │
/// generator_id (92) ──────┘    │
///    launch_id (65) ───────────┘
/// ```
///
/// | digits | field | range | source |
/// |---|---|---|---|
/// | 9 | counter | 1..=922,337,202 | this generator, in memory |
/// | 5 | generator_id | 0..=99,999 | a persistent counter shared by the whole system ([`GeneratorIdSource`]) |
/// | 5 | launch_id | 1..=99,999 (0 in tests only) | the deployment (the launch log) |
///
/// The counter stops at 922,337,202 rather than 922,337,203 so that every
/// generator ID up to 99,999 keeps IDs below `2^63 − 1`. Counters start at 1,
/// so an ID is never 0.
///
/// **Uniqueness**: a generator counts up within one `(generator_id,
/// launch_id)` pair, and takes a new generator ID from the
/// [`GeneratorIdSource`] at start and whenever its counter runs out (once
/// every 922 million IDs, so the shared counter sees almost no contention).
/// IDs are unique as long as no pair is ever handed to two generators.
///
/// **Monotonicity**: per generator (sharded) — each generator's IDs
/// increase, but generators interleave, and a new generator ID can be
/// smaller than the previous one (the counter restarts at 1). IDs do not
/// reveal time; the counter reveals how many IDs a generator issued.
///
/// ```
/// use std::sync::atomic::AtomicU32;
/// use flakeid_schemes::{DecimalIdGenerator, DecimalIdParts};
///
/// let source = AtomicU32::new(92);
/// let generator = DecimalIdGenerator::builder(65, source).build()?;
/// let id = generator.next_id()?;
/// assert_eq!(id, 10_009_200_065);
/// assert_eq!(
///     DecimalIdParts::decompose(id)?,
///     DecimalIdParts { counter: 1, generator_id: 92, launch_id: 65 }
/// );
/// # Ok::<(), flakeid_schemes::DecimalIdError>(())
/// ```
///
/// The rules of DecimalIds: which values are IDs of a system whose
/// generators count up to [`max_counter`](Self::max_counter), and what
/// their fields mean. Pure data: checking and decoding need no generator.
///
/// ```
/// use flakeid_core::IdScheme;
/// use flakeid_schemes::DecimalIdScheme;
///
/// let scheme = DecimalIdScheme::default();
/// assert_eq!(scheme.decode(14_150_009_200_065).field("generator_id"), Some(92));
/// assert!(scheme.check(9_200_065).is_err()); // counter 0
/// assert!(scheme.check(10_009_200_000).is_err()); // launch 0 is for tests
/// let js = DecimalIdScheme::default().max_counter(DecimalIdScheme::JS_SAFE_MAX_COUNTER);
/// assert!(js.max_id() < 1 << 53);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecimalIdScheme {
    max_counter: u64,
    allow_test_launch_id: bool,
}

impl Default for DecimalIdScheme {
    /// Counters up to [`DecimalIdScheme::MAX_COUNTER`], launch IDs from 1.
    fn default() -> Self {
        DecimalIdScheme {
            max_counter: DecimalIdScheme::MAX_COUNTER,
            allow_test_launch_id: false,
        }
    }
}

impl DecimalIdScheme {
    flakeid_core::__private::setters! {
        /// The same rules with counters up to `max` (clamped to
        /// `1..=DecimalIdScheme::MAX_COUNTER`), e.g. [`DecimalIdScheme::JS_SAFE_MAX_COUNTER`].
        max_counter(max: u64) => max_counter = max.clamp(1, DecimalIdScheme::MAX_COUNTER);
    }

    /// The same rules also accepting launch ID 0 (for tests).
    pub fn allow_test_launch_id(mut self) -> Self {
        self.allow_test_launch_id = true;
        self
    }

    /// The largest counter.
    pub fn counter_limit(&self) -> u64 {
        self.max_counter
    }
}

impl DecimalIdScheme {
    /// The largest counter value.
    pub const MAX_COUNTER: u64 = 922_337_202;

    /// The largest counter that keeps every DecimalId at most `2^53 − 1`
    /// (JavaScript's `Number.MAX_SAFE_INTEGER`); see
    /// [`DecimalIdGeneratorBuilder::max_counter`].
    pub const JS_SAFE_MAX_COUNTER: u64 = 900_718;

    /// The largest generator ID.
    pub const MAX_GENERATOR_ID: u32 = 99_999;

    /// The largest launch ID.
    pub const MAX_LAUNCH_ID: u32 = 99_999;
}

/// The three fields of a DecimalId.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DecimalIdParts {
    /// Position within the generator ID's block, `1..=922,337,202`.
    pub counter: u64,
    /// The generator ID, `0..=99,999`.
    pub generator_id: u32,
    /// The launch ID, `1..=99,999` (0 in tests).
    pub launch_id: u32,
}

impl DecimalIdParts {
    /// The ID of these parts.
    ///
    /// # Errors
    /// [`DecimalIdError::CounterOutOfRange`], [`DecimalIdError::GeneratorIdOutOfRange`]
    /// or [`DecimalIdError::LaunchIdOutOfRange`] for a part that does not fit.
    ///
    /// ```
    /// use flakeid_schemes::DecimalIdParts;
    /// let id = DecimalIdParts { counter: 1415, generator_id: 92, launch_id: 65 }.compose()?;
    /// assert_eq!(id, 14_150_009_200_065);
    /// # Ok::<(), flakeid_schemes::DecimalIdError>(())
    /// ```
    pub fn compose(self) -> Result<u64, DecimalIdError> {
        if !(1..=DecimalIdScheme::MAX_COUNTER).contains(&self.counter) {
            return Err(DecimalIdError::CounterOutOfRange {
                counter: self.counter,
                max: DecimalIdScheme::MAX_COUNTER,
            });
        }
        check_generator_id(self.generator_id)?;
        if self.launch_id > DecimalIdScheme::MAX_LAUNCH_ID {
            return Err(DecimalIdError::LaunchIdOutOfRange {
                launch_id: self.launch_id,
                max: DecimalIdScheme::MAX_LAUNCH_ID,
            });
        }
        Ok(compose(self.counter, self.generator_id, self.launch_id))
    }

    /// The parts of an ID.
    ///
    /// # Errors
    /// [`DecimalIdError::CounterOutOfRange`] when the counter digits are 0
    /// (IDs below 10^10) or above 922,337,202 (which includes every value
    /// above `2^63 − 1`).
    ///
    /// ```
    /// use flakeid_schemes::DecimalIdParts;
    /// let p = DecimalIdParts::decompose(14_150_009_200_065)?;
    /// assert_eq!((p.counter, p.generator_id, p.launch_id), (1415, 92, 65));
    /// assert!(DecimalIdParts::decompose(9_200_065).is_err()); // counter 0
    /// # Ok::<(), flakeid_schemes::DecimalIdError>(())
    /// ```
    pub fn decompose(id: u64) -> Result<DecimalIdParts, DecimalIdError> {
        let counter = id / COUNTER_FACTOR;
        if !(1..=DecimalIdScheme::MAX_COUNTER).contains(&counter) {
            return Err(DecimalIdError::CounterOutOfRange {
                counter,
                max: DecimalIdScheme::MAX_COUNTER,
            });
        }
        // Both below 10^5, so they fit u32.
        let generator_id = (id / GENERATOR_FACTOR % GENERATOR_FACTOR) as u32;
        let launch_id = (id % GENERATOR_FACTOR) as u32;
        Ok(DecimalIdParts {
            counter,
            generator_id,
            launch_id,
        })
    }
}

/// The readable form `counter ggggg lllll`: the counter, then generator ID
/// and launch ID zero-padded to five digits.
///
/// ```
/// use flakeid_schemes::DecimalIdParts;
/// let p = DecimalIdParts::decompose(14_150_009_200_065)?;
/// assert_eq!(p.to_string(), "1415 00092 00065");
/// # Ok::<(), flakeid_schemes::DecimalIdError>(())
/// ```
impl fmt::Display for DecimalIdParts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:05} {:05}",
            self.counter, self.generator_id, self.launch_id
        )
    }
}

const COUNTER_FACTOR: u64 = 10_000_000_000;
const GENERATOR_FACTOR: u64 = 100_000;

#[inline]
const fn compose(counter: u64, generator_id: u32, launch_id: u32) -> u64 {
    counter * COUNTER_FACTOR + generator_id as u64 * GENERATOR_FACTOR + launch_id as u64
}

fn check_generator_id(generator_id: u32) -> Result<(), DecimalIdError> {
    if generator_id > DecimalIdScheme::MAX_GENERATOR_ID {
        return Err(DecimalIdError::GeneratorIdOutOfRange {
            generator_id,
            max: DecimalIdScheme::MAX_GENERATOR_ID,
        });
    }
    Ok(())
}
