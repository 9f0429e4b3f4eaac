//! Snowflake-family bit layouts: a time field, a node field and a sequence
//! field packed into the low 63 bits (or 53 bits) of a 64-bit integer.
//!
//! ```text
//! FieldOrder::NodeThenSequence (Twitter):   0 | time | node | sequence
//! FieldOrder::SequenceThenNode (Sonyflake): 0 | time | sequence | node
//! ```
//!
//! The most significant bit is always 0, so every ID is a positive signed
//! BIGINT; a [`Domain::JsSafe`] layout also keeps bits 53..63 at 0 so IDs are
//! exact JavaScript numbers. [`BitLayoutBuilder::build`] checks this for the
//! whole range of the layout, so `compose` can never produce an ID outside the
//! domain.

use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::impl_layout;
use super::time::{TimeSettings, end_millis};
use crate::layout::LayoutError;
use crate::layout::Parts;

/// Order of the node and sequence fields below the time field.
///
/// Both orders sort IDs by time first. They differ in how the IDs of
/// several nodes within one tick sort: with
/// [`NodeThenSequence`](FieldOrder::NodeThenSequence) each node's IDs of a
/// tick form a block of their own; with
/// [`SequenceThenNode`](FieldOrder::SequenceThenNode) the nodes alternate.
///
/// Neither makes a B-tree primary key fill like auto-increment when several
/// writers insert at once. Measured with the database benchmark
/// (`BENCHMARKS.md`, 5 M rows on PostgreSQL, 2 M on InnoDB): four writer
/// processes, rows created at 250 rows/ms in all, each ID taken as its row
/// was created, rows written 1,000 per `INSERT`; primary key relative to the
/// database-assigned key, `NodeThenSequence` / `SequenceThenNode`:
/// PostgreSQL 15 1.36× / 1.27×, PostgreSQL 18 1.39× / 1.27×, MariaDB 10.11
/// (InnoDB) 1.77× / 1.25× (one writer: 1.00× for both). When a statement's
/// IDs are taken matters more: reserved in one step as it is written
/// ([`Generator::next_batch`](crate::Generator::next_batch),
/// `FlakeId::generate_many`), the key measured 1.00× with one writer and on
/// InnoDB with four, and 1.35–1.36× on PostgreSQL with four writers whose
/// statements run at the same time.
///
/// ```
/// use flakeid_core::layout::{BitLayout, FieldOrder};
///
/// let layout = |order| {
///     let builder = BitLayout::builder().time_bits(41).node_bits(10).sequence_bits(12);
///     builder.epoch_millis(0).order(order).build()
/// };
/// let blocks = layout(FieldOrder::NodeThenSequence)?;
/// let alternating = layout(FieldOrder::SequenceThenNode)?;
/// // In one tick: node 1's IDs all sort before node 2's, or the nodes alternate.
/// assert!(blocks.compose(5, 1, 1) < blocks.compose(5, 2, 0));
/// assert!(alternating.compose(5, 1, 1) > alternating.compose(5, 2, 0));
/// assert_eq!(flakeid_core::layout::presets::sonyflake().order(), FieldOrder::SequenceThenNode);
/// # Ok::<(), flakeid_core::layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FieldOrder {
    /// time | node | sequence (Twitter, Discord, Instagram).
    #[default]
    NodeThenSequence,
    /// time | sequence | node (Sonyflake).
    SequenceThenNode,
}

/// The range of integers a layout's IDs stay in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Domain {
    /// `1..=2^63-1`: a positive signed 64-bit integer (SQL `BIGINT`).
    #[default]
    BigInt,
    /// `1..=2^53-1`: an integer a JavaScript `number` holds exactly
    /// (`Number.MAX_SAFE_INTEGER`), for APIs that send IDs as JSON numbers.
    JsSafe,
}

impl Domain {
    /// How many low bits IDs of this domain may use: 63 or 53.
    ///
    /// ```
    /// use flakeid_core::layout::Domain;
    /// assert_eq!(Domain::BigInt.bits(), 63);
    /// assert_eq!(Domain::JsSafe.bits(), 53);
    /// ```
    pub const fn bits(self) -> u32 {
        match self {
            Domain::BigInt => 63,
            Domain::JsSafe => 53,
        }
    }

