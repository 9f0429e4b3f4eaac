//! Tables that already exist, switched from auto-increment keys to flake
//! keys (`flakeid_adopt`) on PostgreSQL, MariaDB and SQLite:
//! `users` ← `posts` ← `comments` (comments also → users) with 100,000
//! rows; the way back restores the schema; then a SeaORM app and a Diesel
//! app write 10,000 rows each and plain SQL inserts take the database's
//! ID function as the keys' default. Checked with plain SQL: every old row
//! and key unchanged, every foreign key valid, every new key above every
//! old one, no duplicate. Also: writers inserting during the migration on
//! PostgreSQL and MariaDB lose no row (MariaDB refuses at most the one
//! insert of each that waited for the switch); a key too large for the layout is refused with
//! nothing changed; the SQL functions that read IDs equal the Rust decode.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use flakeid_adopt::{AdoptError, Adoption, Increment};
use flakeid_core::layout::{BitLayout, Layout as _, presets};
use flakeid_core::{Decoded, FlakeId};
use flakeid_id_function::{DecodeFunctions, IdPart};

use crate::adopt_common::apps::{self, Rows, UserId};
use crate::adopt_common::{
    CUT_OVER, Keys, Kind, Row, SQL_NODE, Sql, Target, Via, adoption, catalog, create_schema,
    migrate, plan, shape,
};

/// One `#[tokio::test]` per name, running `$behaviour` with the arguments
/// that follow the name.
macro_rules! tests_of {
    ($behaviour:ident: $($name:ident($($arg:expr),*);)*) => {$(
        #[tokio::test]
        async fn $name() {
            $behaviour($($arg),*).await;
        }
    )*};
}

const TABLES: [&str; 3] = ["users", "posts", "comments"];
const OLD: (u32, u32, u32) = (20_000, 30_000, 50_000);

async fn all_rows(sql: &mut Sql, kind: Kind) -> Vec<Vec<Row>> {
    let mut out = Vec::new();
    for t in TABLES {
        out.push(sql.rows(kind, t).await);
    }
    out
}

/// Rows whose references point nowhere, over every foreign key.
async fn orphans(sql: &mut Sql) -> i64 {
    let mut n = 0;
    for (child, column, parent) in [
        ("posts", "user_id", "users"),
        ("comments", "post_id", "posts"),
        ("comments", "user_id", "users"),
    ] {
        n += sql
            .int(&format!(
                "SELECT COUNT(*) FROM {child} c LEFT JOIN {parent} p ON p.id = c.{column} \
                 WHERE c.{column} IS NOT NULL AND p.id IS NULL"
            ))
            .await
            .unwrap_or_default();
    }
    n
}

