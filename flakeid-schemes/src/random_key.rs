//! The random key scheme; see [`RandomKeys`].

use core::fmt;
use std::ops::{Bound, RangeInclusive};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use flakeid_core::__private::layout_bounds;
use flakeid_core::layout::{BitLayout, DecodeLayout, Layout, LayoutError, Parts};
use flakeid_core::{
    Clock, ConfigError, Decoded, FieldOutOfRange, GenerateError, GlobalScheme, IdScheme, IdSource,
    MonotonicClock, NodeConfig, TimeBoundsError,
};
use rand::rngs::SmallRng;
use rand::{RngExt as _, SeedableRng as _};

/// Issues IDs whose sequence field is a random number in
/// `1..sequences_per_tick` (`1..=8191` for 13 bits) instead of a counter.
///
/// Works with any [`Layout`]: [`presets::nonsequential`](flakeid_core::layout::presets::nonsequential)
/// for the published scheme, a [`DecimalLayout`](crate::DecimalLayout)
/// for the random variant of the 13 + 6 + 1 digit scheme. Lock-free
/// (one `fetch_add` per ID) and `Send + Sync`. IDs are never 0 (the random
/// part is at least 1) but **can repeat**: see the
/// [`RandomKeys`] documentation for how often.
///
/// ```
/// use std::sync::Arc;
/// use flakeid_core::layout::presets;
/// use flakeid_core::ManualClock;
/// use flakeid_schemes::RandomKeyGenerator;
///
/// let clock = Arc::new(ManualClock::new(1_750_000_000_000));
/// let generator = RandomKeyGenerator::builder(presets::nonsequential(), 3).clock(clock).build()?;
/// assert_eq!(generator.values_per_tick(), 8191);
/// let (a, b) = (generator.next_id()?, generator.next_id()?); // never waits
/// let (a, b) = (presets::nonsequential().decompose(a), presets::nonsequential().decompose(b));
/// // One millisecond, one node; only the random parts (1..=8191) differ, if they do.
/// assert_eq!((a.tick, a.node), (b.tick, b.node));
/// assert_eq!(a.node, 3);
/// assert!((1..=8191).contains(&a.sequence));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RandomKeyGenerator<L = BitLayout, C = MonotonicClock> {
    layout: L,
    node: u64,
    clock: C,
    random: Random,
    values: u64,
    /// The process's fork tag at build (see [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
    fork_tag: u64,
}

impl<L: fmt::Debug, C> fmt::Debug for RandomKeyGenerator<L, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RandomKeyGenerator")
            .field("layout", &self.layout)
            .field("node", &self.node)
            .field("values", &self.values)
            .finish_non_exhaustive()
    }
}

/// Configures a [`RandomKeyGenerator`].
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::{ConfigError, ManualClock};
/// use flakeid_schemes::RandomKeyGenerator;
///
/// let keys = |seed| {
///     let clock = ManualClock::new(1_750_000_000_000);
///     RandomKeyGenerator::builder(presets::nonsequential(), 3).clock(clock).seed(seed).build()
/// };
/// // A seed makes the keys reproducible (for tests); by default it is random.
/// assert_eq!(keys(42)?.next_id()?, keys(42)?.next_id()?);
/// let e = RandomKeyGenerator::builder(presets::nonsequential(), 1024).build().unwrap_err();
/// assert_eq!(e, ConfigError::NodeOutOfRange { node: 1024, max: 1023 });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct RandomKeyGeneratorBuilder<L, C> {
    layout: L,
    node: u64,
    clock: C,
    seed: Option<u64>,
}

impl<L: Layout> RandomKeyGenerator<L, MonotonicClock> {
    /// Starts configuring a generator for `node` of `layout`.
    pub fn builder(layout: L, node: u64) -> RandomKeyGeneratorBuilder<L, MonotonicClock> {
        RandomKeyGeneratorBuilder {
            layout,
            node,
            clock: MonotonicClock::new(),
            seed: None,
        }
    }
}

impl<L: Layout, C: Clock> RandomKeyGeneratorBuilder<L, C> {
    /// Uses `clock` instead of the current one.
    pub fn clock<C2: Clock>(self, clock: C2) -> RandomKeyGeneratorBuilder<L, C2> {
        RandomKeyGeneratorBuilder {
            layout: self.layout,
            node: self.node,
            clock,
            seed: self.seed,
        }
    }

    flakeid_core::__private::setters! {
        /// Seeds the random numbers (reproducible keys, for tests); by default
        /// the seed comes from OS entropy.
        seed(seed: u64) => seed = Some(seed);
    }