    /// The largest ID of the domain: `2^63-1` or `2^53-1`.
    ///
    /// ```
    /// use flakeid_core::layout::Domain;
    /// assert_eq!(Domain::BigInt.max(), i64::MAX as u64);
    /// assert_eq!(Domain::JsSafe.max(), 9_007_199_254_740_991);
    /// ```
    pub const fn max(self) -> u64 {
        mask(self.bits())
    }

    /// The domain's name, as used in error messages.
    pub const fn name(self) -> &'static str {
        match self {
            Domain::BigInt => "63-bit BIGINT",
            Domain::JsSafe => "53-bit JavaScript-safe",
        }
    }
}

/// A named part of the node field, e.g. the 5-bit `datacenter` and 5-bit
/// `worker` of a Twitter Snowflake.
///
/// Subfields are listed from the most significant to the least significant.
///
/// ```
/// use flakeid_core::layout::NodeField;
/// let f = NodeField::new("shard", 13);
/// assert_eq!((f.name(), f.bits(), f.max()), ("shard", 13, 8191));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeField {
    name: Cow<'static, str>,
    bits: u8,
}

impl NodeField {
    /// A subfield with a static name; usable in `const` items.
    pub const fn new(name: &'static str, bits: u8) -> Self {
        NodeField {
            name: Cow::Borrowed(name),
            bits,
        }
    }

    /// A subfield with a name built at run time.
    ///
    /// ```
    /// use flakeid_core::layout::NodeField;
    /// let region = String::from("region");
    /// assert_eq!(NodeField::named(region, 4).name(), "region");
    /// ```
    pub fn named(name: impl Into<Cow<'static, str>>, bits: u8) -> Self {
        NodeField {
            name: name.into(),
            bits,
        }
    }

    /// The subfield's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name without copying a static one.
    pub(crate) fn name_cow(&self) -> Cow<'static, str> {
        self.name.clone()
    }

    /// The subfield's width in bits.
    pub const fn bits(&self) -> u8 {
        self.bits
    }

    /// The subfield's largest value, `2^bits - 1`.
    pub const fn max(&self) -> u64 {
        mask(self.bits as u32)
    }
}

/// All ones in the low `bits` bits; `bits <= 64`.
pub(crate) const fn mask(bits: u32) -> u64 {
    if bits == 0 {
        0
    } else if bits >= 64 {
        u64::MAX
    } else {
        u64::MAX >> (64 - bits)
    }
}

/// A Snowflake-style layout: time, node and sequence bit fields.
///
/// Build one with [`BitLayout::builder`] or take a preset from
/// [`presets`](crate::layout::presets). Every layout is validated when it is
/// built: all IDs it can compose lie in its [`Domain`], and the time at which
/// its time field runs out ([`BitLayout::end`]) is a representable
/// `SystemTime`.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::layout::{BitLayout, FieldOrder};
///
/// let layout = BitLayout::builder()
///     .time_bits(41)
///     .tick(Duration::from_millis(1))
///     .epoch_millis(1_288_834_974_657)
///     .node_field("datacenter", 5)
///     .node_field("worker", 5)
///     .sequence_bits(12)
///     .order(FieldOrder::NodeThenSequence)
///     .build()?;
/// assert_eq!(layout, flakeid_core::layout::presets::twitter());
/// # Ok::<(), flakeid_core::layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BitLayout {
    time_bits: u8,
    node_bits: u8,
    sequence_bits: u8,
    tick_millis: u64,
    epoch_millis: u64,
    order: FieldOrder,
    domain: Domain,
    node_fields: Cow<'static, [NodeField]>,
}

impl BitLayout {
    /// A builder; see [`BitLayoutBuilder`] for the settings and defaults.
    pub fn builder() -> BitLayoutBuilder {
        BitLayoutBuilder::default()
    }

