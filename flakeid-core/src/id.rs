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
use crate::{
    BitLayout, ConfigError, GenerateError, IdError, IdScheme, IdSource, Parts, SchemeError,
};

/// An application-assigned 64-bit ID stored as a signed BIGINT in
/// `1..=i64::MAX`, of an [`IdScheme`], drawn from an [`IdSource`].
///
/// Declare one with `#[flake_id]`, which also gives the type inherent
/// `generate`, `try_generate`, `generate_many`, `get` and `decode` (so no
/// trait import is needed). By hand it looks like this:
///
/// ```
/// use flakeid_core::{layout::presets, BitLayout, ConfigError, FlakeId, IdError, IdScheme, IdSource};
/// use std::sync::LazyLock;
///
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
/// struct OrderId(i64);
///
/// static TWITTER: LazyLock<BitLayout> = LazyLock::new(presets::twitter);
///
/// impl FlakeId for OrderId {
///     const NAME: &'static str = "OrderId";
///     fn scheme() -> &'static dyn IdScheme {
///         &*TWITTER
///     }
///     fn source() -> Result<&'static dyn IdSource, ConfigError> {
///         flakeid_core::global::source_for(&*TWITTER)
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
///
/// # Scheme and source
///
/// Checking and decoding use only [`scheme`](FlakeId::scheme): they never
/// read the environment, build a generator or need a node ID, so a
/// read-only service decodes stored IDs without any configuration, and a
/// value's validity never depends on whether [`global::init`](crate::global::init)
/// has run. Only generating uses [`source`](FlakeId::source).
///
/// `#[flake_id]` gives a type Twitter's layout and the process-wide
/// generator; `#[flake_id(layout = path)]` or `#[flake_id(scheme = path)]`
/// any [`GlobalScheme`](crate::GlobalScheme) with a source built from the
/// process's node ID; `#[flake_id(scheme = path, source = path)]` a source
/// of your own:
///
/// ```
/// use std::sync::OnceLock;
/// use flakeid_core::decimal_id::{DecimalIdGenerator, DecimalIdScheme, InMemoryGeneratorIdSource};
/// use flakeid_core::{flake_id, ConfigError, FlakeId};
///
/// type OrderIds = DecimalIdGenerator<InMemoryGeneratorIdSource>;
///
/// fn order_ids() -> Result<&'static OrderIds, ConfigError> {
///     static G: OnceLock<OrderIds> = OnceLock::new();
///     // Launch 65; generator IDs from a counter shared by the system (in memory here).
///     Ok(G.get_or_init(|| {
///         DecimalIdGenerator::builder(65, InMemoryGeneratorIdSource::starting_at(92))
///             .build()
///             .expect("a DecimalId generator")
///     }))
/// }
///
/// #[flake_id(scheme = DecimalIdScheme::default, source = order_ids)]
/// pub struct OrderId(i64);
///
/// let id = OrderId::generate()?;
/// assert_eq!(id.get(), 10_009_200_065); // counter 1, generator 92, launch 65
/// let d = id.decode();
/// assert_eq!((d.field("counter"), d.field("generator_id"), d.field("launch_id")), (Some(1), Some(92), Some(65)));
/// assert_eq!(d.to_string(), "10009200065 (counter 1, generator_id 92, launch_id 65)");
///
/// // A stored value whose counter is 0 is not a DecimalId.
/// let e = OrderId::from_i64(9_200_065).unwrap_err();
/// assert_eq!(e.to_string(), "9200065 is not a valid OrderId: its counter is 0, outside 1..=922337202");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Blocking and `try_`
///
/// As everywhere in flakeid, a `try_` method never waits:
/// [`generate`](FlakeId::generate) waits as the source's policies allow
/// (for the next tick when a tick's sequence is used up, say) and
/// [`try_generate`](FlakeId::try_generate) returns
/// [`GenerateError::WouldBlock`] instead. Both return errors rather than
/// panic.
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

    /// The rules of this type's IDs: which values are IDs and what their
    /// fields mean. Pure: no environment, no generator.
    fn scheme() -> &'static dyn IdScheme;

    /// The source new IDs of this type come from (for the process-wide
    /// ones, configured from the environment on first use).
    ///
    /// # Errors
    /// The source's configuration error.
    fn source() -> Result<&'static dyn IdSource, ConfigError>;

    /// Wraps a value that has already been validated. Not a public API:
    /// use [`FlakeId::from_i64`].
    #[doc(hidden)]
    fn __from_valid(value: i64) -> Self;

    /// The ID as the `i64` stored in the database.
    fn get(self) -> i64;

    /// The largest valid value: the scheme's [`max_id`](IdScheme::max_id)
    /// (at most `i64::MAX`).
    fn max_value() -> u64 {
        Self::scheme().max_id().min(i64::MAX as u64)
    }

    /// Checked conversion from a database or user value: `0`, negatives,
    /// values above [`max_value`](FlakeId::max_value) and values that break
    /// the scheme's rules ([`IdScheme::check`]) are errors naming the value.
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
        let scheme = Self::scheme();
        let max = Self::max_value();
        let v = match i64::try_from(value) {
            Ok(v) if value <= max => v,
            _ => {
                return Err(IdError::TooLarge {
                    type_name: Self::NAME,
                    value: u128::from(value),
                    max,
                });
            }
        };
        scheme.check(value).map_err(|source| IdError::Field {
            type_name: Self::NAME,
            value,
            source,
        })?;
        Ok(Self::__from_valid(v))
    }

    /// A fresh ID from [`FlakeId::source`], waiting as its policies allow.
    ///
    /// # Errors
    /// The source is not available (for the process-wide one: not
    /// configured, see [`crate::global`]) or cannot issue an ID.
    fn generate() -> Result<Self, GenerateError> {
        issued(Self::source()?.next_id()?)
    }

    /// A fresh ID if one can be issued without waiting.
    ///
    /// # Errors
    /// [`GenerateError::WouldBlock`] where [`generate`](FlakeId::generate)
    /// would wait; otherwise as `generate`.
    fn try_generate() -> Result<Self, GenerateError> {
        issued(Self::source()?.try_next_id()?)
    }

    /// `n` fresh IDs, increasing for sources whose IDs increase. A
    /// [`Generator`](crate::Generator) reserves them in one atomic step, as
    /// one contiguous run ([`next_batch`](crate::Generator::next_batch)).
    ///
    /// # Errors
    /// As [`generate`](FlakeId::generate).
    fn generate_many(n: usize) -> Result<Vec<Self>, GenerateError> {
        Self::source()?
            .next_ids(n)?
            .into_iter()
            .map(issued)
            .collect()
    }

    /// The ID's time (when the scheme records one) and fields, decoded by
    /// the type's scheme.
    fn decode(self) -> Decoded {
        Self::scheme().decode(self.get().unsigned_abs())
    }

    /// The ID as 11 base62 characters (see [`crate::encoding::base62`]).
    fn to_base62(self) -> String {
        base62::encode(self.get().unsigned_abs())
    }

    /// Parses an ID from its base62 form, exactly the 11 characters
    /// [`to_base62`](FlakeId::to_base62) writes (case-sensitive, no padding
    /// left out), then checks it like [`FlakeId::from_u64`]. For shorter
    /// spellings, pass [`base62::decode_lenient`]'s value to
    /// [`from_u64`](FlakeId::from_u64).
    ///
    /// # Errors
    /// [`IdError::Text`] holding the [`DecodeError`](crate::DecodeError)
    /// (wrong length, a character outside `0-9A-Za-z`, a value above
    /// `u64::MAX`), or the errors of [`from_u64`](FlakeId::from_u64) for a
    /// value that is 0 or above [`max_value`](FlakeId::max_value).
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

    /// Parses an ID from its Crockford base32 form: exactly 13 symbols as
    /// [`to_crockford`](FlakeId::to_crockford) writes them, except that case
    /// is ignored and `I`/`L` read as `1`, `O` as `0`; no hyphens. Then checks
    /// it like [`FlakeId::from_u64`]: the first symbol is at most `7` for
    /// `i64::MAX`. For hyphenated or shorter spellings, pass
    /// [`crockford::decode_lenient`]'s value to [`from_u64`](FlakeId::from_u64).
    ///
    /// # Errors
    /// [`IdError::Text`] holding the [`DecodeError`](crate::DecodeError)
    /// (wrong length, a character outside the alphabet and its aliases, a
    /// first symbol above `F`), or the errors of
    /// [`from_u64`](FlakeId::from_u64) for a value that is 0 or above
    /// [`max_value`](FlakeId::max_value).
    ///
    /// ```
    /// # use flakeid_core::{flake_id, FlakeId};
    /// # #[flake_id(layout = flakeid_core::layout::presets::tsid)] pub struct OrderId(i64);
    /// let id = OrderId::from_crockford("04w86bb0g4oo7")?;
    /// assert_eq!(id.to_crockford(), "04W86BB0G4007");
    /// assert!(OrderId::from_crockford("4W86BB0G4007").is_err()); // 12 symbols
    /// assert!(OrderId::from_crockford("04W86-BB0G-4007").is_err());
    /// assert!(OrderId::from_crockford("8000000000000").is_err()); // above i64::MAX
    /// # Ok::<(), flakeid_core::IdError>(())
    /// ```
    fn from_crockford(s: &str) -> Result<Self, IdError> {
        let v = crockford::decode(s).map_err(|source| IdError::Text {
            type_name: Self::NAME,
            source,
        })?;
        Self::from_u64(v)
    }
}

