//! ID types as plain sqlx values (flakeid-core's `sqlx-*` features), for a
//! service that shares the tables without an ORM: bound with `bind`, read
//! with `query_as` / `query_scalar`, `NULL`s as `Option`, arrays on
//! PostgreSQL, `BIGINT UNSIGNED` on MariaDB, and stored values that are not
//! IDs read back as typed errors; `Flake128` as 16 bytes on each database. What the database stored is checked with
//! plain SQL on plain integers.

use flakeid_core::{FieldOutOfRange, Generator, IdError, flake_id};
use flakeid_flake128::Flake128;
use flakeid_flake128::Flake128Error;
use flakeid_flake128::Flake128Layout;
use flakeid_schemes::DecimalIdScheme;
use flakeid_tests::db;
use sqlx::Row as _;
use sqlx::mysql::MySqlPool;
use sqlx::postgres::{PgPool, PgValueFormat};
use sqlx::sqlite::SqlitePool;

use crate::schemes_common::TicketId;
use crate::support::init_generator;

/// Twitter's layout: every value in `1..=i64::MAX` is one.
#[flake_id]
pub(crate) struct UserId(i64);

/// DecimalId: the counter (the digits above the last ten) is at least 1.
#[flake_id(scheme = DecimalIdScheme::default)]
pub(crate) struct OrderNo(i64);

/// The largest JavaScript-safe ID, `2^53 − 1`.
const JS_MAX: u64 = (1 << 53) - 1;

/// A DecimalId whose counter is 0 (generator 92, launch 65).
const COUNTER_ZERO: i64 = 9_200_065;

/// The `IdError` a failed read carries as the source of its
/// `sqlx::Error::ColumnDecode`.
fn id_error<T: std::fmt::Debug>(read: Result<T, sqlx::Error>) -> IdError {
    match read {
        Err(sqlx::Error::ColumnDecode { source, .. }) => match source.downcast_ref::<IdError>() {
            Some(e) => e.clone(),
            None => panic!("a decode error without an IdError: {source}"),
        },
        other => panic!("expected a decode error holding an IdError, got {other:?}"),
    }
}

/// The table `users` of the tests, `int` the backend's 64-bit integer type
/// (on SQLite `INTEGER`, which makes `id` the rowid).
fn users_table(int: &str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(format!(
        "CREATE TABLE users (id {int} NOT NULL PRIMARY KEY CHECK (id > 0), \
         referrer {int} NULL, ticket {int} NULL)"
    ))
}

/// The rows of a table `bad (k, v)` holding values that are not IDs of
/// the type they are read as.
const BAD_ROWS: &str =
    "INSERT INTO bad (k, v) VALUES (1, 0), (2, -5), (3, 9007199254740992), (4, 9200065)";

/// Creates the table `bad (k, v)` holding [`BAD_ROWS`] on a pool and checks
/// that plain SQL reads the stored integers back and that each is a
/// typed error when read as an ID: `0` and `−5` as a `UserId`, `2^53` as a
/// (JavaScript-safe) `TicketId`, a DecimalId whose counter is 0 as an
/// `OrderNo`. `$sql` selects `v` of row `k` (the parameter).
macro_rules! assert_stored_non_ids_are_errors {
    ($pool:expr, $sql:literal) => {{
        let pool = $pool;
        sqlx::query("CREATE TABLE bad (k INTEGER NOT NULL PRIMARY KEY, v BIGINT NOT NULL)")
            .execute(pool)
            .await?;
        sqlx::query(BAD_ROWS).execute(pool).await?;
        for (k, stored) in [(1, 0), (2, -5), (3, (JS_MAX + 1) as i64), (4, COUNTER_ZERO)] {
            let v: i64 = sqlx::query_scalar($sql).bind(k).fetch_one(pool).await?;
            assert_eq!(v, stored, "row {k}");
        }
        macro_rules! read {
            ($ty:ty, $k:expr) => {
                sqlx::query_scalar::<_, $ty>($sql)
                    .bind($k as i32)
                    .fetch_one(pool)
                    .await
            };
        }
        assert_eq!(
            id_error(read!(UserId, 1)),
            IdError::Zero {
                type_name: "UserId"
            }
        );
        assert_eq!(
            id_error(read!(UserId, 2)),
            IdError::Negative {
                type_name: "UserId",
                value: -5
            }
        );
        assert_eq!(
            id_error(read!(TicketId, 3)),
            IdError::TooLarge {
                type_name: "TicketId",
                value: u128::from(JS_MAX + 1),
                max: JS_MAX
            }
        );
        assert_eq!(
            id_error(read!(OrderNo, 4)),
            IdError::Field {
                type_name: "OrderNo",
                value: COUNTER_ZERO as u64,
                source: FieldOutOfRange {
                    field: "counter",
                    value: 0,
                    min: 1,
                    max: 922_337_202
                },
            }
        );
        // The error says what was wrong, with which type and value.
        let err = read!(UserId, 2).expect_err("negative");
        assert!(
            err.to_string()
                .ends_with("-5 is not a valid UserId: IDs are positive"),
            "{err}"
        );
    }};
}

