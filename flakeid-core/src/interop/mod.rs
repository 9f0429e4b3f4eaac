//! ID types in other crates' terms, each behind a feature of its own:
//!
//! | feature | what every `#[flake_id]` type gets |
//! |---|---|
//! | `serde` (default) | `Serialize`/`Deserialize` as a decimal string ([`encoding`](crate::encoding)) |
//! | `sqlx-postgres`, `sqlx-mysql`, `sqlx-sqlite` | `sqlx::Type`, `Encode`, `Decode` for that database ([`sqlx`]) |
//! | `utoipa` | `utoipa::PartialSchema` and `ToSchema`: a string of decimal digits (see below) |
//! | `schemars` | `schemars::JsonSchema`: the same schema |
//! | `async-graphql` | a GraphQL scalar named after the type (a string on the wire), `async_graphql::ID` conversions, `CursorType` ([`async_graphql`]) |
//! | `ts-rs` | `ts_rs::TS`: `export type UserId = string;` ([below](#typescript-through-ts-rs-and-specta)) |
//! | `specta` | `specta::Type`: `export type UserId = string;` through specta-typescript ([below](#typescript-through-ts-rs-and-specta)) |
//!
//! Protocol Buffers (prost, tonic) need no feature: message fields are
//! `int64`, `fixed64` or `string`, and every ID type converts to and from
//! `i64`, `u64` and `String` with the standard traits (see
//! [`FlakeId`](crate::FlakeId)'s conversions and `examples/protobuf.rs`).
//!
//! 128-bit flakes (`Flake128`, the `flakeid-flake128` crate) get the same
//! impls from that crate's sqlx, utoipa and schemars features, as 16 bytes
//! (`uuid`, `BINARY(16)`, `BLOB`) and as their canonical string.
//!
//! The orphan rule allows these impls only in the crate that declares the
//! ID type, so `#[flake_id]` writes them there: it calls a macro of
//! flakeid-core for each integration, which expands to the impls when the
//! feature is on and to nothing when it is off. Turn a feature on by
//! depending on flakeid-core with it, also when you import the attribute
//! from `flakeid-seaorm` or `flakeid-diesel`:
//!
//! ```toml
//! flakeid-core = { version = "0.1", features = ["sqlx-postgres", "utoipa"] }
//! ```
//!
//! # How an ID looks in an API schema: a string of decimal digits
//!
//! IDs travel as decimal **strings** (see [`encoding`](crate::encoding)),
//! because JavaScript numbers round integers above 2^53. The `utoipa` and
//! `schemars` features describe every `#[flake_id]` type with these
//! values, so that a frontend reading the OpenAPI document or JSON Schema
//! sees strings, not numbers:
//!
//! | keyword | value |
//! |---|---|
//! | `type` | `"string"` |
//! | `pattern` | `^[1-9][0-9]*$` |
//! | `maxLength` | the digits of its largest ID (19, or 16 for JavaScript-safe layouts) |
//! | `description` | "A 64-bit ID, sent as a string of decimal digits because JavaScript numbers round integers above 2^53." |
//! | `examples` | one real ID of the type's scheme (its [`example_id`](crate::IdScheme::example_id)) |
//!
//! The schema is named after the type (`UserId`), so documents refer to
//! it (`$ref`) rather than repeating it.
//!
//! Pattern and length together accept exactly the canonical decimal
//! strings with at most as many digits as the type's largest ID
//! ([`FlakeId::max_value`](crate::FlakeId::max_value)): the string of every ID of the type, and
//! nothing `FromStr` and serde refuse for its form (no sign, whitespace,
//! leading zero, other characters, no `0`, no more digits). A pattern
//! cannot state a numeric bound, so values above the largest ID with as
//! many digits (`9007199254740992` to `9999999999999999` for a
//! JavaScript-safe layout, whose largest ID is `2^53 − 1`) pass the schema
//! and are refused by the server.
//! serde also reads JSON integers for an ID; the schema states the string
//! form that IDs are written as and that clients should send.
//!
//! `Flake128` (`flakeid-flake128`) is described the same way with its own
//! string (type `string`, 32 lowercase hex digits in UUID groups), under
//! the name `Flake128`.
//!
//!
//! # TypeScript through ts-rs and specta
//!
//! With the feature `ts-rs` (a `ts_rs::TS`) or `specta` (a named
//! `specta::Type`, which specta-typescript declares once), every
//! `#[flake_id]` type is exported as an alias named after the type, under
//! a JSDoc comment of the description above, and the types holding it
//! refer to it by name (ts-rs: from a file of its own, `UserId.ts`):
//!
//! ```ts
//! /** A 64-bit ID, sent as a string of decimal digits because JavaScript numbers round integers above 2^53. */
//! export type UserId = string;
//! export type OrderId = `ord_${string}`; // #[flake_id(prefix = "ord")], through ts-rs
//! export type User = { id: UserId, referrer: UserId | null };
//! ```
//!
//! That is what the server sends: a string, never a `number` (which rounds
//! above 2^53) or a `bigint` (which `JSON.parse` never produces), what the
//! exporters make of an `i64`: an ID type must not be exported as its
//! `i64`. Through ts-rs, a type with a prefix is a template literal type
//! (TypeScript 4.1 and later), so that a `UserId` where an `OrderId`
//! belongs fails to compile. specta has no template literal type (and the
//! raw TypeScript of specta-typescript's `define` is an opaque reference
//! that other exporters refuse): there it stays `string`, its
//! documentation naming the prefix and the form of the number. specta 2
//! exists only as release candidates, and a named type's `Type` impl calls
//! an interface that may change between them: the feature requires exactly
//! specta `2.0.0-rc.27`, as specta-typescript `0.0.14` does.
//!
//! ```
//! # #[cfg(feature = "ts-rs")] {
//! use flakeid_core::flake_id;
//! use ts_rs::{Config, TS};
//!
//! #[flake_id]
//! pub struct UserId(i64);
//! #[flake_id(prefix = "ord")]
//! pub struct OrderId(i64);
//!
//! let cfg = Config::default();
//! assert_eq!(UserId::name(&cfg), "UserId");
//! assert_eq!(UserId::inline(&cfg), "string");
//! assert_eq!(UserId::decl(&cfg), "type UserId = string;");
//! let file = UserId::export_to_string(&cfg).expect("a declaration");
//! assert!(file.contains("/**\n * A 64-bit ID, sent as a string"));
//! assert!(file.contains("export type UserId = string;"));
//! assert_eq!(OrderId::inline(&cfg), "`ord_${string}`");
//! assert_eq!(OrderId::decl(&cfg), "type OrderId = `ord_${string}`;");
//! # }
//! ```
//!
//! ```
//! # #[cfg(feature = "specta")] {
//! use flakeid_core::flake_id;
//! use specta::datatype::{DataType, Primitive};
//! use specta::{Type, Types};
//!
//! #[flake_id]
//! pub struct UserId(i64);
//! #[flake_id(prefix = "ord")]
//! pub struct OrderId(i64);
//!
//! let types = Types::default().register::<UserId>().register::<OrderId>();
//! let mut named: Vec<_> = types.into_unsorted_iter().collect();
//! named.sort_by(|a, b| a.name.cmp(&b.name));
//! assert_eq!(named.len(), 2);
//! assert_eq!(named[1].name, "UserId");
//! assert!(named[1].docs.starts_with("A 64-bit ID, sent as a string"));
//! assert!(matches!(named[1].ty, Some(DataType::Primitive(Primitive::str))));
//! assert!(named[0].docs.contains("`ord_`"));
//! // Used in another type, it is a reference to that one declaration.
//! assert!(matches!(UserId::definition(&mut Types::default()), DataType::Reference(_)));
//! # }
//! ```

