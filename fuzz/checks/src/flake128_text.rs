//! The text forms of a 128-bit flake ([`Flake128`]): the canonical form
//! (`FromStr`, serde) and the decimal form.
//!
//! The input is the text. Property: the canonical form reads exactly 32
//! lowercase hex digits in UUID groups (hyphens at 8, 13, 18 and 23),
//! not all zero, and prints back as the same text; serde reads the same
//! from a JSON string and nothing else; the decimal form reads 1 to 39
//! digits without a leading zero, from 1 to `u128::MAX`, and prints back.
//! Everything else is a [`Flake128Error`](flakeid_flake128::Flake128Error).

use flakeid_flake128::Flake128;

use crate::input::text;

pub fn check(data: &[u8]) {
    let s = text(data);
    let got = s.parse::<Flake128>();
    match (&got, canonical(&s)) {
        (Ok(f), Some(v)) => {
            assert_eq!(f.as_u128(), v, "{s:?}");
            assert_eq!(f.to_string(), s);
        }
        (Err(e), None) => assert!(!e.to_string().is_empty()),
        (got, want) => panic!("Flake128 {s:?}: got {got:?}, want {want:?}"),
    }
    assert_eq!(Flake128::parse(&s).ok(), got.as_ref().ok().copied());
    let json = serde_json::to_string(&*s).expect("a string serializes");
    let from_json = serde_json::from_str::<Flake128>(&json);
    assert_eq!(from_json.ok(), got.as_ref().ok().copied(), "{json}");
    if let Ok(f) = got {
        assert_eq!(serde_json::to_string(&f).ok(), Some(json));
    }
    // Only strings: the same text as a JSON number or raw is no flake.
    let is_string = matches!(
        serde_json::from_slice::<serde_json::Value>(data),
        Ok(serde_json::Value::String(_))
    );
    assert!(is_string || serde_json::from_slice::<Flake128>(data).is_err());

    match (Flake128::parse_decimal(&s), decimal(&s)) {
        (Ok(f), Some(v)) => {
            assert_eq!(f.as_u128(), v, "{s:?}");
            assert_eq!(f.to_decimal(), s);
        }
        (Err(e), None) => assert!(!e.to_string().is_empty()),
        (got, want) => panic!("Flake128 decimal {s:?}: got {got:?}, want {want:?}"),
    }
}

/// The oracle of the canonical form.
fn canonical(s: &str) -> Option<u128> {
    let groups: Vec<&str> = s.split('-').collect();
    let widths: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    if widths != [8, 4, 4, 4, 12] {
        return None;
    }
    let hex: String = groups.concat();
    if !hex
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    u128::from_str_radix(&hex, 16).ok().filter(|&v| v != 0)
}

/// The oracle of the decimal form.
fn decimal(s: &str) -> Option<u128> {
    let plain = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !plain || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    s.parse::<u128>().ok().filter(|&v| v != 0)
}
