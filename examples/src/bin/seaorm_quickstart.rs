//! SeaORM quickstart on embedded SQLite: two related entities whose keys
//! the application assigns, written, read back and printed as JSON.
//!
//! ```text
//! cargo run -p flakeid-examples --bin seaorm_quickstart
//! ```

use flakeid_seaorm::flakeid_core::layout::presets;
use flakeid_seaorm::flakeid_core::{Generator, global};
use flakeid_seaorm::{FlakeEntity, flake_id};
use sea_orm::{
    ActiveModelTrait, ConnectionTrait, Database, DbErr, EntityTrait, ModelTrait, QueryOrder,
    Schema, Set,
};

/// Key of `authors`.
#[flake_id]
pub struct AuthorId(i64);

/// Key of `posts`.
#[flake_id]
pub struct PostId(i64);

pub mod author {
    use sea_orm::entity::prelude::*;

    // `#[flake_id]` goes above `#[sea_orm::model]`: it makes the key
    // application-assigned and writes `ActiveModelBehavior` for you.
    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
    #[sea_orm(table_name = "authors")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::AuthorId,
        pub name: String,
        #[sea_orm(has_many)]
        #[serde(skip)]
        pub posts: HasMany<super::post::Entity>,
    }
}

pub mod post {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::PostId,
        pub author_id: super::AuthorId,
        pub title: String,
        #[sea_orm(belongs_to, from = "author_id", to = "id")]
        #[serde(skip)]
        pub author: HasOne<super::author::Entity>,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The default generator: Twitter's layout, node 1. Every process writing
    // to the same tables needs its own node ID.
    global::init(Generator::builder(presets::twitter(), 1))?;

    let db = Database::connect("sqlite::memory:").await?;
    let schema = Schema::new(db.get_database_backend());
    db.execute(&schema.create_table_from_entity(author::Entity))
        .await?;
    db.execute(&schema.create_table_from_entity(post::Entity))
        .await?;

    // No ID given: `insert` assigns one before the INSERT.
    let ada = author::ActiveModel {
        name: Set("Ada".to_owned()),
        ..Default::default()
    }
    .insert(&db)
    .await?;

    // `insert_many` runs no hooks: `insert_many_with_ids` assigns the keys.
    let titles = ["Notes on the Analytical Engine", "Sketch of the Engine"];
    post::Entity::insert_many_with_ids(titles.iter().map(|title| post::ActiveModel {
        author_id: Set(ada.id),
        title: Set((*title).to_owned()),
        ..Default::default()
    }))
    .await?
    .exec(&db)
    .await?;

    let author = author::Entity::find_by_id(ada.id)
        .one(&db)
        .await?
        .ok_or(DbErr::RecordNotFound("author".into()))?;
    let posts = author
        .find_related(post::Entity)
        .order_by_asc(post::Column::Id)
        .all(&db)
        .await?;

    // e.g. `7301…5 (2025-06-01T12:00:00.123Z, tick …, datacenter 0, worker 1, sequence 0)`.
    let decoded = author.id.decode();
    println!("author {} ({})", author.id, author.name);
    println!("  decoded: {decoded}");
    for post in &posts {
        println!("  post {} \"{}\"", post.id, post.title);
    }
    // IDs are JSON strings: JavaScript would round numbers above 2^53.
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::json!({ "author": author, "posts": posts }))?
    );
    Ok(())
}
