//! [`DecimalIdGenerator`]: DecimalIds for one launch, and the generator as
//! an [`IdScheme`](flakeid_core::IdScheme) and
//! [`IdSource`](flakeid_core::IdSource).

use core::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::{DecimalIdError, DecimalIdScheme, GeneratorIdSource, check_generator_id, compose};

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
