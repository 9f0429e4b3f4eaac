//! Requests refused for their size, before or by the router, and what the
//! service logs for requests that are not failures.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Service, Sql};

/// The body limit of the service (`flakeid_service::api::MAX_BODY_BYTES`).
const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Sends `request` (all of it, from a thread of its own, so that a server
/// answering early is read while the rest is still sent) and reads the
/// whole answer: status, headers, body.
fn raw(service: &Service, request: Vec<u8>) -> (u16, String, String) {
    let mut stream = TcpStream::connect(service.addr()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut writer = stream.try_clone().expect("clone the stream");
    let sender = std::thread::spawn(move || {
        // The server may close its end before everything is sent.
        let _ = writer.write_all(&request);
    });
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let _ = sender.join();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, head.to_owned(), body.to_owned())
}

/// A JSON error body `{error, field, value}` whose `error` holds `limit`.
fn json_error(status: u16, head: &str, body: &str, field: &str, limit: &str) -> Value {
    assert!(
        head.to_lowercase()
            .contains("content-type: application/json"),
        "{status}: {head}"
    );
    let json: Value = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("{status}: the body is not JSON ({e}): {body:?}"));
    assert_eq!(json.as_object().map(|o| o.len()), Some(3), "{json}");
    assert_eq!(json["field"], json!(field), "{json}");
    let error = json["error"].as_str().expect("an error text");
    assert!(
        error.contains(limit),
        "{status}: {error:?} names the limit {limit}"
    );
    json
}

/// 413, 414 and 431 are JSON errors that name the limit, whether the
/// router refuses the request (a body over the limit) or hyper does before
/// routing (a 65,536-digit path, a 1 MB header).
#[test]
fn oversized_requests_get_json_errors_naming_the_limit() {
    let db = crate::sqlite();
    let service = Service::start("limits", &db.url, &[]);
    let sql = Sql::connect(&db.url);

    let body = vec![b' '; MAX_BODY_BYTES + 1];
    let mut request = format!(
        "POST /teams HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend(&body);
    let (status, head, body) = raw(&service, request);
    assert_eq!(status, 413, "{head}\n{body}");
    let json = json_error(
        status,
        &head,
        &body,
        "content-length",
        &MAX_BODY_BYTES.to_string(),
    );
    assert_eq!(json["value"], json!((MAX_BODY_BYTES + 1).to_string()));

    let path = format!("/teams/{}", "1".repeat(65_536));
    let (status, head, body) = raw(
        &service,
        format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").into_bytes(),
    );
    assert_eq!(status, 414, "{head}\n{body}");
    json_error(status, &head, &body, "uri", "65534");

    let header = "a".repeat(1024 * 1024);
    let (status, head, body) = raw(
        &service,
        format!("GET /teams HTTP/1.1\r\nHost: x\r\nX-Big: {header}\r\nConnection: close\r\n\r\n")
            .into_bytes(),
    );
    assert_eq!(status, 431, "{head}\n{body}");
    json_error(status, &head, &body, "headers", "417792");

    // None of them wrote, and the service still serves.
    assert_eq!(sql.int("SELECT COUNT(*) FROM teams"), 0);
    assert_eq!(service.get("/health").status, 200);
}

/// What browsers and probes ask for routinely is no warning: the icon a
/// browser requests by itself, and `/health` answering 503 while the node
/// lease cannot issue IDs (the lease's own events report why).
#[test]
fn favicon_and_health_503_log_no_warning_or_error() {
    let db = crate::sqlite();
    // One node: once taken away, the lease finds no other to move to.
    let service = Service::start("quiet", &db.url, &[("FLAKEID_NODES", "0-0")]);
    let sql = Sql::connect(&db.url);

    let icon = service.get("/favicon.ico");
    assert!(icon.status < 300, "{} {}", icon.status, icon.text);

    // Another holder takes the node (as after a pause past the TTL): the
    // next renewal finds the lease lost.
    sql.rows(
        "UPDATE flakeid_nodes SET owner = 'someone-else', fence = fence + 1, \
         lease_until = 4102444800000 WHERE space = 'service' AND node_id = 0",
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let health = loop {
        let health = service.get("/health");
        if health.status == 503 {
            break health;
        }
        assert!(
            Instant::now() < deadline,
            "/health still {} after the node was taken: {}",
            health.status,
            health.text
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(health.json["issuing"], json!(false), "{}", health.text);

    let (_, logged) = service.terminate();
    let noisy: Vec<&String> = logged
        .iter()
        .filter(|l| l.contains("path=/favicon.ico") || l.contains("path=/health"))
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .collect();
    assert!(noisy.is_empty(), "{noisy:#?}");
}
