//! An ID split into its named fields: what every scheme decodes into.

use core::fmt::{self, Display};
use std::borrow::Cow;
use std::time::SystemTime;

use crate::encoding::write_rfc3339;
use crate::layout::{BitLayout, Parts};

/// An ID split into its named fields, with its creation time when the
/// scheme records one.
///
/// Every [`IdSource`](crate::IdSource) decodes its IDs into a `Decoded`:
///
/// | scheme | `timestamp` | `parts` | `fields` |
/// |---|---|---|---|
/// | a [`Layout`](crate::layout::Layout) run by a [`Generator`](crate::Generator) or a `RandomKeyGenerator` (`flakeid-schemes`) | start of the ID's tick | tick, node, sequence | `tick`, the node subfields (or `node`), `sequence` |
/// | a `DecimalIdGenerator` (`flakeid-schemes`) | `None` (no time) | `None` | `counter`, `generator_id`, `launch_id` |
/// | a `TraceIdGenerator` (`flakeid-schemes`) | `None` (seconds wrap; see its `TraceIdLayout`) | `None` | `timestamp` (Unix seconds mod 2^25), `node`, `thread`, `counter` |
/// | a key below its ID type's cut-over ([`FlakeId::CUT_OVER`](crate::FlakeId::CUT_OVER)): issued before the table switched to flake keys | `None` | `None` | none; [`before_cut_over`](Decoded::before_cut_over) holds the cut-over |
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_core::Decoded;
/// use flakeid_core::layout::presets;
///
/// let d = Decoded::new(&presets::discord(), 175_928_847_299_117_063);
/// assert_eq!(d.timestamp, Some(UNIX_EPOCH + Duration::from_millis(1_462_015_105_796)));
/// assert_eq!((d.field("worker"), d.field("process"), d.field("sequence")), (Some(1), Some(0), Some(7)));
/// assert_eq!(d.parts.map(|p| p.node), Some(32));
/// assert_eq!(
///     d.to_string(),
///     "175928847299117063 (2016-04-30T11:18:25.796Z, tick 41944705796, worker 1, process 0, sequence 7)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Decoded {
    /// The ID.
    pub id: u64,
    /// The start of the tick the ID was issued in, for schemes whose IDs
    /// hold their full creation time.
    pub timestamp: Option<SystemTime>,
    /// Tick, node and sequence, for IDs of a [`Layout`](crate::layout::Layout).
    pub parts: Option<Parts>,
    /// The ID's fields by name, time first.
    pub fields: Vec<(Cow<'static, str>, u64)>,
    /// `Some(cut_over)` for a key below its ID type's cut-over
    /// ([`FlakeId::CUT_OVER`](crate::FlakeId::CUT_OVER)): a key the table's
    /// auto-increment issued before the table switched to flake keys
    /// (the `flakeid-adopt` crate). Such a key records no time and no fields;
    /// it is older than every flake key of the type.
    pub before_cut_over: Option<u64>,
}

impl Decoded {
    /// Decodes `id` with `layout`. Bits above the layout's fields are
    /// ignored; check the ID with [`BitLayout::decompose_checked`] first if
    /// it comes from outside.
    pub fn new(layout: &BitLayout, id: u64) -> Self {
        let parts = layout.decompose(id);
        let mut shift = layout.node_bits();
        let node_fields = layout.node_fields().iter().map(|f| {
            shift -= f.bits() as u32;
            (f.name_cow(), (parts.node >> shift) & f.max())
        });
        Decoded::from_layout_parts(id, Some(layout.timestamp(id)), parts, node_fields)
    }

    /// The value of the field called `name`, if the scheme has one.
    pub fn field(&self, name: &str) -> Option<u64> {
        self.fields.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// A `Decoded` of a layout's parts: fields `tick`, the node subfields,
    /// `sequence`.
    pub(crate) fn from_layout_parts(
        id: u64,
        timestamp: Option<SystemTime>,
        parts: Parts,
        node_fields: impl IntoIterator<Item = (Cow<'static, str>, u64)>,
    ) -> Self {
        let mut fields = vec![(Cow::Borrowed("tick"), parts.tick)];
        fields.extend(node_fields);
        fields.push((Cow::Borrowed("sequence"), parts.sequence));
        Decoded {
            id,
            timestamp,
            parts: Some(parts),
            fields,
            before_cut_over: None,
        }
    }

    /// A `Decoded` of a scheme without layout parts: what an
    /// [`IdScheme::decode`](crate::IdScheme::decode) of your own returns.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use flakeid_core::Decoded;
    ///
    /// let d = Decoded::from_fields(42, None, vec![(Cow::Borrowed("value"), 42)]);
    /// assert_eq!(d.field("value"), Some(42));
    /// assert_eq!(d.to_string(), "42 (value 42)");
    /// ```
    pub fn from_fields(
        id: u64,
        timestamp: Option<SystemTime>,
        fields: Vec<(Cow<'static, str>, u64)>,
    ) -> Self {
        Decoded {
            id,
            timestamp,
            parts: None,
            fields,
            before_cut_over: None,
        }
    }

    /// A key below the cut-over `cut_over`: issued before flake keys.
    pub(crate) fn of_key_before_cut_over(id: u64, cut_over: u64) -> Self {
        Decoded {
            id,
            timestamp: None,
            parts: None,
            fields: Vec::new(),
            before_cut_over: Some(cut_over),
        }
    }
}

impl Display for Decoded {
    /// `ID (RFC 3339 UTC time, name value, …)`, the time only when the
    /// scheme records one; `ID (issued before flake keys: below the cut-over
    /// K)` for a key from before the switch.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(cut_over) = self.before_cut_over {
            return write!(
                f,
                "{} (issued before flake keys: below the cut-over {cut_over})",
                self.id
            );
        }
        write!(f, "{} (", self.id)?;
        let mut first = true;
        if let Some(t) = self.timestamp {
            write_rfc3339(f, t)?;
            first = false;
        }
        for (name, value) in &self.fields {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{name} {value}")?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
#[path = "../tests/unit/decoded.rs"]
mod tests;