    /// Builds a layout in a `const` context without validation; the caller
    /// (the presets, whose unit tests rebuild each one with the builder)
    /// guarantees the invariants `build` checks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) const fn from_parts_unchecked(
        time_bits: u8,
        tick_millis: u64,
        epoch_millis: u64,
        node_fields: &'static [NodeField],
        sequence_bits: u8,
        order: FieldOrder,
        domain: Domain,
    ) -> Self {
        let mut node_bits = 0u8;
        let mut i = 0;
        while i < node_fields.len() {
            node_bits += node_fields[i].bits;
            i += 1;
        }
        BitLayout {
            time_bits,
            node_bits,
            sequence_bits,
            tick_millis,
            epoch_millis,
            order,
            domain,
            node_fields: Cow::Borrowed(node_fields),
        }
    }

    /// Width of the time field in bits.
    pub const fn time_bits(&self) -> u32 {
        self.time_bits as u32
    }

    /// Width of the node field in bits (sum of its subfields).
    pub const fn node_bits(&self) -> u32 {
        self.node_bits as u32
    }

    /// Width of the sequence field in bits.
    pub const fn sequence_bits(&self) -> u32 {
        self.sequence_bits as u32
    }

    /// Bits used by all three fields together.
    pub const fn total_bits(&self) -> u32 {
        self.time_bits() + self.node_bits() + self.sequence_bits()
    }

    /// Length of one tick.
    pub const fn tick(&self) -> Duration {
        Duration::from_millis(self.tick_millis)
    }

    /// The same layout counted from another epoch (Unix milliseconds).
    ///
    /// # Errors
    /// As [`BitLayoutBuilder::build`]: the epoch does not fit the layout.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::layout::Layout;
    /// let l = presets::twitter().with_epoch_millis(1_704_067_200_000)?;
    /// assert_eq!(l.epoch_millis(), 1_704_067_200_000);
    /// assert_eq!(l.node_bits(), presets::twitter().node_bits());
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn with_epoch_millis(&self, epoch_millis: u64) -> Result<BitLayout, LayoutError> {
        BitLayout::builder()
            .time_bits(self.time_bits() as u8)
            .tick(self.tick())
            .epoch_millis(epoch_millis)
            .node_fields(self.node_fields().iter().cloned())
            .sequence_bits(self.sequence_bits() as u8)
            .order(self.order())
            .domain(self.domain())
            .build()
    }

    /// The layout's epoch: the time of tick 0.
    pub fn epoch(&self) -> SystemTime {
        // `build` checked that `end()` (later than the epoch) is representable.
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

    /// The node field's named subfields, most significant first. A node
    /// field declared with [`BitLayoutBuilder::node_bits`] alone has one
    /// subfield named `"node"`; a layout without node bits has none.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// let names: Vec<_> = presets::discord().node_fields().iter().map(|f| f.name().to_owned()).collect();
    /// assert_eq!(names, ["worker", "process"]);
    /// ```
    pub fn node_fields(&self) -> &[NodeField] {
        &self.node_fields
    }

    const fn shifts(&self) -> (u32, u32, u32) {
        // (time, node, sequence)
        let time = self.node_bits as u32 + self.sequence_bits as u32;
        match self.order {
            FieldOrder::NodeThenSequence => (time, self.sequence_bits as u32, 0),
            FieldOrder::SequenceThenNode => (time, 0, self.node_bits as u32),
        }
    }

    /// The largest tick the time field holds, `2^time_bits - 1`.
    pub const fn max_tick(&self) -> u64 {
        mask(self.time_bits as u32)
    }

    /// The largest node value, `2^node_bits - 1`.
    pub const fn max_node(&self) -> u64 {
        mask(self.node_bits as u32)
    }

    /// The largest sequence value, `2^sequence_bits - 1`.
    pub const fn max_sequence(&self) -> u64 {
        mask(self.sequence_bits as u32)
    }

    /// The largest ID the layout can compose, `2^total_bits - 1`.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// assert_eq!(presets::twitter().max_id(), i64::MAX as u64);
    /// assert_eq!(presets::js_safe().max_id(), (1 << 53) - 1);
    /// ```
    pub const fn max_id(&self) -> u64 {
        mask(self.total_bits())
    }

    /// How many IDs one node can issue per tick, `2^sequence_bits`.
    pub const fn capacity_per_tick(&self) -> u64 {
        1 << self.sequence_bits
    }

    /// How many IDs one node can issue per second (a fraction when a tick
    /// is longer than a second and does not divide it).
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// assert_eq!(presets::twitter().capacity_per_second(), 4_096_000.0);
    /// assert_eq!(presets::sonyflake().capacity_per_second(), 25_600.0);
    /// ```
    pub fn capacity_per_second(&self) -> f64 {
        self.capacity_per_tick() as f64 * 1000.0 / self.tick_millis as f64
    }

    /// How many distinct nodes the layout supports, `2^node_bits`.
    pub const fn node_count(&self) -> u64 {
        1 << self.node_bits
    }

    /// Milliseconds since the Unix epoch at which the time field runs out:
    /// the start of tick `max_tick() + 1`.
    pub const fn end_millis(&self) -> u64 {
        // `build` checked this does not overflow.
        self.epoch_millis + (self.max_tick() + 1) * self.tick_millis
    }

    /// The instant the time field runs out: IDs can be issued for times
    /// strictly before it.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_core::layout::presets;
    /// // Twitter: 2^41 ms after 2010-11-04T01:42:54.657Z = 2080-07-10T17:30:30.209Z.
    /// assert_eq!(presets::twitter().end(), UNIX_EPOCH + Duration::from_millis(3_487_858_230_209));
    /// ```
    pub fn end(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.end_millis())
    }

    /// Builds an ID from its parts. Out-of-range parts are masked to their
    /// field (debug builds panic); use [`BitLayout::compose_checked`] for
    /// values that come from outside.
    pub const fn compose(&self, tick: u64, node: u64, sequence: u64) -> u64 {
        debug_assert!(
            tick <= self.max_tick() && node <= self.max_node() && sequence <= self.max_sequence()
        );
        let (t, n, s) = self.shifts();
        ((tick & self.max_tick()) << t)
            | ((node & self.max_node()) << n)
            | ((sequence & self.max_sequence()) << s)
    }

    /// Builds an ID from its parts, or names the part that does not fit.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// let discord = presets::discord();
    /// assert_eq!(discord.compose_checked(1, 0, 7)?, (1 << 22) | 7);
    /// assert!(discord.compose_checked(0, 1024, 0).is_err());
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn compose_checked(&self, tick: u64, node: u64, sequence: u64) -> Result<u64, LayoutError> {
        check_part("tick", tick, self.max_tick())?;
        check_part("node", node, self.max_node())?;
        check_part("sequence", sequence, self.max_sequence())?;
        Ok(self.compose(tick, node, sequence))
    }

    /// Splits an ID into its parts. Bits above the layout's fields are ignored;
    /// use [`BitLayout::decompose_checked`] for values that come from outside.
    pub const fn decompose(&self, id: u64) -> Parts {
        let (t, n, s) = self.shifts();
        Parts {
            tick: (id >> t) & self.max_tick(),
            node: (id >> n) & self.max_node(),
            sequence: (id >> s) & self.max_sequence(),
        }
    }

    /// Splits an ID into its parts, or fails when it is above [`BitLayout::max_id`].
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// let parts = presets::discord().decompose_checked(175_928_847_299_117_063)?;
    /// assert_eq!((parts.node, parts.sequence), (1 << 5, 7));
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn decompose_checked(&self, id: u64) -> Result<Parts, LayoutError> {
        if id > self.max_id() {
            return Err(LayoutError::IdOutOfRange {
                id,
                max: self.max_id(),
            });
        }
        Ok(self.decompose(id))
    }

    /// Milliseconds since the Unix epoch of the tick an ID was issued in.
    pub const fn timestamp_millis(&self, id: u64) -> u64 {
        self.epoch_millis + self.decompose(id).tick * self.tick_millis
    }

    /// The start of the tick an ID was issued in.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_core::layout::presets;
    /// // Discord's documented example: 2016-04-30T11:18:25.796Z.
    /// let t = presets::discord().timestamp(175_928_847_299_117_063);
    /// assert_eq!(t, UNIX_EPOCH + Duration::from_millis(1_462_015_105_796));
    /// ```
    pub fn timestamp(&self, id: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.timestamp_millis(id))
    }

    /// The values of the node's subfields, most significant first, by name.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// let twitter = presets::twitter();
    /// assert_eq!(twitter.split_node(0b00011_00101)?, [("datacenter", 3), ("worker", 5)]);
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn split_node(&self, node: u64) -> Result<Vec<(&str, u64)>, LayoutError> {
        check_part("node", node, self.max_node())?;
        let mut shift = self.node_bits as u32;
        Ok(self
            .node_fields
            .iter()
            .map(|f| {
                shift -= f.bits as u32;
                (f.name(), (node >> shift) & f.max())
            })
            .collect())
    }

    /// The value of one named node subfield, or `None` when the layout has
    /// no subfield of that name. The node value is masked to the node field.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// assert_eq!(presets::discord().node_field_value(0b00001_00000, "worker"), Some(1));
    /// assert_eq!(presets::discord().node_field_value(0, "shard"), None);
    /// ```
    pub fn node_field_value(&self, node: u64, name: &str) -> Option<u64> {
        let mut shift = self.node_bits as u32;
        for f in self.node_fields.iter() {
            shift -= f.bits as u32;
            if f.name() == name {
                return Some((node >> shift) & f.max());
            }
        }
        None
    }

    /// Builds a node value from its subfields' values, most significant
    /// first, or names the value that does not fit.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// let twitter = presets::twitter();
    /// assert_eq!(twitter.compose_node(&[3, 5])?, (3 << 5) | 5);
    /// assert!(twitter.compose_node(&[32, 0]).is_err()); // datacenter has 5 bits
    /// assert!(twitter.compose_node(&[1]).is_err());
    /// # Ok::<(), flakeid_core::layout::LayoutError>(())
    /// ```
    pub fn compose_node(&self, values: &[u64]) -> Result<u64, LayoutError> {
        if values.len() != self.node_fields.len() {
            return Err(LayoutError::NodeFieldCount {
                expected: self.node_fields.len(),
                got: values.len(),
            });
        }
        let mut node = 0u64;
        for (f, &v) in self.node_fields.iter().zip(values) {
            if v > f.max() {
                return Err(LayoutError::PartOutOfRange {
                    part: f.name().to_owned(),
                    value: v,
                    max: f.max(),
                });
            }
            // A field of 63 bits would shift by 63 at most: no overflow.
            node = (node << f.bits) | v;
        }
        Ok(node)
    }
}

