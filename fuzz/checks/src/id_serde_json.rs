//! serde of an ID type of every built-in layout and scheme, from JSON.
//!
//! The input is a JSON document. Property: it reads as an ID exactly when
//! it is a string that `FromStr` accepts or an integer that `from_u64` /
//! `from_i64` accepts, as that ID; floats, other JSON values and invalid
//! JSON are refused with an error naming the type (or the JSON error). An
//! ID writes as its decimal string, which reads back as the same ID; inside
//! a struct, a list and an `Option` it reads the same.

use flakeid_core::FlakeId;
use serde::Deserialize;
use serde_json::Value;

use crate::ids::for_each_id;
use crate::oracle::{Expect, FORMATTED};

pub fn check(data: &[u8]) {
    // The oracle's reading of the JSON itself: serde_json's `Value`.
    let value: Option<Value> = serde_json::from_slice(data).ok();
    for_each_id!(one(data, value.as_ref()));
}

/// What a JSON value must read as.
pub(crate) fn expected<I: FlakeId>(value: &Value) -> Option<Expect> {
    match value {
        Value::String(s) => Some(Expect::from_str::<I>(s)),
        Value::Number(n) => {
            if let Some(v) = n.as_u64() {
                Some(Expect::from_u64::<I>(v))
            } else {
                // Floats (and integers beyond 64 bits, which serde_json reads
                // as floats) are never an ID.
                n.as_i64().map(Expect::from_i64::<I>)
            }
        }
        _ => None,
    }
}

#[derive(Debug, Deserialize)]
#[serde(bound = "I: serde::de::DeserializeOwned")]
struct Row<I> {
    id: I,
    ids: Vec<I>,
    maybe: Option<I>,
}

fn one<I>(data: &[u8], value: Option<&Value>)
where
    I: FlakeId + serde::Serialize + serde::de::DeserializeOwned,
{
    let got = serde_json::from_slice::<I>(data);
    match (got, value.and_then(expected::<I>)) {
        (Ok(id), Some(Expect::Id(v))) => {
            assert_eq!(id.get(), v, "{} from {value:?}", I::NAME);
            let written = serde_json::to_string(&id).expect("an ID serializes");
            assert_eq!(written, format!("\"{v}\""));
            assert_eq!(serde_json::from_str::<I>(&written).ok(), Some(id));
        }
        // A string or number refused by the ID's rules: serde's error holds
        // the IdError's message, which names the type.
        (Err(e), Some(want)) if !matches!(want, Expect::Id(_)) => {
            if I::NAME == FORMATTED {
                let message = e.to_string();
                assert!(
                    message.contains(I::NAME),
                    "{} from {value:?}: {message}",
                    I::NAME
                );
            }
        }
        // Anything else is no ID.
        (Err(_), None) => {}
        (got, want) => panic!(
            "{} from {:?}: got {:?}, want {want:?}",
            I::NAME,
            String::from_utf8_lossy(data),
            got.map(|id| id.get()).map_err(|e| e.to_string())
        ),
    }
    // The same value as a field, in a list and as an Option.
    if let Some(value) = value {
        let row = serde_json::json!({ "id": value, "ids": [value, value], "maybe": value });
        let got_row = serde_json::from_value::<Row<I>>(row);
        let single = serde_json::from_value::<I>(value.clone()).ok();
        match (got_row, single) {
            (Ok(row), Some(id)) => {
                assert_eq!((row.id, row.ids, row.maybe), (id, vec![id, id], Some(id)));
            }
            (Err(_), None) => {}
            // `null` is an Option's None but no ID: the row fails on `id`.
            (got, single) => panic!(
                "{} in a row from {value:?}: {got:?}, alone: {single:?}",
                I::NAME
            ),
        }
    }
}
