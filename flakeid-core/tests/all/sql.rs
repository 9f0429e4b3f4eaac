//! The SQL flakeid writes refuses what the database would not keep
//! exactly: names of its tables, the lease space of an `IdFunction`, and
//! the MariaDB triggers it creates.

use flakeid_core::layout::presets;
use flakeid_core::node::LeaseSql;
use flakeid_core::segment::SegmentSql;
use flakeid_core::sql::{Dialect, IdFunction, IdFunctionError, SqlNameError};

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
fn lease_table_names_the_database_would_not_keep_are_refused_like_segment_tables() {
    let mut refused = 0;
    for (name, refusing) in bad_names() {
        for d in DIALECTS {
            let lease = LeaseSql::with_table(d, &name);
            let segment = SegmentSql::with_table(d, &name);
            assert_eq!(
                lease.is_err(),
                refusing.contains(&d),
                "{d:?} lease table {name:?}"
            );
            assert_eq!(lease.is_err(), segment.is_err(), "{d:?} {name:?}");
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

#[test]
fn an_id_function_refuses_a_space_with_a_nul() {
    for d in [Dialect::Postgres, Dialect::MySql] {
        let f = IdFunction::new(d, "a\0b", presets::twitter(), 1);
        let e = f.install().unwrap_err();
        assert!(
            matches!(&e, IdFunctionError::SpaceWithNul { space } if space == "a\0b"),
            "{e:?}"
        );
        assert!(e.to_string().contains("NUL"), "{e}");
        assert!(f.uninstall().is_err());
        assert!(f.call().is_err());
    }
}

/// The trigger name of `column_default`'s MariaDB trigger.
fn trigger(statements: &[String]) -> String {
    let s = statements
        .iter()
        .find_map(|s| s.strip_prefix("CREATE OR REPLACE TRIGGER "))
        .expect("a trigger");
    s.split(' ').next().unwrap().to_owned()
}

#[test]
fn mariadb_triggers_of_different_columns_never_share_a_name() {
    let f = IdFunction::new(Dialect::MySql, "orders", presets::twitter(), 1);
    let pairs = [
        ("a_b", "c"),
        ("a", "b_c"),
        ("a_", "b"),
        ("a", "_b"),
        ("a", "b"),
    ];
    let mut names = std::collections::HashSet::new();
    for (table, column) in pairs {
        let create = f.column_default(table, column).unwrap();
        let name = trigger(&create);
        assert!(names.insert(name.clone()), "{table}.{column}: {name} taken");
        // The drop names the same trigger.
        let drop = f.drop_column_default(table, column).unwrap();
        assert_eq!(drop[0], format!("DROP TRIGGER IF EXISTS {name}"));
    }
    assert_eq!(
        trigger(&f.column_default("orders", "id").unwrap()),
        "`orders_id_flakeid_6`"
    );
    // A trigger name the database would not keep is refused, not cut.
    let long = "t".repeat(60);
    assert!(matches!(
        f.column_default(&long, "id"),
        Err(IdFunctionError::Name(SqlNameError::TooLong { .. }))
    ));
}
