//! What the service must do on every database; `main.rs` runs each check
//! on SQLite and on PostgreSQL.

use serde_json::{Value, json};

use crate::Db;
use crate::support::{Cell, JS_SAFE_LIMIT, Service, Sql, id, lease_owner, node_of};

fn start(db: &Db) -> (Service, Sql) {
    let service = Service::start("service", &db.url, &[]);
    let sql = Sql::connect(&db.url);
    (service, sql)
}

fn create_team(service: &Service, name: &str, players: &[&str], captain: usize) -> Value {
    let body = json!({
        "name": name,
        "players": players.iter().map(|p| json!({"name": p})).collect::<Vec<_>>(),
        "captain": captain,
    });
    let answer = service.post("/teams", &body.to_string());
    assert_eq!(answer.status, 201, "{}", answer.text);
    answer.json
}

/// A team, its players and its captain, written in one transaction with
/// references both ways, as plain SQL reads them.
pub fn team_with_players_and_captain(db: Db) {
    let (service, sql) = start(&db);
    let node = service.node();
    let body = json!({
        "name": "Reds",
        "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}],
        "captain": 1,
    });
    let answer = service.post("/teams", &body.to_string());
    assert_eq!(answer.status, 201, "{}", answer.text);
    let team = answer.json;
    let team_id = id(&team["id"]);
    assert_eq!(answer.location, Some(format!("/teams/{team_id}")));
    let players: Vec<i64> = team["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| id(&p["id"]))
        .collect();
    assert_eq!(players.len(), 3);
    assert_eq!(id(&team["captain_id"]), players[1]);

    // The rows, with plain SQL.
    let rows = sql.rows(&format!(
        "SELECT id, name, captain_id FROM teams WHERE id = {team_id}"
    ));
    assert_eq!(
        rows,
        vec![vec![
            Cell::Int(team_id),
            Cell::Text("Reds".into()),
            Cell::Int(players[1])
        ]]
    );
    let rows = sql.rows(&format!(
        "SELECT id, team_id, name FROM players WHERE team_id = {team_id} ORDER BY id"
    ));
    let expected: Vec<Vec<Cell>> = players
        .iter()
        .zip(["Ann", "Bo", "Cy"])
        .map(|(&p, name)| vec![Cell::Int(p), Cell::Int(team_id), Cell::Text(name.into())])
        .collect();
    assert_eq!(rows, expected, "players in ID order, as created");

    // Flake IDs of this replica's node, not rowids or sequence numbers.
    for &i in std::iter::once(&team_id).chain(&players) {
        assert!(i.unsigned_abs() > JS_SAFE_LIMIT, "{i}");
        assert_eq!(node_of(i), node, "ID {i} carries the leased node");
    }
    assert!(
        team_id < players[0],
        "the team's ID is taken first: {team_id} {players:?}"
    );

    // What the API reads back is what it wrote.
    let read = service.get(&format!("/teams/{team_id}"));
    assert_eq!(read.status, 200, "{}", read.text);
    assert_eq!(read.json, team);
    let p = service.get(&format!("/players/{}", players[2]));
    assert_eq!(p.status, 200, "{}", p.text);
    assert_eq!(p.json, team["players"][2]);
}

/// Players added in bulk: one multi-row INSERT with IDs reserved in one
/// step, ascending in the order of the names.
pub fn bulk_players(db: Db) {
    let (service, sql) = start(&db);
    let team = create_team(&service, "Blues", &["Dee"], 0);
    let team_id = team["id"].as_str().expect("team id").to_owned();
    let names: Vec<String> = (0..50).map(|i| format!("bulk {i}")).collect();
    let answer = service.post(
        "/players/bulk",
        &json!({"team_id": team_id, "names": names}).to_string(),
    );
    assert_eq!(answer.status, 201, "{}", answer.text);
    let created = answer.json.as_array().expect("a list").clone();
    assert_eq!(created.len(), 50);
    let ids: Vec<i64> = created.iter().map(|p| id(&p["id"])).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ascending in the order given: {ids:?}"
    );
    for (p, name) in created.iter().zip(&names) {
        assert_eq!(p["name"], json!(name));
        assert_eq!(p["team_id"], json!(team_id));
    }
    let stored: Vec<Vec<Cell>> = sql.rows(&format!(
        "SELECT id, name FROM players WHERE team_id = {team_id} AND name LIKE 'bulk %' ORDER BY id"
    ));
    let expected: Vec<Vec<Cell>> = ids
        .iter()
        .zip(&names)
        .map(|(&i, n)| vec![Cell::Int(i), Cell::Text(n.clone())])
        .collect();
    assert_eq!(stored, expected);
    let all = service.get(&format!("/teams/{team_id}"));
    assert_eq!(all.json["players"].as_array().map(Vec::len), Some(51));
}

