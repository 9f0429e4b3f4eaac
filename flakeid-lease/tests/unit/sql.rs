//! Unit tests of `src/sql/`: the statements each dialect gets, and the rows
//! read back (crate-private, so these run as the module's `tests`).

use core::time::Duration;

use super::row::{BadLeaseRow, LeaseRow, NODE_COLUMNS};
use super::statements::{LeaseSql, MAX_AHEAD};
use super::store::missing;
use crate::store::{ClaimRequest, ReleaseRequest, RenewRequest};
use flakeid_sql::{Dialect, SqlRow, SqlValue};

fn claim_request() -> ClaimRequest<'static> {
    ClaimRequest {
        space: "orders",
        node: 3,
        owner: "tok",
        holder: "host/1",
        ttl: Duration::from_secs(15),
        max_ahead_millis: 20_000,
    }
}

#[test]
fn claim_is_one_compare_and_set_per_dialect() {
    let s = LeaseSql::new(Dialect::Postgres).claim(&claim_request());
    assert_eq!(
        s.sql,
        "UPDATE \"flakeid_nodes\" SET \"owner\" = $1, \"fence\" = \"fence\" + 1, \
         \"lease_until\" = CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT) + $2, \
         \"holder\" = $3 WHERE \"space\" = $4 AND \"node_id\" = $5 AND (\"owner\" IS NULL OR \
         \"lease_until\" < CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)) \
         AND \"high_water\" <= CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT) + $6"
    );
    assert_eq!(
        s.values,
        vec![
            SqlValue::Text("tok".into()),
            SqlValue::BigInt(15_000),
            SqlValue::Text("host/1".into()),
            SqlValue::Text("orders".into()),
            SqlValue::Int(3),
            SqlValue::BigInt(20_000),
        ]
    );
    let m = LeaseSql::new(Dialect::MySql).claim(&claim_request());
    assert!(
        m.sql
            .starts_with("UPDATE `flakeid_nodes` SET `owner` = ?, `fence` = `fence` + 1")
    );
    assert_eq!(m.sql.matches('?').count(), 6);
    assert_eq!(m.values, s.values);
}

#[test]
fn renewal_and_release_match_owner_and_fence() {
    for d in [Dialect::Postgres, Dialect::MySql, Dialect::Sqlite] {
        let sql = LeaseSql::new(d);
        let r = sql.renew(&RenewRequest {
            space: "s",
            node: 1,
            owner: "me",
            fence: 9,
            ttl: Duration::from_millis(500),
            ceiling_millis: 77,
            max_ahead_millis: u64::MAX,
        });
        let q = |n: &str| d.quote(n);
        assert!(
            r.sql.contains(&format!("{} = ", q("owner"))),
            "{d}: {}",
            r.sql
        );
        assert!(
            r.sql.contains(&format!("{} = ", q("fence"))),
            "{d}: {}",
            r.sql
        );
        assert_eq!(r.values.len(), 8);
        assert_eq!(r.values[1], SqlValue::BigInt(77));
        assert_eq!(r.values[5], SqlValue::BigInt(9));
        // The ceiling, then the bound on how far ahead of the clock it may be.
        assert_eq!(r.values[6], SqlValue::BigInt(77));
        assert_eq!(r.values[7], SqlValue::BigInt(MAX_AHEAD));
        let g = if d == Dialect::Sqlite {
            "MAX("
        } else {
            "GREATEST("
        };
        assert!(r.sql.contains(g), "{}", r.sql);
        let rel = sql.release(&ReleaseRequest {
            space: "s",
            node: 1,
            owner: "me",
            fence: 9,
            high_water_millis: 5,
        });
        assert!(rel.sql.contains(&format!("{} = NULL", q("owner"))));
        assert_eq!(rel.values.len(), 5);
    }
}

#[test]
fn inserts_bind_the_space_once_per_row() {
    let s = LeaseSql::new(Dialect::Sqlite).insert_nodes("x'); DROP TABLE t; --", &[0, 1, 2]);
    assert_eq!(
        s.sql,
        "INSERT INTO \"flakeid_nodes\" (\"space\", \"node_id\") VALUES (?, 0), (?, 1), (?, 2) \
         ON CONFLICT (\"space\", \"node_id\") DO NOTHING"
    );
    assert_eq!(s.values.len(), 3);
    let m = LeaseSql::new(Dialect::MySql).insert_nodes("s", &[4]);
    assert!(
        m.sql
            .ends_with("ON DUPLICATE KEY UPDATE `node_id` = `node_id`")
    );
    let p = LeaseSql::new(Dialect::Postgres).insert_nodes("s", &[4, 5]);
    assert!(p.sql.contains("($1, 4), ($2, 5)"), "{}", p.sql);
}

#[test]
fn missing_nodes_and_bad_rows() {
    let row = |n, fence| LeaseRow {
        node_id: n,
        owner: None,
        fence,
        lease_until: 0,
        high_water: 0,
        holder: None,
        db_now: 1,
    };
    assert_eq!(missing(&[row(1, 0), row(3, 0)], 0..=4), vec![0, 2, 4]);
    assert_eq!(
        row(2, -1).to_node_row().unwrap_err(),
        BadLeaseRow::Negative {
            node_id: 2,
            column: "fence",
            value: -1
        }
    );
    // A NULL where the protocol never writes one is an error, not a zero.
    let sql_row = SqlRow::new(
        NODE_COLUMNS,
        vec![
            SqlValue::BigInt(1),
            SqlValue::Null,
            SqlValue::Null,
            SqlValue::BigInt(0),
            SqlValue::BigInt(0),
            SqlValue::Null,
            SqlValue::BigInt(1),
        ],
    );
    assert_eq!(
        LeaseRow::from_sql(&sql_row),
        Err(BadLeaseRow::Missing { column: "fence" })
    );
}