/// The whole story on one database, the migration run `via`.
async fn switch_keeps_every_row_and_takes_flake_keys(kind: Kind, via: Via) {
    let target = Target::new(kind).await;
    let mut sql = target.sql().await;
    create_schema(&mut sql, kind, Keys::Mixed, OLD).await;
    let before = all_rows(&mut sql, kind).await;
    assert_eq!(before.iter().map(Vec::len).sum::<usize>(), 100_000);

    // The catalog finds every foreign key.
    let adopt = adoption(kind);
    let original = catalog(&target, &adopt).await;
    let refs = |i: usize| -> Vec<String> {
        original.tables[i]
            .references
            .iter()
            .map(|r| format!("{}.{}", r.table, r.column))
            .collect()
    };
    assert_eq!(refs(0), ["comments.user_id", "posts.user_id"]);
    assert_eq!(refs(1), ["comments.post_id"]);
    assert!(refs(2).is_empty());
    assert_eq!(original.tables[0].largest_key, Some(i64::from(OLD.0)));
    let plan1 = adopt
        .plan(&original, SystemTime::now())
        .expect("the old keys are below the cut-over");
    assert_eq!(plan1.cut_over(), CUT_OVER);

    // Up, then down: the schema comes back as it was, every row with it.
    migrate(&target, &plan1, via, true)
        .await
        .expect("the switch");
    let adopted = catalog(&target, &adopt).await;
    for t in &adopted.tables {
        assert!(
            t.column_type.to_ascii_lowercase().starts_with("bigint"),
            "{t:?}"
        );
        assert_eq!(t.increment, Increment::None, "{t:?}");
        if kind != Kind::Sqlite {
            for r in &t.references {
                assert!(
                    r.column_type.to_ascii_lowercase().starts_with("bigint"),
                    "{r:?}"
                );
            }
        }
    }
    migrate(&target, &plan1, via, false)
        .await
        .expect("the way back");
    assert_eq!(shape(&catalog(&target, &adopt).await), shape(&original));
    assert_eq!(all_rows(&mut sql, kind).await, before);
    // Auto-increment issues keys again, after the largest.
    sql.ok("INSERT INTO users (name) VALUES ('back')").await;
    let back = sql
        .int(&format!("SELECT {} FROM users", kind.bigint("MAX(id)")))
        .await;
    assert_eq!(back, Some(i64::from(OLD.0) + 1));
    sql.ok(&format!("DELETE FROM users WHERE id = {}", OLD.0 + 1))
        .await;

    // Up again, for good.
    let plan2 = plan(&target).await;
    migrate(&target, &plan2, via, true)
        .await
        .expect("the switch");
    let started = SystemTime::now();

    // Two apps, 10,000 rows each.
    let shares = (2_000, 3_000, 5_000);
    let old = (i64::from(OLD.0), i64::from(OLD.1));
    let seaorm_rows = Rows::new("seaorm", shares, old);
    apps::seaorm_app(&target, &seaorm_rows).await;
    let diesel_rows = Rows::new("diesel", shares, old);
    let app_rows = seaorm_rows.len() + diesel_rows.len();
    apps::diesel_app(&target, diesel_rows).await;

    // Plain SQL inserts take the ID function's keys where it is installed;
    // on SQLite an insert without a key fails instead of taking a rowid.
    let sql_rows = match kind {
        Kind::Sqlite => {
            let e = sql
                .run("INSERT INTO users (name) VALUES ('no key')")
                .await
                .expect_err("SQLite has no default key");
            assert!(e.contains("NOT NULL"), "{e}");
            0
        }
        _ => {
            for i in 0..10 {
                sql.ok(&format!("INSERT INTO users (name) VALUES ('sql {i}')"))
                    .await;
                sql.ok(&format!(
                    "INSERT INTO posts (user_id, title) VALUES (1, 'sql {i}')"
                ))
                .await;
                sql.ok(&format!(
                    "INSERT INTO comments (post_id, user_id, body) VALUES (2, NULL, 'sql {i}')"
                ))
                .await;
            }
            let keys = sql
                .ints("SELECT id FROM users WHERE name LIKE 'sql %' ORDER BY id")
                .await;
            assert_eq!(keys.len(), 10);
            for k in keys {
                let id = UserId::from_i64(k[0].expect("a key")).expect("a flake key");
                let parts = id.decode().parts.expect("a flake key's parts");
                assert_eq!(parts.node, SQL_NODE, "{id:?}");
            }
            30
        }
    };

    // Every old row and key as it was.
    let after = all_rows(&mut sql, kind).await;
    for (old, now) in before.iter().zip(&after) {
        let kept: Vec<&Row> = now.iter().filter(|r| (r.0 as u64) < CUT_OVER).collect();
        assert_eq!(kept.len(), old.len());
        assert!(
            kept.iter().zip(old).all(|(a, b)| *a == b),
            "an old row changed"
        );
    }
    // Every new key a flake key of this run, above every old key; no duplicate.
    let total: usize = after.iter().map(Vec::len).sum();
    assert_eq!(total, 100_000 + app_rows + sql_rows);
    let since = started - Duration::from_secs(60);
    for rows in &after {
        let new: Vec<&Row> = rows.iter().filter(|r| (r.0 as u64) >= CUT_OVER).collect();
        for r in &new {
            let t = UserId::from_i64(r.0).expect("a key").decode().timestamp;
            assert!(
                t.is_some_and(|t| t >= since),
                "{r:?} is not a key of this run"
            );
        }
    }
    for t in TABLES {
        let dups = sql
            .int(&format!("SELECT COUNT(*) - COUNT(DISTINCT id) FROM {t}"))
            .await;
        assert_eq!(dups, Some(0), "{t}");
    }
    assert_eq!(orphans(&mut sql).await, 0);
    if kind == Kind::Sqlite {
        let violations = sql
            .int("SELECT COUNT(*) FROM pragma_foreign_key_check")
            .await;
        assert_eq!(violations, Some(0));
    }

    // The way back: refused where flake keys no longer fit the old types,
    // with nothing changed; on SQLite (64-bit keys) the rowid comes back.
    match kind {
        Kind::Sqlite => {
            migrate(&target, &plan2, via, false)
                .await
                .expect("the way back");
            sql.ok("INSERT INTO users (name) VALUES ('back')").await;
            let max = sql
                .int("SELECT MAX(id) FROM users WHERE name <> 'back'")
                .await;
            let back = sql.int("SELECT id FROM users WHERE name = 'back'").await;
            assert_eq!(back, max.map(|m| m + 1));
        }
        _ => {
            let shape_now = shape(&catalog(&target, &adopt).await);
            let e = migrate(&target, &plan2, via, false)
                .await
                .expect_err("users.id cannot go back to integer");
            assert!(e.contains("holds values beyond"), "{e}");
            assert_eq!(shape(&catalog(&target, &adopt).await), shape_now);
        }
    }
}

