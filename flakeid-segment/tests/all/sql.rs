//! The SQL of the segment store refuses what the database would not keep
//! exactly: names of its table, the same names as the lease store's
//! (flakeid-lease's
//! `lease_table_names_the_database_would_not_keep_are_refused_like_segment_tables`
//! checks its table against the same list).

use flakeid_segment::SegmentSql;
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

#[test]
fn segment_table_names_the_database_would_not_keep_are_refused() {
    let mut refused = 0;
    for (name, refusing) in bad_names() {
        for d in DIALECTS {
            let segment = SegmentSql::with_table(d, &name);
            assert_eq!(
                segment.is_err(),
                refusing.contains(&d),
                "{d:?} segment table {name:?}"
            );
            refused += usize::from(segment.is_err());
        }
    }
    assert_eq!(refused, 14);
}