    /// Checks the configuration and builds the generator.
    ///
    /// # Errors
    /// [`ConfigError::NodeOutOfRange`], [`ConfigError::TooFewSequences`]
    /// (fewer than 2 sequence values per tick), [`ConfigError::EpochInFuture`],
    /// [`ConfigError::LayoutExpired`].
    pub fn build(self) -> Result<RandomKeyGenerator<L, C>, ConfigError> {
        let max = self.layout.max_node();
        if self.node > max {
            return Err(ConfigError::NodeOutOfRange {
                node: self.node,
                max,
            });
        }
        let seqs = self.layout.sequences_per_tick();
        if seqs < 2 {
            return Err(ConfigError::TooFewSequences {
                sequences_per_tick: seqs,
                needed: 2,
            });
        }
        let generator = RandomKeyGenerator {
            layout: self.layout,
            node: self.node,
            clock: self.clock,
            random: match self.seed {
                Some(seed) => Random::Seeded(Mutex::new(SmallRng::seed_from_u64(seed))),
                None => Random::Thread,
            },
            values: seqs - 1,
            fork_tag: flakeid_core::__private::fork_tag(),
        };
        let now = generator.clock.now_millis();
        let epoch_millis = generator.layout.epoch_millis();
        if now < epoch_millis {
            return Err(ConfigError::EpochInFuture {
                epoch_millis,
                now_millis: now,
            });
        }
        if generator.tick_at(now) > generator.layout.max_tick() {
            return Err(ConfigError::LayoutExpired {
                end_millis: generator.end_millis(),
                now_millis: now,
            });
        }
        Ok(generator)
    }
}

impl<L: Layout, C: Clock> RandomKeyGenerator<L, C> {
    /// The layout IDs are composed with.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// This generator's node (generator ID).
    pub fn node(&self) -> u64 {
        self.node
    }

    /// How many distinct random values a tick offers (`sequences_per_tick − 1`;
    /// 8191 for 13 bits).
    pub fn values_per_tick(&self) -> u64 {
        self.values
    }

    /// The first Unix millisecond no ID can be stamped with.
    pub fn end_millis(&self) -> u64 {
        self.layout
            .max_tick()
            .saturating_add(1)
            .saturating_mul(self.layout.tick_millis().max(1))
            .saturating_add(self.layout.epoch_millis())
    }

    fn tick_at(&self, now: u64) -> u64 {
        now.saturating_sub(self.layout.epoch_millis()) / self.layout.tick_millis().max(1)
    }

    /// A new ID: the clock's tick, this node, a random number in
    /// `1..sequences_per_tick`. Never waits.
    ///
    /// # Errors
    /// [`GenerateError::TimeExhausted`] past the layout's last tick;
    /// [`GenerateError::Forked`] in a child forked after it was built (its
    /// random numbers would repeat the parent's).
    pub fn next_id(&self) -> Result<L::Raw, GenerateError> {
        if flakeid_core::__private::fork_current_tag() != self.fork_tag {
            return Err(GenerateError::Forked);
        }
        let tick = self.tick_at(self.clock.now_millis());
        if tick > self.layout.max_tick() {
            return Err(GenerateError::TimeExhausted {
                end_millis: self.end_millis(),
            });
        }
        let random = match &self.random {
            Random::Thread => rand::rng().random_range(1..=self.values),
            Random::Seeded(rng) => rng
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .random_range(1..=self.values),
        };
        Ok(self.layout.compose(tick, self.node, random))
    }
}

// ---------------------------------------------------------------------------
// Scheme and source
// ---------------------------------------------------------------------------

