//! The decimal id scheme; see [`DecimalIdScheme`].

use core::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use thiserror::Error;

use flakeid_core::ConfigError;

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

/// Hands out generator IDs from a counter shared by the whole system
/// (e.g. a database sequence); every call returns a value no generator of
/// the same launch has had.
///
/// Called when a [`DecimalIdGenerator`] is built and each time its counter
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

/// Issues DecimalIds for one launch; lock-free while its counter lasts.
///
/// The state is one `AtomicU64` holding the current generator ID and the
/// last issued counter, so `next_id` is one compare-and-swap. When the
/// counter reaches its maximum, one thread (under a mutex) takes a new
/// generator ID from the source while the others wait for it.
///
/// ```
/// use std::sync::atomic::AtomicU32;
/// use flakeid_schemes::DecimalIdGenerator;
///
/// // Launch 65; generator IDs from a counter the whole system shares (in memory here).
/// let generator = DecimalIdGenerator::builder(65, AtomicU32::new(92)).max_counter(2).build()?;
/// assert_eq!(generator.next_id()?, 10_009_200_065); // counter 1, generator 92, launch 65
/// assert_eq!(generator.next_id()?, 20_009_200_065);
/// // The counter is used up: the next ID has a new generator ID.
/// assert_eq!(generator.next_id()?, 10_009_300_065);
/// assert_eq!((generator.launch_id(), generator.generator_id()), (65, 93));
/// # Ok::<(), flakeid_schemes::DecimalIdError>(())
/// ```
pub struct DecimalIdGenerator<S> {
    /// `generator_id << 32 | last issued counter` (0 = none yet).
    state: AtomicU64,
    launch_id: u32,
    max_counter: u64,
    source: S,
    /// Generator IDs this generator has used; a repeat would repeat IDs.
    refill: Mutex<Vec<u32>>,
    /// The process's fork tag at build (see [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    fork_tag: u64,
}

impl<S> fmt::Debug for DecimalIdGenerator<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (generator_id, counter) = unpack(self.state.load(Ordering::Relaxed));
        f.debug_struct("DecimalIdGenerator")
            .field("launch_id", &self.launch_id)
            .field("generator_id", &generator_id)
            .field("last_counter", &counter)
            .field("max_counter", &self.max_counter)
            .finish_non_exhaustive()
    }
}

/// Configures a [`DecimalIdGenerator`].
#[derive(Debug)]
pub struct DecimalIdGeneratorBuilder<S> {
    launch_id: u32,
    source: S,
    allow_test_launch_id: bool,
    max_counter: u64,
}

impl<S: GeneratorIdSource> DecimalIdGenerator<S> {
    /// Starts configuring a generator for `launch_id` taking generator IDs
    /// from `source`.
    pub fn builder(launch_id: u32, source: S) -> DecimalIdGeneratorBuilder<S> {
        DecimalIdGeneratorBuilder {
            launch_id,
            source,
            allow_test_launch_id: false,
            max_counter: DecimalIdScheme::MAX_COUNTER,
        }
    }

    /// The launch ID in every ID.
    pub fn launch_id(&self) -> u32 {
        self.launch_id
    }

    /// The generator ID in use.
    pub fn generator_id(&self) -> u32 {
        unpack(self.state.load(Ordering::Relaxed)).0
    }

    /// The largest counter before a new generator ID is taken.
    pub fn max_counter(&self) -> u64 {
        self.max_counter
    }

    /// The source generator IDs come from.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// A new ID.
    ///
    /// # Errors
    /// When the counter has run out and no new generator ID can be had:
    /// [`DecimalIdError::Source`] (the source failed; the next call tries
    /// again), [`DecimalIdError::GeneratorIdOutOfRange`] (the system's
    /// generator IDs are used up), [`DecimalIdError::GeneratorIdRepeated`].
    pub fn next_id(&self) -> Result<u64, DecimalIdError> {
        if flakeid_core::__private::fork_current_tag() != self.fork_tag {
            return Err(DecimalIdError::Forked);
        }
        let mut last = self.state.load(Ordering::Acquire);
        loop {
            let (generator_id, counter) = unpack(last);
            if counter >= self.max_counter {
                self.refill(last)?;
                last = self.state.load(Ordering::Acquire);
                continue;
            }
            // Relaxed on success: uniqueness comes from this one atomic's
            // modification order; Acquire pairs with the refill's Release.
            match self.state.compare_exchange_weak(
                last,
                last + 1,
                Ordering::Relaxed,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(compose(counter + 1, generator_id, self.launch_id)),
                Err(actual) => last = actual,
            }
        }
    }

