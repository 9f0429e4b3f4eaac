//! Command-line values of the bench binaries.

use std::time::Duration;

use crate::BenchError;

/// The value `value` that followed `flag`, parsed; an error naming the flag
/// when it is missing or does not parse.
pub fn parse<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, BenchError> {
    let value = value.ok_or_else(|| BenchError::Argument(format!("{flag} needs a value")))?;
    value
        .parse()
        .map_err(|_| BenchError::Argument(format!("{flag}: cannot parse {value:?}")))
}

/// A duration given in (fractional) seconds after `flag`.
pub fn secs(flag: &str, value: Option<String>) -> Result<Duration, BenchError> {
    let s: f64 = parse(flag, value)?;
    Duration::try_from_secs_f64(s)
        .map_err(|_| BenchError::Argument(format!("{flag}: {s} is not a duration in seconds")))
}
