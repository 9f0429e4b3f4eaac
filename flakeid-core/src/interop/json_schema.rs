//! The values every `#[flake_id]` type's API schema holds (see the
//! [`interop`](super) documentation).

use crate::FlakeId;

#[cfg(any(feature = "utoipa", feature = "schemars"))]
pub(crate) use super::DESCRIPTION;

/// The regular expression (ECMA 262, as JSON Schema uses it) of an ID's
/// decimal string: a non-zero digit, then digits.
pub(crate) const PATTERN: &str = "^[1-9][0-9]*$";

/// The most digits an ID of `I` has: those of its largest ID,
/// [`FlakeId::max_value`] (at most 19).
pub(crate) fn max_length<I: FlakeId>() -> usize {
    digits(I::max_value())
}

/// A real ID of `I`, as the string it is sent as: its scheme's
/// [`example_id`](crate::IdScheme::example_id), the same on every call.
/// `None` when the scheme gives no example (or one that is not an `I`).
pub(crate) fn example<I: FlakeId>() -> Option<String> {
    let id = I::scheme().example_id()?;
    I::from_u64(id).ok().map(|id| id.to_string())
}

/// The most digits any ID has: those of `i64::MAX`, `9223372036854775807`.
#[cfg(test)]
const MAX_LENGTH: usize = 19;

/// The number of decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
#[path = "../../tests/unit/interop_json_schema.rs"]
mod tests;
