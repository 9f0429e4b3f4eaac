//! Decimal layouts; see [`DecimalLayout`].

use std::borrow::Cow;
use std::ops::{Bound, RangeInclusive};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::__private::{TimeSettings, end_millis};
use flakeid_core::encoding::DecodeError;
use flakeid_core::layout::{Domain, FieldOrder, Layout, LayoutError, Parts};
use flakeid_core::{
    ConfigError, Decoded, GlobalScheme, IdScheme, IdSource, NodeConfig, TimeBoundsError,
};

/// Decimal layouts: time, sequence and node fields as groups of decimal
/// digits instead of bit fields, so an ID reads as its parts.
///
/// ```text
/// FieldOrder::SequenceThenNode:  id = (tick · 10^s + sequence) · 10^n + node
/// FieldOrder::NodeThenSequence:  id = (tick · 10^n + node) · 10^s + sequence
/// ```
///
/// with `s` sequence digits and `n` node digits. [`DecimalLayout`]
/// implements [`Layout`](flakeid_core::layout::Layout), so a
/// [`Generator`](flakeid_core::Generator) issues decimal IDs exactly as it
/// issues bit-field ones: unique, strictly increasing, never past the
/// last tick that keeps every ID inside the layout's [`Domain`].
///
/// # Time + sequence + server (13 + 6 + 1 digits)
///
/// [`DecimalLayout::time_sequence_server`] is the "BigInt 64-bit UID for
/// MySQL" scheme: 13 digits of milliseconds since a custom epoch, 6 digits,
/// 1 digit of server ID — `id = ms · 10^7 + sequence · 10 + server`.
///
/// * The scheme as published fills the 6 digits with a **random** number
///   (0..=999,999). Two IDs of one server within one millisecond then
///   collide with probability ≈ `1 − exp(−k(k−1)/2,000,000)` for `k` IDs
///   (≈ 5 % at 320 IDs/ms); see `RandomKeys` in `flakeid-schemes` if that is wanted.
///   With a [`Generator`](flakeid_core::Generator) the 6 digits are a per-tick
///   **sequence** instead: 1,000,000 IDs per millisecond per server, never
///   a collision.
/// * **End date.** 13 digits could count 317 years, but the ID must fit a
///   signed BIGINT: the last usable millisecond is
///   `⌊(2^63 − 1 − 9,999,999) / 10^7⌋ = 922,337,203,684` after the epoch,
///   so IDs run out **922,337,203,685 ms ≈ 29.23 years** after the epoch
///   (2053-03-24T04:46:43.685Z for the 2024-01-01 epoch). An unsigned
///   BIGINT column would last `⌊(2^64 − 1 − 9,999,999) / 10^7⌋ + 1 =
///   1,844,674,407,370 ms ≈ 58.45 years` — the published "58 years" — but
///   flakeid keeps IDs positive signed 64-bit values. A generator refuses to
///   issue past the end ([`GenerateError::TimeExhausted`](flakeid_core::GenerateError::TimeExhausted)).
///
/// ```
/// use flakeid_schemes::DecimalLayout;
/// use flakeid_core::Generator;
/// use flakeid_core::layout::Layout;
///
/// let layout = DecimalLayout::time_sequence_server(1_704_067_200_000)?; // 2024-01-01
/// assert_eq!(layout.end_millis(), 1_704_067_200_000 + 922_337_203_685);
///
/// let generator = Generator::builder(layout, 1).build()?;
/// let id = generator.next_id()?;
/// assert_eq!(id % 10, 1); // the last digit is the server
/// let parts = generator.layout().decompose(id);
/// assert_eq!(parts.node, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A layout of decimal digit fields.
///
/// ```
/// use flakeid_core::layout::FieldOrder;
/// use flakeid_schemes::DecimalLayout;
/// use flakeid_core::layout::Layout;
///
/// // 10 digits of seconds, 4 digits of node, 4 digits of sequence.
/// let layout = DecimalLayout::builder()
///     .time_digits(10)
///     .tick_millis(1000)
///     .epoch_millis(1_704_067_200_000)
///     .node_digits(4)
///     .sequence_digits(4)
///     .order(FieldOrder::NodeThenSequence)
///     .build()?;
/// assert_eq!(layout.compose(12, 345, 6789), 12_0345_6789);
/// assert_eq!(layout.fields_string(12_0345_6789), "0000000012 0345 6789");
/// # Ok::<(), flakeid_core::layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecimalLayout {
    time_digits: u8,
    sequence_digits: u8,
    node_digits: u8,
    tick_millis: u64,
    epoch_millis: u64,
    order: FieldOrder,
    domain: Domain,
    max_tick: u64,
}

