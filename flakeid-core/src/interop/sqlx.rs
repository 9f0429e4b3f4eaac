//! ID types as sqlx values (features `sqlx-postgres`, `sqlx-mysql`,
//! `sqlx-sqlite`), for services that query the tables with plain sqlx.
//!
//! With a feature on, every type declared with `#[flake_id]` implements
//! `sqlx::Type`, `sqlx::Encode` and `sqlx::Decode` for that database, so it
//! binds and reads like the `i64` it is stored as — in `query`/`query_as`
//! with `bind`, `FromRow` structs and tuples, and as `Option<UserId>` for
//! nullable columns:
//!
//! | feature | database | column | also |
//! |---|---|---|---|
//! | `sqlx-postgres` | PostgreSQL | `BIGINT` | `PgHasArrayType`: a `Vec<UserId>` binds as `BIGINT[]` (`WHERE id = ANY($1)`) and reads back |
//! | `sqlx-mysql` | MySQL, MariaDB | `BIGINT`, `BIGINT UNSIGNED` | |
//! | `sqlx-sqlite` | SQLite | `INTEGER` | |
//!
//! An ID is bound as its `i64`. Every value read is checked like
//! [`FlakeId::from_i64`] (a `BIGINT UNSIGNED` value like
//! [`FlakeId::from_u64`], so a value above `i64::MAX` is "too large", not
//! negative): `0`, negatives, values above the type's largest ID and values
//! its scheme does not hold fail to decode with `sqlx::Error::ColumnDecode`
//! whose `source` is the [`IdError`](crate::IdError) naming the type and
//! the value.
//!
//! ```text
//! let row: (UserId, Option<UserId>) =
//!     sqlx::query_as("SELECT id, referrer FROM users WHERE id = $1")
//!         .bind(id)
//!         .fetch_one(&pool)
//!         .await?;
//! let users: Vec<(UserId, String)> = sqlx::query_as("SELECT id, name FROM users WHERE id = ANY($1)")
//!     .bind(vec![a, b])
//!     .fetch_all(&pool)
//!     .await?;
//! ```
//!
//! (The repository's README runs such an example on SQLite; the tests in
//! `tests/tests/all/sqlx_types.rs` run them on PostgreSQL, MariaDB and
//! SQLite.)
//!
//! `#[flake_id]` writes the impls into your crate (the orphan rule allows
//! them nowhere else), generic over the databases implementing
//! [`IdDatabase`]; generated code names sqlx through flakeid-core, so you
//! need no `use` for it. Using an ID type with a database whose feature is
//! off is a compile error: `IdDatabase` is implemented only for the
//! databases whose feature is on.

use ::sqlx::encode::IsNull;
use ::sqlx::error::BoxDynError;
use ::sqlx::{Database, Decode, Encode, Type};

use crate::FlakeId;

/// A database whose sqlx driver takes flakeid ID types: each of
/// PostgreSQL, MySQL/MariaDB and SQLite with its feature on. What the ID
/// types' `sqlx::Type`, `Encode` and `Decode` impls call; sealed.
///
/// ```
/// use flakeid_core::flake_id;
/// use flakeid_core::interop::sqlx::IdDatabase;
///
/// #[flake_id]
/// pub struct UserId(i64);
///
/// // Generic code over the databases whose feature is on: an ID binds as an `i64`.
/// fn binds_as_i64<DB: IdDatabase>() -> bool
/// where
///     i64: sqlx::Type<DB>,
/// {
///     <UserId as sqlx::Type<DB>>::type_info() == <i64 as sqlx::Type<DB>>::type_info()
/// }
/// #[cfg(feature = "sqlx-postgres")]
/// assert!(binds_as_i64::<sqlx::Postgres>());
/// #[cfg(feature = "sqlx-mysql")]
/// assert!(binds_as_i64::<sqlx::MySql>());
/// #[cfg(feature = "sqlx-sqlite")]
/// assert!(binds_as_i64::<sqlx_sqlite::Sqlite>());
/// ```
#[diagnostic::on_unimplemented(
    message = "flakeid ID types are not sqlx values of `{Self}`",
    label = "flakeid-core's feature for this database is off",
    note = "enable flakeid-core's feature for the database: `sqlx-postgres`, `sqlx-mysql` or \
            `sqlx-sqlite`"
)]
pub trait IdDatabase: Database + sealed::Sealed {
    /// The type an ID is sent as: the database's `BIGINT`.
    fn id_type_info() -> Self::TypeInfo;

    /// Whether a column of type `ty` can hold IDs.
    fn id_compatible(ty: &Self::TypeInfo) -> bool;

    /// Writes an ID (its `i64`) as a query argument.
    ///
    /// # Errors
    /// The driver's error for an `i64` (none of the three drivers has one).
    fn encode_id(id: i64, buf: &mut Self::ArgumentBuffer) -> Result<IsNull, BoxDynError>;