/// Binds two `UserId`s (`b` referring to `a`) and the largest `TicketId`
/// into `users` (the backend's placeholders for three parameters given),
/// checks the plain integers stored and reads them back as IDs, `NULL`s as
/// `None`; finds `b` by its referrer. Evaluates to `(a, b)`.
macro_rules! assert_users_bind_and_read_back {
    ($pool:expr, [$p1:literal, $p2:literal, $p3:literal]) => {{
        let pool = $pool;
        let [a, b] = <[UserId; 2]>::try_from(UserId::generate_many(2).expect("IDs")).expect("two");
        let ticket = TicketId::try_from(JS_MAX).expect("the largest ticket");
        for (id, referrer, ticket) in [(a, None, Some(ticket)), (b, Some(a), None)] {
            sqlx::query(concat!(
                "INSERT INTO users (id, referrer, ticket) VALUES (",
                $p1,
                ", ",
                $p2,
                ", ",
                $p3,
                ")"
            ))
            .bind(id)
            .bind(referrer)
            .bind(ticket)
            .execute(pool)
            .await?;
        }

        let stored: Vec<(i64, Option<i64>, Option<i64>)> =
            sqlx::query_as("SELECT id, referrer, ticket FROM users ORDER BY id")
                .fetch_all(pool)
                .await?;
        assert_eq!(
            stored,
            [
                (a.get(), None, Some(JS_MAX as i64)),
                (b.get(), Some(a.get()), None)
            ]
        );

        let read: Vec<(UserId, Option<UserId>, Option<TicketId>)> =
            sqlx::query_as("SELECT id, referrer, ticket FROM users ORDER BY id")
                .fetch_all(pool)
                .await?;
        assert_eq!(read, [(a, None, Some(ticket)), (b, Some(a), None)]);
        let child: UserId =
            sqlx::query_scalar(concat!("SELECT id FROM users WHERE referrer = ", $p1))
                .bind(a)
                .fetch_one(pool)
                .await?;
        assert_eq!(child, b);
        (a, b)
    }};
}

// ---------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------

/// A fresh database with the table `users`, once the global generator
/// the tests take IDs from is set up.
async fn postgres() -> (db::TestDb, PgPool) {
    init_generator();
    let db = db::postgres().await;
    let pool = PgPool::connect(db.url()).await.expect("connect");
    sqlx::query(users_table("BIGINT"))
        .execute(&pool)
        .await
        .expect("schema");
    (db, pool)
}

#[tokio::test]
async fn postgres_ids_bind_and_read_back_with_nulls() -> Result<(), sqlx::Error> {
    let (_db, pool) = postgres().await;
    assert_users_bind_and_read_back!(&pool, ["$1", "$2", "$3"]);
    Ok(())
}

