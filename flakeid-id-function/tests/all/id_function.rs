//! The database ID function's SQL: what it refuses (SQLite, a node or
//! space out of range, options that cannot work, and what the database
//! would not keep exactly: the lease space, names, and the MariaDB
//! triggers it creates), how it quotes names and writes literals, its
//! owner token and its scripts.

use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_id_function::{IdFunction, IdFunctionError};
use flakeid_lease::LeaseOptions;
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

fn pg() -> IdFunction {
    IdFunction::new(Dialect::Postgres, "orders", presets::twitter(), 5)
}

#[test]
fn sqlite_is_refused() {
    let f = IdFunction::new(Dialect::Sqlite, "s", presets::twitter(), 1);
    assert_eq!(
        f.install().unwrap_err(),
        IdFunctionError::UnsupportedDialect {
            dialect: Dialect::Sqlite
        }
    );
}

#[test]
fn node_and_space_are_checked() {
    let f = IdFunction::new(Dialect::Postgres, "s", presets::twitter(), 1024);
    assert_eq!(
        f.install().unwrap_err(),
        IdFunctionError::NodeOutOfRange {
            node: 1024,
            max: 1023
        }
    );
    let f = IdFunction::new(Dialect::MySql, "", presets::twitter(), 1);
    assert!(matches!(
        f.install().unwrap_err(),
        IdFunctionError::BadSpace { len: 0, .. }
    ));
    let long = "x".repeat(LeaseOptions::MAX_SPACE_LEN + 1);
    let f = IdFunction::new(Dialect::MySql, long, presets::twitter(), 1);
    assert!(matches!(
        f.call().unwrap_err(),
        IdFunctionError::BadSpace { len: 192, .. }
    ));
}

#[test]
fn options_are_checked() {
    let e = pg()
        .max_wait(Duration::from_secs(3601))
        .install()
        .unwrap_err();
    assert!(e.to_string().contains("max_wait"), "{e}");
    let e = pg().lock_timeout(Duration::ZERO).install().unwrap_err();
    assert!(e.to_string().contains("lock_timeout"), "{e}");
    assert!(pg().max_wait(Duration::ZERO).install().is_ok());
}

#[test]
fn names_are_quoted_or_refused() {
    let f = pg().function_name("next\"id").lease_table("nodes;--");
    let sql = f.install().unwrap();
    assert!(sql[4].starts_with("CREATE OR REPLACE FUNCTION \"next\"\"id\"()"));
    assert!(sql[0].contains("\"nodes;--\""));
    // The default state name would be too long for PostgreSQL.
    let e = pg().function_name("f".repeat(60)).install().unwrap_err();
    assert!(
        matches!(
            e,
            IdFunctionError::Name(SqlNameError::TooLong {
                role: "state sequence",
                ..
            })
        ),
        "{e}"
    );
    let e = IdFunction::new(Dialect::MySql, "s", presets::twitter(), 1)
        .clock_function("clock ")
        .install()
        .unwrap_err();
    assert!(
        matches!(
            e,
            IdFunctionError::Name(SqlNameError::TrailingSpace {
                role: "clock function",
                ..
            })
        ),
        "{e}"
    );
    let e = pg().column_default("", "id").unwrap_err();
    assert!(matches!(
        e,
        IdFunctionError::Name(SqlNameError::Empty { role: "table", .. })
    ));
}

#[test]
fn a_name_holding_the_dollar_tag_stays_inside_the_body() {
    let f = pg().state_name("$flakeid$");
    let function = &f.install().unwrap()[4];
    assert!(function.contains("AS $flakeid1$\n"), "{function}");
    assert!(function.ends_with("$flakeid1$"));
}

#[test]
fn space_with_quotes_and_backslashes_is_a_literal() {
    let f = IdFunction::new(Dialect::MySql, r"o'r\ders", presets::twitter(), 1);
    let sql = f.install().unwrap();
    assert!(!sql[1].contains(r"o'r\ders"), "{}", sql[1]);
    assert!(sql[1].contains("_utf8mb4 X'"), "{}", sql[1]);
    let f = IdFunction::new(Dialect::Postgres, "o'rders", presets::twitter(), 1);
    assert!(f.install().unwrap()[1].contains("'o''rders'"));
}

#[test]
fn owner_is_stable_and_distinct() {
    assert_eq!(pg().owner(), pg().owner());
    let other_node = IdFunction::new(Dialect::Postgres, "orders", presets::twitter(), 6);
    assert_ne!(pg().owner(), other_node.owner());
    assert_eq!(pg().holder(), "SQL function flakeid_next_id");
}

#[test]
fn mysql_script_wraps_bodies_in_a_free_delimiter() {
    let f = IdFunction::new(Dialect::MySql, "a$$b", presets::twitter(), 1);
    let script = f.script(&f.install().unwrap());
    assert!(
        script.contains("DELIMITER $$$\nBEGIN NOT ATOMIC"),
        "{script}"
    );
    assert!(script.starts_with("CREATE TABLE IF NOT EXISTS `flakeid_nodes`"));
    let pg = pg();
    assert!(
        pg.script(&pg.uninstall().unwrap())
            .ends_with("DROP SEQUENCE IF EXISTS \"flakeid_next_id_state\";\n")
    );
}