tests_of! {
    switch_keeps_every_row_and_takes_flake_keys:
        postgres_switch_run_as_a_script(Kind::Postgres, Via::Statements);
        mysql_switch_run_as_diesel_migration_files(Kind::MySql, Via::Diesel);
        sqlite_switch_run_as_a_seaorm_migration(Kind::Sqlite, Via::SeaOrm);
}

/// Up and down through every other way of running the migration, on small
/// tables.
#[tokio::test]
async fn every_way_of_running_the_migration_switches_and_goes_back() {
    for (kind, via) in [
        (Kind::Postgres, Via::SeaOrm),
        (Kind::Postgres, Via::Diesel),
        (Kind::MySql, Via::Statements),
        (Kind::MySql, Via::SeaOrm),
        (Kind::Sqlite, Via::Statements),
        (Kind::Sqlite, Via::Diesel),
    ] {
        let target = Target::new(kind).await;
        let mut sql = target.sql().await;
        create_schema(&mut sql, kind, Keys::Mixed, (200, 300, 500)).await;
        let before = all_rows(&mut sql, kind).await;
        let original = shape(&catalog(&target, &adoption(kind)).await);
        let p = plan(&target).await;
        migrate(&target, &p, via, true)
            .await
            .unwrap_or_else(|e| panic!("{kind:?} {via:?} up: {e}"));
        let adopted = catalog(&target, &adoption(kind)).await;
        assert!(
            adopted
                .tables
                .iter()
                .all(|t| t.increment == Increment::None)
        );
        migrate(&target, &p, via, false)
            .await
            .unwrap_or_else(|e| panic!("{kind:?} {via:?} down: {e}"));
        assert_eq!(shape(&catalog(&target, &adoption(kind)).await), original);
        assert_eq!(all_rows(&mut sql, kind).await, before, "{kind:?} {via:?}");
    }
}

/// Writers keep inserting with plain SQL while the migration runs: they
/// wait for its locks and go on with the new default; no row is lost and
/// none is stored twice. On MariaDB the switch runs `rounds` times, each on
/// a database of its own, and a writer's insert that waited for the
/// switch's `LOCK TABLES` may be refused once with error 1305 (`FUNCTION …
/// flakeid_next_id does not exist`, as docs/adopt.md says): nothing is
/// stored for it, and the same insert run again is. Any other error, or a
/// second refusal of one writer in one switch, fails the test.
async fn writers_inserting_during_the_switch_lose_no_row(kind: Kind, rounds: usize) {
    for round in 0..rounds {
        writers_during_one_switch(kind, round).await;
    }
}

