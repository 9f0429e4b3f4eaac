//! The decimal text form's decoder ([`TextForm::Decimal`]), and the
//! zero-padded decimal of decimal layouts ([`DecimalLayout::parse_padded`]).
//!
//! The input is the text. Property: the canonical decimal strings of
//! `0..=u64::MAX` decode to their value and encode back to the same text;
//! every other text is a [`DecodeError`] naming it. Zero-padded decimal
//! reads 1 to 20 digits (zeros in front allowed) up to `u64::MAX`, and the
//! padded form of a layout's ID reads back as the ID.

use flakeid_core::encoding::{DecodeError, TextForm};
use flakeid_core::layout::{Domain, FieldOrder};
use flakeid_schemes::DecimalLayout;

use crate::input::text;
use crate::oracle::canonical_decimal;

pub fn check(data: &[u8]) {
    let s = text(data);
    let want = canonical_decimal(&s).flatten();
    for got in [
        TextForm::Decimal.decode(&s),
        TextForm::Decimal.decode_lenient(&s),
    ] {
        match (got, want) {
            (Ok(v), Some(w)) => {
                assert_eq!(v, w, "{s:?}");
                assert_eq!(TextForm::Decimal.encode(v), s);
            }
            (Err(e), None) => assert_refusal(&e, &s),
            (got, want) => panic!("decimal {s:?}: got {got:?}, want {want:?}"),
        }
    }

    let digits = !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
    let padded_want = digits.then(|| s.parse::<u64>().ok()).flatten();
    match (DecimalLayout::parse_padded(&s), padded_want) {
        (Ok(v), Some(w)) => assert_eq!(v, w, "{s:?}"),
        (Err(e), None) => assert_refusal(&e, &s),
        (got, want) => panic!("padded decimal {s:?}: got {got:?}, want {want:?}"),
    }
    if let Some(v) = padded_want {
        // The 13 + 6 + 1 layout and one with node digits first: its IDs'
        // padded and field forms print, and the padded one reads back.
        for order in [FieldOrder::SequenceThenNode, FieldOrder::NodeThenSequence] {
            let layout = DecimalLayout::builder()
                .time_digits(13)
                .sequence_digits(3)
                .node_digits(3)
                .order(order)
                .domain(Domain::BigInt)
                .epoch_millis(1_704_067_200_000)
                .build()
                .expect("13 + 3 + 3 digits fit a BIGINT");
            let id = v % (layout.max_id() + 1);
            let padded = layout.padded_string(id);
            assert_eq!(DecimalLayout::parse_padded(&padded), Ok(id), "{padded}");
            let _ = layout.fields_string(id);
        }
    }
}

/// A refusal names the input (its first 64 characters).
pub(crate) fn assert_refusal(e: &DecodeError, input: &str) {
    let message = e.to_string();
    let named = match e {
        DecodeError::Empty { .. } => true,
        DecodeError::InvalidChar {
            input: excerpt,
            character,
            position,
            ..
        } => {
            assert_eq!(
                input.chars().nth(*position),
                Some(*character),
                "{e:?} for {input:?}"
            );
            is_excerpt(excerpt, input)
        }
        DecodeError::LeadingZero { input: excerpt, .. }
        | DecodeError::Length { input: excerpt, .. }
        | DecodeError::TooLong { input: excerpt, .. }
        | DecodeError::Overflow { input: excerpt, .. } => is_excerpt(excerpt, input),
        other => panic!("a DecodeError of an unknown kind: {other:?}"),
    };
    assert!(named, "{e:?} does not name {input:?}");
    assert!(!message.is_empty());
}

/// `excerpt` is `input`, or its first 64 characters (followed by `…`, or
/// not: both are "shortened to its first 64 characters").
fn is_excerpt(excerpt: &str, input: &str) -> bool {
    if input.chars().count() <= 64 {
        return excerpt == input;
    }
    let head: String = input.chars().take(64).collect();
    excerpt == head || excerpt == format!("{head}…")
}
