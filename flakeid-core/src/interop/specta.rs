//! `specta::Type` for ID types (feature `specta`): what the
//! [`interop`](super) docs show under "TypeScript through specta".

/// The documentation of `I`'s declaration: what the [`interop`](super)
/// schemas say of an ID, with the prefix and the form of its number for a
/// type with a prefix. The declaration itself stays `string`.
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
                            ndt.docs = $crate::__private::specta_docs::<$id>();
                            ndt.ty = ::core::option::Option::Some(build(types));
                        },
                        build,
                    ),
                )
            }
        }
    };
}