impl DecimalLayout {
    /// A builder; see [`DecimalLayoutBuilder`] for settings and defaults.
    pub fn builder() -> DecimalLayoutBuilder {
        DecimalLayoutBuilder::default()
    }

    /// 13 digits of milliseconds since `epoch_millis` (Unix ms), 6 digits of
    /// sequence, 1 digit of server: `id = ms · 10^7 + sequence · 10 +
    /// server`, in the signed BIGINT domain. IDs run out 922,337,203,685 ms
    /// (≈ 29.23 years) after the epoch.
    ///
    /// # Errors
    /// [`LayoutError::TimeOverflow`] when the end date is not representable.
    ///
    /// ```
    /// use flakeid_schemes::DecimalLayout;
    /// use flakeid_core::layout::Layout;
    /// use flakeid_core::layout::Parts;
    ///
    /// let layout = DecimalLayout::time_sequence_server(1_293_840_000_000)?; // 2011-01-01
    /// // "Generated about 1 year after epoch. Random number=123456, Server ID=1".
    /// let id = DecimalLayout::parse_padded("00315360000001234561")?;
    /// assert_eq!(layout.decompose(id), Parts { tick: 31_536_000_000, node: 1, sequence: 123_456 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_sequence_server(epoch_millis: u64) -> Result<DecimalLayout, LayoutError> {
        DecimalLayout::builder()
            .time_digits(13)
            .epoch_millis(epoch_millis)
            .sequence_digits(6)
            .node_digits(1)
            .order(FieldOrder::SequenceThenNode)
            .build()
    }

    /// Digits of the time field.
    pub const fn time_digits(&self) -> u32 {
        self.time_digits as u32
    }

    /// Digits of the sequence field.
    pub const fn sequence_digits(&self) -> u32 {
        self.sequence_digits as u32
    }

    /// Digits of the node field.
    pub const fn node_digits(&self) -> u32 {
        self.node_digits as u32
    }

    /// Total digits of a zero-padded ID (time + sequence + node).
    pub const fn total_digits(&self) -> u32 {
        self.time_digits() + self.sequence_digits() + self.node_digits()
    }

    /// Length of one tick.
    pub const fn tick(&self) -> Duration {
        Duration::from_millis(self.tick_millis)
    }

    /// The layout's epoch: the time of tick 0.
    pub fn epoch(&self) -> SystemTime {
        // `build` checked that the (later) end is representable.
        UNIX_EPOCH + Duration::from_millis(self.epoch_millis)
    }

    /// Order of the node and sequence fields.
    pub const fn order(&self) -> FieldOrder {
        self.order
    }

    /// The range of integers this layout's IDs stay in.
    pub const fn domain(&self) -> Domain {
        self.domain
    }

    /// The largest tick: the last one whose every ID is within the domain
    /// (and within the time digits).
    pub const fn max_tick(&self) -> u64 {
        self.max_tick
    }

    /// The largest node value, `10^node_digits − 1`.
    pub const fn max_node(&self) -> u64 {
        pow10(self.node_digits()) - 1
    }

    /// The largest sequence value, `10^sequence_digits − 1`.
    pub const fn max_sequence(&self) -> u64 {
        pow10(self.sequence_digits()) - 1
    }

    /// The largest ID the layout composes.
    pub const fn max_id(&self) -> u64 {
        (self.max_tick + 1) * self.low_modulus() - 1
    }

    /// IDs per node per tick, `10^sequence_digits`.
    pub const fn capacity_per_tick(&self) -> u64 {
        pow10(self.sequence_digits())
    }

    /// IDs per node per second.
    pub fn capacity_per_second(&self) -> f64 {
        self.capacity_per_tick() as f64 * 1000.0 / self.tick_millis as f64
    }

    /// The first Unix millisecond no ID can be stamped with.
    ///
    /// ```
    /// use flakeid_schemes::DecimalLayout;
    /// let l = DecimalLayout::time_sequence_server(0)?;
    /// // The last tick keeps `tick·10^7 + 9,999,999` within 2^63 − 1.
    /// assert_eq!(l.max_tick(), 922_337_203_684);
    /// assert!(l.max_id() <= i64::MAX as u64);
    /// assert!((l.max_tick() + 1) * 10_000_000 + 9_999_999 > i64::MAX as u64);
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub const fn end_millis(&self) -> u64 {
        // `build` checked this does not overflow.
        self.epoch_millis + (self.max_tick + 1) * self.tick_millis
    }

    /// [`end_millis`](Self::end_millis) as a `SystemTime`.
    pub fn end(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.end_millis())
    }

    const fn low_modulus(&self) -> u64 {
        pow10(self.sequence_digits() + self.node_digits())
    }

    /// Builds an ID from its parts; the caller guarantees each is in range.
    pub const fn compose(&self, tick: u64, node: u64, sequence: u64) -> u64 {
        let low = match self.order {
            FieldOrder::SequenceThenNode => sequence * pow10(self.node_digits()) + node,
            FieldOrder::NodeThenSequence => node * pow10(self.sequence_digits()) + sequence,
        };
        tick * self.low_modulus() + low
    }

    /// [`compose`](Self::compose) with each part checked.
    ///
    /// # Errors
    /// [`LayoutError::PartOutOfRange`] naming the part that does not fit.
    pub fn compose_checked(&self, tick: u64, node: u64, sequence: u64) -> Result<u64, LayoutError> {
        for (part, value, max) in [
            ("tick", tick, self.max_tick),
            ("node", node, self.max_node()),
            ("sequence", sequence, self.max_sequence()),
        ] {
            if value > max {
                return Err(LayoutError::PartOutOfRange {
                    part: part.into(),
                    value,
                    max,
                });
            }
        }
        Ok(self.compose(tick, node, sequence))
    }

    /// Splits an ID into its parts (the tick of an ID above
    /// [`max_id`](Self::max_id) is above [`max_tick`](Self::max_tick)).
    pub const fn decompose(&self, id: u64) -> Parts {
        let low_mod = self.low_modulus();
        let (tick, low) = (id / low_mod, id % low_mod);
        let (node, sequence) = match self.order {
            FieldOrder::SequenceThenNode => {
                let m = pow10(self.node_digits());
                (low % m, low / m)
            }
            FieldOrder::NodeThenSequence => {
                let m = pow10(self.sequence_digits());
                (low / m, low % m)
            }
        };
        Parts {
            tick,
            node,
            sequence,
        }
    }

    /// [`decompose`](Self::decompose) of an ID known to be in range.
    ///
    /// # Errors
    /// [`LayoutError::IdOutOfRange`] when `id > max_id()`.
    pub fn decompose_checked(&self, id: u64) -> Result<Parts, LayoutError> {
        if id > self.max_id() {
            return Err(LayoutError::IdOutOfRange {
                id,
                max: self.max_id(),
            });
        }
        Ok(self.decompose(id))
    }

    /// The Unix millisecond at which the ID's tick starts.
    pub const fn timestamp_millis(&self, id: u64) -> u64 {
        let tick = self.decompose(id).tick;
        self.epoch_millis
            .saturating_add(tick.saturating_mul(self.tick_millis))
    }

    /// The ID as a zero-padded string of [`total_digits`](Self::total_digits)
    /// digits (IDs are zero-padded in the published examples).
    ///
    /// ```
    /// use flakeid_schemes::DecimalLayout;
    /// let l = DecimalLayout::time_sequence_server(0)?;
    /// assert_eq!(l.padded_string(1_234_561), "00000000000001234561");
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn padded_string(&self, id: u64) -> String {
        format!("{id:0width$}", width = self.total_digits() as usize)
    }

    /// The ID zero-padded with a space between fields, most significant first.
    ///
    /// ```
    /// use flakeid_schemes::DecimalLayout;
    /// let l = DecimalLayout::time_sequence_server(0)?;
    /// assert_eq!(l.fields_string(315_360_000_001_234_561), "0031536000000 123456 1");
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn fields_string(&self, id: u64) -> String {
        let p = self.decompose(id);
        let t = self.time_digits() as usize;
        let s = self.sequence_digits() as usize;
        let n = self.node_digits() as usize;
        let (tick, seq, node) = (p.tick, p.sequence, p.node);
        match (self.order, n) {
            (_, 0) => format!("{tick:0t$} {seq:0s$}"),
            (FieldOrder::SequenceThenNode, _) => format!("{tick:0t$} {seq:0s$} {node:0n$}"),
            (FieldOrder::NodeThenSequence, _) => format!("{tick:0t$} {node:0n$} {seq:0s$}"),
        }
    }

    /// Parses a decimal ID that may have leading zeros (up to 20 digits),
    /// such as `"00315360000001234561"`.
    ///
    /// # Errors
    /// [`DecodeError`](DecodeError) for empty input, a non-digit,
    /// more than 20 digits, or a value above `u64::MAX`.
    pub fn parse_padded(s: &str) -> Result<u64, DecodeError> {
        const ENC: &str = "zero-padded decimal";
        let short = || s.chars().take(64).collect::<String>();
        if s.is_empty() {
            return Err(DecodeError::Empty { encoding: ENC });
        }
        if let Some((position, character)) =
            s.chars().enumerate().find(|(_, c)| !c.is_ascii_digit())
        {
            return Err(DecodeError::InvalidChar {
                encoding: ENC,
                input: short(),
                character,
                position,
            });
        }
        if s.len() > 20 {
            return Err(DecodeError::TooLong {
                encoding: ENC,
                input: short(),
                len: s.len(),
                max: 20,
            });
        }
        s.bytes()
            .try_fold(0u64, |acc, b| {
                acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
            })
            .ok_or_else(|| DecodeError::Overflow {
                encoding: ENC,
                input: short(),
            })
    }
}

