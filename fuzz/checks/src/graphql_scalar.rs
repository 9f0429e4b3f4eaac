//! The GraphQL scalar of an ID type of every built-in layout and scheme:
//! its input parsing ([`InputType::parse`], what a query's variables and
//! arguments go through) and its output.
//!
//! The input is a JSON document (a variable's value), or, when it is not
//! JSON, its text as a GraphQL string. Property: the scalar reads exactly
//! what serde reads from the same JSON (canonical decimal strings and
//! integers of the type's range, as that ID), writes an ID as its decimal
//! string, and refuses everything else with an error naming the type.

use async_graphql::{InputType, Value};
use flakeid_core::FlakeId;

use crate::id_serde_json::expected;
use crate::ids::for_each_id;
use crate::input::text;
use crate::oracle::{Expect, FORMATTED};

pub fn check(data: &[u8]) {
    let json: serde_json::Value = serde_json::from_slice(data)
        .unwrap_or_else(|_| serde_json::Value::String(text(data).into_owned()));
    let value = Value::from_json(json.clone()).expect("JSON is a GraphQL value");
    for_each_id!(one(&json, &value));
}

fn one<I: FlakeId + InputType>(json: &serde_json::Value, value: &Value) {
    let got = I::parse(Some(value.clone()));
    let want = expected::<I>(json).unwrap_or(Expect::Text);
    match (got, want) {
        (Ok(id), Expect::Id(v)) => {
            assert_eq!(id.get(), v, "{} from {json}", I::NAME);
            assert_eq!(id.to_value(), Value::String(v.to_string()));
            assert_eq!(I::parse(Some(id.to_value())).ok(), Some(id));
        }
        (Err(e), want) if !matches!(want, Expect::Id(_)) => {
            if I::NAME == FORMATTED {
                let message = e.into_server_error(Default::default()).message;
                assert!(
                    message.contains(I::NAME),
                    "{} refused {json} without naming it: {message}",
                    I::NAME
                );
            }
        }
        (got, want) => panic!(
            "{} from {json}: got {:?}, want {want:?}",
            I::NAME,
            got.map(|id| id.get())
                .map_err(|e| e.into_server_error(Default::default()).message)
        ),
    }
    // A missing value (an omitted argument) is no ID either.
    assert!(I::parse(None).is_err());
}
