//! Unit tests of `src/encoding/prefix.rs` (included with `#[path]` as its
//! `tests` module): TypeID's prefix rule, and what a fuzz target of the
//! prefixed form would assert, as properties over generated values and
//! texts.

use proptest::prelude::*;

use super::*;

const FORMS: [TextForm; 3] = [TextForm::Decimal, TextForm::Base62, TextForm::Crockford];

#[test]
fn the_rule_is_typeids_without_the_empty_prefix() {
    for good in ["a", "usr", "line_item", "a_b_c", &"z".repeat(63)] {
        assert!(Prefix::is_valid(good), "{good}");
    }
    for bad in [
        "",
        "_usr",
        "usr_",
        "Usr",
        "usr2",
        "us-r",
        "usr ",
        "ü",
        &"z".repeat(64),
    ] {
        assert!(!Prefix::is_valid(bad), "{bad}");
    }
}

#[test]
#[should_panic(expected = "lowercase ASCII letters `a-z` and underscores")]
fn new_refuses_a_prefix_that_breaks_the_rule() {
    let _ = Prefix::new("User", TextForm::Decimal);
}

#[test]
fn number_part_takes_the_text_after_the_last_underscore() {
    let usr = Prefix::new("usr", TextForm::Decimal);
    assert_eq!(usr.number_part("usr_12"), Some("12"));
    assert_eq!(usr.number_part("usr_"), Some(""));
    assert_eq!(usr.number_part("usr12"), None);
    assert_eq!(usr.number_part("12"), None);
    assert_eq!(usr.number_part("ord_12"), None);
    assert_eq!(usr.number_part("usr_item_12"), None);
    assert_eq!(usr.number_part("xusr_12"), None);
    let item = Prefix::new("line_item", TextForm::Decimal);
    assert_eq!(item.number_part("line_item_12"), Some("12"));
    assert_eq!(item.number_part("item_12"), None);
}

proptest! {
    /// Every value's text reads back to the value, with its prefix only.
    #[test]
    fn every_value_round_trips(value in 1..=u64::MAX, form in 0..3_usize) {
        let prefix = Prefix::new("usr", FORMS[form]);
        let text = prefix.encode(value);
        prop_assert!(text.starts_with("usr_"));
        let number = prefix.number_part(&text).expect("its own prefix");
        prop_assert_eq!(FORMS[form].decode(number), Ok(value));
        prop_assert_eq!(Prefix::new("ord", FORMS[form]).number_part(&text), None);
    }

    /// With a fixed-width form, texts sort as strings like their values.
    #[test]
    fn fixed_width_texts_sort_like_values(a in 1..=u64::MAX, b in 1..=u64::MAX) {
        for form in [TextForm::Base62, TextForm::Crockford] {
            let prefix = Prefix::new("usr", form);
            prop_assert!(prefix.sorts_like_keys());
            prop_assert_eq!(prefix.encode(a).cmp(&prefix.encode(b)), a.cmp(&b));
        }
    }

    /// Any text is either this prefix's (and its number part is what
    /// follows `usr_`), or none.
    #[test]
    fn any_text_splits_or_is_refused(text in "[a-z_0-9A-Z]{0,24}") {
        let prefix = Prefix::new("usr", TextForm::Decimal);
        match prefix.number_part(&text) {
            Some(number) => {
                prop_assert_eq!(format!("usr_{number}"), text.clone());
                prop_assert!(!number.contains('_'));
            }
            None => prop_assert!(
                !text.starts_with("usr_") || text["usr_".len()..].contains('_')
            ),
        }
    }
}
