//! `ts_rs::TS` for ID types (feature `ts-rs`): what the
//! [`interop`](super) docs show under "TypeScript through ts-rs".

use crate::FlakeId;

/// The declaration of `I` in TypeScript: `type UserId = string;`.
pub fn decl<I: FlakeId>() -> String {
    format!("type {} = {};", I::NAME, inline::<I>())
}

/// The TypeScript type of `I`'s values: `string`, or for a type with a
/// [`PREFIX`](FlakeId::PREFIX) a template literal type that holds only
/// strings with that prefix, `` `usr_${string}` ``.
pub fn inline<I: FlakeId>() -> String {
    match I::PREFIX {
        None => "string".to_owned(),
        Some(prefix) => format!("`{}_${{string}}`", prefix.name()),
    }
}

/// The JSDoc comment above an ID type's declaration: what the
/// [`interop`](super) schemas say of an ID.
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
                ::core::option::Option::Some($crate::__private::ts_rs_docs::<$id>())
            }

            fn name(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                ::std::borrow::ToOwned::to_owned(<$id as $crate::FlakeId>::NAME)
            }

            fn inline(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                $crate::__private::ts_rs_inline::<$id>()
            }

            fn decl(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                $crate::__private::ts_rs_decl::<$id>()
            }

            fn decl_concrete(_: &$crate::__private::ts_rs::Config) -> ::std::string::String {
                $crate::__private::ts_rs_decl::<$id>()
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