    /// Takes a new generator ID if the state is still the exhausted `seen`.
    #[cold]
    fn refill(&self, seen: u64) -> Result<(), DecimalIdError> {
        // A panicking source leaves the list intact (it is pushed to only
        // after success), so a poisoned lock is safe to use.
        let mut used = self.refill.lock().unwrap_or_else(PoisonError::into_inner);
        if self.state.load(Ordering::Acquire) != seen {
            return Ok(()); // another thread refilled meanwhile
        }
        let generator_id = take_generator_id(&self.source, &used)?;
        used.push(generator_id);
        self.state.store(pack(generator_id, 0), Ordering::Release);
        Ok(())
    }
}

impl<S: GeneratorIdSource> DecimalIdGeneratorBuilder<S> {
    /// Accepts launch ID 0, which is reserved for tests.
    pub fn allow_test_launch_id(mut self) -> Self {
        self.allow_test_launch_id = true;
        self
    }

    flakeid_core::__private::setters! {
        /// Takes a new generator ID after `max` IDs instead of 922,337,202
        /// (`1..=922,337,202`). [`DecimalIdScheme::JS_SAFE_MAX_COUNTER`] keeps every ID at most
        /// `2^53 − 1`; small values make the refill path testable.
        max_counter(max: u64) => max_counter = max;
    }

    /// Checks the configuration, takes the first generator ID from the
    /// source and builds the generator.
    ///
    /// # Errors
    /// [`DecimalIdError::TestLaunchId`], [`DecimalIdError::LaunchIdOutOfRange`],
    /// [`DecimalIdError::CounterOutOfRange`] (for `max_counter`), and the
    /// errors of taking a generator ID (see [`DecimalIdGenerator::next_id`]).
    ///
    /// ```
    /// use std::sync::atomic::AtomicU32;
    /// use flakeid_schemes::{DecimalIdError, DecimalIdGenerator};
    ///
    /// let source = AtomicU32::new(0);
    /// let e = DecimalIdGenerator::builder(0, &source).build().unwrap_err();
    /// assert!(matches!(e, DecimalIdError::TestLaunchId));
    /// let test_only = DecimalIdGenerator::builder(0, &source).allow_test_launch_id().build()?;
    /// assert_eq!(test_only.next_id()?, 10_000_000_000); // counter 1, generator 0, launch 0
    /// # Ok::<(), DecimalIdError>(())
    /// ```
    pub fn build(self) -> Result<DecimalIdGenerator<S>, DecimalIdError> {
        if self.launch_id == 0 && !self.allow_test_launch_id {
            return Err(DecimalIdError::TestLaunchId);
        }
        if self.launch_id > DecimalIdScheme::MAX_LAUNCH_ID {
            return Err(DecimalIdError::LaunchIdOutOfRange {
                launch_id: self.launch_id,
                max: DecimalIdScheme::MAX_LAUNCH_ID,
            });
        }
        if !(1..=DecimalIdScheme::MAX_COUNTER).contains(&self.max_counter) {
            return Err(DecimalIdError::CounterOutOfRange {
                counter: self.max_counter,
                max: DecimalIdScheme::MAX_COUNTER,
            });
        }
        let fork_tag = flakeid_core::__private::fork_tag();
        let generator_id = take_generator_id(&self.source, &[])?;
        Ok(DecimalIdGenerator {
            state: AtomicU64::new(pack(generator_id, 0)),
            launch_id: self.launch_id,
            max_counter: self.max_counter,
            source: self.source,
            refill: Mutex::new(vec![generator_id]),
            fork_tag,
        })
    }
}

// ---------------------------------------------------------------------------
// Scheme and source
// ---------------------------------------------------------------------------

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
/// [`DecimalIdScheme`]: a counter shared
/// by the whole system (see [`DecimalIdScheme`]).
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

impl flakeid_core::IdScheme for DecimalIdScheme {
    /// The largest counter with the largest generator and launch IDs.
    fn max_id(&self) -> u64 {
        self.max_counter * COUNTER_FACTOR
            + u64::from(DecimalIdScheme::MAX_GENERATOR_ID) * GENERATOR_FACTOR
            + u64::from(DecimalIdScheme::MAX_LAUNCH_ID)
    }

