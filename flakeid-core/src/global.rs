//! The process-wide default generator, used by `UserId::generate()`.
//!
//! Every ID type declared with `#[flake_id]` (without its own `generator =`
//! option) takes its IDs from [`generator()`]. Configure it once at start-up,
//! either in code with [`init`] or from the environment with
//! [`init_from_env`]; if neither was called, the first [`generator()`] call
//! configures it from the environment.
//!
//! # Environment
//!
//! | variable | meaning | if unset |
//! |---|---|---|
//! | `FLAKEID_NODE_ID` | this process's node ID, decimal, `0..=max_node` of the layout | error, unless development mode |
//! | `FLAKEID_LAYOUT` | preset name, one of [`presets::ALL`]: `twitter`, `discord`, `instagram`, `sonyflake`, `tsid`, `lsid`, `js_safe`, `js_safe_seconds`, `nonsequential` (`-` may stand for `_`) | `twitter` |
//! | `FLAKEID_EPOCH` | the layout's epoch: RFC 3339 (`2024-01-01T00:00:00Z`, offsets allowed) or Unix milliseconds | the preset's epoch |
//! | `FLAKEID_DEV_MODE` | `1`/`true`: development mode, a missing node ID becomes a random one (announced on stderr) | off |
//!
//! Every mistake is an error at start-up naming the variable and its value:
//! an unknown layout, an unparsable number or date, a node ID beyond the
//! layout's range, an epoch in the future, a missing node ID outside
//! development mode. Empty values count as unset.
//!
//! A node ID must be unique among all processes writing IDs of the same
//! layout into the same tables at the same time; two processes sharing a
//! node ID can issue the same ID.
//!
//! ```
//! use flakeid_core::{global, layout::presets, GeneratorBuilder};
//!
//! let generator = global::init(GeneratorBuilder::new(presets::twitter(), 17))?;
//! assert_eq!(generator.node(), 17);
//! // Later, anywhere in the process:
//! let id = global::generator()?.next_id()?;
//! assert!(id > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::layout::presets;
use crate::{BitLayout, ConfigError, Generator, GeneratorBuilder};

/// The environment variable holding the node ID.
pub const NODE_ID_VAR: &str = "FLAKEID_NODE_ID";
/// The environment variable holding the layout's epoch.
pub const EPOCH_VAR: &str = "FLAKEID_EPOCH";
/// The environment variable holding the layout preset's name.
pub const LAYOUT_VAR: &str = "FLAKEID_LAYOUT";
/// The environment variable that turns on development mode.
pub const DEV_MODE_VAR: &str = "FLAKEID_DEV_MODE";

static GLOBAL: OnceLock<Generator> = OnceLock::new();
/// The outcome of configuring from the environment lazily, once.
static LAZY_ERROR: Mutex<Option<ConfigError>> = Mutex::new(None);

/// Installs the process-wide generator built from `builder`.
///
/// Calling `init` again with an identical configuration (layout, node,
/// policies, catch-up window) returns the generator already installed, so
/// that several start-up paths (or tests) may each call it; the running
/// generator keeps its state. A different configuration is an error: IDs
/// already issued by the first generator must not be re-issued by a second.
///
/// `init` may replace a failed lazy configuration from the environment
/// (a [`generator()`] call that returned an error).
///
/// # Errors
/// Any error of [`GeneratorBuilder::build`], or
/// [`ConfigError::AlreadyInitialized`] when a generator with a different
/// configuration is installed.
///
/// ```
/// use flakeid_core::{global, layout::presets, ConfigError, GeneratorBuilder};
///
/// let first = global::init(GeneratorBuilder::new(presets::twitter(), 3))?;
/// let again = global::init(GeneratorBuilder::new(presets::twitter(), 3))?;
/// assert!(std::ptr::eq(first, again));
/// assert_eq!(
///     global::init(GeneratorBuilder::new(presets::twitter(), 4)).unwrap_err(),
///     ConfigError::AlreadyInitialized,
/// );
/// # Ok::<(), ConfigError>(())
/// ```
pub fn init(builder: GeneratorBuilder) -> Result<&'static Generator, ConfigError> {
    let candidate = builder.build()?;
    install(candidate)
}

fn install(candidate: Generator) -> Result<&'static Generator, ConfigError> {
    let rejected = GLOBAL.set(candidate).err();
    match (GLOBAL.get(), rejected) {
        (Some(installed), None) => Ok(installed),
        (Some(installed), Some(candidate)) if installed.same_config(&candidate) => Ok(installed),
        _ => Err(ConfigError::AlreadyInitialized),
    }
}

