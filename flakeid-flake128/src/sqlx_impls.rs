//! [`Flake128`] as a sqlx value (features `sqlx-postgres`, `sqlx-mysql`,
//! `sqlx-sqlite`), stored as the 16 big-endian bytes of
//! [`Flake128::to_bytes`], like the Diesel and SeaORM impls:
//!
//! | database | column | feature |
//! |---|---|---|
//! | PostgreSQL | `uuid` (bound as), `bytea`; `Vec<Flake128>` as `uuid[]` | `sqlx-postgres` |
//! | MySQL, MariaDB | `BINARY(16)` | `sqlx-mysql` |
//! | SQLite | `BLOB` | `sqlx-sqlite` |
//!
//! A stored value that is not 16 bytes, or is all zeros, fails to decode
//! with the [`Flake128Error`](crate::Flake128Error) naming it.

use ::sqlx::encode::IsNull;
use ::sqlx::error::BoxDynError;

use crate::Flake128;

#[cfg(feature = "sqlx-postgres")]
mod postgres {
    use ::sqlx::postgres::types::Oid;
    use ::sqlx::postgres::{
        PgArgumentBuffer, PgHasArrayType, PgTypeInfo, PgValueFormat, PgValueRef, Postgres,
    };
    use ::sqlx::{Decode, Encode, Type, ValueRef as _};

    use super::{BoxDynError, Flake128, IsNull};

    // The OIDs of PostgreSQL's built-in types (`pg_type.dat`).
    const UUID: PgTypeInfo = PgTypeInfo::with_oid(Oid(2950));
    const UUID_ARRAY: PgTypeInfo = PgTypeInfo::with_oid(Oid(2951));
    const BYTEA: PgTypeInfo = PgTypeInfo::with_oid(Oid(17));
    const BYTEA_ARRAY: PgTypeInfo = PgTypeInfo::with_oid(Oid(1001));

    /// Bound as `uuid` (ordered byte by byte, so like the number); read
    /// from `uuid` and `bytea`.
    impl Type<Postgres> for Flake128 {
        fn type_info() -> PgTypeInfo {
            UUID
        }

        fn compatible(ty: &PgTypeInfo) -> bool {
            *ty == UUID || *ty == BYTEA
        }
    }

    impl PgHasArrayType for Flake128 {
        fn array_type_info() -> PgTypeInfo {
            UUID_ARRAY
        }

        fn array_compatible(ty: &PgTypeInfo) -> bool {
            *ty == UUID_ARRAY || *ty == BYTEA_ARRAY
        }
    }

    impl Encode<'_, Postgres> for Flake128 {
        fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
            buf.extend_from_slice(&self.to_bytes());
            Ok(IsNull::No)
        }
    }

    impl Decode<'_, Postgres> for Flake128 {
        fn decode(value: PgValueRef<'_>) -> Result<Self, BoxDynError> {
            if value.format() == PgValueFormat::Binary {
                return Ok(Flake128::from_slice(value.as_bytes()?)?);
            }
            // Text (simple queries): `bytea` as `\x…` hex, `uuid` as its
            // hyphenated hex, which is exactly the canonical text form.
            if *value.type_info() == BYTEA {
                let bytes = <Vec<u8> as Decode<'_, Postgres>>::decode(value)?;
                return Ok(Flake128::from_slice(&bytes)?);
            }
            Ok(Flake128::parse(value.as_str()?)?)
        }
    }
}

#[cfg(feature = "sqlx-mysql")]
mod mysql {
    use ::sqlx::mysql::{MySql, MySqlTypeInfo, MySqlValueRef};
    use ::sqlx::{Decode, Encode, Type};

    use super::{BoxDynError, Flake128, IsNull};

    /// `BINARY(16)` (and the other byte-string types).
    impl Type<MySql> for Flake128 {
        fn type_info() -> MySqlTypeInfo {
            <[u8] as Type<MySql>>::type_info()
        }

        fn compatible(ty: &MySqlTypeInfo) -> bool {
            <[u8] as Type<MySql>>::compatible(ty)
        }
    }

    impl Encode<'_, MySql> for Flake128 {
        fn encode_by_ref(&self, buf: &mut Vec<u8>) -> Result<IsNull, BoxDynError> {
            <&[u8] as Encode<'_, MySql>>::encode(&self.to_bytes()[..], buf)
        }
    }

    impl<'r> Decode<'r, MySql> for Flake128 {
        fn decode(value: MySqlValueRef<'r>) -> Result<Self, BoxDynError> {
            let bytes = <&[u8] as Decode<'r, MySql>>::decode(value)?;
            Ok(Flake128::from_slice(bytes)?)
        }
    }
}

#[cfg(feature = "sqlx-sqlite")]
mod sqlite {
    use ::sqlx::{Decode, Encode, Type};
    use ::sqlx_sqlite::{Sqlite, SqliteArgumentsBuffer, SqliteTypeInfo, SqliteValueRef};

    use super::{BoxDynError, Flake128, IsNull};

    /// `BLOB`.
    impl Type<Sqlite> for Flake128 {
        fn type_info() -> SqliteTypeInfo {
            <[u8] as Type<Sqlite>>::type_info()
        }

        fn compatible(ty: &SqliteTypeInfo) -> bool {
            <[u8] as Type<Sqlite>>::compatible(ty)
        }
    }

    impl Encode<'_, Sqlite> for Flake128 {
        fn encode_by_ref(&self, buf: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
            <Vec<u8> as Encode<'_, Sqlite>>::encode(self.to_bytes().to_vec(), buf)
        }
    }

    impl<'r> Decode<'r, Sqlite> for Flake128 {
        fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
            let bytes = <&[u8] as Decode<'r, Sqlite>>::decode(value)?;
            Ok(Flake128::from_slice(bytes)?)
        }
    }
}
