//! Every ID scheme stored through SeaORM on PostgreSQL, MySQL/MariaDB and
//! SQLite: IDs (edge values and generated ones) go in as BIGINT keys and
//! nullable BIGINT columns, come back through SeaORM and through plain SQL
//! (as text, so no driver conversion can hide a change), and decode into the
//! parts they were made of.

use crate::seaorm_common::{create_table, read_error};
use crate::{schemes_common, seaorm_connect};
use flakeid_tests::flake_entity;

use schemes_common::extra::{
    DecimalRandomId, DecimalSequenceId, LegibleId, RandomStartId, TraceKey,
};
use schemes_common::{
    DiscordId, InstagramId, JsSafeId, JsSafeSecondsId, LsidId, NonsequentialId, SonyflakeId,
    TsidId, TwitterId,
};
use schemes_common::{Scheme, WideId, cast_to_text};
use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseConnection, Statement};

/// A table per scheme (`id` key, `copy` nullable column of the same type)
/// and the round trip through it.
macro_rules! scheme_tables {
    ($($m:ident: $id:ident, $table:literal;)*) => {$(
        flake_entity! {
            mod $m = $table, super::$id {
                pub copy: Option<super::$id>,
                pub label: String,
            }

            use flakeid_core::FlakeId;
            use sea_orm::QueryOrder;

            use crate::schemes_common::{Scheme, check_typed_decode};

            /// Every row, through SeaORM, in label order.
            pub async fn by_label(db: &DatabaseConnection) -> Vec<Model> {
                Entity::find()
                    .order_by_asc(Column::Label)
                    .all(db)
                    .await
                    .unwrap_or_else(|e| panic!("read {} through SeaORM: {e}", $table))
            }

            fn model(scheme: &Scheme, raw: u64) -> Model {
                let id = super::$id::from_u64(raw)
                    .unwrap_or_else(|e| panic!("{}: {raw} is a valid ID: {e}", scheme.name));
                Model { id, copy: Some(id), label: format!("{}/{raw}", scheme.name) }
            }

            /// Stores every case of `scheme` and checks what comes back;
            /// returns how many IDs made the round trip.
            pub async fn round_trip(db: &DatabaseConnection, scheme: &Scheme, typed: bool) -> usize {
                crate::seaorm_common::create_table(db, Entity).await;

                // The first row through `ActiveModel::insert` (hooks, then
                // RETURNING or a re-read), the rest in one multi-row INSERT.
                let (first, rest) = scheme.cases.split_first().expect("a scheme has cases");
                let inserted = ActiveModel::from(model(scheme, first.raw))
                    .insert(db)
                    .await
                    .unwrap_or_else(|e| panic!("{}: insert {}: {e}", scheme.name, first.raw));
                assert_eq!(inserted, model(scheme, first.raw), "{}: row returned by insert", scheme.name);
                Entity::insert_many(rest.iter().map(|c| ActiveModel::from(model(scheme, c.raw))))
                    .exec(db)
                    .await
                    .unwrap_or_else(|e| panic!("{}: insert_many: {e}", scheme.name));

                let rows = Entity::find()
                    .order_by_asc(Column::Id)
                    .all(db)
                    .await
                    .unwrap_or_else(|e| panic!("{}: select through SeaORM: {e}", scheme.name));
                let read: Vec<u64> = rows.iter().map(|m| m.id.get().unsigned_abs()).collect();
                assert_eq!(read, scheme.sorted_raw(), "{}: IDs in key order", scheme.name);
                for row in &rows {
                    assert_eq!(row.copy, Some(row.id), "{}: nullable column", scheme.name);
                    scheme.check_read_back(row.id.get());
                    if typed {
                        check_typed_decode(scheme, row.id);
                    }
                }
                for case in &scheme.cases {
                    let found = Entity::find_by_id(model(scheme, case.raw).id)
                        .one(db)
                        .await
                        .unwrap_or_else(|e| panic!("{}: find_by_id {}: {e}", scheme.name, case.raw));
                    assert_eq!(found, Some(model(scheme, case.raw)), "{}: find_by_id", scheme.name);
                }
                super::check_stored_text(db, $table, scheme).await;
                rows.len()
            }
        }
    )*};
}

