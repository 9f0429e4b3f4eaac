//! Keys the database counts out, stored through sync Diesel on PostgreSQL,
//! MySQL/MariaDB and SQLite:
//!
//! * per-location offset ranges: each location takes its IDs from its own
//!   sequence confined to its range (a one-row counter table on SQLite),
//!   the rows go in through Diesel, plain SQL reads them back, and they
//!   decode into (location, local counter); a location that outgrows its
//!   range is refused by the database, or caught by `OffsetRanges::check`
//!   when its counter does not know the range;
//! * database-produced keys (the baseline): Diesel inserts a row without a
//!   key and learns the key the database made (PostgreSQL `RETURNING`,
//!   MySQL/MariaDB `LAST_INSERT_ID()`, SQLite `last_insert_rowid()`).

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use flakeid_schemes::OffsetRangeError;
use flakeid_schemes::{LocationRange, OffsetRanges};

diesel::table! {
    orders (id) {
        id -> BigInt,
        location -> BigInt,
        label -> Text,
    }
}

diesel::table! {
    accounts (id) {
        id -> BigInt,
        name -> Text,
    }
}

#[derive(Insertable, Queryable, Selectable, Debug, PartialEq)]
#[diesel(table_name = orders)]
struct Order {
    id: i64,
    location: i64,
    label: String,
}

#[derive(QueryableByName)]
struct Value {
    #[diesel(sql_type = BigInt)]
    value: i64,
}

#[derive(QueryableByName, Debug, PartialEq)]
struct TextPair {
    #[diesel(sql_type = Text)]
    a: String,
    #[diesel(sql_type = Text)]
    b: String,
}

fn pair(a: impl ToString, b: impl ToString) -> TextPair {
    TextPair {
        a: a.to_string(),
        b: b.to_string(),
    }
}

/// Why a row could not be written.
#[derive(Debug)]
enum Refused {
    Database(diesel::result::Error),
    Range(OffsetRangeError),
    Negative(i64),
}

impl From<diesel::result::Error> for Refused {
    fn from(e: diesel::result::Error) -> Self {
        Self::Database(e)
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Database(e) => write!(f, "{e}"),
            Self::Range(e) => write!(f, "{e}"),
            Self::Negative(v) => write!(f, "the counter gave a negative value: {v}"),
        }
    }
}

/// Three locations of 100 IDs: location 1 owns 100..200, location 2 200..300.
fn ranges() -> OffsetRanges {
    OffsetRanges::decimal(2, 3).expect("3 locations of 10^2")
}

fn counter_name(location: u64) -> String {
    format!("orders_location_{location}")
}

fn execute<C: Connection>(conn: &mut C, statement: &str) {
    conn.batch_execute(statement)
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
}

