//! Start-up failures: they stop the process with the reason, quickly, and
//! leave no node held.

use std::time::{Duration, Instant};

use crate::Db;
use crate::support::{Service, Sql};

/// A second instance started on a port already in use stops with the
/// reason before it claims a node: the first instance's node is the only
/// one held, and nothing was left to free itself after the TTL.
pub fn port_in_use_stops_before_claiming_a_node(db: Db) {
    let first = Service::start("first", &db.url, &[]);
    let sql = Sql::connect(&db.url);
    let port = first
        .addr()
        .rsplit(':')
        .next()
        .expect("host:port")
        .to_owned();
    let second = Service::spawn("second", &db.url, &[("PORT", &port)]);
    let (status, logged) = second.exit_within(Duration::from_secs(60));
    let status = status.unwrap_or_else(|| panic!("still running; it logged {logged:#?}"));
    assert_eq!(status.code(), Some(1), "{logged:#?}");
    assert!(
        logged
            .iter()
            .any(|l| l.contains("cannot listen on") && l.contains(&port)),
        "the reason, naming the address: {logged:#?}"
    );
    for never in [
        "node leased",
        "node lease claimed",
        "dropped without release",
    ] {
        assert!(
            !logged.iter().any(|l| l.contains(never)),
            "{never:?}: {logged:#?}"
        );
    }
    assert_eq!(
        sql.int("SELECT COUNT(*) FROM flakeid_nodes WHERE space = 'service' AND owner IS NOT NULL"),
        1,
        "only the first instance holds a node"
    );
    assert_eq!(first.get("/health").status, 200);
}

/// With its database refusing connections the service stops within 5 s,
/// saying so ("Connection refused"), not after a pool's timeout.
pub fn refused_database_connection_is_reported_within_5_s(url: &str) {
    let started = Instant::now();
    let service = Service::spawn("refused", url, &[]);
    let (status, logged) = service.exit_within(Duration::from_secs(60));
    let took = started.elapsed();
    let status = status.unwrap_or_else(|| panic!("still running; it logged {logged:#?}"));
    assert_eq!(status.code(), Some(1), "{logged:#?}");
    let reason = logged
        .iter()
        .find(|l| l.contains("flakeid-service stopped"))
        .unwrap_or_else(|| panic!("no reason logged: {logged:#?}"));
    assert!(
        reason.to_lowercase().contains("connection refused"),
        "the cause is shown: {reason}"
    );
    assert!(
        took < Duration::from_secs(5),
        "stopped after {took:?}, not within 5 s: {reason}"
    );
}

/// A URL of `scheme` on a local port where nothing listens.
pub fn closed_port_url(scheme: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("its address").port();
    drop(listener);
    format!("{scheme}://flakeid:secret@127.0.0.1:{port}/service")
}

#[test]
fn refused_postgres_connection_is_reported_within_5_s() {
    refused_database_connection_is_reported_within_5_s(&closed_port_url("postgres"));
}

#[test]
fn refused_mysql_connection_is_reported_within_5_s() {
    refused_database_connection_is_reported_within_5_s(&closed_port_url("mysql"));
}
