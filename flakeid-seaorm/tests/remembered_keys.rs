//! `save` inserts a row whose key `assign_id` gave while the process
//! remembers the key: the last `REMEMBERED_KEYS` keys it gave, the oldest
//! forgotten first. A forgotten key's `save` is refused with
//! `Error::KeyNotStored` (nothing written); its `insert` still works. Alone
//! in its test binary: the keys are remembered process-wide.
#![allow(unreachable_pub)] // generated entity items are `pub` inside private modules

use flakeid_seaorm::flakeid_core::layout::presets;
use flakeid_seaorm::flakeid_core::{Generator, global};
use flakeid_seaorm::{Error, FlakeActiveModel, REMEMBERED_KEYS, flake_id};
use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, DbBackend, Schema, Set, Statement};

#[flake_id]
pub struct NoteId(i64);

mod note {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "notes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::NoteId,
        pub body: String,
    }
}

fn note(body: &str) -> note::ActiveModel {
    note::ActiveModel {
        body: Set(body.to_owned()),
        ..Default::default()
    }
}

#[tokio::test]
async fn the_oldest_remembered_key_is_forgotten_first() -> Result<(), Box<dyn std::error::Error>> {
    global::init(Generator::builder(presets::twitter(), 3))?;
    let db = Database::connect("sqlite::memory:").await?;
    db.execute(&Schema::new(DbBackend::Sqlite).create_table_from_entity(note::Entity))
        .await?;

    let mut oldest = note("oldest");
    let oldest_id = oldest.assign_id().await?;
    let mut second = note("second");
    second.assign_id().await?;
    // One key more than the limit after `oldest`: it is forgotten, `second` is not.
    for _ in 1..REMEMBERED_KEYS {
        note("dropped unsaved").assign_id().await?;
    }

    let err = oldest.clone().save(&db).await.expect_err("forgotten");
    assert!(
        matches!(Error::find(&err), Some(Error::KeyNotStored { value, .. }) if *value == oldest_id.get()),
        "{err}"
    );
    second.save(&db).await?;
    oldest.insert(&db).await?;

    let rows = db
        .query_all_raw(Statement::from_string(
            DbBackend::Sqlite,
            "SELECT body FROM notes ORDER BY id",
        ))
        .await?;
    let bodies: Vec<String> = rows
        .iter()
        .map(|r| r.try_get_by_index(0))
        .collect::<Result<_, _>>()?;
    assert_eq!(bodies, ["oldest", "second"]);
    Ok(())
}
