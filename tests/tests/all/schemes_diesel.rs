//! Every ID scheme stored through sync Diesel on PostgreSQL, MySQL/MariaDB
//! and SQLite: IDs (edge values and generated ones) go in as BIGINT keys and
//! nullable BIGINT columns, come back through Diesel and through plain SQL
//! (as text, so no driver conversion can hide a change), and decode into the
//! parts they were made of. 128-bit flakes go into PostgreSQL `uuid` and
//! `bytea`, MySQL/MariaDB `BINARY(16)` and SQLite `BLOB` keys that order by
//! time.

use crate::diesel_common::connection;
use crate::{diesel_flakes, schemes_common};
use flakeid_tests::db;

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_flakes::flakes;
use schemes_common::WideId;
use schemes_common::extra::{
    DecimalRandomId, DecimalSequenceId, LegibleId, RandomStartId, TraceKey,
};
use schemes_common::{
    DiscordId, InstagramId, JsSafeId, JsSafeSecondsId, LsidId, NonsequentialId, SonyflakeId,
    TsidId, TwitterId,
};

#[derive(QueryableByName, Debug, PartialEq)]
struct TextRow {
    #[diesel(sql_type = Text)]
    id_text: String,
    #[diesel(sql_type = Text)]
    copy_text: String,
}