    fn check(&self, id: u64) -> Result<(), flakeid_core::FieldOutOfRange> {
        let counter = id / COUNTER_FACTOR;
        if counter == 0 {
            return Err(flakeid_core::FieldOutOfRange {
                field: "counter",
                value: 0,
                min: 1,
                max: self.max_counter,
            });
        }
        // Launch 0 is for tests: only a test scheme accepts it.
        if id.is_multiple_of(GENERATOR_FACTOR) && !self.allow_test_launch_id {
            return Err(flakeid_core::FieldOutOfRange {
                field: "launch_id",
                value: 0,
                min: 1,
                max: u64::from(DecimalIdScheme::MAX_LAUNCH_ID),
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> flakeid_core::Decoded {
        use std::borrow::Cow;
        let fields = vec![
            (Cow::Borrowed("counter"), id / COUNTER_FACTOR),
            (
                Cow::Borrowed("generator_id"),
                id / GENERATOR_FACTOR % GENERATOR_FACTOR,
            ),
            (Cow::Borrowed("launch_id"), id % GENERATOR_FACTOR),
        ];
        flakeid_core::Decoded::from_fields(id, None, fields)
    }

    /// Counter 1, generator ID 1, launch ID 1: `10000100001`.
    fn example_id(&self) -> Option<u64> {
        Some(COUNTER_FACTOR + GENERATOR_FACTOR + 1)
    }
}

/// The process's node ID is the launch ID; generator IDs come from the
/// counter installed with [`init_generator_ids`].
impl flakeid_core::GlobalScheme for DecimalIdScheme {
    fn build_source(
        &self,
        config: &flakeid_core::NodeConfig,
    ) -> Result<Box<dyn flakeid_core::IdSource>, flakeid_core::ConfigError> {
        let source = generator_ids().ok_or(ConfigError::MissingGeneratorIds)?;
        let launch_id = u32::try_from(config.node()).unwrap_or(u32::MAX);
        let mut builder =
            DecimalIdGenerator::builder(launch_id, source).max_counter(self.max_counter);
        if self.allow_test_launch_id {
            builder = builder.allow_test_launch_id();
        }
        let generator = builder.build().map_err(|e| match e {
            DecimalIdError::LaunchIdOutOfRange { max, .. } => config.node_error(
                flakeid_core::ConfigError::NodeOutOfRange {
                    node: config.node(),
                    max: u64::from(max),
                },
                u64::from(max),
            ),
            e => flakeid_core::ConfigError::Scheme(flakeid_core::SchemeError::new("DecimalId", e)),
        })?;
        Ok(Box::new(generator))
    }

    fn same_scheme(&self, other: &dyn flakeid_core::GlobalScheme) -> bool {
        (other as &dyn core::any::Any).downcast_ref::<Self>() == Some(self)
    }
}

impl<S: GeneratorIdSource + 'static> DecimalIdGenerator<S> {
    /// The rules of this generator's IDs.
    pub fn scheme(&self) -> DecimalIdScheme {
        DecimalIdScheme {
            max_counter: self.max_counter,
            allow_test_launch_id: self.launch_id == 0,
        }
    }
}

impl<S: GeneratorIdSource + 'static> flakeid_core::IdScheme for DecimalIdGenerator<S> {
    fn max_id(&self) -> u64 {
        self.scheme().max_id()
    }

    fn check(&self, id: u64) -> Result<(), flakeid_core::FieldOutOfRange> {
        self.scheme().check(id)
    }

    fn decode(&self, id: u64) -> flakeid_core::Decoded {
        self.scheme().decode(id)
    }

    fn example_id(&self) -> Option<u64> {
        self.scheme().example_id()
    }
}

/// Errors of the generator come as [`GenerateError::Scheme`](flakeid_core::GenerateError::Scheme)
/// wrapping a [`DecimalIdError`].
impl<S: GeneratorIdSource + 'static> flakeid_core::IdSource for DecimalIdGenerator<S> {
    fn next_id(&self) -> Result<u64, flakeid_core::GenerateError> {
        DecimalIdGenerator::next_id(self)
            .map_err(|e| flakeid_core::SchemeError::new("DecimalId", e).into())
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

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

const COUNTER_FACTOR: u64 = 10_000_000_000;
const GENERATOR_FACTOR: u64 = 100_000;

/// The counter process-wide DecimalId generators take their generator IDs
/// from (installed by [`init_generator_ids`]).
static GENERATOR_IDS: OnceLock<Box<dyn AnyGeneratorIds>> = OnceLock::new();

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

#[inline]
const fn pack(generator_id: u32, counter: u64) -> u64 {
    ((generator_id as u64) << 32) | counter
}

#[inline]
const fn unpack(state: u64) -> (u32, u64) {
    ((state >> 32) as u32, state & 0xFFFF_FFFF)
}

fn take_generator_id<S: GeneratorIdSource>(
    source: &S,
    used: &[u32],
) -> Result<u32, DecimalIdError> {
    let generator_id = source
        .next_generator_id()
        .map_err(|e| DecimalIdError::Source {
            source: Box::new(e),
        })?;
    check_generator_id(generator_id)?;
    if used.contains(&generator_id) {
        return Err(DecimalIdError::GeneratorIdRepeated { generator_id });
    }
    Ok(generator_id)
}

/// The counter installed with [`install_generator_ids`].
fn generator_ids() -> Option<&'static dyn AnyGeneratorIds> {
    GENERATOR_IDS.get().map(|b| &**b)
}