#[tokio::test]
async fn postgres_id_arrays_bind_as_bigint_arrays_and_read_back() -> Result<(), sqlx::Error> {
    let (_db, pool) = postgres().await;
    let ids = UserId::generate_many(3).expect("IDs");
    for &id in &ids {
        sqlx::query("INSERT INTO users (id) VALUES ($1)")
            .bind(id)
            .execute(&pool)
            .await?;
    }

    let wanted = vec![ids[0], ids[2]];
    let found: Vec<UserId> =
        sqlx::query_scalar("SELECT id FROM users WHERE id = ANY($1) ORDER BY id")
            .bind(&wanted)
            .fetch_all(&pool)
            .await?;
    assert_eq!(found, wanted);

    let all: Vec<UserId> = sqlx::query_scalar("SELECT array_agg(id ORDER BY id) FROM users")
        .fetch_one(&pool)
        .await?;
    assert_eq!(all, ids);

    sqlx::query("CREATE TABLE teams (k INT PRIMARY KEY, members BIGINT[] NOT NULL)")
        .execute(&pool)
        .await?;
    let members = vec![Some(ids[1]), None, Some(ids[0])];
    sqlx::query("INSERT INTO teams (k, members) VALUES (1, $1)")
        .bind(&members)
        .execute(&pool)
        .await?;
    let (type_name, text): (String, String) =
        sqlx::query_as("SELECT pg_typeof(members)::text, members::text FROM teams")
            .fetch_one(&pool)
            .await?;
    assert_eq!(type_name, "bigint[]");
    assert_eq!(text, format!("{{{},NULL,{}}}", ids[1], ids[0]));
    let read: Vec<Option<UserId>> = sqlx::query_scalar("SELECT members FROM teams")
        .fetch_one(&pool)
        .await?;
    assert_eq!(read, members);
    Ok(())
}

#[tokio::test]
async fn postgres_stored_values_that_are_not_ids_are_typed_errors() -> Result<(), sqlx::Error> {
    let (_db, pool) = postgres().await;
    assert_stored_non_ids_are_errors!(&pool, "SELECT v FROM bad WHERE k = $1");

    // One bad element fails the whole array, with the same error.
    let err = id_error(
        sqlx::query_scalar::<_, Vec<UserId>>("SELECT array_agg(v ORDER BY k) FROM bad")
            .fetch_one(&pool)
            .await,
    );
    assert_eq!(
        err,
        IdError::Zero {
            type_name: "UserId"
        }
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// MySQL / MariaDB
// ---------------------------------------------------------------------------

/// A fresh database, once the global generator the tests take IDs from is
/// set up.
async fn mysql() -> (db::TestDb, MySqlPool) {
    init_generator();
    let db = db::mysql().await;
    let pool = MySqlPool::connect(db.url()).await.expect("connect");
    (db, pool)
}

#[tokio::test]
async fn mysql_ids_bind_and_read_back_with_nulls() -> Result<(), sqlx::Error> {
    let (_db, pool) = mysql().await;
    sqlx::query(users_table("BIGINT")).execute(&pool).await?;
    assert_users_bind_and_read_back!(&pool, ["?", "?", "?"]);
    Ok(())
}

#[tokio::test]
async fn mysql_bigint_unsigned_columns_read_with_a_range_check() -> Result<(), sqlx::Error> {
    let (_db, pool) = mysql().await;
    sqlx::query(
        "CREATE TABLE tags (k INT NOT NULL PRIMARY KEY, id BIGINT UNSIGNED NULL, \
         ticket BIGINT UNSIGNED NULL)",
    )
    .execute(&pool)
    .await?;
    let id = UserId::generate().expect("an ID");
    let ticket = TicketId::try_from(JS_MAX).expect("the largest ticket");
    sqlx::query("INSERT INTO tags (k, id, ticket) VALUES (1, ?, ?), (2, NULL, NULL)")
        .bind(id)
        .bind(ticket)
        .execute(&pool)
        .await?;
    // Reading them as `u64` succeeds only for unsigned columns.
    let plain: (u64, u64) = sqlx::query_as("SELECT id, ticket FROM tags WHERE k = 1")
        .fetch_one(&pool)
        .await?;
    assert_eq!(plain, (id.get() as u64, JS_MAX));

    let read: Vec<(Option<UserId>, Option<TicketId>)> =
        sqlx::query_as("SELECT id, ticket FROM tags ORDER BY k")
            .fetch_all(&pool)
            .await?;
    assert_eq!(read, [(Some(id), Some(ticket)), (None, None)]);

    // Above i64::MAX: too large (the bits are not taken for a negative number).
    let cases = [
        (
            3,
            0,
            IdError::Zero {
                type_name: "UserId",
            },
        ),
        (
            4,
            1 << 63,
            IdError::TooLarge {
                type_name: "UserId",
                value: 1 << 63,
                max: i64::MAX as u64,
            },
        ),
        (
            5,
            u64::MAX,
            IdError::TooLarge {
                type_name: "UserId",
                value: u128::from(u64::MAX),
                max: i64::MAX as u64,
            },
        ),
    ];
    for (k, v, expected) in cases {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO tags (k, id) VALUES ({k}, {v})"
        )))
        .execute(&pool)
        .await?;
        let text: String = sqlx::query_scalar("SELECT CAST(id AS CHAR) FROM tags WHERE k = ?")
            .bind(k)
            .fetch_one(&pool)
            .await?;
        assert_eq!(text, v.to_string());
        let read = sqlx::query_scalar::<_, UserId>("SELECT id FROM tags WHERE k = ?")
            .bind(k)
            .fetch_one(&pool)
            .await;
        assert_eq!(id_error(read), expected);
    }
    sqlx::query("INSERT INTO tags (k, ticket) VALUES (6, 9007199254740992)")
        .execute(&pool)
        .await?;
    let read = sqlx::query_scalar::<_, TicketId>("SELECT ticket FROM tags WHERE k = 6")
        .fetch_one(&pool)
        .await;
    assert_eq!(
        id_error(read),
        IdError::TooLarge {
            type_name: "TicketId",
            value: u128::from(JS_MAX + 1),
            max: JS_MAX
        }
    );
    Ok(())
}

