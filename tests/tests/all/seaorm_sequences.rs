//! Keys the database counts out, stored through SeaORM on PostgreSQL,
//! MySQL/MariaDB and SQLite:
//!
//! * per-location offset ranges: each location takes its IDs from its own
//!   sequence confined to its range (a one-row counter table on SQLite),
//!   the rows go in through SeaORM, plain SQL reads them back, and they
//!   decode into (location, local counter); a location that outgrows its
//!   range is refused by the database, or caught by `OffsetRanges::check`
//!   when its counter does not know the range;
//! * database-produced keys (the baseline): SeaORM inserts a row without a
//!   key and learns the key the database made.

use crate::seaorm_common::create_table;
use crate::seaorm_connect;
use flakeid_schemes::OffsetRangeError;
use flakeid_schemes::{LocationRange, OffsetRanges};
use sea_orm::{
    ActiveModelTrait, ActiveValue, ConnectionTrait, DatabaseBackend, DatabaseConnection, DbErr,
    Statement, TransactionTrait,
};

/// Rows whose keys a location's counter handed out.
#[allow(dead_code, unreachable_pub)]
mod order {
    use sea_orm::entity::prelude::*;

    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "orders")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: i64,
        pub location: i64,
        pub label: String,
    }

    impl ActiveModelBehavior for ActiveModel {}
}

/// Rows whose keys the database makes on insert.
#[allow(dead_code, unreachable_pub)]
mod account {
    use sea_orm::entity::prelude::*;

    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "accounts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub name: String,
    }

    impl ActiveModelBehavior for ActiveModel {}
}

/// Three locations of 100 IDs: location 1 owns 100..200, location 2 200..300.
fn ranges() -> OffsetRanges {
    OffsetRanges::decimal(2, 3).expect("3 locations of 10^2")
}

fn counter_name(location: u64) -> String {
    format!("orders_location_{location}")
}

/// Creates `location`'s counter, confined to its range.
async fn create_counter(db: &DatabaseConnection, range: &LocationRange) {
    let name = counter_name(range.location);
    let statement = match db.get_database_backend() {
        DatabaseBackend::Postgres => range.postgres_create_sequence(&name),
        DatabaseBackend::MySql => range.mariadb_create_sequence(&name),
        _ => range.sqlite_create_counter(&name),
    }
    .expect("a plain name");
    db.execute_unprepared(&statement)
        .await
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
}

/// Takes the next value of the counter `name`.
async fn next_value<C: ConnectionTrait>(conn: &C, name: &str) -> Result<i64, DbErr> {
    let backend = conn.get_database_backend();
    let statement = match backend {
        DatabaseBackend::Postgres => {
            LocationRange::postgres_next_value(name).map(|e| format!("SELECT {e}"))
        }
        DatabaseBackend::MySql => {
            LocationRange::mariadb_next_value(name).map(|e| format!("SELECT {e}"))
        }
        _ => LocationRange::sqlite_next_value(name),
    }
    .expect("a plain name");
    let row = conn
        .query_one_raw(Statement::from_string(backend, &statement))
        .await?
        .ok_or_else(|| DbErr::RecordNotFound(format!("{statement} returned no row")))?;
    row.try_get_by_index::<i64>(0)
}

/// Takes `location`'s next ID and inserts a row with it through SeaORM, in
/// one transaction (which the SQLite counter needs). The ID is checked
/// against the location's range before the row is written.
async fn insert_order(
    db: &DatabaseConnection,
    location: u64,
    label: &str,
) -> Result<order::Model, String> {
    let txn = db.begin().await.map_err(|e| e.to_string())?;
    let id = next_value(&txn, &counter_name(location))
        .await
        .map_err(|e| e.to_string())?;
    let raw = u64::try_from(id).map_err(|e| format!("{id}: {e}"))?;
    ranges().check(raw, location).map_err(|e| e.to_string())?;
    let model = order::Model {
        id,
        location: i64::try_from(location).expect("small location"),
        label: label.to_owned(),
    };
    let inserted = order::ActiveModel::from(model)
        .insert(&txn)
        .await
        .map_err(|e| e.to_string())?;
    txn.commit().await.map_err(|e| e.to_string())?;
    Ok(inserted)
}

