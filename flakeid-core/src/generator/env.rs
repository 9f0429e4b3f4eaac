//! A generator configured by `FLAKEID_*` variables (see
//! [`global`](crate::global) for the variables and their errors).

use std::hash::{BuildHasher, RandomState};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Generator, GeneratorBuilder};
use crate::encoding::parse_rfc3339;
use crate::error::ConfigError;
use crate::layout::{BitLayout, presets};

/// The environment variable holding the node ID.
pub(crate) const NODE_ID_VAR: &str = "FLAKEID_NODE_ID";

/// A configuration read from variables, with the values it came from.
pub(crate) struct EnvConfig {
    pub(crate) builder: GeneratorBuilder,
    sources: Sources,
}

impl EnvConfig {
    /// The configuration of the process environment.
    pub(crate) fn from_env() -> Result<EnvConfig, ConfigError> {
        Self::read(env_var)
    }

    /// `e`, an error of building the configured generator, naming the
    /// variable at fault. The configuration checked the epoch against the
    /// wall clock; the generator's own clock may read a little earlier, so
    /// its errors are attributed to the variables too.
    pub(crate) fn attribute(&self, e: ConfigError) -> ConfigError {
        match e {
            ConfigError::EpochInFuture {
                epoch_millis,
                now_millis,
            } => match &self.sources.epoch {
                Some(value) => epoch_in_future(value, epoch_millis, now_millis),
                None => e,
            },
            ConfigError::LayoutExpired {
                end_millis,
                now_millis,
            } => self.sources.layout_expired(end_millis, now_millis),
            e => e,
        }
    }

    fn read<F>(lookup: F) -> Result<EnvConfig, ConfigError>
    where
        F: Fn(&str) -> Option<String>,
    {
        Self::read_at(lookup, wall_clock_millis())
    }

    /// Reads the configuration as if the wall clock read `now` (Unix ms).
    fn read_at<F>(lookup: F, now: u64) -> Result<EnvConfig, ConfigError>
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

        let layout_value = get(LAYOUT_VAR);
        let (layout_name, mut layout) = match &layout_value {
            None => ("twitter", presets::twitter()),
            Some(v) => preset(v).ok_or_else(|| {
                let names: Vec<&str> = presets::ALL.iter().map(|(n, _)| *n).collect();
                invalid(
                    LAYOUT_VAR,
                    v,
                    &format!("expected one of {}", names.join(", ")),
                )
            })?,
        };

        let epoch = get(EPOCH_VAR);
        if let Some(v) = &epoch {
            let epoch_millis =
                parse_epoch(v.trim()).map_err(|reason| invalid(EPOCH_VAR, v, reason))?;
            if epoch_millis > now {
                return Err(epoch_in_future(v, epoch_millis, now));
            }
            layout = layout.with_epoch_millis(epoch_millis).map_err(|e| {
                invalid(
                    EPOCH_VAR,
                    v,
                    &format!("does not fit the {layout_name} layout: {e}"),
                )
            })?;
        }
        let sources = Sources {
            layout_name,
            layout: layout_value,
            epoch,
        };
        if now >= layout.end_millis() {
            return Err(sources.layout_expired(layout.end_millis(), now));
        }

        let node = match get(NODE_ID_VAR) {
            Some(v) => parse_node(&v, layout_name, layout.max_node())?,
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
        Ok(EnvConfig {
            builder: Generator::builder(layout, node),
            sources,
        })
    }
}

/// The environment variable holding the layout's epoch.
const EPOCH_VAR: &str = "FLAKEID_EPOCH";
/// The environment variable holding the layout preset's name.
const LAYOUT_VAR: &str = "FLAKEID_LAYOUT";
/// The environment variable that turns on development mode.
const DEV_MODE_VAR: &str = "FLAKEID_DEV_MODE";

