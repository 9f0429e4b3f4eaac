//! Reading the machine-readable lines the benchmarks print
//! (`RESULT key=value …`), for the smoke tests of their quick modes.

use std::collections::BTreeMap;

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