/// Random low bits instead of a sequence: the "nonsequential key".
///
/// The scheme: a millisecond timestamp shifted left by 23 bits, a 10-bit
/// generator ID, and a 13-bit random number in `1..=8191`:
///
/// ```text
/// key = (ms << 23) + (generator_id << 13) + random
/// ```
///
/// Keys need no shared state between calls and do not reveal how many keys
/// a node made in a millisecond. They are ordered by time across
/// milliseconds but **not** within one, and **they can collide**: `k` keys
/// of one generator within one millisecond, each drawing one of `v = 8191`
/// values, contain a repeat with probability (birthday bound)
///
/// ```text
/// p(k) = 1 − ∏_{i<k} (1 − i/v)  ≈  1 − exp(−k(k−1) / (2v))
/// ```
///
/// | keys per ms per generator | 2 | 10 | 50 | 100 | 200 |
/// |---|---|---|---|---|---|
/// | p (collision within that ms) | 0.012 % | 0.55 % | 13.9 % | 45.5 % | 91.4 % |
///
/// ([`RandomKeys::collision_probability`] computes it exactly.) A database with a
/// primary key rejects the repeat, so the insert must be retried with a new
/// key. When that is not acceptable use a sequence — the same bit layout
/// with a [`Generator`](flakeid_core::Generator) ([`presets::nonsequential`]) —
/// or a random *starting* sequence per tick, which is collision-free and
/// still hides volume ([`RandomStart`](crate::RandomStart)).
///
/// # Epoch and sign
///
/// As published, with the Unix epoch, 41 bits of milliseconds shifted by 23
/// fill all 64 bits: every key made since 2004-11-03 has the top bit set and
/// is **negative** as a signed BIGINT, and the time bits run out on
/// 2039-09-07. [`RandomKeys::compose_unix_u64`] / [`RandomKeys::decompose_unix_u64`] reproduce that
/// form, to read keys made by the original code. flakeid's layout
/// ([`presets::nonsequential`]) keeps the 10 + 13 low bits and counts 40 bits
/// of milliseconds since 2024-01-01, so keys stay in `1..=2^63−1` until
/// 2058-11-03T19:53:47.776Z.
///
/// ```
/// use flakeid_core::layout::Layout;
/// use flakeid_core::layout::presets;
/// use flakeid_schemes::RandomKeyGenerator;
///
/// let generator = RandomKeyGenerator::builder(presets::nonsequential(), 1).build()?;
/// let key = generator.next_id()?;
/// let parts = presets::nonsequential().decompose(key);
/// assert_eq!(parts.node, 1);
/// assert!((1..=8191).contains(&parts.sequence));
/// assert!(key <= i64::MAX as u64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`presets::nonsequential`]: flakeid_core::layout::presets::nonsequential
///
/// The rules of random-key IDs of a layout: the layout's, with the random
/// part (the sequence field) at least 1. Pure data: checking and decoding
/// need no generator.
///
/// ```
/// use flakeid_core::IdScheme;
/// use flakeid_core::layout::Layout;
/// use flakeid_core::layout::presets;
/// use flakeid_schemes::RandomKeys;
///
/// let scheme = RandomKeys(presets::nonsequential());
/// let id = presets::nonsequential().compose(5, 1, 0);
/// assert!(scheme.check(id).is_err()); // random part 0
/// assert!(scheme.check(id + 1).is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RandomKeys<L>(pub L);

impl<L: DecodeLayout> IdScheme for RandomKeys<L> {
    fn max_id(&self) -> u64 {
        self.0.max_id()
    }

    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        let random = self.0.decompose(id).sequence;
        if random == 0 {
            return Err(FieldOutOfRange {
                field: "sequence",
                value: random,
                min: 1,
                max: self.0.sequences_per_tick() - 1,
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> Decoded {
        self.0.decode(id)
    }

    /// The layout's example with random part 1; `None` for a layout
    /// without sequence bits, which has no valid random key.
    fn example_id(&self) -> Option<u64> {
        (self.0.sequences_per_tick() > 1).then(|| flakeid_core::__private::example_id(&self.0, 1))
    }

    /// From node 0, random part 1 of the range's first tick to the largest
    /// node and random part of its last: both are valid random keys.
    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        layout_bounds(&self.0, start, end, 1)
    }
}

/// A [`RandomKeyGenerator`] for the process's node ID.
impl<L: DecodeLayout + Clone + PartialEq> flakeid_core::GlobalScheme for RandomKeys<L> {
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        let max = self.0.max_node();
        let generator = RandomKeyGenerator::builder(self.0.clone(), config.node())
            .build()
            .map_err(|e| config.node_error(e, max))?;
        Ok(Box::new(generator))
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        (other as &dyn core::any::Any).downcast_ref::<Self>() == Some(self)
    }
}

impl<L: DecodeLayout + Clone, C: Clock> IdScheme for RandomKeyGenerator<L, C> {
    fn max_id(&self) -> u64 {
        self.layout().max_id()
    }

    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        RandomKeys(self.layout().clone()).check(id)
    }

    fn decode(&self, id: u64) -> Decoded {
        self.layout().decode(id)
    }

    fn example_id(&self) -> Option<u64> {
        RandomKeys(self.layout().clone()).example_id()
    }

    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        layout_bounds(self.layout(), start, end, 1)
    }
}

impl<L: DecodeLayout + Clone, C: Clock> IdSource for RandomKeyGenerator<L, C> {
    fn next_id(&self) -> Result<u64, GenerateError> {
        RandomKeyGenerator::next_id(self)
    }
}

