//! Base62: IDs as 11 characters of `0-9A-Za-z`.
//!
//! The alphabet is in ASCII order (`0` < `9` < `A` < `Z` < `a` < `z`) and
//! [`encode`] always writes [`WIDTH`] characters, padding with `0` on the
//! left, so encoded IDs sort as strings exactly like the numbers do.
//! (Some base62 libraries use `0-9a-zA-Z`; their strings are not
//! interchangeable with these.)
//!
//! Two decoders; both are case-sensitive (`a` and `A` are different digits)
//! and take no characters but `0-9A-Za-z`:
//!
//! * [`decode`] (used by [`FlakeId::from_base62`](crate::FlakeId::from_base62))
//!   accepts exactly [`WIDTH`] digits whose value fits 64 bits (at most
//!   `LygHa16AHYF`): one spelling per value, the one [`encode`] writes.
//! * [`decode_lenient`] accepts 1 to [`WIDTH`] digits, shorter input read as
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

use super::error::DecodeError;
use super::error::excerpt;

/// Characters of an encoded `u64`: `62^11 > 2^64 > 62^10`.
pub(crate) const WIDTH: usize = 11;

/// The 62 digits, in ASCII (and value) order.
pub(crate) const ALPHABET: &[u8; 62] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const NAME: &str = "base62";

/// Encodes `value` as exactly [`WIDTH`] ASCII bytes, without allocating.
///
/// ```
/// use flakeid_core::encoding::TextForm::Base62;
/// assert_eq!(Base62.encode(61).as_bytes(), b"0000000000z");
/// assert_eq!(Base62.encode(u64::MAX).as_bytes(), b"LygHa16AHYF");
/// ```
pub(crate) const fn encode_array(value: u64) -> [u8; WIDTH] {
    let mut out = [b'0'; WIDTH];
    let mut v = value;
    let mut i = WIDTH;
    while i > 0 {
        i -= 1;
        out[i] = ALPHABET[(v % 62) as usize];
        v /= 62;
    }
    out
}

/// Encodes `value` as an 11-character string.
///
/// ```
/// use flakeid_core::encoding::TextForm::Base62;
/// assert_eq!(Base62.encode(0), "00000000000");
/// assert_eq!(Base62.encode(62), "00000000010");
/// assert!(Base62.encode(9) < Base62.encode(10)); // fixed width keeps the order
/// ```
pub(crate) fn encode(value: u64) -> String {
    encode_array(value).iter().map(|&b| b as char).collect()
}

/// The value of one base62 digit.
const fn digit(c: u8) -> Option<u64> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u64),
        b'A'..=b'Z' => Some((c - b'A') as u64 + 10),
        b'a'..=b'z' => Some((c - b'a') as u64 + 36),
        _ => None,
    }
}

/// Decodes the canonical form: exactly [`WIDTH`] base62 digits, at most
/// `LygHa16AHYF` (`u64::MAX`). Case matters: `a` and `A` are different digits.
///
/// # Errors
/// [`DecodeError`] naming the input: [`Empty`](DecodeError::Empty),
/// [`InvalidChar`](DecodeError::InvalidChar) for a character outside
/// `0-9A-Za-z` (with its position), [`Length`](DecodeError::Length) for any
/// length but [`WIDTH`], [`Overflow`](DecodeError::Overflow) for a value
/// above `u64::MAX`.
///
/// ```
/// use flakeid_core::encoding::TextForm::Base62;
/// use flakeid_core::encoding::DecodeError;
/// assert_eq!(Base62.decode("0000000000z")?, 61);
/// assert!(matches!(Base62.decode("z"), Err(DecodeError::Length { len: 1, expected: 11, .. })));
/// assert!(matches!(Base62.decode("00000000-4"), Err(DecodeError::InvalidChar { character: '-', position: 8, .. })));
/// assert!(matches!(Base62.decode("zzzzzzzzzzz"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub(crate) fn decode(input: &str) -> Result<u64, DecodeError> {
    if input.is_empty() {
        return Err(DecodeError::Empty { encoding: NAME });
    }
    // 62^11 > 2^64: collect in a u128, then check that the value fits.
    let mut value: u128 = 0;
    let mut len = 0usize;
    for (position, c) in input.chars().enumerate() {
        let d = u8::try_from(c)
            .ok()
            .and_then(digit)
            .ok_or_else(|| DecodeError::InvalidChar {
                encoding: NAME,
                input: excerpt(input),
                character: c,
                position,
            })?;
        if position < WIDTH {
            value = value * 62 + u128::from(d);
        }
        len += 1;
    }
    if len != WIDTH {
        return Err(DecodeError::Length {
            encoding: NAME,
            input: excerpt(input),
            len,
            expected: WIDTH,
        });
    }
    u64::try_from(value).map_err(|_| DecodeError::Overflow {
        encoding: NAME,
        input: excerpt(input),
    })
}

