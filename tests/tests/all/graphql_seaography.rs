//! A seaography schema over entities with flake keys, set up by
//! `flakeid_seaorm::seaography::builder`, served by axum from PostgreSQL and
//! SQLite and read by a JavaScript client (node,
//! `tests/js/seaography_client.js`) with keys above 2^53: outputs, every
//! filter of an ID column, a relation in both directions, create (keys from
//! the model's hook) and update, cursor pagination, and bad IDs refused
//! with GraphQL errors naming the value. What the database stored is read
//! with plain SQL.
// SeaORM's derives need the ID types of a model's fields public.
#![allow(unreachable_pub)]

use flakeid_core::FlakeId;
use flakeid_seaorm::flake_id;
use sea_orm::{ConnectionTrait, DatabaseConnection, Schema, Statement};
use seaography::BuilderContext;
use seaography::async_graphql::dynamic;

use crate::graphql::run_client;
use crate::seaorm_connect;
use crate::support::init_generator;

/// The key of `sg_authors` (Twitter's layout: generated keys are far above 2^53).
#[flake_id]
pub struct SgAuthorId(i64);

/// The key of `sg_posts`.
#[flake_id]
pub struct SgPostId(i64);

// SeaORM's derives emit items nothing here uses.
#[allow(dead_code)]
mod author {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "sg_authors")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::SgAuthorId,
        pub name: String,
        /// A nullable foreign key, with no relation declared.
        pub pinned_post_id: Option<super::SgPostId>,
        #[sea_orm(has_many)]
        pub posts: HasMany<super::post::Entity>,
    }
}

#[allow(dead_code)]
mod post {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "sg_posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::SgPostId,
        pub author_id: super::SgAuthorId,
        pub title: String,
        #[sea_orm(belongs_to, from = "author_id", to = "id")]
        pub author: HasOne<super::author::Entity>,
    }
}

