//! Crockford base32: IDs as 13 characters of
//! `0123456789ABCDEFGHJKMNPQRSTVWXYZ` (<https://www.crockford.com/base32.html>).
//!
//! [`TextForm::encode`](super::TextForm::encode) writes 13 upper-case characters, padded with `0` on the
//! left; the alphabet is in ASCII order, so encoded IDs sort as strings like
//! the numbers do.
//!
//! Two decoders, both following the specification's reading of symbols
//! (case is ignored, `I` and `L` read as `1`, `O` as `0`; `U` and the check
//! symbols `*~$=` are rejected, no check symbol is supported):
//!
//! * [`TextForm::decode`](super::TextForm::decode) (used by [`FlakeId::from_crockford`](crate::FlakeId::from_crockford))
//!   accepts the canonical width only: exactly 13 symbols, no
//!   hyphens, no other characters. 13 symbols hold 65 bits, so the first is
//!   at most `F`; a larger one is an error. A string it accepts is exactly
//!   what `encode` writes for the value, up to case and the `I`/`L`/`O`
//!   aliases. TSID's libraries accept the same.
//! * [`TextForm::decode_lenient`](super::TextForm::decode_lenient) accepts several spellings of one value: 1 to
//!   13 symbols (shorter input is read as if padded with `0` on the
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

use super::digits::Digits;

/// Crockford's symbols in ASCII (and value) order, read case-insensitively
/// with their aliases; 13 hold a `u64` (65 bits); the lenient reader skips
/// hyphens.
///
/// ```
/// use flakeid_core::encoding::TextForm::Crockford;
/// assert_eq!(Crockford.encode(31).as_bytes(), b"000000000000Z");
/// assert_eq!(Crockford.encode(u64::MAX).as_bytes(), b"FZZZZZZZZZZZZ");
/// assert_eq!(Crockford.encode(0), "0000000000000");
/// assert_eq!(Crockford.encode(32), "0000000000010");
/// ```
///
/// The fixed-width reader takes exactly 13 symbols, the first at most `F`;
/// the lenient one 1 to 13, hyphens anywhere:
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
/// assert_eq!(Crockford.decode_lenient("z")?, 31);
/// assert_eq!(Crockford.decode_lenient("1o")?, Crockford.decode_lenient("10")?);
/// assert_eq!(Crockford.decode_lenient("0-1")?, 1);
/// assert!(matches!(Crockford.decode_lenient("1U"), Err(DecodeError::InvalidChar { character: 'U', position: 1, .. })));
/// assert!(matches!(Crockford.decode_lenient("G000000000000"), Err(DecodeError::Overflow { .. })));
/// # Ok::<(), DecodeError>(())
/// ```
pub(crate) const DIGITS: Digits = Digits {
    name: "Crockford base32",
    alphabet: b"0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    width: 13,
    digit: symbol,
    separator: Some('-'),
};

/// The value of one symbol, with the specification's aliases.
fn symbol(c: char) -> Option<u64> {
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

#[cfg(test)]
#[path = "../../tests/unit/encoding_crockford.rs"]
mod tests;
