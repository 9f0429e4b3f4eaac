//! The values every `#[flake_id]` type's API schema holds (see the
//! [`interop`](super) documentation).

use crate::FlakeId;

use std::borrow::Cow;

use crate::encoding::TextForm;

#[cfg(any(feature = "utoipa", feature = "schemars"))]
pub(crate) use super::description;

/// The regular expression (ECMA 262, as JSON Schema uses it) of an ID's
/// decimal string: a non-zero digit, then digits.
pub(crate) const PATTERN: &str = "^[1-9][0-9]*$";

/// The regular expression of `I`'s text: [`PATTERN`], or with a
/// [`PREFIX`](FlakeId::PREFIX) the prefix, `_` and the number's form:
/// decimal digits; 11 base62 characters; 13 Crockford symbols with their
/// aliases, in either case (not `U`), the first at most `7` (an `i64`).
pub(crate) fn pattern<I: FlakeId>() -> Cow<'static, str> {
    let Some(prefix) = I::PREFIX else {
        return Cow::Borrowed(PATTERN);
    };
    let number = match prefix.form() {
        TextForm::Decimal => "[1-9][0-9]*",
        TextForm::Base62 => "[0-9A-Za-z]{11}",
        TextForm::Crockford => "[0-7IiLlOo][0-9A-TV-Za-tv-z]{12}",
    };
    format!("^{}_{number}$", prefix.name()).into()
}

/// The longest text of an ID of `I`: the digits of its largest ID,
/// [`FlakeId::max_value`] (at most 19), or with a prefix the prefix, `_`
/// and its number's digits or fixed width.
pub(crate) fn max_length<I: FlakeId>() -> usize {
    let Some(prefix) = I::PREFIX else {
        return digits(I::max_value());
    };
    let number = prefix
        .form()
        .width()
        .unwrap_or_else(|| digits(I::max_value()));
    prefix.name().len() + 1 + number
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