scheme_tables! {
    twitter: TwitterId, "ids_twitter";
    discord: DiscordId, "ids_discord";
    instagram: InstagramId, "ids_instagram";
    sonyflake: SonyflakeId, "ids_sonyflake";
    tsid: TsidId, "ids_tsid";
    lsid: LsidId, "ids_lsid";
    js_safe: JsSafeId, "ids_js_safe";
    js_safe_seconds: JsSafeSecondsId, "ids_js_safe_seconds";
    nonsequential: NonsequentialId, "ids_nonsequential";
    decimal_sequence: DecimalSequenceId, "ids_decimal_sequence";
    decimal_random: DecimalRandomId, "ids_decimal_random";
    decimal_id: LegibleId, "ids_decimal_id";
    trace_id: TraceKey, "ids_trace_id";
    random_start: RandomStartId, "ids_random_start";
    wide: WideId, "ids_wide";
}

/// Plain SQL: the key and the copy column, cast to text by the database, in
/// key order, are exactly the stored IDs' decimal digits.
async fn check_stored_text(db: &DatabaseConnection, table: &str, scheme: &Scheme) {
    let mysql = db.get_database_backend() == DatabaseBackend::MySql;
    let sql = format!(
        // Aliased: PostgreSQL resolves `ORDER BY id` to an output column
        // named `id` first, which would sort the text.
        "SELECT {} AS id_text, {} AS copy_text FROM {table} ORDER BY id",
        cast_to_text("id", mysql),
        cast_to_text("copy", mysql)
    );
    let rows = db
        .query_all_raw(Statement::from_string(db.get_database_backend(), &sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let text: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            let id: String = r.try_get_by_index(0).expect("id as text");
            let copy: String = r.try_get_by_index(1).expect("copy as text");
            (id, copy)
        })
        .collect();
    let expected: Vec<(String, String)> = scheme
        .sorted_raw()
        .iter()
        .map(|v| (v.to_string(), v.to_string()))
        .collect();
    assert_eq!(
        text, expected,
        "{}: stored values as text ({table})",
        scheme.name
    );
}

/// Runs every preset through its own typed table; returns the round trips.
async fn presets_round_trip(db: &DatabaseConnection) -> usize {
    let mut n = 0;
    for scheme in schemes_common::preset_schemes() {
        let typed = true;
        n += match scheme.name {
            "twitter" => twitter::round_trip(db, &scheme, typed).await,
            "discord" => discord::round_trip(db, &scheme, typed).await,
            "instagram" => instagram::round_trip(db, &scheme, typed).await,
            "sonyflake" => sonyflake::round_trip(db, &scheme, typed).await,
            "tsid" => tsid::round_trip(db, &scheme, typed).await,
            "lsid" => lsid::round_trip(db, &scheme, typed).await,
            "js_safe" => js_safe::round_trip(db, &scheme, typed).await,
            "js_safe_seconds" => js_safe_seconds::round_trip(db, &scheme, typed).await,
            "nonsequential" => nonsequential::round_trip(db, &scheme, typed).await,
            other => panic!("no table for preset {other}"),
        };
    }
    n
}

/// Runs every scheme that is not a bit layout through its own typed table
/// (checked with the scheme's rules on read, decoded by the ID type), and
/// permuted public IDs through the `WideId` table, dropped between schemes;
/// returns the round trips.
async fn extra_schemes_round_trip(db: &DatabaseConnection) -> usize {
    let mut n = 0;
    let schemes = schemes_common::extra::extra_schemes();
    assert!(!schemes.is_empty(), "the non-bit-layout schemes are listed");
    for scheme in schemes {
        n += match scheme.name {
            "decimal_time_sequence_server" => decimal_sequence::round_trip(db, &scheme, true).await,
            "decimal_time_random_server" => decimal_random::round_trip(db, &scheme, true).await,
            "decimal_id" => decimal_id::round_trip(db, &scheme, true).await,
            "trace_id" => trace_id::round_trip(db, &scheme, true).await,
            "twitter_random_start" => random_start::round_trip(db, &scheme, true).await,
            _ => {
                let n = wide::round_trip(db, &scheme, false).await;
                db.execute_unprepared("DROP TABLE ids_wide")
                    .await
                    .expect("drop ids_wide");
                n
            }
        };
    }
    n
}

/// A table keyed by 128-bit flakes, with a nullable flake column.
#[allow(dead_code, unreachable_pub)]
mod flake {
    use flakeid_flake128::Flake128;
    use sea_orm::entity::prelude::*;

    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "flakes")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Flake128,
        pub pos: i32,
        pub parent: Option<Flake128>,
    }

    impl ActiveModelBehavior for ActiveModel {}
}

