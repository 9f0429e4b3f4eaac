//! The SQL that `offset_range::sql` builds from names, run with hostile
//! names on PostgreSQL, MariaDB and SQLite: quotes, backslashes, comment
//! markers, semicolons, unicode. Each object must exist under exactly the
//! name given (looked up in the catalog with the name as a bound
//! parameter) and still refuse a value past its range. PostgreSQL also runs
//! with `standard_conforming_strings = off` and MariaDB with
//! `NO_BACKSLASH_ESCAPES`, the escaping modes a literal must survive.

use crate::seaorm_connect;

use flakeid_schemes::{LocationRange, OffsetRanges};
use flakeid_sql::SqlNameError;
use flakeid_tests::db::TestDb;
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseBackend, DatabaseConnection, Statement,
    Value,
};

/// Names that break naive quoting in at least one dialect or mode.
const HOSTILE: &[&str] = &[
    "plain",
    "it's",
    r"it\'s",
    r#"say "hi""#,
    "back`tick",
    r"back\slash",
    r"ends in a backslash\",
    r"\",
    r"\\'",
    "semi; DROP TABLE victims; --",
    "-- line comment",
    "/* block */ comment",
    "*/ closer",
    "MixedCase",
    "Ünïcødé 名前",
    "new\nline",
    "$$ dollar $1",
    "' OR '1'='1",
    "?",
];

/// Location 1 of 3 locations of 10: `[10, 20)`.
fn range() -> LocationRange {
    OffsetRanges::decimal(1, 3)
        .and_then(|r| r.range(1))
        .expect("location 1 of 3")
}

async fn connect(test_db: &TestDb, session_setting: Option<&'static str>) -> DatabaseConnection {
    let mut opts = ConnectOptions::new(test_db.url());
    if let Some(setting) = session_setting {
        opts.map_sqlx_postgres_pool_opts(move |pool| {
            pool.after_connect(move |conn, _| {
                Box::pin(async move { sqlx::Executor::execute(conn, setting).await.map(drop) })
            })
        });
        opts.map_sqlx_mysql_pool_opts(move |pool| {
            pool.after_connect(move |conn, _| {
                Box::pin(async move { sqlx::Executor::execute(conn, setting).await.map(drop) })
            })
        });
    }
    Database::connect(opts).await.expect("connect")
}

async fn execute(db: &DatabaseConnection, sql: &str) {
    db.execute_unprepared(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}\nfailed: {e}"));
}

/// One `BIGINT` from a query with bound parameters.
async fn query_i64(db: &DatabaseConnection, sql: &str, values: Vec<Value>) -> Result<i64, String> {
    let statement = Statement::from_sql_and_values(db.get_database_backend(), sql, values);
    let row = db
        .query_one_raw(statement)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{sql}: no row"))?;
    row.try_get_by_index::<i64>(0).map_err(|e| e.to_string())
}

