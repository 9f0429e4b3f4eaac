//! Rows by the time their key records, on PostgreSQL, MySQL/MariaDB and
//! SQLite: a table of 1,000,000 rows whose keys generators on a manual
//! clock issued over 12 minutes (four nodes), each row also holding its
//! key's decoded time (`t_ms`, decoded in Rust when the key was issued).
//! For ranges of every shape (`a..b`, `a..=b`, `a..`, `..b`, one tick,
//! ranges past the data) SeaORM's filter (`Column::Id.issued_in`), Diesel's
//! (`events::id.issued_in`) and plain sqlx with the bound values
//! (`FlakeId::time_bounds`) return exactly the rows that plain SQL on
//! `t_ms` finds. The plans use the primary key: PostgreSQL an index range
//! scan of `events_pkey`, MariaDB a `range` access on `PRIMARY`, SQLite a
//! search of the key's index.

use std::ops::Bound::{self, Excluded, Included, Unbounded};
use std::ops::RangeBounds;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use diesel::prelude::*;
use flakeid_core::layout::presets;
use flakeid_core::{Generator, ManualClock, flake_id};
use flakeid_tests::db::{self, TestDb};
use flakeid_tests::flake_entity;
use sea_orm::{
    ConnectionTrait, Database, DatabaseConnection, DbBackend, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, QueryTrait,
};
use sqlx::AssertSqlSafe;

/// Key of `events` (Twitter's layout, 1 ms ticks).
#[flake_id(seaorm, diesel)]
pub struct EventId(i64);

flake_entity! {
    mod event = "events", super::EventId {
        /// The key's decoded time, Unix ms.
        pub t_ms: i64,
    }
}

diesel::table! {
    events (id) {
        id -> BigInt,
        t_ms -> BigInt,
    }
}

/// Rows in the table.
const ROWS: usize = 1_000_000;
/// Manual-clock time the keys were issued over: 12 minutes.
const SPAN_MS: u64 = 12 * 60 * 1000;
/// 2025-03-01T00:00:00Z: the clock's reading at the first row.
const START_MS: u64 = 1_740_787_200_000;
/// Rows per statement where rows go in as `INSERT … VALUES` (MariaDB, SQLite).
const ROWS_PER_INSERT: usize = 10_000;

/// `(id, t_ms)` of every row, in the order issued: four generators (nodes
/// 0, 1, 512 and 1023) take turns on one manual clock that advances 0.72 ms
/// per row on average, so ticks hold 0 to 3 keys of up to 3 nodes.
fn rows() -> &'static [(i64, i64)] {
    static ROWS_CELL: OnceLock<Vec<(i64, i64)>> = OnceLock::new();
    ROWS_CELL.get_or_init(|| {
        let layout = presets::twitter();
        let clock = Arc::new(ManualClock::new(START_MS - 1));
        let generators: Vec<_> = [0, 1, 512, 1023]
            .into_iter()
            .map(|node| {
                Generator::builder(layout.clone(), node)
                    .clock(Arc::clone(&clock))
                    .build()
                    .expect("a generator of the test")
            })
            .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        (0..ROWS)
            .map(|i| {
                let ms = START_MS + (i as u64) * SPAN_MS / ROWS as u64;
                clock.set(ms);
                // A pseudo-random node per row, so ticks mix nodes.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let id = generators[(state % 4) as usize]
                    .next_id()
                    .expect("an ID at the clock's tick");
                let t_ms = layout.timestamp_millis(id);
                assert_eq!(t_ms, ms, "stamped with the clock's millisecond");
                (id as i64, t_ms as i64)
            })
            .collect()
    })
}

