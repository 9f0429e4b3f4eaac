//! The Diesel tables and rows that 128-bit flakes are stored in, and their
//! round trip, shared by the sync and async Diesel scheme tests.
#![allow(unreachable_pub)]

use diesel::sql_types::{Integer, Text};

/// 128-bit flakes, with the SQL type each backend stores them in.
pub mod flakes {
    use diesel::prelude::*;
    use flakeid_flake128::Flake128;

    diesel::table! {
        /// PostgreSQL: `uuid`.
        flakes_uuid (id) {
            id -> Uuid,
            pos -> Integer,
            parent -> Nullable<Uuid>,
        }
    }

    diesel::table! {
        /// PostgreSQL `bytea`, MySQL/MariaDB `BINARY(16)`, SQLite `BLOB`.
        flakes_binary (id) {
            id -> Binary,
            pos -> Integer,
            parent -> Nullable<Binary>,
        }
    }

    #[derive(Queryable, Selectable, Insertable, Debug, PartialEq, Clone)]
    #[diesel(table_name = flakes_uuid)]
    pub struct UuidRow {
        pub id: Flake128,
        pub pos: i32,
        pub parent: Option<Flake128>,
    }

    #[derive(Queryable, Selectable, Insertable, Debug, PartialEq, Clone)]
    #[diesel(table_name = flakes_binary)]
    pub struct BinaryRow {
        pub id: Flake128,
        pub pos: i32,
        pub parent: Option<Flake128>,
    }
}

/// A flake read back as text by plain SQL, with its insertion position.
#[derive(diesel::QueryableByName, Debug, PartialEq)]
pub struct FlakeText {
    #[diesel(sql_type = Integer)]
    pub pos: i32,
    #[diesel(sql_type = Text)]
    pub id_text: String,
}

/// Stores shuffled flakes and checks that `ORDER BY id` (through Diesel and
/// in plain SQL), `find` and `WHERE id > ..` follow time order; evaluates
/// to the number of round trips. The first argument, `sync` or `async`,
/// says whether `$conn` is a Diesel or a diesel-async connection.
macro_rules! flake128_round_trip {
    (sync, $($case:tt)*) => {
        $crate::diesel_flakes::flake128_round_trip!(
            @run [diesel::connection::SimpleConnection, diesel::RunQueryDsl] [] "Diesel", $($case)*
        )
    };
    (async, $($case:tt)*) => {
        $crate::diesel_flakes::flake128_round_trip!(
            @run [diesel_async::SimpleAsyncConnection, diesel_async::RunQueryDsl] [.await] "diesel-async",
            $($case)*
        )
    };
    (
        @run [$($simple:ident)::+, $($run_query:ident)::+] [$($aw:tt)*] $orm:literal,
        $conn:expr, $table:ident, $row:ident, $column:literal, $as_text:expr, $text_sql:literal
    ) => {{
        use diesel::prelude::*;
        use flakeid_flake128::Flake128;
        use $crate::diesel_flakes::flakes::$row as Row;
        use $crate::diesel_flakes::flakes::$table as t;
        use $crate::diesel_flakes::FlakeText;
        use $($simple)::+ as _;
        use $($run_query)::+;

        let conn = $conn;
        let create = format!(
            "CREATE TABLE {} (id {col} NOT NULL PRIMARY KEY, pos INTEGER NOT NULL, parent {col} NULL)",
            stringify!($table),
            col = $column
        );
        conn.batch_execute(&create)
            $($aw)*
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
            $($aw)*
            .expect("insert one flake");
        let rest: Vec<Row> = shuffled[1..].iter().map(|f| row(*f)).collect();
        diesel::insert_into(t::table)
            .values(&rest)
            .execute(conn)
            $($aw)*
            .expect("insert flakes");

        let rows: Vec<Row> = t::table
            .order(t::id.asc())
            .select(Row::as_select())
            .load(conn)
            $($aw)*
            .expect("select flakes");
        let expected: Vec<Row> = sorted.iter().map(|f| row(*f)).collect();
        assert_eq!(rows, expected, concat!("ORDER BY id through ", $orm, " is time order"));
        for f in &shuffled {
            let found: Row = t::table
                .find(*f)
                .select(Row::as_select())
                .first(conn)
                $($aw)*
                .expect("find");
            assert_eq!(found, row(*f));
        }
        for (k, f) in sorted.iter().enumerate() {
            let later: i64 = t::table
                .filter(t::id.gt(*f))
                .count()
                .get_result(conn)
                $($aw)*
                .expect("count");
            assert_eq!(later as usize, sorted.len() - k - 1, "flakes after {f}");
        }

        let sql = format!(
            "SELECT pos, {} AS id_text FROM {} ORDER BY id",
            $text_sql,
            stringify!($table)
        );
        let stored: Vec<FlakeText> = diesel::sql_query(&sql)
            .load(conn)
            $($aw)*
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        let as_text: fn(Flake128) -> String = $as_text;
        let expected: Vec<FlakeText> = sorted
            .iter()
            .enumerate()
            .map(|(i, f)| FlakeText {
                pos: i32::try_from(i).expect("few fixtures"),
                id_text: as_text(*f),
            })
            .collect();
        assert_eq!(stored, expected, "ORDER BY id in plain SQL; stored bytes are to_bytes()");
        rows.len()
    }};
}
pub(crate) use flake128_round_trip;
