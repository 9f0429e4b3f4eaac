//! The database ID function (`flakeid_id_function`) on
//! PostgreSQL and MariaDB: application processes (leased nodes, the normal
//! generator) and plain SQL `INSERT`s using the column default write into
//! one table concurrently without a key conflict; more than a tick's IDs
//! from SQL never repeat; the function refuses a clock behind its last ID,
//! a node it no longer holds and times before the node's high-water mark;
//! rollbacks give nothing back; an open transaction blocks no other
//! writer. Everything is checked with plain SQL and decoded with the Rust
//! layout.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::layout::Layout as _;
use flakeid_core::layout::{BitLayout, presets};
use flakeid_id_function::IdFunction;
use flakeid_lease::{LeaseError, LeaseOptions, NodeRow};
use flakeid_sql::Dialect;
use flakeid_tests::db::{self, Backend, TestDb};
use sqlx::{Connection as _, MySqlConnection, PgConnection};

/// The PostgreSQL test and the MariaDB test of one case: `$case` runs on a
/// fresh database of each server, or (`$case(backend)`) is given the backend.
macro_rules! on_postgres_and_mariadb {
    (#[$test:meta] $case:ident => $postgres:ident, $mariadb:ident) => {
        #[$test]
        async fn $postgres() {
            $case(db::postgres().await).await;
        }

        #[$test]
        async fn $mariadb() {
            $case(db::mysql().await).await;
        }
    };
    (#[$test:meta] $case:ident(backend) => $postgres:ident, $mariadb:ident) => {
        #[$test]
        async fn $postgres() {
            $case(Backend::Postgres).await;
        }

        #[$test]
        async fn $mariadb() {
            $case(Backend::MySql).await;
        }
    };
}

/// A connection of either backend, running plain SQL.
enum Conn {
    Pg(PgConnection),
    My(MySqlConnection),
}

impl Conn {
    async fn open(db: &TestDb) -> Conn {
        match db.backend() {
            Backend::Postgres => Conn::Pg(PgConnection::connect(db.url()).await.expect("connect")),
            Backend::MySql => Conn::My(MySqlConnection::connect(db.url()).await.expect("connect")),
        }
    }