/// Decodes 1 to [`WIDTH`] base62 digits; shorter input is read as if
/// padded with `0` on the left, so `"z"` and `"0000000000z"` are both 61.
/// Case matters: `a` and `A` are different digits.
///
/// # Errors
/// [`DecodeError`] naming the input for empty or too long input, a
/// character outside `0-9A-Za-z` (with its position), or a value above
/// `u64::MAX`.
///
/// ```
/// use flakeid_core::encoding::TextForm::Base62;
/// use flakeid_core::encoding::DecodeError;
/// assert_eq!(Base62.decode_lenient("z")?, 61);
/// assert!(matches!(Base62.decode_lenient("12-4"), Err(DecodeError::InvalidChar { character: '-', position: 2, .. })));
/// assert!(matches!(Base62.decode_lenient("zzzzzzzzzzz"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub(crate) fn decode_lenient(input: &str) -> Result<u64, DecodeError> {
    if input.is_empty() {
        return Err(DecodeError::Empty { encoding: NAME });
    }
    let mut value: u64 = 0;
    for (position, c) in input.chars().enumerate() {
        let d = u8::try_from(c)
            .ok()
            .and_then(digit)
            .ok_or_else(|| DecodeError::InvalidChar {
                encoding: NAME,
                input: excerpt(input),
                character: c,
                position,
            })?;
        if position >= WIDTH {
            return Err(DecodeError::TooLong {
                encoding: NAME,
                input: excerpt(input),
                len: input.chars().count(),
                max: WIDTH,
            });
        }
        value = value
            .checked_mul(62)
            .and_then(|v| v.checked_add(d))
            .ok_or_else(|| DecodeError::Overflow {
                encoding: NAME,
                input: excerpt(input),
            })?;
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges() {
        for v in [
            0,
            1,
            61,
            62,
            1 << 53,
            i64::MAX as u64,
            u64::MAX - 1,
            u64::MAX,
        ] {
            assert_eq!(decode(&encode(v)), Ok(v), "{v}");
        }
        assert_eq!(encode(u64::MAX), "LygHa16AHYF");
        assert_eq!(
            decode("LygHa16AHYG"),
            Err(DecodeError::Overflow {
                encoding: NAME,
                input: "LygHa16AHYG".into()
            })
        );
    }

    #[test]
    fn errors_name_input() {
        assert_eq!(decode(""), Err(DecodeError::Empty { encoding: NAME }));
        assert_eq!(
            decode_lenient(""),
            Err(DecodeError::Empty { encoding: NAME })
        );
        assert_eq!(
            decode("000000000000").unwrap_err().to_string(),
            "wrong length: expected 11 characters, got 12, in base62 string \"000000000000\""
        );
        let e = decode_lenient("000000000000").unwrap_err();
        assert_eq!(
            e.to_string(),
            "base62 string \"000000000000\" is 12 digits long; at most 11 are allowed"
        );
        for e in [
            decode("ab é").unwrap_err(),
            decode_lenient("ab é").unwrap_err(),
        ] {
            assert_eq!(
                e.to_string(),
                "invalid character ' ' at position 2 in base62 string \"ab é\""
            );
        }
    }
}