/// Walking `GET /teams?after=…&limit=…` returns every team exactly once,
/// in ID order, which is the order they were created in.
pub fn pagination_returns_every_team_once_in_id_order(db: Db) {
    let (service, sql) = start(&db);
    let mut created = Vec::new();
    for i in 0..23 {
        let team = create_team(&service, &format!("team {i}"), &["p"], 0);
        created.push(id(&team["id"]));
    }
    assert!(
        created.windows(2).all(|w| w[0] < w[1]),
        "IDs grow with creation"
    );

    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &after {
            None => "/teams?limit=5".to_owned(),
            Some(a) => format!("/teams?limit=5&after={a}"),
        };
        let page = service.get(&path);
        assert_eq!(page.status, 200, "{}", page.text);
        let teams = page.json["teams"].as_array().expect("teams").clone();
        assert!(teams.len() <= 5);
        seen.extend(teams.iter().map(|t| id(&t["id"])));
        pages += 1;
        match &page.json["next"] {
            Value::Null => break,
            Value::String(next) => {
                assert_eq!(
                    Some(next.as_str()),
                    teams.last().and_then(|t| t["id"].as_str())
                );
                after = Some(next.clone());
            }
            other => panic!("next must be a string or null: {other}"),
        }
        assert!(pages < 100, "pagination does not end");
    }
    assert_eq!(pages, 5, "23 teams, 5 a page");
    let in_db: Vec<i64> = sql
        .rows("SELECT id FROM teams ORDER BY id")
        .into_iter()
        .map(|r| r[0].int())
        .collect();
    assert_eq!(seen, in_db, "every team once, in ID order");
    assert_eq!(seen, created);

    // The default page is 20, and a page after the last team is empty.
    let first = service.get("/teams");
    assert_eq!(first.json["teams"].as_array().map(Vec::len), Some(20));
    assert_eq!(first.json["next"], json!(created[19].to_string()));
    let last = service.get(&format!("/teams?after={}", created[22]));
    assert_eq!(last.json, json!({"teams": [], "next": null}));
}

/// One bad request and what must come back.
struct Bad {
    method: &'static str,
    path: String,
    content_type: &'static str,
    body: String,
    status: u16,
    field: Value,
    value: Value,
}

fn bad(
    method: &'static str,
    path: &str,
    body: &str,
    status: u16,
    field: Value,
    value: Value,
) -> Bad {
    Bad {
        method,
        path: path.to_owned(),
        content_type: "application/json",
        body: body.to_owned(),
        status,
        field,
        value,
    }
}