impl Layout for DecimalLayout {
    type Raw = u64;

    fn tick_millis(&self) -> u64 {
        self.tick_millis
    }
    fn epoch_millis(&self) -> u64 {
        self.epoch_millis
    }
    fn max_tick(&self) -> u64 {
        self.max_tick
    }
    fn sequences_per_tick(&self) -> u64 {
        self.capacity_per_tick()
    }
    fn max_node(&self) -> u64 {
        DecimalLayout::max_node(self)
    }
    #[inline]
    fn compose(&self, tick: u64, node: u64, sequence: u64) -> u64 {
        DecimalLayout::compose(self, tick, node, sequence)
    }
    fn decompose(&self, id: u64) -> Parts {
        DecimalLayout::decompose(self, id)
    }
}

/// Every ID of the layout's domain, decoded into the start of its tick and
/// its fields (`node` only when the layout has node digits); the key
/// bounds of a range of times run from `tick · 10^(s+n)` of the range's
/// first tick (at least 1) to `tick · 10^(s+n) + 10^(s+n) − 1` of its last.
impl IdScheme for DecimalLayout {
    fn max_id(&self) -> u64 {
        DecimalLayout::max_id(self)
    }

    fn decode(&self, id: u64) -> Decoded {
        let parts = self.decompose(id);
        let time = UNIX_EPOCH.checked_add(Duration::from_millis(self.timestamp_millis(id)));
        let node = (self.node_digits() > 0).then_some((Cow::Borrowed("node"), parts.node));
        flakeid_core::__private::decoded_layout_parts(id, time, parts, node)
    }

