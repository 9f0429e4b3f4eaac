//! `FromStr` of an ID type of every built-in layout and scheme.
//!
//! The input is the text. Property: exactly the canonical decimal strings
//! of values in the type's range (and within its scheme's rules) parse, to
//! that value, and print back as the same text; everything else is an
//! [`IdError`](flakeid_core::IdError) that names the type. The same text
//! as a `TryFrom<async_graphql::ID>` and as a connection cursor reads the
//! same way.

use async_graphql::connection::CursorType;
use flakeid_core::FlakeId;

use crate::ids::for_each_id;
use crate::input::text;
use crate::oracle::{Expect, FORMATTED, assert_id};

pub fn check(data: &[u8]) {
    let s = text(data);
    for_each_id!(one(&s));
}

fn one<I>(s: &str)
where
    I: FlakeId + TryFrom<async_graphql::ID, Error = flakeid_core::IdError> + CursorType,
    <I as CursorType>::Error: core::fmt::Debug,
{
    let got = s.parse::<I>();
    assert_id(&got, Expect::from_str::<I>(s), &s);
    if let Ok(id) = got {
        assert_eq!(
            id.to_string(),
            s,
            "{} does not print back as its text",
            I::NAME
        );
    }
    // The same FromStr behind the GraphQL conversions of every type.
    if I::NAME != FORMATTED {
        return;
    }
    let graphql_id = I::try_from(async_graphql::ID(s.to_owned()));
    assert_eq!(graphql_id, got, "{}: async_graphql::ID {s:?}", I::NAME);
    let cursor = I::decode_cursor(s);
    assert_eq!(
        cursor.ok(),
        got.as_ref().ok().copied(),
        "{}: cursor {s:?}",
        I::NAME
    );
    if let Ok(id) = got {
        assert_eq!(id.encode_cursor(), s);
    }
}