/// The offset-range and database-produced cases for one backend.
macro_rules! sequence_tests {
    (
        $db:ident, $conn:ty, $connect:expr,
        create_counter: $create:expr,
        next_value: $next:expr,
        text: $text:literal,
        refusal: $refusal:literal,
        accounts: $accounts:literal,
        insert_account: $insert_account:expr $(,)?
    ) => {
        mod $db {
            use super::*;

            fn connect() -> (impl Sized, $conn) {
                $connect
            }

            fn create_counter(conn: &mut $conn, range: &LocationRange) {
                let statement = $create(&counter_name(range.location), range).expect("a plain name");
                execute(conn, &statement);
            }

            fn create_orders(conn: &mut $conn) {
                execute(
                    conn,
                    "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, location BIGINT NOT NULL, label TEXT NOT NULL)",
                );
            }

            fn next_value(conn: &mut $conn, location: u64) -> QueryResult<i64> {
                let statement = $next(&counter_name(location)).expect("a plain name");
                diesel::sql_query(statement)
                    .get_result::<Value>(conn)
                    .map(|v| v.value)
            }

            /// Takes `location`'s next ID, checks it against the range and
            /// inserts a row with it through Diesel, in one transaction
            /// (which the SQLite counter needs).
            fn insert_order(conn: &mut $conn, location: u64, label: &str) -> Result<Order, Refused> {
                conn.transaction(|conn| {
                    let id = next_value(conn, location)?;
                    let raw = u64::try_from(id).map_err(|_| Refused::Negative(id))?;
                    ranges().check(raw, location).map_err(Refused::Range)?;
                    let order = Order {
                        id,
                        location: i64::try_from(location).expect("small location"),
                        label: label.to_owned(),
                    };
                    diesel::insert_into(orders::table).values(&order).execute(conn)?;
                    Ok(order)
                })
            }

            fn stored(conn: &mut $conn, sql: &str) -> Vec<TextPair> {
                diesel::sql_query(sql)
                    .load(conn)
                    .unwrap_or_else(|e| panic!("{sql}: {e}"))
            }

            fn max_and_count(conn: &mut $conn) -> Vec<TextPair> {
                let sql = format!(
                    "SELECT CAST(MAX(id) AS {t}) AS a, CAST(COUNT(*) AS {t}) AS b FROM orders",
                    t = $text
                );
                stored(conn, &sql)
            }

            /// Two locations write interleaved; every row's key comes from
            /// its location's counter, and decodes back to that location.
            #[test]
            fn two_locations_store_ids_from_their_own_ranges() {
                let (_db, mut conn) = connect();
                let ranges = ranges();
                for location in [1, 2] {
                    create_counter(&mut conn, &ranges.range(location).expect("range"));
                }
                create_orders(&mut conn);
                for i in 0..5 {
                    for location in [2, 1] {
                        let order = insert_order(&mut conn, location, &format!("{location}/{i}"))
                            .unwrap_or_else(|e| panic!("location {location}, order {i}: {e}"));
                        assert_eq!(order.id, i64::try_from(location * 100 + i).expect("small"));
                    }
                }
                let through_diesel: Vec<Order> = orders::table
                    .order(orders::id)
                    .select(Order::as_select())
                    .load(&mut conn)
                    .expect("select through Diesel");
                assert_eq!(through_diesel.len(), 10);

                let sql = format!(
                    "SELECT CAST(id AS {t}) AS a, CAST(location AS {t}) AS b FROM orders ORDER BY id",
                    t = $text
                );
                let rows = stored(&mut conn, &sql);
                let expected: Vec<TextPair> = [100u64, 101, 102, 103, 104, 200, 201, 202, 203, 204]
                    .iter()
                    .map(|id| pair(id, id / 100))
                    .collect();
                assert_eq!(rows, expected, "keys as stored");
                for row in &rows {
                    let id: u64 = row.a.parse().expect("decimal key");
                    let (location, local) = ranges.decompose(id).expect("in a range");
                    assert_eq!(location.to_string(), row.b, "{id}");
                    assert_eq!(local, id % 100);
                }
            }

            /// The database refuses to go past the last value of a
            /// location's range: the location takes all 100 of its IDs,
            /// then the next one fails and nothing else is written.
            #[test]
            fn the_database_refuses_a_location_that_outgrows_its_range() {
                let (_db, mut conn) = connect();
                create_counter(&mut conn, &ranges().range(1).expect("range"));
                create_orders(&mut conn);
                for i in 0..100 {
                    insert_order(&mut conn, 1, &format!("order {i}"))
                        .unwrap_or_else(|e| panic!("order {i} of 100: {e}"));
                }
                for attempt in ["one too many", "still too many"] {
                    let err = insert_order(&mut conn, 1, attempt).expect_err(attempt);
                    assert!(
                        matches!(err, Refused::Database(_)) && err.to_string().contains($refusal),
                        "expected the database to refuse with {:?}: {err}",
                        $refusal
                    );
                }
                assert_eq!(max_and_count(&mut conn), vec![pair(199, 100)]);
            }

            /// A counter that does not know the range (an identity column
            /// started at the location's offset) runs into the next
            /// location's range; `OffsetRanges::check` catches it.
            #[test]
            fn check_catches_a_counter_that_does_not_know_the_range() {
                let (_db, mut conn) = connect();
                let unbounded = LocationRange { location: 1, start: 198, end: 10_000 };
                create_counter(&mut conn, &unbounded);
                create_orders(&mut conn);
                assert_eq!(insert_order(&mut conn, 1, "a").expect("198").id, 198);
                assert_eq!(insert_order(&mut conn, 1, "b").expect("199").id, 199);
                let err = insert_order(&mut conn, 1, "c").expect_err("200 is outgrown");
                assert!(
                    matches!(
                        err,
                        Refused::Range(OffsetRangeError::Outgrown { location: 1, value: 200, end: 200 })
                    ),
                    "{err}"
                );
                assert_eq!(max_and_count(&mut conn), vec![pair(199, 2)]);
            }

            /// The baseline: Diesel inserts rows without a key and learns
            /// the key the database made; plain SQL agrees.
            #[test]
            fn the_database_produces_the_key_of_an_orm_insert() {
                let (_db, mut conn) = connect();
                execute(&mut conn, $accounts);
                let insert_account: fn(&mut $conn, &str) -> i64 = $insert_account;
                assert_eq!(insert_account(&mut conn, "ada"), 1);
                assert_eq!(insert_account(&mut conn, "grace"), 2);
                let found: String = accounts::table
                    .find(2)
                    .select(accounts::name)
                    .first(&mut conn)
                    .expect("find by the produced key");
                assert_eq!(found, "grace");
                let sql = format!(
                    "SELECT CAST(id AS {t}) AS a, name AS b FROM accounts ORDER BY id",
                    t = $text
                );
                assert_eq!(stored(&mut conn, &sql), vec![pair(1, "ada"), pair(2, "grace")]);
            }
        }
    };
}

