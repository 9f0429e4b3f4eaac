//! Typed IDs: the [`FlakeId`] trait that ID newtypes (declared with
//! `#[flake_id]`) implement, and [`Decoded`] parts of an ID.
//!
//! The required items are what `#[flake_id]` emits; everything else is a
//! provided method: checked conversions, generation, decoding and the
//! base62 / Crockford text forms.

use core::fmt::{self, Debug, Display};
use core::hash::Hash;
use core::str::FromStr;
use std::borrow::Cow;
use std::time::SystemTime;

use crate::encoding::{base62, crockford};
use crate::{BitLayout, ConfigError, Generator, IdError};

/// An application-assigned, time-ordered 64-bit ID stored as a signed
/// BIGINT in `1..=i64::MAX`.
///
/// Implement it with `#[flake_id]`; by hand it looks like this:
///
/// ```
/// use std::sync::OnceLock;
/// use flakeid_core::{ConfigError, FlakeId, Generator, IdError};
///
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
/// struct OrderId(i64);
///
/// impl FlakeId for OrderId {
///     const NAME: &'static str = "OrderId";
///     fn generator() -> Result<&'static Generator, ConfigError> {
///         flakeid_core::global::generator()
///     }
///     fn __from_valid(value: i64) -> Self { OrderId(value) }
///     fn get(self) -> i64 { self.0 }
/// }
/// impl std::fmt::Display for OrderId {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         flakeid_core::__private::display(self, f)
///     }
/// }
/// impl std::str::FromStr for OrderId {
///     type Err = IdError;
///     fn from_str(s: &str) -> Result<Self, IdError> { flakeid_core::__private::from_str(s) }
/// }
///
/// assert!(OrderId::from_i64(0).is_err());
/// assert_eq!("42".parse::<OrderId>()?.get(), 42);
/// # Ok::<(), IdError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an ID type",
    label = "not declared with `#[flake_id]`",
    note = "declare an ID type with `#[flake_id] pub struct UserId(i64);` and use it as the key's type"
)]
pub trait FlakeId:
    Sized + Copy + Eq + Ord + Hash + Debug + Display + FromStr<Err = IdError> + Send + Sync + 'static
{
    /// The type's name (`"UserId"`), used in error messages.
    const NAME: &'static str;

    /// The generator IDs of this type come from, and whose layout decodes them.
    fn generator() -> Result<&'static Generator, ConfigError>;

    /// Wraps a value that has already been validated. Not a public API:
    /// use [`FlakeId::from_i64`].
    #[doc(hidden)]
    fn __from_valid(value: i64) -> Self;

    /// The ID as the `i64` stored in the database.
    fn get(self) -> i64;

    /// The largest valid value: the generator's layout's
    /// [`max_id`](BitLayout::max_id) when the generator is available,
    /// otherwise `i64::MAX`.
    fn max_value() -> u64 {
        match Self::generator() {
            Ok(g) => g.layout().max_id(),
            Err(_) => i64::MAX as u64,
        }
    }

    /// Checked conversion from a database or user value: `0`, negatives
    /// and values above the layout's largest ID are errors naming the value.
    fn from_i64(value: i64) -> Result<Self, IdError> {
        if value < 0 {
            return Err(IdError::Negative {
                type_name: Self::NAME,
                value: i128::from(value),
            });
        }
        Self::from_u64(value.unsigned_abs())
    }

    /// Checked conversion from an unsigned value (MySQL `BIGINT UNSIGNED`).
    fn from_u64(value: u64) -> Result<Self, IdError> {
        if value == 0 {
            return Err(IdError::Zero {
                type_name: Self::NAME,
            });
        }
        let max = Self::max_value();
        match i64::try_from(value) {
            Ok(v) if value <= max => Ok(Self::__from_valid(v)),
            _ => Err(IdError::TooLarge {
                type_name: Self::NAME,
                value: u128::from(value),
                max,
            }),
        }
    }

    /// A fresh ID from [`FlakeId::generator`].
    ///
    /// # Panics
    /// When the process-wide generator is not configured (see
    /// [`crate::global`]) or cannot issue an ID; use
    /// [`FlakeId::try_generate`] to handle that as an error.
    fn generate() -> Self {
        match Self::try_generate() {
            Ok(id) => id,
            Err(e) => panic!("cannot generate a {}: {e}", Self::NAME),
        }
    }

    /// A fresh ID, or why none could be issued.
    fn try_generate() -> Result<Self, crate::GenerateError> {
        let raw = Self::generator()?.next_id()?;
        // A BitLayout's IDs are within 1..=2^63-1 (checked when it is built)
        // and a generator never issues 0, so this cannot truncate.
        debug_assert!(raw != 0 && raw <= i64::MAX as u64);
        Ok(Self::__from_valid(raw as i64))
    }

    /// The ID's time, node and sequence, decoded with its generator's layout.
    fn decode(self) -> Result<Decoded, ConfigError> {
        let g = Self::generator()?;
        // A valid ID is within 1..=max_id, so decoding cannot fail.
        Ok(Decoded::new(g.layout(), self.get().unsigned_abs()))
    }

    /// The ID as 11 base62 characters (see [`crate::encoding::base62`]).
    fn to_base62(self) -> String {
        base62::encode(self.get().unsigned_abs())
    }

    /// Parses an ID from base62, then checks it like [`FlakeId::from_u64`].
    fn from_base62(s: &str) -> Result<Self, IdError> {
        let v = base62::decode(s).map_err(|source| IdError::Text {
            type_name: Self::NAME,
            source,
        })?;
        Self::from_u64(v)
    }

    /// The ID as 13 Crockford base32 characters (see [`crate::encoding::crockford`]).
    fn to_crockford(self) -> String {
        crockford::encode(self.get().unsigned_abs())
    }

    /// Parses an ID from Crockford base32 (case-insensitive, `I`/`L` read
    /// as `1`, `O` as `0`, hyphens ignored), then checks it like
    /// [`FlakeId::from_u64`].
    fn from_crockford(s: &str) -> Result<Self, IdError> {
        let v = crockford::decode(s).map_err(|source| IdError::Text {
            type_name: Self::NAME,
            source,
        })?;
        Self::from_u64(v)
    }
}