/// The smallest integer JavaScript's `Number` cannot hold exactly.
const ABOVE_2_53: i64 = (1 << 53) + 1;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_client_reads_and_writes_exact_ids_on_postgres() {
    let (_guard, db) = seaorm_connect::postgres().await;
    javascript_client_reads_and_writes_exact_ids(db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_client_reads_and_writes_exact_ids_on_sqlite() {
    let ((), db) = seaorm_connect::sqlite().await;
    javascript_client_reads_and_writes_exact_ids(db).await;
}

/// Every ID column of the schema is its ID type's scalar: the key, the
/// foreign key and the nullable one; their filters take that scalar.
#[tokio::test]
async fn id_columns_are_their_id_types_scalars() {
    let ((), db) = seaorm_connect::sqlite().await;
    let sdl = schema(db).sdl();
    for expected in [
        "scalar SgAuthorId",
        "scalar SgPostId",
        "id: SgAuthorId!",
        "pinnedPostId: SgPostId\n",
        "authorId: SgAuthorId!",
        "id: SgPostId!",
        "id: SgAuthorIdFilterInput",
        "pinnedPostId: SgPostIdFilterInput",
        "authorId: SgAuthorIdFilterInput",
        "is_in: [SgPostId!]",
        "between: [SgAuthorId!]",
    ] {
        assert!(sdl.contains(expected), "no `{expected}` in\n{sdl}");
    }
    // No field of the entities' types and inputs is an `Int`.
    let entities = sdl
        .split("\n\n")
        .filter(|b| b.starts_with("type Sg") || b.starts_with("input Sg"));
    for block in entities {
        assert!(
            !block.contains(": Int") && !block.contains("IntegerFilterInput"),
            "an ID column as Int:\n{block}"
        );
    }
}

/// The schema of `sg_authors` and `sg_posts` on `db`.
fn schema(db: DatabaseConnection) -> dynamic::Schema {
    let mut builder = flakeid_seaorm::seaography::builder::<(author::Entity, post::Entity)>(
        BuilderContext::default(),
        db.clone(),
    );
    seaography::register_entities!(builder, [author, post]);
    builder
        .schema_builder()
        .data(db)
        .finish()
        .expect("a valid schema")
}

/// Serves the schema, runs the client and checks what it saw against the
/// rows, read with plain SQL.
async fn javascript_client_reads_and_writes_exact_ids(db: DatabaseConnection) {
    init_generator();
    let create = Schema::new(db.get_database_backend());
    db.execute(&create.create_table_from_entity(author::Entity))
        .await
        .expect("create sg_authors");
    db.execute(&create.create_table_from_entity(post::Entity))
        .await
        .expect("create sg_posts");

    let seen = run_client(
        schema(db.clone()),
        "seaography_client.js",
        &[ABOVE_2_53.to_string()],
    )
    .await;

    // The rows the client holds after its creates and updates are the rows
    // stored, to the digit; every key is above 2^53, one the client chose.
    // (`ORDER BY` names the table's column: PostgreSQL would sort by the
    // text the `CAST` outputs, which it names `id` too.)
    let authors = rows(
        &db,
        "SELECT CAST(id AS TEXT), name, CAST(pinned_post_id AS TEXT) FROM sg_authors ORDER BY sg_authors.id",
    )
    .await;
    let posts = rows(
        &db,
        "SELECT CAST(id AS TEXT), CAST(author_id AS TEXT), title FROM sg_posts ORDER BY sg_posts.id",
    )
    .await;
    assert_eq!(authors.len(), 4, "{seen}");
    assert_eq!(posts.len(), 8, "{seen}");
    let client_authors: Vec<[Option<String>; 3]> = seen["authors"]
        .as_array()
        .expect("authors")
        .iter()
        .map(|a| [text(&a["id"]), text(&a["name"]), text(&a["pinnedPostId"])])
        .collect();
    let client_posts: Vec<[Option<String>; 3]> = seen["posts"]
        .as_array()
        .expect("posts")
        .iter()
        .map(|p| [text(&p["id"]), text(&p["authorId"]), text(&p["title"])])
        .collect();
    assert_eq!(sorted_by_key(client_authors), authors, "{seen}");
    assert_eq!(sorted_by_key(client_posts), posts, "{seen}");
    assert!(authors.iter().any(|a| a[0] == Some(ABOVE_2_53.to_string())));
    assert_eq!(
        authors.iter().filter(|a| a[2].is_some()).count(),
        2,
        "two authors pinned a post, one unpinned: {authors:?}"
    );
    for [id, ..] in authors.iter().chain(&posts) {
        let id: i64 = id.as_deref().expect("a key").parse().expect("digits");
        assert!(id > 1 << 53, "{id}");
    }

    // Cursor pagination walked every post once, in key order.
    let walked: Vec<Option<String>> = seen["walked"]
        .as_array()
        .expect("walked")
        .iter()
        .map(text)
        .collect();
    let keys: Vec<Option<String>> = posts.iter().map(|p| p[0].clone()).collect();
    assert_eq!(walked, keys, "{seen}");
    assert_eq!(seen["pages"], 3, "{seen}");

    // Each filter the client ran matched what it expected (it fails
    // otherwise); all of them ran, and none matched nothing by accident.
    let filters = seen["filters"].as_object().expect("filters");
    for name in [
        "id eq",
        "id ne",
        "id gt",
        "id gte",
        "id lt",
        "id lte",
        "id is_in",
        "id is_not_in",
        "id between",
        "id not_between",
        "authorId eq",
        "authorId ne",
        "authorId is_in",
        "authorId gt",
        "authorId lt",
        "pinnedPostId eq",
        "pinnedPostId ne",
        "pinnedPostId is_null",
        "pinnedPostId is_null false",
        "id eq, an integer literal",
        "id eq, an integer variable",
    ] {
        let matched = filters[name]
            .as_array()
            .unwrap_or_else(|| panic!("filter {name} did not run: {seen}"));
        assert!(!matched.is_empty(), "{name} matched nothing: {seen}");
    }

    // Bad IDs are GraphQL errors naming the field and the value, and
    // stored nothing.
    let errors = seen["errors"].as_object().expect("errors");
    for (input, expected) in [
        ("\"0\"", "0 is not a valid SgPostId: IDs start at 1"),
        ("\"-5\"", "\"-5\""),
        ("\"\"", "empty decimal string"),
        ("\"12abc\"", "\"12abc\""),
        ("\"+5\"", "\"+5\""),
        ("\"007\"", "\"007\""),
        (
            "\"99999999999999999999\"",
            "\"99999999999999999999\" is larger than the largest 64-bit value",
        ),
        ("1.5", "1.5"),
        ("-5", "-5 is not a valid SgPostId: IDs are positive"),
        ("0", "0 is not a valid SgPostId: IDs start at 1"),
        // serde_json reads a number beyond 64 bits as a float.
        ("99999999999999999999", "floating point `1e+20`"),
    ] {
        let message = errors[input]
            .as_str()
            .unwrap_or_else(|| panic!("no error for {input}: {seen}"));
        assert!(
            message.contains("[type conversion: SgPosts.id]"),
            "{input}: {message}"
        );
        assert!(message.contains(expected), "{input}: {message}");
    }
    for (input, expected) in [
        (
            "create",
            "[type conversion: SgPosts.authorId] 0 is not a valid SgAuthorId",
        ),
        (
            "update",
            "[type conversion: SgPosts.authorId] -1 is not a valid SgAuthorId",
        ),
        ("is_in", "[type conversion: SgPosts.id]"),
        ("between", "`between` takes two IDs, not 1"),
        ("nullable", "[type conversion: SgAuthors.pinnedPostId]"),
        // So does async-graphql's parser, in the query's text.
        ("literal", "floating point `1e+20`"),
    ] {
        let message = errors[input]
            .as_str()
            .unwrap_or_else(|| panic!("no error for {input}: {seen}"));
        assert!(message.contains(expected), "{input}: {message}");
    }
    assert!(
        errors["is_in"].as_str().is_some_and(|m| m.contains("x9")),
        "{seen}"
    );
    assert_eq!(
        rows(&db, "SELECT CAST(COUNT(*) AS TEXT) FROM sg_posts").await,
        [[Some("8".to_owned())]],
        "a refused ID stored nothing"
    );
}

/// Every row of `sql`, each column as text (or `NULL`).
async fn rows<const N: usize>(db: &DatabaseConnection, sql: &str) -> Vec<[Option<String>; N]> {
    db.query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .iter()
        .map(|row| {
            std::array::from_fn(|i| {
                row.try_get_by_index::<Option<String>>(i)
                    .unwrap_or_else(|e| panic!("{sql}, column {i}: {e}"))
            })
        })
        .collect()
}

/// A JSON string as text, `null` as `None`.
fn text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => panic!("not a string: {other}"),
    }
}

