//! The adoption benchmark's quick mode as a smoke test: it starts its own
//! servers (the images of `FLAKEID_TEST_*_IMAGE`), switches 3,000 rows on
//! each database while a writer inserts, and its output must name every
//! run with numbers that parse. Speed is not checked. The writer may be
//! refused once on MariaDB, never elsewhere.

mod common;

use common::{fields, number, run_quick};

#[test]
fn quick_mode_switches_every_database_while_a_writer_inserts() {
    let stdout = run_quick(env!("CARGO_BIN_EXE_adopt"), "adoption");
    let results: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("RESULT "))
        .collect();
    // PostgreSQL 15 and 18 and MariaDB with both key widths, SQLite once.
    assert_eq!(results.len(), 7, "{stdout}");
    for line in &results {
        let f = fields(line);
        let field = |name: &str| number(&f, name, line);
        assert_eq!(field("rows"), 3_000.0, "{line}");
        assert!(field("migration_ms") > 0.0, "{line}");
        assert!(field("rows_per_s") > 0.0, "{line}");
        assert!(field("longest_insert_ms") >= 0.0, "{line}");
        assert!(field("writer_inserts") >= 0.0, "{line}");
        // Only MariaDB refuses an insert, and only the one that waited for
        // the migration's locks (see the benchmark's documentation).
        let refused_at_most = if line.contains("MariaDB") || line.contains("MySQL") {
            1.0
        } else {
            0.0
        };
        assert!(field("writer_refused") <= refused_at_most, "{line}");
    }
    let rows = |prefix: &str| stdout.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(rows("| PostgreSQL "), 4, "{stdout}");
    assert_eq!(rows("| MariaDB ") + rows("| MySQL "), 2, "{stdout}");
    assert_eq!(rows("| SQLite "), 1, "{stdout}");
}
