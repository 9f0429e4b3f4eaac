//! The SQL of the lease store refuses what the database would not keep
//! exactly: names of its table. (flakeid-segment checks its table against
//! the same names; the database ID function's names are checked in
//! flakeid-id-function.)

use flakeid_lease::LeaseSql;
use flakeid_sql::Dialect;

const DIALECTS: [Dialect; 3] = [Dialect::Postgres, Dialect::MySql, Dialect::Sqlite];

/// Names some dialect would not keep exactly, and the dialects that refuse them.
fn bad_names() -> Vec<(String, Vec<Dialect>)> {
    vec![
        (String::new(), DIALECTS.to_vec()),
        ("a\0b".into(), DIALECTS.to_vec()),
        ("n".repeat(64), vec![Dialect::Postgres]),
        ("é".repeat(32), vec![Dialect::Postgres]), // 64 bytes
        ("m".repeat(65), vec![Dialect::Postgres, Dialect::MySql]),
        ("ids 🦀".into(), vec![Dialect::MySql]),
        ("ids ".into(), vec![Dialect::MySql]),
        ("sqlite_nodes".into(), vec![Dialect::Sqlite]),
        ("SQLite_Nodes".into(), vec![Dialect::Sqlite]),
    ]
}

/// Segment tables refuse the same names: flakeid-segment's
/// `segment_table_names_the_database_would_not_keep_are_refused` checks
/// them against the same list.
#[test]
fn lease_table_names_the_database_would_not_keep_are_refused_like_segment_tables() {
    let mut refused = 0;
    for (name, refusing) in bad_names() {
        for d in DIALECTS {
            let lease = LeaseSql::with_table(d, &name);
            assert_eq!(
                lease.is_err(),
                refusing.contains(&d),
                "{d:?} lease table {name:?}"
            );
            if let Err(e) = lease {
                refused += 1;
                assert!(e.to_string().contains("lease table"), "{e}");
            }
        }
    }
    assert_eq!(refused, 14);
    // Names the databases keep are quoted, whatever they hold.
    let sql = LeaseSql::with_table(Dialect::MySql, "node`s").unwrap();
    assert!(
        sql.create_table()
            .starts_with("CREATE TABLE IF NOT EXISTS `node``s` (")
    );
}
