//! Schema, ID types and models shared by the Diesel integration tests.
//!
//! `diesel_keys` (sync Diesel) and `diesel_async` include the cases in
//! `sync_cases.rs` / `async_cases.rs` once per backend.
#![allow(unreachable_pub)]

use diesel::prelude::*;
pub use flakeid_core::FlakeId;
use flakeid_diesel::flake_id;

#[flake_id]
pub struct UserId(i64);

#[flake_id]
pub struct PostId(i64);

#[flake_id]
pub struct DepartmentId(i64);

#[flake_id]
pub struct EmployeeId(i64);

#[flake_id]
pub struct ParentId(i64);

#[flake_id]
pub struct ChildId(i64);

diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    posts (id) {
        id -> BigInt,
        user_id -> BigInt,
        reviewer_id -> Nullable<BigInt>,
        title -> Text,
    }
}

diesel::table! {
    departments (id) {
        id -> BigInt,
        name -> Text,
        head_id -> Nullable<BigInt>,
    }
}

diesel::table! {
    employees (id) {
        id -> BigInt,
        department_id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    parents (id) {
        id -> BigInt,
        n -> BigInt,
    }
}

diesel::table! {
    children (id) {
        id -> BigInt,
        parent_id -> BigInt,
    }
}

diesel::joinable!(posts -> users (user_id));
diesel::joinable!(employees -> departments (department_id));
diesel::joinable!(children -> parents (parent_id));
diesel::allow_tables_to_appear_in_same_query!(
    users,
    posts,
    departments,
    employees,
    parents,
    children
);

#[flake_id]
#[derive(Queryable, Selectable, Insertable, Identifiable, AsChangeset, Debug, Clone, PartialEq)]
#[diesel(table_name = users)]
pub struct User {
    pub id: UserId,
    pub name: String,
}

/// A borrowing insertable, as Diesel code usually writes them.
#[flake_id]
#[derive(Insertable, Debug)]
#[diesel(table_name = users)]
pub struct NewUser<'a> {
    pub id: UserId,
    pub name: &'a str,
}

#[flake_id]
#[derive(
    Queryable,
    Selectable,
    Insertable,
    Identifiable,
    Associations,
    AsChangeset,
    Debug,
    Clone,
    PartialEq,
)]
#[diesel(table_name = posts, belongs_to(User))]
pub struct Post {
    pub id: PostId,
    pub user_id: UserId,
    pub reviewer_id: Option<UserId>,
    pub title: String,
}

#[flake_id]
#[derive(Queryable, Selectable, Insertable, Identifiable, Debug, Clone, PartialEq)]
#[diesel(table_name = departments)]
pub struct Department {
    pub id: DepartmentId,
    pub name: String,
    pub head_id: Option<EmployeeId>,
}

#[flake_id]
#[derive(
    Queryable, Selectable, Insertable, Identifiable, Associations, Debug, Clone, PartialEq,
)]
#[diesel(table_name = employees, belongs_to(Department))]
pub struct Employee {
    pub id: EmployeeId,
    pub department_id: DepartmentId,
    pub name: String,
}

#[flake_id]
#[derive(Queryable, Selectable, Insertable, Debug, Clone, PartialEq)]
#[diesel(table_name = parents)]
pub struct Parent {
    pub id: ParentId,
    pub n: i64,
}

#[flake_id]
#[derive(Queryable, Selectable, Insertable, Debug, Clone, PartialEq)]
#[diesel(table_name = children)]
pub struct Child {
    pub id: ChildId,
    pub parent_id: ParentId,
}

/// One `BIGINT` read with plain SQL (`SELECT .. AS v`).
#[derive(QueryableByName, Debug, PartialEq)]
pub struct Raw {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub v: i64,
}

/// Two `BIGINT`s read with plain SQL (`SELECT .. AS a, .. AS b`).
#[derive(QueryableByName, Debug, PartialEq)]
pub struct RawPair {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub a: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    pub b: Option<i64>,
}

/// Rows in a bulk test: 2 columns each, so 10 000 rows bind 20 000
/// parameters, under every backend's limit (SQLite 32 766, PostgreSQL and
/// MySQL 65 535) — one statement, no chunking.
pub const BULK_ROWS: usize = 10_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Backend {
    Postgres,
    Mysql,
    Sqlite,
}

/// The tables, in each backend's dialect. Foreign keys are table-level
/// clauses: MySQL ignores column-level `REFERENCES`. Keys carry
/// `CHECK (id > 0)`, as in the README's migration, except in `users`: the
/// tests that read invalid stored IDs put 0 and negatives there, as a table
/// made without the check (or on MySQL before 8.0.16, which ignores it) can
/// hold them.
pub fn schema(backend: Backend) -> Vec<String> {
    let (text, deferred) = match backend {
        Backend::Postgres | Backend::Sqlite => ("TEXT", " DEFERRABLE INITIALLY DEFERRED"),
        // MySQL/MariaDB check foreign keys per statement; see the cycle tests.
        Backend::Mysql => ("VARCHAR(200)", ""),
    };
    let mut ddl = vec![
        format!("CREATE TABLE users (id BIGINT NOT NULL PRIMARY KEY, name {text} NOT NULL)"),
        format!(
            "CREATE TABLE posts (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), user_id BIGINT NOT NULL, \
             reviewer_id BIGINT, title {text} NOT NULL, \
             FOREIGN KEY (user_id) REFERENCES users (id), \
             FOREIGN KEY (reviewer_id) REFERENCES users (id))"
        ),
        "CREATE TABLE parents (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), n BIGINT NOT NULL)"
            .to_owned(),
        "CREATE TABLE children (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), parent_id BIGINT NOT NULL, \
         FOREIGN KEY (parent_id) REFERENCES parents (id))"
            .to_owned(),
    ];
    match backend {
        // SQLite cannot add a constraint later: the forward reference is fine
        // there since it resolves tables when checking, not when creating.
        Backend::Sqlite => ddl.extend([
            format!(
                "CREATE TABLE departments (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), name {text} NOT NULL, \
                 head_id BIGINT, FOREIGN KEY (head_id) REFERENCES employees (id){deferred})"
            ),
            format!(
                "CREATE TABLE employees (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), department_id BIGINT NOT NULL, \
                 name {text} NOT NULL, \
                 FOREIGN KEY (department_id) REFERENCES departments (id){deferred})"
            ),
        ]),
        Backend::Postgres | Backend::Mysql => ddl.extend([
            format!(
                "CREATE TABLE departments (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), name {text} NOT NULL, \
                 head_id BIGINT)"
            ),
            format!(
                "CREATE TABLE employees (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), department_id BIGINT NOT NULL, \
                 name {text} NOT NULL, \
                 FOREIGN KEY (department_id) REFERENCES departments (id){deferred})"
            ),
            format!(
                "ALTER TABLE departments ADD CONSTRAINT departments_head_fk \
                 FOREIGN KEY (head_id) REFERENCES employees (id){deferred}"
            ),
        ]),
    }
    ddl
}

