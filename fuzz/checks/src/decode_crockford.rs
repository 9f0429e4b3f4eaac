//! The Crockford base32 text form's decoders ([`TextForm::Crockford`]),
//! and [`FlakeId::from_crockford`] of every ID type.
//!
//! The input is the text. Property: the strict decoder reads exactly 13
//! symbols of Crockford's alphabet (any case; `I` and `L` as `1`, `O` as
//! `0`; no hyphens) up to `u64::MAX`, and the value encodes back to the
//! same text once case and aliases are normalised; the lenient one also
//! skips hyphens and reads 1 to 13 symbols. Everything else is a
//! [`DecodeError`](flakeid_core::encoding::DecodeError) naming the input.

use flakeid_core::FlakeId;
use flakeid_core::encoding::TextForm;

use crate::decode_decimal::assert_refusal;
use crate::ids::for_each_id;
use crate::input::text;
use crate::oracle::{CROCKFORD, Expect, assert_id, crockford_alias, digits_value};

pub fn check(data: &[u8]) {
    let s = text(data);
    let strict = digits_value(&s, CROCKFORD, crockford_alias, None)
        .and_then(|(n, v)| if n == 13 { v } else { None });
    let lenient = digits_value(&s, CROCKFORD, crockford_alias, Some('-'))
        .and_then(|(n, v)| if (1..=13).contains(&n) { v } else { None });
    match (TextForm::Crockford.decode(&s), strict) {
        (Ok(v), Some(w)) => {
            assert_eq!(v, w, "{s:?}");
            assert_eq!(TextForm::Crockford.encode(v), normalised(&s));
        }
        (Err(e), None) => assert_refusal(&e, &s),
        (got, want) => panic!("Crockford {s:?}: got {got:?}, want {want:?}"),
    }
    match (TextForm::Crockford.decode_lenient(&s), lenient) {
        (Ok(v), Some(w)) => {
            assert_eq!(v, w, "{s:?}");
            assert_eq!(
                TextForm::Crockford.decode(&TextForm::Crockford.encode(v)),
                Ok(v)
            );
        }
        (Err(e), None) => assert_refusal(&e, &s),
        (got, want) => panic!("lenient Crockford {s:?}: got {got:?}, want {want:?}"),
    }
    for_each_id!(one(&s, strict));
}

/// `s` as the encoder writes it: upper case, aliases replaced.
fn normalised(s: &str) -> String {
    s.chars().map(crockford_alias).collect()
}

fn one<I: FlakeId>(s: &str, value: Option<u64>) {
    let want = value.map_or(Expect::Text, Expect::from_u64::<I>);
    let got = I::from_crockford(s);
    assert_id(&got, want, &s);
    if let Ok(id) = got {
        assert_eq!(id.to_crockford(), normalised(s));
    }
}
