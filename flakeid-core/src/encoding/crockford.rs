//! Crockford base32: IDs as 13 characters of
//! `0123456789ABCDEFGHJKMNPQRSTVWXYZ` (<https://www.crockford.com/base32.html>).
//!
//! [`encode`] writes [`WIDTH`] upper-case characters, padded with `0` on the
//! left; the alphabet is in ASCII order, so encoded IDs sort as strings like
//! the numbers do.
//!
//! Two decoders, both following the specification's reading of symbols
//! (case is ignored, `I` and `L` read as `1`, `O` as `0`; `U` and the check
//! symbols `*~$=` are rejected, no check symbol is supported):
//!
//! * [`decode`] (used by [`FlakeId::from_crockford`](crate::FlakeId::from_crockford))
//!   accepts the canonical width only: exactly [`WIDTH`] symbols, no
//!   hyphens, no other characters. 13 symbols hold 65 bits, so the first is
//!   at most `F`; a larger one is an error. A string it accepts is exactly
//!   what [`encode`] writes for the value, up to case and the `I`/`L`/`O`
//!   aliases. TSID's libraries accept the same.
//! * [`decode_lenient`] accepts several spellings of one value: 1 to
//!   [`WIDTH`] symbols (shorter input is read as if padded with `0` on the
//!   left), with hyphens anywhere, which the specification allows for
//!   readability and which are skipped.
//!
//! ```
//! use flakeid_core::encoding::TextForm::Crockford;
//! let s = Crockford.encode(175_928_847_299_117_063);
//! assert_eq!(s, "04W86BB0G4007");
//! assert_eq!(Crockford.decode("o4w86bbog4oo7")?, 175_928_847_299_117_063);
//! assert!(Crockford.decode("04W86-BB0G-4007").is_err());
//! assert_eq!(Crockford.decode_lenient("4W86-BB0G-4007")?, 175_928_847_299_117_063);
//! # Ok::<(), flakeid_core::encoding::DecodeError>(())
//! ```

use super::error::DecodeError;
use super::error::excerpt;

/// Characters of an encoded `u64`: 13 × 5 = 65 bits ≥ 64.
pub(crate) const WIDTH: usize = 13;

/// The 32 symbols, in ASCII (and value) order.
pub(crate) const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const NAME: &str = "Crockford base32";

