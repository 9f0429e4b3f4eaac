//! serde: IDs are written as decimal strings and read from strings or
//! integers; every rejected input names the bad value.

use flakeid_core::layout::presets;

// An ID type on the JavaScript-safe layout, so "too large" means above 2^53-1.
hand_written_id!(
    JsId,
    layout = presets::js_safe,
    source = generator_source!(presets::js_safe(), 3)
);

// The same impls `#[flake_id]` emits.
flakeid_core::__private::impl_serde!(JsId);

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct User {
    id: JsId,
    name: String,
}

const JS_MAX: i64 = (1 << 53) - 1;

fn from_json(json: &str) -> Result<JsId, String> {
    serde_json::from_str::<JsId>(json).map_err(|e| e.to_string())
}

#[test]
fn serializes_as_a_decimal_string() {
    let u = User {
        id: JsId(175_928_847_299),
        name: "ada".into(),
    };
    let json = serde_json::to_string(&u).unwrap();
    assert_eq!(json, r#"{"id":"175928847299","name":"ada"}"#);
    assert_eq!(serde_json::from_str::<User>(&json).unwrap(), u);
}

#[test]
fn accepts_strings_and_integers_including_edges() {
    assert_eq!(from_json(r#""1""#), Ok(JsId(1)));
    assert_eq!(from_json("1"), Ok(JsId(1)));
    assert_eq!(from_json(&JS_MAX.to_string()), Ok(JsId(JS_MAX)));
    assert_eq!(from_json(&format!("\"{JS_MAX}\"")), Ok(JsId(JS_MAX)));
    assert_eq!(
        serde_json::from_value::<JsId>(serde_json::json!(42i64)).unwrap(),
        JsId(42)
    );
    assert_eq!(
        serde_json::from_value::<JsId>(serde_json::json!(42u64)).unwrap(),
        JsId(42)
    );
}

#[track_caller]
fn rejected(json: &str, must_name: &str) {
    let e = from_json(json).expect_err(json);
    assert!(
        e.contains(must_name),
        "error for {json} should name {must_name:?}: {e}"
    );
}

#[test]
fn rejects_floats() {
    rejected("1.5", "1.5");
    rejected("12.0", "12");
    rejected("1e3", "1000");
    rejected("18446744073709551616", "1.8446744073709552e+19");
}

#[test]
fn rejects_negative_numbers_and_zero() {
    rejected("-1", "-1");
    rejected("-9223372036854775808", "-9223372036854775808");
    rejected("0", "0 is not a valid JsId");
    rejected(r#""0""#, "0 is not a valid JsId");
}

#[test]
fn rejects_numbers_above_the_layout_max() {
    rejected(&(JS_MAX + 1).to_string(), "9007199254740992");
    rejected(
        &format!("\"{}\"", JS_MAX + 1),
        "9007199254740992 is not a valid JsId: the largest is 9007199254740991",
    );
    rejected("9223372036854775808", "9223372036854775808");
    rejected(r#""18446744073709551616""#, "18446744073709551616");
}

#[test]
fn rejects_malformed_strings() {
    rejected(r#""""#, "empty decimal string");
    rejected(r#"" 1""#, r#"" 1""#);
    rejected(r#""1 ""#, r#""1 ""#);
    rejected(r#""+1""#, r#""+1""#);
    rejected(r#""-1""#, r#""-1""#);
    rejected(r#""01""#, r#""01""#);
    rejected(r#""12a""#, r#"'a' at position 2"#);
    rejected(r#""1_000""#, r#""1_000""#);
    rejected(r#""0x1F""#, r#""0x1F""#);
}

#[test]
fn rejects_other_types() {
    rejected("true", "boolean `true`");
    rejected("null", "null");
    rejected("[1]", "sequence");
    rejected("{}", "map");
}

#[test]
fn error_says_what_was_expected() {
    let e = from_json("true").unwrap_err();
    assert!(
        e.contains("a JsId as a decimal string or a positive integer"),
        "{e}"
    );
}
