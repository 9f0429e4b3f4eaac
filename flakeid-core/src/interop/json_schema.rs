//! How an ID looks in an API schema: a string of decimal digits.
//!
//! IDs travel as decimal **strings** (see [`encoding`](crate::encoding)),
//! because JavaScript numbers round integers above 2^53. The `utoipa` and
//! `schemars` features describe every `#[flake_id]` type with these
//! values, so that a frontend reading the OpenAPI document or JSON Schema
//! sees strings, not numbers:
//!
//! | keyword | value |
//! |---|---|
//! | `type` | `"string"` |
//! | `pattern` | [`PATTERN`]: `^[1-9][0-9]*$` |
//! | `maxLength` | the type's [`max_length`]: the digits of its largest ID (19, or 16 for JavaScript-safe layouts) |
//! | `description` | [`DESCRIPTION`] |
//! | `examples` | the type's [`example`]: one real ID of its scheme |
//!
//! The schema is named after the type (`UserId`), so documents refer to
//! it (`$ref`) rather than repeating it.
//!
//! Pattern and length together accept exactly the canonical decimal
//! strings with at most as many digits as the type's largest ID
//! ([`FlakeId::max_value`]): the string of every ID of the type, and
//! nothing `FromStr` and serde refuse for its form (no sign, whitespace,
//! leading zero, other characters, no `0`, no more digits). A pattern
//! cannot state a numeric bound, so values above the largest ID with as
//! many digits (`9007199254740992` to `9999999999999999` for a
//! JavaScript-safe layout, whose largest ID is `2^53 − 1`) pass the schema
//! and are refused by the server.
//! serde also reads JSON integers for an ID; the schema states the string
//! form that IDs are written as and that clients should send.
//!
//! [`Flake128`] is described the same way with its own string: type
//! `string`, [`FLAKE128_PATTERN`], [`FLAKE128_DESCRIPTION`] and
//! [`flake128_example`] as its example, under the name `Flake128`.
//!
//! ```
//! use flakeid_core::{flake_id, interop::json_schema, layout::presets};
//!
//! #[flake_id(layout = presets::js_safe)]
//! pub struct TicketId(i64);
//!
//! let example = json_schema::example::<TicketId>().expect("layouts give one");
//! assert_eq!(example, "129525350400256");
//! assert!(example.parse::<TicketId>().is_ok());
//! ```

use crate::FlakeId;
use crate::flake128::Flake128;

/// The regular expression (ECMA 262, as JSON Schema uses it) of an ID's
/// decimal string: a non-zero digit, then digits.
pub const PATTERN: &str = "^[1-9][0-9]*$";

/// The most digits any ID has: those of `i64::MAX`, `9223372036854775807`.
pub const MAX_LENGTH: usize = 19;

/// The most digits an ID of `I` has: those of its largest ID,
/// [`FlakeId::max_value`] (at most [`MAX_LENGTH`]).
///
/// ```
/// use flakeid_core::{flake_id, interop::json_schema, layout::presets};
///
/// #[flake_id]
/// pub struct UserId(i64);
/// #[flake_id(layout = presets::js_safe)]
/// pub struct TicketId(i64);
///
/// assert_eq!(json_schema::max_length::<UserId>(), 19);
/// assert_eq!(json_schema::max_length::<TicketId>(), 16); // 2^53 − 1 = 9007199254740991
/// ```
pub fn max_length<I: FlakeId>() -> usize {
    digits(I::max_value())
}

/// The number of decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// What an ID field is, for people reading the schema.
pub const DESCRIPTION: &str = "A 64-bit ID, sent as a string of decimal digits because \
                               JavaScript numbers round integers above 2^53.";

/// A real ID of `I`, as the string it is sent as: its scheme's
/// [`example_id`](crate::IdScheme::example_id), the same on every call.
/// `None` when the scheme gives no example (or one that is not an `I`).
///
/// ```
/// use flakeid_core::{flake_id, interop::json_schema};
///
/// #[flake_id]
/// pub struct UserId(i64);
///
/// // Twitter's layout: node 1, sequence 0, at 2025-01-01T00:00:00Z.
/// assert_eq!(json_schema::example::<UserId>().as_deref(), Some("1874244142494650368"));
/// ```
pub fn example<I: FlakeId>() -> Option<String> {
    let id = I::scheme().example_id()?;
    I::from_u64(id).ok().map(|id| id.to_string())
}

/// The regular expression of a [`Flake128`]'s canonical string: 32
/// lowercase hex digits in UUID groups, as its serde impls write and read
/// it. (The all-zero string matches and is refused: flakes start at 1.)
pub const FLAKE128_PATTERN: &str = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

/// What a [`Flake128`] field is, for people reading the schema.
pub const FLAKE128_DESCRIPTION: &str = "A 128-bit flake ID: 32 lowercase hex digits in UUID \
                                        groups, ordered like its number (creation time).";

/// A fixed [`Flake128`], as the string it is sent as: worker 1, sequence
/// 0, at 2025-01-01T00:00:00Z.
///
/// ```
/// use flakeid_core::{flake128::Flake128, interop::json_schema};
///
/// let example = json_schema::flake128_example();
/// assert_eq!(example, "00000194-1f29-7c00-0000-000000010000");
/// let flake: Flake128 = example.parse()?;
/// assert_eq!((flake.timestamp_millis(), flake.worker(), flake.sequence()), (1_735_689_600_000, 1, 0));
/// # Ok::<(), flakeid_core::Flake128Error>(())
/// ```
pub fn flake128_example() -> String {
    Flake128::from_parts(crate::layout::EXAMPLE_UNIX_MILLIS, 1, 0)
        .map(|flake| flake.to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{MAX_LENGTH, PATTERN};

    #[test]
    fn max_length_is_the_digits_of_i64_max() {
        assert_eq!(i64::MAX.to_string().len(), MAX_LENGTH);
    }

    #[test]
    fn digits_are_those_of_the_decimal_string() {
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            (1 << 53) - 1,
            1 << 53,
            i64::MAX as u64,
            u64::MAX,
        ] {
            assert_eq!(super::digits(n), n.to_string().len(), "{n}");
        }
    }

    proptest::proptest! {
        #[test]
        fn schema_accepts_the_canonical_decimals_of_up_to_19_digits(
            s in "[0-9]{0,21}|[-+ 0-9a٣.]{0,21}"
        ) {
            let pattern = regex::Regex::new(PATTERN).expect("a valid pattern");
            let schema_accepts = pattern.is_match(&s) && s.chars().count() <= MAX_LENGTH;
            let decoded = crate::encoding::decimal::decode(&s);
            let canonical = matches!(decoded, Ok(v) if v >= 1) && s.len() <= MAX_LENGTH;
            proptest::prop_assert_eq!(schema_accepts, canonical, "{:?}", s);
        }
    }
}
