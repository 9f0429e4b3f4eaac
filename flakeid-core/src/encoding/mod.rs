//! Text forms of IDs ([`TextForm`]), one file per form.
//!
//! * Base62 — 11 characters of `0-9A-Za-z`, for short URLs.
//! * Crockford — 13 characters of Crockford's base32, for IDs people
//!   read aloud or type (written upper case without `I`, `L`, `O`, `U`;
//!   read case-insensitively with `I`/`L` as `1` and `O` as `0`).
//! * Decimal — the canonical decimal form that `Display`, `FromStr`
//!   and serde use (IDs serialize as decimal strings; see
//!   [`interop`](crate::interop)).
//!
//! An ID type with a type prefix ([`Prefix`], `#[flake_id(prefix = "usr")]`)
//! writes `usr_` before its number, in decimal or in one of the
//! fixed-width forms.
//!
//! The base62 and Crockford encoders write a fixed number of characters
//! whose alphabets are in ASCII order, so comparing two encoded IDs as
//! strings (or bytes) gives the same order as comparing the numbers.
//!
//! Each form has one spelling per value. [`TextForm::decode`] (and so
//! [`FlakeId::from_base62`](crate::FlakeId::from_base62) and
//! [`FlakeId::from_crockford`](crate::FlakeId::from_crockford)) accepts
//! exactly the fixed width — for Crockford, up to case and the `I`/`L`/`O`
//! aliases the specification defines — and rejects a value above
//! `u64::MAX`; decimal accepts no sign, whitespace or leading zero. Where
//! other spellings must be read (shorter strings, Crockford with hyphens),
//! [`TextForm::decode_lenient`] accepts them; compare or store what
//! [`TextForm::encode`] writes, not its input.

mod base62;
mod crockford;
pub(crate) mod decimal;
mod digits;
pub(crate) mod error;
mod prefix;
mod rfc3339;

use digits::Digits;
pub use error::DecodeError;
pub use prefix::Prefix;
pub use rfc3339::format_rfc3339;
pub(crate) use rfc3339::{parse_rfc3339, write_rfc3339};

/// A text form of IDs (see the [module documentation](self)).
///
/// ```
/// use flakeid_core::encoding::TextForm;
///
/// let id = 175_928_847_299_117_063;
/// assert_eq!(TextForm::Base62.encode(id), "0Czks0tP37X");
/// assert_eq!(TextForm::Crockford.encode(id), "04W86BB0G4007");
/// assert_eq!(TextForm::Decimal.encode(id), "175928847299117063");
/// for form in [TextForm::Decimal, TextForm::Base62, TextForm::Crockford] {
///     assert_eq!(form.decode(&form.encode(id))?, id);
/// }
/// // Canonical decoding takes one spelling; lenient decoding more.
/// assert!(TextForm::Base62.decode("Czks0tP37X").is_err());
/// assert_eq!(TextForm::Base62.decode_lenient("Czks0tP37X")?, id);
/// assert_eq!(TextForm::Base62.width(), Some(11));
/// # Ok::<(), flakeid_core::encoding::DecodeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TextForm {
    /// Decimal digits, the canonical form (`Display`, `FromStr`, serde):
    /// no sign, whitespace or leading zero.
    Decimal,
    /// 11 characters of `0-9A-Za-z` (ASCII order, zero-padded), for short
    /// URLs; case-sensitive.
    Base62,
    /// 13 characters of Crockford's base32 (upper case, no `I`, `L`, `O`,
    /// `U`), for IDs people read aloud or type; read case-insensitively
    /// with `I`/`L` as `1` and `O` as `0`.
    Crockford,
}

impl TextForm {
    /// `value` in this form: base62 and Crockford write a fixed number of
    /// characters, so encoded IDs sort as strings like the numbers do.
    pub fn encode(self, value: u64) -> String {
        match self.digits() {
            None => value.to_string(),
            Some(digits) => digits.encode(value),
        }
    }

    /// Reads the one spelling [`encode`](Self::encode) writes (Crockford
    /// also up to case and its `I`/`L`/`O` aliases).
    ///
    /// # Errors
    /// [`DecodeError`] naming the input: empty, a character outside the
    /// form, a length other than the fixed width, a leading zero (decimal),
    /// or a value above `u64::MAX`.
    pub fn decode(self, text: &str) -> Result<u64, DecodeError> {
        match self.digits() {
            None => decimal::decode(text),
            Some(digits) => digits.decode_fixed(text),
        }
    }

    /// Reads other spellings too: base62 and Crockford strings shorter than
    /// the fixed width (read as if padded with zeros), Crockford with
    /// hyphens. Compare or store what [`encode`](Self::encode) writes, not
    /// what this reads. Decimal: as [`decode`](Self::decode).
    ///
    /// # Errors
    /// As [`decode`](Self::decode), except for length.
    pub fn decode_lenient(self, text: &str) -> Result<u64, DecodeError> {
        match self.digits() {
            None => decimal::decode(text),
            Some(digits) => digits.decode_lenient(text),
        }
    }

    /// The fixed number of characters this form writes (`None`: decimal,
    /// whose length varies).
    pub const fn width(self) -> Option<usize> {
        match self.digits() {
            None => None,
            Some(digits) => Some(digits.width),
        }
    }

    /// The digits of a fixed-width form.
    const fn digits(self) -> Option<&'static Digits> {
        match self {
            TextForm::Decimal => None,
            TextForm::Base62 => Some(&base62::DIGITS),
            TextForm::Crockford => Some(&crockford::DIGITS),
        }
    }
}

#[cfg(test)]
#[path = "../../tests/unit/encoding.rs"]
mod tests;
