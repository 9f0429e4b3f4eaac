//! Errors of layouts: an invalid configuration, or parts that do not fit.

use thiserror::Error;

/// An invalid layout configuration, or parts that do not fit a layout.
///
/// ```
/// use flakeid_core::layout::{presets, BitLayout, LayoutError};
///
/// let e = BitLayout::builder().time_bits(41).sequence_bits(12).build().unwrap_err();
/// assert_eq!(e, LayoutError::Missing { setting: "epoch" });
/// let e = presets::twitter().compose_checked(1, 1024, 0).unwrap_err();
/// assert_eq!(e.to_string(), "node 1024 does not fit its field: the largest is 1023");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// A required builder setting was never given.
    #[error("layout setting `{setting}` is required but was not set")]
    Missing {
        /// The setting's builder method (`time_bits`, `sequence_bits`, `epoch`).
        setting: &'static str,
    },
    /// The time or sequence field has no bits.
    #[error("the {field} field needs at least 1 bit, got 0")]
    ZeroBits {
        /// `"time"` or `"sequence"`.
        field: &'static str,
    },
    /// The fields need more bits than the ID domain has.
    #[error(
        "{time} time + {node} node + {sequence} sequence bits = {total} bits, \
         but the {domain} domain holds only {max} bits"
    )]
    TooManyBits {
        /// Bits of the time field.
        time: u32,
        /// Bits of the node field.
        node: u32,
        /// Bits of the sequence field.
        sequence: u32,
        /// Their sum.
        total: u32,
        /// The domain's name.
        domain: &'static str,
        /// The domain's bit width (63 or 53).
        max: u32,
    },
    /// The tick length is zero.
    #[error("the tick length must be at least 1 ms, got {tick:?}")]
    ZeroTick {
        /// The tick that was given.
        tick: core::time::Duration,
    },
    /// The tick length is not a whole number of milliseconds.
    #[error("the tick length must be a whole number of milliseconds, got {tick:?}")]
    TickNotWholeMillis {
        /// The tick that was given.
        tick: core::time::Duration,
    },
    /// The epoch is before 1970-01-01T00:00:00Z.
    #[error(
        "the epoch is {millis_before} ms before the Unix epoch; it must not be earlier than 1970-01-01T00:00:00Z"
    )]
    EpochBeforeUnixEpoch {
        /// How far before the Unix epoch, in milliseconds (rounded up).
        millis_before: u128,
    },
    /// The epoch is not a whole number of milliseconds after the Unix epoch.
    #[error(
        "the epoch must be a whole number of milliseconds after the Unix epoch, got {since_unix:?}"
    )]
    EpochNotWholeMillis {
        /// The epoch as a duration since the Unix epoch.
        since_unix: core::time::Duration,
    },
    /// The last instant the time field can express is not representable
    /// (as milliseconds in a `u64`, or as a `SystemTime` on this platform).
    #[error(
        "epoch {epoch_millis} ms + 2^{time_bits} ticks of {tick_millis} ms \
         is past the last representable time"
    )]
    TimeOverflow {
        /// The epoch, in milliseconds since the Unix epoch.
        epoch_millis: u64,
        /// The tick length in milliseconds.
        tick_millis: u64,
        /// Bits of the time field.
        time_bits: u32,
    },
    /// The named node subfields do not add up to the node field's width.
    #[error("node subfields add up to {sum} bits but the node field has {node_bits} bits")]
    NodeFieldsMismatch {
        /// Sum of the subfield widths.
        sum: u32,
        /// The node field's width.
        node_bits: u32,
    },
    /// A node subfield has zero bits.
    #[error("node subfield `{name}` has 0 bits; every subfield needs at least 1")]
    ZeroWidthNodeField {
        /// The subfield's name.
        name: String,
    },
    /// A node subfield has an empty name.
    #[error("node subfield #{index} has an empty name")]
    EmptyNodeFieldName {
        /// The subfield's position (0 = most significant).
        index: usize,
    },
    /// Two node subfields have the same name.
    #[error("node subfield name `{name}` is used twice")]
    DuplicateNodeField {
        /// The repeated name.
        name: String,
    },
    /// A part (tick, node, sequence or node subfield) is larger than its field holds.
    #[error("{part} {value} does not fit its field: the largest is {max}")]
    PartOutOfRange {
        /// Which part: `"tick"`, `"node"`, `"sequence"` or a node subfield's name.
        part: String,
        /// The value given.
        value: u64,
        /// The field's largest value.
        max: u64,
    },
    /// Node subfield values were given in the wrong number.
    #[error("the node has {expected} subfields, got {got} values")]
    NodeFieldCount {
        /// Number of declared subfields.
        expected: usize,
        /// Number of values given.
        got: usize,
    },
    /// An ID is outside the layout's range `0..=max_id`.
    #[error("ID {id} is outside this layout's range (largest ID {max})")]
    IdOutOfRange {
        /// The ID.
        id: u64,
        /// The layout's largest ID.
        max: u64,
    },
    /// A digit field of a decimal layout has no digits.
    #[error("the {field} field needs at least 1 digit, got 0")]
    ZeroDigits {
        /// `"time"` or `"sequence"`.
        field: &'static str,
    },
    /// A decimal layout's fields need more digits than the ID domain has.
    #[error(
        "{time} time + {sequence} sequence + {node} node digits do not fit the {domain} \
         domain (largest ID {max})"
    )]
    TooManyDigits {
        /// Digits of the time field.
        time: u32,
        /// Digits of the sequence field.
        sequence: u32,
        /// Digits of the node field.
        node: u32,
        /// The domain's name.
        domain: &'static str,
        /// The domain's largest ID.
        max: u64,
    },
}
