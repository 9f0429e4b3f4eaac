//! ID layouts: how an ID is split into a time field, a node field and a
//! sequence field.
//!
//! The [`Layout`] trait is everything a [`Generator`](crate::Generator)
//! needs to know about a layout. [`BitLayout`] implements it for the
//! Snowflake family (bit fields in a 63-bit or 53-bit domain); the
//! `flakeid-schemes` crate's `DecimalLayout` (decimal digit fields) and
//! `RandomStart` (a random starting sequence per tick, around any layout)
//! and the `flakeid-flake128` crate's `Flake128Layout` (128-bit flakes)
//! implement the same trait.

mod bits;
mod error;
pub mod presets;
pub(crate) mod time;

pub use bits::{BitLayout, BitLayoutBuilder, Domain, FieldOrder, NodeField};
pub use error::LayoutError;

/// A 64-bit [`Layout`] that is also an [`IdScheme`](crate::IdScheme), so
/// that a [`Generator`](crate::Generator) running it is an
/// [`IdSource`](crate::IdSource): every 64-bit layout of flakeid's crates.
pub trait DecodeLayout: Layout<Raw = u64> + crate::IdScheme {}

impl<L: Layout<Raw = u64> + crate::IdScheme> DecodeLayout for L {}

use core::fmt::Debug;

/// The three parts every time-ordered ID is made of, as raw field values.
///
/// ```
/// use flakeid_core::layout::{presets, Parts};
///
/// let discord = presets::discord();
/// let parts = discord.decompose(175_928_847_299_117_063);
/// assert_eq!(parts, Parts { tick: 41_944_705_796, node: 32, sequence: 7 });
/// assert_eq!(discord.compose(parts.tick, parts.node, parts.sequence), 175_928_847_299_117_063);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Parts {
    /// Time since the layout's epoch, in ticks of [`Layout::tick_millis`].
    pub tick: u64,
    /// The node (worker, machine, shard …) that generated the ID.
    pub node: u64,
    /// The position of the ID within its tick.
    pub sequence: u64,
}

/// What a generator needs to know about an ID layout.
///
/// Implementations must uphold:
/// * `compose` is strictly increasing in `(tick, sequence)` for a fixed
///   node (time-ordered IDs from one generator are increasing);
/// * `decompose(compose(t, n, s)) == Parts { tick: t, node: n, sequence: s }`
///   for every `t <= max_tick()`, `n <= max_node()`, `s < sequences_per_tick()`;
/// * every composed ID except `compose(0, n, 0)` is within the layout's
///   domain and non-zero (a generator never issues `(tick 0, sequence 0)`).
///
/// ```
/// use std::sync::Arc;
/// use flakeid_core::layout::{Layout, Parts};
/// use flakeid_core::{Generator, ManualClock};
///
/// /// Seconds since 2024 above 4 node bits and 8 sequence bits.
/// #[derive(Debug)]
/// struct Seconds;
///
/// impl Layout for Seconds {
///     type Raw = u64;
///     fn tick_millis(&self) -> u64 { 1_000 }
///     fn epoch_millis(&self) -> u64 { 1_704_067_200_000 }
///     fn max_tick(&self) -> u64 { (1 << 40) - 1 }
///     fn sequences_per_tick(&self) -> u64 { 256 }
///     fn max_node(&self) -> u64 { 15 }
///     fn compose(&self, t: u64, n: u64, s: u64) -> u64 { (t << 12) | (n << 8) | s }
///     fn decompose(&self, id: u64) -> Parts {
///         Parts { tick: id >> 12, node: (id >> 8) & 15, sequence: id & 255 }
///     }
/// }
///
/// // 5.5 s after the epoch: no ID in the build tick, so the first is in tick 6.
/// let clock = Arc::new(ManualClock::new(1_704_067_200_000 + 5_500));
/// let generator = Generator::builder(Seconds, 3).clock(clock).build()?;
/// let parts = Seconds.decompose(generator.next_id()?);
/// assert_eq!((parts.tick, parts.node), (6, 3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Layout: Send + Sync + Debug + 'static {
    /// The integer an ID is: `u64` for 64-bit layouts, `u128` for 128-bit flakes.
    type Raw: Copy + Ord + Debug + Send + Sync + 'static;

    /// Length of one tick, in milliseconds (1 for most layouts, 10 for Sonyflake, 1000 for LSID).
    fn tick_millis(&self) -> u64;
    /// The layout's epoch, in milliseconds since the Unix epoch.
    fn epoch_millis(&self) -> u64;
    /// The largest tick the time field can hold; generating past it is an error.
    fn max_tick(&self) -> u64;
    /// How many sequence values one tick holds (`0..sequences_per_tick()`); at least 1.
    fn sequences_per_tick(&self) -> u64;
    /// The largest node value.
    fn max_node(&self) -> u64;
    /// Builds an ID from its parts. The caller guarantees each part is in range.
    fn compose(&self, tick: u64, node: u64, sequence: u64) -> Self::Raw;
    /// Splits an ID into its parts.
    fn decompose(&self, id: Self::Raw) -> Parts;
}

/// [`Layout`] for a 64-bit layout whose own fields and methods say it:
/// fields `tick_millis` and `epoch_millis`, methods `max_tick`,
/// `capacity_per_tick` (the sequences of a tick), `max_node`, `compose`
/// and `decompose`.
macro_rules! impl_layout {
    ($ty:ty) => {
        impl $crate::layout::Layout for $ty {
            type Raw = u64;

            fn tick_millis(&self) -> u64 {
                self.tick_millis
            }
            fn epoch_millis(&self) -> u64 {
                self.epoch_millis
            }
            fn max_tick(&self) -> u64 {
                <$ty>::max_tick(self)
            }
            fn sequences_per_tick(&self) -> u64 {
                self.capacity_per_tick()
            }
            fn max_node(&self) -> u64 {
                <$ty>::max_node(self)
            }
            #[inline]
            fn compose(&self, tick: u64, node: u64, sequence: u64) -> u64 {
                <$ty>::compose(self, tick, node, sequence)
            }
            fn decompose(&self, id: u64) -> $crate::layout::Parts {
                <$ty>::decompose(self, id)
            }
        }
    };
}

use impl_layout;
