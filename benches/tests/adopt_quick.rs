//! The adoption benchmark's quick mode as a smoke test: it starts its own
//! servers (the images of `FLAKEID_TEST_*_IMAGE`), switches 3,000 rows on
//! each database while a writer inserts, and its output must name every
//! run with numbers that parse. Speed is not checked.

use std::process::Command;

#[test]
fn quick_mode_switches_every_database_while_a_writer_inserts() {
    let out = Command::new(env!("CARGO_BIN_EXE_adopt"))
        .arg("--quick")
        .output()
        .unwrap_or_else(|e| panic!("cannot run the adoption benchmark: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the quick benchmark failed ({}):\n{stderr}\n{stdout}",
        out.status
    );
    let results: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("RESULT "))
        .collect();
    // PostgreSQL 15 and 18 and MariaDB with both key widths, SQLite once.
    assert_eq!(results.len(), 7, "{stdout}");
    for line in &results {
        let field = |name: &str| -> f64 {
            let value = line
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("no {name} in {line}"));
            value
                .parse()
                .unwrap_or_else(|_| panic!("{name}={value} is not a number in {line}"))
        };
        assert_eq!(field("rows"), 3_000.0, "{line}");
        assert!(field("migration_ms") > 0.0, "{line}");
        assert!(field("rows_per_s") > 0.0, "{line}");
        assert!(field("longest_insert_ms") >= 0.0, "{line}");
        assert!(field("writer_inserts") >= 0.0, "{line}");
    }
    let rows = |prefix: &str| stdout.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(rows("| PostgreSQL "), 4, "{stdout}");
    assert_eq!(rows("| MariaDB ") + rows("| MySQL "), 2, "{stdout}");
    assert_eq!(rows("| SQLite "), 1, "{stdout}");
}
