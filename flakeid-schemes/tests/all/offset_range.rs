//! Offset ranges: the configuration's edges, composing and decomposing
//! IDs, and the SQL each database gets for a location's range (names
//! quoted, or refused when the database would not keep them).

use flakeid_schemes::{LocationRange, OffsetRangeError, OffsetRanges};
use flakeid_sql::SqlNameError;

const MAX_ID: u64 = i64::MAX as u64;

#[test]
fn config_edges() {
    assert_eq!(
        OffsetRanges::new(0, 1),
        Err(OffsetRangeError::RangeSizeTooSmall { range_size: 0 })
    );
    assert_eq!(
        OffsetRanges::new(1, 1),
        Err(OffsetRangeError::RangeSizeTooSmall { range_size: 1 })
    );
    assert_eq!(
        OffsetRanges::decimal(0, 1),
        Err(OffsetRangeError::RangeSizeTooSmall { range_size: 1 })
    );
    assert_eq!(OffsetRanges::new(2, 0), Err(OffsetRangeError::NoLocations));
    assert_eq!(
        OffsetRanges::decimal(19, 1),
        Err(OffsetRangeError::ExponentTooLarge { exponent: 19 })
    );
    assert_eq!(
        OffsetRanges::decimal(u32::MAX, 1),
        Err(OffsetRangeError::ExponentTooLarge { exponent: u32::MAX })
    );
    // Exactly filling the domain is fine; one more location is not.
    let full = OffsetRanges::new(2, 1 << 62).expect("2^62 ranges of 2");
    assert_eq!(full.range((1 << 62) - 1).expect("last").last(), MAX_ID);
    assert_eq!(
        OffsetRanges::new(2, (1 << 62) + 1),
        Err(OffsetRangeError::TooManyLocations {
            range_size: 2,
            max_locations: (1 << 62) + 1,
            max: 1 << 62
        })
    );
    let nine = OffsetRanges::decimal(18, 9).expect("9 ranges of 10^18");
    assert_eq!(nine.range(8).expect("last").last(), 9 * 10u64.pow(18) - 1);
    // One range as large as the domain: location 0 owns all of it.
    let one = OffsetRanges::new(1 << 63, 1).expect("one range");
    assert_eq!(
        one.range(0),
        Ok(LocationRange {
            location: 0,
            start: 1,
            end: 1 << 63
        })
    );
    assert_eq!(one.compose(0, MAX_ID), Ok(MAX_ID));
    assert_eq!(one.decompose(MAX_ID), Ok((0, MAX_ID)));
    assert!(OffsetRanges::new(u64::MAX, 1).is_err());
}

#[test]
fn location_out_of_range_is_an_error_everywhere() {
    let ranges = OffsetRanges::decimal(2, 3).expect("config");
    let err = OffsetRangeError::LocationOutOfRange {
        location: 3,
        max_locations: 3,
    };
    assert_eq!(ranges.range(3), Err(err.clone()));
    assert_eq!(ranges.compose(3, 1), Err(err.clone()));
    assert_eq!(ranges.check(301, 3), Err(err));
    assert_eq!(
        ranges.decompose(300),
        Err(OffsetRangeError::NotInAnyRange { id: 300, end: 300 })
    );
    assert_eq!(
        ranges.decompose(u64::MAX),
        Err(OffsetRangeError::NotInAnyRange {
            id: u64::MAX,
            end: 300
        })
    );
}

#[test]
fn location_zero_skips_zero() {
    let ranges = OffsetRanges::decimal(2, 3).expect("config");
    assert_eq!(
        ranges.compose(0, 0),
        Err(OffsetRangeError::BelowRange {
            location: 0,
            value: 0,
            start: 1
        })
    );
    assert_eq!(
        ranges.check(0, 0),
        Err(OffsetRangeError::BelowRange {
            location: 0,
            value: 0,
            start: 1
        })
    );
    assert_eq!(
        ranges.decompose(0),
        Err(OffsetRangeError::NotInAnyRange { id: 0, end: 300 })
    );
    assert_eq!(ranges.compose(0, 1), Ok(1));
}

