//! The `seaorm_save` benchmark's quick mode as a smoke test: it starts its
//! own PostgreSQL and MySQL-family servers (the images of
//! `FLAKEID_TEST_*_IMAGE`) beside two SQLite databases, writes and reads
//! rows every way it compares (the program fails if a row is missing), and
//! each way must send the statements the guide counts (`docs/seaorm.md`:
//! `save` of a key from `assign_id` is the lookup, the `INSERT` and the row
//! read back, where `insert` is one statement). Speed is not checked.

mod common;

use common::{fields, number, run_quick};

#[test]
fn quick_mode_sends_the_statements_the_guide_counts() {
    let stdout = run_quick(env!("CARGO_BIN_EXE_seaorm_save"), "seaorm_save");
    // Statements a row on a database with `RETURNING`; MariaDB reads the
    // row back after each `INSERT` or `UPDATE` (not after a lookup).
    let expected = [
        ("insert-assigned", 1.0, true),
        ("save-assigned", 3.0, true),
        ("save-not-set", 1.0, true),
        ("save-loaded", 1.0, true),
        ("save-set-key", 2.0, true),
        ("lookup", 1.0, false),
    ];
    let mut seen = 0;
    for line in stdout.lines().filter(|l| l.starts_with("RESULT ")) {
        let f = fields(line);
        let &(_, statements, writes) = expected
            .iter()
            .find(|(case, _, _)| *case == f["case"])
            .unwrap_or_else(|| panic!("a case that is not compared: {line}"));
        let read_back = if f["server"] == "mysql" && writes {
            1.0
        } else {
            0.0
        };
        assert_eq!(
            number(&f, "statements_per_row", line),
            statements + read_back,
            "{line}"
        );
        assert!(number(&f, "rows", line) >= 200.0, "{line}");
        assert!(number(&f, "rows_per_s", line) > 0.0, "{line}");
        seen += 1;
    }
    assert_eq!(seen, 4 * expected.len(), "{stdout}");
    for bad in ["NaN", "inf"] {
        assert!(!stdout.contains(bad), "{bad} in the report:\n{stdout}");
    }
}
