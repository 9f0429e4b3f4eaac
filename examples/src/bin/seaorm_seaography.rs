//! Seaography on embedded SQLite: the quickstart's authors and posts as a
//! GraphQL schema in which keys and foreign keys are strings in their ID
//! types' scalars. Runs a few operations and prints the answers.
//!
//! ```text
//! cargo run -p flakeid-examples --bin seaorm_seaography
//! ```

use flakeid_seaorm::flake_id;
use flakeid_seaorm::flakeid_core::layout::presets;
use flakeid_seaorm::flakeid_core::{Generator, global};
use sea_orm::{ConnectionTrait, Database, Schema};
use seaography::BuilderContext;
use seaography::async_graphql::dynamic;

/// Key of `authors`.
#[flake_id]
pub struct AuthorId(i64);

/// Key of `posts`.
#[flake_id]
pub struct PostId(i64);

pub mod author {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "authors")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::AuthorId,
        pub name: String,
        #[sea_orm(has_many)]
        pub posts: HasMany<super::post::Entity>,
    }
}

pub mod post {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::PostId,
        pub author_id: super::AuthorId,
        pub title: String,
        #[sea_orm(belongs_to, from = "author_id", to = "id")]
        pub author: HasOne<super::author::Entity>,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    global::init(Generator::builder(presets::twitter(), 1))?;
    let db = Database::connect("sqlite::memory:").await?;
    let tables = Schema::new(db.get_database_backend());
    db.execute(&tables.create_table_from_entity(author::Entity))
        .await?;
    db.execute(&tables.create_table_from_entity(post::Entity))
        .await?;

    // Where seaography's own setup calls `Builder::new(&CONTEXT, db)`.
    let mut builder = flakeid_seaorm::seaography::builder::<(author::Entity, post::Entity)>(
        BuilderContext::default(),
        db.clone(),
    );
    seaography::register_entities!(builder, [author, post]);
    let schema = builder.schema_builder().data(db).finish()?;

    // The entities' objects and an ID type's filter, as the schema declares them.
    let sdl = schema.sdl();
    for block in sdl.split("\n\n") {
        if [
            "type Authors {",
            "type Posts {",
            "input AuthorIdFilterInput {",
        ]
        .iter()
        .any(|start| block.starts_with(start))
        {
            println!("{block}\n");
        }
    }

    // No key: the model's hook assigns one. Keys come back as strings.
    let ada = run(
        &schema,
        r#"mutation { authorsCreateOne(data: { name: "Ada" }) { id name } }"#,
    )
    .await?;
    let ada_id = ada["authorsCreateOne"]["id"]
        .as_str()
        .ok_or("an ID is a string")?
        .to_owned();
    for title in ["Notes on the Analytical Engine", "Sketch of the Engine"] {
        run(
            &schema,
            &format!(
                r#"mutation {{ postsCreateOne(data: {{ authorId: "{ada_id}", title: "{title}" }}) {{ id }} }}"#
            ),
        )
        .await?;
    }

    // A filter on the key, and the relation from the author to its posts
    // (seaography names it after the related entity: `post`).
    run(
        &schema,
        &format!(
            r#"{{ authors(filters: {{ id: {{ eq: "{ada_id}" }} }}) {{ nodes {{ id name post {{ nodes {{ id authorId title }} }} }} }} }}"#
        ),
    )
    .await?;

    // An ID that is not one is refused, naming the field and the value.
    let refused = schema
        .execute(r#"{ posts(filters: { authorId: { eq: "-1" } }) { nodes { id } } }"#)
        .await;
    println!("refused: {}", refused.errors[0].message);
    Ok(())
}

/// Executes `query`, prints its data as JSON and returns it.
async fn run(
    schema: &dynamic::Schema,
    query: &str,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let res = schema.execute(query).await;
    if let Some(error) = res.errors.first() {
        return Err(format!("{query}: {}", error.message).into());
    }
    let data = res.data.into_json()?;
    println!("{}", serde_json::to_string_pretty(&data)?);
    Ok(data)
}
