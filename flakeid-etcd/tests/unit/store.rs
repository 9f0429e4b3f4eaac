//! Unit tests of `src/store/`: how TTLs, spaces and node states are
//! written to etcd (private helpers, so these run as the module's `tests`).

use super::keys::segment;
use super::*;

#[test]
fn ttls_round_up_to_whole_seconds() {
    assert_eq!(ttl_secs(Duration::from_millis(1)), 1);
    assert_eq!(ttl_secs(Duration::from_millis(1500)), 2);
    assert_eq!(ttl_secs(Duration::from_secs(15)), 15);
    assert_eq!(ttl_secs(Duration::ZERO), 1);
}

#[test]
fn spaces_are_one_key_segment() {
    assert_eq!(segment("a/b%c"), "a%2Fb%25c");
    assert_ne!(segment("a/node"), segment("a") + "/node");
}

#[test]
fn node_state_is_json() {
    let s = NodeState {
        fence: 2,
        high_water: 5,
        owner: Some("t".into()),
        holder: Some("h/1".into()),
        lease_until: 9,
        ttl_ms: 15_000,
    };
    let v = serde_json::to_string(&s).unwrap();
    assert_eq!(
        v,
        r#"{"fence":2,"high_water":5,"owner":"t","holder":"h/1","lease_until":9,"ttl_ms":15000}"#
    );
    assert_eq!(serde_json::from_str::<NodeState>(&v).unwrap(), s);
}
