//! The key of a SeaORM model that is an ID type, when `#[flake_id]` does not
//! assign it.
//!
//! A model keyed by an ID type without `#[flake_id]` (SeaORM's usual
//! `impl ActiveModelBehavior for ActiveModel {}`) does not compile: the
//! error names the fix (`ui-tests/tests/ui/seaorm/forgotten_on_model.rs`).
//! What remains possible at run time is a hook of one's own
//! (`behavior = manual`) that forgets to assign the key: its INSERT leaves
//! the key out, and every database refuses it and stores nothing. A second
//! model keyed by the same ID type (`shared_key`) gets IDs as the first does.
#![allow(unreachable_pub)] // generated entity items are `pub` inside a private test module

use flakeid_seaorm::flake_id;
use sea_orm::{ActiveModelTrait, ConnectionTrait, DatabaseConnection, Schema, Set};

use crate::seaorm_common::{assert_is_flake_id, init_generator, stored_ids};

/// Key of `accounts`, and of `account_settings`.
#[flake_id]
pub struct AccountId(i64);

/// Key of `drafts`.
#[flake_id]
pub struct DraftId(i64);

pub mod account {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "accounts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::AccountId,
        pub name: String,
    }
}

/// A second model keyed by `AccountId`: `account` marks the type.
pub mod account_settings {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id(shared_key)]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "account_settings")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::AccountId,
        pub theme: String,
    }
}

/// A hook of one's own that forgets `assign_id_before_save`.
pub mod draft {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id(behavior = manual)]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "drafts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::DraftId,
        pub body: String,
    }

    impl ActiveModelBehavior for ActiveModel {}
}

async fn create_tables(db: &DatabaseConnection) {
    init_generator();
    let schema = Schema::new(db.get_database_backend());
    for table in [
        schema.create_table_from_entity(account::Entity),
        schema.create_table_from_entity(account_settings::Entity),
        schema.create_table_from_entity(draft::Entity),
    ] {
        db.execute(&table).await.expect("create table");
    }
}

/// A hook that does not assign the key: the INSERT fails, nothing stored.
async fn hook_without_the_key_stores_nothing(db: &DatabaseConnection) {
    create_tables(db).await;
    let result = draft::ActiveModel {
        body: Set("no key".to_owned()),
        ..Default::default()
    }
    .insert(db)
    .await;
    assert!(result.is_err(), "an INSERT without a key: {result:?}");
    assert_eq!(stored_ids(db, "drafts").await, Vec::<i64>::new());
}

/// Both models keyed by one ID type get flake IDs on insert.
async fn shared_key_models_get_ids(db: &DatabaseConnection) {
    create_tables(db).await;
    let account = account::ActiveModel {
        name: Set("ada".to_owned()),
        ..Default::default()
    }
    .insert(db)
    .await
    .expect("insert an account");
    let settings = account_settings::ActiveModel {
        theme: Set("dark".to_owned()),
        ..Default::default()
    }
    .insert(db)
    .await
    .expect("insert settings");
    assert_is_flake_id(account.id.get());
    assert_is_flake_id(settings.id.get());
    assert_eq!(stored_ids(db, "accounts").await, vec![account.id.get()]);
    assert_eq!(
        stored_ids(db, "account_settings").await,
        vec![settings.id.get()]
    );
}

macro_rules! on_each_database {
    ($($db:ident),*) => {$(
        mod $db {
            seaorm_tests!(crate::seaorm_connect::$db, super;
                hook_without_the_key_stores_nothing,
                shared_key_models_get_ids,
            );
        }
    )*};
}

on_each_database!(sqlite, postgres, mysql);