/// Plain SQL: the first two columns of every row, both as text.
async fn stored_rows(db: &DatabaseConnection, sql: &str) -> Vec<(String, String)> {
    let rows = db
        .query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter()
        .map(|r| {
            (
                r.try_get_by_index::<String>(0).expect("key as text"),
                r.try_get_by_index::<String>(1)
                    .expect("second column as text"),
            )
        })
        .collect()
}

/// Plain SQL: the largest key in `orders` and how many rows it holds.
async fn max_key_and_count(db: &DatabaseConnection) -> Vec<(String, String)> {
    let sql = format!(
        "SELECT {} AS max_text, {} AS n FROM orders",
        text_cast(db, "MAX(id)"),
        text_cast(db, "COUNT(*)")
    );
    stored_rows(db, &sql).await
}

fn text_cast(db: &DatabaseConnection, column: &str) -> String {
    if db.get_database_backend() == DatabaseBackend::MySql {
        format!("CAST({column} AS CHAR)")
    } else {
        format!("CAST({column} AS TEXT)")
    }
}

/// Two locations write interleaved; every row's key comes from its
/// location's counter, and decodes back to that location.
async fn two_locations_store_ids_from_their_own_ranges(db: &DatabaseConnection) {
    let ranges = ranges();
    for location in [1, 2] {
        create_counter(db, &ranges.range(location).expect("range")).await;
    }
    create_table(db, order::Entity).await;
    for i in 0..5 {
        for location in [2, 1] {
            let row = insert_order(db, location, &format!("{location}/{i}"))
                .await
                .unwrap_or_else(|e| panic!("location {location}, order {i}: {e}"));
            assert_eq!(
                row.id,
                i64::try_from(location * 100 + i).expect("small"),
                "{row:?}"
            );
        }
    }

    let sql = format!(
        "SELECT {} AS id_text, {} AS location_text FROM orders ORDER BY id",
        text_cast(db, "id"),
        text_cast(db, "location")
    );
    let stored = stored_rows(db, &sql).await;
    let expected: Vec<(String, String)> = [100, 101, 102, 103, 104, 200, 201, 202, 203, 204]
        .iter()
        .map(|id: &u64| (id.to_string(), (id / 100).to_string()))
        .collect();
    assert_eq!(stored, expected, "keys as stored");
    for (text, location) in &stored {
        let id: u64 = text.parse().expect("decimal key");
        let (decoded_location, local) = ranges.decompose(id).expect("in a range");
        assert_eq!(decoded_location.to_string(), *location, "{id}");
        assert_eq!(local, id % 100);
    }
}

/// The database refuses to go past the last value of a location's range:
/// the location takes all 100 of its IDs, then the next one fails and
/// nothing of the next location's range is written.
async fn the_database_refuses_a_location_that_outgrows_its_range(
    db: &DatabaseConnection,
    refusal: &str,
) {
    let ranges = ranges();
    create_counter(db, &ranges.range(1).expect("range")).await;
    create_table(db, order::Entity).await;
    for i in 0..100 {
        insert_order(db, 1, &format!("order {i}"))
            .await
            .unwrap_or_else(|e| panic!("order {i} of 100: {e}"));
    }
    let err = insert_order(db, 1, "one too many")
        .await
        .expect_err("the 101st ID of a range of 100");
    assert!(err.contains(refusal), "expected {refusal:?} in: {err}");
    // Stays refused.
    let again = insert_order(db, 1, "still too many")
        .await
        .expect_err("still outgrown");
    assert!(again.contains(refusal), "expected {refusal:?} in: {again}");

    assert_eq!(
        max_key_and_count(db).await,
        vec![("199".to_owned(), "100".to_owned())]
    );
}

/// A counter that does not know the range (an identity column started at
/// the location's offset, as in the original article) runs into the next
/// location's range; `OffsetRanges::check` catches its first such value.
async fn check_catches_a_counter_that_does_not_know_the_range(db: &DatabaseConnection) {
    let ranges = ranges();
    let unbounded = LocationRange {
        location: 1,
        start: 198,
        end: 10_000,
    };
    create_counter(db, &unbounded).await;
    create_table(db, order::Entity).await;
    assert_eq!(insert_order(db, 1, "a").await.map(|r| r.id), Ok(198));
    assert_eq!(insert_order(db, 1, "b").await.map(|r| r.id), Ok(199));
    let taken = next_value(db, &counter_name(1)).await.expect("next value");
    assert_eq!(taken, 200, "the counter went on");
    assert_eq!(
        ranges.check(200, 1),
        Err(OffsetRangeError::Outgrown {
            location: 1,
            value: 200,
            end: 200
        })
    );
    let err = insert_order(db, 1, "c").await.expect_err("201 is outgrown");
    assert_eq!(
        err,
        "location 1 outgrew its range: 201 is not below the range's end 200"
    );
    assert_eq!(
        max_key_and_count(db).await,
        vec![("199".to_owned(), "2".to_owned())]
    );
}