/// Wraps an ID a source issued; a source issuing 0 or a value above
/// `i64::MAX` is reported rather than stored as a wrong value.
fn issued<I: FlakeId>(raw: u64) -> Result<I, GenerateError> {
    match i64::try_from(raw) {
        Ok(v) if v > 0 => Ok(I::__from_valid(v)),
        _ => {
            let e = if raw == 0 {
                IdError::Zero { type_name: I::NAME }
            } else {
                IdError::TooLarge {
                    type_name: I::NAME,
                    value: u128::from(raw),
                    max: i64::MAX as u64,
                }
            };
            Err(SchemeError::new(I::NAME, e).into())
        }
    }
}

/// An ID split into its named fields, with its creation time when the
/// scheme records one.
///
/// Every [`IdSource`] decodes its IDs into a `Decoded`:
///
/// | scheme | `timestamp` | `parts` | `fields` |
/// |---|---|---|---|
/// | a [`Layout`](crate::Layout) run by a [`Generator`](crate::Generator) or [`RandomKeyGenerator`](crate::random_key::RandomKeyGenerator) | start of the ID's tick | tick, node, sequence | `tick`, the node subfields (or `node`), `sequence` |
/// | [`DecimalIdGenerator`](crate::decimal_id::DecimalIdGenerator) | `None` (no time) | `None` | `counter`, `generator_id`, `launch_id` |
/// | [`TraceIdGenerator`](crate::trace::TraceIdGenerator) | `None` (seconds wrap; see [`trace`](crate::trace)) | `None` | `timestamp` (Unix seconds mod 2^25), `node`, `thread`, `counter` |
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_core::{Decoded, layout::presets};
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
    /// Tick, node and sequence, for IDs of a [`Layout`](crate::Layout).
    pub parts: Option<Parts>,
    /// The ID's fields by name, time first.
    pub fields: Vec<(Cow<'static, str>, u64)>,
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
        }
    }

    /// A `Decoded` of a scheme without layout parts.
    pub(crate) fn from_fields(
        id: u64,
        timestamp: Option<SystemTime>,
        fields: Vec<(Cow<'static, str>, u64)>,
    ) -> Self {
        Decoded {
            id,
            timestamp,
            parts: None,
            fields,
        }
    }

    /// The value of the field called `name`, if the scheme has one.
    pub fn field(&self, name: &str) -> Option<u64> {
        self.fields.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }
}