    /// Reads and checks an ID of type `I`.
    ///
    /// # Errors
    /// The driver's error for a value that is no integer, or the
    /// [`IdError`](crate::IdError) of a value that is not an `I`.
    fn decode_id<I: FlakeId>(value: Self::ValueRef<'_>) -> Result<I, BoxDynError>;
}

/// `IdDatabase` for a database that reads IDs as its `i64`.
#[cfg(any(feature = "sqlx-postgres", feature = "sqlx-sqlite"))]
macro_rules! signed_bigint_database {
    ($db:ty) => {
        impl sealed::Sealed for $db {}

        impl IdDatabase for $db {
            fn id_type_info() -> Self::TypeInfo {
                <i64 as Type<$db>>::type_info()
            }

            fn id_compatible(ty: &Self::TypeInfo) -> bool {
                <i64 as Type<$db>>::compatible(ty)
            }

            fn encode_id(id: i64, buf: &mut Self::ArgumentBuffer) -> Result<IsNull, BoxDynError> {
                <i64 as Encode<'_, $db>>::encode_by_ref(&id, buf)
            }

            fn decode_id<I: FlakeId>(value: Self::ValueRef<'_>) -> Result<I, BoxDynError> {
                let v = <i64 as Decode<'_, $db>>::decode(value)?;
                Ok(I::from_i64(v)?)
            }
        }
    };
}

/// `sqlx::Type`, `Encode` and `Decode` for an ID type, for every
/// [`IdDatabase`]; `#[flake_id]` calls it as `__private::impl_sqlx!(Type)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_sqlx {
    ($id:ty) => {
        impl<DB> $crate::__private::sqlx::Type<DB> for $id
        where
            DB: $crate::interop::sqlx::IdDatabase,
        {
            fn type_info() -> <DB as $crate::__private::sqlx::Database>::TypeInfo {
                <DB as $crate::interop::sqlx::IdDatabase>::id_type_info()
            }

            fn compatible(ty: &<DB as $crate::__private::sqlx::Database>::TypeInfo) -> bool {
                <DB as $crate::interop::sqlx::IdDatabase>::id_compatible(ty)
            }
        }

        impl<'q, DB> $crate::__private::sqlx::Encode<'q, DB> for $id
        where
            DB: $crate::interop::sqlx::IdDatabase,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as $crate::__private::sqlx::Database>::ArgumentBuffer,
            ) -> $crate::__private::core::result::Result<
                $crate::__private::sqlx::encode::IsNull,
                $crate::__private::sqlx::error::BoxDynError,
            > {
                <DB as $crate::interop::sqlx::IdDatabase>::encode_id(
                    <$id as $crate::FlakeId>::get(*self),
                    buf,
                )
            }
        }

        impl<'r, DB> $crate::__private::sqlx::Decode<'r, DB> for $id
        where
            DB: $crate::interop::sqlx::IdDatabase,
        {
            fn decode(
                value: <DB as $crate::__private::sqlx::Database>::ValueRef<'r>,
            ) -> $crate::__private::core::result::Result<
                Self,
                $crate::__private::sqlx::error::BoxDynError,
            > {
                <DB as $crate::interop::sqlx::IdDatabase>::decode_id(value)
            }
        }

        $crate::__private::impl_sqlx_postgres!($id);
    };
}

/// `PgHasArrayType` for an ID type: arrays of IDs are `BIGINT[]`.
#[cfg(feature = "sqlx-postgres")]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_sqlx_postgres {
    ($id:ty) => {
        impl $crate::__private::sqlx::postgres::PgHasArrayType for $id {
            fn array_type_info() -> $crate::__private::sqlx::postgres::PgTypeInfo {
                <i64 as $crate::__private::sqlx::postgres::PgHasArrayType>::array_type_info()
            }

            fn array_compatible(ty: &$crate::__private::sqlx::postgres::PgTypeInfo) -> bool {
                <i64 as $crate::__private::sqlx::postgres::PgHasArrayType>::array_compatible(ty)
            }
        }
    };
}

mod sealed {
    pub trait Sealed {}
}

#[cfg(feature = "sqlx-postgres")]
signed_bigint_database!(::sqlx::postgres::Postgres);

#[cfg(feature = "sqlx-sqlite")]
signed_bigint_database!(::sqlx_sqlite::Sqlite);

#[cfg(feature = "sqlx-mysql")]
mod mysql {
    use ::sqlx::ValueRef as _;
    use ::sqlx::mysql::{MySql, MySqlTypeInfo, MySqlValueRef};

    use super::{BoxDynError, Decode, Encode, IdDatabase, IsNull, Type, sealed};
    use crate::FlakeId;

    impl sealed::Sealed for MySql {}

    /// Signed columns are read as `i64`, `BIGINT UNSIGNED` ones as `u64`
    /// (sqlx refuses to read one as the other, and the bits of a value above
    /// `i64::MAX` read as `i64` would be a negative number).
    impl IdDatabase for MySql {
        fn id_type_info() -> MySqlTypeInfo {
            <i64 as Type<MySql>>::type_info()
        }

        fn id_compatible(ty: &MySqlTypeInfo) -> bool {
            <i64 as Type<MySql>>::compatible(ty) || <u64 as Type<MySql>>::compatible(ty)
        }

        fn encode_id(id: i64, buf: &mut Vec<u8>) -> Result<IsNull, BoxDynError> {
            <i64 as Encode<'_, MySql>>::encode_by_ref(&id, buf)
        }

        fn decode_id<I: FlakeId>(value: MySqlValueRef<'_>) -> Result<I, BoxDynError> {
            let unsigned = <u64 as Type<MySql>>::compatible(&value.type_info());
            if unsigned {
                let v = <u64 as Decode<'_, MySql>>::decode(value)?;
                Ok(I::from_u64(v)?)
            } else {
                let v = <i64 as Decode<'_, MySql>>::decode(value)?;
                Ok(I::from_i64(v)?)
            }
        }
    }
}