/// An ID split into its parts, with its creation time.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_core::{Decoded, layout::presets};
///
/// let d = Decoded::new(&presets::discord(), 175_928_847_299_117_063);
/// assert_eq!(d.timestamp, UNIX_EPOCH + Duration::from_millis(1_462_015_105_796));
/// assert_eq!((d.node_field("worker"), d.node_field("process"), d.sequence), (Some(1), Some(0), 7));
/// assert_eq!(
///     d.to_string(),
///     "175928847299117063 (2016-04-30T11:18:25.796Z, tick 41944705796, node 32 [worker=1 process=0], sequence 7)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Decoded {
    /// The ID.
    pub id: u64,
    /// The start of the tick the ID was issued in.
    pub timestamp: SystemTime,
    /// Ticks since the layout's epoch.
    pub tick: u64,
    /// The node field's value.
    pub node: u64,
    /// The node subfields' values by name, most significant first.
    pub node_fields: Vec<(Cow<'static, str>, u64)>,
    /// The position within the tick.
    pub sequence: u64,
}

impl Decoded {
    /// Decodes `id` with `layout`. Bits above the layout's fields are
    /// ignored; check the ID with [`BitLayout::decompose_checked`] first if
    /// it comes from outside.
    pub fn new(layout: &BitLayout, id: u64) -> Self {
        let parts = layout.decompose(id);
        let mut shift = layout.node_bits();
        let node_fields = layout
            .node_fields()
            .iter()
            .map(|f| {
                shift -= f.bits() as u32;
                (f.name_cow(), (parts.node >> shift) & f.max())
            })
            .collect();
        Decoded {
            id,
            timestamp: layout.timestamp(id),
            tick: parts.tick,
            node: parts.node,
            node_fields,
            sequence: parts.sequence,
        }
    }

    /// The value of the node subfield called `name`, if the layout has one.
    pub fn node_field(&self, name: &str) -> Option<u64> {
        self.node_fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
    }
}

impl Display for Decoded {
    /// `ID (RFC 3339 UTC time, tick T, node N [name=value …], sequence S)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (", self.id)?;
        write_rfc3339(f, self.timestamp)?;
        write!(f, ", tick {}, node {}", self.tick, self.node)?;
        if !self.node_fields.is_empty() {
            f.write_str(" [")?;
            for (i, (name, value)) in self.node_fields.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{name}={value}")?;
            }
            f.write_str("]")?;
        }
        write!(f, ", sequence {})", self.sequence)
    }
}

/// Writes `t` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (times before 1970 cannot
/// come from a layout; they are written as milliseconds before the epoch).
fn write_rfc3339(f: &mut fmt::Formatter<'_>, t: SystemTime) -> fmt::Result {
    let Ok(d) = t.duration_since(SystemTime::UNIX_EPOCH) else {
        return write!(f, "{t:?}");
    };
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days);
    write!(
        f,
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, for non-negative counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(2_932_896), (9999, 12, 31));
    }

    #[test]
    fn display_without_node_fields() {
        let l = BitLayout::builder()
            .time_bits(41)
            .sequence_bits(12)
            .epoch_millis(0)
            .build()
            .unwrap();
        let d = Decoded::new(&l, (1000 << 12) | 3);
        assert_eq!(
            d.to_string(),
            "4096003 (1970-01-01T00:00:01.000Z, tick 1000, node 0, sequence 3)"
        );
    }
}