sequence_tests!(
    on_postgres,
    PgConnection,
    {
        let db = flakeid_tests::db::postgres_blocking();
        let conn = PgConnection::establish(db.url()).expect("connect to PostgreSQL");
        (db, conn)
    },
    create_counter: |name: &str, range: &LocationRange| range.postgres_create_sequence(name),
    next_value: |name: &str| LocationRange::postgres_next_value(name).map(|e| format!("SELECT {e} AS value")),
    text: "TEXT",
    refusal: "reached maximum value of sequence",
    accounts: "CREATE TABLE accounts (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT NOT NULL)",
    insert_account: |conn, name| {
        diesel::insert_into(accounts::table)
            .values(accounts::name.eq(name))
            .returning(accounts::id)
            .get_result(conn)
            .expect("insert returning the produced key")
    },
);

sequence_tests!(
    on_mariadb,
    MysqlConnection,
    {
        let db = flakeid_tests::db::mysql_blocking();
        let conn = MysqlConnection::establish(db.url()).expect("connect to MySQL/MariaDB");
        (db, conn)
    },
    create_counter: |name: &str, range: &LocationRange| range.mariadb_create_sequence(name),
    next_value: |name: &str| LocationRange::mariadb_next_value(name).map(|e| format!("SELECT {e} AS value")),
    text: "CHAR",
    refusal: "has run out",
    accounts: "CREATE TABLE accounts (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, name TEXT NOT NULL)",
    insert_account: |conn, name| {
        diesel::insert_into(accounts::table)
            .values(accounts::name.eq(name))
            .execute(conn)
            .expect("insert without a key");
        diesel::sql_query("SELECT CAST(LAST_INSERT_ID() AS SIGNED) AS value")
            .get_result::<Value>(conn)
            .expect("LAST_INSERT_ID()")
            .value
    },
);

sequence_tests!(
    on_sqlite,
    SqliteConnection,
    ((), SqliteConnection::establish(":memory:").expect("in-memory SQLite")),
    create_counter: |name: &str, range: &LocationRange| range.sqlite_create_counter(name),
    next_value: |name: &str| LocationRange::sqlite_next_value(name),
    text: "TEXT",
    refusal: "CHECK constraint failed",
    accounts: "CREATE TABLE accounts (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)",
    insert_account: |conn, name| {
        diesel::insert_into(accounts::table)
            .values(accounts::name.eq(name))
            .execute(conn)
            .expect("insert without a key");
        diesel::sql_query("SELECT last_insert_rowid() AS value")
            .get_result::<Value>(conn)
            .expect("last_insert_rowid()")
            .value
    },
);
