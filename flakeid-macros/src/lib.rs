//! The `#[flake_id]` attribute of [flakeid](https://github.com/flakeid/flakeid).
//!
//! Use it through `flakeid_core::flake_id` (or the re-export in
//! `flakeid-seaorm` / `flakeid-diesel`); this crate only parses and expands,
//! and everything the expansion calls lives in `flakeid-core`.
//!
//! # Declaring an ID type
//!
//! On a tuple struct with one private `i64` field, `#[flake_id]` declares a
//! typed, time-ordered ID:
//!
//! ```
//! use flakeid_core::{FlakeId, flake_id};
//!
//! /// The key of the `users` table.
//! #[flake_id]
//! pub struct UserId(i64);
//!
//! let id = UserId::try_from(1_234_567_i64)?;
//! assert_eq!(id.get(), 1_234_567);
//! assert_eq!(id.to_string(), "1234567");
//! assert_eq!(format!("{id:?}"), "UserId(1234567)");
//! assert_eq!("1234567".parse::<UserId>()?, id);
//! assert!(UserId::try_from(0_i64).is_err());
//! assert!(UserId::try_from(-5_i64).is_err());
//! assert_eq!(i64::from(id), 1_234_567);
//! # Ok::<(), flakeid_core::IdError>(())
//! ```
//!
//! The struct keeps its visibility, doc comments and other attributes, and
//! gains:
//!
//! * `#[repr(transparent)]` and the derives `Clone`, `Copy`, `PartialEq`,
//!   `Eq`, `PartialOrd`, `Ord`, `Hash` (IDs order by creation time);
//! * `impl FlakeId` — `UserId::generate()`, `decode()`, `from_i64()` … —
//!   with IDs drawn from the process-wide generator
//!   (`flakeid_core::global::generator()`), or with
//!   `#[flake_id(generator = path)]` from the `flakeid_core::IdSource` that
//!   `path()` returns (`Result<&'static G, ConfigError>`: a `Generator` of
//!   any layout, a `DecimalIdGenerator`, a `TraceIdGenerator` …), whose
//!   scheme then also checks and decodes the type's values;
//! * `Debug` (`UserId(1234567)`), `Display` and `FromStr` (decimal),
//!   `TryFrom<i64>`, `TryFrom<u64>` (rejecting `0`, negatives and values the
//!   layout cannot hold) and `From<UserId> for i64`;
//! * `Serialize` / `Deserialize` as a decimal **string** (JavaScript rounds
//!   integers above 2^53), reading a string or an integer — when
//!   `flakeid-core`'s `serde` feature is on;
//! * SeaORM column and key impls when your crate depends on
//!   `flakeid-seaorm`, Diesel ones when it depends on `flakeid-diesel`
//!   (renamed dependencies are found too).
//!
//! Derive none of the traits above yourself: they are already implemented.
//!
//! An ORM crate listed only in `[dev-dependencies]` is not available to the
//! library, so its column impls are then generated for unit tests
//! (`#[cfg(test)]`), integration tests and benches only — not for examples
//! and doctests. List it in `[dependencies]` to have them everywhere.
//!
//! ## Another generator
//!
//! `#[flake_id(generator = path::to::function)]` draws IDs of this type from
//! another generator; the function has the signature
//! `fn() -> Result<&'static Generator, ConfigError>`:
//!
//! ```
//! use std::sync::OnceLock;
//! use flakeid_core::{ConfigError, FlakeId, Generator, GeneratorBuilder, flake_id};
//! use flakeid_core::layout::presets;
//!
//! // Audit records come from a fleet of their own, node IDs 0..1024.
//! fn audit_generator() -> Result<&'static Generator, ConfigError> {
//!     static AUDIT: OnceLock<Result<Generator, ConfigError>> = OnceLock::new();
//!     AUDIT
//!         .get_or_init(|| GeneratorBuilder::new(presets::twitter(), 42).build())
//!         .as_ref()
//!         .map_err(Clone::clone)
//! }
//!
//! #[flake_id(generator = audit_generator)]
//! pub struct AuditId(i64);
//!
//! let id = AuditId::try_generate()?;
//! assert_eq!(id.decode()?.parts.map(|p| p.node), Some(42));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Marking a model's primary key
//!
//! On a struct with named fields, `#[flake_id]` marks a model whose primary
//! key the application assigns. The key field's type must be an ID type
//! declared with `#[flake_id]`; keys made of several columns are rejected,
//! since their values (usually foreign keys) already exist.
//!
//! * **SeaORM**: the key is the field with `#[sea_orm(primary_key)]`.
//!   Put `#[flake_id]` **above** `#[sea_orm::model]` and
//!   `#[derive(DeriveEntityModel)]`: below `#[sea_orm::model]` it would run
//!   once per generated struct, below the derive its changes would not be
//!   seen.
//! * **Diesel**: the key is the field named in
//!   `#[diesel(primary_key(..))]`, or else the field `id`.
//!
//! ```ignore
//! // SeaORM (runs in flakeid-seaorm's documentation)
//! #[flake_id]
//! #[sea_orm::model]
//! #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//! #[sea_orm(table_name = "users")]
//! pub struct Model {
//!     #[sea_orm(primary_key)]
//!     pub id: UserId,
//!     pub name: String,
//! }
//! ```
//!
//! ```ignore
//! // Diesel (runs in flakeid-diesel's tests/model_marker.rs)
//! use flakeid_core::{FlakeId, flake_id, global, layout::presets, GeneratorBuilder};
//!
//! #[flake_id]
//! pub struct UserId(i64);
//!
//! diesel::table! {
//!     users (id) {
//!         id -> BigInt,
//!         name -> Text,
//!     }
//! }
//!
//! // Diesel: the key is `id`; `#[diesel(primary_key(..))]` names another.
//! #[flake_id]
//! #[derive(diesel::Queryable)]
//! #[diesel(table_name = users)]
//! pub struct User {
//!     pub id: UserId,
//!     pub name: String,
//! }
//!
//! global::init(GeneratorBuilder::new(presets::twitter(), 1))?;
//! let row = User { id: UserId::try_generate()?, name: "alice".into() };
//! assert!(row.id.get() > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//!
//! Misuse is a compile error at the offending token: an enum, union,
//! function or impl; a field that is not `i64`, a public field, several
//! fields or generics; an unknown argument; a derive of a generated trait
//! or of `Default` (`0` is not an ID); a model without a primary key, with a
//! composite key, or whose key type is optional or not an ID type;
//! `#[flake_id]` below `#[sea_orm::model]` or `#[derive(DeriveEntityModel)]`;
//! and a crate that depends on none of `flakeid-core`, `flakeid-seaorm`,
//! `flakeid-diesel`.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod id_type;
mod model;
mod paths;

