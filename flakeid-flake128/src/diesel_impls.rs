//! [`Flake128`] as a Diesel column type (features `diesel-postgres`,
//! `diesel-mysql`, `diesel-sqlite`).
//!
//! The 16 big-endian bytes of [`Flake128::to_bytes`] are stored as they
//! are, so the database orders the column like the numbers, which is time
//! order:
//!
//! | SQL type | Diesel type | backends | feature |
//! |---|---|---|---|
//! | `uuid` | `sql_types::Uuid` | PostgreSQL | `diesel-postgres` |
//! | `bytea` | `sql_types::Binary` | PostgreSQL | `diesel-postgres` |
//! | `BINARY(16)` | `sql_types::Binary` | MySQL/MariaDB | `diesel-mysql` |
//! | `BLOB` | `sql_types::Binary` | SQLite | `diesel-sqlite` |
//!
//! `Nullable<_>` columns map to `Option<Flake128>`. A stored value that is
//! not 16 bytes, or is all zeros, fails to load with a
//! [`Flake128Error`](crate::Flake128Error) naming it.
//!
//! The impls live here because the orphan rule allows them only in the
//! crate that owns `Flake128` or the one that owns the traits.

use diesel::backend::Backend;
use diesel::deserialize::{self, FromSql, Queryable};
#[cfg(any(
    feature = "diesel-mysql",
    feature = "diesel-postgres",
    feature = "diesel-sqlite"
))]
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{Binary, SingleValue};

use crate::Flake128;

impl<ST, DB> Queryable<ST, DB> for Flake128
where
    ST: SingleValue,
    DB: Backend,
    Self: FromSql<ST, DB>,
{
    type Row = Self;

    fn build(row: Self) -> deserialize::Result<Self> {
        Ok(row)
    }
}

/// The bytes as they are, for backends that collect binds as raw bytes.
#[cfg(any(feature = "diesel-mysql", feature = "diesel-postgres"))]
fn write_bytes<DB>(f: &Flake128, out: &mut Output<'_, '_, DB>) -> serialize::Result
where
    for<'c> DB: Backend<
        BindCollector<'c> = diesel::query_builder::bind_collector::RawBytesBindCollector<DB>,
    >,
{
    std::io::Write::write_all(out, &f.to_bytes())?;
    Ok(IsNull::No)
}

/// MySQL/MariaDB `BINARY(16)`.
#[cfg(feature = "diesel-mysql")]
impl ToSql<Binary, diesel::mysql::Mysql> for Flake128 {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, diesel::mysql::Mysql>) -> serialize::Result {
        write_bytes(self, out)
    }
}

/// SQLite `BLOB`.
#[cfg(feature = "diesel-sqlite")]
impl ToSql<Binary, diesel::sqlite::Sqlite> for Flake128 {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, diesel::sqlite::Sqlite>) -> serialize::Result {
        // SQLite binds owned or borrowed bytes; the array is a temporary.
        out.set_value(self.to_bytes().to_vec());
        Ok(IsNull::No)
    }
}

impl<DB> FromSql<Binary, DB> for Flake128
where
    DB: Backend,
    Vec<u8>: FromSql<Binary, DB>,
{
    fn from_sql(bytes: DB::RawValue<'_>) -> deserialize::Result<Self> {
        let bytes = <Vec<u8> as FromSql<Binary, DB>>::from_sql(bytes)?;
        Ok(Flake128::from_slice(&bytes)?)
    }
}

#[cfg(feature = "diesel-postgres")]
mod postgres {
    use super::*;
    use diesel::pg::{Pg, PgValue};
    use diesel::sql_types::Uuid;

    /// PostgreSQL `uuid`: compared byte by byte, so ordered like the number.
    impl ToSql<Uuid, Pg> for Flake128 {
        fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
            write_bytes(self, out)
        }
    }

    /// PostgreSQL `bytea`.
    impl ToSql<Binary, Pg> for Flake128 {
        fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
            write_bytes(self, out)
        }
    }

    impl FromSql<Uuid, Pg> for Flake128 {
        fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
            Ok(Flake128::from_slice(value.as_bytes())?)
        }
    }
}