/// `flakes` with the backend's 16-byte column type: PostgreSQL `uuid`,
/// MySQL/MariaDB `BINARY(16)`, SQLite `BLOB`.
async fn create_flakes_table(db: &DatabaseConnection) {
    let column = match db.get_database_backend() {
        DatabaseBackend::Postgres => "uuid",
        DatabaseBackend::MySql => "BINARY(16)",
        _ => "BLOB",
    };
    db.execute_unprepared(&format!(
        "CREATE TABLE flakes (id {column} NOT NULL PRIMARY KEY, pos INTEGER NOT NULL, parent {column} NULL)"
    ))
    .await
    .expect("create flakes");
}

/// Stores shuffled flakes in the backend's 16-byte column and checks that
/// `ORDER BY id` (through SeaORM and plain SQL) and `WHERE id > ..` follow
/// time order; returns the round trips.
async fn flake128_round_trip(db: &DatabaseConnection) -> usize {
    use flakeid_flake128::Flake128;
    use sea_orm::{
        ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    };

    let backend = db.get_database_backend();
    create_flakes_table(db).await;
    let as_text: fn(Flake128) -> String = match backend {
        DatabaseBackend::Postgres => |f| f.to_string(),
        _ => schemes_common::flake_hex,
    };

    let shuffled = schemes_common::flake128_fixtures();
    let sorted = schemes_common::in_time_order(&shuffled);
    let mut by_id = sorted.clone();
    by_id.sort();
    assert_eq!(by_id, sorted, "Flake128's Ord is time order");
    let model = |f: Flake128| {
        let pos = sorted.iter().position(|s| *s == f).expect("a fixture");
        flake::Model {
            id: f,
            pos: i32::try_from(pos).expect("few fixtures"),
            parent: pos.checked_sub(1).map(|p| sorted[p]),
        }
    };

    let inserted = flake::ActiveModel::from(model(shuffled[0]))
        .insert(db)
        .await
        .expect("insert one flake");
    assert_eq!(inserted, model(shuffled[0]));
    flake::Entity::insert_many(
        shuffled[1..]
            .iter()
            .map(|f| flake::ActiveModel::from(model(*f))),
    )
    .exec(db)
    .await
    .expect("insert_many flakes");

    let rows = flake::Entity::find()
        .order_by_asc(flake::Column::Id)
        .all(db)
        .await
        .expect("select flakes");
    let expected: Vec<flake::Model> = sorted.iter().map(|f| model(*f)).collect();
    assert_eq!(rows, expected, "ORDER BY id through SeaORM is time order");
    for f in &shuffled {
        let found = flake::Entity::find_by_id(*f)
            .one(db)
            .await
            .expect("find_by_id");
        assert_eq!(found, Some(model(*f)));
    }
    for (k, f) in sorted.iter().enumerate() {
        let later = flake::Entity::find()
            .filter(flake::Column::Id.gt(*f))
            .count(db)
            .await
            .expect("count later flakes");
        assert_eq!(later as usize, sorted.len() - k - 1, "flakes after {f}");
    }

    let text = if backend == DatabaseBackend::Postgres {
        "CAST(id AS TEXT)"
    } else {
        "HEX(id)"
    };
    let sql = format!("SELECT pos, {text} AS id_text FROM flakes ORDER BY id");
    let raw = db
        .query_all_raw(Statement::from_string(backend, &sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let stored: Vec<(i32, String)> = raw
        .iter()
        .map(|r| {
            (
                r.try_get_by_index(0).expect("pos"),
                r.try_get_by_index(1).expect("id text"),
            )
        })
        .collect();
    let expected: Vec<(i32, String)> = sorted
        .iter()
        .enumerate()
        .map(|(i, f)| (i32::try_from(i).expect("few fixtures"), as_text(*f)))
        .collect();
    assert_eq!(
        stored, expected,
        "ORDER BY id in plain SQL; stored bytes are to_bytes()"
    );
    rows.len()
}

/// Runs `inserts` (plain SQL; the database makes the keys) between two
/// readings of the database's clock, `clock` (a query of one BIGINT, in
/// the unit of the keys' time): the readings before and after.
async fn clock_around(db: &DatabaseConnection, clock: &str, inserts: &[String]) -> (u64, u64) {
    let now = async || {
        let row = db
            .query_one_raw(Statement::from_string(db.get_database_backend(), clock))
            .await
            .unwrap_or_else(|e| panic!("{clock}: {e}"))
            .expect("one row");
        u64::try_from(row.try_get_by_index::<i64>(0).expect("a BIGINT")).expect("after 1970")
    };
    let before = now().await;
    for insert in inserts {
        db.execute_unprepared(insert)
            .await
            .unwrap_or_else(|e| panic!("{insert}: {e}"));
    }
    (before, now().await)
}

macro_rules! scheme_tests {
    ($($db:ident => $connect:expr;)*) => {$(
        mod $db {
            use super::*;

            #[tokio::test]
            async fn every_preset_id_round_trips_as_bigint_and_decodes() {
                let (_guard, db) = $connect.await;
                let n = presets_round_trip(&db).await;
                eprintln!("{}: {n} preset IDs round-tripped through SeaORM", stringify!($db));
                assert!(n >= 9 * schemes_common::GENERATED);
            }

            #[tokio::test]
            async fn decimal_trace_and_permuted_ids_round_trip_as_bigint_and_decode() {
                let (_guard, db) = $connect.await;
                let n = extra_schemes_round_trip(&db).await;
                eprintln!("{}: {n} other-scheme IDs round-tripped through SeaORM", stringify!($db));
            }

            #[tokio::test]
            async fn flake128_keys_order_by_time_in_the_database() {
                let (_guard, db) = $connect.await;
                let n = flake128_round_trip(&db).await;
                eprintln!("{}: {n} Flake128 keys round-tripped through SeaORM", stringify!($db));
            }

            /// Sixteen zero bytes stored by other means are not a flake.
            #[tokio::test]
            async fn flake128_column_holding_zero_is_rejected_on_read() {
                let (_guard, db) = $connect.await;
                create_flakes_table(&db).await;
                let zero = if db.get_database_backend() == DatabaseBackend::Postgres {
                    "'00000000-0000-0000-0000-000000000000'"
                } else {
                    "X'00000000000000000000000000000000'"
                };
                let insert =
                    format!("INSERT INTO flakes (id, pos, parent) VALUES ({zero}, 0, NULL)");
                let err = read_error::<flake::Entity>(&db, &insert, "zero is not a Flake128").await;
                assert!(err.to_string().contains("0 is not a valid Flake128"), "{err}");
            }

            /// A DecimalId stored by other means whose counter is 0
            /// breaks the scheme's rules: reading it is an error naming it.
            #[tokio::test]
            async fn decimal_id_with_counter_zero_is_rejected_on_read() {
                let (_guard, db) = $connect.await;
                create_table(&db, decimal_id::Entity).await;
                let err = read_error::<decimal_id::Entity>(
                    &db,
                    "INSERT INTO ids_decimal_id (id, copy, label) VALUES (9200065, NULL, 'counter 0')",
                    "counter 0 is not a DecimalId",
                )
                .await
                .to_string();
                assert!(
                    err.contains("9200065 is not a valid LegibleId: its counter is 0"),
                    "{err}"
                );
            }

            /// A value stored by other means that the JavaScript-safe
            /// layout cannot hold is an error naming it, not an ID.
            #[tokio::test]
            async fn js_safe_key_above_2_pow_53_is_rejected_on_read() {
                let (_guard, db) = $connect.await;
                create_table(&db, js_safe::Entity).await;
                let err = read_error::<js_safe::Entity>(
                    &db,
                    "INSERT INTO ids_js_safe (id, copy, label) VALUES (9007199254740992, NULL, 'too big')",
                    "2^53 is not a JsSafeId",
                )
                .await;
                assert!(err.to_string().contains("9007199254740992"), "{err}");
            }
        }
    )*};
}

use seaorm_connect::{mysql, postgres, sqlite};

scheme_tests! {
    on_sqlite => sqlite();
    on_postgres => postgres();
    on_mariadb => mysql();
}

/// Instagram generates its IDs inside PostgreSQL: a PL/pgSQL function over a
/// per-shard sequence is the key column's default. IDs it stores decode with
/// `presets::instagram()` into the shard and the sequence mod 1024.
#[tokio::test]
async fn instagram_ids_made_by_a_plpgsql_default_decode_with_the_instagram_preset() {
    use flakeid_core::layout::Layout;
    use flakeid_core::layout::presets;

    let (_guard, db) = postgres().await;
    let layout = presets::instagram();
    // The function of Instagram's post, with the preset's epoch and widths:
    // time << (13 + 10) | shard << 10 | nextval mod 1024.
    db.execute_unprepared(&format!(
        r#"
        CREATE SEQUENCE ids_instagram_seq START 1021;
        CREATE FUNCTION instagram_next_id(shard_id int, OUT result bigint) AS $$
        DECLARE
            our_epoch bigint := {epoch};
            seq_id bigint;
            now_millis bigint;
        BEGIN
            SELECT nextval('ids_instagram_seq') % 1024 INTO seq_id;
            SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
            result := (now_millis - our_epoch) << {time_shift};
            result := result | (shard_id::bigint << {shard_shift});
            result := result | (seq_id);
        END;
        $$ LANGUAGE PLPGSQL;
        CREATE TABLE ids_instagram (
            id bigint NOT NULL DEFAULT instagram_next_id(1234) PRIMARY KEY,
            copy bigint NULL,
            label text NOT NULL
        );
        "#,
        epoch = layout.epoch_millis(),
        time_shift = layout.node_bits() + layout.sequence_bits(),
        shard_shift = layout.sequence_bits(),
    ))
    .await
    .expect("install instagram_next_id");

    let photos: Vec<String> = (0..6)
        .map(|i| format!("INSERT INTO ids_instagram (label) VALUES ('photo {i}')"))
        .collect();
    let (before, after) = clock_around(
        &db,
        "SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint",
        &photos,
    )
    .await;

    // In insertion order, not key order: when nextval wraps mod 1024 within
    // one millisecond, the later row gets the smaller key. That is how
    // Instagram's function works (a flakeid generator waits for the next
    // tick instead).
    let rows = instagram::by_label(&db).await;
    let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "photo 0", "photo 1", "photo 2", "photo 3", "photo 4", "photo 5"
        ]
    );
    // nextval gives 1021..=1026: the sequence part wraps at 1024.
    let expected_sequences = [1021, 1022, 1023, 0, 1, 2];
    for (row, sequence) in rows.iter().zip(expected_sequences) {
        let d = row.id.decode();
        assert_eq!(d.field("shard"), Some(1234), "shard of {}", row.id);
        assert_eq!(
            d.field("sequence"),
            Some(sequence),
            "sequence of {}",
            row.id
        );
        let millis = layout.timestamp_millis(row.id.get().unsigned_abs());
        assert!(
            (before..=after).contains(&millis),
            "{millis} within [{before}, {after}]"
        );
    }
}

