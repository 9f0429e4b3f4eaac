//! 128-bit flakes stored through `diesel-async` on PostgreSQL (`uuid`) and
//! MySQL/MariaDB (`BINARY(16)`): shuffled flakes go in, `ORDER BY id`
//! through diesel-async gives them back in time order, and plain SQL shows
//! the stored bytes are the flake's 16 big-endian bytes.

/// A module per server with one test: connect through diesel-async, store
/// the flakes in `$table` (whose key column is `$column`) and check that
/// each made the round trip.
macro_rules! flake128_async_tests {
    ($(
        $m:ident::$test:ident:
        $server:ident $name:literal, $connection:ident, $table:ident($row:ident, $column:literal),
        $as_text:expr, $text_sql:literal;
    )*) => {$(
        mod $m {
            use diesel_async::{AsyncConnection, $connection};

            #[tokio::test]
            async fn $test() {
                let db = flakeid_tests::db::$server().await;
                let mut conn = $connection::establish(db.url())
                    .await
                    .expect(concat!("connect to ", $name));
                let n = crate::diesel_flakes::flake128_round_trip!(
                    async,
                    &mut conn,
                    $table,
                    $row,
                    $column,
                    $as_text,
                    $text_sql
                );
                eprintln!(
                    concat!(
                        stringify!($m),
                        ": {} Flake128 ",
                        $column,
                        " keys round-tripped through diesel-async"
                    ),
                    n
                );
                assert_eq!(n, crate::schemes_common::flake128_fixtures().len());
            }
        }
    )*};
}

flake128_async_tests! {
    on_postgres::flake128_uuid_keys_order_by_time_through_diesel_async:
        postgres "PostgreSQL", AsyncPgConnection, flakes_uuid(UuidRow, "uuid"),
        |f| f.to_string(), "id::text";
    on_mariadb::flake128_binary16_keys_order_by_time_through_diesel_async:
        mysql "MySQL/MariaDB", AsyncMysqlConnection, flakes_binary(BinaryRow, "BINARY(16)"),
        crate::schemes_common::flake_hex, "HEX(id)";
}
