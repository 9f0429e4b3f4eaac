//! Checked conversions between stored integers and ID types, shared by the
//! impls that `impl_id!` generates so the generated code stays small.

use diesel::deserialize;
use flakeid_core::FlakeId;

/// A stored `BIGINT` as an ID: `0`, negatives and values beyond the layout
/// become a deserialization error carrying the [`flakeid_core::IdError`].
pub fn from_i64<I: FlakeId>(value: i64) -> deserialize::Result<I> {
    I::from_i64(value).map_err(Into::into)
}

/// A stored `BIGINT UNSIGNED` as an ID: values above `i64::MAX` are errors
/// too, since IDs are signed `BIGINT`s everywhere else.
pub fn from_u64<I: FlakeId>(value: u64) -> deserialize::Result<I> {
    I::from_u64(value).map_err(Into::into)
}

/// An ID's value as `BIGINT UNSIGNED`. IDs are in `1..=i64::MAX` by
/// construction, so this is the identity on their value.
pub fn to_u64(value: i64) -> u64 {
    value.unsigned_abs()
}