/// The baseline: SeaORM inserts rows without a key (PostgreSQL
/// `RETURNING`, MySQL/MariaDB `LAST_INSERT_ID()`, SQLite rowid) and gets
/// the key the database made; plain SQL agrees.
async fn the_database_produces_the_key_of_an_orm_insert(db: &DatabaseConnection) {
    use sea_orm::EntityTrait;

    create_table(db, account::Entity).await;
    let first = account::ActiveModel {
        name: ActiveValue::Set("ada".to_owned()),
        ..Default::default()
    }
    .insert(db)
    .await
    .expect("insert without a key");
    let second = account::Entity::insert(account::ActiveModel {
        name: ActiveValue::Set("grace".to_owned()),
        ..Default::default()
    })
    .exec(db)
    .await
    .expect("insert without a key");
    assert_eq!(first.id, 1);
    assert_eq!(second.last_insert_id, 2);

    let sql = format!(
        "SELECT {} AS id_text, name FROM accounts ORDER BY id",
        text_cast(db, "id")
    );
    assert_eq!(
        stored_rows(db, &sql).await,
        vec![
            ("1".to_owned(), "ada".to_owned()),
            ("2".to_owned(), "grace".to_owned())
        ]
    );
}

macro_rules! sequence_tests {
    ($($db:ident => $connect:path, refusal: $refusal:literal;)*) => {$(
        mod $db {
            use super::*;

            seaorm_tests!($connect, super;
                two_locations_store_ids_from_their_own_ranges,
                the_database_refuses_a_location_that_outgrows_its_range($refusal),
                check_catches_a_counter_that_does_not_know_the_range,
                the_database_produces_the_key_of_an_orm_insert,
            );
        }
    )*};
}

use seaorm_connect::{mysql, postgres, sqlite};

sequence_tests! {
    on_sqlite => sqlite, refusal: "CHECK constraint failed";
    on_postgres => postgres, refusal: "reached maximum value of sequence";
    on_mariadb => mysql, refusal: "has run out";
}

/// MySQL 8 has no sequences: the location's table counts with
/// `AUTO_INCREMENT` from its range's start, and a trigger fails the insert
/// that would outgrow it (MariaDB runs the same SQL).
#[tokio::test]
async fn auto_increment_from_a_location_offset_fails_past_the_range_on_mariadb() {
    use sea_orm::EntityTrait;

    let (_guard, db) = mysql().await;
    create_table(&db, account::Entity).await;
    let range = ranges().range(1).expect("range");
    for statement in [
        range.mysql_auto_increment_start("accounts"),
        range.mysql_range_trigger("accounts_in_location_1", "accounts", "id"),
    ] {
        let statement = statement.expect("plain names");
        db.execute_unprepared(&statement)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let insert = |name: &str| {
        account::Entity::insert(account::ActiveModel {
            name: ActiveValue::Set(name.to_owned()),
            ..Default::default()
        })
        .exec(&db)
    };
    assert_eq!(insert("first").await.expect("first").last_insert_id, 100);
    db.execute_unprepared("ALTER TABLE accounts AUTO_INCREMENT = 199")
        .await
        .expect("skip ahead");
    assert_eq!(insert("last").await.expect("last").last_insert_id, 199);
    let err = insert("one too many")
        .await
        .expect_err("200 is past the range");
    assert!(
        err.to_string()
            .contains("accounts.id outside location 1's range [100, 200)"),
        "{err}"
    );
    let stored = stored_rows(
        &db,
        "SELECT CAST(id AS CHAR) AS id_text, name FROM accounts ORDER BY id",
    )
    .await;
    assert_eq!(
        stored,
        vec![
            ("100".to_owned(), "first".to_owned()),
            ("199".to_owned(), "last".to_owned())
        ]
    );
}
