//! Unit tests of `src/encoding/base62.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;
use crate::encoding::DecodeError;

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
        assert_eq!(DIGITS.decode_fixed(&DIGITS.encode(v)), Ok(v), "{v}");
    }
    assert_eq!(DIGITS.encode(u64::MAX), "LygHa16AHYF");
    assert_eq!(
        DIGITS.decode_fixed("LygHa16AHYG"),
        Err(DecodeError::Overflow {
            encoding: DIGITS.name,
            input: "LygHa16AHYG".into()
        })
    );
}

#[test]
fn errors_name_input() {
    assert_eq!(
        DIGITS.decode_fixed("000000000000").unwrap_err().to_string(),
        "wrong length: expected 11 characters, got 12, in base62 string \"000000000000\""
    );
    let e = DIGITS.decode_lenient("000000000000").unwrap_err();
    assert_eq!(
        e.to_string(),
        "base62 string \"000000000000\" is 12 digits long; at most 11 are allowed"
    );
    for e in [
        DIGITS.decode_fixed("ab é").unwrap_err(),
        DIGITS.decode_lenient("ab é").unwrap_err(),
    ] {
        assert_eq!(
            e.to_string(),
            "invalid character ' ' at position 2 in base62 string \"ab é\""
        );
    }
}
