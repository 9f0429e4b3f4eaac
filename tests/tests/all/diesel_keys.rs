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

mod postgres {
    use diesel::prelude::*;

    use crate::diesel_common::*;

    const BACKEND: Backend = Backend::Postgres;
    type Conn = PgConnection;

    fn connect() -> (flakeid_tests::db::TestDb, Conn) {
        init_generator();
        let db = flakeid_tests::db::postgres_blocking();
        let mut conn = PgConnection::establish(db.url()).expect("connect to PostgreSQL");
        super::create_schema(&mut conn, BACKEND);
        (db, conn)
    }

    include!("diesel_common/sync_cases.rs");

    #[test]
    fn returning_gives_back_the_row_with_the_assigned_id() {
        let (_db, mut conn) = connect();
        let user = User {
            id: fresh_id(),
            name: "returned".to_owned(),
        };
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

    #[test]
    fn deferred_cycle_with_a_missing_employee_fails_at_commit() {
        let (_db, mut conn) = connect();
        let department = Department {
            id: DepartmentId::generate().expect("a fresh ID"),
            name: "headless".to_owned(),
            head_id: Some(EmployeeId::generate().expect("a fresh ID")),
        };
        let result = conn.transaction(|conn| {
            diesel::insert_into(departments::table)
                .values(&department)
                .execute(conn)
        });
        assert!(
            matches!(
                result,
                Err(diesel::result::Error::DatabaseError(
                    diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                    _
                ))
            ),
            "commit must fail on the dangling head: {result:?}"
        );
        let stored: Vec<Raw> = diesel::sql_query("SELECT COUNT(*) AS v FROM departments")
            .load(&mut conn)
            .expect("plain count");
        assert_eq!(stored, vec![Raw { v: 0 }]);
    }
}

mod mysql {
    use diesel::prelude::*;

    use crate::diesel_common::*;

    const BACKEND: Backend = Backend::Mysql;
    type Conn = MysqlConnection;

    fn connect() -> (flakeid_tests::db::TestDb, Conn) {
        init_generator();
        let db = flakeid_tests::db::mysql_blocking();
        let mut conn = MysqlConnection::establish(db.url()).expect("connect to MySQL");
        super::create_schema(&mut conn, BACKEND);
        (db, conn)
    }

    include!("diesel_common/sync_cases.rs");

    diesel::table! {
        unsigned_users (id) {
            id -> Unsigned<BigInt>,
            name -> Text,
        }
    }

    #[derive(Queryable, Selectable, Insertable, Debug, PartialEq)]
    #[diesel(table_name = unsigned_users)]
    struct UnsignedUser {
        id: UserId,
        name: String,
    }

    fn create_unsigned_table(conn: &mut Conn) {
        diesel::sql_query(
            "CREATE TABLE unsigned_users (id BIGINT UNSIGNED NOT NULL PRIMARY KEY CHECK (id > 0), \
             name VARCHAR(200) NOT NULL)",
        )
        .execute(conn)
        .expect("create table");
    }

    #[test]
    fn unsigned_bigint_column_round_trips() {
        let (_db, mut conn) = connect();
        create_unsigned_table(&mut conn);
        let user = UnsignedUser {
            id: UserId::generate().expect("a fresh ID"),
            name: "unsigned".to_owned(),
        };
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
        let department = Department {
            id: DepartmentId::generate().expect("a fresh ID"),
            name: "headless".to_owned(),
            head_id: Some(EmployeeId::generate().expect("a fresh ID")),
        };
        let result = diesel::insert_into(departments::table)
            .values(&department)
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
        let stored: Vec<Raw> = diesel::sql_query("SELECT COUNT(*) AS v FROM departments")
            .load(&mut conn)
            .expect("plain count");
        assert_eq!(stored, vec![Raw { v: 0 }]);
    }
}

mod sqlite {
    use diesel::prelude::*;

    use crate::diesel_common::*;

    const BACKEND: Backend = Backend::Sqlite;
    type Conn = SqliteConnection;

    fn connect() -> ((), Conn) {
        init_generator();
        let mut conn = SqliteConnection::establish(":memory:").expect("open SQLite in memory");
        diesel::sql_query("PRAGMA foreign_keys = ON")
            .execute(&mut conn)
            .expect("enable foreign keys");
        super::create_schema(&mut conn, BACKEND);
        ((), conn)
    }

    include!("diesel_common/sync_cases.rs");

    #[test]
    fn deferred_cycle_with_a_missing_employee_fails_at_commit() {
        let (_db, mut conn) = connect();
        let department = Department {
            id: DepartmentId::generate().expect("a fresh ID"),
            name: "headless".to_owned(),
            head_id: Some(EmployeeId::generate().expect("a fresh ID")),
        };
        let result = conn.transaction(|conn| {
            diesel::insert_into(departments::table)
                .values(&department)
                .execute(conn)
        });
        assert!(
            result.is_err(),
            "commit must fail on the dangling head: {result:?}"
        );
        let stored: Vec<Raw> = diesel::sql_query("SELECT COUNT(*) AS v FROM departments")
            .load(&mut conn)
            .expect("plain count");
        assert_eq!(stored, vec![Raw { v: 0 }]);
    }
}
