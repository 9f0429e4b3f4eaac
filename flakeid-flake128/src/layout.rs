//! The flake128 layout; see [`Flake128Layout`](crate::Flake128Layout).

use flakeid_core::layout::{Layout, Parts};

/// The 128-bit flake layout of Boundary's `flake` (and .NET's Rustflakes):
/// 64 bits of milliseconds since the Unix epoch, 48 bits of worker ID
/// (traditionally a MAC address) and 16 bits of sequence, most significant
/// first.
///
/// ```text
///  127                     64 63                      16 15        0
/// +-------------------------+--------------------------+-----------+
/// | ms since 1970 (64 bits) |   worker (48 bits, MAC)  | seq (16)  |
/// +-------------------------+--------------------------+-----------+
/// ```
///
/// IDs are `u128`s; the typed value with text, byte and serde forms is
/// [`Flake128`](crate::Flake128).
///
/// # Capacity and horizon
///
/// * 65,536 IDs per millisecond per worker (65.5 million per second).
/// * The time field holds 64 bits, but a [`Generator`](flakeid_core::Generator)
///   keeps its last `(tick, sequence)` in one 64-bit word: with 16 sequence
///   bits and one flag bit that leaves 47 bits for the tick. The layout's
///   [`max_tick`](Layout::max_tick) is therefore [`Flake128Layout::MAX_MILLIS`]
///   (2^47 − 2 ms), so generation stops with
///   [`GenerateError::TimeExhausted`](flakeid_core::GenerateError::TimeExhausted) at
///   Unix millisecond 140,737,488,355,327 (6429-10-17T02:45:55.327Z) instead of
///   overflowing the generator's state. Decoding accepts the full 64-bit
///   time field.
///
/// ```
/// use flakeid_core::Generator;
/// use flakeid_core::layout::Layout;
/// use flakeid_flake128::Flake128Layout;
///
/// let generator = Generator::builder(Flake128Layout, 0x02_42_ac_11_00_02).build()?;
/// let id: u128 = generator.next_id()?;
/// let parts = Flake128Layout.decompose(id);
/// assert_eq!(parts.node, 0x02_42_ac_11_00_02);
/// assert!(parts.tick > 1_700_000_000_000); // milliseconds since 1970
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The Boundary / Rustflakes 128-bit layout: 64 bits ms since 1970, 48 bits
/// worker, 16 bits sequence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Flake128Layout;

impl Flake128Layout {
    /// Builds a flake from its parts without range checks beyond masking
    /// (`worker` to 48 bits, `sequence` to 16 bits).
    ///
    /// ```
    /// use flakeid_flake128::Flake128Layout;
    /// assert_eq!(Flake128Layout::pack(1, 2, 3), (1u128 << 64) | (2 << 16) | 3);
    /// ```
    pub const fn pack(millis: u64, worker: u64, sequence: u64) -> u128 {
        ((millis as u128) << 64)
            | (((worker & Flake128Layout::MAX_WORKER) as u128) << Flake128Layout::SEQUENCE_BITS)
            | ((sequence & (Flake128Layout::SEQUENCES_PER_MILLI - 1)) as u128)
    }

    /// Splits a flake into `(millis, worker, sequence)`.
    ///
    /// ```
    /// use flakeid_flake128::Flake128Layout;
    /// assert_eq!(Flake128Layout::unpack((7u128 << 64) | (9 << 16) | 65_535), (7, 9, 65_535));
    /// ```
    pub const fn unpack(id: u128) -> (u64, u64, u64) {
        (
            (id >> 64) as u64,
            ((id >> Flake128Layout::SEQUENCE_BITS) as u64) & Flake128Layout::MAX_WORKER,
            (id as u64) & (Flake128Layout::SEQUENCES_PER_MILLI - 1),
        )
    }
}

impl Layout for Flake128Layout {
    type Raw = u128;

    fn tick_millis(&self) -> u64 {
        1
    }

    fn epoch_millis(&self) -> u64 {
        0
    }

    fn max_tick(&self) -> u64 {
        Flake128Layout::MAX_MILLIS
    }

    fn sequences_per_tick(&self) -> u64 {
        Flake128Layout::SEQUENCES_PER_MILLI
    }

    fn max_node(&self) -> u64 {
        Flake128Layout::MAX_WORKER
    }

    fn compose(&self, tick: u64, node: u64, sequence: u64) -> u128 {
        Self::pack(tick, node, sequence)
    }

    fn decompose(&self, id: u128) -> Parts {
        let (tick, node, sequence) = Self::unpack(id);
        Parts {
            tick,
            node,
            sequence,
        }
    }
}

impl Flake128Layout {
    /// Bits of the time field (milliseconds since the Unix epoch).
    pub const TIME_BITS: u32 = 64;

    /// Bits of the worker field.
    pub const WORKER_BITS: u32 = 48;

    /// Bits of the sequence field.
    pub const SEQUENCE_BITS: u32 = 16;

    /// The largest worker ID: `2^48 − 1` (any MAC address).
    pub const MAX_WORKER: u64 = (1 << Self::WORKER_BITS) - 1;

    /// Sequence numbers per millisecond: `2^16`.
    pub const SEQUENCES_PER_MILLI: u64 = 1 << Self::SEQUENCE_BITS;

    /// The last millisecond (since 1970) a generator stamps: `2^47 − 2`, the
    /// largest tick a generator's 64-bit state word holds next to 16 sequence
    /// bits and a flag bit (less one, so that the next tick never overflows).
    pub const MAX_MILLIS: u64 = (1 << 47) - 2;
}