#[tokio::test]
async fn mysql_stored_values_that_are_not_ids_are_typed_errors() -> Result<(), sqlx::Error> {
    let (_db, pool) = mysql().await;
    assert_stored_non_ids_are_errors!(&pool, "SELECT v FROM bad WHERE k = ?");
    Ok(())
}

// ---------------------------------------------------------------------------
// SQLite (in memory: no server)
// ---------------------------------------------------------------------------

/// A row of `users` read into named fields.
struct User {
    id: UserId,
    referrer: Option<UserId>,
}

impl<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> for User {
    fn from_row(row: &'r sqlx::sqlite::SqliteRow) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            referrer: row.try_get("referrer")?,
        })
    }
}

/// A fresh database with the table `users`, once the global generator
/// the tests take IDs from is set up.
async fn sqlite() -> SqlitePool {
    init_generator();
    // One connection: every connection to `sqlite::memory:` is a database of its own.
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .connect("sqlite::memory:")
        .await
        .expect("an in-memory database");
    sqlx::query(users_table("INTEGER"))
        .execute(&pool)
        .await
        .expect("schema");
    pool
}

#[tokio::test]
async fn sqlite_ids_bind_and_read_back_with_nulls() -> Result<(), sqlx::Error> {
    let pool = sqlite().await;
    let (a, b) = assert_users_bind_and_read_back!(&pool, ["?", "?", "?"]);
    // Stored as integers, not as text or blobs.
    let types: Vec<String> = sqlx::query_scalar("SELECT typeof(id) FROM users ORDER BY id")
        .fetch_all(&pool)
        .await?;
    assert_eq!(types, ["integer", "integer"]);

    // A `FromRow` struct (what `#[derive(sqlx::FromRow)]` writes: `try_get` per field).
    let users: Vec<User> = sqlx::query_as("SELECT id, referrer FROM users ORDER BY id")
        .fetch_all(&pool)
        .await?;
    let users: Vec<(UserId, Option<UserId>)> =
        users.into_iter().map(|u| (u.id, u.referrer)).collect();
    assert_eq!(users, [(a, None), (b, Some(a))]);
    Ok(())
}

#[tokio::test]
async fn sqlite_stored_values_that_are_not_ids_are_typed_errors() -> Result<(), sqlx::Error> {
    let pool = sqlite().await;
    assert_stored_non_ids_are_errors!(&pool, "SELECT v FROM bad WHERE k = ?");
    Ok(())
}

// ---------------------------------------------------------------------------
// Flake128: 16 big-endian bytes (`uuid`/`bytea`, `BINARY(16)`, `BLOB`)
// ---------------------------------------------------------------------------

