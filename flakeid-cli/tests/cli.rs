//! The `flakeid` command run as a process: its output for good input, its
//! errors and exit codes for bad input, and `nodes` against real
//! PostgreSQL, MariaDB and SQLite databases whose lease table holds a
//! lease.

use std::time::Duration;

use assert_cmd::Command;
use flakeid_core::layout::presets;
use flakeid_id_function::IdFunction;
use flakeid_lease::LeaseOptions;
use flakeid_sql::Dialect;
use flakeid_tests::db::{self, TestDb};
use predicates::prelude::*;
use sea_orm::ConnectionTrait as _;

fn flakeid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flakeid"))
}

/// Runs `flakeid ARGS` and returns its standard output; it must succeed.
fn stdout(args: &[&str]) -> String {
    let out = flakeid().args(args).output().expect("run flakeid");
    assert!(
        out.status.success(),
        "flakeid {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// `flakeid ARGS` must fail with `code`, and say `says` on standard error.
fn fails(args: &[&str], code: i32, says: &[&str]) {
    let mut assert = flakeid().args(args).assert().failure().code(code);
    for s in says {
        assert = assert.stderr(predicate::str::contains(*s));
    }
    assert.stdout(predicate::str::is_empty());
}

/// `flakeid sql` for `node` of space `orders` in `dialect`, then `more`.
fn sql<'a>(dialect: &'a str, node: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let args = [
        "sql",
        "--dialect",
        dialect,
        "--space",
        "orders",
        "--node",
        node,
    ];
    [&args[..], more].concat()
}

#[test]
fn decode_splits_discords_documented_example() {
    let out = stdout(&["decode", "175928847299117063", "--layout", "discord"]);
    for line in [
        "id         175928847299117063",
        "read as    decimal",
        "layout     the discord layout",
        "time       2016-04-30T11:18:25.796Z",
        "unix ms    1462015105796",
        "node       32",
        "  worker   1",
        "  process  0",
        "sequence   7",
        "base62     0Czks0tP37X",
        "crockford  04W86BB0G4007",
    ] {
        assert!(out.contains(line), "no {line:?} in\n{out}");
    }
}

#[test]
fn decode_reads_base62_and_crockford_and_writes_json() {
    for text in ["0Czks0tP37X", "04W86BB0G4007", "04w8-6bb0-g4007"] {
        let out = stdout(&["decode", text, "--layout", "discord", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(v["id"], "175928847299117063", "{text}");
        assert_eq!(v["time"], "2016-04-30T11:18:25.796Z");
        assert_eq!(v["unix_ms"], 1_462_015_105_796_u64);
        assert_eq!(v["node_fields"]["worker"], 1);
        assert_eq!(v["node_fields"]["process"], 0);
        assert_eq!(v["sequence"], 7);
    }
    let out = stdout(&[
        "decode",
        "04W86BB0G4007",
        "--from",
        "crockford",
        "--layout",
        "discord",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["read_as"], "crockford");
}

#[test]
fn decode_takes_another_epoch_and_custom_fields() {
    // Tick 1000 of an epoch at 2024-01-01T00:00:00Z, node 3, sequence 5.
    let id = (1000u64 << 22) | (3 << 12) | 5;
    let out = stdout(&["decode", &id.to_string(), "--epoch", "1704067200000"]);
    assert!(out.contains("time       2024-01-01T00:00:01.000Z"), "{out}");
    assert!(out.contains("  datacenter 0\n"), "{out}");
    assert!(out.contains("  worker     3\n"), "{out}");
    // 40 bits of 10 ms ticks from the Unix epoch, 12 node bits, 8 sequence bits.
    let custom = [
        "--time-bits",
        "40",
        "--node-bits",
        "12",
        "--sequence-bits",
        "8",
        "--tick-ms",
        "10",
        "--epoch",
        "0",
    ];
    let id = ((7u64 << 20) | (2 << 8) | 1).to_string();
    let out = stdout(&[&["decode", id.as_str()][..], &custom].concat());
    assert!(out.contains("time       1970-01-01T00:00:00.070Z"), "{out}");
    assert!(out.contains("node       2"), "{out}");
    assert!(out.contains("sequence   1"), "{out}");
    // The same bits with the sequence above the node (Sonyflake's order).
    let id = ((7u64 << 20) | (2 << 12) | 1).to_string();
    let order = ["--order", "sequence-node", "--json"];
    let out = stdout(&[&["decode", id.as_str()][..], &custom, &order].concat());
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        (&v["node"], &v["sequence"]),
        (&1.into(), &2.into()),
        "{out}"
    );
    assert_eq!(v["time"], "1970-01-01T00:00:00.070Z");
}

#[test]
fn decode_names_the_bad_argument() {
    fails(
        &["decode", "1", "--layout", "nope"],
        2,
        &[
            "invalid value for --layout",
            "unknown layout \"nope\"",
            "twitter",
        ],
    );
    fails(
        &["decode", "12x45"],
        2,
        &["invalid value for <ID>", "\"12x45\" is not an ID"],
    );
    fails(
        &["decode", "0Czks0tP3-X", "--from", "base62"],
        2,
        &["invalid value for <ID>", "'-'"],
    );
    // 2^53 is past the largest JavaScript-safe ID.
    fails(
        &["decode", "9007199254740992", "--layout", "js_safe"],
        2,
        &[
            "9007199254740992 is outside the js_safe layout",
            "1..=9007199254740991",
        ],
    );
    fails(&["decode", "0"], 2, &["0 is outside the twitter layout"]);
    fails(
        &["decode", "18446744073709551616"],
        2,
        &["invalid value for <ID>"],
    );
    fails(
        &["decode", "1", "--time-bits", "60"],
        2,
        &["invalid value for the layout options", "63"],
    );
    fails(&["decode"], 2, &["<ID>"]);
}

/// A prefixed ID (`#[flake_id(prefix = "usr")]`'s text) decodes in each
/// form of its number; `--prefix` refuses another type's ID or a bare one.
#[test]
fn decode_reads_a_prefixed_id_and_checks_the_prefix_it_is_given() {
    // Above 2^53, as `#[flake_id(prefix = "usr")]` and `text = base62` /
    // `crockford` write it.
    let key = "2124913425938116608";
    for text in [
        "usr_2124913425938116608",
        "usr_2Wy7oTY6sFs",
        "usr_1TZ9NG2NQZW00",
        "line_item_2124913425938116608",
    ] {
        let out = stdout(&["decode", text, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(v["id"], key, "{text}");
        let prefix = text.rsplit_once('_').expect("a prefix").0;
        assert_eq!(v["prefix"], prefix, "{text}");
        assert_eq!(v["node"], 1023, "{text}");
    }
    let out = stdout(&["decode", "usr_2Wy7oTY6sFs", "--prefix", "usr"]);
    for line in [
        "id         2124913425938116608",
        "read as    base62",
        "prefix     usr",
    ] {
        assert!(out.contains(line), "no {line:?} in\n{out}");
    }
    // Without a prefix, no prefix line or key.
    let out = stdout(&["decode", key, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v.get("prefix"), None, "{out}");

    fails(
        &["decode", "ord_2124913425938116608", "--prefix", "usr"],
        2,
        &[
            "invalid value for <ID>",
            "\"ord_2124913425938116608\" does not have the prefix given with --prefix: \
             expected prefix usr_",
        ],
    );
    fails(
        &["decode", key, "--prefix", "usr"],
        2,
        &[
            "\"2124913425938116608\" does not have the prefix",
            "expected prefix usr_",
        ],
    );
    fails(
        &["decode", "Usr_2124913425938116608"],
        2,
        &["has no valid type prefix", "lowercase ASCII letters"],
    );
    fails(
        &["decode", "usr_2124913425938116608", "--prefix", "User"],
        2,
        &["\"User\" is not a type prefix", "TypeID's rule"],
    );
    fails(&["decode", "usr_12x45"], 2, &["\"12x45\" is not an ID"]);
}

#[test]
fn generate_issues_increasing_ids_of_the_node() {
    let out = stdout(&["generate", "--node", "5", "--count", "50"]);
    let ids: Vec<u64> = out.lines().map(|l| l.parse().expect("decimal")).collect();
    assert_eq!(ids.len(), 50);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let layout = presets::twitter();
    assert!(ids.iter().all(|&id| layout.decompose(id).node == 5));
    let out = stdout(&[
        "generate",
        "--layout",
        "sonyflake",
        "--node",
        "42",
        "-n",
        "3",
        "--format",
        "base62",
    ]);
    for line in out.lines() {
        let id = flakeid_core::encoding::TextForm::Base62
            .decode(line)
            .expect("base62");
        assert_eq!(presets::sonyflake().decompose(id).node, 42);
    }
    fails(
        &["generate", "--node", "1024"],
        2,
        &["invalid value for --node", "1024"],
    );
    flakeid()
        .args(["generate", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("For tests and scripts only"))
        .stdout(predicate::str::contains("same node ID"));
}

/// `Cli::in_process` (what may run inside another process, such as a
/// fuzzer): a `generate` that would wait for the clock longer than a
/// second is not, though it prints few IDs.
#[test]
fn a_generate_that_waits_for_the_clock_does_not_run_in_process() {
    let cli = |args: &[&str]| {
        let args = std::iter::once("flakeid").chain(args.iter().copied());
        flakeid_cli::Cli::parse_from_args(args.map(str::to_owned)).expect("valid arguments")
    };
    // Two IDs a tick of 5.555 s: 42 IDs take 20 ticks, about two minutes.
    let slow = [
        "generate",
        "--node",
        "7",
        "-n",
        "42",
        "--sequence-bits",
        "1",
        "--tick-ms",
        "5555",
    ];
    assert!(!cli(&slow).in_process(1_000));
    // 42 IDs in one 1 ms tick of Twitter's layout.
    assert!(cli(&["generate", "--node", "7", "-n", "42"]).in_process(1_000));
    // Two IDs a tick of 20 ms: 102 IDs wait 50 ticks, a second; 103 wait 51.
    let two_a_tick = [
        "generate",
        "--node",
        "7",
        "--sequence-bits",
        "1",
        "--tick-ms",
        "20",
    ];
    assert!(cli(&[&two_a_tick[..], &["-n", "102"]].concat()).in_process(1_000));
    assert!(!cli(&[&two_a_tick[..], &["-n", "103"]].concat()).in_process(1_000));
    assert!(!cli(&["generate", "--node", "7", "-n", "1001"]).in_process(1_000));
}

#[test]
fn convert_writes_every_form() {
    for (id, to, written) in [
        ("175928847299117063", "base62", "0Czks0tP37X\n"),
        ("0Czks0tP37X", "crockford", "04W86BB0G4007\n"),
        ("04W86BB0G4007", "decimal", "175928847299117063\n"),
        (
            "175928847299117063",
            "all",
            "decimal    175928847299117063\nbase62     0Czks0tP37X\ncrockford  04W86BB0G4007\n",
        ),
    ] {
        assert_eq!(
            stdout(&["convert", id, "--to", to]),
            written,
            "{id} to {to}"
        );
    }
    fails(
        &["convert", "zzzzzzzzzzz", "--to", "decimal"],
        2,
        &["invalid value for <ID>"],
    );
    fails(&["convert", "1", "--to", "hex"], 2, &["'hex'", "--to"]);
}

#[test]
fn sql_prints_the_function_for_each_dialect() {
    let pg = stdout(&sql(
        "postgres",
        "1023",
        &["--table", "orders", "--column", "id"],
    ));
    let expected = IdFunction::new(Dialect::Postgres, "orders", presets::twitter(), 1023);
    let mut statements = expected.install().expect("SQL");
    statements.extend(expected.column_default("orders", "id").expect("SQL"));
    assert_eq!(pg, expected.script(&statements));
    assert!(pg.contains("CREATE OR REPLACE FUNCTION \"flakeid_next_id\"() RETURNS bigint"));
    assert!(
        pg.contains("ALTER TABLE \"orders\" ALTER COLUMN \"id\" SET DEFAULT \"flakeid_next_id\"()")
    );

    let maria = stdout(&sql(
        "mariadb",
        "7",
        &["--layout", "sonyflake", "--function", "next_order_id"],
    ));
    assert!(maria.contains("DELIMITER $$\nCREATE OR REPLACE FUNCTION `next_order_id`()"));
    let drop = stdout(&sql("mysql", "7", &["--uninstall"]));
    assert!(
        drop.starts_with("DROP FUNCTION IF EXISTS `flakeid_next_id`;\n"),
        "{drop}"
    );

    fails(
        &sql("postgres", "2000", &[]),
        2,
        &[
            "invalid value for the function's settings",
            "node 2000 is out of range",
        ],
    );
    fails(
        &sql("postgres", "1", &["--function", ""]),
        2,
        &["the function name is empty"],
    );
    fails(&sql("sqlite", "1", &[]), 2, &["'sqlite'", "--dialect"]);
}

#[test]
fn every_subcommand_has_an_example_in_its_help() {
    for sub in ["decode", "generate", "convert", "sql", "nodes"] {
        flakeid()
            .args([sub, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples:\n  flakeid "));
    }
}

#[test]
fn nodes_names_a_bad_url() {
    fails(
        &["nodes", "ftp://example.com/x"],
        2,
        &["invalid value for <URL>", "unknown scheme \"ftp\""],
    );
    fails(&["nodes", "not a url"], 2, &["invalid value for <URL>"]);
    fails(
        &["nodes", "postgres://u:secret@127.0.0.1:notaport/db"],
        2,
        &["invalid value for <URL>"],
    );
    // Nothing listens on port 1: a failure to connect, the password hidden.
    let out = flakeid()
        .args(["nodes", "postgres://u:secret@127.0.0.1:1/db"])
        .output()
        .expect("run flakeid");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect to postgres://u:***@127.0.0.1:1/db"),
        "{err}"
    );
    assert!(!err.contains("secret"), "{err}");
    // The driver's reason, not a pool's timeout.
    assert!(err.to_lowercase().contains("refused"), "{err}");
    let missing = std::env::temp_dir().join("flakeid-cli-no-such-dir/none.db");
    fails(
        &["nodes", &format!("sqlite://{}", missing.display())],
        1,
        &["cannot connect"],
    );
}

#[test]
fn nodes_refuses_a_table_name_the_database_would_not_keep() {
    fails(
        &[
            "nodes",
            "postgres://u@127.0.0.1:1/db",
            "--table",
            &"n".repeat(64),
        ],
        2,
        &["invalid value for --table", "lease table", "63"],
    );
    fails(
        &["nodes", "sqlite::memory:", "--table", "sqlite_leases"],
        2,
        &["invalid value for --table", "sqlite_"],
    );
}

/// Claims a node of `space` (holder `cli-test/1`), runs `flakeid nodes`
/// on `url`, and checks the listing; then the same as JSON.
async fn lists_a_lease(orm_url: &str, url: &str, reserve: Option<Dialect>) {
    let orm = sea_orm::Database::connect(orm_url).await.expect("connect");
    flakeid_seaorm::lease::create_table(&orm)
        .await
        .expect("lease table");
    let options = LeaseOptions::new("orders", presets::twitter())
        .nodes(0..=2)
        .spread_claims(false)
        .ttl(Duration::from_secs(60))
        .holder("cli-test/1");
    let lease = flakeid_seaorm::lease::claim(&orm, options)
        .await
        .expect("claim");
    let node = lease.node();
    assert_eq!(node, 0);
    // Node 2 left a day ahead of the database's clock (by a holder whose
    // clock ran ahead, before the stores refused such marks).
    let ahead = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        + 86_400_000;
    orm.execute_unprepared(&format!(
        "UPDATE flakeid_nodes SET high_water = {ahead} WHERE space = 'orders' AND node_id = 2"
    ))
    .await
    .expect("poison node 2");
    if let Some(dialect) = reserve {
        // The database ID function holds the other node for good.
        let f = IdFunction::new(dialect, "orders", presets::twitter(), 1);
        for s in f.install().expect("SQL") {
            orm.execute_unprepared(&s).await.expect("install");
        }
    }
    let url = url.to_owned();
    let text = tokio::task::spawn_blocking(move || {
        let text = stdout(&["nodes", &url]);
        let json = stdout(&["nodes", &url, "--space", "orders", "--json"]);
        // A table that does not exist: a failure naming it.
        fails(
            &["nodes", &url, "--table", "no_such_leases"],
            1,
            &["cannot read the lease table \"no_such_leases\""],
        );
        (text, json)
    })
    .await
    .expect("flakeid nodes");
    let (text, json) = text;
    let held = if reserve.is_some() { 2 } else { 1 };
    assert!(
        text.contains(&format!("space \"orders\": {held} of 3 nodes held")),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("cli-test/1"))
        .unwrap_or_else(|| panic!("no line of the holder in\n{text}"));
    assert!(
        line.trim_start().starts_with(&format!("{node}  held")),
        "{line}"
    );
    assert!(line.contains("(in "), "{line}");
    if reserve.is_some() {
        let line = text
            .lines()
            .find(|l| l.contains("SQL function flakeid_next_id"))
            .unwrap_or_else(|| panic!("no line of the function in\n{text}"));
        assert!(
            line.contains("reserved") && line.contains("never"),
            "{line}"
        );
    }
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let nodes = v[0]["nodes"].as_array().expect("nodes");
    assert_eq!(v[0]["space"], "orders");
    assert_eq!(nodes.len(), 3);
    let poisoned = text
        .lines()
        .find(|l| l.trim_start().starts_with("2  free"))
        .unwrap_or_else(|| panic!("no line of node 2 in\n{text}"));
    assert!(
        poisoned.contains("s ahead of the database clock: unusable until then"),
        "{poisoned}"
    );
    assert!(nodes[2]["high_water_ahead_ms"].as_u64().expect("ms") > 86_000_000);
    assert_eq!(nodes[0]["high_water_ahead_ms"], 0);
    let row = &nodes[node as usize];
    assert_eq!(row["state"], "held");
    assert_eq!(row["holder"], "cli-test/1");
    assert_eq!(row["fence"], 1);
    assert!(
        row["lease_expires"]
            .as_str()
            .expect("a time")
            .ends_with('Z')
    );
    // The high-water mark is the renewed ceiling, a time after the claim.
    assert!(row["high_water_ms"].as_i64().expect("ms") > 1_700_000_000_000);
    assert_eq!(row["high_water_ms"].as_i64(), {
        let table = flakeid_seaorm::lease::list_nodes(&orm, "orders")
            .await
            .expect("list");
        table
            .rows
            .iter()
            .find(|r| r.node == node)
            .map(|r| r.high_water_millis as i64)
    });
    drop(lease);
}

async fn nodes_lists_a_server(db: TestDb, dialect: Dialect) {
    lists_a_lease(db.url(), db.url(), Some(dialect)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_lists_postgres() {
    nodes_lists_a_server(db::postgres().await, Dialect::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_lists_mariadb() {
    nodes_lists_a_server(db::mysql().await, Dialect::MySql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_lists_sqlite() {
    let dir = std::env::temp_dir().join(format!("flakeid-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("leases.db");
    let _ = std::fs::remove_file(&path);
    lists_a_lease(
        &format!("sqlite://{}?mode=rwc", path.display()),
        &format!("sqlite://{}", path.display()),
        None,
    )
    .await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// `script` as the `mariadb` client splits it: statements end with the
/// current delimiter, which `DELIMITER` lines change.
fn client_statements(script: &str) -> Vec<String> {
    let mut delimiter = ";".to_owned();
    let mut statements = Vec::new();
    let mut current = String::new();
    for line in script.lines() {
        if let Some(d) = line.strip_prefix("DELIMITER ") {
            delimiter = d.trim().to_owned();
            continue;
        }
        current.push_str(line);
        current.push('\n');
        if let Some(done) = current.trim_end().strip_suffix(delimiter.as_str()) {
            statements.push(done.to_owned());
            current.clear();
        }
    }
    assert!(
        current.trim().is_empty(),
        "an unfinished statement: {current}"
    );
    statements
}

/// The script `flakeid sql` prints, run on a real server as its client
/// would; the IDs the column default then issues decode with
/// `flakeid decode` to the node and a time within the inserts.
async fn sql_script_issues_ids_that_decode(db: TestDb, dialect: &str) {
    let orm = sea_orm::Database::connect(db.url()).await.expect("connect");
    orm.execute_unprepared(
        "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, customer VARCHAR(32) NOT NULL)",
    )
    .await
    .expect("create table");
    let script = stdout(&[
        "sql",
        "--dialect",
        dialect,
        "--space",
        "cli",
        "--node",
        "77",
        "--table",
        "orders",
        "--column",
        "id",
    ]);
    if dialect == "postgres" {
        // psql sends it statement by statement; the server takes it whole.
        orm.execute_unprepared(&script).await.expect("the script");
    } else {
        for s in client_statements(&script) {
            if let Err(e) = orm.execute_unprepared(&s).await {
                panic!("{s}\nfailed: {e}");
            }
        }
    }
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis() as u64
    };
    let start = now();
    for _ in 0..3 {
        orm.execute_unprepared("INSERT INTO orders (customer) VALUES ('walk-in')")
            .await
            .expect("insert through the default");
    }
    let end = now();
    let rows = orm
        .query_all_raw(sea_orm::Statement::from_string(
            orm.get_database_backend(),
            "SELECT id FROM orders ORDER BY id",
        ))
        .await
        .expect("select");
    assert_eq!(rows.len(), 3);
    for row in rows {
        let id: i64 = row.try_get("", "id").expect("id");
        let out = stdout(&["decode", &id.to_string(), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(v["node"], 77, "{out}");
        let ms = v["unix_ms"].as_u64().expect("unix_ms");
        assert!(
            (start - 1..=end).contains(&ms),
            "{ms} outside {start}..={end}"
        );
        assert!(v["time"].as_str().expect("time").ends_with('Z'));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_script_runs_on_postgres() {
    sql_script_issues_ids_that_decode(db::postgres().await, "postgres").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_script_runs_on_mariadb() {
    sql_script_issues_ids_that_decode(db::mysql().await, "mariadb").await;
}

/// The cut-over `flakeid sql adopt` announces on standard error.
fn announced_cut_over(stderr: &str) -> u64 {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("cut-over "))
        .unwrap_or_else(|| panic!("no cut-over in\n{stderr}"));
    let (n, rest) = line.split_once(':').expect("cut-over N: …");
    assert!(
        rest.contains(&format!("#[flake_id(cut_over = {n})]")),
        "{line}"
    );
    n.parse().expect("a number")
}

/// Runs `flakeid ARGS`, which must succeed: (stdout, stderr).
fn outputs(args: &[&str]) -> (String, String) {
    let out = flakeid().args(args).output().expect("run flakeid");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(out.status.success(), "flakeid {args:?} failed: {stderr}");
    (String::from_utf8(out.stdout).expect("UTF-8"), stderr)
}

/// Runs a script `flakeid sql …` printed (or wrote) on `sql`, as the
/// database's client would.
async fn run_script(
    sql: &mut flakeid_tests::adopt::Sql,
    kind: flakeid_tests::adopt::Kind,
    script: &str,
) {
    use flakeid_tests::adopt::Kind;
    match kind {
        Kind::MySql => {
            for s in client_statements(script) {
                sql.ok(&s).await;
            }
        }
        // psql sends it statement by statement, sqlite3 too; the servers
        // take it whole.
        _ => sql.ok(script).await,
    }
}

/// `flakeid sql adopt` on a real database with users ← posts ← comments:
/// the down script printed (or written) before the switch, the switch's
/// script run as the client would; checked with plain SQL: old rows
/// unchanged, the way back gives auto-increment keys again, and after the
/// switch an insert without a key takes the ID function's key (SQLite:
/// fails), which `flakeid decode` reads; old keys decode as issued before
/// flake keys.
async fn sql_adopt_switches_the_tables(kind: flakeid_tests::adopt::Kind, url: &str) {
    use flakeid_tests::adopt::{Keys, Kind, Sql, create_schema};
    let mut sql = Sql::connect(kind, url).await;
    create_schema(&mut sql, kind, Keys::Mixed, (20, 30, 50)).await;
    let rows = async |sql: &mut Sql| {
        let mut all = Vec::new();
        for t in ["users", "posts", "comments"] {
            all.push(sql.rows(kind, t).await);
        }
        all
    };
    let before = rows(&mut sql).await;
    let dir =
        std::env::temp_dir().join(format!("flakeid-cli-adopt-{}-{kind:?}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = vec![
        "sql", "adopt", url, "--table", "users", "--table", "posts.id", "--table", "comments",
    ];
    if kind != Kind::Sqlite {
        args.extend(["--space", "cli", "--node", "9"]);
    }
    let (up, down, cut_over) = if kind == Kind::Sqlite {
        let dir_arg = dir.display().to_string();
        let (stdout, stderr) = outputs(&[&args[..], &["--out", &dir_arg]].concat());
        assert!(stdout.is_empty(), "{stdout}");
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect("a written file");
        (
            read("up.sql"),
            read("down.sql"),
            announced_cut_over(&stderr),
        )
    } else {
        let (down, _) = outputs(&[&args[..], &["--down"]].concat());
        let (up, stderr) = outputs(&args);
        (up, down, announced_cut_over(&stderr))
    };
    for line in [
        "-- users.id: ",
        "--   referenced by posts.user_id (",
        "--   referenced by comments.post_id (",
        "keys up to 20",
    ] {
        assert!(up.contains(line), "no {line:?} in\n{up}");
    }
    // Nothing changed by printing.
    assert_eq!(rows(&mut sql).await, before);

    // Up, down: auto-increment again, every row as it was.
    run_script(&mut sql, kind, &up).await;
    assert_eq!(rows(&mut sql).await, before);
    run_script(&mut sql, kind, &down).await;
    assert_eq!(rows(&mut sql).await, before);
    let max = match kind {
        Kind::Postgres => "SELECT CAST(MAX(id) AS BIGINT) FROM users",
        Kind::MySql => "SELECT CAST(MAX(id) AS SIGNED) FROM users",
        Kind::Sqlite => "SELECT MAX(id) FROM users",
    };
    sql.ok("INSERT INTO users (name) VALUES ('back')").await;
    assert_eq!(sql.int(max).await, Some(21));
    sql.ok("DELETE FROM users WHERE id = 21").await;

    // Up for good.
    run_script(&mut sql, kind, &up).await;
    let typed = match kind {
        Kind::Postgres => {
            sql.text(
                "SELECT data_type::text FROM information_schema.columns \
                 WHERE table_name = 'users' AND column_name = 'id'",
            )
            .await
        }
        Kind::MySql => {
            sql.text(
                "SELECT CAST(COLUMN_TYPE AS CHAR) FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'users' AND COLUMN_NAME = 'id'",
            )
            .await
        }
        Kind::Sqlite => {
            sql.text("SELECT type FROM pragma_table_info('users') WHERE name = 'id'")
                .await
        }
    };
    assert!(
        typed
            .as_deref()
            .is_some_and(|t| t.to_ascii_lowercase().starts_with("bigint")),
        "{typed:?}"
    );
    assert_eq!(rows(&mut sql).await, before);
    if kind == Kind::Sqlite {
        let e = sql
            .run("INSERT INTO users (name) VALUES ('no key')")
            .await
            .expect_err("no key, no rowid");
        assert!(e.contains("NOT NULL"), "{e}");
    } else {
        let start = SystemTimeMs::now();
        sql.ok("INSERT INTO users (name) VALUES ('flake')").await;
        let cast = if kind == Kind::Postgres {
            "BIGINT"
        } else {
            "SIGNED"
        };
        let id = sql
            .int(&format!(
                "SELECT CAST(id AS {cast}) FROM users WHERE name = 'flake'"
            ))
            .await
            .expect("a key");
        assert!(id as u64 >= cut_over, "{id} below the cut-over {cut_over}");
        let v: serde_json::Value = serde_json::from_str(&stdout(&[
            "decode",
            &id.to_string(),
            "--json",
            "--cut-over",
            &cut_over.to_string(),
        ]))
        .expect("JSON");
        assert_eq!(v["node"], 9, "{v}");
        assert!(
            v["unix_ms"].as_u64().is_some_and(|ms| ms + 1 >= start.0),
            "{v}"
        );
    }
    // An old key decodes as issued before flake keys, with the cut-over.
    let out = stdout(&["decode", "20", "--cut-over", &cut_over.to_string()]);
    assert!(
        out.contains(&format!(
            "issued     before flake keys (below the cut-over {cut_over})"
        )),
        "{out}"
    );
    assert!(!out.contains("time  "), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Milliseconds since 1970, now.
struct SystemTimeMs(u64);

impl SystemTimeMs {
    fn now() -> Self {
        SystemTimeMs(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("after 1970")
                .as_millis() as u64,
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_adopt_switches_postgres_tables() {
    let db = db::postgres().await;
    sql_adopt_switches_the_tables(flakeid_tests::adopt::Kind::Postgres, db.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_adopt_switches_mariadb_tables() {
    let db = db::mysql().await;
    sql_adopt_switches_the_tables(flakeid_tests::adopt::Kind::MySql, db.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_adopt_switches_sqlite_tables() {
    let path = std::env::temp_dir().join(format!("flakeid-cli-adopt-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let url = format!("sqlite://{}?mode=rwc", path.display());
    sql_adopt_switches_the_tables(flakeid_tests::adopt::Kind::Sqlite, &url).await;
    let _ = std::fs::remove_file(&path);
}

/// A key the layout cannot place below its first key: `flakeid sql adopt`
/// fails (exit code 1) saying which key and what would fit, prints no SQL
/// and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_adopt_refuses_a_key_too_large() {
    use flakeid_tests::adopt::{Keys, Kind, Sql, create_schema};
    let path = std::env::temp_dir().join(format!("flakeid-cli-refuse-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let mut sql = Sql::connect(Kind::Sqlite, &url).await;
    create_schema(&mut sql, Kind::Sqlite, Keys::Mixed, (2, 3, 5)).await;
    sql.ok("INSERT INTO posts (id, user_id, title) VALUES (4611686018427387904, 1, 'big')")
        .await;
    let schema = || async {
        Sql::connect(Kind::Sqlite, &url)
            .await
            .text("SELECT group_concat(sql, ';') FROM sqlite_schema")
            .await
    };
    let before = schema().await;
    fails(
        &["sql", "adopt", &url, "--table", "users", "--table", "posts"],
        1,
        &[
            "posts.id holds the key 4611686018427387904, but the cut-over is ",
            "A later epoch makes flake keys smaller, not larger",
            "Nothing was changed.",
        ],
    );
    assert_eq!(schema().await, before);
    let _ = std::fs::remove_file(&path);
}

/// `flakeid sql decode-functions --dialect sqlite` prints a SELECT whose
/// expressions read IDs as `flakeid decode` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_decode_functions_for_sqlite_read_as_decode_does() {
    use flakeid_tests::adopt::{Kind, Sql};
    let mut sql = Sql::connect(Kind::Sqlite, "sqlite::memory:").await;
    sql.ok("CREATE TABLE orders (id INTEGER NOT NULL PRIMARY KEY)")
        .await;
    let ids = [
        "175928847299117063",
        "1541815603606036480",
        "4194304",
        "9223372036854775807",
    ];
    for id in ids {
        sql.ok(&format!("INSERT INTO orders (id) VALUES ({id})"))
            .await;
    }
    let select = stdout(&[
        "sql",
        "decode-functions",
        "--dialect",
        "sqlite",
        "--layout",
        "discord",
        "--table",
        "orders",
    ]);
    let select = select.trim_end().trim_end_matches(';');
    let got = sql
        .ints(&format!(
            "SELECT id, unix_ms, node, sequence FROM ({select}) ORDER BY id"
        ))
        .await;
    assert_eq!(got.len(), ids.len());
    for row in got {
        let id = row[0].expect("an id").to_string();
        let v: serde_json::Value =
            serde_json::from_str(&stdout(&["decode", &id, "--layout", "discord", "--json"]))
                .expect("JSON");
        assert_eq!(
            row[1..],
            [
                v["unix_ms"].as_i64(),
                v["node"].as_i64(),
                v["sequence"].as_i64()
            ],
            "{id}: {v}"
        );
    }
}

#[test]
fn sql_subcommands_have_examples_in_their_help() {
    for sub in ["adopt", "decode-functions"] {
        flakeid()
            .args(["sql", sub, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples:\n  flakeid sql "));
    }
}
