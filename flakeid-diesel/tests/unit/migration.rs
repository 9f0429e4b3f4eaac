//! Checks that the migration files shipped for the Diesel CLI are the SQL
//! the migration source and `create_table` run, for every backend. With
//! `FLAKEID_BLESS=1` it writes the files instead (after a change to the
//! SQL), like `TRYBUILD=overwrite`. (Unit tests of `src/migration.rs`: the
//! migration's SQL is private.)

use super::*;

#[test]
fn shipped_migrations_match_the_generated_sql() {
    let bless = std::env::var_os("FLAKEID_BLESS").is_some_and(|v| v == "1");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for m in [crate::lease::MIGRATIONS, crate::segment::MIGRATIONS] {
        for (dir, dialect) in [
            ("postgres", Dialect::Postgres),
            ("mysql", Dialect::MySql),
            ("sqlite", Dialect::Sqlite),
        ] {
            let path = root.join(dir).join(m.to_string());
            if bless {
                std::fs::write(path.join("up.sql"), m.up_sql(dialect)).expect("write up.sql");
                std::fs::write(path.join("down.sql"), m.down_sql(dialect)).expect("write down.sql");
            }
            let read = |f: &str| {
                std::fs::read_to_string(path.join(f))
                    .unwrap_or_else(|e| panic!("{}: {e}", path.join(f).display()))
            };
            assert_eq!(read("up.sql"), m.up_sql(dialect), "{m} {dir}");
            assert_eq!(read("down.sql"), m.down_sql(dialect), "{m} {dir}");
        }
    }
}