/// Three flakes of one worker, in issue order.
fn flakes() -> [Flake128; 3] {
    let generator = Generator::builder(Flake128Layout, 0x0242_ac11_0002)
        .build()
        .expect("a generator");
    [(); 3].map(|()| Flake128::generate(&generator).expect("a flake"))
}

/// The lowercase hex of a flake's 16 bytes, as SQL's `hex`/`encode` print them.
fn hex(f: Flake128) -> String {
    f.to_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// The `Flake128Error` a failed read carries.
fn flake_error<T: std::fmt::Debug>(read: Result<T, sqlx::Error>) -> Flake128Error {
    match read {
        Err(sqlx::Error::ColumnDecode { source, .. }) => {
            match source.downcast_ref::<Flake128Error>() {
                Some(e) => e.clone(),
                None => panic!("a decode error without a Flake128Error: {source}"),
            }
        }
        other => panic!("expected a decode error holding a Flake128Error, got {other:?}"),
    }
}

/// Binds flakes `$b` and `$a` (the later one first) and a `NULL` into the
/// column `f` of `flakes` (rows 1 to 3); once `$stored` has checked what
/// the database stored, reads them back, then in the database's order,
/// which is issue order.
macro_rules! assert_flakes_bind_and_read_back {
    ($pool:expr, [$a:ident, $b:ident], $stored:block) => {{
        let pool = $pool;
        let [$a, $b, _] = flakes();
        for (k, f) in [(1, Some($b)), (2, Some($a)), (3, None)] {
            sqlx::query("INSERT INTO flakes (k, f) VALUES (?, ?)")
                .bind(k)
                .bind(f)
                .execute(pool)
                .await?;
        }
        $stored
        let read: Vec<Option<Flake128>> = sqlx::query_scalar("SELECT f FROM flakes ORDER BY k")
            .fetch_all(pool)
            .await?;
        assert_eq!(read, [Some($b), Some($a), None]);
        let ordered: Vec<Flake128> =
            sqlx::query_scalar("SELECT f FROM flakes WHERE f IS NOT NULL ORDER BY f")
                .fetch_all(pool)
                .await?;
        assert_eq!(ordered, [$a, $b]);
    }};
}

/// Reads a stored value of 16 zero bytes (with `$nil`) and one of the two
/// bytes `01 02` (with `$short`) as flakes: neither is one, and each error
/// says why.
macro_rules! assert_zero_and_short_are_not_flakes {
    ($pool:expr, $nil:literal, $short:literal) => {{
        let pool = $pool;
        let nil = sqlx::query_scalar::<_, Flake128>($nil)
            .fetch_one(pool)
            .await;
        assert_eq!(flake_error(nil), Flake128Error::Zero);
        let short = sqlx::query_scalar::<_, Flake128>($short)
            .fetch_one(pool)
            .await;
        assert_eq!(flake_error(short), Flake128Error::ByteLength { len: 2 });
    }};
}

#[tokio::test]
async fn postgres_flakes_are_uuids_or_bytea_and_read_back_checked() -> Result<(), sqlx::Error> {
    let (_db, pool) = postgres().await;
    sqlx::query("CREATE TABLE flakes (k INT PRIMARY KEY, u UUID NULL, b BYTEA NULL)")
        .execute(&pool)
        .await?;
    let [a, b, c] = flakes();
    for (k, f) in [(1, Some(a)), (2, Some(b)), (3, None)] {
        // A flake binds as `uuid`; the `bytea` column gets the same bytes in SQL.
        sqlx::query(
            "INSERT INTO flakes (k, u, b) VALUES ($1, $2, decode(replace($2::text, '-', ''), 'hex'))",
        )
        .bind(k)
        .bind(f)
            .execute(&pool)
            .await?;
    }
    let stored: Vec<(Option<String>, Option<String>)> =
        sqlx::query_as("SELECT u::text, encode(b, 'hex') FROM flakes ORDER BY k")
            .fetch_all(&pool)
            .await?;
    assert_eq!(
        stored,
        [
            (Some(a.to_string()), Some(hex(a))),
            (Some(b.to_string()), Some(hex(b))),
            (None, None)
        ]
    );
    let read: Vec<(Option<Flake128>, Option<Flake128>)> =
        sqlx::query_as("SELECT u, b FROM flakes ORDER BY k")
            .fetch_all(&pool)
            .await?;
    assert_eq!(read, [(Some(a), Some(a)), (Some(b), Some(b)), (None, None)]);
    // A simple query (no parameters) returns text: `uuid` hyphenated, `bytea` as `\x…` hex.
    let rows = sqlx::raw_sql("SELECT u, b FROM flakes WHERE k = 2")
        .fetch_all(&pool)
        .await?;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].try_get_raw(0)?.format(), PgValueFormat::Text);
    let text: (Flake128, Flake128) = (rows[0].try_get(0)?, rows[0].try_get(1)?);
    assert_eq!(text, (b, b));
    // The database orders `uuid` like the numbers: issue order.
    let ordered: Vec<Flake128> =
        sqlx::query_scalar("SELECT u FROM flakes WHERE u IS NOT NULL ORDER BY u DESC")
            .fetch_all(&pool)
            .await?;
    assert_eq!(ordered, [b, a]);
    // Arrays bind as `uuid[]`.
    let found: Vec<Flake128> =
        sqlx::query_scalar("SELECT u FROM flakes WHERE u = ANY($1) ORDER BY u")
            .bind(vec![b, c])
            .fetch_all(&pool)
            .await?;
    assert_eq!(found, [b]);

    // Stored values that are not flakes.
    assert_zero_and_short_are_not_flakes!(
        &pool,
        "SELECT '00000000-0000-0000-0000-000000000000'::uuid",
        "SELECT '\\x0102'::bytea"
    );
    Ok(())
}

