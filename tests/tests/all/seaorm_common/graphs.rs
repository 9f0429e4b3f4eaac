//! SeaORM 2's entity-first graphs (`ActiveModelEx`) with flake keys:
//! nested inserts, `save` of rows whose keys were assigned in memory,
//! appending to a loaded parent, many-to-many through a junction table.
//! Every test reads what the database stored with plain SQL.

use flakeid_seaorm::{Error, FlakeActiveModel, FlakeEntity};
use sea_orm::{
    ActiveModelTrait, ActiveValue, ConnectionTrait, DatabaseBackend, DatabaseConnection, DbErr,
    EntityLoaderTrait, EntityTrait, IntoActiveModel, Schema, Set, TransactionTrait,
};

use super::entities::{AuthorId, PostId, TagId, author, post, post_tag, tag};
use super::{assert_is_flake_id, init_generator, raw_all, sorted_pairs, stored_ids};

/// `authors`, `posts`, `tags` and `post_tags` as `create_table_from_entity`
/// makes them, foreign keys included.
async fn create_schema(db: &DatabaseConnection) -> Result<(), DbErr> {
    init_generator();
    let schema = Schema::new(db.get_database_backend());
    db.execute(&schema.create_table_from_entity(author::Entity))
        .await?;
    db.execute(&schema.create_table_from_entity(post::Entity))
        .await?;
    db.execute(&schema.create_table_from_entity(tag::Entity))
        .await?;
    db.execute(&schema.create_table_from_entity(post_tag::Entity))
        .await?;
    Ok(())
}

fn key<T>(v: &ActiveValue<T>) -> T
where
    T: Copy + Into<sea_orm::Value>,
{
    match v {
        ActiveValue::Set(k) | ActiveValue::Unchanged(k) => *k,
        ActiveValue::NotSet => panic!("the key is not set"),
    }
}

/// `(id, author_id)` of every post.
async fn posts(db: &DatabaseConnection) -> Vec<(i64, i64)> {
    sorted_pairs(db, "SELECT id, author_id FROM posts").await
}

/// `(post_id, tag_id)` of every link.
async fn links(db: &DatabaseConnection) -> Vec<(i64, i64)> {
    sorted_pairs(db, "SELECT post_id, tag_id FROM post_tags").await
}

fn sorted(mut pairs: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    pairs.sort_unstable();
    pairs
}

/// A new author named `name`, its key given by `assign_id`.
async fn assigned_author(name: &str) -> (author::ActiveModel, AuthorId) {
    let mut am = author::ActiveModel {
        name: Set(name.to_owned()),
        ..Default::default()
    };
    let id: AuthorId = am.assign_id().await.expect("a fresh ID");
    (am, id)
}

/// Plain SQL: `authors` holds one row, keyed `id` and named `name`.
async fn assert_the_one_author(db: &DatabaseConnection, id: AuthorId, name: &str) {
    assert_eq!(stored_ids(db, "authors").await, vec![id.get()]);
    let names = raw_all(db, "SELECT name FROM authors").await;
    assert_eq!(names[0].try_get_by_index::<String>(0).expect("name"), name);
}

/// A new author with two new posts, one of them with a new tag, keys left
/// `NotSet`: the hook assigns every key, parents before children.
pub async fn graph_nested_insert_with_keys_not_set(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let inserted = author::ActiveModel::builder()
        .set_name("Ada")
        .add_post(post::ActiveModel::builder().set_title("notes"))
        .add_post(
            post::ActiveModel::builder()
                .set_title("engine")
                .add_tag(tag::ActiveModel::builder().set_label("math")),
        )
        .insert(db)
        .await
        .expect("nested insert");

    let author = inserted.id;
    assert_eq!(stored_ids(db, "authors").await, vec![author.get()]);
    assert_is_flake_id(author.get());
    let post_ids: Vec<i64> = inserted.posts.iter().map(|p| p.id.get()).collect();
    assert_eq!(
        posts(db).await,
        sorted(post_ids.iter().map(|p| (*p, author.get())).collect())
    );
    let engine = &inserted.posts[1];
    let math = engine.tags[0].id;
    assert_is_flake_id(math.get());
    assert_eq!(stored_ids(db, "tags").await, vec![math.get()]);
    assert_eq!(links(db).await, vec![(engine.id.get(), math.get())]);
}

