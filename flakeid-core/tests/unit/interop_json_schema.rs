//! Unit tests of `src/interop/json_schema.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::{MAX_LENGTH, PATTERN, example, max_length};
use crate::flake_id;
use crate::layout::presets;

#[flake_id]
pub(crate) struct UserId(i64);
#[flake_id(layout = presets::js_safe)]
pub(crate) struct TicketId(i64);

#[test]
fn a_type_has_the_digits_of_its_largest_id_and_a_real_example() {
    assert_eq!(max_length::<UserId>(), 19);
    assert_eq!(max_length::<TicketId>(), 16); // 2^53 − 1 = 9007199254740991
    // Twitter's layout: node 1, sequence 0, at 2025-01-01T00:00:00Z.
    assert_eq!(example::<UserId>().as_deref(), Some("1874244142494650368"));
    let ticket = example::<TicketId>().expect("layouts give one");
    assert_eq!(ticket, "129525350400256");
    assert!(ticket.parse::<TicketId>().is_ok());
}

#[test]
fn max_length_is_the_digits_of_i64_max() {
    assert_eq!(i64::MAX.to_string().len(), MAX_LENGTH);
}

#[test]
fn digits_are_those_of_the_decimal_string() {
    for n in [
        0,
        1,
        9,
        10,
        99,
        100,
        (1 << 53) - 1,
        1 << 53,
        i64::MAX as u64,
        u64::MAX,
    ] {
        assert_eq!(super::digits(n), n.to_string().len(), "{n}");
    }
}

proptest::proptest! {
    #[test]
    fn schema_accepts_the_canonical_decimals_of_up_to_19_digits(
        s in "[0-9]{0,21}|[-+ 0-9a٣.]{0,21}"
    ) {
        let pattern = regex::Regex::new(PATTERN).expect("a valid pattern");
        let schema_accepts = pattern.is_match(&s) && s.chars().count() <= MAX_LENGTH;
        let decoded = crate::encoding::decimal::decode(&s);
        let canonical = matches!(decoded, Ok(v) if v >= 1) && s.len() <= MAX_LENGTH;
        proptest::prop_assert_eq!(schema_accepts, canonical, "{:?}", s);
    }
}
