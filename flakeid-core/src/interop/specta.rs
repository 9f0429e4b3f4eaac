//! ID types as specta types (feature `specta`): TypeScript `string`.
//!
//! Every `#[flake_id]` type is a named specta type whose definition is
//! `string`, so specta-typescript declares it once and the types holding it
//! refer to it by name:
//!
//! ```ts
//! /** A 64-bit ID, sent as a string of decimal digits because JavaScript numbers round integers above 2^53. */
//! export type UserId = string;
//!
//! export type User = {
//!     id: UserId,
//!     referrer: UserId | null,
//! };
//! ```
//!
//! That is what the server sends (see [`interop::serde`](super)): a string
//! of decimal digits, never a `number` (which rounds above 2^53) or a
//! `bigint` (which `JSON.parse` never produces). specta's own `i64` is a
//! `number` that specta-typescript refuses to export: an ID type must not be
//! exported as its `i64`.
//!
//! specta 2 exists only as release candidates, and a named type's `Type`
//! impl calls an interface that may change between them: this feature
//! requires exactly specta `2.0.0-rc.27`, the version specta-typescript
//! `0.0.14` requires too.
//!
//! ```
//! use flakeid_core::flake_id;
//! use specta::datatype::{DataType, Primitive};
//! use specta::{Type, Types};
//!
//! #[flake_id]
//! pub struct UserId(i64);
//!
//! let types = Types::default().register::<UserId>();
//! let named: Vec<_> = types.into_unsorted_iter().collect();
//! assert_eq!(named.len(), 1);
//! assert_eq!(named[0].name, "UserId");
//! assert!(named[0].docs.starts_with("A 64-bit ID, sent as a string"));
//! assert!(matches!(named[0].ty, Some(DataType::Primitive(Primitive::str))));
//! // Used in another type, it is a reference to that one declaration.
//! assert!(matches!(UserId::definition(&mut Types::default()), DataType::Reference(_)));
//! ```

/// The documentation of an ID type's declaration: what the
/// [`interop`](super) schemas say of an ID.
///
/// ```
/// assert!(flakeid_core::interop::specta::DOCS.starts_with("A 64-bit ID, sent as a string"));
/// ```
#[doc(hidden)]
pub const DOCS: &str = super::DESCRIPTION;

/// The documentation of `I`'s declaration: [`DOCS`], or for a type with a
/// prefix what its strings hold (`usr_` and the number's form). The
/// declaration itself stays `string`: specta's types have no template
/// literal type, and the raw TypeScript of specta-typescript's `define`
/// is an opaque reference that other exporters refuse.
///
/// ```
/// # #[flakeid_core::flake_id(prefix = "usr")] pub struct UserId(i64);
/// assert!(flakeid_core::interop::specta::docs::<UserId>().contains("`usr_`"));
/// ```
#[doc(hidden)]
pub fn docs<I: crate::FlakeId>() -> std::borrow::Cow<'static, str> {
    super::description::<I>()
}

/// `specta::Type` for an ID type; `#[flake_id]` calls it as
/// `__private::impl_specta!(Type)`. What `#[derive(specta::Type)]` writes
/// for a named type, with `string` as its definition.
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_specta {
    ($id:ty) => {
        impl $crate::__private::specta::Type for $id {
            fn definition(
                types: &mut $crate::__private::specta::Types,
            ) -> $crate::__private::specta::datatype::DataType {
                // The type's identity in specta's collection: one
                // declaration however often the type is used.
                static SENTINEL: &str =
                    ::core::concat!(::core::module_path!(), "::", ::core::stringify!($id));
                fn build(
                    types: &mut $crate::__private::specta::Types,
                ) -> $crate::__private::specta::datatype::DataType {
                    <::core::primitive::str as $crate::__private::specta::Type>::definition(types)
                }
                $crate::__private::specta::datatype::DataType::Reference(
                    $crate::__private::specta::datatype::NamedDataType::init_with_sentinel(
                        SENTINEL,
                        &[],
                        &[],
                        false,
                        false,
                        types,
                        |types, ndt| {
                            ndt.name = ::std::borrow::Cow::Borrowed(<$id as $crate::FlakeId>::NAME);
                            ndt.module_path = ::std::borrow::Cow::Borrowed(::core::module_path!());
                            ndt.docs = $crate::interop::specta::docs::<$id>();
                            ndt.ty = ::core::option::Option::Some(build(types));
                        },
                        build,
                    ),
                )
            }
        }
    };
}
