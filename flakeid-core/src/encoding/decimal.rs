//! The canonical decimal form of an ID: what `Display` writes and what
//! `FromStr` and serde read.
//!
//! [`decode`] is strict so that every ID has exactly one text form: ASCII
//! digits only (no sign, no whitespace, no `_`), and no leading zeros
//! (`"007"` is rejected; `"0"` decodes to 0, which an ID type then rejects).
//! One text form per ID keeps string comparisons, cache keys and URLs
//! unambiguous.
//!
//! ```
//! use flakeid_core::encoding::TextForm::Decimal;
//! assert_eq!(Decimal.decode("175928847299117063")?, 175_928_847_299_117_063);
//! assert!(Decimal.decode("+1").is_err());
//! assert!(Decimal.decode(" 1").is_err());
//! assert!(Decimal.decode("01").is_err());
//! # Ok::<(), flakeid_core::encoding::DecodeError>(())
//! ```

use super::digits::Digits;
use super::error::{DecodeError, excerpt};

/// Decodes a canonical decimal `u64`.
///
/// # Errors
/// [`DecodeError`] naming the input for empty input, any character that is
/// not an ASCII digit (with its position), a leading zero, or a value
/// above `u64::MAX`.
///
/// ```
/// use flakeid_core::encoding::DecodeError;
/// use flakeid_core::encoding::TextForm::Decimal;
/// assert_eq!(Decimal.decode("0")?, 0);
/// assert!(matches!(Decimal.decode("-1"), Err(DecodeError::InvalidChar { character: '-', position: 0, .. })));
/// assert!(matches!(Decimal.decode("18446744073709551616"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub(crate) fn decode(input: &str) -> Result<u64, DecodeError> {
    let value = DIGITS.decode_lenient(input)?;
    if input.len() > 1 && input.starts_with('0') {
        return Err(DecodeError::LeadingZero {
            encoding: DIGITS.name,
            input: excerpt(input),
        });
    }
    Ok(value)
}

/// Decimal digits, as many as the value needs.
const DIGITS: Digits = Digits {
    name: "decimal",
    alphabet: b"0123456789",
    width: usize::MAX,
    digit: |c| c.to_digit(10).map(u64::from),
    separator: None,
};

#[cfg(test)]
#[path = "../../tests/unit/encoding_decimal.rs"]
mod tests;