/// Every kind of bad input gets its 4xx and a JSON error naming the field
/// and the value; none gets a 5xx.
pub fn bad_input_gets_a_4xx_naming_field_and_value(db: Db) {
    let (service, sql) = start(&db);
    let team = create_team(&service, "Greens", &["Eve"], 0);
    let team_id = team["id"].as_str().expect("id").to_owned();
    let teams_before = sql.int("SELECT COUNT(*) FROM teams");
    let players_before = sql.int("SELECT COUNT(*) FROM players");
    let s = |v: &str| json!(v);
    let post_team = |body: Value| body.to_string();
    let players_path = format!("/players/{team_id}");
    // The largest ID (2^63 - 1), the next number, and 2^64.
    let (max_id, too_big, two_pow_64) = (
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551616",
    );
    let long_name = "x".repeat(101);
    let mut cases = Vec::new();
    // Requests without a body: method, path, status, and the field and the
    // value (as sent) the error must name.
    for (method, path, status, field, value) in [
        // IDs in the path: not decimal, 0, negative, above 2^63 - 1.
        ("GET", "/teams/abc", 400, "id", "abc"),
        ("GET", "/teams/0", 400, "id", "0"),
        ("GET", "/teams/-1", 400, "id", "-1"),
        ("GET", "/teams/1.5", 400, "id", "1.5"),
        ("GET", "/teams/007", 400, "id", "007"),
        ("GET", "/teams/9223372036854775808", 400, "id", too_big),
        ("GET", "/teams/18446744073709551616", 400, "id", two_pow_64),
        ("GET", "/players/0", 400, "id", "0"),
        ("GET", "/players/x1", 400, "id", "x1"),
        // Valid IDs that name nothing.
        ("GET", "/teams/9223372036854775807", 404, "id", max_id),
        ("GET", "/players/1", 404, "id", "1"),
        ("GET", players_path.as_str(), 404, "id", team_id.as_str()),
        // Query parameters.
        ("GET", "/teams?after=0", 400, "after", "0"),
        ("GET", "/teams?after=-3", 400, "after", "-3"),
        ("GET", "/teams?after=abc", 400, "after", "abc"),
        (
            "GET",
            "/teams?after=9223372036854775808",
            400,
            "after",
            too_big,
        ),
        ("GET", "/teams?limit=0", 400, "limit", "0"),
        ("GET", "/teams?limit=101", 400, "limit", "101"),
        ("GET", "/teams?limit=ten", 400, "limit", "ten"),
        // Numbers are written as IDs are: no sign, no leading zero.
        ("GET", "/teams?limit=%2B5", 400, "limit", "+5"),
        ("GET", "/teams?limit=05", 400, "limit", "05"),
        ("GET", "/teams?limit=%205", 400, "limit", " 5"),
        ("GET", "/teams?limit=5&limit=6", 400, "limit", "6"),
        ("GET", "/teams?page=2", 400, "page", "2"),
        // Routes and methods.
        ("GET", "/nowhere", 404, "path", "/nowhere"),
        ("DELETE", "/teams", 405, "method", "DELETE"),
    ] {
        cases.push(bad(method, path, "", status, s(field), s(value)));
    }
    // Bodies that are not JSON, or not sent as JSON, or JSON but not an
    // object.
    for (body, status, value) in [
        ("{\"name\": ", 400, Value::Null),
        ("", 400, Value::Null),
        ("[1, 2, 3]", 422, json!([1, 2, 3])),
        ("null", 422, Value::Null),
    ] {
        cases.push(bad("POST", "/teams", body, status, Value::Null, value));
    }
    // Teams that do not fit: each a 422 naming the field and the value.
    for (team, field, value) in [
        (
            json!({"players": [{"name": "a"}], "captain": 0}),
            "name",
            Value::Null,
        ),
        (
            json!({"name": "", "players": [{"name": "a"}], "captain": 0}),
            "name",
            s(""),
        ),
        (
            json!({"name": long_name, "players": [{"name": "a"}], "captain": 0}),
            "name",
            s(&long_name),
        ),
        (
            json!({"name": "nul\u{0}", "players": [{"name": "a"}], "captain": 0}),
            "name",
            s("nul\u{0}"),
        ),
        (
            json!({"name": 7, "players": [{"name": "a"}], "captain": 0}),
            "name",
            json!(7),
        ),
        (
            json!({"name": "t", "players": [], "captain": 0}),
            "players",
            json!(0),
        ),
        (
            json!({"name": "t", "players": [{"name": "a"}, {}], "captain": 0}),
            "players[1].name",
            Value::Null,
        ),
        (
            json!({"name": "t", "players": [{"name": "a"}, {"name": " "}], "captain": 0}),
            "players[1].name",
            s(" "),
        ),
        (
            json!({"name": "t", "players": [{"name": "a"}], "captain": 1}),
            "captain",
            json!(1),
        ),
        (
            json!({"name": "t", "players": [{"name": "a"}], "captain": -1}),
            "captain",
            json!(-1),
        ),
        (
            json!({"name": "t", "players": [{"name": "a"}], "captain": "0"}),
            "captain",
            s("0"),
        ),
        (
            json!({"name": "t", "players": [{"name": "a"}], "captain": 0, "id": "5"}),
            "id",
            s("5"),
        ),
    ] {
        cases.push(bad(
            "POST",
            "/teams",
            &post_team(team),
            422,
            s(field),
            value,
        ));
    }
    // Bulk players: team IDs as strings and as numbers, names that do not
    // fit, and a valid ID of no team.
    for (body, status, field, value) in [
        (
            json!({"team_id": "0", "names": ["a"]}).to_string(),
            422,
            "team_id",
            s("0"),
        ),
        (
            json!({"team_id": "abc", "names": ["a"]}).to_string(),
            422,
            "team_id",
            s("abc"),
        ),
        (
            json!({"team_id": "-5", "names": ["a"]}).to_string(),
            422,
            "team_id",
            s("-5"),
        ),
        (
            json!({"team_id": -5, "names": ["a"]}).to_string(),
            422,
            "team_id",
            json!(-5),
        ),
        (
            json!({"team_id": too_big, "names": ["a"]}).to_string(),
            422,
            "team_id",
            s(too_big),
        ),
        (
            r#"{"team_id": 9223372036854775808, "names": ["a"]}"#.to_owned(),
            422,
            "team_id",
            json!(9_223_372_036_854_775_808_u64),
        ),
        (
            r#"{"team_id": 1.5, "names": ["a"]}"#.to_owned(),
            422,
            "team_id",
            json!(1.5),
        ),
        (
            json!({"team_id": team_id, "names": []}).to_string(),
            422,
            "names",
            json!(0),
        ),
        (
            json!({"team_id": team_id, "names": ["ok", ""]}).to_string(),
            422,
            "names[1]",
            s(""),
        ),
        (
            json!({"team_id": team_id, "names": ["ok", 3]}).to_string(),
            422,
            "names[1]",
            json!(3),
        ),
        (
            json!({"team_id": max_id, "names": ["a"]}).to_string(),
            404,
            "team_id",
            s(max_id),
        ),
    ] {
        cases.push(bad("POST", "/players/bulk", &body, status, s(field), value));
    }
    cases.push(Bad {
        content_type: "text/plain",
        ..bad(
            "POST",
            "/teams",
            &post_team(json!({"name": "t", "players": [{"name": "a"}], "captain": 0})),
            415,
            s("content-type"),
            s("text/plain"),
        )
    });

    let mut failures = Vec::new();
    for case in &cases {
        let answer = match case.method {
            "GET" => service.get(&case.path),
            "DELETE" => service.delete(&case.path),
            _ => service.post_as(&case.path, case.content_type, &case.body),
        };
        let what = format!("{} {} {}", case.method, case.path, case.body);
        let ok = answer.status == case.status
            && answer.content_type.as_deref() == Some("application/json")
            && answer.json["error"].as_str().is_some_and(|e| !e.is_empty())
            && answer.json["field"] == case.field
            && answer.json["value"] == case.value
            && answer.json.as_object().map(|o| o.len()) == Some(3);
        if !ok {
            failures.push(format!(
                "{what}\n    expected {} field={} value={}\n    got {} {}",
                case.status, case.field, case.value, answer.status, answer.text
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad requests answered wrongly:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    // Nothing was written by any of them.
    assert_eq!(sql.int("SELECT COUNT(*) FROM teams"), teams_before);
    assert_eq!(sql.int("SELECT COUNT(*) FROM players"), players_before);
    // And the service still serves.
    assert_eq!(service.get("/health").status, 200);
}

/// `/health` is 200 with the lease's state while the node is held, and the
/// node it names is the one the lease table says this process holds.
pub fn health_reports_the_held_lease(db: Db) {
    let (service, sql) = start(&db);
    let health = service.get("/health");
    assert_eq!(health.status, 200, "{}", health.text);
    assert_eq!(health.json["issuing"], json!(true));
    assert_eq!(health.json["space"], json!("service"));
    let node = health.json["node"].as_u64().expect("node");
    let lease = health.json["lease"].as_str().expect("lease text");
    assert!(lease.starts_with(&format!("held: node {node} ")), "{lease}");
    assert!(lease_owner(&sql, "service", node).is_some());
    assert_eq!(
        sql.int("SELECT COUNT(*) FROM flakeid_nodes WHERE space = 'service' AND owner IS NOT NULL"),
        1
    );
}

/// SIGTERM: the server stops, the node is released (its row's owner is
/// NULL) and the process exits 0.
pub fn sigterm_releases_the_lease(db: Db) {
    let (service, sql) = start(&db);
    let node = service.node();
    let team = create_team(&service, "Last", &["one"], 0);
    let last_id = id(&team["players"][0]["id"]);
    assert!(lease_owner(&sql, "service", node).is_some());
    let (status, logged) = service.terminate();
    assert!(
        status.success(),
        "exit status {status}; it logged {logged:#?}"
    );
    assert!(
        logged.iter().any(|l| l.contains("node lease released")),
        "{logged:#?}"
    );
    assert_eq!(
        lease_owner(&sql, "service", node),
        None,
        "node {node} is free"
    );
    // The release recorded how far this holder's IDs went: the next holder
    // starts after its last ID (time bits above the node and sequence).
    let high_water = sql.int(&format!(
        "SELECT high_water FROM flakeid_nodes WHERE space = 'service' AND node_id = {node}"
    ));
    let last_ms = (last_id >> 22) + 1_288_834_974_657;
    assert!(high_water >= last_ms, "high water {high_water} < {last_ms}");
}

/// An ID above 2^53 goes through JSON, the path and the database as the
/// same decimal string; a JavaScript number could not hold it.
pub fn id_above_2_pow_53_round_trips_as_a_string(db: Db) {
    let (service, sql) = start(&db);
    let team = create_team(&service, "Big", &["one"], 0);
    let text = team["id"]
        .as_str()
        .expect("the ID is a JSON string")
        .to_owned();
    let value: u64 = text.parse().expect("decimal");
    assert!(value > JS_SAFE_LIMIT, "{value} is above 2^53");
    let read = service.get(&format!("/teams/{text}"));
    assert_eq!(read.json["id"], json!(text));
    assert!(
        read.text.contains(&format!("\"id\":\"{text}\"")),
        "{}",
        read.text
    );
    let stored = sql.int("SELECT id FROM teams WHERE name = 'Big'");
    assert_eq!(stored.to_string(), text);
    let page = service.get("/teams");
    assert!(page.text.contains(&format!("\"{text}\"")), "{}", page.text);
    // An unknown ID above 2^53 is echoed exactly.
    let odd = service.get("/teams/9007199254740993");
    assert_eq!(odd.status, 404);
    assert_eq!(odd.json["value"], json!("9007199254740993"));
}

/// `/metrics` counts the IDs the service issued (under its node) and its
/// lease's renewals (under its space), in Prometheus's text format.
pub fn metrics_count_issued_ids_and_renewals(db: Db) {
    let (service, _sql) = start(&db);
    let node = service.node();
    let answer = service.get("/metrics");
    assert_eq!(answer.status, 200, "{}", answer.text);
    // A team and its player: two IDs. The generator counts a tick's IDs
    // when it enters its next tick, so the second team moves the count.
    create_team(&service, "Reds", &["Ann"], 0);
    std::thread::sleep(std::time::Duration::from_millis(5));
    create_team(&service, "Blues", &["Bo"], 0);
    let issued = format!("flakeid_ids_issued_total{{node=\"{node}\"}} ");
    let renewed = "flakeid_lease_renewal_duration_seconds_count{space=\"service\"} ";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let text = service.get("/metrics").text;
        let (ids, renewals) = (sample(&text, &issued), sample(&text, renewed));
        if ids >= 2.0 && renewals >= 1.0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "/metrics never showed 2 IDs issued and a renewal:\n{text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The value of the sample line of a Prometheus text that starts with
/// `prefix` (name and labels), 0 if there is none.
fn sample(text: &str, prefix: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}