    fn example_id(&self) -> Option<u64> {
        Some(flakeid_core::__private::example_id(self, 0))
    }

    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        flakeid_core::__private::layout_bounds(self, start, end, 0)
    }
}

/// A [`Generator`](flakeid_core::Generator) of the layout for the
/// process's node ID and policies.
impl GlobalScheme for DecimalLayout {
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        config.generator(*self)
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        (other as &dyn std::any::Any).downcast_ref::<Self>() == Some(self)
    }
}

/// Configures a [`DecimalLayout`].
///
/// Required: [`time_digits`](Self::time_digits),
/// [`sequence_digits`](Self::sequence_digits) and an epoch. Defaults: no
/// node digits, 1 ms ticks, [`FieldOrder::SequenceThenNode`] (time |
/// sequence | node, as the 13 + 6 + 1 scheme), [`Domain::BigInt`].
#[derive(Debug, Clone, Default)]
pub struct DecimalLayoutBuilder {
    time_digits: Option<u8>,
    sequence_digits: Option<u8>,
    node_digits: u8,
    time: TimeSettings,
    order: Option<FieldOrder>,
    domain: Domain,
}

impl DecimalLayoutBuilder {
    flakeid_core::__private::setters! {
        /// Digits of the time field (at most 19).
        time_digits(digits: u8) => time_digits = Some(digits);

        /// Digits of the sequence field.
        sequence_digits(digits: u8) => sequence_digits = Some(digits);

        /// Digits of the node field (0 for none).
        node_digits(digits: u8) => node_digits = digits;
    }

