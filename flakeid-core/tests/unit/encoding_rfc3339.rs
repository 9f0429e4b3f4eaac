//! Unit tests of `src/encoding/rfc3339.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

#[test]
fn civil_dates() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(59), (1970, 3, 1));
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    assert_eq!(civil_from_days(2_932_896), (9999, 12, 31));
}
