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
//!   fresh ID on insert when the key is not set (`insert`, `save`), and
//!   makes `save` insert a row whose key [`FlakeActiveModel::assign_id`]
//!   gave in memory, where SeaORM's own `save` would `UPDATE` a row that
//!   does not exist (see [Graphs and `save`](#graphs-and-save));
//! * marks the key type as the key of a model with `#[flake_id]`
//!   ([`FlakeModelKey`]): SeaORM requires `TryFromU64` of a primary key
//!   type, and an ID type's requires this mark, so a model keyed by an ID
//!   type without the attribute is a compile error (``the trait bound
//!   `UserId: TryFromU64` is not satisfied``), not a model whose inserts
//!   leave the key to the database. A second model with
//!   the same key type takes `#[flake_id(shared_key)]`;
//! * implements [`IdColumns`] for the entity: which columns hold IDs (the
//!   key, foreign keys of an ID type, nullable ones too) and of which ID
//!   type, for integrations such as the `seaography` feature's GraphQL
//!   schemas.
//!
//! `Entity::insert` and `Entity::insert_many` run no hooks: use
//! [`FlakeEntity::insert_with_id`] / [`FlakeEntity::insert_many_with_ids`].
//! An `INSERT` that still leaves the key out fails (`NOT NULL`, or the key's
//! `CHECK` on MySQL/MariaDB in non-strict mode) rather than storing `0` or a
//! rowid as an ID.
//!
//! The hook and every helper take their IDs with `generate_async` /
//! `generate_many_async`: where the generator has to wait (a tick's sequence
//! used up, a batch's ticks, a leased node's ceiling while the lease renews
//! late), the task waits on the runtime's timer and the thread serves other
//! tasks, so the helpers are `async` (`insert_many_with_ids(models).await?`).
//! Outside a tokio runtime (SeaORM on async-std) such a wait runs on a
//! thread of its own, never on the executor's.
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
//! # Graphs and `save`
//!
//! SeaORM 2 writes an entity-first graph (an `ActiveModelEx`: a row with
//! the rows it `has_many` / `has_one`, `belongs_to`, or is linked to
//! through a junction table) in one transaction, each row before the rows
//! that reference it, setting their foreign keys from its key. With flake
//! keys every way of building one stores what it says:
//!
//! | the graph | written by | keys |
//! |---|---|---|
//! | new rows, keys `NotSet` | `insert` or `save` | each row's hook gives it a fresh ID, parents first |
//! | new rows whose keys you need first (to put them in other rows, in a response, in a cycle) | `assign_id()` on each, then `insert` or `save` | kept as assigned |
//! | new rows appended to a parent loaded with `Entity::load()…with(..)` | `save` | loaded rows are left as they are; new rows inserted (keys `NotSet` or assigned) |
//! | many-to-many: stored rows, new rows, linked through a junction table | `save` | new rows inserted, then the junction rows |
//!
//! `save` decides insert or update by the key: SeaORM inserts a row whose
//! key is `NotSet` and updates one whose key is set. The `before_save` that
//! `#[flake_id]` writes adds one case (see [`FlakeActiveModel::before_save_key`]):
//! a key that [`FlakeActiveModel::assign_id`] (or [`assign_ids`]) set in
//! this process and that no row has yet is inserted, not updated. A key
//! that is `Set` any other way and that no row has is refused with
//! [`Error::KeyNotStored`]: `save` never runs an `UPDATE` of nothing.
//!
//! Rows that reference each other in a cycle (an author's pinned post is
//! one of the author's posts) are written in one transaction with their
//! keys assigned first. PostgreSQL and SQLite check foreign keys declared
//! `DEFERRABLE INITIALLY DEFERRED` at `COMMIT`, so the graph is saved as
//! it is; MySQL and MariaDB have no deferred constraints: save the graph
//! with the reference `NULL`, then set it, in one transaction.
//!
//! ```
//! use flakeid_core::{global, Generator};
//! use flakeid_core::layout::presets;
//! use flakeid_seaorm::{flake_id, FlakeActiveModel};
//! use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, EntityLoaderTrait, EntityTrait, IntoActiveModel, Set};
//!
//! #[flake_id] pub struct AuthorId(i64);
//! #[flake_id] pub struct PostId(i64);
//! #[flake_id] pub struct TagId(i64);
//!
//! mod author {
//!     use sea_orm::entity::prelude::*;
//!
//!     #[flakeid_seaorm::flake_id]
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "authors")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: super::AuthorId,
//!         pub name: String,
//!         /// One of the author's own posts: a cycle.
//!         pub pinned_post_id: Option<super::PostId>,
//!         #[sea_orm(has_many)]
//!         pub posts: HasMany<super::post::Entity>,
//!     }
//! }
//!
//! mod post {
//!     use sea_orm::entity::prelude::*;
//!
//!     #[flakeid_seaorm::flake_id]
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "posts")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: super::PostId,
//!         pub author_id: super::AuthorId,
//!         pub title: String,
//!         #[sea_orm(belongs_to, from = "author_id", to = "id")]
//!         pub author: BelongsTo<super::author::Entity>,
//!         #[sea_orm(has_many, via = "post_tag")]
//!         pub tags: HasMany<super::tag::Entity>,
//!     }
//! }
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
//!         #[sea_orm(has_many, via = "post_tag")]
//!         pub posts: HasMany<super::post::Entity>,
//!     }
//! }
//!
//! /// The junction table: its key is two flake keys (no `#[flake_id]`).
//! mod post_tag {
//!     use sea_orm::entity::prelude::*;
//!
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "post_tags")]
//!     pub struct Model {
//!         #[sea_orm(primary_key, auto_increment = false)]
//!         pub post_id: super::PostId,
//!         #[sea_orm(primary_key, auto_increment = false)]
//!         pub tag_id: super::TagId,
//!         #[sea_orm(belongs_to, from = "post_id", to = "id")]
//!         pub post: BelongsTo<super::post::Entity>,
//!         #[sea_orm(belongs_to, from = "tag_id", to = "id")]
//!         pub tag: BelongsTo<super::tag::Entity>,
//!     }
//!
//!     impl ActiveModelBehavior for ActiveModel {}
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! global::init(Generator::builder(presets::twitter(), 1))?;
//! let db = Database::connect("sqlite::memory:").await?;
//! // The cycle's foreign keys are checked at COMMIT.
//! db.execute_unprepared(
//!     "CREATE TABLE authors (id BIGINT PRIMARY KEY CHECK (id > 0), name TEXT NOT NULL,
//!          pinned_post_id BIGINT REFERENCES posts (id) DEFERRABLE INITIALLY DEFERRED);
//!      CREATE TABLE posts (id BIGINT PRIMARY KEY CHECK (id > 0), title TEXT NOT NULL,
//!          author_id BIGINT NOT NULL REFERENCES authors (id) DEFERRABLE INITIALLY DEFERRED);
//!      CREATE TABLE tags (id BIGINT PRIMARY KEY CHECK (id > 0), label TEXT NOT NULL);
//!      CREATE TABLE post_tags (post_id BIGINT NOT NULL REFERENCES posts (id),
//!          tag_id BIGINT NOT NULL REFERENCES tags (id), PRIMARY KEY (post_id, tag_id));",
//! )
//! .await?;
//!
//! // A nested insert: every key `NotSet`, each row gets a fresh ID.
//! let ada = author::ActiveModel::builder()
//!     .set_name("Ada")
//!     .add_post(post::ActiveModel::builder().set_title("Notes").add_tag(tag::ActiveModel::builder().set_label("math")))
//!     .insert(&db)
//!     .await?;
//! assert_eq!(ada.posts[0].author_id, ada.id);
//!
//! // Keys assigned first: the author's pinned post is one of its posts.
//! let mut grace = author::ActiveModel::builder().set_name("Grace");
//! let grace_id = grace.assign_id().await?;
//! let mut compiler = post::ActiveModel::builder().set_title("Compilers");
//! let compiler_id = compiler.assign_id().await?;
//! let grace = grace.set_pinned_post_id(Some(compiler_id)).add_post(compiler).save(&db).await?;
//! let stored = author::Entity::find_by_id(grace_id).one(&db).await?.expect("inserted by save");
//! assert_eq!(stored.pinned_post_id, Some(compiler_id));
//!
//! // Append to a loaded parent, linking a stored tag and a new one.
//! let math = tag::Entity::find().one(&db).await?.expect("stored");
//! let mut loaded = author::Entity::load().filter_by_id(grace_id).with(post::Entity).one(&db).await?.expect("found").into_active_model();
//! loaded.posts.push(
//!     post::ActiveModel::builder().set_title("COBOL").add_tag(math.into_active_model()).add_tag(tag::ActiveModel::builder().set_label("business")),
//! );
//! loaded.save(&db).await?;
//! assert_eq!(post::Entity::find().all(&db).await?.len(), 3);
//! assert_eq!(post_tag::Entity::find().all(&db).await?.len(), 3);
//! # let _ = grace;
//! # Ok(())
//! # }
//! ```
//!
//! ## Your own `ActiveModelBehavior`
//!
//! `#[flake_id(behavior = manual)]` leaves the impl to you; end your
//! `before_save` with [`FlakeActiveModel::before_save_key`] (last, so that
//! a row it inserts holds your changes):
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
//!         async fn before_save<C: ConnectionTrait>(self, db: &C, insert: bool) -> Result<Self, DbErr> {
//!             // First your own logic, then the key.
//!             let mut this = self;
//!             let revision = this.revision.take().unwrap_or(0);
//!             this.revision = Set(revision + 1);
//!             flakeid_seaorm::FlakeActiveModel::before_save_key(this, db, insert).await
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
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `macros` | yes | the `#[flake_id]` attribute with SeaORM impls |
//! | `with-json` | yes | `ActiveModel::from_json` / `set_from_json` support (SeaORM's `with-json`) |
//! | `lease` | no | node IDs leased from a table in the application's database (`lease`, renewed by a tokio task), on `flakeid-lease`, re-exported as `flakeid_seaorm::flakeid_lease`; turns on `sql` |
//! | `segment` | no | Leaf-style segments from a database row (`segment`, fetched by a tokio task), on `flakeid-segment`, re-exported as `flakeid_seaorm::flakeid_segment`; turns on `sql` |
//! | `migration` | no | migrations under a lock, so that every replica may run them at start-up (`migration`), and the tables' migrations for a `sea-orm-migration` Migrator; turns on `sql` |
//! | `flake128` | no | `Flake128` as a SeaORM column and key, from `flakeid-flake128`, re-exported as `flakeid_seaorm::flakeid_flake128` |
//! | `seaography` | no | [Seaography](https://www.sea-ql.org/Seaography/) schemas whose ID columns (keys and foreign keys) are strings in the ID type's scalar (`seaography::builder`, see [`IdColumns`]); flakeid-core's `async-graphql` |
//! | `sql` | no | flakeid's SQL run on SeaORM connections (`SeaOrmExecutor`), on `flakeid-sql`, re-exported as `flakeid_seaorm::flakeid_sql`: what the features above build on |
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