/// Installs the process-wide generator configured from the environment
/// (see the [module documentation](self)).
///
/// # Errors
/// As [`builder_from_vars`] and [`init`].
pub fn init_from_env() -> Result<&'static Generator, ConfigError> {
    init(builder_from_env()?)
}

/// The process-wide generator.
///
/// If neither [`init`] nor [`init_from_env`] was called, the first call
/// configures it from the environment. If that fails, this and every later
/// call return the same error (until [`init`] installs a generator).
///
/// # Errors
/// The configuration error, naming the variable and value at fault.
pub fn generator() -> Result<&'static Generator, ConfigError> {
    if let Some(g) = GLOBAL.get() {
        return Ok(g);
    }
    lazy_generator()
}

/// The process-wide generator if one is installed, without configuring
/// it: no environment is read and nothing is printed. ID types of the
/// process-wide generator check values read from a database with it (see
/// [`FlakeId::validator`](crate::FlakeId::validator)).
///
/// ```
/// use flakeid_core::{global, layout::presets, GeneratorBuilder};
///
/// let installed = global::init(GeneratorBuilder::new(presets::twitter(), 5))?;
/// assert!(global::get().is_some_and(|g| std::ptr::eq(g, installed)));
/// # Ok::<(), flakeid_core::ConfigError>(())
/// ```
pub fn get() -> Option<&'static Generator> {
    GLOBAL.get()
}

#[cold]
fn lazy_generator() -> Result<&'static Generator, ConfigError> {
    // The lock makes concurrent first calls configure (and report) once.
    let mut error = LAZY_ERROR.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(g) = GLOBAL.get() {
        return Ok(g);
    }
    if let Some(e) = error.as_ref() {
        return Err(e.clone());
    }
    match builder_from_env().and_then(GeneratorBuilder::build) {
        Ok(g) => install(g),
        Err(e) => {
            *error = Some(e.clone());
            Err(e)
        }
    }
}

/// Reads the configuration from the process environment; see [`builder_from_vars`].
///
/// # Errors
/// As [`builder_from_vars`].
pub fn builder_from_env() -> Result<GeneratorBuilder, ConfigError> {
    builder_from_vars(|name| match std::env::var(name) {
        Ok(v) => Some(v),
        Err(std::env::VarError::NotPresent) => None,
        // Reported as an invalid value by the parser, with the lossy text.
        Err(std::env::VarError::NotUnicode(v)) => Some(v.to_string_lossy().into_owned()),
    })
}

/// Builds a generator configuration from variables looked up with `lookup`
/// (the process environment for [`builder_from_env`]; a map in tests).
///
/// The node ID is checked against the layout by
/// [`GeneratorBuilder::build`] (or [`init`]); everything else here.
///
/// # Errors
/// [`ConfigError::InvalidEnv`] naming the variable and value for an unknown
/// layout, an unparsable node ID, epoch or development flag;
/// [`ConfigError::MissingNodeId`] without a node ID outside development
/// mode; [`ConfigError::Layout`] when the epoch does not fit the layout.
///
/// ```
/// use flakeid_core::{global, ConfigError};
///
/// let vars = |name: &str| match name {
///     "FLAKEID_NODE_ID" => Some("12".to_string()),
///     "FLAKEID_LAYOUT" => Some("discord".to_string()),
///     _ => None,
/// };
/// let generator = global::builder_from_vars(vars)?.build()?;
/// assert_eq!(generator.node(), 12);
///
/// let missing = global::builder_from_vars(|_| None).unwrap_err();
/// assert_eq!(missing, ConfigError::MissingNodeId);
/// # Ok::<(), ConfigError>(())
/// ```
pub fn builder_from_vars<F>(lookup: F) -> Result<GeneratorBuilder, ConfigError>
where
    F: Fn(&str) -> Option<String>,
{
    let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());

    let dev_mode = match get(DEV_MODE_VAR) {
        None => false,
        Some(v) => match v.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => true,
            "0" | "false" | "no" | "off" => false,
            _ => return Err(invalid(DEV_MODE_VAR, &v, "expected 1/true or 0/false")),
        },
    };

    let mut layout = match get(LAYOUT_VAR) {
        None => presets::twitter(),
        Some(v) => preset(&v).ok_or_else(|| {
            let names: Vec<&str> = presets::ALL.iter().map(|(n, _)| *n).collect();
            invalid(
                LAYOUT_VAR,
                &v,
                &format!("expected one of {}", names.join(", ")),
            )
        })?,
    };

    if let Some(v) = get(EPOCH_VAR) {
        let epoch = parse_epoch(v.trim()).map_err(|reason| invalid(EPOCH_VAR, &v, reason))?;
        layout = with_epoch(&layout, epoch)?;
    }

    let node = match get(NODE_ID_VAR) {
        Some(v) => v
            .trim()
            .parse::<u64>()
            .map_err(|_| invalid(NODE_ID_VAR, &v, "expected a non-negative decimal integer"))?,
        None if dev_mode => {
            let node = random_below_or_eq(layout.max_node());
            eprintln!(
                "flakeid: {DEV_MODE_VAR} is on and {NODE_ID_VAR} is unset: using random node ID {node} \
                 (development only; set {NODE_ID_VAR} in production)"
            );
            node
        }
        None => return Err(ConfigError::MissingNodeId),
    };
    Ok(GeneratorBuilder::new(layout, node))
}