#[tokio::test]
async fn mysql_flakes_are_binary_16_and_read_back_checked() -> Result<(), sqlx::Error> {
    let (_db, pool) = mysql().await;
    sqlx::query(
        "CREATE TABLE flakes (k INT NOT NULL PRIMARY KEY, f BINARY(16) NULL, v VARBINARY(20) NULL)",
    )
    .execute(&pool)
    .await?;
    assert_flakes_bind_and_read_back!(&pool, [a, b], {
        let stored: Vec<Option<String>> =
            sqlx::query_scalar("SELECT LOWER(HEX(f)) FROM flakes ORDER BY k")
                .fetch_all(&pool)
                .await?;
        assert_eq!(stored, [Some(hex(b)), Some(hex(a)), None]);
    });

    sqlx::query("INSERT INTO flakes (k, f, v) VALUES (4, UNHEX(REPEAT('00', 16)), UNHEX('0102'))")
        .execute(&pool)
        .await?;
    assert_zero_and_short_are_not_flakes!(
        &pool,
        "SELECT f FROM flakes WHERE k = 4",
        "SELECT v FROM flakes WHERE k = 4"
    );
    Ok(())
}

#[tokio::test]
async fn sqlite_flakes_are_blobs_and_read_back_checked() -> Result<(), sqlx::Error> {
    let pool = sqlite().await;
    sqlx::query("CREATE TABLE flakes (k INTEGER PRIMARY KEY, f BLOB NULL)")
        .execute(&pool)
        .await?;
    assert_flakes_bind_and_read_back!(&pool, [a, b], {
        // SQLite's `hex(NULL)` is the empty string.
        let stored: Vec<(String, String)> =
            sqlx::query_as("SELECT lower(hex(f)), typeof(f) FROM flakes ORDER BY k")
                .fetch_all(&pool)
                .await?;
        let blob = "blob".to_owned();
        assert_eq!(
            stored,
            [
                (hex(b), blob.clone()),
                (hex(a), blob),
                (String::new(), "null".to_owned())
            ]
        );
    });

    sqlx::query("INSERT INTO flakes (k, f) VALUES (4, zeroblob(16)), (5, x'0102')")
        .execute(&pool)
        .await?;
    assert_zero_and_short_are_not_flakes!(
        &pool,
        "SELECT f FROM flakes WHERE k = 4",
        "SELECT f FROM flakes WHERE k = 5"
    );
    Ok(())
}
