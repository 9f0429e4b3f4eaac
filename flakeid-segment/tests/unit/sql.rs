//! Unit tests of `src/sql.rs`: the statements each dialect gets
//! (crate-private, so these run as the module's `tests`).

use super::*;

#[test]
fn the_advance_is_one_statement_per_dialect() {
    assert_eq!(
        SegmentSql::new(Dialect::Postgres)
            .advance("orders", 1_000)
            .sql,
        "UPDATE \"flakeid_segments\" SET \"max_id\" = \"max_id\" + $1, \"step\" = $2, \
         \"updated_at\" = CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT) \
         WHERE \"name\" = $3 AND \"max_id\" <= $4 RETURNING \"max_id\""
    );
    let m = SegmentSql::new(Dialect::MySql).advance("orders", 500);
    assert_eq!(
        m.sql,
        "UPDATE `flakeid_segments` SET `max_id` = LAST_INSERT_ID(`max_id` + ?), `step` = ?, \
         `updated_at` = CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) \
         DIV 1000 AS SIGNED) WHERE `name` = ? AND `max_id` <= ?"
    );
    assert_eq!(
        m.values,
        vec![
            SqlValue::BigInt(500),
            SqlValue::BigInt(500),
            SqlValue::Text("orders".into()),
            SqlValue::BigInt(i64::MAX - 500),
        ]
    );
    let s = SegmentSql::new(Dialect::Sqlite).advance("o'rders", 1);
    assert_eq!(
        s.sql,
        "UPDATE \"flakeid_segments\" SET \"max_id\" = \"max_id\" + ?, \"step\" = ?, \
         \"updated_at\" = CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) \
         WHERE \"name\" = ? AND \"max_id\" <= ? RETURNING \"max_id\""
    );
    assert_eq!(s.values[2], SqlValue::Text("o'rders".into()));
}

#[test]
fn rows_are_created_idempotently() {
    let p = SegmentSql::new(Dialect::Postgres).insert_row("orders", 1, 100);
    assert_eq!(
        p.sql,
        "INSERT INTO \"flakeid_segments\" (\"name\", \"max_id\", \"step\", \"updated_at\") \
         VALUES ($1, $2, $3, CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS \
         BIGINT)) ON CONFLICT (\"name\") DO NOTHING"
    );
    assert_eq!(p.values[1], SqlValue::BigInt(0));
    let m = SegmentSql::new(Dialect::MySql).insert_row("orders", 1_000, 100);
    assert!(
        m.sql.ends_with(" ON DUPLICATE KEY UPDATE `name` = `name`"),
        "{}",
        m.sql
    );
    assert_eq!(m.values[1], SqlValue::BigInt(999));
}

#[test]
fn table_names_are_checked() {
    let long = "t".repeat(64);
    assert!(matches!(
        SegmentSql::with_table(Dialect::Postgres, &long),
        Err(SqlNameError::TooLong { .. })
    ));
    let ok = SegmentSql::with_table(Dialect::Postgres, "my \"ids\"").unwrap();
    assert!(ok.drop_table().ends_with("\"my \"\"ids\"\"\""));
}
