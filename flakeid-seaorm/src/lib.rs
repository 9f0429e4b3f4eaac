//! Flake IDs as first-class [SeaORM 2](https://www.sea-ql.org/SeaORM/) keys,
//! assigned by the application before the `INSERT`.
//!
//! ```
//! use flakeid_core::{global, Generator};
//! use flakeid_core::layout::presets;
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
//! global::init(Generator::builder(presets::twitter(), 1))?;
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
//!
//! // The table refuses a key that is not an ID, whoever writes it.
//! let zero = db.execute_unprepared("INSERT INTO users (id, name) VALUES (0, 'Zero')").await;
//! assert!(zero.is_err());
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
//! * adds `extra = "CHECK (<column> > 0)"` to the key, so the table that
//!   `create_table_from_entity` (or `Schema::get_column_def`) makes refuses
//!   a key that is not an ID: 0 or a negative number written by plain SQL,
//!   and the 0 MySQL/MariaDB store in non-strict mode for an `INSERT` that
//!   leaves the key out (see [Keys the database refuses](#keys-the-database-refuses));
//! * implements `ActiveModelBehavior` with a `before_save` that assigns a
//!   fresh ID on insert when the key is not set (`insert`, `save`).
//!
//! `Entity::insert` and `Entity::insert_many` run no hooks: use
//! [`FlakeEntity::insert_with_id`] / [`FlakeEntity::insert_many_with_ids`].
//! An `INSERT` that still leaves the key out fails (`NOT NULL`, or the key's
//! `CHECK` on MySQL/MariaDB in non-strict mode) rather than storing `0` or a
//! rowid as an ID.
//!
//! ## Keys the database refuses
//!
//! The key column of a table made by `create_table_from_entity` reads
//! `bigint NOT NULL PRIMARY KEY CHECK (id > 0)` (with the key's column
//! name). What that guarantees, and where it stops:
//!
//! * PostgreSQL, SQLite, MariaDB ≥ 10.2.1 and MySQL ≥ 8.0.16 enforce the
//!   check in every `sql_mode`: no row with a key ≤ 0 is stored, whichever
//!   path writes it. MySQL before 8.0.16 parses the check and ignores it;
//!   there the typed error on read ([`Error::InvalidStoredId`]) is what
//!   remains.
//! * Tables made another way do not get it: add it to hand-written or
//!   migration SQL (`id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0)`; in a
//!   sea-orm migration, `ColumnDef::check(Expr::col(..).gt(0))`), and to
//!   existing tables with `ALTER TABLE t ADD CONSTRAINT t_id_positive CHECK (id > 0)`.
//! * A `BIGINT UNSIGNED` key (`column_type = "BigUnsigned"`) gets the same
//!   check, which refuses 0; values above 2^63 − 1 fit such a column but are
//!   not IDs, and are refused only on read. Add `AND id <= 9223372036854775807`
//!   in your own `extra` to refuse them in the database too.
//! * The check only bounds the sign: a layout whose IDs end below 2^63 − 1
//!   (e.g. JavaScript-safe, 2^53 − 1) is enforced on read.
//! * The text is written unquoted, because no quoting reads the same on
//!   PostgreSQL and MySQL. A key column whose name needs quoting (anything
//!   but lowercase ASCII letters, digits and `_`, or a reserved word such
//!   as `order`) is a compile error that asks you to write the check
//!   yourself with `#[sea_orm(extra = "CHECK (...)")]`. A key that already
//!   has an `extra` is left as it is: include the check in it.
//!
//! ```
//! use flakeid_seaorm::flake_id;
//! use sea_orm::{DbBackend, Schema};
//!
//! #[flake_id]
//! pub struct TagId(i64);
//!
//! mod tag {
//!     use sea_orm::entity::prelude::*;
//!
//!     #[flakeid_seaorm::flake_id]
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "tags")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: super::TagId,
//!         pub label: String,
//!     }
//! }
//!
//! # fn main() {
//! let create = |backend: DbBackend| {
//!     backend.build(&Schema::new(backend).create_table_from_entity(tag::Entity)).to_string()
//! };
//! assert_eq!(
//!     create(DbBackend::Postgres),
//!     r#"CREATE TABLE "tags" ( "id" bigint NOT NULL PRIMARY KEY CHECK (id > 0), "label" varchar NOT NULL )"#
//! );
//! assert_eq!(
//!     create(DbBackend::MySql),
//!     "CREATE TABLE `tags` ( `id` bigint NOT NULL PRIMARY KEY CHECK (id > 0), `label` varchar(255) NOT NULL )"
//! );
//! assert_eq!(
//!     create(DbBackend::Sqlite),
//!     r#"CREATE TABLE "tags" ( "id" bigint NOT NULL PRIMARY KEY CHECK (id > 0), "label" varchar NOT NULL )"#
//! );
//! # }
//! ```
//!
//! ## Your own `ActiveModelBehavior`
//!
//! `#[flake_id(behavior = manual)]` leaves the impl to you; call
//! [`FlakeActiveModel::assign_id_before_save`] first in your `before_save`:
//!
//! ```
//! use flakeid_core::{global, Generator};
//! use flakeid_core::layout::presets;
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
//! # global::init(Generator::builder(presets::twitter(), 1))?;
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
#[cfg(feature = "lease")]
mod backend;
mod column;
mod entity;
mod error;
#[cfg(feature = "with-json")]
mod json;
#[cfg(feature = "lease")]
pub mod lease;
#[cfg(feature = "lease")]
pub mod segment;
mod time_filter;

pub use active_model::{FlakeActiveModel, FlakeEntity, KeyOf, assign_ids};
#[cfg(feature = "lease")]
pub use backend::SeaOrmExecutor;
pub use error::Error;
pub use flakeid_core;
pub use flakeid_core::FlakeId;
/// `#[flake_id]` with SeaORM's impls: ID types become column types and
/// keys, models get application-assigned keys (see the crate docs).
#[cfg(feature = "macros")]
pub use flakeid_macros::seaorm_flake_id as flake_id;
pub use time_filter::IssuedIn;

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

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
