//! The `CHECK (<key column> > 0)` that `#[flake_id]` puts on a SeaORM key
//! names the column SeaORM creates (`column_name`, `rename_all`), and a key
//! with an `extra` of its own is left as it is. The refusals themselves are
//! tested on every database in `tests/tests/all/key_check.rs` of the workspace.
#![allow(unreachable_pub)] // generated entity items are `pub` inside private modules

use flakeid_seaorm::flake_id;
use sea_orm::{ConnectionTrait, Database, DbBackend, EntityTrait, Schema};

#[flake_id]
pub struct KeyId(i64);

mod named {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "named")]
    pub struct Model {
        #[sea_orm(primary_key, column_name = "named_key")]
        pub id: super::KeyId,
    }
}

// `KeyId` keys three models here: `named` marks it, the others share it.
mod renamed {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id(shared_key)]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "renamed", rename_all = "lowercase")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub key_id: super::KeyId,
        pub some_label: String,
    }
}

mod own_extra {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id(shared_key)]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "own_extra")]
    pub struct Model {
        #[sea_orm(
            primary_key,
            column_type = "BigUnsigned",
            extra = "CHECK (id > 0 AND id <= 9223372036854775807)"
        )]
        pub id: super::KeyId,
    }
}

fn create_table<E: EntityTrait>(backend: DbBackend, entity: E) -> String {
    backend
        .build(&Schema::new(backend).create_table_from_entity(entity))
        .to_string()
}

#[test]
fn the_check_names_the_column_sea_orm_creates() {
    assert_eq!(
        create_table(DbBackend::Postgres, named::Entity),
        r#"CREATE TABLE "named" ( "named_key" bigint NOT NULL PRIMARY KEY CHECK (named_key > 0) )"#
    );
    assert_eq!(
        create_table(DbBackend::MySql, renamed::Entity),
        "CREATE TABLE `renamed` ( `keyid` bigint NOT NULL PRIMARY KEY CHECK (keyid > 0), \
         `somelabel` varchar(255) NOT NULL )"
    );
}

#[test]
fn a_key_with_its_own_extra_is_left_as_it_is() {
    assert_eq!(
        create_table(DbBackend::MySql, own_extra::Entity),
        "CREATE TABLE `own_extra` ( `id` bigint UNSIGNED NOT NULL PRIMARY KEY \
         CHECK (id > 0 AND id <= 9223372036854775807) )"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn sqlite_refuses_keys_at_or_below_zero_in_renamed_columns() {
    let db = Database::connect("sqlite::memory:")
        .await
        .expect("in-memory SQLite");
    let schema = Schema::new(DbBackend::Sqlite);
    for statement in [
        schema.create_table_from_entity(named::Entity),
        schema.create_table_from_entity(renamed::Entity),
    ] {
        db.execute(&statement).await.expect("create table");
    }
    for insert in [
        "INSERT INTO named (named_key) VALUES (0)",
        "INSERT INTO named (named_key) VALUES (-5)",
        "INSERT INTO renamed (keyid, somelabel) VALUES (0, 'zero')",
    ] {
        assert!(db.execute_unprepared(insert).await.is_err(), "{insert}");
    }
    db.execute_unprepared("INSERT INTO named (named_key) VALUES (5)")
        .await
        .expect("a positive key");
    let count = db
        .query_one_raw(sea_orm::Statement::from_string(
            DbBackend::Sqlite,
            "SELECT (SELECT COUNT(*) FROM named) + (SELECT COUNT(*) FROM renamed)",
        ))
        .await
        .expect("count")
        .expect("one row")
        .try_get_by_index::<i64>(0)
        .expect("a number");
    assert_eq!(count, 1, "only the positive key is stored");
}