/// An error and its sources, as one line (Diesel's field error names the
/// field; its source says what was wrong).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Runs `sql` on a fresh connection (schema set-up).
fn execute<C: Connection>(conn: &mut C, sql: &str) {
    diesel::connection::SimpleConnection::batch_execute(conn, sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// The round trip of one scheme through one table, for one connection type.
macro_rules! round_trip_fn {
    ($name:ident, $conn:ty, $mysql:expr) => {
        /// Stores every case of `scheme` and checks what comes back;
        /// returns how many IDs made the round trip.
        pub fn $name(conn: &mut $conn, scheme: &Scheme, typed: bool) -> usize {
            let table_name = TABLE;
            super::execute(
                conn,
                &format!(
                    "CREATE TABLE {table_name} (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), copy BIGINT NULL, label TEXT NOT NULL)"
                ),
            );
            let (first, rest) = scheme.cases.split_first().expect("a scheme has cases");
            diesel::insert_into(table::table)
                .values(&row(scheme, first.raw))
                .execute(conn)
                .unwrap_or_else(|e| panic!("{}: insert {}: {e}", scheme.name, first.raw));
            let rest: Vec<Row> = rest.iter().map(|c| row(scheme, c.raw)).collect();
            diesel::insert_into(table::table)
                .values(&rest)
                .execute(conn)
                .unwrap_or_else(|e| panic!("{}: multi-row insert: {e}", scheme.name));

            let rows: Vec<Row> = table::table
                .order(table::id.asc())
                .select(Row::as_select())
                .load(conn)
                .unwrap_or_else(|e| panic!("{}: select through Diesel: {e}", scheme.name));
            let read: Vec<_> = rows.iter().map(|r| (r.id, r.copy)).collect();
            check_rows_in_key_order(scheme, &read, typed);
            for case in &scheme.cases {
                let wanted = row(scheme, case.raw);
                let found: Row = table::table
                    .find(wanted.id)
                    .select(Row::as_select())
                    .first(conn)
                    .unwrap_or_else(|e| panic!("{}: find {}: {e}", scheme.name, case.raw));
                assert_eq!(found, wanted, "{}: find", scheme.name);
            }

            // Aliased: PostgreSQL resolves `ORDER BY id` to an output column
            // named `id` first, which would sort the text.
            let sql = format!(
                "SELECT {} AS id_text, {} AS copy_text FROM {table_name} ORDER BY id",
                cast_to_text("id", $mysql),
                cast_to_text("copy", $mysql)
            );
            let text: Vec<super::TextRow> = diesel::sql_query(&sql)
                .load(conn)
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            let expected: Vec<super::TextRow> = scheme
                .sorted_raw()
                .iter()
                .map(|v| super::TextRow { id_text: v.to_string(), copy_text: v.to_string() })
                .collect();
            assert_eq!(text, expected, "{}: stored values as text ({table_name})", scheme.name);
            rows.len()
        }
    };
}

/// The typed table of a scheme: its round trip on each backend (stores
/// every case of the scheme and checks what comes back; returns how many
/// IDs made the round trip).
struct TypedTable {
    scheme: &'static str,
    postgres: fn(&mut PgConnection, &schemes_common::Scheme, bool) -> usize,
    mysql: fn(&mut MysqlConnection, &schemes_common::Scheme, bool) -> usize,
    sqlite: fn(&mut SqliteConnection, &schemes_common::Scheme, bool) -> usize,
}

/// The typed table of the scheme named `scheme`, if it has one.
fn typed_table(scheme: &str) -> Option<&'static TypedTable> {
    TYPED_TABLES.iter().find(|t| t.scheme == scheme)
}

/// A table per scheme (`id` key, `copy` nullable column of the same type)
/// and its round trip on each backend; [`TYPED_TABLES`] lists those that
/// are `for` a scheme name.
macro_rules! scheme_tables {
    ($($m:ident: $id:ident, $table:ident $(for $scheme:literal)?;)*) => {
        /// The tables that store one scheme, by the scheme's name.
        const TYPED_TABLES: &[TypedTable] = &[$($(
            TypedTable { scheme: $scheme, postgres: $m::postgres, mysql: $m::mysql, sqlite: $m::sqlite },
        )?)*];
        $(
        #[allow(dead_code, unreachable_pub)]
        mod $m {
            use diesel::prelude::*;
            use flakeid_core::FlakeId;

            use crate::schemes_common::{Scheme, cast_to_text, check_rows_in_key_order};

            const TABLE: &str = stringify!($table);

            diesel::table! {
                $table (id) {
                    id -> BigInt,
                    copy -> Nullable<BigInt>,
                    label -> Text,
                }
            }
            use $table as table;

            #[derive(Queryable, Selectable, Insertable, Debug, PartialEq)]
            #[diesel(table_name = $table)]
            pub struct Row {
                pub id: super::$id,
                pub copy: Option<super::$id>,
                pub label: String,
            }

            fn row(scheme: &Scheme, raw: u64) -> Row {
                let id = super::$id::from_u64(raw)
                    .unwrap_or_else(|e| panic!("{}: {raw} is a valid ID: {e}", scheme.name));
                Row { id, copy: Some(id), label: format!("{}/{raw}", scheme.name) }
            }

            round_trip_fn!(postgres, PgConnection, false);
            round_trip_fn!(mysql, MysqlConnection, true);
            round_trip_fn!(sqlite, SqliteConnection, false);
        }
        )*
    };
}

scheme_tables! {
    twitter: TwitterId, ids_twitter for "twitter";
    discord: DiscordId, ids_discord for "discord";
    instagram: InstagramId, ids_instagram for "instagram";
    sonyflake: SonyflakeId, ids_sonyflake for "sonyflake";
    tsid: TsidId, ids_tsid for "tsid";
    lsid: LsidId, ids_lsid for "lsid";
    js_safe: JsSafeId, ids_js_safe for "js_safe";
    js_safe_seconds: JsSafeSecondsId, ids_js_safe_seconds for "js_safe_seconds";
    nonsequential: NonsequentialId, ids_nonsequential for "nonsequential";
    decimal_sequence: DecimalSequenceId, ids_decimal_sequence for "decimal_time_sequence_server";
    decimal_random: DecimalRandomId, ids_decimal_random for "decimal_time_random_server";
    decimal_id: LegibleId, ids_decimal_id for "decimal_id";
    trace_id: TraceKey, ids_trace_id for "trace_id";
    random_start: RandomStartId, ids_random_start for "twitter_random_start";
    // Permuted public IDs of several schemes, one after the other.
    wide: WideId, ids_wide;
}

/// Runs every preset through its own typed table on connection `$conn`
/// with each module's `$f`; evaluates to the number of round trips.
macro_rules! presets_round_trip {
    ($conn:expr, $f:ident) => {{
        let conn = $conn;
        let mut n = 0;
        for scheme in schemes_common::preset_schemes() {
            let table = typed_table(scheme.name)
                .unwrap_or_else(|| panic!("no table for preset {}", scheme.name));
            n += (table.$f)(conn, &scheme, true);
        }
        n
    }};
}

/// Runs every scheme that is not a bit-layout preset through its own typed
/// table (checked with the scheme's rules on read, decoded by the ID type),
/// and permuted public IDs through the `WideId` table, dropped between
/// schemes; evaluates to the number of round trips.
macro_rules! extra_round_trip {
    ($conn:expr, $f:ident) => {{
        let conn = $conn;
        let schemes = schemes_common::extra::extra_schemes();
        assert!(!schemes.is_empty(), "the non-bit-layout schemes are listed");
        let mut n = 0;
        for scheme in schemes {
            n += match typed_table(scheme.name) {
                Some(table) => (table.$f)(conn, &scheme, true),
                None => {
                    let n = wide::$f(conn, &scheme, false);
                    execute(conn, "DROP TABLE ids_wide");
                    n
                }
            };
        }
        n
    }};
}

/// A DecimalId stored by other means whose counter is 0 breaks the
/// scheme's rules: reading it is an error naming the value.
macro_rules! decimal_id_counter_zero_is_rejected {
    ($conn:expr) => {{
        let conn = $conn;
        execute(
            conn,
            "CREATE TABLE ids_decimal_id (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), copy BIGINT NULL, label TEXT NOT NULL)",
        );
        execute(
            conn,
            "INSERT INTO ids_decimal_id (id, copy, label) VALUES (9200065, NULL, 'counter 0')",
        );
        let err = decimal_id::ids_decimal_id::table
            .select(decimal_id::Row::as_select())
            .load(conn)
            .expect_err("counter 0 is not a DecimalId");
        let err = error_chain(&err);
        assert!(
            err.contains("9200065 is not a valid LegibleId: its counter is 0"),
            "{err}"
        );
    }};
}

/// A module per backend: the tests every backend runs (every preset, the
/// other schemes and a DecimalId rule through the typed tables, with `$f`,
/// the tables' round trip for this connection type; 128-bit flakes in each
/// key column type the backend has), then the backend's own tests.
macro_rules! backend_tests {
    (
        $m:ident: $conn:ty = $connect:expr, round trip $f:ident;
        flake128 {
            $($flake_test:ident: $table:ident($row:ident, $column:literal), $as_text:expr, $text_sql:literal;)+
        }
        $($own:item)*
    ) => {
        mod $m {
            use super::*;

            fn connect() -> (impl Sized, $conn) {
                $connect
            }

            #[test]
            fn every_preset_id_round_trips_as_bigint_and_decodes() {
                let (_db, mut conn) = connect();
                let n = presets_round_trip!(&mut conn, $f);
                eprintln!(concat!(stringify!($m), ": {} preset IDs round-tripped through Diesel"), n);
                assert!(n >= 9 * schemes_common::GENERATED);
            }

            #[test]
            fn decimal_trace_and_permuted_ids_round_trip_as_bigint_and_decode() {
                let (_db, mut conn) = connect();
                let n = extra_round_trip!(&mut conn, $f);
                eprintln!(concat!(stringify!($m), ": {} other-scheme IDs round-tripped through Diesel"), n);
            }

            #[test]
            fn decimal_id_with_counter_zero_is_rejected_on_read() {
                let (_db, mut conn) = connect();
                decimal_id_counter_zero_is_rejected!(&mut conn);
            }

            $(
                #[test]
                fn $flake_test() {
                    let (_db, mut conn) = connect();
                    let n = diesel_flakes::flake128_round_trip!(
                        sync, &mut conn, $table, $row, $column, $as_text, $text_sql
                    );
                    eprintln!(
                        concat!(stringify!($m), ": {} Flake128 ", $column, " keys round-tripped through Diesel"),
                        n
                    );
                }
            )+

            $($own)*
        }
    };
}

backend_tests! {
    on_postgres: PgConnection = connection(db::postgres_blocking(), "PostgreSQL"), round trip postgres;
    flake128 {
        flake128_uuid_keys_order_by_time_in_the_database:
            flakes_uuid(UuidRow, "uuid"), |f| f.to_string(), "CAST(id AS TEXT)";
        flake128_bytea_keys_order_by_time_in_the_database:
            flakes_binary(BinaryRow, "bytea"), |f| schemes_common::flake_hex(f).to_lowercase(),
            "encode(id, 'hex')";
    }

    /// The nil UUID stored by other means is not a flake.
    #[test]
    fn flake128_nil_uuid_is_rejected_on_read() {
        use flakes::{UuidRow, flakes_uuid};
        let (_db, mut conn) = connect();
        execute(
            &mut conn,
            "CREATE TABLE flakes_uuid (id uuid NOT NULL PRIMARY KEY, pos INTEGER NOT NULL, parent uuid NULL);
             INSERT INTO flakes_uuid VALUES ('00000000-0000-0000-0000-000000000000', 0, NULL)",
        );
        let err = flakes_uuid::table
            .select(UuidRow::as_select())
            .load(&mut conn)
            .expect_err("nil is not a Flake128");
        let err = error_chain(&err);
        assert!(err.contains("0 is not a valid Flake128"), "{err}");
    }
}

backend_tests! {
    on_mariadb: MysqlConnection = connection(db::mysql_blocking(), "MySQL/MariaDB"), round trip mysql;
    flake128 {
        flake128_binary16_keys_order_by_time_in_the_database:
            flakes_binary(BinaryRow, "BINARY(16)"), schemes_common::flake_hex, "HEX(id)";
    }
}

backend_tests! {
    on_sqlite: SqliteConnection = (
        (),
        SqliteConnection::establish(":memory:").expect("open SQLite in memory"),
    ), round trip sqlite;
    flake128 {
        flake128_blob_keys_order_by_time_in_the_database:
            flakes_binary(BinaryRow, "BLOB"), schemes_common::flake_hex, "HEX(id)";
    }

    /// Zero, or a blob that is not 16 bytes, stored by other means is an
    /// error naming what is wrong, not a flake.
    #[test]
    fn flake128_blob_of_zero_or_wrong_length_is_rejected_on_read() {
        use flakes::{BinaryRow, flakes_binary};
        let (_db, mut conn) = connect();
        execute(
            &mut conn,
            "CREATE TABLE flakes_binary (id BLOB NOT NULL PRIMARY KEY, pos INTEGER NOT NULL, parent BLOB NULL)",
        );
        for (value, message) in [
            (
                "X'00000000000000000000000000000000'",
                "0 is not a valid Flake128",
            ),
            (
                "X'000000000000000000000000000001'",
                "a Flake128 is 16 bytes, got 15",
            ),
        ] {
            execute(
                &mut conn,
                &format!(
                    "DELETE FROM flakes_binary; INSERT INTO flakes_binary VALUES ({value}, 0, NULL)"
                ),
            );
            let err = flakes_binary::table
                .select(BinaryRow::as_select())
                .load(&mut conn)
                .expect_err("not a Flake128");
            let err = error_chain(&err);
            assert!(err.contains(message), "{value}: {err}");
        }
    }
}
