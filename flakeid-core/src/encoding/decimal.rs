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

use super::error::DecodeError;
use super::error::excerpt;

const NAME: &str = "decimal";

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
    if input.is_empty() {
        return Err(DecodeError::Empty { encoding: NAME });
    }
    let mut value: u64 = 0;
    for (position, c) in input.chars().enumerate() {
        let d = c
            .to_digit(10)
            .filter(|_| c.is_ascii_digit())
            .ok_or_else(|| DecodeError::InvalidChar {
                encoding: NAME,
                input: excerpt(input),
                character: c,
                position,
            })?;
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or_else(|| DecodeError::Overflow {
                encoding: NAME,
                input: excerpt(input),
            })?;
    }
    if input.len() > 1 && input.starts_with('0') {
        return Err(DecodeError::LeadingZero {
            encoding: NAME,
            input: excerpt(input),
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict() {
        assert_eq!(decode("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(decode(""), Err(DecodeError::Empty { encoding: NAME }));
        assert_eq!(
            decode("00"),
            Err(DecodeError::LeadingZero {
                encoding: NAME,
                input: "00".into()
            })
        );
        for bad in ["1 ", " 1", "+1", "-1", "1_000", "1e3", "1.0", "١"] {
            assert!(
                matches!(decode(bad), Err(DecodeError::InvalidChar { .. })),
                "{bad}"
            );
        }
        let e = decode("99999999999999999999").unwrap_err();
        assert_eq!(
            e.to_string(),
            "decimal string \"99999999999999999999\" is larger than the largest 64-bit value"
        );
    }
}
