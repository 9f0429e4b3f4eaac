//! The values every `#[flake_id]` type's API schema holds (see the
//! [`interop`](super) documentation).

use crate::FlakeId;

#[cfg(any(feature = "utoipa", feature = "schemars"))]
pub(crate) use super::DESCRIPTION;

/// The regular expression (ECMA 262, as JSON Schema uses it) of an ID's
/// decimal string: a non-zero digit, then digits.
pub(crate) const PATTERN: &str = "^[1-9][0-9]*$";

/// The most digits an ID of `I` has: those of its largest ID,
/// [`FlakeId::max_value`] (at most 19).
pub(crate) fn max_length<I: FlakeId>() -> usize {
    digits(I::max_value())
}

/// A real ID of `I`, as the string it is sent as: its scheme's
/// [`example_id`](crate::IdScheme::example_id), the same on every call.
/// `None` when the scheme gives no example (or one that is not an `I`).
pub(crate) fn example<I: FlakeId>() -> Option<String> {
    let id = I::scheme().example_id()?;
    I::from_u64(id).ok().map(|id| id.to_string())
}

/// The most digits any ID has: those of `i64::MAX`, `9223372036854775807`.
#[cfg(test)]
const MAX_LENGTH: usize = 19;

/// The number of decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
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
}
