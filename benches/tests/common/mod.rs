//! Running a benchmark binary in its quick mode and reading the
//! machine-readable lines it prints (`RESULT key=value …`), for the smoke
//! tests of the quick modes.

use std::collections::BTreeMap;
use std::process::Command;

/// Runs the benchmark binary `exe` (named `name` in messages) with
/// `--quick` and returns what it printed on stdout; panics with its stderr
/// and stdout if it could not start or failed.
pub(crate) fn run_quick(exe: &str, name: &str) -> String {
    let out = Command::new(exe)
        .arg("--quick")
        .output()
        .unwrap_or_else(|e| panic!("cannot run the {name} benchmark: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the quick {name} benchmark failed ({}):\n{stderr}\n{stdout}",
        out.status
    );
    stdout
}

/// `key=value` fields of a line such as `RESULT server=pg rows=12`.
pub(crate) fn fields(line: &str) -> BTreeMap<&str, &str> {
    line.split_whitespace()
        .skip(1)
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

/// The finite number in field `name` of `line`.
pub(crate) fn number(fields: &BTreeMap<&str, &str>, name: &str, line: &str) -> f64 {
    let value = fields
        .get(name)
        .unwrap_or_else(|| panic!("no {name} in {line}"));
    let n: f64 = value
        .parse()
        .unwrap_or_else(|_| panic!("{name}={value} is not a number in {line}"));
    assert!(n.is_finite(), "{name}={value} in {line}");
    n
}