impl_layout!(BitLayout);

/// Builder for [`BitLayout`].
///
/// Required: [`time_bits`](Self::time_bits), [`sequence_bits`](Self::sequence_bits)
/// and an epoch ([`epoch`](Self::epoch) or [`epoch_millis`](Self::epoch_millis)).
/// Defaults: tick 1 ms, no node bits, [`FieldOrder::NodeThenSequence`],
/// [`Domain::BigInt`].
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::layout::{BitLayout, Domain, FieldOrder};
///
/// let layout = BitLayout::builder()
///     .time_bits(38)
///     .tick(Duration::from_millis(10))
///     .epoch_millis(1_704_067_200_000) // 2024-01-01T00:00:00Z
///     .node_bits(5)
///     .sequence_bits(10)
///     .order(FieldOrder::SequenceThenNode)
///     .domain(Domain::JsSafe)
///     .build()?;
/// assert_eq!(layout.capacity_per_second(), 102_400.0);
/// # Ok::<(), flakeid_core::layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct BitLayoutBuilder {
    time_bits: Option<u8>,
    node_bits: Option<u8>,
    sequence_bits: Option<u8>,
    time: TimeSettings,
    order: FieldOrder,
    domain: Domain,
    node_fields: Vec<NodeField>,
}

impl BitLayoutBuilder {
    crate::setters! {
        /// Width of the time field in bits (required, at least 1).
        time_bits(bits: u8) => time_bits = Some(bits);

        /// Width of the node field in bits (default 0). When subfields are also
        /// given with [`node_field`](Self::node_field), their widths must add up
        /// to this; when they are not, the node field is one subfield named `"node"`.
        node_bits(bits: u8) => node_bits = Some(bits);
    }

