//! Two replicas of the service on one PostgreSQL database.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use crate::support::{Service, Sql, id, lease_owner, node_of};

/// Two replicas lease different nodes; teams and players created through
/// both at the same time never share an ID, and each ID carries the node
/// of the replica that issued it. Both release their nodes at SIGTERM.
#[test]
fn two_replicas_get_different_nodes_and_ids_never_collide() {
    let db = crate::postgres();
    // Started together: both create the tables and claim at once.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| Service::start("replica-a", &db.url, &[]));
        let b = s.spawn(|| Service::start("replica-b", &db.url, &[]));
        (a.join().expect("replica a"), b.join().expect("replica b"))
    });
    let sql = Sql::connect(&db.url);
    let (node_a, node_b) = (a.node(), b.node());
    assert_ne!(node_a, node_b, "each replica leases a node of its own");
    let owner_a = lease_owner(&sql, "service", node_a).expect("node a held");
    let owner_b = lease_owner(&sql, "service", node_b).expect("node b held");
    assert_ne!(owner_a, owner_b);

    // Four writers per replica, each creating teams of three and adding
    // players in bulk.
    let issued: Vec<(u64, Vec<i64>)> = std::thread::scope(|s| {
        let mut writers = Vec::new();
        for (service, node) in [(&a, node_a), (&b, node_b)] {
            for w in 0..4 {
                writers.push(s.spawn(move || {
                    let mut ids = Vec::new();
                    for t in 0..15 {
                        let body = json!({
                            "name": format!("n{node} w{w} t{t}"),
                            "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
                            "captain": 2,
                        });
                        let team = service.post("/teams", &body.to_string());
                        assert_eq!(team.status, 201, "{}", team.text);
                        ids.push(id(&team.json["id"]));
                        for p in team.json["players"].as_array().expect("players") {
                            ids.push(id(&p["id"]));
                        }
                        let bulk = service.post(
                            "/players/bulk",
                            &json!({"team_id": team.json["id"], "names": ["x", "y", "z", "w"]})
                                .to_string(),
                        );
                        assert_eq!(bulk.status, 201, "{}", bulk.text);
                        ids.extend(
                            bulk.json
                                .as_array()
                                .expect("players")
                                .iter()
                                .map(|p| id(&p["id"])),
                        );
                    }
                    (node, ids)
                }));
            }
        }
        writers
            .into_iter()
            .map(|w| w.join().expect("writer"))
            .collect()
    });

    // Plain SQL: every ID once across both tables, each from its replica's node.
    let all: Vec<i64> = sql
        .rows("SELECT id FROM teams UNION ALL SELECT id FROM players")
        .into_iter()
        .map(|r| r[0].int())
        .collect();
    let distinct: BTreeSet<i64> = all.iter().copied().collect();
    assert_eq!(
        all.len(),
        8 * 15 * 8,
        "8 writers × 15 teams × (1 + 3 + 4) rows"
    );
    assert_eq!(distinct.len(), all.len(), "no ID was issued twice");
    let mut by_node: BTreeMap<u64, usize> = BTreeMap::new();
    for (node, ids) in &issued {
        for &i in ids {
            assert_eq!(node_of(i), *node, "ID {i} from the replica on node {node}");
            assert!(distinct.contains(&i), "acknowledged ID {i} is stored");
        }
        *by_node.entry(*node).or_default() += ids.len();
    }
    assert_eq!(by_node.len(), 2);
    for i in &distinct {
        assert!([node_a, node_b].contains(&node_of(*i)), "{i}");
    }

    let (status_a, _) = a.terminate();
    let (status_b, _) = b.terminate();
    assert!(status_a.success() && status_b.success());
    assert_eq!(lease_owner(&sql, "service", node_a), None);
    assert_eq!(lease_owner(&sql, "service", node_b), None);
}