impl RandomKeys<BitLayout> {
    /// Bits of the generator ID in the published scheme.
    pub const GENERATOR_BITS: u32 = 10;

    /// Bits of the random number in the published scheme.
    pub const RANDOM_BITS: u32 = 13;

    /// The probability that `k` values drawn uniformly from `values` possible
    /// values contain a repeat: `1 − ∏_{i<k} (1 − i/values)` (exact).
    ///
    /// ```
    /// use flakeid_schemes::RandomKeys;
    /// assert_eq!(RandomKeys::collision_probability(1, 8191), 0.0);
    /// assert!((RandomKeys::collision_probability(2, 8191) - 1.0 / 8191.0).abs() < 1e-15);
    /// let (exact, approx) = (RandomKeys::collision_probability(50, 8191), RandomKeys::collision_probability_approx(50, 8191));
    /// assert!((exact - 0.1392).abs() < 1e-3 && (approx - exact).abs() < 1e-3);
    /// assert_eq!(RandomKeys::collision_probability(8192, 8191), 1.0);
    /// ```
    pub fn collision_probability(k: u64, values: u64) -> f64 {
        if k > values {
            return 1.0;
        }
        let mut none = 1.0f64;
        for i in 1..k {
            none *= 1.0 - i as f64 / values as f64;
        }
        1.0 - none
    }

    /// The birthday-bound approximation `1 − exp(−k(k−1) / (2·values))` of
    /// [`RandomKeys::collision_probability`].
    pub fn collision_probability_approx(k: u64, values: u64) -> f64 {
        let k = k as f64;
        1.0 - (-(k * (k - 1.0)) / (2.0 * values as f64)).exp()
    }

    /// The published key with the Unix epoch as an unsigned 64-bit value:
    /// `(unix_millis << 23) + (generator_id << 13) + random`.
    ///
    /// For reading and reproducing keys made by the original code; such keys
    /// above `2^63 − 1` are not valid flakeid IDs.
    ///
    /// # Errors
    /// [`LayoutError::PartOutOfRange`] when `unix_millis ≥ 2^41`,
    /// `generator_id ≥ 2^10` or `random ≥ 2^13`.
    ///
    /// ```
    /// use flakeid_schemes::RandomKeys;
    /// let key = RandomKeys::compose_unix_u64(1_346_472_000_000, 1, 1)?; // 2012-09-01
    /// assert_eq!(
    ///     format!("{key:#b}"),
    ///     "0b1001110010111111111111100001110100000000000000000010000000000001"
    /// );
    /// assert!((key as i64) < 0); // negative as a signed BIGINT
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn compose_unix_u64(
        unix_millis: u64,
        generator_id: u64,
        random: u64,
    ) -> Result<u64, LayoutError> {
        let time_bits = 64 - Self::GENERATOR_BITS - Self::RANDOM_BITS;
        for (part, value, bits) in [
            ("tick", unix_millis, time_bits),
            ("node", generator_id, Self::GENERATOR_BITS),
            ("sequence", random, Self::RANDOM_BITS),
        ] {
            if value >> bits != 0 {
                return Err(LayoutError::PartOutOfRange {
                    part: part.into(),
                    value,
                    max: (1 << bits) - 1,
                });
            }
        }
        Ok((unix_millis << (Self::GENERATOR_BITS + Self::RANDOM_BITS))
            | (generator_id << Self::RANDOM_BITS)
            | random)
    }

    /// Splits a key of the published Unix-epoch form into `tick` (Unix
    /// milliseconds), `node` (generator ID) and `sequence` (the random number).
    ///
    /// ```
    /// use flakeid_core::layout::Parts;
    /// use flakeid_schemes::RandomKeys;
    /// // A key printed by the original Python code.
    /// let p = RandomKeys::decompose_unix_u64(11_402_993_483_053_546_203);
    /// assert_eq!(p.node, 1);
    /// assert_eq!(p.tick, 1_359_342_751_867); // 2013-01-28T03:12:31.867Z
    /// assert_eq!(p.sequence, 6875);
    /// ```
    pub const fn decompose_unix_u64(key: u64) -> Parts {
        Parts {
            tick: key >> (Self::GENERATOR_BITS + Self::RANDOM_BITS),
            node: (key >> Self::RANDOM_BITS) & ((1 << Self::GENERATOR_BITS) - 1),
            sequence: key & ((1 << Self::RANDOM_BITS) - 1),
        }
    }
}

/// Where a generator's random parts come from: the thread's generator
/// (seeded from the operating system), or one seeded for reproducible keys.
enum Random {
    Thread,
    Seeded(Mutex<SmallRng>),
}
