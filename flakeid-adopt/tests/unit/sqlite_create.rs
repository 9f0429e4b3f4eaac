//! Unit tests of `src/sqlite_create.rs` (private items; included with
//! `#[path]` as its `tests` module).

use super::*;

fn rw(create: &str, column: &str) -> String {
    rewrite(create, column, "t").unwrap().sql
}

#[test]
fn the_key_loses_autoincrement_and_the_rowid_alias() {
    let r = rewrite(
        "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)",
        "id",
        "users",
    )
    .unwrap();
    assert!(r.autoincrement);
    assert_eq!(
        r.sql,
        "CREATE TABLE users (id BIGINT PRIMARY KEY NOT NULL CONSTRAINT \"flakeid_key_check\" \
         CHECK (\"id\" > 0), name TEXT NOT NULL)"
    );
}

#[test]
fn quoted_names_sizes_comments_and_table_keys() {
    assert_eq!(
        rw(
            "CREATE TABLE \"a b\" (\n  \"Key\" int(10) NOT NULL, -- the key\n  x TEXT,\n  PRIMARY KEY (\"Key\")\n)",
            "key"
        ),
        "CREATE TABLE \"a b\" (\n  \"Key\" BIGINT NOT NULL CONSTRAINT \"flakeid_key_check\" \
         CHECK (\"key\" > 0), -- the key\n  x TEXT,\n  PRIMARY KEY (\"Key\")\n)"
    );
    assert_eq!(
        rw("CREATE TABLE t ([id] PRIMARY KEY, v ANY) STRICT", "id"),
        "CREATE TABLE t ([id] INT PRIMARY KEY NOT NULL CONSTRAINT \"flakeid_key_check\" \
         CHECK (\"id\" > 0), v ANY) STRICT"
    );
    assert!(rewrite("CREATE TABLE t (a INTEGER)", "id", "t").is_err());
    assert!(without_rowid(
        "CREATE TABLE t (id INT PRIMARY KEY) WITHOUT ROWID"
    ));
}