    /// Appends a named node subfield below the ones already given (the first
    /// is the most significant). Without [`node_bits`](Self::node_bits), the
    /// node field is as wide as its subfields.
    pub fn node_field(mut self, name: impl Into<Cow<'static, str>>, bits: u8) -> Self {
        self.node_fields.push(NodeField::named(name, bits));
        self
    }

    crate::setters! {
        /// Replaces the node subfields with `fields`, most significant first.
        node_fields(fields: impl IntoIterator<Item = NodeField>) => node_fields = fields.into_iter().collect();

        /// Width of the sequence field in bits (required, at least 1).
        sequence_bits(bits: u8) => sequence_bits = Some(bits);
    }

    crate::__time_setters!();

    crate::setters! {
        /// Order of the node and sequence fields (default [`FieldOrder::NodeThenSequence`]).
        order(order: FieldOrder) => order = order;

        /// The range IDs must stay in (default [`Domain::BigInt`]).
        domain(domain: Domain) => domain = domain;
    }

    /// Validates the settings and builds the layout.
    ///
    /// ```
    /// use flakeid_core::layout::BitLayout;
    /// use flakeid_core::layout::LayoutError;
    /// let err = BitLayout::builder().time_bits(42).node_bits(10).sequence_bits(12).epoch_millis(0).build();
    /// assert!(matches!(err, Err(LayoutError::TooManyBits { total: 64, max: 63, .. })));
    /// ```
    pub fn build(self) -> Result<BitLayout, LayoutError> {
        let (time_bits, sequence_bits) = self.time.widths(
            (self.time_bits, "time_bits"),
            (self.sequence_bits, "sequence_bits"),
            |field| LayoutError::ZeroBits { field },
        )?;

        let mut fields = self.node_fields;
        for (index, f) in fields.iter().enumerate() {
            if f.name.is_empty() {
                return Err(LayoutError::EmptyNodeFieldName { index });
            }
            if f.bits == 0 {
                return Err(LayoutError::ZeroWidthNodeField {
                    name: f.name.to_string(),
                });
            }
            if fields[..index].iter().any(|g| g.name == f.name) {
                return Err(LayoutError::DuplicateNodeField {
                    name: f.name.to_string(),
                });
            }
        }
        let sum: u32 = fields.iter().map(|f| f.bits as u32).sum();
        let node_bits: u32 = match self.node_bits {
            Some(n) if fields.is_empty() => {
                if n > 0 {
                    fields.push(NodeField::new("node", n));
                }
                n as u32
            }
            Some(n) if n as u32 != sum => {
                return Err(LayoutError::NodeFieldsMismatch {
                    sum,
                    node_bits: n as u32,
                });
            }
            _ => sum,
        };

        let (time, sequence) = (time_bits as u32, sequence_bits as u32);
        let total = time + node_bits + sequence;
        if total > self.domain.bits() {
            return Err(LayoutError::TooManyBits {
                time,
                node: node_bits,
                sequence,
                total,
                domain: self.domain.name(),
                max: self.domain.bits(),
            });
        }

        let tick_millis = self.time.tick_millis()?;
        let epoch_millis = self.time.epoch_millis(tick_millis, time)?;
        end_millis(epoch_millis, tick_millis, 1u128 << time, time)?;

        Ok(BitLayout {
            time_bits,
            // Both fit in u8: total <= 63.
            node_bits: node_bits as u8,
            sequence_bits,
            tick_millis,
            epoch_millis,
            order: self.order,
            domain: self.domain,
            node_fields: Cow::Owned(fields),
        })
    }
}

fn check_part(part: &'static str, value: u64, max: u64) -> Result<(), LayoutError> {
    if value > max {
        Err(LayoutError::PartOutOfRange {
            part: part.to_owned(),
            value,
            max,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
#[path = "../../tests/unit/layout_bits.rs"]
mod tests;