// Lets `::flakeid_seaorm::…` paths generated by `#[flake_id]` resolve in this crate's own tests.
#[allow(unused_extern_crates)]
extern crate self as flakeid_seaorm;

mod active_model;
#[cfg(feature = "sql")]
mod backend;
mod column;
mod entity;
mod error;
mod id_columns;
#[cfg(feature = "with-json")]
mod json;
#[cfg(feature = "lease")]
pub mod lease;
#[cfg(feature = "migration")]
pub mod migration;
mod save;
#[cfg(feature = "seaography")]
pub mod seaography;
#[cfg(feature = "segment")]
pub mod segment;
#[cfg(any(feature = "lease", feature = "segment"))]
mod table;
mod time_filter;

pub use active_model::{FlakeActiveModel, FlakeEntity, KeyOf, assign_ids};
#[cfg(feature = "sql")]
pub use backend::SeaOrmExecutor;
pub use column::FlakeModelKey;
pub use error::Error;
pub use flakeid_core;
pub use flakeid_core::FlakeId;
#[cfg(feature = "flake128")]
pub use flakeid_flake128;
#[cfg(feature = "lease")]
pub use flakeid_lease;
/// `#[flake_id]` with SeaORM's impls: ID types become column types and
/// keys, models get application-assigned keys (see the crate docs).
#[cfg(feature = "macros")]
pub use flakeid_macros::seaorm_flake_id as flake_id;
#[cfg(feature = "segment")]
pub use flakeid_segment;
#[cfg(feature = "sql")]
pub use flakeid_sql;
pub use id_columns::{IdColumnVisitor, IdColumns};
pub use save::REMEMBERED_KEYS;
pub use time_filter::IssuedIn;

/// Items used by code that `#[flake_id]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::column::{
        array_type, column_type, null, to_value, try_from_u64, try_from_value, try_get_by,
    };
    pub use crate::id_columns::probe;
    pub use crate::impl_id;
    pub use ::async_trait;
    pub use ::flakeid_core;
    pub use ::sea_orm;

    use crate::FlakeActiveModel;
    use ::sea_orm::{ConnectionTrait, DbErr, EntityTrait, IntoActiveModel};

    /// The body of the generated `before_save`.
    pub async fn before_save<A, C>(am: A, db: &C, insert: bool) -> Result<A, DbErr>
    where
        A: FlakeActiveModel + Send,
        C: ConnectionTrait,
        <A::Entity as EntityTrait>::Model: IntoActiveModel<A>,
    {
        am.before_save_key(db, insert).await
    }
}

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