    flakeid_core::__private::time_setters!();

    flakeid_core::__private::setters! {
        /// Order of the node and sequence fields.
        order(order: FieldOrder) => order = Some(order);

        /// The range IDs stay in (default [`Domain::BigInt`]).
        domain(domain: Domain) => domain = domain;
    }

    /// Validates the settings and builds the layout.
    ///
    /// # Errors
    /// [`LayoutError::Missing`] for a missing setting,
    /// [`LayoutError::ZeroDigits`] for an empty time or sequence field,
    /// [`LayoutError::TooManyDigits`] when not even tick 1 fits the domain,
    /// [`LayoutError::ZeroTick`] for a zero tick,
    /// [`LayoutError::TimeOverflow`] when the end date is not representable.
    ///
    /// ```
    /// use flakeid_core::layout::Domain;
    /// use flakeid_schemes::DecimalLayout;
    /// use flakeid_core::layout::LayoutError;
    ///
    /// let e = DecimalLayout::builder()
    ///     .time_digits(13).sequence_digits(12).node_digits(4)
    ///     .epoch_millis(0).domain(Domain::JsSafe)
    ///     .build()
    ///     .unwrap_err();
    /// assert!(matches!(e, LayoutError::TooManyDigits { .. }));
    /// ```
    pub fn build(self) -> Result<DecimalLayout, LayoutError> {
        let (time_digits, sequence_digits) = self.time.widths(
            (self.time_digits, "time_digits"),
            (self.sequence_digits, "sequence_digits"),
            |field| LayoutError::ZeroDigits { field },
        )?;
        let tick_millis = self.time.tick_millis()?;
        let domain = self.domain;
        let too_many = || LayoutError::TooManyDigits {
            time: u32::from(time_digits),
            sequence: u32::from(sequence_digits),
            node: u32::from(self.node_digits),
            domain: domain.name(),
            max: domain.max(),
        };
        let low_digits = u32::from(sequence_digits) + u32::from(self.node_digits);
        if time_digits > 19 || low_digits > 18 {
            return Err(too_many());
        }
        let low_mod = pow10(low_digits);
        // The last tick whose largest ID `tick·low_mod + low_mod − 1` fits.
        let fit = (domain.max() - (low_mod - 1).min(domain.max())) / low_mod;
        let max_tick = fit.min(pow10(u32::from(time_digits)).saturating_sub(1));
        if max_tick == 0 || low_mod - 1 > domain.max() {
            return Err(too_many());
        }
        let time_bits = 64 - max_tick.leading_zeros();
        let epoch_millis = self.time.epoch_millis(tick_millis, time_bits)?;
        end_millis(
            epoch_millis,
            tick_millis,
            u128::from(max_tick) + 1,
            time_bits,
        )?;
        Ok(DecimalLayout {
            time_digits,
            sequence_digits,
            node_digits: self.node_digits,
            tick_millis,
            epoch_millis,
            order: self.order.unwrap_or(FieldOrder::SequenceThenNode),
            domain,
            max_tick,
        })
    }
}

/// `10^exp` for `exp <= 19`.
const fn pow10(exp: u32) -> u64 {
    let mut v = 1u64;
    let mut i = 0;
    while i < exp {
        v *= 10;
        i += 1;
    }
    v
}

#[cfg(test)]
#[path = "../tests/unit/decimal_layout.rs"]
mod tests;
