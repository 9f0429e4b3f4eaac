//! ID types with a type prefix (`#[flake_id(prefix = "usr")]`): their text
//! in each form, what parsing refuses, and each integration of the crate
//! (serde, the API schemas, async-graphql, ts-rs, specta) speaking the
//! prefixed form, with IDs above 2^53.

use flakeid_core::encoding::{Prefix, TextForm};
use flakeid_core::{FlakeId, IdError, flake_id};

/// Decimal after the prefix (the default).
#[flake_id(prefix = "usr")]
pub struct UserId(i64);

/// Base62 after the prefix: fixed width, sorts like the keys.
#[flake_id(prefix = "ord", text = base62)]
pub struct OrderId(i64);

/// Crockford base32 after a prefix with an underscore inside.
#[flake_id(prefix = "line_item", text = crockford)]
pub struct LineItemId(i64);

/// No prefix: the bare number, as before.
#[flake_id]
pub struct PlainId(i64);

/// The smallest integer JavaScript's `Number` cannot hold exactly.
const ABOVE_2_53: i64 = (1 << 53) + 1;

#[test]
fn the_attribute_sets_the_prefix_and_its_form() {
    assert_eq!(UserId::PREFIX, Some(Prefix::new("usr", TextForm::Decimal)));
    assert_eq!(OrderId::PREFIX, Some(Prefix::new("ord", TextForm::Base62)));
    assert_eq!(
        LineItemId::PREFIX,
        Some(Prefix::new("line_item", TextForm::Crockford))
    );
    assert_eq!(PlainId::PREFIX, None);
}

#[test]
fn ids_above_2_53_round_trip_through_their_prefixed_text() {
    for value in [1, ABOVE_2_53, ABOVE_2_53 + 2, i64::MAX] {
        let user = UserId::from_i64(value).expect("an ID");
        let order = OrderId::from_i64(value).expect("an ID");
        let item = LineItemId::from_i64(value).expect("an ID");
        assert_eq!(user.to_string(), format!("usr_{value}"));
        assert_eq!(order.to_string(), format!("ord_{}", order.to_base62()));
        assert_eq!(
            item.to_string(),
            format!("line_item_{}", item.to_crockford())
        );
        assert_eq!(user.to_string().parse::<UserId>(), Ok(user));
        assert_eq!(order.to_string().parse::<OrderId>(), Ok(order));
        assert_eq!(item.to_string().parse::<LineItemId>(), Ok(item));
        // The stored key is the same number.
        assert_eq!((user.get(), order.get(), item.get()), (value, value, value));
        assert_eq!(
            PlainId::from_i64(value).expect("an ID").to_string(),
            value.to_string()
        );
    }
    assert_eq!(
        OrderId::from_i64(ABOVE_2_53).expect("an ID").to_string(),
        "ord_00fFgnDxSe9"
    );
    // Crockford is read as `from_crockford` reads it: any case, I/L/O aliases.
    let item = LineItemId::from_i64(ABOVE_2_53).expect("an ID");
    let lower = item.to_string().to_lowercase();
    assert_eq!(lower.parse::<LineItemId>(), Ok(item));
    // Display's width and alignment apply to the whole text.
    let user = UserId::from_i64(12).expect("an ID");
    assert_eq!(format!("{user:>8}|{user:<8}|"), "  usr_12|usr_12  |");
}

#[test]
fn fixed_width_forms_sort_like_the_keys_and_decimal_does_not() {
    let keys = [1, 9, 10, 61, 62, 1 << 40, ABOVE_2_53, i64::MAX];
    for pair in keys.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let order = |v| OrderId::from_i64(v).expect("an ID").to_string();
        let item = |v| LineItemId::from_i64(v).expect("an ID").to_string();
        assert!(order(a) < order(b), "{} {}", order(a), order(b));
        assert!(item(a) < item(b), "{} {}", item(a), item(b));
    }
    assert!(OrderId::PREFIX.is_some_and(Prefix::sorts_like_keys));
    assert!(LineItemId::PREFIX.is_some_and(Prefix::sorts_like_keys));
    assert!(!UserId::PREFIX.is_some_and(Prefix::sorts_like_keys));
    assert!("usr_10" < "usr_9");
}

