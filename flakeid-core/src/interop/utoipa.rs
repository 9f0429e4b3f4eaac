//! ID types as utoipa schemas (feature `utoipa`): what the
//! `PartialSchema` and `ToSchema` impls of `#[flake_id]` return. The values
//! are those described in [`interop`](super).

use ::utoipa::openapi::RefOr;
use ::utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use super::json_schema::{description, example, max_length, pattern};
use crate::FlakeId;

/// The schema of `I`: a string of decimal digits, or of its prefix and number. `I`'s
/// `utoipa::PartialSchema::schema()` returns it.
///
/// ```
/// use flakeid_core::flake_id;
///
/// #[flake_id]
/// pub struct UserId(i64);
///
/// let schema = serde_json::to_value(<UserId as utoipa::PartialSchema>::schema())?;
/// assert_eq!(schema["type"], "string");
/// assert_eq!(schema["pattern"], "^[1-9][0-9]*$");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn schema<I: FlakeId>() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(pattern::<I>()))
        .max_length(Some(max_length::<I>()))
        .description(Some(description::<I>()))
        .examples(example::<I>())
        .into()
}

/// `utoipa::PartialSchema` and `utoipa::ToSchema` (named after the type)
/// for an ID type; `#[flake_id]` calls it as `__private::impl_utoipa!(Type)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_utoipa {
    ($id:ty) => {
        impl $crate::__private::utoipa::PartialSchema for $id {
            fn schema() -> $crate::__private::utoipa::openapi::RefOr<
                $crate::__private::utoipa::openapi::schema::Schema,
            > {
                $crate::__private::utoipa_schema::<$id>()
            }
        }

        impl $crate::__private::utoipa::ToSchema for $id {
            fn name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(<$id as $crate::FlakeId>::NAME)
            }
        }
    };
}
