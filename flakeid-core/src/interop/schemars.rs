//! ID types as schemars JSON Schemas (feature `schemars`): what the
//! `JsonSchema` impl of `#[flake_id]` returns. The values are those of
//! [`interop`](super).

use ::schemars::Schema;

use super::json_schema::{description, example, max_length, pattern};
use crate::FlakeId;

/// The schema of `I`: a string of decimal digits, or of its prefix and number. `I`'s
/// `schemars::JsonSchema::json_schema()` returns it.
///
/// ```
/// use flakeid_core::flake_id;
/// use schemars::JsonSchema as _;
///
/// #[flake_id]
/// pub struct UserId(i64);
///
/// let schema = UserId::json_schema(&mut schemars::SchemaGenerator::default());
/// assert_eq!(schema.get("type"), Some(&"string".into()));
/// assert_eq!(schema.get("maxLength"), Some(&19.into()));
/// ```
pub fn schema<I: FlakeId>() -> Schema {
    let mut schema = ::schemars::json_schema!({
        "type": "string",
        "pattern": pattern::<I>(),
        "maxLength": max_length::<I>(),
        "description": description::<I>(),
    });
    if let Some(example) = example::<I>() {
        schema.insert("examples".to_owned(), vec![example].into());
    }
    schema
}

/// `schemars::JsonSchema` for an ID type, named after the type (and told
/// apart by its module path); `#[flake_id]` calls it as
/// `__private::impl_schemars!(Type)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_schemars {
    ($id:ty) => {
        impl $crate::__private::schemars::JsonSchema for $id {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(<$id as $crate::FlakeId>::NAME)
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(
                    ::core::module_path!(),
                    "::",
                    ::core::stringify!($id)
                ))
            }

            fn json_schema(
                _: &mut $crate::__private::schemars::SchemaGenerator,
            ) -> $crate::__private::schemars::Schema {
                $crate::__private::schemars_schema::<$id>()
            }
        }
    };
}
