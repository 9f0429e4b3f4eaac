//! Crockford base32: IDs as 13 characters of
//! `0123456789ABCDEFGHJKMNPQRSTVWXYZ` (<https://www.crockford.com/base32.html>).
//!
//! [`encode`] writes [`WIDTH`] upper-case characters, padded with `0` on the
//! left; the alphabet is in ASCII order, so encoded IDs sort as strings like
//! the numbers do. [`decode`] follows the specification: it ignores case,
//! reads `I` and `L` as `1` and `O` as `0`, and skips hyphens (`-`), which
//! may be inserted for readability. `U` and the check symbols `*~$=` are
//! rejected (no check symbol is supported).
//!
//! ```
//! use flakeid_core::encoding::crockford;
//! let s = crockford::encode(175_928_847_299_117_063);
//! assert_eq!(s, "04W86BB0G4007");
//! assert_eq!(crockford::decode("o4w86-bbog-4oo7")?, 175_928_847_299_117_063);
//! # Ok::<(), flakeid_core::DecodeError>(())
//! ```

use crate::DecodeError;
use crate::encoding::excerpt;

/// Characters of an encoded `u64`: 13 × 5 = 65 bits ≥ 64.
pub const WIDTH: usize = 13;

/// The 32 symbols, in ASCII (and value) order.
pub const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const NAME: &str = "Crockford base32";

/// Encodes `value` as exactly [`WIDTH`] upper-case ASCII bytes, without allocating.
///
/// ```
/// use flakeid_core::encoding::crockford;
/// assert_eq!(&crockford::encode_array(31), b"000000000000Z");
/// assert_eq!(&crockford::encode_array(u64::MAX), b"FZZZZZZZZZZZZ");
/// ```
pub const fn encode_array(value: u64) -> [u8; WIDTH] {
    let mut out = [b'0'; WIDTH];
    let mut i = 0;
    while i < WIDTH {
        let shift = 5 * (WIDTH - 1 - i);
        out[i] = ALPHABET[((value >> shift) & 31) as usize];
        i += 1;
    }
    out
}

/// Encodes `value` as a 13-character upper-case string.
///
/// ```
/// use flakeid_core::encoding::crockford;
/// assert_eq!(crockford::encode(0), "0000000000000");
/// assert_eq!(crockford::encode(32), "0000000000010");
/// ```
pub fn encode(value: u64) -> String {
    encode_array(value).iter().map(|&b| b as char).collect()
}

/// The value of one symbol, with the specification's aliases.
const fn symbol(c: char) -> Option<u64> {
    let v = match c.to_ascii_uppercase() {
        c @ '0'..='9' => c as u8 - b'0',
        'O' => 0,
        'I' | 'L' => 1,
        c @ 'A'..='H' => c as u8 - b'A' + 10,
        'J' => 18,
        'K' => 19,
        'M' => 20,
        'N' => 21,
        c @ 'P'..='T' => c as u8 - b'P' + 22,
        c @ 'V'..='Z' => c as u8 - b'V' + 27,
        _ => return None,
    };
    Some(v as u64)
}

/// Decodes 1 to [`WIDTH`] symbols (hyphens not counted); shorter input is
/// read as if padded with `0` on the left.
///
/// # Errors
/// [`DecodeError`] naming the input for empty input (or only hyphens), a
/// character outside the alphabet and its aliases (with its position),
/// more than [`WIDTH`] symbols, or a value above `u64::MAX`.
///
/// ```
/// use flakeid_core::{DecodeError, encoding::crockford};
/// assert_eq!(crockford::decode("z")?, 31);
/// assert_eq!(crockford::decode("1o")?, crockford::decode("10")?);
/// assert!(matches!(crockford::decode("1U"), Err(DecodeError::InvalidChar { character: 'U', position: 1, .. })));
/// assert!(matches!(crockford::decode("G000000000000"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub fn decode(input: &str) -> Result<u64, DecodeError> {
    let mut value: u64 = 0;
    let mut symbols = 0usize;
    for (position, c) in input.chars().enumerate() {
        if c == '-' {
            continue;
        }
        let d = symbol(c).ok_or_else(|| DecodeError::InvalidChar {
            encoding: NAME,
            input: excerpt(input),
            character: c,
            position,
        })?;
        symbols += 1;
        if symbols > WIDTH {
            return Err(DecodeError::TooLong {
                encoding: NAME,
                input: excerpt(input),
                len: input.chars().filter(|&c| c != '-').count(),
                max: WIDTH,
            });
        }
        if value >> 59 != 0 {
            return Err(DecodeError::Overflow {
                encoding: NAME,
                input: excerpt(input),
            });
        }
        value = (value << 5) | d;
    }
    if symbols == 0 {
        return Err(DecodeError::Empty { encoding: NAME });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_case() {
        assert_eq!(decode("abcdefghjkmnp"), decode("ABCDEFGHJKMNP"));
        assert_eq!(decode("iIlL"), Ok(0b00001_00001_00001_00001));
        assert_eq!(decode("oO0"), Ok(0));
        assert_eq!(decode("--1-"), Ok(1));
        for (i, &c) in ALPHABET.iter().enumerate() {
            assert_eq!(symbol(c as char), Some(i as u64));
        }
    }

    #[test]
    fn errors_name_input() {
        assert_eq!(decode(""), Err(DecodeError::Empty { encoding: NAME }));
        assert_eq!(decode("---"), Err(DecodeError::Empty { encoding: NAME }));
        let e = decode("12*").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid character '*' at position 2 in Crockford base32 string \"12*\""
        );
        assert!(matches!(
            decode("00000000000000"),
            Err(DecodeError::TooLong {
                len: 14,
                max: 13,
                ..
            })
        ));
        assert_eq!(decode("FZZZZZZZZZZZZ"), Ok(u64::MAX));
        assert!(matches!(
            decode("G000000000000"),
            Err(DecodeError::Overflow { .. })
        ));
    }
}