/// Article 003 also makes its decimal IDs inside MySQL, for fast batch
/// inserts: seconds since its epoch followed by 9 digits taken from
/// `uuid()`. Such IDs decode with a decimal layout of 1 s ticks and 9
/// sequence digits. The article's SQL needs two fixes: its `right(..)` has a
/// misplaced parenthesis, and without `LPAD` a value below 10^8 (about 2 %
/// of them) gives fewer than 9 digits, so the ID's time would be read 10×
/// too small.
#[tokio::test]
async fn article_003_ids_made_in_mariadb_sql_decode_with_a_decimal_layout() {
    use flakeid_schemes::DecimalLayout;

    const EPOCH_SECONDS: u64 = 1_293_858_000; // the article's @epoch
    let layout = DecimalLayout::builder()
        .time_digits(10)
        .sequence_digits(9)
        .tick_millis(1000)
        .epoch_millis(EPOCH_SECONDS * 1000)
        .build()
        .expect("seconds + 9 digits layout");

    let (_guard, db) = mysql().await;
    create_table(&db, wide::Entity).await;
    let id_sql = format!(
        "CONCAT(UNIX_TIMESTAMP() - {EPOCH_SECONDS}, LPAD(RIGHT(CONV(SUBSTRING(UUID(), 1, 8), 16, 10), 9), 9, '0'))"
    );
    let values: Vec<String> = (0..8)
        .map(|i| format!("({id_sql}, NULL, 'a{i}')"))
        .collect();
    let (before, after) = clock_around(
        &db,
        "SELECT CAST(UNIX_TIMESTAMP() AS SIGNED)",
        &[format!(
            "INSERT INTO ids_wide (id, copy, label) VALUES {}",
            values.join(", ")
        )],
    )
    .await;

    let rows = wide::by_label(&db).await;
    assert_eq!(rows.len(), 8);
    let text = db
        .query_all_raw(Statement::from_string(
            DatabaseBackend::MySql,
            "SELECT CAST(id AS CHAR) FROM ids_wide ORDER BY label",
        ))
        .await
        .expect("ids as text");
    for (row, text) in rows.iter().zip(&text) {
        let raw = row.id.get().unsigned_abs();
        let parts = layout.decompose_checked(raw).expect("within the layout");
        let seconds = EPOCH_SECONDS + parts.tick;
        assert!(
            (before..=after).contains(&seconds),
            "{raw}: {seconds} within [{before}, {after}]"
        );
        assert!(parts.sequence < 1_000_000_000);
        let stored: String = text.try_get_by_index(0).expect("text");
        assert_eq!(
            stored,
            format!("{}{:09}", parts.tick, parts.sequence),
            "digits of {raw}"
        );
    }
}