/// `assign_id()` then `save`: the row is inserted with that key, and a
/// second `save` of what the first returned updates it.
pub async fn save_after_assign_id_inserts_a_model(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let (am, id) = assigned_author("Grace").await;
    let mut saved = am.save(db).await.expect("save inserts");
    assert_eq!(key(&saved.id), id);
    assert_eq!(stored_ids(db, "authors").await, vec![id.get()]);

    saved.name = Set("Grace Hopper".to_owned());
    saved.save(db).await.expect("save updates");
    assert_the_one_author(db, id, "Grace Hopper").await;
}

/// A graph whose keys were all assigned in memory (so that rows can be
/// referenced before anything is written), stored with `save`.
pub async fn save_after_assign_id_inserts_a_graph(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let mut author = author::ActiveModel::builder().set_name("Edsger");
    let author_id: AuthorId = author.assign_id().await.expect("a fresh ID");
    let mut tag = tag::ActiveModel::builder().set_label("structured");
    let tag_id: TagId = tag.assign_id().await.expect("a fresh ID");
    let mut post_ids: Vec<PostId> = Vec::new();
    for title in ["goto", "shortest paths"] {
        let mut post = post::ActiveModel::builder()
            .set_title(title)
            .add_tag(tag.clone());
        post_ids.push(post.assign_id().await.expect("a fresh ID"));
        author = author.add_post(post);
    }

    let saved = author.save(db).await.expect("save inserts the graph");

    assert_eq!(key(&saved.id), author_id);
    assert_eq!(stored_ids(db, "authors").await, vec![author_id.get()]);
    assert_eq!(
        posts(db).await,
        sorted(
            post_ids
                .iter()
                .map(|p| (p.get(), author_id.get()))
                .collect()
        )
    );
    assert_eq!(stored_ids(db, "tags").await, vec![tag_id.get()]);
    assert_eq!(
        links(db).await,
        sorted(post_ids.iter().map(|p| (p.get(), tag_id.get())).collect())
    );
}

/// New posts appended to an author loaded with its posts: the loaded rows
/// stay as they are, the new ones (one key `NotSet`, one assigned) are
/// inserted under the author.
pub async fn append_to_a_loaded_parent(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let first = author::ActiveModel::builder()
        .set_name("Barbara")
        .add_post(post::ActiveModel::builder().set_title("first"))
        .insert(db)
        .await
        .expect("insert");
    let first_post = first.posts[0].id;

    let loaded = author::Entity::load()
        .filter_by_id(first.id)
        .with(post::Entity)
        .one(db)
        .await
        .expect("load")
        .expect("found");
    let mut author = loaded.into_active_model();
    let mut assigned = post::ActiveModel::builder().set_title("assigned");
    let assigned_id: PostId = assigned.assign_id().await.expect("a fresh ID");
    author.posts.push(assigned);
    author
        .posts
        .push(post::ActiveModel::builder().set_title("not set"));
    let saved = author.save(db).await.expect("save appends");

    let new_post = key(&saved.posts[2].id);
    assert_is_flake_id(new_post.get());
    assert_eq!(
        posts(db).await,
        sorted(
            [first_post, assigned_id, new_post]
                .iter()
                .map(|p| (p.get(), first.id.get()))
                .collect()
        )
    );
    assert_eq!(stored_ids(db, "authors").await, vec![first.id.get()]);
}

