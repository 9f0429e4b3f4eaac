//! Keys at or below zero are refused by the database itself, on PostgreSQL,
//! MariaDB and SQLite: in tables SeaORM creates from a `#[flake_id]` model,
//! and in the example Diesel migration. MariaDB runs in non-strict mode
//! (`sql_mode = ''`), where an `INSERT` that leaves the key out would
//! otherwise store 0. Plain SQL counts what was stored.
#![allow(unreachable_pub)] // generated entity items are `pub` inside a private test module

use crate::seaorm_common::create_table;
use crate::seaorm_connect;
use crate::support::init_generator;
use flakeid_tests::flake_entity;

use sea_orm::{ConnectionTrait, DatabaseConnection, EntityTrait, QueryResult, Set, Statement};

/// Key of `notes`.
#[flakeid_seaorm::flake_id]
pub struct NoteId(i64);

flake_entity!(pub mod note = "notes", super::NoteId { pub body: String, });

/// The migration the Diesel example (and the README) shows.
const DIESEL_EXAMPLE_MIGRATION: &str = include_str!(
    "../../../examples/diesel/migrations/2024-01-01-000000_create_authors_and_posts/up.sql"
);

async fn rows(db: &DatabaseConnection, sql: &str) -> Vec<QueryResult> {
    db.query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// `SELECT COUNT(*) FROM table`, in plain SQL.
async fn count(db: &DatabaseConnection, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    rows(db, &sql).await[0]
        .try_get_by_index::<i64>(0)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Runs `sql`, which the database must refuse.
async fn assert_refused(db: &DatabaseConnection, sql: &str) {
    let result = db.execute_unprepared(sql).await;
    assert!(result.is_err(), "the database accepted {sql}: {result:?}");
}

/// Inserts into `table` by plain SQL with the key 0, then -5 (`columns`
/// given `values`): the database refuses both and stores nothing.
async fn assert_keys_at_or_below_zero_refused(
    db: &DatabaseConnection,
    table: &str,
    columns: &str,
    values: &str,
) {
    let stored = count(db, table).await;
    for bad in ["0", "-5"] {
        assert_refused(
            db,
            &format!("INSERT INTO {table} (id, {columns}) VALUES ({bad}, {values})"),
        )
        .await;
        assert_eq!(count(db, table).await, stored, "key {bad} was stored");
    }
}

async fn seaorm_created_table_refuses_keys_at_or_below_zero(db: &DatabaseConnection) {
    init_generator();
    create_table(db, note::Entity).await;

    // `Entity::insert` runs no hook: the key stays out of the INSERT.
    let keyless = note::Entity::insert(note::ActiveModel {
        body: Set("no key".to_owned()),
        ..Default::default()
    })
    .exec(db)
    .await;
    assert!(keyless.is_err(), "a key-less insert succeeded: {keyless:?}");
    assert_eq!(
        count(db, "notes").await,
        0,
        "a key-less insert stored a row"
    );
    assert_keys_at_or_below_zero_refused(db, "notes", "body", "'bad'").await;

    // An ID still goes in.
    let id = NoteId::generate().expect("a fresh ID");
    db.execute_unprepared(&format!(
        "INSERT INTO notes (id, body) VALUES ({}, 'good')",
        id.get()
    ))
    .await
    .expect("insert a flake ID");
    let stored = rows(db, "SELECT id FROM notes").await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].try_get_by_index::<i64>(0).expect("id"), id.get());
}

async fn diesel_example_migration_refuses_keys_at_or_below_zero(db: &DatabaseConnection) {
    init_generator();
    // Comment lines dropped first: they may hold a `;`.
    let sql: String = DIESEL_EXAMPLE_MIGRATION
        .lines()
        .filter(|line| !line.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    for statement in sql.split(';').filter(|s| !s.trim().is_empty()) {
        db.execute_unprepared(statement)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let author = NoteId::generate().expect("a fresh ID").get();
    db.execute_unprepared(&format!(
        "INSERT INTO authors (id, name) VALUES ({author}, 'Ada')"
    ))
    .await
    .expect("insert an author with a flake ID");

    // Each table: the key left out, then 0 and -5; the other columns valid.
    let cases = [
        ("authors", "name", "'Grace'".to_owned()),
        ("posts", "author_id, title", format!("{author}, 'Notes'")),
    ];
    for (table, columns, values) in cases {
        assert_refused(
            db,
            &format!("INSERT INTO {table} ({columns}) VALUES ({values})"),
        )
        .await;
        assert_keys_at_or_below_zero_refused(db, table, columns, &values).await;
    }
    assert_eq!(count(db, "authors").await, 1, "only Ada is stored");
    assert_eq!(count(db, "posts").await, 0, "no post is stored");
}

macro_rules! key_check_tests {
    ($($db:ident => $connect:path;)*) => {$(
        mod $db {
            use super::*;

            seaorm_tests!($connect, super;
                seaorm_created_table_refuses_keys_at_or_below_zero,
                diesel_example_migration_refuses_keys_at_or_below_zero,
            );
        }
    )*};
}

use seaorm_connect::{mysql_non_strict, postgres, sqlite};

key_check_tests! {
    on_sqlite => sqlite;
    on_postgres => postgres;
    on_mariadb_non_strict => mysql_non_strict;
}

/// Why the check matters: in non-strict mode, a table without it stores a
/// key-less insert with the key 0 (and a connection of this fixture really
/// is non-strict).
#[tokio::test]
async fn without_a_check_non_strict_mariadb_stores_a_keyless_insert_as_zero() {
    let (_guard, db) = mysql_non_strict().await;
    let mode = rows(&db, "SELECT @@SESSION.sql_mode").await[0]
        .try_get_by_index::<String>(0)
        .expect("sql_mode");
    assert_eq!(mode, "", "the session is not in non-strict mode");
    db.execute_unprepared(
        "CREATE TABLE unchecked (id BIGINT NOT NULL PRIMARY KEY, body TEXT NOT NULL)",
    )
    .await
    .expect("create unchecked");
    db.execute_unprepared("INSERT INTO unchecked (body) VALUES ('no key')")
        .await
        .expect("non-strict mode accepts a key-less insert");
    let stored = rows(&db, "SELECT id FROM unchecked").await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].try_get_by_index::<i64>(0).expect("id"), 0);
}
