//! Unit tests of `src/encoding/decimal.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

#[test]
fn strict() {
    assert_eq!(decode("18446744073709551615"), Ok(u64::MAX));
    assert_eq!(
        decode(""),
        Err(DecodeError::Empty {
            encoding: DIGITS.name
        })
    );
    assert_eq!(
        decode("00"),
        Err(DecodeError::LeadingZero {
            encoding: DIGITS.name,
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