/// A post linked to a tag that is already stored, a new tag whose key was
/// assigned, and a new tag without a key: three rows in the junction table.
pub async fn many_to_many_through_a_junction_table(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let author = author::ActiveModel {
        name: Set("Alan".to_owned()),
        ..Default::default()
    }
    .insert(db)
    .await
    .expect("insert author");
    let stored = tag::Entity::insert_with_id(tag::ActiveModel {
        label: Set("stored".to_owned()),
        ..Default::default()
    })
    .await
    .expect("build")
    .exec(db)
    .await
    .expect("insert tag")
    .last_insert_id;
    let stored_tag = tag::Entity::find_by_id(stored)
        .one(db)
        .await
        .expect("select")
        .expect("found");
    let mut assigned = tag::ActiveModel::builder().set_label("assigned");
    let assigned_id: TagId = assigned.assign_id().await.expect("a fresh ID");

    let saved = post::ActiveModel::builder()
        .set_title("machines")
        .set_author_id(author.id)
        .add_tag(stored_tag.into_active_model())
        .add_tag(assigned)
        .add_tag(tag::ActiveModel::builder().set_label("not set"))
        .save(db)
        .await
        .expect("save links");

    let post = key(&saved.id);
    let new_tag = key(&saved.tags[2].id);
    assert_is_flake_id(new_tag.get());
    let mut tags = vec![stored.get(), assigned_id.get(), new_tag.get()];
    tags.sort_unstable();
    assert_eq!(stored_ids(db, "tags").await, tags);
    assert_eq!(
        links(db).await,
        sorted(tags.iter().map(|t| (post.get(), *t)).collect())
    );
    assert_eq!(posts(db).await, vec![(post.get(), author.id.get())]);
}

/// `save` of a key that is `Set` but was not given by `assign_id`, and
/// that no row has: the crate's error, nothing written (SeaORM alone would
/// run an `UPDATE` of nothing).
pub async fn save_of_a_set_key_no_row_has_is_refused(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let id = AuthorId::generate().expect("a fresh ID");
    let err = author::ActiveModel {
        id: Set(id),
        name: Set("nobody".to_owned()),
        ..Default::default()
    }
    .save(db)
    .await
    .expect_err("no row to update");
    match Error::find(&err) {
        Some(Error::KeyNotStored {
            id_type,
            table,
            value,
        }) => {
            assert_eq!(*id_type, "AuthorId");
            assert_eq!(table, "authors");
            assert_eq!(*value, id.get());
        }
        other => panic!("expected KeyNotStored, got {other:?} from {err}"),
    }
    assert!(err.to_string().contains("insert"), "{err}");
    assert_eq!(stored_ids(db, "authors").await, Vec::<i64>::new());
}

/// A row whose key `assign_id` gave, stored by a path that runs no hooks
/// (`Entity::insert`): a later `save` of the same model updates it.
pub async fn save_updates_a_row_stored_without_hooks(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let (mut am, id) = assigned_author("Hedy").await;
    author::Entity::insert(am.clone())
        .exec(db)
        .await
        .expect("insert without hooks");
    am.name = Set("Hedy Lamarr".to_owned());
    am.save(db).await.expect("save updates");
    assert_the_one_author(db, id, "Hedy Lamarr").await;
}

/// A row whose key `assign_id` gave, written by `insert` and by `save` in
/// transactions that roll back: nothing is stored, and a later `save` of
/// the same model inserts it (a retry after a rollback is not refused).
pub async fn save_inserts_after_a_rolled_back_transaction(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let (am, id) = assigned_author("Ada").await;
    for write in ["insert", "save"] {
        let txn = db.begin().await.expect("begin");
        if write == "insert" {
            am.clone().insert(&txn).await.expect("insert");
        } else {
            am.clone().save(&txn).await.expect("save inserts");
        }
        txn.rollback().await.expect("rollback");
        assert_eq!(
            stored_ids(db, "authors").await,
            Vec::<i64>::new(),
            "{write} rolled back"
        );
    }
    am.save(db).await.expect("save inserts after the rollbacks");
    assert_the_one_author(db, id, "Ada").await;
}