fn invalid(var: &'static str, value: &str, reason: &str) -> ConfigError {
    ConfigError::InvalidEnv {
        var,
        value: value.to_owned(),
        reason: reason.to_owned(),
    }
}

/// A preset by name; `-` and `_` are interchangeable, case is ignored.
fn preset(name: &str) -> Option<BitLayout> {
    let key = name.trim().to_ascii_lowercase().replace('-', "_");
    presets::ALL
        .iter()
        .find(|(n, _)| *n == key)
        .map(|(_, make)| make())
}

fn with_epoch(layout: &BitLayout, epoch_millis: u64) -> Result<BitLayout, ConfigError> {
    Ok(BitLayout::builder()
        .time_bits(layout.time_bits() as u8)
        .tick(layout.tick())
        .epoch_millis(epoch_millis)
        .node_fields(layout.node_fields().iter().cloned())
        .sequence_bits(layout.sequence_bits() as u8)
        .order(layout.order())
        .domain(layout.domain())
        .build()?)
}

fn random_below_or_eq(max: u64) -> u64 {
    let r = RandomState::new().hash_one(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    if max == u64::MAX { r } else { r % (max + 1) }
}

/// Parses Unix milliseconds or an RFC 3339 date-time into Unix milliseconds.
fn parse_epoch(s: &str) -> Result<u64, &'static str> {
    const EXPECTED: &str =
        "expected Unix milliseconds or an RFC 3339 date-time such as 2024-01-01T00:00:00Z";
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<u64>().map_err(|_| EXPECTED);
    }
    parse_rfc3339(s).ok_or(EXPECTED)
}

fn parse_rfc3339(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let num = |range: core::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        core::str::from_utf8(part).ok()?.parse().ok()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let digits = &b[start..i];
        if digits.is_empty() {
            return None;
        }
        // Milliseconds are the resolution; finer digits are truncated.
        for k in 0..3 {
            millis = millis * 10 + digits.get(k).map_or(0, |d| i64::from(d - b'0'));
        }
    }
    let offset_minutes = match b.get(i..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let digits = [*h1, *h2, *m1, *m2];
            if !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let h = i64::from(h1 - b'0') * 10 + i64::from(h2 - b'0');
            let m = i64::from(m1 - b'0') * 10 + i64::from(m2 - b'0');
            if h > 23 || m > 59 {
                return None;
            }
            let total = h * 60 + m;
            if *sign == b'-' { -total } else { total }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    let ms = secs.checked_mul(1_000)?.checked_add(millis)?;
    u64::try_from(ms).ok()
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_examples() {
        assert_eq!(parse_epoch("2024-01-01T00:00:00Z"), Ok(1_704_067_200_000));
        assert_eq!(
            parse_epoch("2010-11-04T01:42:54.657Z"),
            Ok(1_288_834_974_657)
        );
        assert_eq!(
            parse_epoch("2015-01-01T01:00:00+01:00"),
            Ok(1_420_070_400_000)
        );
        assert_eq!(
            parse_epoch("2016-02-29T00:00:00.123456Z"),
            Ok(1_456_704_000_123)
        );
        assert_eq!(parse_epoch("1288834974657"), Ok(1_288_834_974_657));
        for bad in [
            "2023-02-29T00:00:00Z",
            "2024-01-01",
            "2024-01-01T00:00:00",
            "2024-13-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "2024-01-01T00:00:00.Z",
            "-5",
            "12ms",
        ] {
            assert!(parse_epoch(bad).is_err(), "{bad}");
        }
    }
}
