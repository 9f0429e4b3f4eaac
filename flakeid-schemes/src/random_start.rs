//! A random starting sequence per tick; see [`RandomStart`].

use flakeid_core::layout::{DecodeLayout, Layout, LayoutError, Parts};
use flakeid_core::{ConfigError, GlobalScheme, IdSource, NodeConfig};
use rand::RngExt as _;

/// A random starting sequence per tick, for any layout.
///
/// [`RandomStart`] wraps a [`Layout`] so that each tick's sequence starts
/// at a pseudo-random value in `0..start_range` and counts up from there.
/// The first IDs of a tick are then not `…000`, `…001`: an observer cannot
/// read how many IDs a node issued in a tick from the sequence field, and
/// IDs are harder to guess than plain counters.
///
/// Unlike random low bits ([`RandomKeys`](crate::RandomKeys)), this keeps every
/// guarantee of the [`Generator`](flakeid_core::Generator): IDs are unique and
/// strictly increasing per generator, because within one tick the start is
/// fixed and the sequence only grows, and a later tick always composes to a
/// larger ID. The price is capacity: a tick holds
/// `sequences_per_tick − start_range` IDs (half the inner layout's by
/// default), because a tick must have room after its highest start.
///
/// The start of tick `t` is SplitMix64 of `seed + t`, reduced to
/// `0..start_range`; the seed is drawn at random (rand's thread generator,
/// seeded from OS entropy) per layout value unless given. This hides volume, it is **not** a secret: an ID still
/// shows its time and node, and the starts are predictable to anyone who
/// knows the seed.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_schemes::RandomStart;
/// use flakeid_core::Generator;
/// use flakeid_core::layout::Layout;
///
/// let layout = RandomStart::new(presets::twitter())?; // starts in 0..2048
/// assert_eq!(layout.sequences_per_tick(), 2048);
/// let generator = Generator::builder(layout, 7).build()?;
/// let (a, b) = (generator.next_id()?, generator.next_id()?);
/// assert!(b > a);
/// // The stored sequence field, read with the plain layout:
/// let stored = presets::twitter().decompose(a).sequence;
/// assert!(stored < 4096);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A layout whose ticks start their sequence at a pseudo-random value;
/// see above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RandomStart<L> {
    inner: L,
    start_range: u64,
    seed: u64,
}

impl<L: Layout> RandomStart<L> {
    /// Wraps `inner` with starts in the lower half of its sequence range
    /// (`0..sequences_per_tick / 2`) and a seed from OS entropy.
    ///
    /// # Errors
    /// [`LayoutError::PartOutOfRange`] when `inner` has fewer than 2
    /// sequence values per tick.
    pub fn new(inner: L) -> Result<Self, LayoutError> {
        let half = inner.sequences_per_tick() / 2;
        Self::with_start_range(inner, half)
    }

    /// Wraps `inner` with starts in `0..start_range`; a tick then holds
    /// `inner.sequences_per_tick() − start_range` IDs.
    ///
    /// # Errors
    /// [`LayoutError::PartOutOfRange`] when `start_range` is 0 or leaves no
    /// sequence value (`start_range >= sequences_per_tick`).
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_schemes::RandomStart;
    /// use flakeid_core::layout::Layout;
    ///
    /// let l = RandomStart::with_start_range(presets::twitter(), 1024)?;
    /// assert_eq!(l.sequences_per_tick(), 3072);
    /// assert!(RandomStart::with_start_range(presets::twitter(), 4096).is_err());
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn with_start_range(inner: L, start_range: u64) -> Result<Self, LayoutError> {
        let seqs = inner.sequences_per_tick();
        if start_range == 0 || start_range >= seqs {
            return Err(LayoutError::PartOutOfRange {
                part: "start range".into(),
                value: start_range,
                max: seqs.saturating_sub(1),
            });
        }
        Ok(RandomStart {
            inner,
            start_range,
            // From the thread's generator, seeded from OS entropy.
            seed: rand::rng().random(),
        })
    }