    /// Runs one statement (text protocol: bodies and blocks allowed).
    async fn run(&mut self, sql: &str) -> Result<(), sqlx::Error> {
        let sql = sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()));
        match self {
            Conn::Pg(c) => sql.execute(c).await.map(drop),
            Conn::My(c) => sql.execute(c).await.map(drop),
        }
    }

    async fn ok(&mut self, sql: &str) {
        if let Err(e) = self.run(sql).await {
            panic!("{sql}\nfailed: {e}");
        }
    }

    /// Rows of `(BIGINT, text)`.
    async fn rows(&mut self, sql: &str) -> Vec<(i64, String)> {
        let q = || sqlx::AssertSqlSafe(sql.to_owned());
        match self {
            Conn::Pg(c) => sqlx::query_as(q()).fetch_all(c).await,
            Conn::My(c) => sqlx::query_as(q()).fetch_all(c).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// One `BIGINT`.
    async fn int(&mut self, sql: &str) -> i64 {
        let q = || sqlx::AssertSqlSafe(sql.to_owned());
        match self {
            Conn::Pg(c) => sqlx::query_scalar(q()).fetch_one(c).await,
            Conn::My(c) => sqlx::query_scalar(q()).fetch_one(c).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// An insert through the column default; the error message if it failed.
    async fn insert(&mut self, table: &str, writer: &str, n: i64) -> Result<(), String> {
        self.run(&format!(
            "INSERT INTO {table} (writer, n) VALUES ('{writer}', {n})"
        ))
        .await
        .map_err(|e| e.to_string())
    }
}

fn dialect(db: &TestDb) -> Dialect {
    match db.backend() {
        Backend::Postgres => Dialect::Postgres,
        Backend::MySql => Dialect::MySql,
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
}

/// `SELECT` of the numbers 1..=n, one column `x`.
fn series(db: &TestDb, n: u32) -> String {
    match db.backend() {
        Backend::Postgres => format!("SELECT g AS x FROM generate_series(1, {n}) AS g"),
        Backend::MySql => format!("SELECT seq AS x FROM seq_1_to_{n}"),
    }
}

/// Creates `table (id BIGINT PRIMARY KEY, writer, n)` and installs `f`
/// with `table.id` as the column it fills.
async fn install(conn: &mut Conn, f: &IdFunction, table: &str) {
    conn.ok(&format!(
        "CREATE TABLE {table} (id BIGINT NOT NULL PRIMARY KEY, writer VARCHAR(32) NOT NULL, \
         n BIGINT NOT NULL)"
    ))
    .await;
    for s in f.install().expect("install SQL") {
        conn.ok(&s).await;
    }
    for s in f.column_default(table, "id").expect("default SQL") {
        conn.ok(&s).await;
    }
}

/// A layout with 4 IDs per millisecond, so that SQL can use up a tick.
fn four_per_tick() -> BitLayout {
    BitLayout::builder()
        .time_bits(41)
        .epoch_millis(flakeid_core::layout::presets::lsid().epoch_millis())
        .node_bits(10)
        .sequence_bits(2)
        .build()
        .expect("a valid layout")
}

/// Every `(id, writer)` of the table.
async fn all_ids(conn: &mut Conn, table: &str) -> Vec<(i64, String)> {
    conn.rows(&format!("SELECT id, writer FROM {table} ORDER BY id"))
        .await
}

async fn application_and_sql_writers_share_one_key_space(db: TestDb) {
    let layout = presets::twitter();
    let space = "orders";
    let sql_node = 3;
    let f = IdFunction::new(dialect(&db), space, layout.clone(), sql_node);
    let mut conn = Conn::open(&db).await;
    install(&mut conn, &f, "orders").await;

    // The reserved row, as stored.
    let (lease_until, owner) = conn
        .rows(&format!(
            "SELECT lease_until, owner FROM flakeid_nodes WHERE space = '{space}' AND node_id = {sql_node}"
        ))
        .await
        .pop()
        .expect("the node's lease row");
    assert_eq!(
        (lease_until, owner),
        (NodeRow::RESERVED_UNTIL_MILLIS, f.owner())
    );

    // Application processes lease nodes 0..=3 of the same space: they get
    // the three the function does not hold, and a fourth finds none.
    let orm = sea_orm::Database::connect(db.url()).await.expect("connect");
    let options = || {
        LeaseOptions::new(space, layout.clone())
            .nodes(0..=3)
            .ttl(Duration::from_secs(30))
    };
    let mut leases = Vec::new();
    for _ in 0..3 {
        leases.push(
            flakeid_seaorm::lease::claim(&orm, options())
                .await
                .expect("a free node"),
        );
    }
    let mut app_nodes: Vec<u64> = leases.iter().map(|l| l.node()).collect();
    app_nodes.sort_unstable();
    assert_eq!(app_nodes, [0, 1, 2]);
    match flakeid_seaorm::lease::claim(&orm, options()).await {
        Err(LeaseError::AllTaken {
            nodes: 4,
            reserved: 1,
            node,
            ..
        }) => assert_ne!(
            node, sql_node,
            "the first lease to expire is not the reserved node"
        ),
        other => panic!("the reserved node must not be leased: {other:?}"),
    }
    // Only the reserved node: the error says it is reserved, not when it expires.
    let only_reserved = LeaseOptions::new(space, layout.clone()).nodes(sql_node..=sql_node);
    match flakeid_seaorm::lease::claim(&orm, only_reserved).await {
        Err(err @ LeaseError::AllTaken { reserved: 1, .. }) => {
            let text = err.to_string();
            let expected = format!(
                "all 1 node IDs ({sql_node}..={sql_node}) of space \"{space}\" are reserved by a \
                 database ID function (flakeid_id_function), which holds its node \
                 until it is uninstalled (waited "
            );
            assert!(text.starts_with(&expected), "{text}");
        }
        other => panic!("the reserved node must not be leased: {other:?}"),
    }

    const ROWS: i64 = 300;
    let start = now_ms();
    let mut tasks = Vec::new();
    for lease in &leases {
        let generator = lease.generator_builder().build().expect("generator");
        let writer = format!("app-{}", lease.node());
        let db_url = db.url().to_owned();
        let backend = db.backend();
        tasks.push(tokio::spawn(async move {
            let mut conn = match backend {
                Backend::Postgres => Conn::Pg(PgConnection::connect(&db_url).await.unwrap()),
                Backend::MySql => Conn::My(MySqlConnection::connect(&db_url).await.unwrap()),
            };
            for n in 0..ROWS {
                let id = generator.next_id().expect("an ID");
                conn.ok(&format!(
                    "INSERT INTO orders (id, writer, n) VALUES ({id}, '{writer}', {n})"
                ))
                .await;
            }
            generator
        }));
    }
    let mut sql_tasks = Vec::new();
    for k in 0..3 {
        let mut conn = Conn::open(&db).await;
        let bulk = series(&db, 200);
        sql_tasks.push(tokio::spawn(async move {
            let writer = format!("sql-{k}");
            for n in 0..ROWS {
                if let Err(e) = conn.insert("orders", &writer, n).await {
                    panic!("SQL writer {writer}: {e}");
                }
            }
            conn.ok(&format!(
                "INSERT INTO orders (writer, n) SELECT 'bulk-{k}', 1000 + s.x FROM ({bulk}) AS s"
            ))
            .await;
        }));
    }
    let mut generators = Vec::new();
    for t in tasks {
        generators.push(t.await.expect("application writer"));
    }
    for t in sql_tasks {
        t.await.expect("SQL writer");
    }
    let end = now_ms();
    for (lease, generator) in leases.into_iter().zip(&generators) {
        lease.release(generator).await.expect("release");
    }

    let rows = all_ids(&mut conn, "orders").await;
    assert_eq!(rows.len() as i64, 3 * ROWS + 3 * ROWS + 3 * 200);
    let distinct: HashSet<i64> = rows.iter().map(|r| r.0).collect();
    assert_eq!(distinct.len(), rows.len());
    let tick = layout.tick_millis() as i64;
    // A generator stamps at most its catch-up window (10 ms) plus a tick
    // before the time it issues; the function stamps the tick it runs in.
    let catch_up = 10;
    for (id, writer) in &rows {
        let id = u64::try_from(*id).expect("a positive ID");
        let parts = layout.decompose_checked(id).expect("within the layout");
        let stamped = layout.timestamp_millis(id) as i64;
        if let Some(node) = writer.strip_prefix("app-") {
            assert_eq!(parts.node.to_string(), node, "{writer}'s ID {id}");
            assert!(
                (start - catch_up - tick..=end).contains(&stamped),
                "{writer}'s ID {id} stamped {stamped}, outside {start}..={end}"
            );
        } else {
            assert_eq!(parts.node, sql_node, "{writer}'s ID {id}");
            assert!(
                (start - tick..=end).contains(&stamped),
                "{writer}'s ID {id} stamped {stamped}, outside {start}..={end}"
            );
        }
    }
    // Each writer's IDs increase in the order it inserted them.
    let by_writer = conn
        .rows("SELECT id, writer FROM orders ORDER BY writer, n")
        .await;
    let mut last: BTreeMap<String, i64> = BTreeMap::new();
    for (id, writer) in by_writer {
        let w = writer.trim_start_matches("bulk-").to_owned();
        if let Some(prev) = last.insert(w.clone(), id) {
            assert!(id > prev, "{writer}: {id} after {prev}");
        }
    }
}

on_postgres_and_mariadb! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    application_and_sql_writers_share_one_key_space =>
        postgres_application_and_sql_writers_share_one_key_space,
        mariadb_application_and_sql_writers_share_one_key_space
}

/// 2,000 rows in one statement and 2 × 500 single-row inserts, with 4 IDs
/// per tick: the function waits for the next tick, never repeats, and
/// stamps no tick with more than 4 IDs.
async fn more_than_a_tick_from_sql_never_repeats(db: TestDb) {
    let layout = four_per_tick();
    let f = IdFunction::new(dialect(&db), "busy", layout.clone(), 9);
    let mut conn = Conn::open(&db).await;
    install(&mut conn, &f, "busy").await;
    let bulk = series(&db, 2000);
    let mut tasks = Vec::new();
    for k in 0..2 {
        let mut c = Conn::open(&db).await;
        tasks.push(tokio::spawn(async move {
            for n in 0..500 {
                if let Err(e) = c.insert("busy", &format!("single-{k}"), n).await {
                    panic!("single-row writer {k}: {e}");
                }
            }
        }));
    }
    conn.ok(&format!(
        "INSERT INTO busy (writer, n) SELECT 'bulk', s.x FROM ({bulk}) AS s"
    ))
    .await;
    for t in tasks {
        t.await.expect("writer");
    }
    let rows = all_ids(&mut conn, "busy").await;
    assert_eq!(rows.len(), 3000);
    let mut per_tick: BTreeMap<u64, u64> = BTreeMap::new();
    for (id, _) in &rows {
        let parts = layout.decompose(*id as u64);
        assert_eq!(parts.node, 9);
        *per_tick.entry(parts.tick).or_default() += 1;
    }
    assert!(per_tick.values().all(|&n| n <= 4), "{per_tick:?}");
    assert!(
        per_tick.len() >= 750,
        "3,000 IDs need at least 750 ticks of 4, got {}",
        per_tick.len()
    );
    // The statement's IDs increase in the order of its rows.
    let bulk_ids = conn
        .rows("SELECT id, writer FROM busy WHERE writer = 'bulk' ORDER BY n")
        .await;
    assert!(bulk_ids.windows(2).all(|w| w[0].0 < w[1].0));
}

on_postgres_and_mariadb! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    more_than_a_tick_from_sql_never_repeats =>
        postgres_more_than_a_tick_from_sql_never_repeats,
        mariadb_more_than_a_tick_from_sql_never_repeats
}

/// A clock the tests set: a one-row table and a function reading it.
async fn manual_clock(conn: &mut Conn, backend: Backend, at: i64) {
    conn.ok("CREATE TABLE test_clock (ms BIGINT NOT NULL)")
        .await;
    conn.ok(&format!("INSERT INTO test_clock (ms) VALUES ({at})"))
        .await;
    conn.ok(match backend {
        Backend::Postgres => {
            "CREATE FUNCTION test_clock_ms() RETURNS bigint LANGUAGE sql VOLATILE \
             AS 'SELECT ms FROM test_clock'"
        }
        Backend::MySql => {
            "CREATE FUNCTION test_clock_ms() RETURNS BIGINT NOT DETERMINISTIC READS SQL DATA \
             RETURN (SELECT ms FROM test_clock)"
        }
    })
    .await;
}

async fn set_clock(conn: &mut Conn, at: i64) {
    conn.ok(&format!("UPDATE test_clock SET ms = {at}")).await;
}

/// The `(tick, node, sequence)` of the latest row of `writer`.
async fn last_parts(conn: &mut Conn, layout: &BitLayout, writer: &str) -> (u64, u64, u64) {
    let id = conn
        .int(&format!(
            "SELECT MAX(id) FROM manual WHERE writer = '{writer}'"
        ))
        .await;
    let p = layout.decompose(id as u64);
    (p.tick, p.node, p.sequence)
}

fn assert_refused(result: Result<(), String>, expected: &str) {
    match result {
        Err(e) => assert!(
            e.contains("flakeid: ") && e.contains(expected),
            "expected an error containing {expected:?}, got {e}"
        ),
        Ok(()) => panic!("the insert must be refused ({expected})"),
    }
}

/// With the clock at `refused.0`, `writer`'s insert is refused with an
/// error containing `refused.1`; with the clock at `accepted_at`, its next
/// insert gets an ID of that tick.
async fn refused_then_accepted(
    conn: &mut Conn,
    layout: &BitLayout,
    writer: &str,
    refused: (i64, &str),
    accepted_at: i64,
) {
    let (refused_at, expected) = refused;
    set_clock(conn, refused_at).await;
    assert_refused(conn.insert("manual", writer, 0).await, expected);
    set_clock(conn, accepted_at).await;
    conn.insert("manual", writer, 1).await.expect("an ID");
    let tick = (accepted_at - layout.epoch_millis() as i64) as u64;
    assert_eq!(last_parts(conn, layout, writer).await.0, tick);
}

/// The function under a manual clock: a tick's sequence used up, a
/// rollback, the clock stepped back, the node's high-water mark, the
/// reservation lost.
async fn sql_function_follows_a_manual_clock(db: TestDb) {
    let layout = four_per_tick();
    let epoch = layout.epoch_millis() as i64;
    let t = epoch + 50_000_000_000;
    let tick = |ms: i64| (ms - epoch) as u64;
    let mut conn = Conn::open(&db).await;
    manual_clock(&mut conn, db.backend(), t).await;
    let f = IdFunction::new(dialect(&db), "manual", layout.clone(), 5)
        .clock_function("test_clock_ms")
        .max_wait(Duration::from_millis(30));
    install(&mut conn, &f, "manual").await;

    // Four IDs in the tick, then it is used up: the fifth waits 30 ms for
    // a tick that does not come, and is refused.
    for n in 0..4 {
        conn.insert("manual", "a", n)
            .await
            .expect("an ID of the tick");
        assert_eq!(
            last_parts(&mut conn, &layout, "a").await,
            (tick(t), 5, n as u64)
        );
    }
    assert_refused(
        conn.insert("manual", "a", 4).await,
        "used all 4 IDs of the tick",
    );
    assert_eq!(conn.int("SELECT COUNT(*) FROM manual").await, 4);

    // The next tick. The refused call used up a position on MariaDB (its
    // AUTO_INCREMENT value), none on PostgreSQL.
    set_clock(&mut conn, t + 1).await;
    conn.insert("manual", "b", 0).await.expect("an ID");
    let first = match db.backend() {
        Backend::Postgres => 0,
        Backend::MySql => 1,
    };
    assert_eq!(
        last_parts(&mut conn, &layout, "b").await,
        (tick(t + 1), 5, first)
    );

    // A rolled-back insert's ID is not issued again.
    conn.ok("BEGIN").await;
    conn.insert("manual", "rolled-back", 0)
        .await
        .expect("an ID");
    let rolled_back = conn
        .int("SELECT MAX(id) FROM manual WHERE writer = 'rolled-back'")
        .await;
    conn.ok("ROLLBACK").await;
    conn.insert("manual", "c", 0).await.expect("an ID");
    let after = conn
        .int("SELECT MAX(id) FROM manual WHERE writer = 'c'")
        .await;
    assert!(
        after > rolled_back,
        "{after} after the rolled-back {rolled_back}"
    );
    assert_eq!(layout.decompose(after as u64).tick, tick(t + 1));

    // The clock stepped back behind the last ID: refused, then fine again
    // once it is past it.
    refused_then_accepted(
        &mut conn,
        &layout,
        "d",
        (t, "behind the last ID of node 5"),
        t + 2,
    )
    .await;

    // A previous holder's high-water mark: nothing at or before it.
    conn.ok(&format!(
        "UPDATE flakeid_nodes SET high_water = {} WHERE space = 'manual' AND node_id = 5",
        t + 100
    ))
    .await;
    refused_then_accepted(
        &mut conn,
        &layout,
        "e",
        (t + 100, "high-water mark of node 5"),
        t + 101,
    )
    .await;

    // The reservation taken away: refused until installed again.
    conn.ok("UPDATE flakeid_nodes SET owner = NULL WHERE space = 'manual' AND node_id = 5")
        .await;
    assert_refused(
        conn.insert("manual", "f", 0).await,
        "is not reserved for function",
    );
    for s in f.install().expect("install SQL") {
        conn.ok(&s).await;
    }
    conn.insert("manual", "f", 1).await.expect("an ID");

    // Before the epoch and past the time field's end.
    set_clock(&mut conn, epoch - 1).await;
    assert_refused(
        conn.insert("manual", "g", 0).await,
        "before the layout's epoch",
    );
    set_clock(&mut conn, layout.end_millis() as i64).await;
    assert_refused(conn.insert("manual", "g", 1).await, "past the end");

    let ids = conn.rows("SELECT id, writer FROM manual").await;
    let distinct: HashSet<i64> = ids.iter().map(|r| r.0).collect();
    assert_eq!(distinct.len(), ids.len());
}

on_postgres_and_mariadb! {
    #[tokio::test]
    sql_function_follows_a_manual_clock =>
        postgres_sql_function_follows_a_manual_clock,
        mariadb_sql_function_follows_a_manual_clock
}

/// A transaction that inserted through the function and stays open does
/// not make another session's insert wait: the function's lock ends with
/// the call.
async fn an_open_transaction_does_not_block_other_sql_writers(db: TestDb) {
    let f = IdFunction::new(dialect(&db), "open", presets::twitter(), 1)
        .lock_timeout(Duration::from_secs(2));
    let mut a = Conn::open(&db).await;
    install(&mut a, &f, "open").await;
    let mut b = Conn::open(&db).await;
    // Any lock held until A commits would make B fail after 2 s.
    b.ok(match db.backend() {
        Backend::Postgres => "SET lock_timeout = '2s'",
        Backend::MySql => "SET SESSION innodb_lock_wait_timeout = 2",
    })
    .await;
    a.ok("BEGIN").await;
    a.insert("open", "a", 0).await.expect("A's insert");
    b.insert("open", "b", 0)
        .await
        .expect("B's insert while A is open");
    b.insert("open", "b", 1).await.expect("B's second insert");
    a.ok("COMMIT").await;
    let rows = all_ids(&mut a, "open").await;
    assert_eq!(rows.len(), 3);
    let distinct: HashSet<i64> = rows.iter().map(|r| r.0).collect();
    assert_eq!(distinct.len(), 3);
}

on_postgres_and_mariadb! {
    #[tokio::test]
    an_open_transaction_does_not_block_other_sql_writers =>
        postgres_an_open_transaction_does_not_block_other_sql_writers,
        mariadb_an_open_transaction_does_not_block_other_sql_writers
}

/// The install refuses a node an application holds; once it is released
/// the function starts after its high-water mark; after the uninstall the
/// node's next application holder starts after the function's last ID.
async fn the_node_passes_between_application_and_function(db: TestDb) {
    let layout = presets::twitter();
    let space = "handover";
    let mut conn = Conn::open(&db).await;
    let orm = sea_orm::Database::connect(db.url()).await.expect("connect");
    flakeid_seaorm::lease::create_table(&orm)
        .await
        .expect("lease table");
    let options = || LeaseOptions::new(space, layout.clone()).nodes(4..=4);
    let lease = flakeid_seaorm::lease::claim(&orm, options())
        .await
        .expect("node 4");
    let f = IdFunction::new(dialect(&db), space, layout.clone(), 4);
    conn.ok("CREATE TABLE handover (id BIGINT NOT NULL PRIMARY KEY, writer VARCHAR(32) NOT NULL, n BIGINT NOT NULL)")
        .await;
    let mut refused = None;
    for s in f.install().expect("install SQL") {
        if let Err(e) = conn.run(&s).await {
            refused = Some(e.to_string());
            break;
        }
    }
    let refused = refused.expect("the install must refuse a leased node");
    assert!(refused.contains("held by a live lease"), "{refused}");

    // The application issues an ID and releases the node.
    let generator = lease.generator_builder().build().expect("generator");
    let app_id = generator.next_id().expect("an ID");
    conn.ok(&format!(
        "INSERT INTO handover (id, writer, n) VALUES ({app_id}, 'app', 0)"
    ))
    .await;
    let app_mark = lease.release(&generator).await.expect("release");

    // Now the install succeeds, and the function stamps after the mark.
    for s in f.install().expect("install SQL") {
        conn.ok(&s).await;
    }
    for s in f.column_default("handover", "id").expect("default SQL") {
        conn.ok(&s).await;
    }
    conn.insert("handover", "sql", 1).await.expect("an ID");
    let sql_id = conn
        .int("SELECT id FROM handover WHERE writer = 'sql'")
        .await as u64;
    assert!(sql_id > app_id);
    assert_eq!(layout.decompose(sql_id).node, 4);
    assert!(layout.timestamp_millis(sql_id) > app_mark);

    // Uninstalled: the row is free and its mark covers the function's IDs.
    for s in f.drop_column_default("handover", "id").expect("SQL") {
        conn.ok(&s).await;
    }
    for s in f.uninstall().expect("uninstall SQL") {
        conn.ok(&s).await;
    }
    // Twice: nothing left to do.
    for s in f.uninstall().expect("uninstall SQL") {
        conn.ok(&s).await;
    }
    let (high_water, owner) = conn
        .rows(&format!(
            "SELECT high_water, COALESCE(owner, '-') FROM flakeid_nodes \
             WHERE space = '{space}' AND node_id = 4"
        ))
        .await
        .pop()
        .expect("the node's row");
    assert_eq!(owner, "-");
    assert!(high_water as u64 >= layout.timestamp_millis(sql_id));

    // The application's next holder of node 4 starts after the function.
    let lease = flakeid_seaorm::lease::claim(&orm, options())
        .await
        .expect("node 4 is free again");
    assert_eq!(lease.resume_after_millis(), high_water as u64);
    let generator = lease.generator_builder().build().expect("generator");
    let next = generator.next_id().expect("an ID");
    assert!(next > sql_id, "{next} after the function's {sql_id}");
    conn.ok(&format!(
        "INSERT INTO handover (id, writer, n) VALUES ({next}, 'app', 2)"
    ))
    .await;
    lease.release(&generator).await.expect("release");
}

on_postgres_and_mariadb! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    the_node_passes_between_application_and_function =>
        postgres_the_node_passes_between_application_and_function,
        mariadb_the_node_passes_between_application_and_function
}

/// A connection to `url`, once the server answers.
async fn reconnect(backend: Backend, url: &str) -> Conn {
    for _ in 0..240 {
        let conn = match backend {
            Backend::Postgres => PgConnection::connect(url).await.map(Conn::Pg),
            Backend::MySql => MySqlConnection::connect(url).await.map(Conn::My),
        };
        if let Ok(mut c) = conn
            && c.run("SELECT 1").await.is_ok()
        {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{backend} does not answer at {url}");
}

/// The server crashes (killed with SIGKILL, then recovering from its log)
/// while the clock stands still: the function continues after every
/// committed row. As a control, the same function over a state the crash
/// resets (an `UNLOGGED` sequence, a `MEMORY` table) repeats a committed ID.
async fn crash_in_the_same_tick_repeats_no_committed_id(backend: Backend) {
    let mut server = db::own_server(backend).await;
    let database_url = |server: &db::OwnServer| {
        let mut url = url::Url::parse(server.url()).expect("URL");
        url.set_path("/crash");
        String::from(url)
    };
    let mut admin = reconnect(backend, server.url()).await;
    admin.ok("CREATE DATABASE crash").await;
    if backend == Backend::MySql {
        // The test image trades durability for speed; a crash test needs it.
        admin
            .ok("SET GLOBAL innodb_flush_log_at_trx_commit = 1")
            .await;
    }
    drop(admin);
    let url = database_url(&server);
    let mut conn = reconnect(backend, &url).await;
    if backend == Backend::Postgres {
        conn.ok("SET synchronous_commit = on").await;
    }
    let layout = presets::twitter();
    let t = layout.epoch_millis() as i64 + 100_000_000_000;
    manual_clock(&mut conn, backend, t).await;
    let dialect = match backend {
        Backend::Postgres => Dialect::Postgres,
        Backend::MySql => Dialect::MySql,
    };
    let durable =
        IdFunction::new(dialect, "crash", layout.clone(), 1).clock_function("test_clock_ms");
    let volatile = IdFunction::new(dialect, "crash", layout.clone(), 2)
        .function_name("volatile_next_id")
        .clock_function("test_clock_ms");
    install(&mut conn, &durable, "durable").await;
    install(&mut conn, &volatile, "volatile").await;
    conn.ok(match backend {
        Backend::Postgres => "ALTER SEQUENCE volatile_next_id_state SET UNLOGGED",
        Backend::MySql => "ALTER TABLE volatile_next_id_state ENGINE=MEMORY",
    })
    .await;
    for n in 0..100 {
        conn.insert("durable", "before", n).await.expect("an ID");
        conn.insert("volatile", "before", n).await.expect("an ID");
    }
    let before = conn.int("SELECT MAX(id) FROM durable").await;
    // A transaction in flight at the crash.
    let mut open = reconnect(backend, &url).await;
    open.ok("BEGIN").await;
    open.insert("durable", "in-flight", 0).await.expect("an ID");

    server.crash_and_restart().await;
    assert!(
        conn.run("SELECT 1").await.is_err(),
        "the crash must end every session"
    );
    drop((conn, open));

    let url = database_url(&server);
    let mut conn = reconnect(backend, &url).await;
    assert_eq!(
        conn.int("SELECT COUNT(*) FROM durable").await,
        100,
        "the committed rows, and only they, survive"
    );
    for n in 100..200 {
        conn.insert("durable", "after", n)
            .await
            .expect("no committed ID again");
    }
    let first_after = conn
        .int("SELECT MIN(id) FROM durable WHERE writer = 'after'")
        .await;
    assert!(first_after > before, "{first_after} after {before}");
    assert_eq!(
        layout.decompose(first_after as u64).tick,
        layout.decompose(before as u64).tick,
        "the clock stood still: the same tick"
    );
    // The control: the reset state gives out a committed ID again.
    match conn.insert("volatile", "after", 100).await {
        Err(e) => assert!(e.to_lowercase().contains("duplicate"), "{e}"),
        Ok(()) => panic!("a state reset by the crash must repeat an ID"),
    }
}

on_postgres_and_mariadb! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    crash_in_the_same_tick_repeats_no_committed_id(backend) =>
        postgres_crash_in_the_same_tick_repeats_no_committed_id,
        mariadb_crash_in_the_same_tick_repeats_no_committed_id
}

/// For every preset (both field orders, ticks of 1 ms, 10 ms and 1 s, the
/// 53-bit domain), IDs from SQL decode with the Rust layout to the node
/// and a time within the insert.
async fn every_preset_composes_like_the_rust_layout(db: TestDb) {
    let mut conn = Conn::open(&db).await;
    for (name, preset) in presets::ALL {
        let layout = preset();
        let node = layout.max_node().min(i32::MAX as u64);
        let f = IdFunction::new(
            dialect(&db),
            format!("presets-{name}"),
            layout.clone(),
            node,
        )
        .function_name(format!("next_{name}"));
        let table = format!("ids_{name}");
        install(&mut conn, &f, &table).await;
        let start = now_ms();
        for n in 0..3 {
            conn.insert(&table, "sql", n).await.expect("an ID");
        }
        let end = now_ms();
        let rows = all_ids(&mut conn, &table).await;
        assert_eq!(rows.len(), 3, "{name}");
        for (id, _) in rows {
            let id = u64::try_from(id).expect("positive");
            let parts = layout.decompose_checked(id).expect("within the layout");
            assert_eq!(parts.node, node, "{name}: {id}");
            let stamped = layout.timestamp_millis(id) as i64;
            let tick = layout.tick_millis() as i64;
            assert!(
                (start - tick..=end).contains(&stamped),
                "{name}: {id} stamped {stamped}, outside {start}..={end}"
            );
        }
    }
}

on_postgres_and_mariadb! {
    #[tokio::test]
    every_preset_composes_like_the_rust_layout =>
        postgres_every_preset_composes_like_the_rust_layout,
        mariadb_every_preset_composes_like_the_rust_layout
}

/// A clock each session sets for itself (a setting or a user variable), so
/// that a transaction's snapshot does not hide it.
async fn session_clock(conn: &mut Conn, backend: Backend) {
    conn.ok(match backend {
        Backend::Postgres => {
            "CREATE FUNCTION test_session_clock() RETURNS bigint LANGUAGE sql VOLATILE \
             AS $$ SELECT current_setting('flakeid_test.clock_ms')::bigint $$"
        }
        Backend::MySql => {
            "CREATE FUNCTION test_session_clock() RETURNS BIGINT NOT DETERMINISTIC NO SQL \
             RETURN @test_clock_ms"
        }
    })
    .await;
}

async fn set_session_clock(conn: &mut Conn, backend: Backend, at: i64) {
    conn.ok(&match backend {
        Backend::Postgres => format!("SET flakeid_test.clock_ms = '{at}'"),
        Backend::MySql => format!("SET @test_clock_ms = {at}"),
    })
    .await;
}

/// A repeatable-read transaction whose snapshot predates other sessions'
/// IDs of a later tick still continues after them: the function's state
/// is read outside the snapshot.
async fn a_snapshot_does_not_hide_the_last_id(db: TestDb) {
    let backend = db.backend();
    let layout = presets::twitter();
    let t = layout.epoch_millis() as i64 + 60_000_000_000;
    let mut a = Conn::open(&db).await;
    session_clock(&mut a, backend).await;
    let f = IdFunction::new(dialect(&db), "snapshot", layout.clone(), 6)
        .clock_function("test_session_clock");
    install(&mut a, &f, "snapshot").await;
    let mut b = Conn::open(&db).await;

    set_session_clock(&mut a, backend, t).await;
    a.ok(match backend {
        Backend::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ",
        Backend::MySql => "START TRANSACTION WITH CONSISTENT SNAPSHOT",
    })
    .await;
    a.insert("snapshot", "a", 0).await.expect("A's first ID");

    set_session_clock(&mut b, backend, t + 1).await;
    for n in 0..5 {
        b.insert("snapshot", "b", n).await.expect("B's ID");
    }
    let b_max = b
        .int("SELECT MAX(id) FROM snapshot WHERE writer = 'b'")
        .await;

    set_session_clock(&mut a, backend, t + 1).await;
    for n in 1..=5 {
        if let Err(e) = a.insert("snapshot", "a", n).await {
            panic!("A's insert {n} after B's IDs of the same tick: {e}");
        }
    }
    a.ok("COMMIT").await;
    let a_after = a
        .int("SELECT MIN(id) FROM snapshot WHERE writer = 'a' AND n > 0")
        .await;
    assert!(a_after > b_max, "{a_after} after B's {b_max}");
    let rows = all_ids(&mut a, "snapshot").await;
    assert_eq!(rows.len(), 11);
    let distinct: HashSet<i64> = rows.iter().map(|r| r.0).collect();
    assert_eq!(distinct.len(), 11);
    assert_eq!(
        layout.decompose(a_after as u64).tick,
        layout.decompose(b_max as u64).tick
    );
}

on_postgres_and_mariadb! {
    #[tokio::test]
    a_snapshot_does_not_hide_the_last_id =>
        postgres_a_snapshot_does_not_hide_the_last_id,
        mariadb_a_snapshot_does_not_hide_the_last_id
}
