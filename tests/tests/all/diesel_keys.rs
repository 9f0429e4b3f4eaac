//! Flake IDs as Diesel keys with sync Diesel, on PostgreSQL, MySQL/MariaDB
//! and SQLite: the same cases on every backend (`diesel_common/sync_cases.rs`)
//! plus what only one backend has. Stored values are checked with plain SQL.

use crate::diesel_common;

/// Creates the shared tables on a fresh connection.
fn create_schema<C: diesel::Connection>(conn: &mut C, backend: diesel_common::Backend) {
    for statement in diesel_common::schema(backend) {
        diesel::connection::SimpleConnection::batch_execute(conn, &statement)
            .unwrap_or_else(|e| panic!("schema statement failed: {e}\n{statement}"));
    }
}

/// A department whose head is an employee that does not exist.
fn headless_department() -> diesel_common::Department {
    diesel_common::Department {
        id: diesel_common::fresh_id(),
        name: "headless".to_owned(),
        head_id: Some(diesel_common::fresh_id()),
    }
}

/// No department is stored (plain SQL).
fn assert_no_department<C: diesel::Connection>(conn: &mut C)
where
    diesel::query_builder::SqlQuery:
        for<'q> diesel::query_dsl::LoadQuery<'q, C, diesel_common::Raw>,
{
    use diesel::RunQueryDsl;
    let stored: Vec<diesel_common::Raw> =
        diesel::sql_query("SELECT COUNT(*) AS v FROM departments")
            .load(conn)
            .expect("plain count");
    assert_eq!(stored, vec![diesel_common::Raw { v: 0 }]);
}

/// A module per backend: its connection (`$connect` gives a fresh
/// database's guard and connection; the shared tables are created on it),
/// the shared cases (`diesel_common/sync_cases.rs`), then the backend's own
/// items.
macro_rules! backend_tests {
    ($m:ident: $backend:ident, $conn:ty = $connect:expr; $($own:item)*) => {
        mod $m {
            use diesel::prelude::*;

            use crate::diesel_common::*;

            const BACKEND: Backend = Backend::$backend;
            type Conn = $conn;

            fn connect() -> (impl Sized, Conn) {
                init_generator();
                let (db, mut conn) = $connect;
                super::create_schema(&mut conn, BACKEND);
                (db, conn)
            }

            include!("diesel_common/sync_cases.rs");

            $($own)*
        }
    };
}

/// With deferred foreign keys (PostgreSQL, SQLite) a department whose head
/// does not exist goes in, and the commit fails (`$refused` holds for the
/// result); nothing is stored.
macro_rules! deferred_cycle_with_a_missing_employee_fails_at_commit {
    ($refused:expr) => {
        #[test]
        fn deferred_cycle_with_a_missing_employee_fails_at_commit() {
            let (_db, mut conn) = connect();
            let department = super::headless_department();
            let result = conn.transaction(|conn| {
                diesel::insert_into(departments::table)
                    .values(&department)
                    .execute(conn)
            });
            let refused: fn(&QueryResult<usize>) -> bool = $refused;
            assert!(
                refused(&result),
                "commit must fail on the dangling head: {result:?}"
            );
            super::assert_no_department(&mut conn);
        }
    };
}

backend_tests! {
    postgres: Postgres, PgConnection =
        connection(flakeid_tests::db::postgres_blocking(), "PostgreSQL");

    #[test]
    fn returning_gives_back_the_row_with_the_assigned_id() {
        let (_db, mut conn) = connect();
        let user = user("returned");
        let returned: User = diesel::insert_into(users::table)
            .values(&user)
            .returning(User::as_returning())
            .get_result(&mut conn)
            .expect("insert returning");
        assert_eq!(returned, user);
        let id: UserId = diesel::update(users::table.find(user.id))
            .set(users::name.eq("renamed"))
            .returning(users::id)
            .get_result(&mut conn)
            .expect("update returning");
        assert_eq!(id, user.id);

        let stored: Vec<Raw> =
            diesel::sql_query("SELECT id AS v FROM users WHERE name = 'renamed'")
                .load(&mut conn)
                .expect("plain select");
        assert_eq!(stored, vec![Raw { v: user.id.into() }]);
    }

    deferred_cycle_with_a_missing_employee_fails_at_commit!(|result| matches!(
        result,
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ForeignKeyViolation,
            _
        ))
    ));
}

backend_tests! {
    mysql: Mysql, MysqlConnection = connection(flakeid_tests::db::mysql_blocking(), "MySQL");

    fn create_unsigned_table(conn: &mut Conn) {
        diesel::sql_query(CREATE_UNSIGNED_USERS)
            .execute(conn)
            .expect("create table");
    }

    #[test]
    fn unsigned_bigint_column_round_trips() {
        let (_db, mut conn) = connect();
        create_unsigned_table(&mut conn);
        let user = unsigned_user();
        diesel::insert_into(unsigned_users::table)
            .values(&user)
            .execute(&mut conn)
            .expect("insert");

        let stored: Vec<Raw> =
            diesel::sql_query("SELECT CAST(id AS SIGNED) AS v FROM unsigned_users")
                .load(&mut conn)
                .expect("plain select");
        assert_eq!(stored, vec![Raw { v: user.id.into() }]);
        let found = unsigned_users::table
            .filter(unsigned_users::id.eq(user.id))
            .select(UnsignedUser::as_select())
            .first(&mut conn)
            .expect("find");
        assert_eq!(found, user);
    }

    #[test]
    fn unsigned_value_above_i64_max_is_a_deserialization_error_naming_it() {
        let (_db, mut conn) = connect();
        create_unsigned_table(&mut conn);
        diesel::sql_query(
            "INSERT INTO unsigned_users (id, name) VALUES (18446744073709551615, 'max')",
        )
        .execute(&mut conn)
        .expect("plain insert");
        let err = unsigned_users::table
            .select(unsigned_users::id)
            .load::<UserId>(&mut conn)
            .expect_err("u64::MAX is not an ID");
        assert_invalid_id_error(err, "18446744073709551615");
    }

    #[test]
    fn head_before_its_employee_is_rejected_per_statement() {
        // Why the cycle is written as insert-then-UPDATE on MySQL: there are no
        // deferred constraints, so the forward reference fails at once.
        let (_db, mut conn) = connect();
        let result = diesel::insert_into(departments::table)
            .values(&super::headless_department())
            .execute(&mut conn);
        assert!(
            matches!(
                result,
                Err(diesel::result::Error::DatabaseError(
                    diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                    _
                ))
            ),
            "a dangling head must be refused: {result:?}"
        );
        super::assert_no_department(&mut conn);
    }
}

backend_tests! {
    sqlite: Sqlite, SqliteConnection = {
        let mut conn = SqliteConnection::establish(":memory:").expect("open SQLite in memory");
        diesel::sql_query("PRAGMA foreign_keys = ON")
            .execute(&mut conn)
            .expect("enable foreign keys");
        ((), conn)
    };

    deferred_cycle_with_a_missing_employee_fails_at_commit!(Result::is_err);
}
