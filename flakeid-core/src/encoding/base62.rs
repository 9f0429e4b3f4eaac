//! Base62: IDs as 11 characters of `0-9A-Za-z`.
//!
//! The alphabet is in ASCII order (`0` < `9` < `A` < `Z` < `a` < `z`) and
//! [`TextForm::encode`](super::TextForm::encode) always writes 11 characters, padding with `0` on the
//! left, so encoded IDs sort as strings exactly like the numbers do.
//! (Some base62 libraries use `0-9a-zA-Z`; their strings are not
//! interchangeable with these.)
//!
//! Two decoders; both are case-sensitive (`a` and `A` are different digits)
//! and take no characters but `0-9A-Za-z`:
//!
//! * [`TextForm::decode`](super::TextForm::decode) (used by [`FlakeId::from_base62`](crate::FlakeId::from_base62))
//!   accepts exactly 11 digits whose value fits 64 bits (at most
//!   `LygHa16AHYF`): one spelling per value, the one `encode` writes.
//! * [`TextForm::decode_lenient`](super::TextForm::decode_lenient) accepts 1 to 11 digits, shorter input read as
//!   if padded with `0` on the left, so a value has several spellings
//!   (`"z"`, `"0z"`, … `"0000000000z"`).
//!
//! ```
//! use flakeid_core::encoding::TextForm::Base62;
//! let s = Base62.encode(175_928_847_299_117_063);
//! assert_eq!(s, "0Czks0tP37X");
//! assert_eq!(Base62.decode(&s)?, 175_928_847_299_117_063);
//! assert!(Base62.decode("Czks0tP37X").is_err());
//! assert_eq!(Base62.decode_lenient("Czks0tP37X")?, 175_928_847_299_117_063);
//! # Ok::<(), flakeid_core::encoding::DecodeError>(())
//! ```

use super::digits::Digits;

/// Base62's digits: `0-9A-Za-z` in ASCII (and value) order; 11 of them
/// hold a `u64` (`62^11 > 2^64 > 62^10`). Case matters: `a` and `A` are
/// different digits.
///
/// ```
/// use flakeid_core::encoding::TextForm::Base62;
/// assert_eq!(Base62.encode(61).as_bytes(), b"0000000000z");
/// assert_eq!(Base62.encode(u64::MAX).as_bytes(), b"LygHa16AHYF");
/// assert_eq!(Base62.encode(0), "00000000000");
/// assert_eq!(Base62.encode(62), "00000000010");
/// assert!(Base62.encode(9) < Base62.encode(10)); // fixed width keeps the order
/// ```
///
/// The fixed-width reader takes exactly 11 digits, at most `LygHa16AHYF`
/// (`u64::MAX`); the lenient one 1 to 11, as if padded with `0` on the
/// left:
///
/// ```
/// use flakeid_core::encoding::TextForm::Base62;
/// use flakeid_core::encoding::DecodeError;
/// assert_eq!(Base62.decode("0000000000z")?, 61);
/// assert!(matches!(Base62.decode("z"), Err(DecodeError::Length { len: 1, expected: 11, .. })));
/// assert!(matches!(Base62.decode("00000000-4"), Err(DecodeError::InvalidChar { character: '-', position: 8, .. })));
/// assert!(matches!(Base62.decode("zzzzzzzzzzz"), Err(DecodeError::Overflow { .. })));
/// assert_eq!(Base62.decode_lenient("z")?, 61);
/// assert!(matches!(Base62.decode_lenient("12-4"), Err(DecodeError::InvalidChar { character: '-', position: 2, .. })));
/// assert!(matches!(Base62.decode_lenient("zzzzzzzzzzz"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub(crate) const DIGITS: Digits = Digits {
    name: "base62",
    alphabet: b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    width: 11,
    digit,
    separator: None,
};

/// The value of one base62 digit.
fn digit(c: char) -> Option<u64> {
    match c {
        '0'..='9' => Some(c as u64 - '0' as u64),
        'A'..='Z' => Some(c as u64 - 'A' as u64 + 10),
        'a'..='z' => Some(c as u64 - 'a' as u64 + 36),
        _ => None,
    }
}

#[cfg(test)]
#[path = "../../tests/unit/encoding_base62.rs"]
mod tests;
