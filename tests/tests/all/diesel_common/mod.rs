//! Schema, ID types and models shared by the Diesel integration tests.
//!
//! `diesel_keys` (sync Diesel) and `diesel_async` include the cases in
//! `sync_cases.rs` / `async_cases.rs` once per backend.
#![allow(unreachable_pub)]

use diesel::prelude::*;
pub use flakeid_core::FlakeId;
use flakeid_diesel::flake_id;
use flakeid_tests::db::TestDb;

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

diesel::table! {
    unsigned_users (id) {
        id -> Unsigned<BigInt>,
        name -> Text,
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

/// MySQL only: keys in a `BIGINT UNSIGNED` column.
#[derive(Queryable, Selectable, Insertable, Debug, PartialEq)]
#[diesel(table_name = unsigned_users)]
pub struct UnsignedUser {
    pub id: UserId,
    pub name: String,
}

/// The MySQL table of [`UnsignedUser`]s.
pub const CREATE_UNSIGNED_USERS: &str = "CREATE TABLE unsigned_users (id BIGINT UNSIGNED NOT NULL PRIMARY KEY CHECK (id > 0), \
     name VARCHAR(200) NOT NULL)";

/// An [`UnsignedUser`] with a fresh ID.
pub fn unsigned_user() -> UnsignedUser {
    UnsignedUser {
        id: UserId::generate().expect("a fresh ID"),
        name: "unsigned".to_owned(),
    }
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

/// A sync Diesel connection to the fresh database `db` of `server`,
/// returned with `db`, the guard that keeps the database for the test.
pub fn connection<C: diesel::Connection>(db: TestDb, server: &str) -> (TestDb, C) {
    let conn = C::establish(db.url()).unwrap_or_else(|e| panic!("connect to {server}: {e}"));
    (db, conn)
}

/// A diesel-async connection to the fresh database `db` of `server`,
/// returned with `db`, the guard that keeps the database for the test.
pub async fn async_connection<C: diesel_async::AsyncConnection>(
    db: TestDb,
    server: &str,
) -> (TestDb, C) {
    let conn = C::establish(db.url())
        .await
        .unwrap_or_else(|e| panic!("connect to {server}: {e}"));
    (db, conn)
}

pub(crate) use crate::support::init_generator;

/// An ID type whose layout ends at 2^53 - 1.
#[flake_id(layout = flakeid_core::layout::presets::js_safe)]
pub struct SmallId(i64);

/// A user with a fresh ID.
pub fn user(name: &str) -> User {
    User {
        id: fresh_id(),
        name: name.to_owned(),
    }
}

/// A post with a fresh ID.
pub fn post(user_id: UserId, reviewer_id: Option<UserId>, title: &str) -> Post {
    Post {
        id: fresh_id(),
        user_id,
        reviewer_id,
        title: title.to_owned(),
    }
}

/// Posts of two users, with fresh IDs: `ann`'s `a1`, `ben`'s `b1`
/// (reviewed by `ann`) and `ann`'s `a2`.
pub fn three_posts(ann: &User, ben: &User) -> Vec<Post> {
    vec![
        post(ann.id, None, "a1"),
        post(ben.id, Some(ann.id), "b1"),
        post(ann.id, None, "a2"),
    ]
}

/// The department `research` with the ID `id` and the head `head_id`.
pub fn research(id: DepartmentId, head_id: Option<EmployeeId>) -> Department {
    Department {
        id,
        name: "research".to_owned(),
        head_id,
    }
}

/// A department and its head, as plain SQL reads them (`a`, `b`).
pub fn with_head(department: DepartmentId, head: EmployeeId) -> RawPair {
    RawPair {
        a: department.into(),
        b: Some(head.into()),
    }
}

/// Rows of `parents` with the IDs `ids`, in order, numbered `n` from 0.
pub fn numbered_parents(ids: impl IntoIterator<Item = ParentId>) -> Vec<Parent> {
    ids.into_iter()
        .zip(0..)
        .map(|(id, n)| Parent { id, n })
        .collect()
}

/// An employee with a fresh ID.
pub fn employee(department_id: DepartmentId, name: &str) -> Employee {
    Employee {
        id: fresh_id(),
        department_id,
        name: name.to_owned(),
    }
}

/// A fresh ID of any type, for building rows (a generator error fails the
/// test).
pub fn fresh_id<I: FlakeId>() -> I {
    I::generate().unwrap_or_else(|e| panic!("a fresh {}: {e}", I::NAME))
}

/// The cases sync Diesel and diesel-async share, written once:
/// `diesel_cases!(sync)` declares them as `#[test] fn`s and
/// `diesel_cases!(async)` as `#[tokio::test] async fn`s that await every
/// query, each under its name in the table below. Expanded in a module
/// per backend, which provides `BACKEND`, `Conn` and `connect()`.
macro_rules! diesel_cases {
    ($mode:tt) => {
        $crate::diesel_common::diesel_cases! {
            @tests $mode
            primary_key: primary_key_is_stored_as_assigned_and_found, async_primary_key_is_stored_as_assigned_and_found;
            foreign_keys: foreign_key_and_nullable_foreign_key_round_trip, async_foreign_key_and_nullable_foreign_key_round_trip;
            zero_id: zero_id_in_database_is_a_deserialization_error_naming_it, async_zero_id_in_database_is_a_deserialization_error_naming_it;
            negative_id: negative_id_in_database_is_a_deserialization_error_naming_it, async_negative_id_in_database_is_a_deserialization_error_naming_it;
            beyond_layout: id_beyond_the_layout_is_a_deserialization_error_naming_it, async_id_beyond_the_layout_is_a_deserialization_error_naming_it;
            invalid_foreign_key: invalid_nullable_foreign_key_is_a_deserialization_error, async_invalid_nullable_foreign_key_is_a_deserialization_error;
            not_ids: stored_keys_that_are_not_ids_are_found_by_find_id_error, async_stored_keys_that_are_not_ids_are_found_by_find_id_error;
        }
    };
    (@tests sync $($case:ident: $sync:ident, $async:ident;)*) => {$(
        #[test]
        fn $sync() {
            $crate::diesel_common::diesel_cases!(@$case sync []);
        }
    )*};
    (@tests async $($case:ident: $sync:ident, $async:ident;)*) => {$(
        #[tokio::test]
        async fn $async() {
            $crate::diesel_common::diesel_cases!(@$case async [.await]);
        }
    )*};
    // What only sync Diesel checks (written before the async cases were).
    (@sync_only sync $($check:tt)*) => {
        $($check)*
    };
    (@sync_only async $($check:tt)*) => {};

    // Connects (the guard kept to the end of the test) and inserts a user
    // named `$name` through Diesel.
    (@connect_with_user [$($aw:tt)*] $conn:ident, $user:ident = $name:literal) => {
        let (_db, mut $conn) = connect() $($aw)*;
        let $user = user($name);
        diesel::insert_into(users::table)
            .values(&$user)
            .execute(&mut $conn)
            $($aw)*
            .expect("insert");
    };
    (@primary_key $mode:tt [$($aw:tt)*]) => {
        $crate::diesel_common::diesel_cases!(@connect_with_user [$($aw)*] conn, user = "alice");

        let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
            .load(&mut conn)
            $($aw)*
            .expect("plain select");
        assert_eq!(stored, vec![Raw { v: user.id.into() }]);
        let found = users::table
            .find(user.id)
            .select(User::as_select())
            .first(&mut conn)
            $($aw)*
            .expect("find by id");
        assert_eq!(found, user);
    };
    (@foreign_keys $mode:tt [$($aw:tt)*]) => {
        let (_db, mut conn) = connect() $($aw)*;
        let author = user("author");
        let reviewer = user("reviewer");
        diesel::insert_into(users::table)
            .values(&vec![author.clone(), reviewer.clone()])
            .execute(&mut conn)
            $($aw)*
            .expect("insert users");
        let reviewed = post(author.id, Some(reviewer.id), "reviewed");
        let draft = post(author.id, None, "draft");
        diesel::insert_into(posts::table)
            .values(&vec![reviewed.clone(), draft.clone()])
            .execute(&mut conn)
            $($aw)*
            .expect("insert posts");

        let stored: Vec<RawPair> =
            diesel::sql_query("SELECT user_id AS a, reviewer_id AS b FROM posts ORDER BY title")
                .load(&mut conn)
                $($aw)*
                .expect("plain select");
        assert_eq!(
            stored,
            vec![
                RawPair {
                    a: author.id.into(),
                    b: None
                },
                RawPair {
                    a: author.id.into(),
                    b: Some(reviewer.id.into())
                },
            ]
        );
        let loaded: Vec<Post> = posts::table
            .order(posts::title)
            .select(Post::as_select())
            .load(&mut conn)
            $($aw)*
            .expect("load posts");
        assert_eq!(loaded, vec![draft, reviewed.clone()]);
        $crate::diesel_common::diesel_cases! {
            @sync_only $mode
            let by_reviewer: Vec<PostId> = posts::table
                .filter(posts::reviewer_id.eq(reviewer.id))
                .select(posts::id)
                .load(&mut conn)
                .expect("filter on nullable foreign key");
            assert_eq!(by_reviewer, vec![reviewed.id]);
        }
    };
    // A key stored with plain SQL as `$value` (in a row named `$name`) that
    // is not an ID of the type `$read` reads it as: the read is a
    // deserialization error naming the value.
    (@stored_not_an_id [$($aw:tt)*] $conn:ident, $value:literal, $name:literal, {$($read:tt)*}, $why:literal) => {
        diesel::sql_query(concat!("INSERT INTO users (id, name) VALUES (", $value, ", '", $name, "')"))
            .execute(&mut $conn)
            $($aw)*
            .expect("plain insert");
        let err = users::table
            $($read)*(&mut $conn)
            $($aw)*
            .expect_err($why);
        assert_invalid_id_error(err, $value);
    };
    (@zero_id $mode:tt [$($aw:tt)*]) => {
        let (_db, mut conn) = connect() $($aw)*;
        $crate::diesel_common::diesel_cases!(
            @stored_not_an_id [$($aw)*] conn, "0", "zero", {.select(User::as_select()).load}, "0 is not an ID"
        );
    };
    (@negative_id $mode:tt [$($aw:tt)*]) => {
        let (_db, mut conn) = connect() $($aw)*;
        $crate::diesel_common::diesel_cases!(
            @stored_not_an_id [$($aw)*] conn, "-42", "negative", {.select(users::id).load::<UserId>}, "-42 is not an ID"
        );
    };
    (@beyond_layout $mode:tt [$($aw:tt)*]) => {
        let (_db, mut conn) = connect() $($aw)*;
        // 2^53: a valid BIGINT, one above the JavaScript-safe layout's largest ID.
        $crate::diesel_common::diesel_cases!(
            @stored_not_an_id [$($aw)*] conn, "9007199254740992", "big",
            {.select(users::id).load::<SmallId>}, "2^53 is beyond the layout"
        );
        $crate::diesel_common::diesel_cases! {
            @sync_only $mode
            // The same value is a valid ID for the 63-bit layout.
            let ids: Vec<UserId> = users::table
                .select(users::id)
                .load(&mut conn)
                .expect("valid for UserId");
            assert_eq!(ids.len(), 1);
        }
    };
    (@invalid_foreign_key $mode:tt [$($aw:tt)*]) => {
        $crate::diesel_common::diesel_cases!(@connect_with_user [$($aw)*] conn, user = "u");
        // The referenced row exists, so only the ID check can reject -7.
        diesel::sql_query("INSERT INTO users (id, name) VALUES (-7, 'bad')")
            .execute(&mut conn)
            $($aw)*
            .expect("plain insert user");
        diesel::sql_query(format!(
            "INSERT INTO posts (id, user_id, reviewer_id, title) VALUES (1, {}, -7, 't')",
            i64::from(user.id)
        ))
        .execute(&mut conn)
        $($aw)*
        .expect("plain insert post");
        let err = posts::table
            .select(posts::reviewer_id)
            .load::<Option<UserId>>(&mut conn)
            $($aw)*
            .expect_err("-7 is not an ID");
        assert_invalid_id_error(err, "-7");
    };
    // Keys stored by other means that are not IDs (0, negative, beyond the
    // layout) fail the read with an error in which `find_id_error` finds
    // the `IdError` naming the type and the value.
    (@not_ids $mode:tt [$($aw:tt)*]) => {
        let (_db, mut conn) = connect() $($aw)*;
        for (stored, read_as, expected) in stored_keys_that_are_not_ids() {
            diesel::sql_query(format!(
                "INSERT INTO users (id, name) VALUES ({stored}, 'not an ID')"
            ))
            .execute(&mut conn)
            $($aw)*
            .expect("plain insert");
            let in_table: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
                .load(&mut conn)
                $($aw)*
                .expect("plain select");
            assert_eq!(
                in_table,
                vec![Raw { v: stored }],
                "the database keeps {stored}"
            );

            let reads = match read_as {
                ReadAs::UserRow => [
                    users::table
                        .select(User::as_select())
                        .load(&mut conn)
                        $($aw)*
                        .map(drop),
                    diesel::sql_query("SELECT id FROM users")
                        .load::<UserKey>(&mut conn)
                        $($aw)*
                        .map(drop),
                ],
                ReadAs::SmallId => [
                    users::table
                        .select(users::id)
                        .load::<SmallId>(&mut conn)
                        $($aw)*
                        .map(drop),
                    diesel::sql_query("SELECT id FROM users")
                        .load::<SmallKey>(&mut conn)
                        $($aw)*
                        .map(drop),
                ],
            };
            for read in reads {
                let err = read.expect_err("a key that is not an ID is not read as one");
                assert_found_id_error(&err, stored, &expected);
            }

            diesel::sql_query("DELETE FROM users")
                .execute(&mut conn)
                $($aw)*
                .expect("plain delete");
        }
    };
}
pub(crate) use diesel_cases;