/// Configuring the process-wide generator from `FLAKEID_*` variables.
impl GeneratorBuilder {
    /// Builds a generator configuration from variables looked up with `lookup`
    /// (the process environment for [`init_from_env`](crate::global::init_from_env); a map in tests).
    ///
    /// Everything is checked here, so that each mistake names its variable: the
    /// node ID against the layout's range, the epoch against the wall clock
    /// (`SystemTime::now`). [`GeneratorBuilder::build`] checks the epoch again
    /// with the generator's clock and reports [`ConfigError::EpochInFuture`]
    /// should that clock read earlier; [`init_from_env`](crate::global::init_from_env) and [`generator()`](crate::global::generator)
    /// report that as [`ConfigError::InvalidEnv`] naming `FLAKEID_EPOCH` too.
    ///
    /// # Errors
    /// [`ConfigError::InvalidEnv`] naming the variable and value for an unknown
    /// layout, a development flag other than `1`/`true`/`yes`/`on` or
    /// `0`/`false`/`no`/`off`, a node ID that is not ASCII digits or is beyond
    /// the layout's range, an unparsable epoch, an epoch in the future, or an
    /// epoch (or, without one, a preset) whose time field has run out;
    /// [`ConfigError::MissingNodeId`] without a node ID outside development
    /// mode; [`ConfigError::LayoutExpired`] only when no variable chose the
    /// layout and the default preset's time field has run out.
    ///
    /// ```
    /// use flakeid_core::{ConfigError, GeneratorBuilder};
    ///
    /// let vars = |name: &str| match name {
    ///     "FLAKEID_NODE_ID" => Some("12".to_string()),
    ///     "FLAKEID_LAYOUT" => Some("discord".to_string()),
    ///     _ => None,
    /// };
    /// let generator = GeneratorBuilder::from_vars(vars)?.build()?;
    /// assert_eq!(generator.node(), 12);
    ///
    /// let missing = GeneratorBuilder::from_vars(|_| None).unwrap_err();
    /// assert_eq!(missing, ConfigError::MissingNodeId);
    /// # Ok::<(), ConfigError>(())
    /// ```
    pub fn from_vars<F>(lookup: F) -> Result<GeneratorBuilder, ConfigError>
    where
        F: Fn(&str) -> Option<String>,
    {
        EnvConfig::read(lookup).map(|config| config.builder)
    }
}

/// The variables that chose the layout's time field, to name in errors.
struct Sources {
    /// The preset's name in [`presets::ALL`].
    layout_name: &'static str,
    /// `FLAKEID_LAYOUT` as found, when set.
    layout: Option<String>,
    /// `FLAKEID_EPOCH` as found, when set.
    epoch: Option<String>,
}

impl Sources {
    /// The layout's time field ran out at `end_millis`, before `now_millis`:
    /// the epoch is at fault if one was given, otherwise the chosen preset.
    /// With neither set no variable is at fault (the default preset ran out).
    fn layout_expired(&self, end_millis: u64, now_millis: u64) -> ConfigError {
        let name = self.layout_name;
        let clock = format!("the clock reads {now_millis} ms since the Unix epoch");
        match (&self.epoch, &self.layout) {
            (Some(epoch), _) => invalid(
                EPOCH_VAR,
                epoch,
                &format!(
                    "the {name} layout's time field, counted from this epoch, ran out at \
                     {end_millis} ms: {clock}"
                ),
            ),
            (None, Some(layout)) => invalid(
                LAYOUT_VAR,
                layout,
                &format!(
                    "the {name} layout's time field ran out at {end_millis} ms: {clock}; \
                     set {EPOCH_VAR} to a later epoch or choose another layout"
                ),
            ),
            (None, None) => ConfigError::LayoutExpired {
                end_millis,
                now_millis,
            },
        }
    }
}

fn env_var(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(v) => Some(v),
        Err(std::env::VarError::NotPresent) => None,
        // Reported as an invalid value by the parser, with the lossy text.
        Err(std::env::VarError::NotUnicode(v)) => Some(v.to_string_lossy().into_owned()),
    }
}

/// A node ID: ASCII digits only (surrounding whitespace ignored), within
/// `0..=max`. `u64::from_str` alone would also take a leading `+`.
fn parse_node(value: &str, layout_name: &str, max: u64) -> Result<u64, ConfigError> {
    let digits = value.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(
            NODE_ID_VAR,
            value,
            "expected plain decimal digits 0-9 (no sign, no other characters)",
        ));
    }
    match digits.parse::<u64>() {
        Ok(node) if node <= max => Ok(node),
        // Only digits: the parse fails only above u64::MAX, which is out of range too.
        _ => Err(invalid(
            NODE_ID_VAR,
            value,
            &format!("out of range: the {layout_name} layout allows node IDs 0..={max}"),
        )),
    }
}

fn epoch_in_future(value: &str, epoch_millis: u64, now_millis: u64) -> ConfigError {
    invalid(
        EPOCH_VAR,
        value,
        &format!(
            "epoch {epoch_millis} ms is in the future: the clock reads {now_millis} ms since the Unix epoch"
        ),
    )
}

fn wall_clock_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn invalid(var: &'static str, value: &str, reason: &str) -> ConfigError {
    ConfigError::InvalidEnv {
        var,
        value: value.to_owned(),
        reason: reason.to_owned(),
    }
}

/// A preset and its canonical name; `-` and `_` are interchangeable, case is ignored.
fn preset(name: &str) -> Option<(&'static str, BitLayout)> {
    let key = name.trim().to_ascii_lowercase().replace('-', "_");
    presets::ALL
        .iter()
        .find(|(n, _)| *n == key)
        .map(|(n, make)| (*n, make()))
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

#[cfg(test)]
#[path = "../../tests/unit/generator_env.rs"]
mod tests;