#[test]
fn another_types_text_or_a_bare_number_is_refused_naming_both() {
    let order = OrderId::from_i64(ABOVE_2_53).expect("an ID").to_string();
    let user = UserId::from_i64(ABOVE_2_53).expect("an ID").to_string();
    let e = order.parse::<UserId>().unwrap_err();
    assert_eq!(
        e,
        IdError::Prefix {
            type_name: "UserId",
            value: order.clone(),
            expected: "usr"
        }
    );
    assert_eq!(
        e.to_string(),
        "\"ord_00fFgnDxSe9\" is not a UserId: expected prefix usr_"
    );
    assert_eq!(
        "ord_123".parse::<UserId>().unwrap_err().to_string(),
        "\"ord_123\" is not a UserId: expected prefix usr_"
    );
    assert_eq!(
        user.parse::<OrderId>().unwrap_err().to_string(),
        "\"usr_9007199254740993\" is not a OrderId: expected prefix ord_"
    );
    for bare in [
        "9007199254740993",
        "00fFgnDxSe9",
        "usr9007199254740993",
        "",
        "_1",
    ] {
        assert!(
            matches!(bare.parse::<UserId>(), Err(IdError::Prefix { .. })),
            "{bare:?}"
        );
    }
    // A prefix that merely starts like this one is another type's.
    assert!(matches!(
        "usr_item_12".parse::<UserId>(),
        Err(IdError::Prefix { .. })
    ));
    assert!(matches!(
        "item_0000000000001".parse::<LineItemId>(),
        Err(IdError::Prefix { .. })
    ));
    // The right prefix with a bad number: the number's error.
    assert!(matches!(
        "usr_012".parse::<UserId>(),
        Err(IdError::Text { .. })
    ));
    assert!(matches!(
        "ord_1".parse::<OrderId>(),
        Err(IdError::Text { .. })
    ));
    assert_eq!(
        "usr_0".parse::<UserId>(),
        Err(IdError::Zero {
            type_name: "UserId"
        })
    );
    // A huge text is named by its first 64 characters.
    let long = "x".repeat(10_000);
    let IdError::Prefix { value, .. } = long.parse::<UserId>().unwrap_err() else {
        panic!("not a prefix error");
    };
    assert_eq!(value.chars().count(), 65);
}

#[cfg(feature = "serde")]
mod serde {
    use super::*;

    #[test]
    fn json_strings_are_prefixed_and_integers_are_the_stored_key() {
        let user = UserId::from_i64(ABOVE_2_53).expect("an ID");
        let json = serde_json::to_string(&user).expect("JSON");
        assert_eq!(json, "\"usr_9007199254740993\"");
        assert_eq!(serde_json::from_str::<UserId>(&json).expect("read"), user);
        // A JSON integer is the key, as other programs and columns hold it.
        assert_eq!(
            serde_json::from_str::<UserId>("9007199254740993").expect("read"),
            user
        );
        let order =
            serde_json::to_string(&OrderId::from_i64(ABOVE_2_53).expect("an ID")).expect("JSON");
        assert_eq!(order, "\"ord_00fFgnDxSe9\"");
        let e = serde_json::from_str::<UserId>(&order).unwrap_err();
        assert!(
            e.to_string()
                .contains("\"ord_00fFgnDxSe9\" is not a UserId: expected prefix usr_"),
            "{e}"
        );
        let e = serde_json::from_str::<UserId>("\"9007199254740993\"").unwrap_err();
        assert!(e.to_string().contains("expected prefix usr_"), "{e}");
        let e = serde_json::from_str::<UserId>("true").unwrap_err();
        assert!(
            e.to_string().contains("a UserId as a string `usr_…`"),
            "{e}"
        );
        // The unprefixed type keeps its decimal string.
        let plain = PlainId::from_i64(ABOVE_2_53).expect("an ID");
        assert_eq!(
            serde_json::to_string(&plain).expect("JSON"),
            "\"9007199254740993\""
        );
    }
}