#[test]
fn outgrowing_is_detected_not_wrapped_into_the_next_location() {
    let ranges = OffsetRanges::decimal(2, 3).expect("config");
    assert_eq!(ranges.compose(1, 99), Ok(199));
    assert_eq!(
        ranges.compose(1, 100),
        Err(OffsetRangeError::Outgrown {
            location: 1,
            value: 200,
            end: 200
        })
    );
    assert_eq!(
        ranges.compose(2, u64::MAX),
        Err(OffsetRangeError::Outgrown {
            location: 2,
            value: u64::MAX,
            end: 300
        })
    );
    assert_eq!(ranges.check(199, 1), Ok(99));
    assert_eq!(
        ranges.check(200, 1),
        Err(OffsetRangeError::Outgrown {
            location: 1,
            value: 200,
            end: 200
        })
    );
    assert_eq!(
        ranges.check(99, 1),
        Err(OffsetRangeError::BelowRange {
            location: 1,
            value: 99,
            start: 100
        })
    );
    let message = ranges.compose(1, 100).expect_err("outgrown").to_string();
    assert_eq!(
        message,
        "location 1 outgrew its range: 200 is not below the range's end 200"
    );
}

#[test]
fn compose_decompose_round_trip_over_every_value() {
    let ranges = OffsetRanges::new(7, 5).expect("config");
    for id in 1..35 {
        let (location, local) = ranges.decompose(id).expect("in a range");
        assert_eq!(ranges.compose(location, local), Ok(id));
        assert_eq!(ranges.check(id, location), Ok(local));
        assert!(ranges.range(location).expect("range").contains(id));
    }
}

