//! Flake IDs as first-class [SeaORM 2](https://www.sea-ql.org/SeaORM/) keys,
//! assigned by the application before the `INSERT`.
//!
//! ```
//! use flakeid_core::{global, layout::presets, GeneratorBuilder};
//! use flakeid_seaorm::{flake_id, FlakeId};
//! use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, EntityTrait, Schema, Set};
//!
//! #[flake_id]
//! pub struct UserId(i64);
//!
//! mod user {
//!     use sea_orm::entity::prelude::*;
//!
//!     #[flakeid_seaorm::flake_id]
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "users")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: super::UserId,
//!         pub name: String,
//!     }
//!     // No `impl ActiveModelBehavior`: #[flake_id] writes it.
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! global::init(GeneratorBuilder::new(presets::twitter(), 1))?;
//! let db = Database::connect("sqlite::memory:").await?;
//! let schema = Schema::new(db.get_database_backend());
//! db.execute(&schema.create_table_from_entity(user::Entity)).await?;
//!
//! // No key given: a fresh ID is assigned before the INSERT.
//! let ada = user::ActiveModel { name: Set("Ada".to_owned()), ..Default::default() }
//!     .insert(&db)
//!     .await?;
//! assert!(ada.id.get() > 0);
//! assert_eq!(user::Entity::find_by_id(ada.id).one(&db).await?, Some(ada));
//! # Ok(())
//! # }
//! ```
//!
//! # What `#[flake_id]` gives an ID type
//!
//! With this crate among the dependencies, `#[flake_id] pub struct UserId(i64);`
//! also implements SeaORM's column and key traits for `UserId`: it can be a
//! primary key, a foreign key and an `Option<UserId>` foreign key, stored as
//! `BIGINT` (PostgreSQL, MySQL/MariaDB), `BIGINT UNSIGNED` (MySQL/MariaDB)
//! or `INTEGER` (SQLite). Every value read back is validated: `0`, negatives
//! and values the layout cannot hold are an [`Error::InvalidStoredId`]
//! naming the column and value.
//!
//! # What `#[flake_id]` does to a model
//!
//! Placed **above** `#[sea_orm::model]` / `#[derive(DeriveEntityModel)]`, it
//! * adds `auto_increment = false` to the key, so SeaORM sends the key and
//!   `create_table_from_entity` emits a plain `BIGINT` key (no `IDENTITY`,
//!   no `AUTO_INCREMENT`); on SQLite it also emits `bigint` instead of
//!   `integer`, so the key is not an alias of the rowid and an `INSERT`
//!   without a key fails instead of storing a rowid;
//! * implements `ActiveModelBehavior` with a `before_save` that assigns a
//!   fresh ID on insert when the key is not set (`insert`, `save`).
//!
//! `Entity::insert` and `Entity::insert_many` run no hooks: use
//! [`FlakeEntity::insert_with_id`] / [`FlakeEntity::insert_many_with_ids`].
//! An `INSERT` that still leaves the key out fails (`NOT NULL`, or
//! [`Error::DatabaseGeneratedKey`] where the database reports a generated
//! key) rather than storing `0` or a rowid as an ID.
//!
//! ## Your own `ActiveModelBehavior`
//!
//! `#[flake_id(behavior = manual)]` leaves the impl to you; call
//! [`FlakeActiveModel::assign_id_before_save`] first in your `before_save`:
//!
//! ```
//! use flakeid_core::{global, layout::presets, GeneratorBuilder};
//! use flakeid_seaorm::{flake_id, FlakeId};
//! use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, Schema, Set};
//!
//! #[flake_id]
//! pub struct NoteId(i64);
//!
//! mod note {
//!     use sea_orm::{entity::prelude::*, Set};
//!
//!     #[flakeid_seaorm::flake_id(behavior = manual)]
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "notes")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: super::NoteId,
//!         pub body: String,
//!         pub revision: i32,
//!     }
//!
//!     #[async_trait::async_trait]
//!     impl ActiveModelBehavior for ActiveModel {
//!         async fn before_save<C: ConnectionTrait>(self, _db: &C, insert: bool) -> Result<Self, DbErr> {
//!             // First the ID (on insert, when unset), then your own logic.
//!             let mut this = flakeid_seaorm::FlakeActiveModel::assign_id_before_save(self, insert)?;
//!             let revision = this.revision.take().unwrap_or(0);
//!             this.revision = Set(revision + 1);
//!             Ok(this)
//!         }
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # global::init(GeneratorBuilder::new(presets::twitter(), 1))?;
//! # let db = Database::connect("sqlite::memory:").await?;
//! # let schema = Schema::new(db.get_database_backend());
//! # db.execute(&schema.create_table_from_entity(note::Entity)).await?;
//! let note = note::ActiveModel { body: Set("hi".to_owned()), ..Default::default() }
//!     .insert(&db)
//!     .await?;
//! assert!(note.id.get() > 0); // assigned by flakeid
//! assert_eq!(note.revision, 1); // set by your hook
//! # Ok(())
//! # }
//! ```
//!
//! # JSON
//!
//! IDs serialize as decimal strings (JavaScript numbers lose integers above
//! 2^53) and deserialize from strings or integers. `Select::into_json()`
//! bypasses the model's serde and writes numbers: serialize models instead.
//! [`FlakeActiveModel::from_json_for_insert`] reads a new row from JSON
//! without a key and names the field of a bad ID.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

// Lets `::flakeid_seaorm::…` paths generated by `#[flake_id]` resolve in this crate's own tests.
#[allow(unused_extern_crates)]
extern crate self as flakeid_seaorm;

mod active_model;
mod column;
mod error;
#[cfg(feature = "with-json")]
mod json;
#[cfg(feature = "lease")]
pub mod lease;

pub use active_model::{FlakeActiveModel, FlakeEntity, KeyOf};
pub use error::Error;
pub use flakeid_core::FlakeId;
#[cfg(feature = "macros")]
pub use flakeid_core::flake_id;

/// Items used by code that `#[flake_id]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::column::{
        array_type, column_type, null, to_value, try_from_u64, try_from_value, try_get_by,
    };
    pub use crate::impl_id;
    pub use ::async_trait;
    pub use ::flakeid_core;
    pub use ::sea_orm;

    use crate::FlakeActiveModel;

    /// The body of the generated `before_save`.
    pub fn before_save<A: FlakeActiveModel>(am: A, insert: bool) -> Result<A, ::sea_orm::DbErr> {
        am.assign_id_before_save(insert)
    }
}