#[cfg(any(feature = "utoipa", feature = "schemars"))]
/// The pattern's regular expression accepts the texts of the type and
/// refuses those of another type, bare numbers and what `FromStr` refuses.
fn assert_pattern_fits(pattern: &str, max_length: u64, own: &[String], other: &[&str]) {
    let re = regex::Regex::new(pattern).expect("a regular expression");
    for text in own {
        assert!(re.is_match(text), "{pattern} refuses {text}");
        assert!(
            text.len() as u64 <= max_length,
            "{text} longer than {max_length}"
        );
    }
    for text in other {
        assert!(!re.is_match(text), "{pattern} accepts {text}");
    }
}

#[cfg(any(feature = "utoipa", feature = "schemars"))]
/// Texts of `I` above 2^53, in every case `FromStr` reads.
fn texts<I: FlakeId>() -> Vec<String> {
    [1, ABOVE_2_53, i64::MAX]
        .into_iter()
        .map(|v| I::from_i64(v).expect("an ID").to_string())
        .flat_map(|t| [t.clone(), t.to_lowercase()])
        .filter(|t| t.parse::<I>().is_ok())
        .collect()
}

#[cfg(feature = "utoipa")]
#[test]
fn openapi_schemas_state_the_prefixed_text() {
    let schema = |s| serde_json::to_value(s).expect("JSON");
    let user = schema(<UserId as utoipa::PartialSchema>::schema());
    assert_eq!(user["type"], "string");
    assert_eq!(user["pattern"], "^usr_[1-9][0-9]*$");
    assert_eq!(user["maxLength"], 4 + 19);
    assert_eq!(user["examples"][0], "usr_1874244142494650368");
    assert_eq!(
        user["description"],
        "A 64-bit ID, sent as a string: `usr_` and its decimal digits."
    );
    assert_pattern_fits(
        user["pattern"].as_str().expect("a pattern"),
        23,
        &texts::<UserId>(),
        &["ord_1", "1", "usr_", "usr_01", "usr_-1", "xusr_1", "usr_1 "],
    );
    let order = schema(<OrderId as utoipa::PartialSchema>::schema());
    assert_eq!(order["pattern"], "^ord_[0-9A-Za-z]{11}$");
    assert_eq!(order["maxLength"], 15);
    assert_pattern_fits(
        order["pattern"].as_str().expect("a pattern"),
        15,
        &texts::<OrderId>(),
        &[
            "usr_00fFgnDxSe9",
            "00fFgnDxSe9",
            "ord_0fFgnDxSe9",
            "ord_00fFgnDxSe_",
        ],
    );
    let item = schema(<LineItemId as utoipa::PartialSchema>::schema());
    assert_eq!(
        item["pattern"],
        "^line_item_[0-7IiLlOo][0-9A-TV-Za-tv-z]{12}$"
    );
    assert_eq!(item["maxLength"], 10 + 13);
    assert_pattern_fits(
        item["pattern"].as_str().expect("a pattern"),
        23,
        &texts::<LineItemId>(),
        &[
            "line_item_8000000000000",
            "line_item_00000000000U1",
            "item_0000000000001",
        ],
    );
    // Without a prefix, as before.
    let plain = schema(<PlainId as utoipa::PartialSchema>::schema());
    assert_eq!(plain["pattern"], "^[1-9][0-9]*$");
    assert_eq!(plain["maxLength"], 19);
}

#[cfg(feature = "schemars")]
#[test]
fn json_schemas_state_the_prefixed_text() {
    use schemars::JsonSchema as _;
    let schema = OrderId::json_schema(&mut schemars::SchemaGenerator::default());
    assert_eq!(schema.get("pattern"), Some(&"^ord_[0-9A-Za-z]{11}$".into()));
    assert_eq!(schema.get("maxLength"), Some(&15.into()));
    assert_eq!(
        schema.get("examples"),
        Some(&serde_json::json!(["ord_2ES3bAaXwxM"]))
    );
    let description = schema.get("description").and_then(|d| d.as_str());
    assert!(
        description.is_some_and(|d| d.contains("`ord_` and 11 base62 characters")),
        "{description:?}"
    );
}

