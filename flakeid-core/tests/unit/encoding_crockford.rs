//! Unit tests of `src/encoding/crockford.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;
use crate::encoding::DecodeError;

#[test]
fn aliases_and_case() {
    assert_eq!(
        DIGITS.decode_fixed("abcdefghjkmnp"),
        DIGITS.decode_fixed("ABCDEFGHJKMNP")
    );
    assert_eq!(DIGITS.decode_lenient("iIlL"), Ok(0b00001_00001_00001_00001));
    assert_eq!(
        DIGITS.decode_fixed("000000000iIlL"),
        Ok(0b00001_00001_00001_00001)
    );
    assert_eq!(DIGITS.decode_lenient("oO0"), Ok(0));
    assert_eq!(DIGITS.decode_fixed("oO00000000000"), Ok(0));
    assert_eq!(DIGITS.decode_lenient("--1-"), Ok(1));
    for (i, &c) in DIGITS.alphabet.iter().enumerate() {
        assert_eq!(symbol(c as char), Some(i as u64));
    }
}

#[test]
fn errors_name_input() {
    for e in [
        DIGITS.decode_fixed("12*").unwrap_err(),
        DIGITS.decode_lenient("12*").unwrap_err(),
    ] {
        assert_eq!(
            e.to_string(),
            "invalid character '*' at position 2 in Crockford base32 string \"12*\""
        );
    }
    assert_eq!(
        DIGITS.decode_fixed("00000000000000"),
        Err(DecodeError::Length {
            encoding: DIGITS.name,
            input: "00000000000000".into(),
            len: 14,
            expected: 13
        })
    );
    assert!(matches!(
        DIGITS.decode_lenient("00000000000000"),
        Err(DecodeError::TooLong {
            len: 14,
            max: 13,
            ..
        })
    ));
    assert_eq!(DIGITS.decode_fixed("FZZZZZZZZZZZZ"), Ok(u64::MAX));
    assert_eq!(DIGITS.decode_lenient("FZZZZZZZZZZZZ"), Ok(u64::MAX));
    assert!(matches!(
        DIGITS.decode_fixed("G000000000000"),
        Err(DecodeError::Overflow { .. })
    ));
    assert!(matches!(
        DIGITS.decode_lenient("G000000000000"),
        Err(DecodeError::Overflow { .. })
    ));
}