/// `n` fresh IDs from one call to the ID type's batch API (one atomic
/// reservation of the generator).
pub fn batch<I: flakeid_core::FlakeId>(n: usize) -> Vec<I> {
    I::generate_many(n).expect("the generator issues a batch")
}

/// `err` is the deserialization error of an invalid stored ID: Diesel
/// reports the field, and its `source()` is the `IdError` naming the value.
pub fn assert_invalid_id_error(err: diesel::result::Error, value: &str) {
    // What `find_id_error` finds must be the error the chain holds.
    let found = flakeid_diesel::find_id_error(&err).map(ToString::to_string);
    let diesel::result::Error::DeserializationError(e) = err else {
        panic!("expected a deserialization error for {value}, got {err:?}");
    };
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&*e);
    while let Some(current) = cause {
        if let Some(id_error) = current.downcast_ref::<flakeid_core::IdError>() {
            let message = id_error.to_string();
            assert!(message.contains(value), "{message:?} does not name {value}");
            assert_eq!(found, Some(message), "find_id_error on {e:?}");
            return;
        }
        cause = current.source();
    }
    panic!("no IdError in the chain of {e:?}");
}

/// How a test reads a stored key back: through Diesel's query builder,
/// and with plain SQL into a `QueryableByName` struct. (Diesel reports the
/// two differently: the builder's error names the field and holds the
/// `IdError` as its source, `sql_query`'s is the boxed `IdError` itself.)
#[derive(Clone, Copy, Debug)]
pub enum ReadAs {
    /// A whole `User` row (key `UserId`), and `id` into [`UserKey`].
    UserRow,
    /// The key column as `SmallId` (JavaScript-safe layout, up to
    /// 2^53 - 1), and `id` into [`SmallKey`].
    SmallId,
}

/// `SELECT id FROM users` read as a `UserId`.
#[derive(QueryableByName, Debug)]
pub struct UserKey {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    #[allow(dead_code, reason = "the tests read only keys that fail")]
    pub id: UserId,
}

/// `SELECT id FROM users` read as a `SmallId`.
#[derive(QueryableByName, Debug)]
pub struct SmallKey {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    #[allow(dead_code, reason = "the tests read only keys that fail")]
    pub id: SmallId,
}

/// Keys that are not IDs, as a table without `CHECK (id > 0)` (like
/// `users`) can hold them, how each is read, and the error that names it:
/// 0, a negative value, and a valid `BIGINT` beyond the ID type's layout.
pub fn stored_keys_that_are_not_ids() -> [(i64, ReadAs, flakeid_core::IdError); 3] {
    use flakeid_core::IdError;
    [
        (
            0,
            ReadAs::UserRow,
            IdError::Zero {
                type_name: "UserId",
            },
        ),
        (
            -42,
            ReadAs::UserRow,
            IdError::Negative {
                type_name: "UserId",
                value: -42,
            },
        ),
        (
            1 << 53,
            ReadAs::SmallId,
            IdError::TooLarge {
                type_name: "SmallId",
                value: 1 << 53,
                max: (1 << 53) - 1,
            },
        ),
    ]
}

/// `find_id_error` finds `expected` in `err`, and its message names the
/// type and the stored value.
pub fn assert_found_id_error(
    err: &diesel::result::Error,
    stored: i64,
    expected: &flakeid_core::IdError,
) {
    let found = flakeid_diesel::find_id_error(err)
        .unwrap_or_else(|| panic!("find_id_error found nothing in {err:?}"));
    assert_eq!(found, expected, "stored {stored}: {err}");
    let message = found.to_string();
    let type_name = match found {
        flakeid_core::IdError::Zero { type_name }
        | flakeid_core::IdError::Negative { type_name, .. }
        | flakeid_core::IdError::TooLarge { type_name, .. } => *type_name,
        other => panic!("unexpected IdError {other:?}"),
    };
    assert!(
        message.contains(type_name) && message.contains(&stored.to_string()),
        "{message:?} does not name {type_name} and {stored}"
    );
}

pub(crate) use crate::support::init_generator;

/// An ID type whose layout ends at 2^53 - 1.
#[flake_id(layout = flakeid_core::layout::presets::js_safe)]
pub struct SmallId(i64);

/// A fresh ID of any type, for building rows (a generator error fails the
/// test).
pub fn fresh_id<I: FlakeId>() -> I {
    I::generate().unwrap_or_else(|e| panic!("a fresh {}: {e}", I::NAME))
}