#[cfg(feature = "ts-rs")]
#[test]
fn typescript_declares_a_template_literal_type() {
    use ts_rs::{Config, TS};
    let cfg = Config::default();
    assert_eq!(UserId::inline(&cfg), "`usr_${string}`");
    assert_eq!(UserId::decl(&cfg), "type UserId = `usr_${string}`;");
    assert_eq!(LineItemId::inline(&cfg), "`line_item_${string}`");
    let file = OrderId::export_to_string(&cfg).expect("export");
    assert!(
        file.contains("export type OrderId = `ord_${string}`;"),
        "{file}"
    );
    assert!(file.contains("`ord_` and 11 base62 characters"), "{file}");
    assert_eq!(PlainId::inline(&cfg), "string");
}

#[cfg(feature = "specta")]
#[test]
fn specta_declares_a_string_documented_with_its_prefix() {
    let types = specta::Types::default().register::<UserId>();
    let named: Vec<_> = types.into_unsorted_iter().collect();
    assert_eq!(named.len(), 1);
    assert_eq!(named[0].name, "UserId");
    assert_eq!(
        named[0].docs,
        "A 64-bit ID, sent as a string: `usr_` and its decimal digits."
    );
}

#[cfg(feature = "async-graphql")]
mod graphql {
    use async_graphql::{EmptyMutation, EmptySubscription, ID, Object, Schema};

    use super::*;

    struct Query;

    #[Object]
    impl Query {
        async fn user(&self, id: UserId) -> UserId {
            id
        }

        async fn order(&self, id: OrderId) -> OrderId {
            id
        }

        async fn node(&self, id: ID) -> async_graphql::Result<UserId> {
            Ok(UserId::try_from(id)?)
        }
    }

    fn run(query: &str) -> async_graphql::Response {
        let schema = Schema::new(Query, EmptyMutation, EmptySubscription);
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
            .block_on(schema.execute(query))
    }

    #[test]
    fn scalars_read_and_write_the_prefixed_text() {
        let res = run(r#"{ user(id: "usr_9007199254740993") order(id: "ord_00fFgnDxSe9") }"#);
        assert!(res.errors.is_empty(), "{:?}", res.errors);
        let data = res.data.into_json().expect("JSON");
        assert_eq!(data["user"], "usr_9007199254740993");
        assert_eq!(data["order"], "ord_00fFgnDxSe9");
        // An integer is the stored key.
        let res = run("{ user(id: 9007199254740993) }");
        assert_eq!(
            res.data.into_json().expect("JSON")["user"],
            "usr_9007199254740993"
        );
        let res = run(r#"{ node(id: "usr_9007199254740993") }"#);
        assert_eq!(
            res.data.into_json().expect("JSON")["node"],
            "usr_9007199254740993"
        );

        let res = run(r#"{ user(id: "ord_00fFgnDxSe9") }"#);
        assert_eq!(
            res.errors[0].message,
            r#"Failed to parse "UserId": "ord_00fFgnDxSe9" is not a UserId: expected prefix usr_"#
        );
        let res = run(r#"{ node(id: "ord_1") }"#);
        assert_eq!(
            res.errors[0].message,
            r#""ord_1" is not a UserId: expected prefix usr_"#
        );
        let res = run(r#"{ user(id: "9007199254740993") }"#);
        assert!(res.errors[0].message.contains("expected prefix usr_"));
        let sdl = Schema::new(Query, EmptyMutation, EmptySubscription).sdl();
        assert!(
            sdl.contains("A 64-bit ID, sent as a string: `usr_` and its decimal digits."),
            "{sdl}"
        );
    }
}
