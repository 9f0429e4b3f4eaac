//! ID types as ts-rs types (feature `ts-rs`): TypeScript `string`, or for
//! a type with a prefix the template literal type `` `usr_${string}` ``.
//!
//! Every `#[flake_id]` type is exported as an alias of `string`, named after
//! the type, in a file of its own (`UserId.ts`), which the files of types
//! holding it import:
//!
//! ```ts
//! export type UserId = string;
//! export type OrderId = `ord_${string}`; // #[flake_id(prefix = "ord")]
//! ```
//!
//! That is what the server sends (see [`interop::serde`](super)): a string
//! of decimal digits, never a `number` (which rounds above 2^53) or a
//! `bigint` (which `JSON.parse` never produces). ts-rs's own default for
//! `i64` is `bigint`: an ID type must not be exported as its `i64`.
//!
//! ```
//! use flakeid_core::flake_id;
//! use ts_rs::{Config, TS};
//!
//! #[flake_id]
//! pub struct UserId(i64);
//!
//! let cfg = Config::default();
//! assert_eq!(UserId::name(&cfg), "UserId");
//! assert_eq!(UserId::inline(&cfg), "string");
//! assert_eq!(UserId::decl(&cfg), "type UserId = string;");
//! assert!(UserId::export_to_string(&cfg)?.contains("export type UserId = string;"));
//! # Ok::<(), ts_rs::ExportError>(())
//! ```

use crate::FlakeId;

/// The declaration of `I` in TypeScript: `type UserId = string;`.
///
/// ```
/// use flakeid_core::{flake_id, interop};
///
/// #[flake_id]
/// pub struct OrderId(i64);
///
/// assert_eq!(interop::ts_rs::decl::<OrderId>(), "type OrderId = string;");
/// ```
#[doc(hidden)]
pub fn decl<I: FlakeId>() -> String {
    format!("type {} = {};", I::NAME, inline::<I>())
}

/// The TypeScript type of `I`'s values: `string`, or for a type with a
/// [`PREFIX`](FlakeId::PREFIX) a template literal type that holds only
/// strings with that prefix, `` `usr_${string}` `` (TypeScript 4.1 and
/// later), so that a `UserId` where an `OrderId` belongs fails to compile.
///
/// ```
/// use flakeid_core::{flake_id, interop};
///
/// #[flake_id(prefix = "usr")]
/// pub struct UserId(i64);
///
/// assert_eq!(interop::ts_rs::inline::<UserId>(), "`usr_${string}`");
/// assert_eq!(interop::ts_rs::decl::<UserId>(), "type UserId = `usr_${string}`;");
/// ```
#[doc(hidden)]
pub fn inline<I: FlakeId>() -> String {
    match I::PREFIX {
        None => "string".to_owned(),
        Some(prefix) => format!("`{}_${{string}}`", prefix.name()),
    }
}

/// The JSDoc comment above an ID type's declaration: what the
/// [`interop`](super) schemas say of an ID.
///
/// ```
/// # #[flakeid_core::flake_id] pub struct UserId(i64);
/// assert!(flakeid_core::interop::ts_rs::docs::<UserId>().starts_with("/**\n * A 64-bit ID, sent as a string"));
/// ```
#[doc(hidden)]
pub fn docs<I: FlakeId>() -> String {
    format!("/**\n * {}\n */\n", super::description::<I>())
}

/// `ts_rs::TS` for an ID type; `#[flake_id]` calls it as
/// `__private::impl_ts_rs!(Type)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_ts_rs {
    ($id:ty) => {
        impl $crate::__private::ts_rs::TS for $id {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;

            fn docs() -> ::core::option::Option<::std::string::String> {
                ::core::option::Option::Some($crate::interop::ts_rs::docs::<$id>())
            }

            fn name(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                ::std::borrow::ToOwned::to_owned(<$id as $crate::FlakeId>::NAME)
            }

            fn inline(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                $crate::interop::ts_rs::inline::<$id>()
            }

            fn decl(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                $crate::interop::ts_rs::decl::<$id>()
            }

            fn decl_concrete(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                $crate::interop::ts_rs::decl::<$id>()
            }

            fn output_path() -> ::core::option::Option<::std::path::PathBuf> {
                ::core::option::Option::Some(::std::path::PathBuf::from(::std::format!(
                    "{}.ts",
                    <$id as $crate::FlakeId>::NAME
                )))
            }
        }
    };
}
