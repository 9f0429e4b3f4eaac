//! Errors of the text forms.

use thiserror::Error;

/// A text form (decimal, base62, Crockford base32) that does not decode.
///
/// ```
/// use flakeid_core::encoding::{DecodeError, TextForm};
///
/// assert!(matches!(TextForm::Decimal.decode("007"), Err(DecodeError::LeadingZero { .. })));
/// let e = TextForm::Base62.decode("abc").unwrap_err();
/// assert!(matches!(e, DecodeError::Length { len: 3, expected: 11, .. }));
/// assert_eq!(e.to_string(), "wrong length: expected 11 characters, got 3, in base62 string \"abc\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input is empty.
    #[error("empty {encoding} string")]
    Empty {
        /// The encoding's name (`"decimal"`, `"base62"`, `"Crockford base32"`).
        encoding: &'static str,
    },
    /// The input holds a character outside the encoding's alphabet.
    #[error(
        "invalid character {character:?} at position {position} in {encoding} string {input:?}"
    )]
    InvalidChar {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// The offending character.
        character: char,
        /// Its position, counted in characters from 0.
        position: usize,
    },
    /// A decimal string has a leading zero (only the canonical form is accepted).
    #[error("{encoding} string {input:?} has a leading zero")]
    LeadingZero {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
    },
    /// A fixed-width form (base62, Crockford base32) does not have exactly
    /// its width in characters.
    #[error(
        "wrong length: expected {expected} characters, got {len}, in {encoding} string {input:?}"
    )]
    Length {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// Its length in characters.
        len: usize,
        /// The encoding's width.
        expected: usize,
    },
    /// The input has more digits than the encoding of a `u64` can have
    /// (decimal, and the lenient base62 and Crockford decoders).
    #[error("{encoding} string {input:?} is {len} digits long; at most {max} are allowed")]
    TooLong {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// Its length in digits.
        len: usize,
        /// The longest accepted length.
        max: usize,
    },
    /// The input's value does not fit in 64 bits.
    #[error("{encoding} string {input:?} is larger than the largest 64-bit value")]
    Overflow {
        /// The encoding's name.
        encoding: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
    },
}

/// The input as stored in a [`DecodeError`](crate::encoding::DecodeError): at most 64
/// characters, so that an error about a huge input stays small.
pub fn excerpt(input: &str) -> String {
    const MAX: usize = 64;
    match input.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &input[..cut]),
        None => input.to_owned(),
    }
}