/// Declares a typed ID (`#[flake_id] pub struct UserId(i64);`) or marks a
/// model's primary key as application-assigned.
///
/// See the [crate documentation](crate) for what is generated and the
/// accepted arguments.
#[proc_macro_attribute]
pub fn flake_id(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

const WHERE_IT_GOES: &str =
    "#[flake_id] goes on a tuple struct `struct UserId(i64);` or on a model struct";

fn expand(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    let item: syn::Item = syn::parse2(item)?;
    let input = match item {
        syn::Item::Struct(s) => syn::DeriveInput::from(s),
        other => return Err(misplaced(&other)),
    };
    let named =
        matches!(&input.data, syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Named(_)));
    if named {
        model::expand(args, input)
    } else {
        id_type::expand(args, input)
    }
}

/// The error for an item that is not a struct, pointing at its keyword.
fn misplaced(item: &syn::Item) -> syn::Error {
    use syn::spanned::Spanned;
    let span = match item {
        syn::Item::Enum(i) => i.enum_token.span,
        syn::Item::Union(i) => i.union_token.span,
        syn::Item::Fn(i) => i.sig.fn_token.span,
        syn::Item::Impl(i) => i.impl_token.span,
        syn::Item::Trait(i) => i.trait_token.span,
        syn::Item::Type(i) => i.type_token.span,
        syn::Item::Mod(i) => i.mod_token.span,
        syn::Item::Const(i) => i.const_token.span,
        syn::Item::Static(i) => i.static_token.span,
        other => other.span(),
    };
    syn::Error::new(span, WHERE_IT_GOES)
}
