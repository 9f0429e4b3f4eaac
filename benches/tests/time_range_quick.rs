//! The time-range benchmark's quick mode as a smoke test: it starts its own
//! PostgreSQL and MySQL-family servers (the images of
//! `FLAKEID_TEST_*_IMAGE`), fills the table, runs every window by key and
//! by `created_at` (the program fails if the two return different rows),
//! and its report must be complete: a line per server and window, index
//! sizes, and plans that use the indexes compared. Speed is not checked.

mod common;

use std::collections::BTreeMap;

use common::{fields, number, run_quick};

use flakeid_benches::time_range::Config;

/// The positive number in field `name` of `line`.
fn positive(fields: &BTreeMap<&str, &str>, name: &str, line: &str) -> f64 {
    let n = number(fields, name, line);
    assert!(n > 0.0, "{name} in {line}");
    n
}

#[test]
fn quick_mode_reports_every_window_both_ways_and_the_index_sizes() {
    let stdout = run_quick(env!("CARGO_BIN_EXE_time_range"), "time_range");
    let cfg = Config::quick();
    let mut results = 0;
    for line in stdout.lines().filter(|l| l.starts_with("RESULT ")) {
        let f = fields(line);
        let rows = positive(&f, "rows", line);
        let windows = cfg
            .windows
            .iter()
            .find(|(w, _)| w.as_secs().to_string() == f["width_s"])
            .unwrap_or_else(|| panic!("a window that is not configured: {line}"));
        // About one row per millisecond of the windows (4 nodes take
        // turns), the table's rows at most (they span `rows` ms).
        let per_window = (windows.0.as_millis() as usize).min(cfg.rows);
        let expected = (per_window * windows.1) as f64;
        assert!((rows - expected).abs() <= windows.1 as f64 * 2.0, "{line}");
        for name in ["key_rows_per_s", "created_at_rows_per_s", "ratio"] {
            positive(&f, name, line);
        }
        results += 1;
    }
    assert_eq!(results, cfg.servers.len() * cfg.windows.len(), "{stdout}");
    let mut indexes = 0;
    for line in stdout.lines().filter(|l| l.starts_with("INDEX ")) {
        let f = fields(line);
        for name in ["table_bytes", "pk_bytes", "created_at_bytes"] {
            positive(&f, name, line);
        }
        indexes += 1;
    }
    assert_eq!(indexes, cfg.servers.len(), "{stdout}");
    // The plans use the indexes compared.
    assert!(
        stdout.contains("by key: Index Scan using events_pkey")
            || stdout
                .contains("by key: Bitmap Heap Scan on events / Bitmap Index Scan on events_pkey"),
        "{stdout}"
    );
    assert!(stdout.contains("events_created_at"), "{stdout}");
    assert!(
        stdout.contains("by key: type range, key PRIMARY"),
        "{stdout}"
    );
    for bad in ["NaN", "inf"] {
        assert!(!stdout.contains(bad), "{bad} in the report:\n{stdout}");
    }
}
