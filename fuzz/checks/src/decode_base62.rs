//! The base62 text form's decoders ([`TextForm::Base62`]), and
//! [`FlakeId::from_base62`] of every ID type.
//!
//! The input is the text. Property: the strict decoder reads exactly 11
//! characters of `0-9A-Za-z` up to `u64::MAX`, and the value encodes back
//! to the same text; the lenient one reads 1 to 11 such characters as if
//! padded with zeros. Everything else is a [`DecodeError`](flakeid_core::encoding::DecodeError)
//! naming the input.

use flakeid_core::FlakeId;
use flakeid_core::encoding::TextForm;

use crate::decode_decimal::assert_refusal;
use crate::ids::for_each_id;
use crate::input::text;
use crate::oracle::{BASE62, Expect, assert_id, digits_value, no_alias};

pub fn check(data: &[u8]) {
    let s = text(data);
    let read = digits_value(&s, BASE62, no_alias, None);
    let strict = read.and_then(|(n, v)| if n == 11 { v } else { None });
    let lenient = read.and_then(|(n, v)| if (1..=11).contains(&n) { v } else { None });
    match (TextForm::Base62.decode(&s), strict) {
        (Ok(v), Some(w)) => {
            assert_eq!(v, w, "{s:?}");
            assert_eq!(TextForm::Base62.encode(v), s);
        }
        (Err(e), None) => assert_refusal(&e, &s),
        (got, want) => panic!("base62 {s:?}: got {got:?}, want {want:?}"),
    }
    match (TextForm::Base62.decode_lenient(&s), lenient) {
        (Ok(v), Some(w)) => {
            assert_eq!(v, w, "{s:?}");
            assert_eq!(TextForm::Base62.decode(&TextForm::Base62.encode(v)), Ok(v));
        }
        (Err(e), None) => assert_refusal(&e, &s),
        (got, want) => panic!("lenient base62 {s:?}: got {got:?}, want {want:?}"),
    }
    for_each_id!(one(&s, strict));
}

fn one<I: FlakeId>(s: &str, value: Option<u64>) {
    let want = value.map_or(Expect::Text, Expect::from_u64::<I>);
    let got = I::from_base62(s);
    assert_id(&got, want, &s);
    if let Ok(id) = got {
        assert_eq!(id.to_base62(), s);
    }
}
