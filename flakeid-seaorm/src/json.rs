//! Reading models from JSON with IDs as decimal strings.
//!
//! A model deriving `Serialize` writes its ID fields through the ID type's
//! serde impls, as decimal strings, so JavaScript reads IDs above 2^53
//! exactly. SeaORM's `Select::into_json()` does not go through the model:
//! it writes the raw `BIGINT` as a JSON number. Serialize models
//! (`serde_json::to_value(&model)`) instead when the JSON leaves the process.

use sea_orm::{ActiveModelTrait, ColumnTrait, DbErr, EntityTrait, IntoActiveModel, TryIntoModel};

use crate::Error;
use crate::entity::{key_column, table_name};

pub(crate) fn from_json_for_insert<A>(json: serde_json::Value) -> Result<A, DbErr>
where
    A: ActiveModelTrait + TryIntoModel<<A::Entity as EntityTrait>::Model>,
    <A::Entity as EntityTrait>::Model: IntoActiveModel<A>,
    for<'de> <A::Entity as EntityTrait>::Model: serde::Deserialize<'de> + serde::Serialize,
{
    let column = key_column::<A>()?;
    let key = column.json_key();
    let mut json = json;
    let key_missing = match &mut json {
        serde_json::Value::Object(map) => {
            let missing = map.get(key).is_none_or(serde_json::Value::is_null);
            if missing {
                map.insert(
                    key.to_owned(),
                    serde_json::Value::String(PLACEHOLDER_KEY.to_owned()),
                );
            }
            missing
        }
        _ => false,
    };
    let mut am = match A::from_json(json.clone()) {
        Ok(am) => am,
        Err(err) => return Err(name_the_field::<A>(json).unwrap_or(err)),
    };
    if key_missing {
        am.not_set(column);
    }
    Ok(am)
}

/// A placeholder that satisfies the key field's deserializer; it never
/// reaches the database because the key is unset again afterwards.
const PLACEHOLDER_KEY: &str = "1";

/// serde_json's errors do not say which field was wrong; deserializing the
/// model again while tracking the path does.
fn name_the_field<A>(json: serde_json::Value) -> Option<DbErr>
where
    A: ActiveModelTrait,
    for<'de> <A::Entity as EntityTrait>::Model: serde::Deserialize<'de>,
{
    match serde_path_to_error::deserialize::<_, <A::Entity as EntityTrait>::Model>(json) {
        Ok(_) => None,
        Err(e) => {
            let field = e.path().to_string();
            // A missing field is reported at the root; serde's message names it.
            if field == "." {
                return None;
            }
            Some(
                Error::Json {
                    table: table_name::<A>(),
                    field,
                    message: e.into_inner().to_string(),
                }
                .into(),
            )
        }
    }
}