#[test]
fn sql_quotes_names() {
    let range = OffsetRanges::decimal(2, 3)
        .and_then(|r| r.range(2))
        .expect("range");
    let ok = |sql: Result<String, SqlNameError>| sql.expect("a name the database keeps");
    assert_eq!(
        ok(LocationRange::postgres_next_value(r#"we"ird's"#)),
        r#"nextval('"we""ird''s"')"#
    );
    assert_eq!(
        ok(LocationRange::mariadb_next_value("a`b")),
        "NEXT VALUE FOR `a``b`"
    );
    assert!(ok(range.postgres_create_sequence("S")).contains("\"S\" AS bigint"));
    assert!(ok(range.mysql_range_trigger("t", "o'k", "id")).contains("'o''k.id outside"));
    assert_eq!(
        ok(LocationRange::sqlite_next_value(r#"a"b\"#)),
        r#"UPDATE "a""b\" SET next = next + 1 RETURNING next - 1 AS value"#
    );
}

#[test]
fn literals_with_a_backslash_read_the_same_in_every_escaping_mode() {
    let range = OffsetRanges::decimal(2, 3)
        .and_then(|r| r.range(1))
        .expect("range");
    // PostgreSQL: an E'' string, whose escapes do not depend on
    // `standard_conforming_strings`.
    assert_eq!(
        LocationRange::postgres_next_value(r"a\b'c").expect("name"),
        r#"nextval(E'"a\\b''c"')"#
    );
    // MySQL: the message as a hex string, which has no escapes at all.
    let trigger = range.mysql_range_trigger("t", r"a\", "id").expect("names");
    let hex: String = r"a\.id outside location 1's range [100, 200)"
        .bytes()
        .map(|b| format!("{b:02X}"))
        .collect();
    assert!(
        trigger.contains(&format!("MESSAGE_TEXT = _utf8mb4 X'{hex}';")),
        "{trigger}"
    );
    assert!(trigger.contains("ON `a\\` FOR EACH ROW"), "{trigger}");
}

#[test]
fn mysql_trigger_message_stays_within_128_characters() {
    let range = OffsetRanges::new(1 << 32, 1 << 31)
        .and_then(|r| r.range((1 << 31) - 1))
        .expect("the last range of the domain");
    let long = "t".repeat(64);
    let trigger = range.mysql_range_trigger("t", &long, &long).expect("names");
    let message = format!(
        "value outside location {}'s range [{}, {})",
        range.location, range.start, range.end
    );
    assert!(message.chars().count() <= 128, "{message}");
    let literal = format!("'{}'", message.replace('\'', "''"));
    assert!(trigger.contains(&literal), "{trigger}");
    // Names that fit are kept.
    let short = range.mysql_range_trigger("t", "o", "id").expect("names");
    assert!(short.contains("'o.id outside location"), "{short}");
}

#[test]
fn names_the_database_would_not_keep_are_refused() {
    let range = OffsetRanges::decimal(2, 3)
        .and_then(|r| r.range(1))
        .expect("range");
    assert_eq!(
        LocationRange::postgres_next_value(""),
        Err(SqlNameError::Empty {
            role: "sequence",
            dialect: "PostgreSQL"
        })
    );
    assert_eq!(
        range.mariadb_create_sequence("a\0b"),
        Err(SqlNameError::Nul {
            role: "sequence",
            name: "a\0b".to_owned(),
            dialect: "MySQL/MariaDB"
        })
    );
    assert!(matches!(
        range.sqlite_create_counter("\0"),
        Err(SqlNameError::Nul {
            dialect: "SQLite",
            ..
        })
    ));
    // PostgreSQL: 63 bytes are kept, 64 would be cut.
    let at_limit = format!("{}x", "é".repeat(31));
    assert_eq!(at_limit.len(), 63);
    assert!(range.postgres_create_sequence(&at_limit).is_ok());
    let over = format!("{at_limit}y");
    let err = range.postgres_create_sequence(&over).expect_err("64 bytes");
    assert_eq!(
        err,
        SqlNameError::TooLong {
            role: "sequence",
            name: over.clone(),
            dialect: "PostgreSQL",
            len: 64,
            max: 63,
            unit: "bytes"
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "the sequence name {over:?} is 64 bytes long, but PostgreSQL names hold at most \
             63 bytes"
        )
    );
    // MySQL/MariaDB: 64 characters (of any width up to U+FFFF) are kept.
    let at_limit = "é".repeat(64);
    assert!(range.mariadb_create_sequence(&at_limit).is_ok());
    assert!(matches!(
        range.mysql_auto_increment_start(&format!("{at_limit}x")),
        Err(SqlNameError::TooLong {
            role: "table",
            len: 65,
            max: 64,
            unit: "characters",
            ..
        })
    ));
    let err = range
        .mysql_range_trigger("t", "o", "smile 😀")
        .expect_err("emoji");
    assert_eq!(
        err,
        SqlNameError::CharacterAboveBmp {
            role: "column",
            name: "smile 😀".to_owned(),
            character: '😀'
        }
    );
    assert_eq!(
        err.to_string(),
        "the column name \"smile 😀\" contains '😀' (U+1F600), above U+FFFF, which MySQL \
         and MariaDB do not allow in names"
    );
    assert_eq!(
        range.mysql_range_trigger("t ", "o", "id"),
        Err(SqlNameError::TrailingSpace {
            role: "trigger",
            name: "t ".to_owned()
        })
    );
    // PostgreSQL and SQLite keep both.
    assert!(LocationRange::postgres_next_value("smile 😀 ").is_ok());
    assert!(LocationRange::sqlite_next_value("smile 😀 ").is_ok());
    // SQLite keeps `sqlite_` names for itself.
    assert_eq!(
        LocationRange::sqlite_next_value("SQLite_counter"),
        Err(SqlNameError::ReservedPrefix {
            role: "counter table",
            name: "SQLite_counter".to_owned()
        })
    );
    assert!(LocationRange::sqlite_next_value("sqlite").is_ok());
    assert!(LocationRange::postgres_next_value("sqlite_counter").is_ok());
}