/// Encodes `value` as exactly [`WIDTH`] upper-case ASCII bytes, without allocating.
///
/// ```
/// use flakeid_core::encoding::TextForm::Crockford;
/// assert_eq!(Crockford.encode(31).as_bytes(), b"000000000000Z");
/// assert_eq!(Crockford.encode(u64::MAX).as_bytes(), b"FZZZZZZZZZZZZ");
/// ```
pub(crate) const fn encode_array(value: u64) -> [u8; WIDTH] {
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
/// use flakeid_core::encoding::TextForm::Crockford;
/// assert_eq!(Crockford.encode(0), "0000000000000");
/// assert_eq!(Crockford.encode(32), "0000000000010");
/// ```
pub(crate) fn encode(value: u64) -> String {
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

/// Decodes the canonical form: exactly [`WIDTH`] symbols, case-insensitive,
/// with `I`/`L` read as `1` and `O` as `0`; no hyphens, no whitespace. The
/// first symbol is at most `F` (the value fits 64 bits).
///
/// # Errors
/// [`DecodeError`] naming the input: [`Empty`](DecodeError::Empty),
/// [`InvalidChar`](DecodeError::InvalidChar) for a character outside the
/// alphabet and its aliases (with its position; a hyphen too),
/// [`Length`](DecodeError::Length) for any length but [`WIDTH`], and
/// [`Overflow`](DecodeError::Overflow) for a first symbol above `F`.
///
/// ```
/// use flakeid_core::encoding::TextForm::Crockford;
/// use flakeid_core::encoding::DecodeError;
/// assert_eq!(Crockford.decode("000000000000z")?, 31);
/// assert_eq!(Crockford.decode("000000000001o")?, Crockford.decode("0000000000010")?);
/// assert!(matches!(Crockford.decode("z"), Err(DecodeError::Length { len: 1, expected: 13, .. })));
/// assert!(matches!(Crockford.decode("1U"), Err(DecodeError::InvalidChar { character: 'U', position: 1, .. })));
/// assert_eq!(Crockford.decode("FZZZZZZZZZZZZ")?, u64::MAX);
/// assert!(matches!(Crockford.decode("G000000000000"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub(crate) fn decode(input: &str) -> Result<u64, DecodeError> {
    if input.is_empty() {
        return Err(DecodeError::Empty { encoding: NAME });
    }
    // 13 symbols are 65 bits: collect them in a u128, then check the top bit.
    let mut value: u128 = 0;
    let mut len = 0usize;
    for (position, c) in input.chars().enumerate() {
        let d = symbol(c).ok_or_else(|| DecodeError::InvalidChar {
            encoding: NAME,
            input: excerpt(input),
            character: c,
            position,
        })?;
        if position < WIDTH {
            value = (value << 5) | u128::from(d);
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

/// Decodes any of several spellings of a value: 1 to [`WIDTH`] symbols
/// (hyphens not counted, and skipped wherever they are); shorter input is
/// read as if padded with `0` on the left. Case and the `I`/`L`/`O`
/// aliases as in [`decode`]. So `"1"`, `"01"`, `"0-1"` and
/// `"0000000000001"` are all 1.
///
/// # Errors
/// [`DecodeError`] naming the input for empty input (or only hyphens), a
/// character outside the alphabet and its aliases (with its position),
/// more than [`WIDTH`] symbols, or a value above `u64::MAX`.
///
/// ```
/// use flakeid_core::encoding::TextForm::Crockford;
/// use flakeid_core::encoding::DecodeError;
/// assert_eq!(Crockford.decode_lenient("z")?, 31);
/// assert_eq!(Crockford.decode_lenient("1o")?, Crockford.decode_lenient("10")?);
/// assert_eq!(Crockford.decode_lenient("0-1")?, 1);
/// assert!(matches!(Crockford.decode_lenient("1U"), Err(DecodeError::InvalidChar { character: 'U', position: 1, .. })));
/// assert!(matches!(Crockford.decode_lenient("G000000000000"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub(crate) fn decode_lenient(input: &str) -> Result<u64, DecodeError> {
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
        assert_eq!(decode_lenient("iIlL"), Ok(0b00001_00001_00001_00001));
        assert_eq!(decode("000000000iIlL"), Ok(0b00001_00001_00001_00001));
        assert_eq!(decode_lenient("oO0"), Ok(0));
        assert_eq!(decode("oO00000000000"), Ok(0));
        assert_eq!(decode_lenient("--1-"), Ok(1));
        for (i, &c) in ALPHABET.iter().enumerate() {
            assert_eq!(symbol(c as char), Some(i as u64));
        }
    }

    #[test]
    fn errors_name_input() {
        assert_eq!(decode(""), Err(DecodeError::Empty { encoding: NAME }));
        assert_eq!(
            decode_lenient(""),
            Err(DecodeError::Empty { encoding: NAME })
        );
        assert_eq!(
            decode_lenient("---"),
            Err(DecodeError::Empty { encoding: NAME })
        );
        for e in [
            decode("12*").unwrap_err(),
            decode_lenient("12*").unwrap_err(),
        ] {
            assert_eq!(
                e.to_string(),
                "invalid character '*' at position 2 in Crockford base32 string \"12*\""
            );
        }
        assert_eq!(
            decode("00000000000000"),
            Err(DecodeError::Length {
                encoding: NAME,
                input: "00000000000000".into(),
                len: 14,
                expected: 13
            })
        );
        assert!(matches!(
            decode_lenient("00000000000000"),
            Err(DecodeError::TooLong {
                len: 14,
                max: 13,
                ..
            })
        ));
        assert_eq!(decode("FZZZZZZZZZZZZ"), Ok(u64::MAX));
        assert_eq!(decode_lenient("FZZZZZZZZZZZZ"), Ok(u64::MAX));
        assert!(matches!(
            decode("G000000000000"),
            Err(DecodeError::Overflow { .. })
        ));
        assert!(matches!(
            decode_lenient("G000000000000"),
            Err(DecodeError::Overflow { .. })
        ));
    }
}
