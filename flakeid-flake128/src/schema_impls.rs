//! [`Flake128`] in API schemas (features `utoipa`, `schemars`): a string
//! of its canonical form, named `Flake128`, with the values of
//! [`interop`](flakeid_core::interop).

use crate::Flake128;

/// The regular expression of a [`Flake128`]'s canonical string: 32
/// lowercase hex digits in UUID groups, as its serde impls write and read
/// it. (The all-zero string matches and is refused: flakes start at 1.)
const FLAKE128_PATTERN: &str = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

/// What a [`Flake128`] field is, for people reading the schema.
const FLAKE128_DESCRIPTION: &str = "A 128-bit flake ID: 32 lowercase hex digits in UUID \
                                        groups, ordered like its number (creation time).";

/// A fixed [`Flake128`], as the string it is sent as: worker 1, sequence
/// 0, at 2025-01-01T00:00:00Z.
fn flake128_example() -> String {
    Flake128::from_parts(flakeid_core::__private::EXAMPLE_UNIX_MILLIS, 1, 0)
        .map(|flake| flake.to_string())
        .unwrap_or_default()
}

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
            Cow::Borrowed("crate::Flake128")
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

#[cfg(test)]
#[path = "../tests/unit/schema_impls.rs"]
mod tests;
