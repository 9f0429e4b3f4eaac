//! 128-bit flakes stored through `diesel-async` on PostgreSQL (`uuid`) and
//! MySQL/MariaDB (`BINARY(16)`): shuffled flakes go in, `ORDER BY id`
//! through diesel-async gives them back in time order, and plain SQL shows
//! the stored bytes are the flake's 16 big-endian bytes.

/// Stores shuffled flakes through diesel-async and checks that `ORDER BY id`
/// (through diesel-async and in plain SQL), `find` and `WHERE id > ..`
/// follow time order; evaluates to the number of round trips.
macro_rules! flake128_async_round_trip {
    ($conn:expr, $table:ident, $row:ident, $column:literal, $as_text:expr, $text_sql:literal) => {{
        use diesel::prelude::*;
        use diesel_async::{RunQueryDsl, SimpleAsyncConnection};
        use flakeid_core::flake128::Flake128;
        use $crate::diesel_flakes::flakes::$row as Row;
        use $crate::diesel_flakes::flakes::$table as t;

        let conn = $conn;
        let create = format!(
            "CREATE TABLE {} (id {col} NOT NULL PRIMARY KEY, pos INTEGER NOT NULL, parent {col} NULL)",
            stringify!($table),
            col = $column
        );
        conn.batch_execute(&create)
            .await
            .unwrap_or_else(|e| panic!("{create}: {e}"));
        let shuffled = $crate::schemes_common::flake128_fixtures();
        let sorted = $crate::schemes_common::in_time_order(&shuffled);
        let row = |f: Flake128| {
            let pos = sorted.iter().position(|s| *s == f).expect("a fixture");
            Row {
                id: f,
                pos: i32::try_from(pos).expect("few fixtures"),
                parent: pos.checked_sub(1).map(|p| sorted[p]),
            }
        };
        diesel::insert_into(t::table)
            .values(&row(shuffled[0]))
            .execute(conn)
            .await
            .expect("insert one flake");
        let rest: Vec<Row> = shuffled[1..].iter().map(|f| row(*f)).collect();
        diesel::insert_into(t::table)
            .values(&rest)
            .execute(conn)
            .await
            .expect("insert flakes");

        let rows: Vec<Row> = t::table
            .order(t::id.asc())
            .select(Row::as_select())
            .load(conn)
            .await
            .expect("select flakes");
        let expected: Vec<Row> = sorted.iter().map(|f| row(*f)).collect();
        assert_eq!(rows, expected, "ORDER BY id through diesel-async is time order");
        for f in &shuffled {
            let found: Row = t::table
                .find(*f)
                .select(Row::as_select())
                .first(conn)
                .await
                .expect("find");
            assert_eq!(found, row(*f));
        }
        for (k, f) in sorted.iter().enumerate() {
            let later: i64 = t::table
                .filter(t::id.gt(*f))
                .count()
                .get_result(conn)
                .await
                .expect("count");
            assert_eq!(later as usize, sorted.len() - k - 1, "flakes after {f}");
        }

        let sql = format!(
            "SELECT pos, {} AS id_text FROM {} ORDER BY id",
            $text_sql,
            stringify!($table)
        );
        let stored: Vec<$crate::diesel_flakes::FlakeText> = diesel::sql_query(&sql)
            .load(conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        let as_text: fn(Flake128) -> String = $as_text;
        let expected: Vec<$crate::diesel_flakes::FlakeText> = sorted
            .iter()
            .enumerate()
            .map(|(i, f)| $crate::diesel_flakes::FlakeText {
                pos: i32::try_from(i).expect("few fixtures"),
                id_text: as_text(*f),
            })
            .collect();
        assert_eq!(stored, expected, "ORDER BY id in plain SQL; stored bytes are to_bytes()");
        rows.len()
    }};
}

mod on_postgres {
    use diesel_async::{AsyncConnection, AsyncPgConnection};

    #[tokio::test]
    async fn flake128_uuid_keys_order_by_time_through_diesel_async() {
        let db = flakeid_tests::db::postgres().await;
        let mut conn = AsyncPgConnection::establish(db.url())
            .await
            .expect("connect to PostgreSQL");
        let n = flake128_async_round_trip!(
            &mut conn,
            flakes_uuid,
            UuidRow,
            "uuid",
            |f| f.to_string(),
            "id::text"
        );
        eprintln!("on_postgres: {n} Flake128 uuid keys round-tripped through diesel-async");
        assert_eq!(n, crate::schemes_common::flake128_fixtures().len());
    }
}

mod on_mariadb {
    use diesel_async::{AsyncConnection, AsyncMysqlConnection};

    #[tokio::test]
    async fn flake128_binary16_keys_order_by_time_through_diesel_async() {
        let db = flakeid_tests::db::mysql().await;
        let mut conn = AsyncMysqlConnection::establish(db.url())
            .await
            .expect("connect to MySQL/MariaDB");
        let n = flake128_async_round_trip!(
            &mut conn,
            flakes_binary,
            BinaryRow,
            "BINARY(16)",
            crate::schemes_common::flake_hex,
            "HEX(id)"
        );
        eprintln!("on_mariadb: {n} Flake128 BINARY(16) keys round-tripped through diesel-async");
        assert_eq!(n, crate::schemes_common::flake128_fixtures().len());
    }
}
