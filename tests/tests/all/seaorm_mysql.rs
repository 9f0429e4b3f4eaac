//! SeaORM on the MySQL family (MariaDB here; container or
//! `FLAKEID_TEST_MYSQL_URL`), including `BIGINT UNSIGNED` keys.
#![allow(unreachable_pub)] // generated entity items are `pub` inside a private test module
use crate::{seaorm_common, seaorm_connect};

use flakeid_seaorm::{Error, flake_id};
use sea_orm::{ActiveModelTrait, ConnectionTrait, DatabaseConnection, EntityTrait, Set};

use seaorm_connect::mysql as connect;

seaorm_common_tests!(connect);

/// Key of `tags`, stored as `BIGINT UNSIGNED`.
#[flake_id]
pub struct TagId(i64);

pub mod tag {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "tags")]
    pub struct Model {
        #[sea_orm(primary_key, column_type = "BigUnsigned")]
        pub id: super::TagId,
        pub label: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
}

async fn tags_table(db: &DatabaseConnection) {
    seaorm_common::init_generator();
    db.execute_unprepared(
        "CREATE TABLE tags (id BIGINT UNSIGNED NOT NULL PRIMARY KEY CHECK (id > 0), label VARCHAR(50) NOT NULL)",
    )
    .await
    .expect("schema");
}

#[tokio::test]
async fn bigint_unsigned_key_round_trips() {
    let (_guard, db) = connect().await;
    tags_table(&db).await;
    let model = tag::ActiveModel {
        label: Set("rust".to_owned()),
        ..Default::default()
    }
    .insert(&db)
    .await
    .expect("insert");
    seaorm_common::assert_is_flake_id(model.id.get());
    let stored = seaorm_common::raw_all(&db, "SELECT CAST(id AS SIGNED) FROM tags").await;
    assert_eq!(
        stored[0].try_get_by_index::<i64>(0).expect("id"),
        model.id.get()
    );
    let read = tag::Entity::find_by_id(model.id)
        .one(&db)
        .await
        .expect("select")
        .expect("found");
    assert_eq!(read, model);
}

#[tokio::test]
async fn bigint_unsigned_above_i64_max_is_a_typed_error() {
    let (_guard, db) = connect().await;
    tags_table(&db).await;
    let err = seaorm_common::read_error::<tag::Entity>(
        &db,
        "INSERT INTO tags (id, label) VALUES (18446744073709551615, 'too big')",
        "out of range",
    )
    .await;
    match Error::find(&err) {
        Some(Error::InvalidStoredId { id_type, value, .. }) => {
            assert_eq!(*id_type, "TagId");
            assert_eq!(value, "18446744073709551615");
        }
        other => panic!("expected InvalidStoredId, got {other:?} from {err}"),
    }
}