    /// Uses `seed` for the per-tick starts (reproducible starts, for tests).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The seed of the per-tick starts.
    pub fn seed_value(&self) -> u64 {
        self.seed
    }

    /// The wrapped layout; its `decompose` reads the stored sequence field.
    pub fn inner(&self) -> &L {
        &self.inner
    }

    /// Starts are drawn from `0..start_range`.
    pub fn start_range(&self) -> u64 {
        self.start_range
    }

    /// The stored sequence value of the first ID of `tick`.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_schemes::RandomStart;
    /// use flakeid_core::layout::Layout;
    ///
    /// let l = RandomStart::new(presets::twitter())?.seed(42);
    /// let first = l.compose(1_000, 0, 0);
    /// assert_eq!(presets::twitter().decompose(first).sequence, l.start_of(1_000));
    /// assert!(l.start_of(1_000) < 2048);
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    #[inline]
    pub fn start_of(&self, tick: u64) -> u64 {
        below(
            mix(self
                .seed
                .wrapping_add(tick.wrapping_add(1).wrapping_mul(GAMMA))),
            self.start_range,
        )
    }
}

impl<L: Layout> Layout for RandomStart<L> {
    type Raw = L::Raw;

    fn tick_millis(&self) -> u64 {
        self.inner.tick_millis()
    }
    fn epoch_millis(&self) -> u64 {
        self.inner.epoch_millis()
    }
    fn max_tick(&self) -> u64 {
        self.inner.max_tick()
    }
    fn sequences_per_tick(&self) -> u64 {
        self.inner.sequences_per_tick() - self.start_range
    }
    fn max_node(&self) -> u64 {
        self.inner.max_node()
    }
    #[inline]
    fn compose(&self, tick: u64, node: u64, sequence: u64) -> L::Raw {
        self.inner
            .compose(tick, node, sequence + self.start_of(tick))
    }
    /// The sequence counted from the tick's start. Exact for IDs composed
    /// with the same seed; for an ID of another seed use
    /// [`inner`](RandomStart::inner)`.decompose` (time and node are the same
    /// either way).
    fn decompose(&self, id: L::Raw) -> Parts {
        let p = self.inner.decompose(id);
        Parts {
            sequence: p.sequence.saturating_sub(self.start_of(p.tick)),
            ..p
        }
    }
}

/// SplitMix64's output function (Steele, Lea, Flood 2014): a bijection on
/// `u64` that spreads every input bit over the output. A tick's start is
/// `mix(seed + (tick + 1) · γ)` (the stream's `tick`-th output): the same for every ID of the tick (it must be),
/// unpredictable without the seed, with no state to share between threads.
#[inline]
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64's increment (2^64 / golden ratio, odd).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// Maps a uniform 64-bit value onto `0..n` (`n >= 1`) by multiply-high
/// (Lemire); the bias is below `n / 2^64`.
#[inline]
const fn below(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

// Decodes with the inner layout: the `sequence` field is the stored value
// (the tick's random start plus the count), because the start depends on
// the seed of the process that issued the ID. Its key bounds hold the IDs
// of every seed, whose ticks start anywhere in the stored sequence field.
flakeid_core::__private::scheme_of!(impl[L: DecodeLayout] RandomStart<L>, |random_start| random_start.inner());

/// A [`Generator`](flakeid_core::Generator) of the layout for the
/// process's node ID and policies. Two random-start schemes are the same
/// when their inner layouts and start ranges are (the seed differs from
/// process to process).
impl<L: DecodeLayout + GlobalScheme + Clone + PartialEq> GlobalScheme for RandomStart<L> {
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        config.generator(self.clone())
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        (other as &dyn std::any::Any)
            .downcast_ref::<Self>()
            .is_some_and(|o| o.inner() == self.inner() && o.start_range() == self.start_range())
    }
}