impl Display for Decoded {
    /// `ID (RFC 3339 UTC time, name value, …)`, the time only when the
    /// scheme records one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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

/// `t` as an RFC 3339 UTC time with milliseconds, `YYYY-MM-DDTHH:MM:SS.mmmZ`,
/// as [`Decoded`]'s `Display` writes it. (Times before 1970 cannot come
/// from a layout; they are written in `SystemTime`'s `Debug` form.)
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_core::id::format_rfc3339;
/// let t = UNIX_EPOCH + Duration::from_millis(1_462_015_105_796);
/// assert_eq!(format_rfc3339(t), "2016-04-30T11:18:25.796Z");
/// ```
pub fn format_rfc3339(t: SystemTime) -> String {
    struct Rfc3339(SystemTime);
    impl Display for Rfc3339 {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_rfc3339(f, self.0)
        }
    }
    Rfc3339(t).to_string()
}

/// Writes `t` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (see [`format_rfc3339`]).
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
    fn display_without_node_fields_or_time() {
        let l = BitLayout::builder()
            .time_bits(41)
            .sequence_bits(12)
            .epoch_millis(0)
            .build()
            .unwrap();
        let d = Decoded::new(&l, (1000 << 12) | 3);
        assert_eq!(
            d.to_string(),
            "4096003 (1970-01-01T00:00:01.000Z, tick 1000, sequence 3)"
        );
        let untimed = Decoded::from_fields(7, None, vec![(Cow::Borrowed("counter"), 7)]);
        assert_eq!(untimed.to_string(), "7 (counter 7)");
    }
}
