//! `FromStr`, `Display` and serde of ID types with a type prefix
//! (`#[flake_id(prefix = …)]`), one per text form of the number: decimal
//! (`usr_…`), base62 (`ord_…`) and Crockford base32 with an underscore in
//! the prefix (`line_item_…`).
//!
//! The input is the text. Property: a type reads the text exactly when it
//! is the type's prefix, `_`, and a number its text form reads as an ID of
//! the type's layout (what the unprefixed type reads from that number,
//! itself checked against an oracle by the other targets), to that ID; the
//! ID prints as the prefix and the number's canonical text, which reads
//! back as the same ID (for decimal and base62, the very text it was read
//! from). Anything else is an [`IdError`] naming the type: for another
//! prefix or none the text (its first 64 characters), after the right
//! prefix exactly what the unprefixed type says of the number. No text
//! reads as two of the types. As a JSON string the text reads the same;
//! the ID writes as its prefixed text.

use flakeid_core::encoding::TextForm;
use flakeid_core::{FlakeId, IdError, flake_id};

use crate::ids::TwitterId;
use crate::input::text;

#[flake_id(prefix = "usr")]
pub(crate) struct UserId(i64);
#[flake_id(prefix = "ord", text = base62)]
pub(crate) struct OrderId(i64);
#[flake_id(prefix = "line_item", text = crockford)]
pub(crate) struct LineItemId(i64);

pub fn check(data: &[u8]) {
    let s = text(data);
    let read = [one::<UserId>(&s), one::<OrderId>(&s), one::<LineItemId>(&s)];
    assert!(
        read.iter().filter(|&&ok| ok).count() <= 1,
        "{s:?} reads as more than one prefixed type: {read:?}"
    );
}

/// What the unprefixed type of the same layout reads from `number` in `form`.
fn bare(form: TextForm, number: &str) -> Result<u64, IdError> {
    let id = match form {
        TextForm::Decimal => number.parse::<TwitterId>(),
        TextForm::Base62 => TwitterId::from_base62(number),
        TextForm::Crockford => TwitterId::from_crockford(number),
        other => panic!("no prefixed type in the text form {other:?}"),
    };
    id.map(|id| u64::try_from(id.get()).expect("an ID is positive"))
}

/// Checks `s` as an `I`; whether `I` read it.
fn one<I>(s: &str) -> bool
where
    I: FlakeId + serde::Serialize + serde::de::DeserializeOwned,
{
    let prefix = I::PREFIX.expect("a prefixed type");
    let want = s
        .rsplit_once('_')
        .filter(|(name, _)| *name == prefix.name())
        .and_then(|(_, number)| bare(prefix.form(), number).ok());
    let got = s.parse::<I>();
    match (&got, want) {
        (Ok(id), Some(v)) => {
            assert_eq!(
                u64::try_from(id.get()).ok(),
                Some(v),
                "{} from {s:?}",
                I::NAME
            );
            let printed = id.to_string();
            assert_eq!(printed, prefix.encode(v), "{} {v} prints", I::NAME);
            assert_eq!(
                printed.parse::<I>().ok(),
                Some(*id),
                "{printed:?} reads back"
            );
            if prefix.form() != TextForm::Crockford {
                // Crockford reads aliases (lowercase, I, L, O); the others
                // read only their canonical text.
                assert_eq!(printed, s, "{} reads only canonical text", I::NAME);
            }
            let json = serde_json::to_string(id).expect("an ID serializes");
            assert_eq!(json, serde_json::to_string(&printed).expect("a string"));
        }
        (Err(e), None) => {
            let message = e.to_string();
            assert!(
                message.contains(I::NAME),
                "{s:?}: {message:?} does not name {}",
                I::NAME
            );
            match prefix.number_part(s) {
                // After the right prefix, the number's error: what the
                // unprefixed type says of it (the text or the value out of
                // range), naming this type.
                Some(number) => {
                    let bare = bare(prefix.form(), number).expect_err("refused above");
                    // The first mention is the type's; the text may hold
                    // the name too.
                    let said = bare.to_string().replacen(TwitterId::NAME, I::NAME, 1);
                    assert_eq!(message, said, "{s:?}");
                }
                // Else the text (its first 64 characters and `…` when
                // longer), quoted as `Debug` does.
                None => {
                    let shown: String = match s.char_indices().nth(64) {
                        Some((cut, _)) => format!("{}…", &s[..cut]),
                        None => s.to_owned(),
                    };
                    let quoted = format!("{shown:?}");
                    assert!(
                        message.contains(&quoted),
                        "{message:?} does not name {quoted}"
                    );
                }
            }
        }
        (got, want) => panic!("{} from {s:?}: got {got:?}, want {want:?}", I::NAME),
    }
    let json = serde_json::to_string(s).expect("a string serializes");
    assert_eq!(
        serde_json::from_str::<I>(&json).ok(),
        got.as_ref().ok().copied(),
        "{} from the JSON string {json}",
        I::NAME
    );
    got.is_ok()
}
