//! [`Flake128`] in API schemas (features `utoipa`, `schemars`): a string
//! of its canonical form, named `Flake128`, with the values of
//! [`json_schema`](crate::interop::json_schema).

use crate::flake128::Flake128;
use crate::interop::json_schema::{FLAKE128_DESCRIPTION, FLAKE128_PATTERN, flake128_example};

/// The length of the canonical string.
const LEN: usize = 36;

#[cfg(feature = "utoipa")]
mod utoipa_impls {
    use std::borrow::Cow;

    use ::utoipa::openapi::RefOr;
    use ::utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
    use ::utoipa::{PartialSchema, ToSchema};

    use super::{FLAKE128_DESCRIPTION, FLAKE128_PATTERN, Flake128, LEN, flake128_example};

    impl PartialSchema for Flake128 {
        fn schema() -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(FLAKE128_PATTERN))
                .min_length(Some(LEN))
                .max_length(Some(LEN))
                .description(Some(FLAKE128_DESCRIPTION))
                .examples([flake128_example()])
                .into()
        }
    }

    impl ToSchema for Flake128 {
        fn name() -> Cow<'static, str> {
            Cow::Borrowed("Flake128")
        }
    }
}

#[cfg(feature = "schemars")]
mod schemars_impls {
    use std::borrow::Cow;

    use ::schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

    use super::{FLAKE128_DESCRIPTION, FLAKE128_PATTERN, Flake128, LEN, flake128_example};

    impl JsonSchema for Flake128 {
        fn schema_name() -> Cow<'static, str> {
            Cow::Borrowed("Flake128")
        }

        fn schema_id() -> Cow<'static, str> {
            Cow::Borrowed("flakeid_core::flake128::Flake128")
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "pattern": FLAKE128_PATTERN,
                "minLength": LEN,
                "maxLength": LEN,
                "description": FLAKE128_DESCRIPTION,
                "examples": [flake128_example()],
            })
        }
    }
}
