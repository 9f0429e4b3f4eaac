//! The database benchmark's quick mode as a smoke test: it starts its own
//! servers (the images of `FLAKEID_TEST_*_IMAGE`), runs every insert run of
//! the full mode once with small tables, and its output must be complete,
//! well-formed and exact in every row count. Speed is not checked.

mod common;

use std::collections::BTreeMap;

use common::{fields, number, run_quick};

use flakeid_benches::db::config::{Config, RunSpec};

fn spec_name(spec: &RunSpec) -> String {
    format!(
        "table={} server={} key={} path={} writers={}",
        spec.table.name(),
        spec.server,
        spec.key,
        spec.path,
        spec.writers
    )
}

#[test]
fn quick_mode_runs_everything_once_with_exact_row_counts() {
    let stdout = run_quick(env!("CARGO_BIN_EXE_db"), "db");

    let plan = Config::quick().plan();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for line in stdout.lines().filter(|l| l.starts_with("RESULT ")) {
        let f = fields(line);
        let rows = number(&f, "rows", line);
        assert_eq!(rows, number(&f, "expected", line), "row count: {line}");
        assert_eq!(
            rows,
            number(&f, "distinct_keys", line),
            "unique keys: {line}"
        );
        for positive in ["secs", "rows_per_s", "last10_rows_per_s", "pk_bytes"] {
            assert!(number(&f, positive, line) > 0.0, "{positive}: {line}");
        }
        assert_eq!(f.get("round"), Some(&"1"), "{line}");
        let name = format!(
            "table={} server={} key={} path={} writers={}",
            f["table"], f["server"], f["key"], f["path"], f["writers"]
        );
        let spec = plan
            .iter()
            .find(|s| spec_name(s) == name)
            .unwrap_or_else(|| panic!("a run that is not in the plan: {line}"));
        assert_eq!(rows, spec.rows as f64, "{line}");
        *seen.entry(name).or_default() += 1;
    }
    for spec in &plan {
        assert_eq!(
            seen.get(&spec_name(spec)),
            Some(&1),
            "{spec} must run exactly once:\n{stdout}"
        );
    }

    // The report: one keys and one paths table per server, and the targets.
    assert_eq!(
        stdout.matches("rows per run through").count(),
        3,
        "{stdout}"
    );
    assert_eq!(stdout.matches(": insert paths,").count(), 3, "{stdout}");
    assert!(stdout.contains("#### Targets"), "{stdout}");
    for bad in ["NaN", "inf"] {
        assert!(!stdout.contains(bad), "{bad} in the report:\n{stdout}");
    }
    // Every cell filled: a dash would mean a run or its baseline is missing.
    for line in stdout
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| target"))
    {
        if line.contains("Targets") {
            continue;
        }
        assert!(!line.contains("| — |"), "empty cell: {line}");
    }
}