/// Rows in the order of their first column, a decimal key.
fn sorted_by_key<const N: usize>(mut rows: Vec<[Option<String>; N]>) -> Vec<[Option<String>; N]> {
    rows.sort_by_key(|row| {
        row[0]
            .as_deref()
            .and_then(|k| k.parse::<i64>().ok())
            .expect("a decimal key")
    });
    rows
}

/// The key of `sgp_writers`, prefixed: `wri_` and Crockford base32.
#[flake_id(prefix = "wri", text = crockford)]
pub struct PfxWriterId(i64);

/// The key of `sgp_notes`, prefixed: `note_` and decimal.
#[flake_id(prefix = "note")]
pub struct PfxNoteId(i64);

#[allow(dead_code)]
mod writer {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "sgp_writers")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::PfxWriterId,
        pub name: String,
        #[sea_orm(has_many)]
        pub notes: HasMany<super::note::Entity>,
    }
}

#[allow(dead_code)]
mod note {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "sgp_notes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::PfxNoteId,
        pub writer_id: super::PfxWriterId,
        pub body: String,
        #[sea_orm(belongs_to, from = "writer_id", to = "id")]
        pub writer: HasOne<super::writer::Entity>,
    }
}

/// Prefixed ID columns: the JavaScript client writes and reads `wri_…` and
/// `note_…` texts of keys above 2^53, the database stores the bare keys,
/// and another type's text, a bare key or a bare Crockford string is
/// refused naming the value, the field and the expected prefix.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_client_round_trips_prefixed_ids_and_refuses_another_types_on_sqlite() {
    init_generator();
    let ((), db) = seaorm_connect::sqlite().await;
    let create = Schema::new(db.get_database_backend());
    db.execute(&create.create_table_from_entity(writer::Entity))
        .await
        .expect("create sgp_writers");
    db.execute(&create.create_table_from_entity(note::Entity))
        .await
        .expect("create sgp_notes");
    let mut builder = flakeid_seaorm::seaography::builder::<(writer::Entity, note::Entity)>(
        BuilderContext::default(),
        db.clone(),
    );
    seaography::register_entities!(builder, [writer, note]);
    let schema = builder
        .schema_builder()
        .data(db.clone())
        .finish()
        .expect("a valid schema");
    let sdl = schema.sdl();
    assert!(
        sdl.contains("`wri_` and 13 Crockford base32 characters, which sort like the IDs"),
        "{sdl}"
    );

    let seen = run_client(schema, "seaography_prefixed_client.js", &[]).await;

    // The texts the client saw are the stored keys with their prefixes.
    let writers: Vec<String> = rows(&db, "SELECT CAST(id AS TEXT) FROM sgp_writers ORDER BY id")
        .await
        .into_iter()
        .map(|[id]| {
            let key: i64 = id.expect("a key").parse().expect("digits");
            assert!(key > 1 << 53, "{key}");
            format!(
                "wri_{}",
                PfxWriterId::try_from(key).expect("an ID").to_crockford()
            )
        })
        .collect();
    assert_eq!(seen["writers"], serde_json::json!(writers), "{seen}");
    let notes: Vec<[String; 2]> = rows(
        &db,
        "SELECT CAST(id AS TEXT), CAST(writer_id AS TEXT) FROM sgp_notes ORDER BY id",
    )
    .await
    .into_iter()
    .map(|[id, writer]| {
        let id: i64 = id.expect("a key").parse().expect("digits");
        let writer: i64 = writer.expect("a key").parse().expect("digits");
        [
            PfxNoteId::try_from(id).expect("an ID").to_string(),
            PfxWriterId::try_from(writer).expect("an ID").to_string(),
        ]
    })
    .collect();
    assert_eq!(seen["notes"], serde_json::json!(notes), "{seen}");
    assert_eq!(
        seen["filtered"]["writer"],
        serde_json::json!([notes[2][0], notes[3][0]]),
        "{seen}"
    );
    assert_eq!(
        seen["filtered"]["is_in"],
        serde_json::json!([notes[0][0], notes[3][0]]),
        "{seen}"
    );

    let errors = &seen["errors"];
    for (case, expected) in [
        (
            "note_as_writer",
            format!(
                "[type conversion: SgpNotes.writerId] \"{}\" is not a PfxWriterId: expected prefix wri_",
                notes[0][0]
            ),
        ),
        (
            "writer_as_note",
            format!(
                "[type conversion: SgpNotes.id] \"{}\" is not a PfxNoteId: expected prefix note_",
                writers[0]
            ),
        ),
        (
            "create",
            format!(
                "\"{}\" is not a PfxWriterId: expected prefix wri_",
                notes[0][0]
            ),
        ),
        (
            "bare_key",
            format!(
                "\"{}\" is not a PfxNoteId: expected prefix note_",
                &notes[0][0]["note_".len()..]
            ),
        ),
        (
            "bare_crockford",
            "is not a PfxWriterId: expected prefix wri_".to_owned(),
        ),
    ] {
        let message = errors[case]
            .as_str()
            .unwrap_or_else(|| panic!("no error for {case}: {seen}"));
        assert!(message.contains(&expected), "{case}: {message}");
    }
    assert_eq!(
        rows(&db, "SELECT CAST(COUNT(*) AS TEXT) FROM sgp_notes").await,
        [[Some("4".to_owned())]],
        "a refused ID stored nothing"
    );
}
