//! base62, Crockford base32 and decimal over the whole `u64` domain.

use flakeid_core::encoding::{DecodeError, TextForm};
use proptest::prelude::*;

/// Crockford's 32 symbols, as written.
const CROCKFORD_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

proptest! {
    #[test]
    fn base62_round_trips(v: u64) {
        let s = TextForm::Base62.encode(v);
        prop_assert_eq!(s.len(), 11);
        prop_assert_eq!(TextForm::Base62.decode(&s), Ok(v));
        prop_assert_eq!(TextForm::Base62.width(), Some(s.len()));
        // The lenient decoder reads shorter input as padded with zeros.
        prop_assert_eq!(TextForm::Base62.decode_lenient(&s), Ok(v));
        prop_assert_eq!(TextForm::Base62.decode_lenient(s.trim_start_matches('0')).unwrap_or(0), v);
    }

    #[test]
    fn crockford_round_trips(v: u64) {
        let s = TextForm::Crockford.encode(v);
        prop_assert_eq!(s.len(), 13);
        prop_assert_eq!(TextForm::Crockford.decode(&s), Ok(v));
        prop_assert_eq!(TextForm::Crockford.decode(&s.to_lowercase()), Ok(v));
        // Aliases from the specification: 0 may be written O, 1 as I or L.
        prop_assert_eq!(TextForm::Crockford.decode(&s.replace('0', "o").replace('1', "L")), Ok(v));
        // Hyphens and shorter input only through the lenient decoder.
        let hyphenated = format!("{}-{}", &s[..4], &s[4..]);
        prop_assert!(TextForm::Crockford.decode(&hyphenated).is_err());
        prop_assert_eq!(TextForm::Crockford.decode_lenient(&hyphenated), Ok(v));
        prop_assert_eq!(TextForm::Crockford.decode_lenient(&s.to_lowercase()), Ok(v));
        prop_assert_eq!(TextForm::Crockford.decode_lenient(s.trim_start_matches('0')).unwrap_or(0), v);
    }

    #[test]
    fn decimal_round_trips(v: u64) {
        prop_assert_eq!(TextForm::Decimal.decode(&v.to_string()), Ok(v));
    }

    #[test]
    fn string_order_is_numeric_order(a: u64, b: u64) {
        prop_assert_eq!(TextForm::Base62.encode(a).cmp(&TextForm::Base62.encode(b)), a.cmp(&b));
        prop_assert_eq!(TextForm::Crockford.encode(a).cmp(&TextForm::Crockford.encode(b)), a.cmp(&b));
    }

    #[test]
    fn decoders_never_panic(s in "\\PC{0,30}") {
        let _ = TextForm::Base62.decode(&s);
        let _ = TextForm::Base62.decode_lenient(&s);
        let _ = TextForm::Crockford.decode(&s);
        let _ = TextForm::Crockford.decode_lenient(&s);
        let _ = TextForm::Decimal.decode(&s);
    }
}

#[test]
fn edge_values() {
    for v in [0, 1, (1 << 53) - 1, i64::MAX as u64, u64::MAX] {
        assert_eq!(TextForm::Base62.decode(&TextForm::Base62.encode(v)), Ok(v));
        assert_eq!(
            TextForm::Crockford.decode(&TextForm::Crockford.encode(v)),
            Ok(v)
        );
    }
    assert_eq!(TextForm::Base62.encode(i64::MAX as u64), "AzL8n0Y58m7");
    assert_eq!(TextForm::Crockford.encode(i64::MAX as u64), "7ZZZZZZZZZZZZ");
    assert_eq!(TextForm::Crockford.encode((1 << 53) - 1), "007ZZZZZZZZZZ");
}

#[test]
fn errors_name_input_character_and_position() {
    let e = TextForm::Base62.decode("abc!").unwrap_err();
    assert_eq!(
        e,
        DecodeError::InvalidChar {
            encoding: "base62",
            input: "abc!".into(),
            character: '!',
            position: 3
        }
    );
    let e = TextForm::Crockford.decode("01u").unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid character 'u' at position 2 in Crockford base32 string \"01u\""
    );
    let e = TextForm::Base62.decode("LygHa16AHYG").unwrap_err();
    assert_eq!(
        e.to_string(),
        "base62 string \"LygHa16AHYG\" is larger than the largest 64-bit value"
    );
    let e = TextForm::Crockford
        .decode_lenient("10000000000000")
        .unwrap_err();
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
        TextForm::Decimal.decode("").unwrap_err().to_string(),
        "empty decimal string"
    );
    let long = "9".repeat(500);
    let e = TextForm::Decimal.decode(&long).unwrap_err().to_string();
    assert!(
        e.len() < 150,
        "a huge input is shortened in the message: {e}"
    );
}

/// Crockford's spelling of `s` as `encode` writes it: upper case, `I`/`L`
/// as `1`, `O` as `0`.
fn crockford_canonical(s: &str) -> String {
    s.chars()
        .map(|c| match c.to_ascii_uppercase() {
            'I' | 'L' => '1',
            'O' => '0',
            c => c,
        })
        .collect()
}