async fn query_text(db: &DatabaseConnection, sql: &str) -> String {
    let statement = Statement::from_string(db.get_database_backend(), sql);
    db.query_one_raw(statement)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or_else(|| panic!("{sql}: no row"))
        .try_get_by_index::<String>(0)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The statement for a name the database keeps.
fn ok(sql: Result<String, SqlNameError>) -> String {
    sql.unwrap_or_else(|e| panic!("{e}"))
}

fn text(value: &str) -> Value {
    Value::from(value.to_owned())
}

/// Takes every value of the range from `next_value`, in order, then checks
/// that the next one is refused with `refusal`.
async fn drain(db: &DatabaseConnection, name: &str, next_value: &str, refusal: &str) {
    let range = range();
    for expected in range.start..range.end {
        let value = query_i64(db, next_value, vec![])
            .await
            .unwrap_or_else(|e| panic!("{name:?}: {next_value}: {e}"));
        assert_eq!(
            u64::try_from(value).ok(),
            Some(expected),
            "{name:?}: {next_value}"
        );
    }
    let err = query_i64(db, next_value, vec![])
        .await
        .expect_err("past the range");
    assert!(
        err.contains(refusal),
        "{name:?}: expected {refusal:?} in {err}"
    );
}

/// Where a database keeps a range's counter under a name: what the counter
/// is, the statements that make one and take its next value (from the
/// library), the error past the range, and the catalog query counting
/// such objects (with the `AND …` that picks one by name, a bound
/// parameter).
struct Counters {
    kind: &'static str,
    create: fn(&LocationRange, &str) -> Result<String, SqlNameError>,
    next_value: fn(&str) -> Result<String, SqlNameError>,
    refusal: &'static str,
    catalog: (&'static str, &'static str),
}

const POSTGRES_SEQUENCES: Counters = Counters {
    kind: "sequence",
    create: LocationRange::postgres_create_sequence,
    next_value: |name| LocationRange::postgres_next_value(name).map(|e| format!("SELECT {e}")),
    refusal: "reached maximum value of sequence",
    catalog: (
        "SELECT COUNT(*) FROM pg_class WHERE relkind = 'S'",
        "AND relname = $1",
    ),
};

/// Any table counts: a sequence is one, and nothing else may be made.
const MARIADB_SEQUENCES: Counters = Counters {
    kind: "sequence",
    create: LocationRange::mariadb_create_sequence,
    next_value: |name| LocationRange::mariadb_next_value(name).map(|e| format!("SELECT {e}")),
    refusal: "has run out",
    catalog: (
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
        "AND TABLE_TYPE = 'SEQUENCE' AND TABLE_NAME = ?",
    ),
};

/// Two statements, run as one text (a name may hold `; `).
const SQLITE_COUNTERS: Counters = Counters {
    kind: "counter table",
    create: LocationRange::sqlite_create_counter,
    next_value: LocationRange::sqlite_next_value,
    refusal: "CHECK constraint failed",
    catalog: (
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
        "AND name = ?",
    ),
};

/// Makes a counter under each hostile name: each is found in the catalog
/// under exactly that name and hands out its range, then refuses; in the
/// end there is one per name, nothing else.
async fn counters_have_exactly_the_names_given(db: &DatabaseConnection, counters: &Counters) {
    let (all, named) = counters.catalog;
    for &name in HOSTILE {
        execute(db, &ok((counters.create)(&range(), name))).await;
        let found = query_i64(db, &format!("{all} {named}"), vec![text(name)])
            .await
            .expect("catalog");
        assert_eq!(found, 1, "{} {name:?}", counters.kind);
        let next = ok((counters.next_value)(name));
        drain(db, name, &next, counters.refusal).await;
    }
    let made = query_i64(db, all, vec![]).await.expect("catalog");
    assert_eq!(
        usize::try_from(made).ok(),
        Some(HOSTILE.len()),
        "one {} per name, nothing else",
        counters.kind
    );
}

/// A backtick-quoted MySQL identifier, written independently of the
/// library for the test's own `CREATE TABLE`.
fn mysql_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The MySQL trigger with the hostile name as trigger, table and column
/// name: the table counts from the range's start, the trigger refuses the
/// first value past it with a message naming table and column exactly.
async fn mysql_trigger_has_exactly_the_names_given(db: &DatabaseConnection) {
    let range = range();
    for (i, &name) in HOSTILE.iter().enumerate() {
        // Distinct tables per name: the column name is the hostile one too.
        let table = format!("{name} t{i}");
        let column = name;
        let trigger = format!("{name} in range");
        execute(
            db,
            &format!(
                "CREATE TABLE {} ({} BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, label TEXT NOT NULL) \
                 ENGINE = InnoDB",
                mysql_ident(&table),
                mysql_ident(column)
            ),
        )
        .await;
        execute(db, &ok(range.mysql_auto_increment_start(&table))).await;
        execute(db, &ok(range.mysql_range_trigger(&trigger, &table, column))).await;
        let found = query_i64(
            db,
            "SELECT COUNT(*) FROM information_schema.TRIGGERS \
             WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME = ? \
             AND EVENT_OBJECT_TABLE = ? AND ACTION_TIMING = 'AFTER'",
            vec![text(&trigger), text(&table)],
        )
        .await
        .expect("catalog");
        assert_eq!(found, 1, "trigger {trigger:?} on {table:?}");

        let insert = format!("INSERT INTO {} (label) VALUES ('row')", mysql_ident(&table));
        execute(db, &insert).await;
        execute(
            db,
            &format!(
                "ALTER TABLE {} AUTO_INCREMENT = {}",
                mysql_ident(&table),
                range.last()
            ),
        )
        .await;
        execute(db, &insert).await;
        let err = db
            .execute_unprepared(&insert)
            .await
            .expect_err("the value past the range")
            .to_string();
        let message = format!(
            "{table}.{column} outside location 1's range [{}, {})",
            range.start, range.end
        );
        assert!(
            err.contains(&message),
            "{name:?}: expected {message:?} in {err}"
        );
        let stored = query_i64(
            db,
            &format!(
                "SELECT COUNT(*) FROM {} WHERE {} IN ({}, {})",
                mysql_ident(&table),
                mysql_ident(column),
                range.start,
                range.last()
            ),
            vec![],
        )
        .await
        .expect("count");
        assert_eq!(stored, 2, "{name:?}: the first and last value of the range");
    }
}

#[tokio::test]
async fn postgres_sequences_have_exactly_the_names_given_with_standard_strings() {
    let test_db = flakeid_tests::db::postgres().await;
    let db = connect(&test_db, None).await;
    assert_eq!(
        query_text(&db, "SHOW standard_conforming_strings").await,
        "on"
    );
    counters_have_exactly_the_names_given(&db, &POSTGRES_SEQUENCES).await;
}

#[tokio::test]
async fn postgres_sequences_have_exactly_the_names_given_with_backslash_escapes() {
    let test_db = flakeid_tests::db::postgres().await;
    let db = connect(&test_db, Some("SET standard_conforming_strings = off")).await;
    assert_eq!(
        query_text(&db, "SHOW standard_conforming_strings").await,
        "off"
    );
    counters_have_exactly_the_names_given(&db, &POSTGRES_SEQUENCES).await;
}

const NO_BACKSLASH_ESCAPES: &str =
    "SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES')";

async fn mariadb(no_backslash_escapes: bool) -> (TestDb, DatabaseConnection) {
    let test_db = flakeid_tests::db::mysql().await;
    let setting = no_backslash_escapes.then_some(NO_BACKSLASH_ESCAPES);
    let db = connect(&test_db, setting).await;
    let mode = query_text(&db, "SELECT @@SESSION.sql_mode").await;
    assert_eq!(
        mode.contains("NO_BACKSLASH_ESCAPES"),
        no_backslash_escapes,
        "sql_mode {mode}"
    );
    (test_db, db)
}

#[tokio::test]
async fn mariadb_sequences_have_exactly_the_names_given_with_backslash_escapes() {
    let (_guard, db) = mariadb(false).await;
    counters_have_exactly_the_names_given(&db, &MARIADB_SEQUENCES).await;
}

#[tokio::test]
async fn mariadb_sequences_have_exactly_the_names_given_with_no_backslash_escapes() {
    let (_guard, db) = mariadb(true).await;
    counters_have_exactly_the_names_given(&db, &MARIADB_SEQUENCES).await;
}

#[tokio::test]
async fn mysql_trigger_has_exactly_the_names_given_with_backslash_escapes() {
    let (_guard, db) = mariadb(false).await;
    mysql_trigger_has_exactly_the_names_given(&db).await;
}

#[tokio::test]
async fn mysql_trigger_has_exactly_the_names_given_with_no_backslash_escapes() {
    let (_guard, db) = mariadb(true).await;
    mysql_trigger_has_exactly_the_names_given(&db).await;
}

#[tokio::test]
async fn sqlite_counters_have_exactly_the_names_given() {
    let ((), db) = seaorm_connect::sqlite().await;
    assert_eq!(db.get_database_backend(), DatabaseBackend::Sqlite);
    counters_have_exactly_the_names_given(&db, &SQLITE_COUNTERS).await;
}

/// 63 bytes of name (two-byte characters and one ASCII letter).
fn postgres_longest_name() -> String {
    format!("{}x", "é".repeat(31))
}

/// PostgreSQL keeps 63 bytes of a name: such a name is kept exactly; one of
/// 64 bytes is refused by the library, because PostgreSQL would silently
/// cut it and create the sequence under another name.
#[tokio::test]
async fn postgres_keeps_63_byte_names_and_would_cut_longer_ones() {
    let test_db = flakeid_tests::db::postgres().await;
    let db = connect(&test_db, None).await;
    let longest = postgres_longest_name();
    assert_eq!(longest.len(), 63);
    execute(&db, &ok(range().postgres_create_sequence(&longest))).await;
    let next = format!(
        "SELECT {}",
        ok(LocationRange::postgres_next_value(&longest))
    );
    assert_eq!(query_i64(&db, &next, vec![]).await, Ok(10));

    let too_long = format!("{longest}y");
    assert!(matches!(
        range().postgres_create_sequence(&too_long),
        Err(SqlNameError::TooLong {
            len: 64,
            max: 63,
            ..
        })
    ));
    // What the library spares: sent anyway, the name is cut to 63 bytes,
    // which here is the name of the sequence made above.
    let err = db
        .execute_unprepared(&format!("CREATE SEQUENCE \"{too_long}\""))
        .await
        .expect_err("the cut name is taken");
    assert!(err.to_string().contains("already exists"), "{err}");
    let other = format!("{}zz", "é".repeat(31));
    execute(&db, &format!("CREATE SEQUENCE \"{other}\"")).await;
    let count = |name: String| {
        let db = &db;
        async move {
            query_i64(
                db,
                "SELECT COUNT(*) FROM pg_class WHERE relkind = 'S' AND relname = $1",
                vec![text(&name)],
            )
            .await
            .expect("catalog")
        }
    };
    assert_eq!(count(other.clone()).await, 0, "PostgreSQL kept 64 bytes");
    assert_eq!(
        count(format!("{}z", "é".repeat(31))).await,
        1,
        "cut to 63 bytes"
    );
}

/// MariaDB keeps 64 characters of any width up to U+FFFF in a sequence,
/// table, column and trigger name. What it refuses (65 characters,
/// characters above U+FFFF, a trailing space) the library refuses first,
/// with a typed error.
#[tokio::test]
async fn mariadb_keeps_64_character_names_and_the_library_refuses_what_it_cannot() {
    let (_guard, db) = mariadb(false).await;
    let range = range();
    let longest = "é".repeat(64);
    execute(&db, &ok(range.mariadb_create_sequence(&longest))).await;
    let next = format!("SELECT {}", ok(LocationRange::mariadb_next_value(&longest)));
    assert_eq!(query_i64(&db, &next, vec![]).await, Ok(10));

    // Table and column of 64 characters: the message would pass MySQL's 128
    // characters, so it leaves the names out.
    let table = "т".repeat(64);
    let column = "ü".repeat(64);
    execute(
        &db,
        &format!(
            "CREATE TABLE {} ({} BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE = InnoDB",
            mysql_ident(&table),
            mysql_ident(&column)
        ),
    )
    .await;
    execute(&db, &ok(range.mysql_auto_increment_start(&table))).await;
    execute(
        &db,
        &ok(range.mysql_range_trigger(&longest, &table, &column)),
    )
    .await;
    let insert = format!("INSERT INTO {} () VALUES ()", mysql_ident(&table));
    execute(&db, &insert).await;
    execute(
        &db,
        &format!("ALTER TABLE {} AUTO_INCREMENT = 20", mysql_ident(&table)),
    )
    .await;
    let err = db
        .execute_unprepared(&insert)
        .await
        .expect_err("past the range")
        .to_string();
    assert!(
        err.contains("value outside location 1's range [10, 20)"),
        "{err}"
    );
    let stored = query_i64(
        &db,
        &format!("SELECT COUNT(*) FROM {}", mysql_ident(&table)),
        vec![],
    )
    .await;
    assert_eq!(stored, Ok(1));

    // Each refused by the library, and by the server when sent anyway.
    let refused = [
        (format!("{longest}x"), "too long"),
        ("smile 😀".to_owned(), "above U+FFFF"),
        ("trailing ".to_owned(), "trailing space"),
    ];
    for (name, why) in refused {
        let err = range.mariadb_create_sequence(&name).expect_err(why);
        let expected = match why {
            "too long" => matches!(
                err,
                SqlNameError::TooLong {
                    len: 65,
                    max: 64,
                    ..
                }
            ),
            "above U+FFFF" => matches!(
                err,
                SqlNameError::CharacterAboveBmp {
                    character: '😀',
                    ..
                }
            ),
            _ => matches!(err, SqlNameError::TrailingSpace { .. }),
        };
        assert!(expected, "{name:?}: {err:?}");
        assert!(err.to_string().contains(&format!("{name:?}")), "{err}");
        let by_hand = format!("CREATE SEQUENCE {}", mysql_ident(&name));
        assert!(
            db.execute_unprepared(&by_hand).await.is_err(),
            "MariaDB accepted {name:?}"
        );
    }
}

/// SQLite keeps `sqlite_` table names for itself; the library refuses them
/// for the counter table, and so would SQLite.
#[tokio::test]
async fn sqlite_reserved_table_names_are_refused() {
    let ((), db) = seaorm_connect::sqlite().await;
    let name = "sqlite_counter";
    assert!(matches!(
        range().sqlite_create_counter(name),
        Err(SqlNameError::ReservedPrefix { .. })
    ));
    let by_hand = format!("CREATE TABLE \"{name}\" (next INTEGER)");
    assert!(db.execute_unprepared(&by_hand).await.is_err());
}
