//! ID types in API schemas (flakeid-core's `utoipa` and `schemars`
//! features): a model with an ID, an optional ID and a list of IDs,
//! rendered by each crate, describes every ID as a string of decimal
//! digits; a JSON Schema validator accepts the model as serde writes it and
//! refuses IDs in any other form. `Flake128` is its canonical string.

use flakeid_core::FlakeId;
use flakeid_core::layout::presets;
use flakeid_core::{Generator, flake_id};
use flakeid_flake128::Flake128;
use flakeid_flake128::Flake128Layout;
use serde_json::{Value, json};

use crate::support::init_generator;

/// Twitter's layout.
#[flake_id]
pub(crate) struct OrderId(i64);

/// JavaScript-safe layout.
#[flake_id(layout = presets::js_safe)]
pub(crate) struct ItemId(i64);

/// What a frontend receives.
#[derive(serde::Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub(crate) struct Order {
    id: OrderId,
    parent: Option<OrderId>,
    items: Vec<ItemId>,
}

/// The examples: node 1, sequence 0, at 2025-01-01T00:00:00Z.
const ORDER_EXAMPLE: &str = "1874244142494650368";
const ITEM_EXAMPLE: &str = "129525350400256";

/// What every ID's schema holds (see `flakeid_core::interop`).
const PATTERN: &str = "^[1-9][0-9]*$";
const DESCRIPTION: &str = "A 64-bit ID, sent as a string of decimal digits because JavaScript numbers round integers above 2^53.";
const MAX_LENGTH: usize = 19;

/// The digits of `I`'s largest ID.
fn max_length<I: FlakeId>() -> usize {
    I::max_value().to_string().len()
}

/// The schema every ID type must have, with its example and the digits
/// of its largest ID.
fn id_schema(example: &str, max_length: usize) -> Value {
    json!({
        "type": "string",
        "pattern": "^[1-9][0-9]*$",
        "maxLength": max_length,
        "description": "A 64-bit ID, sent as a string of decimal digits because JavaScript \
                        numbers round integers above 2^53.",
        "examples": [example],
    })
}

/// The OpenAPI document of an API whose only schema is `Order`.
fn openapi() -> Value {
    #[derive(utoipa::OpenApi)]
    #[openapi(components(schemas(Order)))]
    struct Api;
    serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).expect("JSON")
}

/// `Order`'s schema from utoipa, as a JSON Schema document: the OpenAPI
/// components, with `Order` at the root.
fn utoipa_order_schema() -> Value {
    let doc = openapi();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/components/schemas/Order",
        "components": doc["components"].clone(),
    })
}

/// `Order`'s schema from schemars.
fn schemars_order_schema() -> Value {
    schemars::schema_for!(Order).to_value()
}

/// An order as serde writes it, with real IDs.
fn real_order(parent: bool) -> Value {
    init_generator();
    let items = (1..=3)
        .map(|n| ItemId::try_from((1_u64 << 53) - n).expect("a JavaScript-safe ID"))
        .collect();
    let order = Order {
        id: OrderId::generate().expect("an ID"),
        parent: parent.then(|| OrderId::generate().expect("an ID")),
        items,
    };
    serde_json::to_value(&order).expect("JSON")
}

/// Values an ID field must not hold, and why.
fn not_ids() -> Vec<(Value, &'static str)> {
    vec![
        (json!("-1"), "a sign"),
        (json!("+1"), "a sign"),
        (json!("0"), "zero"),
        (json!("01"), "a leading zero"),
        (json!("1.5"), "a fraction"),
        (json!("1e3"), "an exponent"),
        (json!(" 1"), "whitespace"),
        (json!(""), "empty"),
        (json!("12345678901234567890"), "20 digits"),
        (json!(1), "a number"),
        (json!(1_874_244_142_494_650_368_u64), "a number"),
        (json!(-1), "a negative number"),
        (json!(1.5), "a fractional number"),
        (json!(null), "null"),
    ]
}

/// A JSON Schema validator (boon: drafts 4 to 2020-12, checked against the
/// JSON-Schema-Test-Suite) of one schema, draft 2020-12 unless it says.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Validator {
    fn new(schema: &Value) -> Self {
        const LOCATION: &str = "https://flakeid.invalid/schema.json";
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        compiler
            .add_resource(LOCATION, schema.clone())
            .expect("a schema location");
        let mut schemas = boon::Schemas::new();
        let index = compiler
            .compile(LOCATION, &mut schemas)
            .unwrap_or_else(|e| panic!("a valid JSON Schema: {e:#}\n{schema}"));
        Self { schemas, index }
    }

    fn is_valid(&self, instance: &Value) -> bool {
        self.schemas.validate(instance, self.index).is_ok()
    }
}

