//! The example service's router (`flakeid-service`), driven in-process
//! with arbitrary requests, on an in-memory SQLite database.
//!
//! The input is a request: a first line `METHOD TARGET`, header lines
//! `Name: value`, an empty line, and the body (the bytes after it; sent
//! with its own `Content-Length`, as a client sends it). Inputs that are
//! no HTTP request (a method or target HTTP cannot carry) are skipped.
//! Property: every response is a 2xx, or a 4xx whose body is the JSON
//! error body (`error`, `field`, `value`); a refused request stores
//! nothing (the tables' row counts stay as they were); a created team or
//! players are stored as answered (the counts grow by what the answer
//! lists, and the team reads back as created). Nothing panics.

use std::sync::OnceLock;

use axum::body::{Body, to_bytes};
use axum::http::{HeaderName, HeaderValue, Method, Request, StatusCode, Uri, header};
use flakeid_core::Generator;
use flakeid_core::global;
use flakeid_core::layout::presets;
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, Statement};
use serde_json::Value;
use tokio::runtime::Runtime;
use tower::ServiceExt;

/// Teams kept before the tables are emptied, so that a long run stays fast.
const MAX_TEAMS: i64 = 200;

struct Service {
    runtime: Runtime,
    router: axum::Router,
    db: DatabaseConnection,
}

fn service() -> &'static Service {
    static SERVICE: OnceLock<Service> = OnceLock::new();
    SERVICE.get_or_init(|| {
        // Either may have happened already in this process (another check).
        let _ = flakeid_service::metrics::install();
        let _ = global::init(Generator::builder(presets::twitter(), 7));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let (router, db) = runtime.block_on(async {
            // One connection that never closes: an in-memory database lives
            // as long as its connection.
            let mut options = ConnectOptions::new("sqlite::memory:");
            options
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .sqlx_logging(false);
            let db = Database::connect(options).await.expect("in-memory SQLite");
            let router = flakeid_service::in_process_router(db.clone(), 7)
                .await
                .expect("the service's tables");
            (router, db)
        });
        Service {
            runtime,
            router,
            db,
        }
    })
}

/// The request the input describes, if HTTP can carry it.
fn request(data: &[u8]) -> Option<Request<Body>> {
    let split = data.windows(2).position(|w| w == b"\n\n");
    let (head, body) = match split {
        Some(at) => (&data[..at], &data[at + 2..]),
        None => (data, &[][..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split('\n');
    let first = lines.next().unwrap_or_default();
    let (method, target) = first.split_once(' ').unwrap_or((first, "/"));
    let method = Method::from_bytes(method.as_bytes()).ok()?;
    let uri: Uri = target.parse().ok()?;
    let mut builder = Request::builder().method(method).uri(uri);
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.trim().as_bytes()),
            HeaderValue::from_bytes(value.trim().as_bytes()),
        ) else {
            continue;
        };
        // The body's length is the transport's, not the input's to choose.
        if name == header::CONTENT_LENGTH || name == header::TRANSFER_ENCODING {
            continue;
        }
        builder = builder.header(name, value);
    }
    if !body.is_empty() {
        builder = builder.header(header::CONTENT_LENGTH, body.len());
    }
    builder.body(Body::from(body.to_vec())).ok()
}

fn count(db: &DatabaseConnection, rt: &Runtime, table: &str) -> i64 {
    rt.block_on(async {
        let row = db
            .query_one_raw(Statement::from_string(
                db.get_database_backend(),
                format!("SELECT COUNT(*) AS n FROM {table}"),
            ))
            .await
            .expect("count rows")
            .expect("one row");
        row.try_get::<i64>("", "n").expect("a count")
    })
}

/// Sends `req` and returns the status, content type and body.
fn send(s: &Service, req: Request<Body>) -> (StatusCode, Option<String>, Vec<u8>) {
    s.runtime.block_on(async {
        let response = s
            .router
            .clone()
            .oneshot(req)
            .await
            .expect("the router is infallible");
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let body = to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("the body");
        (status, content_type, body.to_vec())
    })
}

pub fn check(data: &[u8]) {
    let Some(req) = request(data) else {
        return;
    };
    let s = service();
    let (method, path) = (req.method().clone(), req.uri().path().to_owned());
    let teams = count(&s.db, &s.runtime, "teams");
    let players = count(&s.db, &s.runtime, "players");
    let (status, content_type, body) = send(s, req);
    let what = format!(
        "{method} {path} -> {status}: {}",
        String::from_utf8_lossy(&body)
    );
    assert!(status.is_success() || status.is_client_error(), "{what}");
    let json = || -> Value {
        assert!(
            content_type
                .as_deref()
                .is_some_and(|ct| ct.starts_with("application/json")),
            "{what}: content type {content_type:?}"
        );
        serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"))
    };
    // HEAD answers carry no body.
    let has_body = method != Method::HEAD;
    let (teams_after, players_after) = (
        count(&s.db, &s.runtime, "teams"),
        count(&s.db, &s.runtime, "players"),
    );
    if status.is_client_error() {
        if has_body {
            let error = json();
            let object = error
                .as_object()
                .unwrap_or_else(|| panic!("{what}: not an object"));
            assert!(
                object
                    .get("error")
                    .and_then(Value::as_str)
                    .is_some_and(|e| !e.is_empty()),
                "{what}"
            );
            assert!(
                object
                    .get("field")
                    .is_some_and(|f| f.is_null() || f.is_string()),
                "{what}"
            );
            assert!(object.contains_key("value") && object.len() == 3, "{what}");
        }
        assert_eq!(
            (teams_after, players_after),
            (teams, players),
            "{what}: a refused request stored rows"
        );
        return;
    }
    match (method.as_str(), path.as_str(), status) {
        ("POST", "/teams", StatusCode::CREATED) => {
            let team = json();
            let n = team["players"].as_array().map_or(0, Vec::len) as i64;
            assert_eq!(
                (teams_after, players_after),
                (teams + 1, players + n),
                "{what}"
            );
            let id = team["id"]
                .as_str()
                .unwrap_or_else(|| panic!("{what}: the ID is no string"));
            let get = Request::get(format!("/teams/{id}"))
                .body(Body::empty())
                .expect("a request");
            let (status, _, body) = send(s, get);
            assert_eq!(status, StatusCode::OK);
            let read: Value = serde_json::from_slice(&body).expect("JSON");
            assert_eq!(read, team, "team {id} reads back otherwise");
        }
        ("POST", "/players/bulk", StatusCode::CREATED) => {
            let n = json().as_array().map_or(0, Vec::len) as i64;
            assert_eq!((teams_after, players_after), (teams, players + n), "{what}");
        }
        _ => {
            assert_eq!(
                (teams_after, players_after),
                (teams, players),
                "{what}: stored rows"
            );
            if has_body
                && content_type
                    .as_deref()
                    .is_some_and(|ct| ct.starts_with("application/json"))
            {
                let _ = json();
            }
        }
    }
    if teams_after > MAX_TEAMS {
        s.runtime.block_on(async {
            for sql in [
                "UPDATE teams SET captain_id = NULL",
                "DELETE FROM players",
                "DELETE FROM teams",
            ] {
                s.db.execute_unprepared(sql)
                    .await
                    .expect("empty the tables");
            }
        });
    }
}