/// A graph whose keys `assign_id` gave, refused halfway (one post's key is
/// `Set` by hand and no row has it): SeaORM rolls the whole graph back.
/// Saved again with that post mended, every row is inserted.
pub async fn save_inserts_a_graph_after_its_rollback(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let mut author = author::ActiveModel::builder().set_name("Frances");
    let author_id: AuthorId = author.assign_id().await.expect("a fresh ID");
    let unknown = PostId::generate().expect("a fresh ID");
    let refused = author
        .clone()
        .add_post(
            post::ActiveModel::builder()
                .set_id(unknown)
                .set_title("by hand"),
        )
        .save(db)
        .await
        .expect_err("a post key no row has");
    assert!(
        matches!(Error::find(&refused), Some(Error::KeyNotStored { value, .. }) if *value == unknown.get()),
        "{refused}"
    );
    assert_eq!(stored_ids(db, "authors").await, Vec::<i64>::new());

    let mut post = post::ActiveModel::builder().set_title("assigned");
    let post_id: PostId = post.assign_id().await.expect("a fresh ID");
    author
        .add_post(post)
        .save(db)
        .await
        .expect("save inserts the graph after its rollback");
    assert_eq!(stored_ids(db, "authors").await, vec![author_id.get()]);
    assert_eq!(posts(db).await, vec![(post_id.get(), author_id.get())]);
}

/// An author whose pinned post is one of its posts, keys assigned first:
/// the graph is saved as it is where foreign keys can be deferred to
/// `COMMIT` (PostgreSQL, SQLite); on MySQL/MariaDB the reference is set
/// after the graph, in the same transaction.
pub async fn cyclic_references_in_a_graph(db: &DatabaseConnection) {
    init_generator();
    let backend = db.get_database_backend();
    let deferred = if backend == DatabaseBackend::MySql {
        ""
    } else {
        "DEFERRABLE INITIALLY DEFERRED"
    };
    let text = if backend == DatabaseBackend::MySql {
        "VARCHAR(100)"
    } else {
        "TEXT"
    };
    let authors = format!(
        "CREATE TABLE authors (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), name {text} NOT NULL, \
         pinned_post_id BIGINT NULL)"
    );
    let posts_table = format!(
        "CREATE TABLE posts (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), title {text} NOT NULL, \
         author_id BIGINT NOT NULL REFERENCES authors (id) {deferred})"
    );
    if backend == DatabaseBackend::Sqlite {
        // SQLite adds no constraint to an existing table: declare it inline.
        db.execute_unprepared(&authors.replace(
            "pinned_post_id BIGINT NULL",
            "pinned_post_id BIGINT NULL REFERENCES posts (id) DEFERRABLE INITIALLY DEFERRED",
        ))
        .await
        .expect("authors");
        db.execute_unprepared(&posts_table).await.expect("posts");
    } else {
        db.execute_unprepared(&authors).await.expect("authors");
        db.execute_unprepared(&posts_table).await.expect("posts");
        db.execute_unprepared(&format!(
            "ALTER TABLE authors ADD CONSTRAINT authors_pinned_fk FOREIGN KEY (pinned_post_id) \
             REFERENCES posts (id) {deferred}"
        ))
        .await
        .expect("the cycle's second foreign key");
    }

    let mut author = author::ActiveModel::builder().set_name("Margaret");
    let author_id: AuthorId = author.assign_id().await.expect("a fresh ID");
    let mut post = post::ActiveModel::builder().set_title("Apollo");
    let post_id: PostId = post.assign_id().await.expect("a fresh ID");
    let graph = author.add_post(post);
    if backend == DatabaseBackend::MySql {
        let txn = db.begin().await.expect("begin");
        graph.save(&txn).await.expect("save the graph");
        author::ActiveModel {
            id: ActiveValue::Unchanged(author_id),
            pinned_post_id: Set(Some(post_id)),
            ..Default::default()
        }
        .update(&txn)
        .await
        .expect("set the reference");
        txn.commit().await.expect("commit");
    } else {
        graph
            .set_pinned_post_id(Some(post_id))
            .save(db)
            .await
            .expect("save the cycle");
    }

    assert_eq!(
        sorted_pairs(db, "SELECT id, pinned_post_id FROM authors").await,
        vec![(author_id.get(), post_id.get())]
    );
    assert_eq!(posts(db).await, vec![(post_id.get(), author_id.get())]);
}
