//! The database ID function's SQL refuses what the database would not
//! keep exactly: the lease space, and the MariaDB triggers it creates.

use flakeid_core::layout::presets;
use flakeid_id_function::{IdFunction, IdFunctionError};
use flakeid_sql::{Dialect, SqlNameError};

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