fn at(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// A range of times to query, and the `t_ms` (whole milliseconds; 1 ms
/// ticks) of the rows inside it: a row's millisecond is inside when it
/// holds an instant of the range.
#[derive(Debug, Clone, Copy)]
struct Query {
    start: Bound<SystemTime>,
    end: Bound<SystemTime>,
}

impl Query {
    fn new(range: impl RangeBounds<SystemTime>) -> Self {
        Query {
            start: range.start_bound().cloned(),
            end: range.end_bound().cloned(),
        }
    }

    /// The range as `(Bound, Bound)`, a `RangeBounds` the filters take.
    fn range(self) -> (Bound<SystemTime>, Bound<SystemTime>) {
        (self.start, self.end)
    }

    /// The first and last millisecond of the rows inside (ends are whole
    /// milliseconds).
    fn t_ms(self) -> (i64, i64) {
        let ms = |t: SystemTime| {
            t.duration_since(UNIX_EPOCH)
                .expect("after 1970")
                .as_millis() as i64
        };
        let first = match self.start {
            Included(t) | Excluded(t) => ms(t),
            Unbounded => i64::MIN,
        };
        let last = match self.end {
            Included(t) => ms(t),
            Excluded(t) => ms(t) - 1,
            Unbounded => i64::MAX,
        };
        (first, last)
    }
}

/// Ranges of every shape, over the data and past its ends; the seeded
/// ones at pseudo-random places.
fn queries() -> Vec<Query> {
    let end_ms = START_MS + SPAN_MS;
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut out = Vec::new();
    for _ in 0..4 {
        let a = START_MS + next(SPAN_MS);
        let len = 1 + next(60_000);
        out.push(Query::new(at(a)..at(a + len)));
        let a = START_MS + next(SPAN_MS);
        let len = next(30_000);
        out.push(Query::new(at(a)..=at(a + len)));
    }
    let a = START_MS + next(SPAN_MS);
    out.extend([
        // One tick.
        Query::new(at(a)..=at(a)),
        Query::new(at(a)..at(a + 1)),
        // Open ends near the ends of the data.
        Query::new(at(end_ms - 20_000)..),
        Query::new(..at(START_MS + 20_000)),
        Query::new(..=at(START_MS + 1_000)),
        // Across the ends of the data.
        Query::new(at(START_MS - 60_000)..at(START_MS + 500)),
        Query::new(at(end_ms - 500)..=at(end_ms + 60_000)),
        // An excluded start (the start's millisecond holds later instants).
        Query::new((Excluded(at(a)), Excluded(at(a + 5)))),
        // No rows: before the first and after the last.
        Query::new(at(START_MS - 10_000)..at(START_MS)),
        Query::new(at(end_ms + 1)..at(end_ms + 10_000)),
    ]);
    out
}

/// Creates `events` with `create`, inserts the rows as multi-row `INSERT`s
/// in one transaction (MySQL/MariaDB, SQLite) and runs `analyze`.
async fn load_by_inserts<DB>(pool: &sqlx::Pool<DB>, create: &'static str, analyze: &'static str)
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
{
    sqlx::raw_sql(create)
        .execute(pool)
        .await
        .expect("create table");
    let mut tx = pool.begin().await.expect("a transaction");
    for chunk in rows().chunks(ROWS_PER_INSERT) {
        let values: Vec<String> = chunk.iter().map(|(id, t)| format!("({id},{t})")).collect();
        let sql = format!("INSERT INTO events (id, t_ms) VALUES {}", values.join(","));
        sqlx::raw_sql(AssertSqlSafe(sql))
            .execute(&mut *tx)
            .await
            .expect("insert rows");
    }
    tx.commit().await.expect("commit");
    sqlx::raw_sql(analyze).execute(pool).await.expect("ANALYZE");
}

/// The keys of the rows whose decoded time is inside `q`, from the rows in memory.
fn expected_in_memory(q: Query) -> Vec<i64> {
    let (first, last) = q.t_ms();
    let mut ids: Vec<i64> = rows()
        .iter()
        .filter(|(_, t)| (first..=last).contains(t))
        .map(|&(id, _)| id)
        .collect();
    ids.sort_unstable();
    ids
}

/// Runs `q` through SeaORM (`issued_in`).
async fn through_seaorm(conn: &DatabaseConnection, q: Query) -> Vec<i64> {
    use flakeid_seaorm::IssuedIn;
    let filter = event::Column::Id
        .issued_in::<EventId>(q.range())
        .unwrap_or_else(|e| panic!("{q:?}: {e}"));
    event::Entity::find()
        .select_only()
        .column(event::Column::Id)
        .filter(filter)
        .order_by_asc(event::Column::Id)
        .into_tuple::<EventId>()
        .all(conn)
        .await
        .unwrap_or_else(|e| panic!("{q:?} through SeaORM: {e}"))
        .into_iter()
        .map(EventId::get)
        .collect()
}

/// Runs a query through Diesel (`issued_in`) on a connection of any backend.
macro_rules! through_diesel {
    ($conn:expr, $q:expr) => {{
        use flakeid_diesel::IssuedIn as _;
        let q: Query = $q;
        let filter = events::id
            .issued_in::<EventId>(q.range())
            .unwrap_or_else(|e| panic!("{q:?}: {e}"));
        let ids: Vec<EventId> = events::table
            .select(events::id)
            .filter(filter)
            .order(events::id.asc())
            .load($conn)
            .unwrap_or_else(|e| panic!("{q:?} through Diesel: {e}"));
        ids.into_iter().map(EventId::get).collect::<Vec<i64>>()
    }};
}

/// Runs every query of [`queries`] on one database, through plain SQL on
/// `t_ms`, sqlx with the bounds, SeaORM and Diesel, and checks that all
/// return the rows the table's data says are inside. `$p1`, `$p2` are the
/// backend's placeholders. Diesel's blocking calls run in `block_in_place`.
macro_rules! check_every_query {
    ($pool:expr, $seaorm:expr, $diesel:expr, $p1:literal, $p2:literal) => {{
        let mut counts = Vec::new();
        for q in queries() {
            let (first, last) = q.t_ms();
            let plain_sql = concat!(
                "SELECT id FROM events WHERE t_ms BETWEEN ",
                $p1,
                " AND ",
                $p2,
                " ORDER BY id"
            );
            let plain: Vec<i64> = sqlx::query_scalar(plain_sql)
                .bind(first)
                .bind(last)
                .fetch_all($pool)
                .await
                .expect("plain SQL");
            let bounds = EventId::time_bounds(q.range()).expect("bounds");
            let bounds_sql = concat!(
                "SELECT id FROM events WHERE id BETWEEN ",
                $p1,
                " AND ",
                $p2,
                " ORDER BY id"
            );
            let sqlx_ids: Vec<i64> = sqlx::query_scalar::<_, EventId>(bounds_sql)
                .bind(bounds.start())
                .bind(bounds.end())
                .fetch_all($pool)
                .await
                .expect("sqlx with the bounds")
                .into_iter()
                .map(EventId::get)
                .collect();
            let seaorm_ids = through_seaorm($seaorm, q).await;
            let diesel_ids = tokio::task::block_in_place(|| through_diesel!($diesel, q));
            counts.push(plain.len());
            let expected = expected_in_memory(q);
            assert_eq!(plain.len(), expected.len(), "{q:?}: plain SQL on t_ms");
            assert!(plain == expected, "{q:?}: plain SQL on t_ms");
            for (path, ids) in [
                ("SeaORM", &seaorm_ids),
                ("Diesel", &diesel_ids),
                ("sqlx", &sqlx_ids),
            ] {
                assert_eq!(ids.len(), expected.len(), "{q:?}: rows through {path}");
                assert!(*ids == expected, "{q:?}: the rows through {path} differ");
            }
        }
        // A test whose ranges miss the data would check nothing.
        let with_rows = counts.iter().filter(|&&n| n > 0).count();
        assert!(with_rows >= counts.len() - 2, "rows per query: {counts:?}");
        assert!(
            counts.iter().sum::<usize>() > 100_000,
            "rows per query: {counts:?}"
        );
    }};
}

mod postgres {
    use super::*;
    use sqlx::postgres::PgPool;

    async fn load(db: &TestDb) -> PgPool {
        let pool = PgPool::connect(db.url())
            .await
            .expect("connect to PostgreSQL");
        sqlx::query(
            "CREATE TABLE events (id BIGINT PRIMARY KEY CHECK (id > 0), t_ms BIGINT NOT NULL)",
        )
        .execute(&pool)
        .await
        .expect("create table");
        let mut conn = pool.acquire().await.expect("a connection");
        let mut copy = conn
            .copy_in_raw("COPY events (id, t_ms) FROM STDIN")
            .await
            .expect("COPY");
        for chunk in rows().chunks(50_000) {
            let mut text = String::with_capacity(chunk.len() * 36);
            for (id, t) in chunk {
                text.push_str(&format!("{id}\t{t}\n"));
            }
            copy.send(text.into_bytes()).await.expect("COPY data");
        }
        let copied = copy.finish().await.expect("COPY done");
        assert_eq!(copied, ROWS as u64);
        drop(conn);
        sqlx::query("ANALYZE events")
            .execute(&pool)
            .await
            .expect("ANALYZE");
        pool
    }

    /// The plan's lines for `sql` with `binds`.
    async fn plan(pool: &PgPool, sql: &str, binds: &[i64]) -> Vec<String> {
        let mut query = sqlx::query_scalar::<_, String>(AssertSqlSafe(format!("EXPLAIN {sql}")));
        for b in binds {
            query = query.bind(*b);
        }
        query
            .fetch_all(pool)
            .await
            .unwrap_or_else(|e| panic!("EXPLAIN {sql}: {e}"))
    }

    /// The plan scans a range of the primary key's index, bounded by `lo` and `hi`.
    fn assert_key_range_scan(plan: &[String], lo: i64, hi: i64) {
        let text = plan.join("\n");
        let scans = [
            "Index Scan using events_pkey",
            "Index Only Scan using events_pkey",
            "Bitmap Index Scan on events_pkey",
        ];
        assert!(
            scans.iter().any(|s| text.contains(s)),
            "not a scan of the key's index:\n{text}"
        );
        let cond = plan
            .iter()
            .find(|l| l.contains("Index Cond"))
            .unwrap_or_else(|| panic!("no index condition:\n{text}"));
        assert!(
            cond.contains(&format!("id >= '{lo}'")) && cond.contains(&format!("id <= '{hi}'")),
            "the index condition is not {lo}..={hi}:\n{text}"
        );
        assert!(!text.contains("Seq Scan"), "{text}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn filters_return_exactly_the_rows_of_each_range_by_a_key_index_scan() {
        let db = db::postgres().await;
        let pool = load(&db).await;
        let seaorm = Database::connect(db.url()).await.expect("SeaORM connects");
        let mut diesel_conn = tokio::task::block_in_place(|| {
            diesel::PgConnection::establish(db.url()).expect("Diesel connects")
        });
        check_every_query!(&pool, &seaorm, &mut diesel_conn, "$1", "$2");

        // A minute's rows, as SeaORM writes the query and as Diesel and
        // sqlx send it (bound parameters): a range scan of the key's index.
        let t0 = at(START_MS + 300_000);
        let minute = t0..t0 + Duration::from_secs(60);
        let (lo, hi) = EventId::time_bounds(minute.clone()).unwrap().into_inner();
        let (lo, hi) = (lo.get(), hi.get());
        use flakeid_seaorm::IssuedIn as _;
        let seaorm_sql = event::Entity::find()
            .filter(
                event::Column::Id
                    .issued_in::<EventId>(minute.clone())
                    .unwrap(),
            )
            .build(DbBackend::Postgres)
            .to_string();
        assert_key_range_scan(&plan(&pool, &seaorm_sql, &[]).await, lo, hi);
        use flakeid_diesel::IssuedIn as _;
        let diesel_query = events::table.filter(events::id.issued_in::<EventId>(minute).unwrap());
        let diesel_sql = diesel::debug_query::<diesel::pg::Pg, _>(&diesel_query).to_string();
        let diesel_sql = diesel_sql
            .split(" -- binds")
            .next()
            .unwrap_or_default()
            .to_owned();
        assert!(diesel_sql.contains("BETWEEN $1 AND $2"), "{diesel_sql}");
        assert_key_range_scan(&plan(&pool, &diesel_sql, &[lo, hi]).await, lo, hi);
        let tick = EventId::tick_bounds(t0).unwrap();
        let (lo, hi) = (tick.start().get(), tick.end().get());
        let sql = "SELECT id, t_ms FROM events WHERE id BETWEEN $1 AND $2";
        assert_key_range_scan(&plan(&pool, sql, &[lo, hi]).await, lo, hi);
        // The same rows by t_ms, which has no index, take the whole table.
        let by_time = plan(
            &pool,
            "SELECT id FROM events WHERE t_ms BETWEEN $1 AND $2",
            &[0, 1],
        )
        .await;
        assert!(by_time.join("\n").contains("Seq Scan"), "{by_time:?}");
        seaorm
            .execute_unprepared("SELECT 1")
            .await
            .expect("SeaORM is still connected");
    }
}

mod mysql {
    use super::*;
    use sqlx::mysql::MySqlPool;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn filters_return_exactly_the_rows_of_each_range_by_a_key_range() {
        let db = db::mysql().await;
        let pool = MySqlPool::connect(db.url())
            .await
            .expect("connect to MySQL/MariaDB");
        load_by_inserts(
            &pool,
            "CREATE TABLE events (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), \
             t_ms BIGINT NOT NULL) ENGINE=InnoDB",
            "ANALYZE TABLE events",
        )
        .await;
        let seaorm = Database::connect(db.url()).await.expect("SeaORM connects");
        let mut diesel_conn = tokio::task::block_in_place(|| {
            diesel::MysqlConnection::establish(db.url()).expect("Diesel connects")
        });
        check_every_query!(&pool, &seaorm, &mut diesel_conn, "?", "?");

        // InnoDB reads a range of the clustered primary key.
        let t0 = at(START_MS + 300_000);
        use flakeid_seaorm::IssuedIn as _;
        let sql = event::Entity::find()
            .filter(
                event::Column::Id
                    .issued_in::<EventId>(t0..t0 + Duration::from_secs(60))
                    .unwrap(),
            )
            .build(DbBackend::MySql)
            .to_string();
        let row = sqlx::query(AssertSqlSafe(format!("EXPLAIN {sql}")))
            .fetch_one(&pool)
            .await
            .expect("EXPLAIN");
        use sqlx::Row as _;
        let access: String = row.try_get("type").expect("type");
        let key: Option<String> = row.try_get("key").expect("key");
        assert_eq!(
            (access.as_str(), key.as_deref()),
            ("range", Some("PRIMARY")),
            "{sql}"
        );
    }
}

mod sqlite {
    use super::*;
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};

    /// A database file, removed when the test ends.
    struct File(std::path::PathBuf);

    impl Drop for File {
        fn drop(&mut self) {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let mut p = self.0.clone().into_os_string();
                p.push(suffix);
                let _ = std::fs::remove_file(p);
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn filters_return_exactly_the_rows_of_each_range_by_a_key_index_search() {
        let file = File(
            std::env::temp_dir().join(format!("flakeid-time-bounds-{}.db", std::process::id())),
        );
        let path = file.0.display().to_string();
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true);
        let pool = SqlitePool::connect_with(options)
            .await
            .expect("open SQLite");
        load_by_inserts(
            &pool,
            "CREATE TABLE events (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), t_ms BIGINT NOT NULL)",
            "ANALYZE",
        )
        .await;
        let seaorm = Database::connect(format!("sqlite://{path}"))
            .await
            .expect("SeaORM opens");
        let mut diesel_conn = diesel::SqliteConnection::establish(&path).expect("Diesel opens");
        check_every_query!(&pool, &seaorm, &mut diesel_conn, "?", "?");

        // SQLite searches the key's index for the range.
        let t0 = at(START_MS + 300_000);
        let bounds = EventId::time_bounds(t0..t0 + Duration::from_secs(60)).unwrap();
        let rows = sqlx::query("EXPLAIN QUERY PLAN SELECT id FROM events WHERE id BETWEEN ? AND ?")
            .bind(bounds.start())
            .bind(bounds.end())
            .fetch_all(&pool)
            .await
            .expect("EXPLAIN QUERY PLAN");
        use sqlx::Row as _;
        let text = rows
            .iter()
            .map(|r| r.get::<String, _>("detail"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            text.contains("SEARCH events USING") && text.contains("(id>? AND id<?)"),
            "not a search of the key's index: {text}"
        );
    }
}
