//! SeaORM on SQLite (in memory).
use crate::{seaorm_common, seaorm_connect};

use seaorm_connect::sqlite as connect;

seaorm_common_tests!(connect);

/// A hand-written `INTEGER PRIMARY KEY` is an alias of SQLite's rowid, which
/// SQLite fills itself when an INSERT leaves it out: every insert path must
/// send the flake ID, so no rowid is ever stored.
#[tokio::test]
async fn integer_primary_key_table_stores_flake_ids_not_rowids() {
    use flakeid_seaorm::FlakeEntity;
    use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};
    use seaorm_common::entities::department;

    let ((), db) = connect().await;
    seaorm_common::init_generator();
    db.execute_unprepared(
        "CREATE TABLE departments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, head_id INTEGER NULL)",
    )
    .await
    .expect("schema");
    let am = |name: &str| department::ActiveModel {
        name: Set(name.to_owned()),
        head_id: Set(None),
        ..Default::default()
    };
    let mut expected = vec![am("insert").insert(&db).await.expect("insert").id.get()];
    let saved = am("save").save(&db).await.expect("save");
    expected.push(saved.id.clone().unwrap().get());
    let one = department::Entity::insert_with_id(am("insert_with_id"))
        .await
        .expect("build")
        .exec(&db)
        .await
        .expect("insert");
    expected.push(one.last_insert_id.get());
    department::Entity::insert_many_with_ids([am("many 1"), am("many 2")])
        .await
        .expect("build")
        .exec(&db)
        .await
        .expect("insert");
    let stored = seaorm_common::stored_ids(&db, "departments").await;
    assert_eq!(stored.len(), 5);
    stored
        .iter()
        .copied()
        .for_each(seaorm_common::assert_is_flake_id);
    for id in expected {
        assert!(stored.contains(&id), "{id} not stored");
    }
}
