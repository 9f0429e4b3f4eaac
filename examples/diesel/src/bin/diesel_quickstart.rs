//! Diesel quickstart on embedded SQLite: two related tables whose keys the
//! application assigns, created by embedded migrations, written, read back
//! and printed as JSON.
//!
//! ```text
//! cargo run -p flakeid-examples-diesel --bin diesel_quickstart
//! ```

use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use flakeid_diesel::flake_id;
use flakeid_diesel::flakeid_core::layout::presets;
use flakeid_diesel::flakeid_core::{Generator, global};

/// Key of `authors`.
#[flake_id]
pub struct AuthorId(i64);

/// Key of `posts`.
#[flake_id]
pub struct PostId(i64);

// What `diesel print-schema` writes for the migration.
diesel::table! {
    authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        title -> Text,
    }
}

diesel::joinable!(posts -> authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(authors, posts);

/// `#[flake_id]` checks that the key is an ID type; the key is set where the
/// row is built (`id: AuthorId::generate()?`).
#[flake_id]
#[derive(Queryable, Selectable, Insertable, Identifiable, Debug, serde::Serialize)]
#[diesel(table_name = authors)]
pub struct Author {
    pub id: AuthorId,
    pub name: String,
}

#[flake_id]
#[derive(
    Queryable, Selectable, Insertable, Identifiable, Associations, Debug, serde::Serialize,
)]
#[diesel(table_name = posts, belongs_to(Author))]
pub struct Post {
    pub id: PostId,
    pub author_id: AuthorId,
    pub title: String,
}

/// The SQL files under `examples/diesel/migrations/`, compiled into the binary.
const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The default generator: Twitter's layout, node 1. Every process writing
    // to the same tables needs its own node ID.
    global::init(Generator::builder(presets::twitter(), 1))?;

    let mut conn = SqliteConnection::establish(":memory:")?;
    conn.run_pending_migrations(MIGRATIONS)?;

    // The key is known before the INSERT: no RETURNING, no re-read.
    let ada = Author {
        id: AuthorId::generate()?,
        name: "Ada".to_owned(),
    };
    diesel::insert_into(authors::table)
        .values(&ada)
        .execute(&mut conn)?;

    // Many rows: their IDs reserved in one step, one contiguous run, so the
    // batch lands at the right edge of the key's index.
    let titles = ["Notes on the Analytical Engine", "Sketch of the Engine"];
    let posts: Vec<Post> = PostId::generate_many(titles.len())?
        .into_iter()
        .zip(titles)
        .map(|(id, title)| Post {
            id,
            author_id: ada.id,
            title: title.to_owned(),
        })
        .collect();
    diesel::insert_into(posts::table)
        .values(&posts)
        .execute(&mut conn)?;

    let author: Author = authors::table
        .find(ada.id)
        .select(Author::as_select())
        .first(&mut conn)?;
    let posts: Vec<Post> = Post::belonging_to(&author)
        .order(posts::id)
        .select(Post::as_select())
        .load(&mut conn)?;

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