#[cfg(feature = "async-graphql")]
pub mod async_graphql;
#[cfg(any(feature = "utoipa", feature = "schemars", test))]
pub(crate) mod json_schema;
#[cfg(feature = "schemars")]
pub(crate) mod schemars;
#[cfg(feature = "serde")]
pub(crate) mod serde;
#[cfg(feature = "specta")]
pub(crate) mod specta;
#[cfg(any(
    feature = "sqlx-postgres",
    feature = "sqlx-mysql",
    feature = "sqlx-sqlite"
))]
pub mod sqlx;
#[cfg(feature = "ts-rs")]
pub(crate) mod ts_rs;
#[cfg(feature = "utoipa")]
pub(crate) mod utoipa;

/// What an ID field is, for people reading an API schema, a GraphQL schema
/// or a TypeScript declaration.
#[cfg(any(
    feature = "utoipa",
    feature = "schemars",
    feature = "async-graphql",
    feature = "ts-rs",
    feature = "specta"
))]
pub(crate) const DESCRIPTION: &str = "A 64-bit ID, sent as a string of decimal digits because \
                                      JavaScript numbers round integers above 2^53.";

/// What an ID field of `I` is: [`DESCRIPTION`], or for a type with a
/// [`PREFIX`](crate::FlakeId::PREFIX) its prefix and the form of its number.
#[cfg(any(
    feature = "utoipa",
    feature = "schemars",
    feature = "async-graphql",
    feature = "ts-rs",
    feature = "specta"
))]
pub(crate) fn description<I: crate::FlakeId>() -> std::borrow::Cow<'static, str> {
    use crate::encoding::TextForm;
    let Some(prefix) = I::PREFIX else {
        return std::borrow::Cow::Borrowed(DESCRIPTION);
    };
    let number = match prefix.form() {
        TextForm::Decimal => "its decimal digits",
        TextForm::Base62 => "11 base62 characters (0-9A-Za-z), which sort like the IDs",
        TextForm::Crockford => "13 Crockford base32 characters, which sort like the IDs",
    };
    format!(
        "A 64-bit ID, sent as a string: `{}_` and {number}.",
        prefix.name()
    )
    .into()
}
