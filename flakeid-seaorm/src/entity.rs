//! What the key assignment reads from an entity: its one key column and
//! its table's name.

use sea_orm::{ActiveModelTrait, DbErr, EntityName, EntityTrait, Iterable, PrimaryKeyToColumn};

use crate::Error;

/// The single key column of `A`'s entity.
pub(crate) fn key_column<A: ActiveModelTrait>() -> Result<<A::Entity as EntityTrait>::Column, DbErr>
{
    let mut keys = <A::Entity as EntityTrait>::PrimaryKey::iter();
    match (keys.next(), keys.next()) {
        (Some(key), None) => Ok(key.into_column()),
        _ => Err(Error::NotSingleKey {
            table: table_name::<A>(),
        }
        .into()),
    }
}

/// The entity's table, for errors.
pub(crate) fn table_name<A: ActiveModelTrait>() -> String {
    A::Entity::default().table_name().to_owned()
}