/// Checks that `schema` (draft 2020-12) accepts real orders and refuses
/// every non-ID in each ID field.
fn assert_validates_real_ids_only(schema: &Value) {
    let validator = Validator::new(schema);
    for parent in [true, false] {
        let order = real_order(parent);
        assert!(validator.is_valid(&order), "{order}");
        assert!(order["id"].is_string(), "{order}");
    }
    for (bad, why) in not_ids() {
        let mut order = real_order(true);
        order["id"] = bad.clone();
        assert!(!validator.is_valid(&order), "id {bad} ({why}) accepted");
        if !bad.is_null() {
            let mut order = real_order(true);
            order["parent"] = bad.clone();
            assert!(!validator.is_valid(&order), "parent {bad} ({why}) accepted");
        }
        let mut order = real_order(true);
        order["items"][1] = bad.clone();
        assert!(!validator.is_valid(&order), "item {bad} ({why}) accepted");
    }
}

#[test]
fn utoipa_describes_ids_as_decimal_strings() {
    let doc = openapi();
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["OrderId"], id_schema(ORDER_EXAMPLE, 19), "{doc:#}");
    assert_eq!(schemas["ItemId"], id_schema(ITEM_EXAMPLE, 16), "{doc:#}");

    let order = &schemas["Order"];
    assert_eq!(order["type"], "object");
    let properties = &order["properties"];
    assert_eq!(
        properties["id"],
        json!({"$ref": "#/components/schemas/OrderId"})
    );
    assert_eq!(
        properties["items"],
        json!({"type": "array", "items": {"$ref": "#/components/schemas/ItemId"}})
    );
    // `parent` may be null, or an OrderId, and is not required.
    let parent = properties["parent"].to_string();
    assert!(
        parent.contains(r##""$ref":"#/components/schemas/OrderId""##),
        "{parent}"
    );
    assert!(parent.contains(r#""type":"null""#), "{parent}");
    assert_eq!(order["required"], json!(["id", "items"]));

    assert_eq!(
        serde_json::to_value(<OrderId as utoipa::PartialSchema>::schema()).expect("JSON"),
        id_schema(ORDER_EXAMPLE, 19)
    );
    assert_eq!(<OrderId as utoipa::ToSchema>::name(), "OrderId");
}

#[test]
fn schemars_describes_ids_as_decimal_strings() {
    let schema = schemars_order_schema();
    let defs = &schema["$defs"];
    assert_eq!(defs["OrderId"], id_schema(ORDER_EXAMPLE, 19), "{schema:#}");
    assert_eq!(defs["ItemId"], id_schema(ITEM_EXAMPLE, 16), "{schema:#}");

    let properties = &schema["properties"];
    assert_eq!(properties["id"], json!({"$ref": "#/$defs/OrderId"}));
    assert_eq!(
        properties["items"],
        json!({"type": "array", "items": {"$ref": "#/$defs/ItemId"}})
    );
    let parent = properties["parent"].to_string();
    assert!(parent.contains(r##""$ref":"#/$defs/OrderId""##), "{parent}");
    assert!(parent.contains(r#""type":"null""#), "{parent}");
    assert_eq!(schema["required"], json!(["id", "items"]));

    let alone = schemars::schema_for!(OrderId).to_value();
    assert_eq!(alone["type"], "string");
    assert_eq!(alone["pattern"], PATTERN);
    assert_eq!(alone["title"], "OrderId");
}

#[test]
fn the_schema_constants_are_what_the_documents_hold() {
    assert_eq!(id_schema("x", 19)["pattern"], PATTERN);
    assert_eq!(id_schema("x", MAX_LENGTH)["maxLength"], 19);
    assert_eq!(id_schema("x", 19)["description"], DESCRIPTION);
    assert_eq!(max_length::<OrderId>(), 19);
    assert_eq!(max_length::<ItemId>(), 16);
}

#[test]
fn the_examples_are_ids_of_their_types() {
    let order: OrderId = ORDER_EXAMPLE.parse().expect("an OrderId");
    let item: ItemId = ITEM_EXAMPLE.parse().expect("an ItemId");
    for d in [order.decode(), item.decode()] {
        assert_eq!(
            d.timestamp,
            Some(std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_735_689_600_000))
        );
        assert_eq!(d.parts.map(|p| (p.node, p.sequence)), Some((1, 0)));
    }
    assert!(item.get() < 1 << 53);
}

#[test]
fn utoipa_schema_accepts_serialized_ids_and_refuses_other_forms() {
    assert_validates_real_ids_only(&utoipa_order_schema());
}

#[test]
fn schemars_schema_accepts_serialized_ids_and_refuses_other_forms() {
    assert_validates_real_ids_only(&schemars_order_schema());
}

#[test]
fn id_schemas_alone_accept_exactly_what_from_str_accepts() {
    let schemas = [
        serde_json::to_value(<OrderId as utoipa::PartialSchema>::schema()).expect("JSON"),
        schemars::schema_for!(OrderId).to_value(),
    ];
    for schema in &schemas {
        let validator = Validator::new(schema);
        for good in ["1", "9", "10", ORDER_EXAMPLE, "9223372036854775807"] {
            assert!(good.parse::<OrderId>().is_ok(), "{good}");
            assert!(
                validator.is_valid(&json!(good)),
                "{good} refused by {schema}"
            );
        }
        for (bad, why) in not_ids() {
            if let Some(s) = bad.as_str() {
                assert!(s.parse::<OrderId>().is_err(), "{s}");
            }
            assert!(
                !validator.is_valid(&bad),
                "{bad} ({why}) accepted by {schema}"
            );
        }
    }
}

/// A model keyed by a 128-bit flake.
#[derive(serde::Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub(crate) struct Upload {
    id: Flake128,
}

/// Flake128's example: worker 1, sequence 0, at 2025-01-01T00:00:00Z.
const FLAKE_EXAMPLE: &str = "00000194-1f29-7c00-0000-000000010000";

#[test]
fn flake128_is_described_as_its_canonical_string() {
    let expected = json!({
        "type": "string",
        "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        "minLength": 36,
        "maxLength": 36,
        "description": "A 128-bit flake ID: 32 lowercase hex digits in UUID groups, ordered \
                        like its number (creation time).",
        "examples": [FLAKE_EXAMPLE],
    });
    #[derive(utoipa::OpenApi)]
    #[openapi(components(schemas(Upload)))]
    struct Api;
    let doc = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).expect("JSON");
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["Flake128"], expected, "{doc:#}");
    assert_eq!(
        schemas["Upload"]["properties"]["id"],
        json!({"$ref": "#/components/schemas/Flake128"})
    );
    let schemars = schemars::schema_for!(Upload).to_value();
    assert_eq!(schemars["$defs"]["Flake128"], expected, "{schemars:#}");
    assert_eq!(
        schemars["properties"]["id"],
        json!({"$ref": "#/$defs/Flake128"})
    );

    let example: Flake128 = FLAKE_EXAMPLE.parse().expect("a Flake128");
    assert_eq!(
        (
            example.timestamp_millis(),
            example.worker(),
            example.sequence()
        ),
        (1_735_689_600_000, 1, 0)
    );

    // Both accept what serde writes and refuse other spellings.
    let generator = Generator::builder(Flake128Layout, 0x0242_ac11_0002)
        .build()
        .expect("a generator");
    let utoipa_schema = json!({
        "$ref": "#/components/schemas/Upload",
        "components": doc["components"].clone(),
    });
    for schema in [utoipa_schema, schemars] {
        let validator = Validator::new(&schema);
        for _ in 0..3 {
            let upload = Upload {
                id: Flake128::generate(&generator).expect("a flake"),
            };
            let json = serde_json::to_value(&upload).expect("JSON");
            assert!(validator.is_valid(&json), "{json} refused by {schema}");
        }
        let good = FLAKE_EXAMPLE;
        for bad in [
            good.to_uppercase(),
            good.replace('-', ""),
            format!("{{{good}}}"),
            format!("{good}0"),
            good[1..].to_owned(),
            String::new(),
        ] {
            assert!(bad.parse::<Flake128>().is_err(), "{bad}");
            assert!(
                !validator.is_valid(&json!({ "id": bad })),
                "{bad} accepted by {schema}"
            );
        }
        assert!(!validator.is_valid(&json!({ "id": 1 })));
    }
}

#[test]
fn javascript_safe_id_schemas_refuse_more_digits_than_their_largest_id() {
    let item_schemas = [
        serde_json::to_value(<ItemId as utoipa::PartialSchema>::schema()).expect("JSON"),
        schemars::schema_for!(ItemId).to_value(),
    ];
    let largest = ((1_u64 << 53) - 1).to_string();
    let seventeen_digits = "10000000000000000";
    assert!(largest.parse::<ItemId>().is_ok());
    assert!(seventeen_digits.parse::<ItemId>().is_err());
    assert!(seventeen_digits.parse::<OrderId>().is_ok());
    for schema in &item_schemas {
        let validator = Validator::new(schema);
        assert!(validator.is_valid(&json!(largest)), "{schema}");
        assert!(!validator.is_valid(&json!(seventeen_digits)), "{schema}");
        // The documented gap: above the largest ID with as many digits.
        assert!(validator.is_valid(&json!("9007199254740992")), "{schema}");
        assert!("9007199254740992".parse::<ItemId>().is_err());
    }
}

/// A prefixed ID type, decimal after the prefix.
#[flake_id(prefix = "cus")]
pub(crate) struct CustomerId(i64);

/// A prefixed ID type whose texts sort like its keys.
#[flake_id(prefix = "inv", text = crockford)]
pub(crate) struct InvoiceId(i64);

/// What a frontend receives, with prefixed IDs.
#[derive(serde::Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub(crate) struct Invoice {
    id: InvoiceId,
    customer: CustomerId,
}

/// The smallest integer JavaScript's `Number` cannot hold exactly.
const ABOVE_2_53: i64 = (1 << 53) + 1;

#[test]
fn prefixed_ids_are_described_by_their_prefixed_text_and_other_types_are_refused() {
    let invoice = Invoice {
        id: InvoiceId::from_i64(ABOVE_2_53).expect("an ID"),
        customer: CustomerId::from_i64(i64::MAX).expect("an ID"),
    };
    let sent = serde_json::to_value(&invoice).expect("JSON");
    assert_eq!(
        sent,
        json!({"id": "inv_0080000000001", "customer": "cus_9223372036854775807"})
    );
    #[derive(utoipa::OpenApi)]
    #[openapi(components(schemas(Invoice)))]
    struct Api;
    let doc = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).expect("JSON");
    let utoipa = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/components/schemas/Invoice",
        "components": doc["components"].clone(),
    });
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["CustomerId"]["pattern"], "^cus_[1-9][0-9]*$",
        "{doc:#}"
    );
    assert_eq!(schemas["CustomerId"]["maxLength"], 23);
    assert_eq!(
        schemas["InvoiceId"]["pattern"],
        "^inv_[0-7IiLlOo][0-9A-TV-Za-tv-z]{12}$"
    );
    assert_eq!(schemas["InvoiceId"]["maxLength"], 17);
    let schemars = schemars::schema_for!(Invoice).to_value();
    assert_eq!(
        schemars["$defs"]["InvoiceId"]["pattern"],
        schemas["InvoiceId"]["pattern"]
    );
    assert_eq!(schemars["$defs"]["CustomerId"], schemas["CustomerId"]);

    for schema in [&utoipa, &schemars] {
        let validator = Validator::new(schema);
        assert!(validator.is_valid(&sent), "{sent} refused by {schema}");
        let lower = json!({"id": "inv_0080000000001".to_lowercase(), "customer": sent["customer"]});
        assert!(validator.is_valid(&lower), "{lower}");
        // Each field refuses the other type's text, a bare key, and a
        // number part FromStr refuses.
        for (field, bad) in [
            ("id", "cus_9007199254740993"),
            ("id", "0080000000001"),
            ("id", "inv_008000000001"),
            ("id", "inv_8000000000000"),
            ("customer", "inv_0080000000001"),
            ("customer", "9223372036854775807"),
            ("customer", "cus_09"),
            ("customer", "cus_"),
        ] {
            let mut wrong = sent.clone();
            wrong[field] = json!(bad);
            assert!(!validator.is_valid(&wrong), "{field} {bad} accepted");
            let parsed = match field {
                "id" => bad.parse::<InvoiceId>().map(|_| ()),
                _ => bad.parse::<CustomerId>().map(|_| ()),
            };
            assert!(parsed.is_err(), "{bad} parses");
        }
    }
    let err = "cus_9007199254740993".parse::<InvoiceId>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "\"cus_9007199254740993\" is not a InvoiceId: expected prefix inv_"
    );
}
