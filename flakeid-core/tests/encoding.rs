//! base62, Crockford base32 and decimal over the whole `u64` domain.

use flakeid_core::DecodeError;
use flakeid_core::encoding::{base62, crockford, decimal};
use proptest::prelude::*;

proptest! {
    #[test]
    fn base62_round_trips(v: u64) {
        let s = base62::encode(v);
        prop_assert_eq!(s.len(), base62::WIDTH);
        prop_assert_eq!(base62::decode(&s), Ok(v));
        prop_assert_eq!(s.as_bytes(), &base62::encode_array(v)[..]);
        // Shorter input is the same number padded with zeros.
        prop_assert_eq!(base62::decode(s.trim_start_matches('0')).unwrap_or(0), v);
    }

    #[test]
    fn crockford_round_trips(v: u64) {
        let s = crockford::encode(v);
        prop_assert_eq!(s.len(), crockford::WIDTH);
        prop_assert_eq!(crockford::decode(&s), Ok(v));
        prop_assert_eq!(crockford::decode(&s.to_lowercase()), Ok(v));
        // Aliases from the specification: 0 may be written O, 1 as I or L.
        prop_assert_eq!(crockford::decode(&s.replace('0', "o").replace('1', "L")), Ok(v));
        let hyphenated = format!("{}-{}", &s[..4], &s[4..]);
        prop_assert_eq!(crockford::decode(&hyphenated), Ok(v));
    }

    #[test]
    fn decimal_round_trips(v: u64) {
        prop_assert_eq!(decimal::decode(&v.to_string()), Ok(v));
    }

    #[test]
    fn string_order_is_numeric_order(a: u64, b: u64) {
        prop_assert_eq!(base62::encode(a).cmp(&base62::encode(b)), a.cmp(&b));
        prop_assert_eq!(crockford::encode(a).cmp(&crockford::encode(b)), a.cmp(&b));
    }

    #[test]
    fn decoders_never_panic(s in "\\PC{0,30}") {
        let _ = base62::decode(&s);
        let _ = crockford::decode(&s);
        let _ = decimal::decode(&s);
    }
}

#[test]
fn edge_values() {
    for v in [0, 1, (1 << 53) - 1, i64::MAX as u64, u64::MAX] {
        assert_eq!(base62::decode(&base62::encode(v)), Ok(v));
        assert_eq!(crockford::decode(&crockford::encode(v)), Ok(v));
    }
    assert_eq!(base62::encode(i64::MAX as u64), "AzL8n0Y58m7");
    assert_eq!(crockford::encode(i64::MAX as u64), "7ZZZZZZZZZZZZ");
    assert_eq!(crockford::encode((1 << 53) - 1), "007ZZZZZZZZZZ");
}

#[test]
fn errors_name_input_character_and_position() {
    let e = base62::decode("abc!").unwrap_err();
    assert_eq!(
        e,
        DecodeError::InvalidChar {
            encoding: "base62",
            input: "abc!".into(),
            character: '!',
            position: 3
        }
    );
    let e = crockford::decode("01u").unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid character 'u' at position 2 in Crockford base32 string \"01u\""
    );
    let e = base62::decode("LygHa16AHYG").unwrap_err();
    assert_eq!(
        e.to_string(),
        "base62 string \"LygHa16AHYG\" is larger than the largest 64-bit value"
    );
    let e = crockford::decode("10000000000000").unwrap_err();
    assert!(
        matches!(
            e,
            DecodeError::TooLong {
                len: 14,
                max: 13,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        decimal::decode("").unwrap_err().to_string(),
        "empty decimal string"
    );
    let long = "9".repeat(500);
    let e = decimal::decode(&long).unwrap_err().to_string();
    assert!(
        e.len() < 150,
        "a huge input is shortened in the message: {e}"
    );
}
