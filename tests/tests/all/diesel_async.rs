//! Flake IDs as Diesel keys with `diesel-async`, on PostgreSQL and
//! MySQL/MariaDB: the shared cases (`diesel_common/async_cases.rs`) plus what
//! only one backend has. Stored values are checked with plain SQL.

use crate::diesel_common;

/// Creates the shared tables on a fresh connection.
async fn create_schema<C>(conn: &mut C, backend: diesel_common::Backend)
where
    C: diesel_async::SimpleAsyncConnection + Send,
{
    for statement in diesel_common::schema(backend) {
        conn.batch_execute(&statement)
            .await
            .unwrap_or_else(|e| panic!("schema statement failed: {e}\n{statement}"));
    }
}

/// A module per backend: its connection (a fresh database of
/// `$db`, named `$server` in a failure, with the shared tables), the shared
/// cases (`diesel_common/async_cases.rs`), then the backend's own items.
macro_rules! backend_tests {
    ($m:ident: $backend:ident, $conn:ident = $db:expr, $server:literal; $($own:item)*) => {
        mod $m {
            use diesel::prelude::*;
            use diesel_async::{AsyncConnection, RunQueryDsl};

            use crate::diesel_common::*;

            const BACKEND: Backend = Backend::$backend;
            type Conn = diesel_async::$conn;

            async fn connect() -> (flakeid_tests::db::TestDb, Conn) {
                init_generator();
                let (db, mut conn) = async_connection($db.await, $server).await;
                super::create_schema(&mut conn, BACKEND).await;
                (db, conn)
            }

            include!("diesel_common/async_cases.rs");

            $($own)*
        }
    };
}

backend_tests! {
    postgres: Postgres, AsyncPgConnection = flakeid_tests::db::postgres(), "PostgreSQL";

    #[tokio::test]
    async fn async_returning_gives_back_the_row_with_the_assigned_id() {
        let (_db, mut conn) = connect().await;
        let user = user("returned");
        let returned: User = diesel::insert_into(users::table)
            .values(&user)
            .returning(User::as_returning())
            .get_result(&mut conn)
            .await
            .expect("insert returning");
        assert_eq!(returned, user);

        let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
            .load(&mut conn)
            .await
            .expect("plain select");
        assert_eq!(stored, vec![Raw { v: user.id.into() }]);
    }
}

backend_tests! {
    mysql: Mysql, AsyncMysqlConnection = flakeid_tests::db::mysql(), "MySQL";

    #[tokio::test]
    async fn async_unsigned_bigint_column_round_trips_and_rejects_above_i64_max() {
        let (_db, mut conn) = connect().await;
        diesel::sql_query(CREATE_UNSIGNED_USERS)
            .execute(&mut conn)
            .await
            .expect("create table");
        let user = unsigned_user();
        diesel::insert_into(unsigned_users::table)
            .values(&user)
            .execute(&mut conn)
            .await
            .expect("insert");
        let stored: Vec<Raw> =
            diesel::sql_query("SELECT CAST(id AS SIGNED) AS v FROM unsigned_users")
                .load(&mut conn)
                .await
                .expect("plain select");
        assert_eq!(stored, vec![Raw { v: user.id.into() }]);
        let found = unsigned_users::table
            .select(UnsignedUser::as_select())
            .first(&mut conn)
            .await
            .expect("find");
        assert_eq!(found, user);

        diesel::sql_query(
            "INSERT INTO unsigned_users (id, name) VALUES (18446744073709551615, 'max')",
        )
        .execute(&mut conn)
        .await
        .expect("plain insert");
        let err = unsigned_users::table
            .select(unsigned_users::id)
            .load::<UserId>(&mut conn)
            .await
            .expect_err("u64::MAX is not an ID");
        assert_invalid_id_error(err, "18446744073709551615");
    }
}
