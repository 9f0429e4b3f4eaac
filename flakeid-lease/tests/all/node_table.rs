//! A lease table as operators see it ([`NodeTable`], [`NodeRow`]): what
//! its listing says of a node reserved outside the lease protocol.

use flakeid_lease::{NodeRow, NodeTable};

#[test]
fn a_reserved_node_is_shown_as_reserved_and_held() {
    let table = NodeTable {
        space: "orders".into(),
        now_millis: Some(1_700_000_000_000),
        rows: vec![NodeRow {
            node: 1023,
            owner: Some("sql:0123456789abcdef".into()),
            fence: 1,
            lease_until_millis: NodeRow::RESERVED_UNTIL_MILLIS,
            high_water_millis: 0,
            holder: Some("SQL function flakeid_next_id".into()),
        }],
    };
    assert!(table.rows[0].is_reserved());
    assert_eq!(table.held().count(), 1);
    assert_eq!(
        table.to_string(),
        "space \"orders\" at 1700000000000 ms (store clock): 1 of 1 nodes held\n\
         node 1023: reserved for SQL function flakeid_next_id, fence 1, high water 0 ms\n"
    );
}
