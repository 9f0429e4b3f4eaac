//! [`Flake128`] as a SeaORM column type and primary key (feature `sea-orm`).
//!
//! A `Flake128` is bound as a UUID value holding its 16 big-endian bytes
//! ([`Flake128::to_bytes`]), so each backend stores it in a column that
//! orders like the number, which is time order: PostgreSQL `uuid`,
//! MySQL/MariaDB `binary(16)`, SQLite a 16-byte `BLOB` (declare it `BLOB`;
//! `create_table_from_entity` writes `uuid_text`, which stores the same
//! bytes). `Option<Flake128>` is a nullable column.
//!
//! Values read back are checked: an all-zero UUID, or bytes of another
//! length, are an error naming the value, never an ID.
//!
//! The impls live here because the orphan rule allows them only in the
//! crate that owns `Flake128` or the one that owns the traits.

use sea_orm::prelude::Uuid;
use sea_orm::sea_query::{ArrayType, ColumnType, Nullable, ValueType, ValueTypeErr};
use sea_orm::{ColIdx, DbErr, QueryResult, TryFromU64, TryGetError, TryGetable, Value};

use crate::Flake128;

fn to_uuid(f: Flake128) -> Uuid {
    Uuid::from_bytes(f.to_bytes())
}

impl From<Flake128> for Value {
    fn from(f: Flake128) -> Self {
        Value::Uuid(Some(to_uuid(f)))
    }
}

impl TryGetable for Flake128 {
    fn try_get_by<I: ColIdx>(res: &QueryResult, idx: I) -> Result<Self, TryGetError> {
        let uuid = <Uuid as TryGetable>::try_get_by(res, idx)?;
        Flake128::from_bytes(uuid.into_bytes()).map_err(|e| {
            TryGetError::DbErr(DbErr::Type(format!(
                "stored value {uuid} is not a Flake128: {e}"
            )))
        })
    }
}

impl ValueType for Flake128 {
    fn try_from(v: Value) -> Result<Self, ValueTypeErr> {
        match v {
            Value::Uuid(Some(u)) => Flake128::from_bytes(u.into_bytes()).map_err(|_| ValueTypeErr),
            Value::Bytes(Some(b)) => Flake128::from_slice(&b).map_err(|_| ValueTypeErr),
            _ => Err(ValueTypeErr),
        }
    }

    fn type_name() -> String {
        "Flake128".to_owned()
    }

    fn array_type() -> ArrayType {
        ArrayType::Uuid
    }

    fn column_type() -> ColumnType {
        ColumnType::Uuid
    }
}

impl Nullable for Flake128 {
    fn null() -> Value {
        Value::Uuid(None)
    }
}

/// Only called with a key the database generated, which a `Flake128` key
/// never is: always an error.
impl TryFromU64 for Flake128 {
    fn try_from_u64(_: u64) -> Result<Self, DbErr> {
        Err(DbErr::ConvertFromU64("Flake128"))
    }
}