async fn writers_during_one_switch(kind: Kind, round: usize) {
    let target = Target::new(kind).await;
    let mut sql = target.sql().await;
    create_schema(&mut sql, kind, Keys::Mixed, OLD).await;
    let p = plan(&target).await;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..4 {
        let url = target.url.clone();
        let stop = stop.clone();
        writers.push(tokio::spawn(async move {
            // Connections of sqlx's own session settings, as a SeaORM or
            // sqlx application has; two writers send prepared statements,
            // two send text.
            let prepared = w % 2 == 0;
            let mut conn = Sql::connect(kind, &url).await;
            let mut written = Vec::new();
            let mut longest = Duration::ZERO;
            let (mut n, mut new_keys, mut refused) = (0, 0, 0);
            // Until told to stop, and past 50 rows of which 13 with keys of
            // the new default: however slowly a loaded machine lets the
            // writers run after the switch, the four write 52 flake keys.
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || n < 50 || new_keys < 13 {
                let t = Instant::now();
                let name = format!("writer {w} row {n}");
                let id = match conn.insert_user(&name, prepared).await {
                    Ok(id) => id,
                    Err(e) if kind.refused_waiting_insert(&e) && refused == 0 => {
                        eprintln!("round {round}: writer {w} row {n} refused, run again: {e}");
                        refused += 1;
                        continue;
                    }
                    Err(e) => panic!("round {round}: writer {w} row {n}: {e}"),
                };
                longest = longest.max(t.elapsed());
                written.push((id, name));
                n += 1;
                if id as u64 >= CUT_OVER {
                    new_keys += 1;
                }
            }
            (written, longest, refused)
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t = Instant::now();
    migrate(&target, &p, Via::Statements, true)
        .await
        .expect("the switch");
    let took = t.elapsed();
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut written = Vec::new();
    let mut longest = Duration::ZERO;
    let mut refused = 0;
    for w in writers {
        let (rows, l, r) = w.await.expect("a writer");
        written.extend(rows);
        longest = longest.max(l);
        refused += r;
    }
    // Every row a writer got a key for is stored, under that key.
    let mut got = sql.writers_rows().await;
    let mut expected = written.clone();
    expected.sort();
    got.sort();
    assert_eq!(
        got, expected,
        "{kind:?} round {round}: every written row, none else"
    );
    let old: Vec<i64> = written
        .iter()
        .map(|r| r.0)
        .filter(|&k| (k as u64) < CUT_OVER)
        .collect();
    let new: Vec<i64> = written
        .iter()
        .map(|r| r.0)
        .filter(|&k| (k as u64) >= CUT_OVER)
        .collect();
    assert!(
        !old.is_empty() && new.len() >= 50,
        "{kind:?} round {round}: {} old, {} new",
        old.len(),
        new.len()
    );
    let largest_old = sql
        .int(&format!(
            "SELECT {} FROM users WHERE id < {CUT_OVER}",
            kind.bigint("MAX(id)")
        ))
        .await;
    assert!(new.iter().all(|&k| Some(k) > largest_old));
    eprintln!(
        "{kind:?} round {round}: the switch took {took:?}; the longest insert of a writer took \
         {longest:?}; {} rows before, {} after; {refused} inserts refused once",
        old.len(),
        new.len()
    );
}

tests_of! {
    writers_inserting_during_the_switch_lose_no_row:
        postgres_writers_inserting_during_the_switch_lose_no_row(Kind::Postgres, 1);
        mysql_writers_inserting_during_the_switch_lose_no_row(Kind::MySql, 6);
}

/// A key the layout cannot place below its first key: the plan refuses,
/// saying what would fit; and a migration planned before such a key was
/// inserted refuses when it runs. Nothing changes either way.
async fn a_key_too_large_is_refused_and_nothing_changes(kind: Kind) {
    let target = Target::new(kind).await;
    let mut sql = target.sql().await;
    create_schema(&mut sql, kind, Keys::Mixed, (20, 30, 50)).await;
    let adopt = adoption(kind);
    let original = catalog(&target, &adopt).await;
    let p = adopt.plan(&original, SystemTime::now()).expect("fits");
    // A key of 2^62 in `posts` (bigint on every database).
    let big: i64 = 1 << 62;
    let insert = match kind {
        Kind::Postgres => format!(
            "INSERT INTO posts (id, user_id, title) OVERRIDING SYSTEM VALUE VALUES ({big}, 1, 'big')"
        ),
        _ => format!("INSERT INTO posts (id, user_id, title) VALUES ({big}, 1, 'big')"),
    };
    sql.ok(&insert).await;
    let before = all_rows(&mut sql, kind).await;

    // The plan refuses.
    let now_catalog = catalog(&target, &adopt).await;
    let e = adopt
        .plan(&now_catalog, SystemTime::now())
        .expect_err("2^62 is above the cut-over");
    assert!(
        matches!(e, AdoptError::KeyTooLarge { largest, .. } if largest == big),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.starts_with(&format!(
            "posts.id holds the key {big}, but the cut-over is {CUT_OVER}"
        )),
        "{text}"
    );
    // Without a given cut-over the advice names the epoch that would fit.
    let computed = Adoption::new(target.dialect(), presets::twitter()).table("posts", "id");
    let e = computed
        .plan(&catalog(&target, &computed).await, SystemTime::now())
        .expect_err("refused");
    let text = e.to_string();
    assert!(
        text.contains("A later epoch makes flake keys smaller, not larger"),
        "{text}"
    );
    assert!(text.contains("with an epoch at or before "), "{text}");
    assert!(text.ends_with("Nothing was changed."), "{text}");

    // The migration planned before the key was inserted refuses when it runs.
    let e = migrate(&target, &p, Via::Statements, true)
        .await
        .expect_err("the proof refuses");
    assert!(e.contains("at or above the cut-over"), "{e}");
    assert_eq!(shape(&catalog(&target, &adopt).await), shape(&original));
    assert_eq!(all_rows(&mut sql, kind).await, before);
    let function = match kind {
        Kind::Postgres => Some("SELECT COUNT(*) FROM pg_proc WHERE proname = 'flakeid_next_id'"),
        Kind::MySql => Some(
            "SELECT COUNT(*) FROM information_schema.ROUTINES \
             WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = 'flakeid_next_id'",
        ),
        Kind::Sqlite => None,
    };
    if let Some(q) = function {
        assert_eq!(sql.int(q).await, Some(0), "no ID function was installed");
    }
}

tests_of! {
    a_key_too_large_is_refused_and_nothing_changes:
        postgres_a_key_too_large_is_refused_and_nothing_changes(Kind::Postgres);
        mysql_a_key_too_large_is_refused_and_nothing_changes(Kind::MySql);
        sqlite_a_key_too_large_is_refused_and_nothing_changes(Kind::Sqlite);
}

/// 10,000 IDs of a layout: random ticks, nodes and sequences, and the edges.
fn ids_of(layout: &BitLayout) -> Vec<u64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |bound: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % (bound + 1)
    };
    let last_seq = layout.sequences_per_tick() - 1;
    let mut ids = vec![
        1,
        layout.compose(0, 0, 1),
        layout.compose(layout.max_tick(), layout.max_node(), last_seq),
        layout.compose(1, layout.max_node(), 0),
    ];
    while ids.len() < 10_000 {
        let id = layout.compose(
            next(layout.max_tick()),
            next(layout.max_node()),
            next(last_seq),
        );
        if id > 0 {
            ids.push(id);
        }
    }
    ids
}

/// The SQL functions read every ID of every preset as the Rust decode does.
async fn decode_functions_equal_the_rust_decode(kind: Kind) {
    let target = Target::new(kind).await;
    let mut sql = target.sql().await;
    let d = target.dialect();
    sql.ok("CREATE TABLE ids (preset VARCHAR(32) NOT NULL, id BIGINT NOT NULL)")
        .await;
    for (name, preset) in presets::ALL {
        let layout = preset();
        let f = DecodeFunctions::new(d, layout.clone()).prefix(format!("p_{name}"));
        sql.all(&f.install().expect("install"))
            .await
            .expect("the functions install");
        let ids = ids_of(&layout);
        for chunk in ids.chunks(1_000) {
            let values: Vec<String> = chunk.iter().map(|id| format!("('{name}', {id})")).collect();
            sql.ok(&format!("INSERT INTO ids VALUES {}", values.join(", ")))
                .await;
        }
        let fields: Vec<String> = layout
            .node_fields()
            .iter()
            .map(|f| f.name().to_owned())
            .chain(["tick".to_owned(), "node".to_owned(), "sequence".to_owned()])
            .collect();
        let call = |part: &IdPart| f.function(part).expect("a name");
        let time_ms = match kind {
            Kind::Postgres => format!(
                "CAST(EXTRACT(EPOCH FROM {}(id)) * 1000 AS BIGINT)",
                call(&IdPart::Time)
            ),
            _ => format!(
                "CAST(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', {}(id)) DIV 1000 AS SIGNED)",
                call(&IdPart::Time)
            ),
        };
        let mut columns = vec![
            "id".to_owned(),
            format!("{}(id)", call(&IdPart::UnixMillis)),
            time_ms,
            format!("{}(id)", call(&IdPart::Tick)),
            format!("{}(id)", call(&IdPart::Node)),
            format!("{}(id)", call(&IdPart::Sequence)),
        ];
        for field in &fields {
            columns.push(format!(
                "{}(id, '{field}')",
                call(&IdPart::Field(String::new()))
            ));
        }
        let rows = sql
            .ints(&format!(
                "SELECT {} FROM ids WHERE preset = '{name}' ORDER BY id",
                columns.join(", ")
            ))
            .await;
        assert_eq!(rows.len(), ids.len());
        for row in rows {
            let id = row[0].expect("an id") as u64;
            let rust = Decoded::new(&layout, id);
            let ms = rust
                .timestamp
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_millis() as i64);
            let parts = rust.parts.expect("parts");
            let mut expected = vec![
                Some(id as i64),
                ms,
                ms,
                Some(parts.tick as i64),
                Some(parts.node as i64),
                Some(parts.sequence as i64),
            ];
            for field in &fields {
                let v = match field.as_str() {
                    "tick" => parts.tick,
                    "node" => parts.node,
                    "sequence" => parts.sequence,
                    f => rust.field(f).expect("a node field"),
                };
                expected.push(Some(v as i64));
            }
            assert_eq!(row, expected, "{name} {id} ({rust})");
        }
    }
    // With a cut-over, keys below it read as NULL.
    let f = DecodeFunctions::new(d, presets::twitter())
        .prefix("cut")
        .cut_over(CUT_OVER);
    sql.all(&f.install().expect("install"))
        .await
        .expect("install");
    let got = sql
        .ints(&format!(
            "SELECT {0}(42), {0}({1})",
            f.function(&IdPart::UnixMillis).expect("name"),
            CUT_OVER
        ))
        .await;
    assert_eq!(got, vec![vec![None, Some(1_767_225_600_000)]]);
    sql.all(&f.uninstall().expect("uninstall"))
        .await
        .expect("uninstall");
}

tests_of! {
    decode_functions_equal_the_rust_decode:
        postgres_decode_functions_equal_the_rust_decode(Kind::Postgres);
        mysql_decode_functions_equal_the_rust_decode(Kind::MySql);
}