proptest! {
    #[test]
    fn every_accepted_base62_string_is_the_encoding_of_its_value(
        s in "[0-9A-Za-z]{11}|[0-9A-Za-z]{0,14}|[0-9A-Za-z\\-_ ]{9,13}|L[0-9A-Za-z]{10}",
    ) {
        if let Ok(v) = TextForm::Base62.decode(&s) {
            prop_assert_eq!(TextForm::Base62.encode(v), s);
        } else {
            prop_assert!(s.len() != 11 || s.bytes().any(|b| !b.is_ascii_alphanumeric()) || s.as_str() > "LygHa16AHYF", "{}", s);
        }
    }

    #[test]
    fn every_accepted_crockford_string_is_the_encoding_of_its_value_modulo_case_and_aliases(
        s in "[0-9A-HJKMNP-TV-Za-hjkmnp-tv-zIiLlOo]{13}|[0-9A-Za-z]{0,15}|[0-9A-Za-z\\-]{12,15}",
    ) {
        if let Ok(v) = TextForm::Crockford.decode(&s) {
            prop_assert_eq!(TextForm::Crockford.encode(v), crockford_canonical(&s));
        } else {
            let canonical = crockford_canonical(&s);
            prop_assert!(
                s.chars().count() != 13
                    || canonical.bytes().any(|b| !CROCKFORD_ALPHABET.contains(&b))
                    || canonical.as_str() > "FZZZZZZZZZZZZ",
                "{}", s
            );
        }
    }
}

#[test]
fn canonical_decoders_require_the_full_width() {
    for (input, message) in [
        (
            "0123456789AB",
            r#"wrong length: expected 13 characters, got 12, in Crockford base32 string "0123456789AB""#,
        ),
        (
            "1",
            r#"wrong length: expected 13 characters, got 1, in Crockford base32 string "1""#,
        ),
        (
            "00000000000000",
            r#"wrong length: expected 13 characters, got 14, in Crockford base32 string "00000000000000""#,
        ),
    ] {
        assert_eq!(
            TextForm::Crockford.decode(input).unwrap_err().to_string(),
            message
        );
    }
    for (input, message) in [
        (
            "z",
            r#"wrong length: expected 11 characters, got 1, in base62 string "z""#,
        ),
        (
            "Czks0tP37X",
            r#"wrong length: expected 11 characters, got 10, in base62 string "Czks0tP37X""#,
        ),
        (
            "000000000000",
            r#"wrong length: expected 11 characters, got 12, in base62 string "000000000000""#,
        ),
    ] {
        assert_eq!(
            TextForm::Base62.decode(input).unwrap_err().to_string(),
            message
        );
    }
}

#[test]
fn canonical_crockford_takes_no_hyphens_but_case_and_aliases() {
    assert_eq!(
        TextForm::Crockford
            .decode("04W86-BB0G-4007")
            .unwrap_err()
            .to_string(),
        r#"invalid character '-' at position 5 in Crockford base32 string "04W86-BB0G-4007""#
    );
    assert_eq!(
        TextForm::Crockford
            .decode("-04W86BB0G4007")
            .unwrap_err()
            .to_string(),
        r#"invalid character '-' at position 0 in Crockford base32 string "-04W86BB0G4007""#
    );
    assert_eq!(
        TextForm::Crockford.decode("o4w86bbog4oo7"),
        Ok(175_928_847_299_117_063)
    );
    assert_eq!(
        TextForm::Crockford.decode("0000000000iLl"),
        Ok(0b00001_00001_00001)
    );
}

#[test]
fn canonical_decoders_reject_a_first_character_that_overflows() {
    // 13 symbols hold 65 bits: the first may be at most F.
    assert_eq!(TextForm::Crockford.decode("FZZZZZZZZZZZZ"), Ok(u64::MAX));
    assert_eq!(TextForm::Crockford.decode("fzzzzzzzzzzzz"), Ok(u64::MAX));
    for input in ["G000000000000", "g000000000000", "Z000000000000"] {
        assert_eq!(
            TextForm::Crockford.decode(input).unwrap_err().to_string(),
            format!("Crockford base32 string {input:?} is larger than the largest 64-bit value")
        );
    }
    assert_eq!(TextForm::Base62.decode("LygHa16AHYF"), Ok(u64::MAX));
    for input in ["LygHa16AHYG", "M0000000000", "zzzzzzzzzzz"] {
        assert_eq!(
            TextForm::Base62.decode(input).unwrap_err().to_string(),
            format!("base62 string {input:?} is larger than the largest 64-bit value")
        );
    }
}

proptest! {
    /// The lenient decoders read every spelling as the canonical one padded
    /// with `0` on the left (Crockford: after dropping hyphens).
    #[test]
    fn lenient_decoders_read_every_spelling_as_the_padded_canonical_form(
        s in "[0-9A-Za-z]{1,11}|[0-9A-HJKMNP-TV-Za-hjkmnp-tv-zIiLlOo\\-]{1,16}",
    ) {
        if let Ok(v) = TextForm::Base62.decode_lenient(&s) {
            prop_assert_eq!(TextForm::Base62.encode(v), format!("{s:0>11}"));
            prop_assert_eq!(TextForm::Base62.decode(&format!("{s:0>11}")), Ok(v));
        }
        if let Ok(v) = TextForm::Crockford.decode_lenient(&s) {
            let symbols = crockford_canonical(&s.replace('-', ""));
            prop_assert_eq!(TextForm::Crockford.encode(v), format!("{symbols:0>13}"));
            prop_assert_eq!(TextForm::Crockford.decode(&format!("{symbols:0>13}")), Ok(v));
        }
    }
}
