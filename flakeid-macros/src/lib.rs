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
//! * `impl FlakeId`, and inherent `generate()`, `try_generate()`,
//!   `generate_many(n)`, `get()`, `decode()`, `time_bounds(range)` and
//!   `tick_bounds(time)`, and with flakeid-core's `tokio` feature
//!   `generate_async()` and `generate_many_async(n)` (no trait import
//!   needed);
//! * `Debug` (`UserId(1234567)`), `Display` and `FromStr` (decimal),
//!   `TryFrom<i64>`, `TryFrom<u64>` (rejecting `0`, negatives and values the
//!   scheme does not hold) and `From<UserId> for i64`;
//! * `Serialize` / `Deserialize` as a decimal **string** (JavaScript rounds
//!   integers above 2^53), reading a string or an integer — when
//!   `flakeid-core`'s `serde` feature is on;
//! * `sqlx::Type`, `Encode` and `Decode` — when a `sqlx-postgres`,
//!   `sqlx-mysql` or `sqlx-sqlite` feature of `flakeid-core` is on;
//!   `utoipa::ToSchema` / `schemars::JsonSchema` (a string of decimal
//!   digits) — with its `utoipa` / `schemars` feature (see
//!   `flakeid_core::interop`);
//! * ORM column and key impls when you ask for them (below).
//!
//! Derive none of the traits above yourself: they are already implemented.
//!
//! ## Arguments
//!
//! | argument | on | meaning |
//! |---|---|---|
//! | (none) | ID type | Twitter's layout; IDs from the process-wide generator (`flakeid_core::global`) |
//! | `layout = path` | ID type | `path()` returns the layout (e.g. `presets::discord`, or a function of yours); IDs from a process-wide generator of it with this process's node ID |
//! | `scheme = path` | ID type | the same for any scheme: `flakeid-schemes`' `DecimalLayout`, a layout wrapped in `RandomStart`, `TraceIdLayout`, `RandomKeys`, `DecimalIdScheme` … (anything implementing `flakeid_core::GlobalScheme`) |
//! | `source = path` | ID type, with `layout`/`scheme` | `path()` returns `Result<&'static G, ConfigError>` for an `IdSource` of your own |
//! | `cut_over = N` | ID type | keys below `N` were issued before the table switched to flake keys (the `flakeid-adopt` crate): they decode as such and count as older than every flake key (`FlakeId::CUT_OVER`) |
//! | `seaorm`, `diesel` | both | emit that ORM's impls (implied by `flakeid_seaorm::flake_id` / `flakeid_diesel::flake_id`) |
//! | `behavior = manual` | SeaORM model | you write `ActiveModelBehavior` yourself |
//! | `shared_key` | SeaORM model | another model with `#[flake_id]` has the same key type (or the ID type's crate marks it): this one does not mark it again (`flakeid_seaorm::FlakeModelKey`) |
//! | `crate = path` | both | where the attribute's own crate is, if you renamed or re-exported it |
//!
//! Checking, parsing and decoding use only the scheme: they never read the
//! environment or build a generator, so a service that only reads IDs needs
//! no node ID.
//!
//! ```
//! use flakeid_core::{flake_id, global, Generator};
//! use flakeid_core::layout::presets;
//!
//! // Audit records use Sonyflake's layout; this process's node ID is 42.
//! #[flake_id(layout = presets::sonyflake)]
//! pub struct AuditId(i64);
//!
//! global::init(Generator::builder(presets::twitter(), 42))?;
//! let id = AuditId::generate()?;
//! assert_eq!(id.decode().parts.map(|p| p.node), Some(42));
//! assert_eq!(presets::sonyflake().decompose(id.get() as u64).node, 42);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Which ORM
//!
//! The path you import decides: `flakeid_seaorm::flake_id` emits SeaORM
//! impls, `flakeid_diesel::flake_id` Diesel ones, `flakeid_core::flake_id`
//! none; `#[flake_id(seaorm)]` or `#[flake_id(diesel)]` add one (a type
//! used by both ORMs writes `#[flake_id(seaorm, diesel)]`). Nothing is
//! guessed from your `Cargo.toml`.
//!
//! # Marking a model's primary key
//!
//! On a struct with named fields, `#[flake_id]` marks a model whose primary
//! key the application assigns. The key field's type must be an ID type
//! declared with `#[flake_id]`; keys made of several columns are rejected,
//! since their values (usually foreign keys) already exist.
//!
//! The model's ORM comes from the entry point or an argument, as above.
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
//! use flakeid_seaorm::flake_id;
//!
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
//! use flakeid_diesel::flake_id;
//! use flakeid_diesel::flakeid_core::{global, Generator};
//! use flakeid_diesel::flakeid_core::layout::presets;
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
//! global::init(Generator::builder(presets::twitter(), 1))?;
//! let row = User { id: UserId::generate()?, name: "alice".into() };
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
//! a model without an ORM, or with two.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod attr;
mod expand;
mod model;
mod valid;

use attr::{Entry, Paths};

/// Declares a typed ID (`#[flake_id] pub struct UserId(i64);`) or marks a
/// model's primary key as application-assigned.
///
/// See the [crate documentation](crate) for what is generated and the
/// accepted arguments.
#[proc_macro_attribute]
pub fn flake_id(args: TokenStream, item: TokenStream) -> TokenStream {
    run(Entry::Core, args, item)
}

/// `flakeid_seaorm::flake_id`: `#[flake_id]` with SeaORM's impls.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn seaorm_flake_id(args: TokenStream, item: TokenStream) -> TokenStream {
    run(Entry::SeaOrm, args, item)
}

/// `flakeid_diesel::flake_id`: `#[flake_id]` with Diesel's impls.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn diesel_flake_id(args: TokenStream, item: TokenStream) -> TokenStream {
    run(Entry::Diesel, args, item)
}

fn run(entry: Entry, args: TokenStream, item: TokenStream) -> TokenStream {
    expand(entry, args.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Parse, validate, expand.
fn expand(
    entry: Entry,
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    let item: syn::Item = syn::parse2(item)?;
    let input = match item {
        syn::Item::Struct(s) => syn::DeriveInput::from(s),
        other => return Err(misplaced(&other)),
    };
    let args = attr::parse(args)?;
    let paths = Paths::new(entry, &args);
    let named =
        matches!(&input.data, syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Named(_)));
    if named {
        let orm = valid::model_orm(entry, &args, &input.ident)?;
        model::expand(orm, &args, &paths, input)
    } else {
        valid::id_type_args(&args)?;
        valid::id_type_shape(&input)?;
        valid::id_type_derives(&input.attrs)?;
        Ok(expand::id_type(&args, &paths, input))
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
    syn::Error::new(span, valid::WHERE_IT_GOES)
}

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
