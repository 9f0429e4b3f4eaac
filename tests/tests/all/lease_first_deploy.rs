//! A first deploy: eight replicas start at the same moment on an empty
//! database and each runs what the README's start-up snippet runs
//! (`segment::create_table`, `lease::create_table`, then `claim`), through
//! SeaORM, Diesel and diesel-async, on PostgreSQL, MariaDB and SQLite.
//! Every process must start, on a node of its own, and the IDs they issue
//! are checked with plain SQL.

use std::collections::BTreeSet;

use super::lease_common::{
    Worker, check_rows, connect, hold_file, report, rows, scenario_tests, space, sqlite_url,
    wall_ms,
};
use flakeid_tests::db;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};

const REPLICAS: usize = 8;
const IDS: u64 = 200;

/// Only the table the workers insert into: the lease and segment tables
/// are left to the workers.
async fn ids_table(url: &str) -> DatabaseConnection {
    let conn = connect(url).await;
    conn.execute_unprepared(
        "CREATE TABLE lease_ids (id BIGINT NOT NULL PRIMARY KEY, node INTEGER NOT NULL, \
         fence BIGINT NOT NULL, worker VARCHAR(64) NOT NULL, issued_ms BIGINT NOT NULL)",
    )
    .await
    .expect("create lease_ids");
    conn
}

async fn count(conn: &DatabaseConnection, sql: &str) -> i64 {
    let row = conn
        .query_one_raw(Statement::from_string(conn.get_database_backend(), sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or_else(|| panic!("{sql}: no row"));
    row.try_get_by_index::<i64>(0)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

async fn first_deploy(url: &str, name: &str, orm: &str) {
    let conn = ids_table(url).await;
    let space = space(name);
    let nodes = REPLICAS.to_string();
    let ids = IDS.to_string();
    // Each replica holds its node until all have started.
    let (hold, hold_arg) = hold_file(&space);
    // Far enough ahead for every process to be up and connected.
    let start_at = (wall_ms() + 3000).to_string();
    let mut workers: Vec<Worker> = (0..REPLICAS)
        .map(|i| {
            Worker::start(
                url,
                &format!("{name}-{i}"),
                &[
                    "--orm",
                    orm,
                    "--space",
                    &space,
                    "--nodes",
                    &nodes,
                    "--ids",
                    &ids,
                    "--create-tables",
                    "--start-at-ms",
                    &start_at,
                    "--hold-file",
                    &hold_arg,
                ],
            )
        })
        .collect();
    let mut failed = Vec::new();
    let mut held = BTreeSet::new();
    for w in &mut workers {
        let said = w.wait_for(&["READY", "TABLES_FAILED", "NO_NODE", "CLOCK_AHEAD"]);
        match said.strip_prefix("READY node=") {
            Some(rest) => {
                let node: u64 = rest.split(' ').next().unwrap().parse().unwrap();
                held.insert(node);
            }
            None => failed.push(format!("{}: {said}", w.tag)),
        }
    }
    std::fs::write(&hold, b"go").expect("write the hold file");
    let mut issued = 0;
    let mut dups = 0;
    for w in workers {
        let tag = w.tag.clone();
        let (done, code, said) = w.finish_said();
        match done {
            Some(d) if code == 0 => {
                issued += d.issued;
                dups += d.duplicates;
            }
            _ if failed.iter().any(|f| f.starts_with(&format!("{tag}:"))) => {}
            _ => failed.push(format!("{tag} (exit {code}): {said:?}")),
        }
    }
    let _ = std::fs::remove_file(&hold);
    assert!(
        failed.is_empty(),
        "{} of {REPLICAS} replicas did not start:\n{}",
        failed.len(),
        failed.join("\n")
    );
    assert_eq!(held.len(), REPLICAS, "every replica on a node of its own");
    let stored = rows(&conn).await;
    let found = report(
        &format!("first deploy, {name}"),
        REPLICAS,
        issued,
        stored.len(),
        dups,
    );
    assert_eq!(found, 0);
    assert_eq!(issued, IDS * REPLICAS as u64);
    check_rows(&stored);
    // Both tables exist once, as the entry points made them.
    let q = |t: &str| match conn.get_database_backend() {
        DbBackend::Postgres => format!("SELECT COUNT(*)::BIGINT FROM \"{t}\""),
        DbBackend::MySql => format!("SELECT CAST(COUNT(*) AS SIGNED) FROM `{t}`"),
        _ => format!("SELECT COUNT(*) FROM \"{t}\""),
    };
    assert_eq!(
        count(&conn, &q("flakeid_nodes")).await,
        i64::try_from(REPLICAS).unwrap()
    );
    if orm != "diesel-async" {
        assert_eq!(count(&conn, &q("flakeid_segments")).await, 0);
    }
}

/// [`first_deploy`] through `orm` on a fresh database of `kind`: `"pg"`
/// (PostgreSQL), `"my"` (MariaDB) or `"lite"` (a SQLite file).
async fn deploy(kind: &str, orm: &str) {
    let name = format!("{kind}-deploy-{orm}");
    let db = match kind {
        "pg" => Some(db::postgres().await),
        "my" => Some(db::mysql().await),
        _ => None,
    };
    let url = db
        .as_ref()
        .map_or_else(|| sqlite_url(&name), |db| db.url().to_owned());
    first_deploy(&url, &name, orm).await;
}

scenario_tests! {
    postgres_first_deploy_of_eight_replicas_seaorm: deploy("pg", "seaorm");
    postgres_first_deploy_of_eight_replicas_diesel: deploy("pg", "diesel");
    postgres_first_deploy_of_eight_replicas_diesel_async: deploy("pg", "diesel-async");
    mariadb_first_deploy_of_eight_replicas_seaorm: deploy("my", "seaorm");
    mariadb_first_deploy_of_eight_replicas_diesel: deploy("my", "diesel");
    sqlite_first_deploy_of_eight_replicas_seaorm: deploy("lite", "seaorm");
    sqlite_first_deploy_of_eight_replicas_diesel: deploy("lite", "diesel");
}
