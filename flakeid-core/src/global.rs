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
//! | `FLAKEID_NODE_ID` | this process's node ID: ASCII digits `0`-`9` only (no sign; surrounding whitespace is ignored), `0..=max_node` of the layout | error, unless development mode |
//! | `FLAKEID_LAYOUT` | preset name, one of [`presets::ALL`]: `twitter`, `discord`, `instagram`, `sonyflake`, `tsid`, `lsid`, `js_safe`, `js_safe_seconds`, `nonsequential` (`-` may stand for `_`) | `twitter` |
//! | `FLAKEID_EPOCH` | the layout's epoch: RFC 3339 (`2024-01-01T00:00:00Z`, offsets allowed) or Unix milliseconds; not in the future, and not so early that the layout's time field has already run out | the preset's epoch |
//! | `FLAKEID_DEV_MODE` | `1`/`true`: development mode, a missing node ID becomes a random one (announced on stderr) | off |
//!
//! Every mistake is a [`ConfigError::InvalidEnv`] at start-up naming the
//! variable and its value, from [`builder_from_vars`], [`builder_from_env`],
//! [`init_from_env`] and a lazy [`generator()`] alike: an unknown layout or
//! development flag, an unparsable date or number, a node ID that is not
//! plain digits or is beyond the layout's range (the message names the
//! layout and its range), an epoch later than the wall clock or one from
//! which the layout's time field has already run out (`FLAKEID_LAYOUT` is
//! named instead when no epoch is given). A missing node ID outside
//! development mode is [`ConfigError::MissingNodeId`]. Empty values count
//! as unset.
//!
//! ```
//! use flakeid_core::global;
//!
//! let vars = |name: &str| match name {
//!     "FLAKEID_NODE_ID" => Some("5000".to_string()),
//!     _ => None,
//! };
//! assert_eq!(
//!     global::builder_from_vars(vars).unwrap_err().to_string(),
//!     r#"FLAKEID_NODE_ID="5000" is invalid: out of range: the twitter layout allows node IDs 0..=1023"#,
//! );
//! ```
//!
//! A node ID must be unique among all processes writing IDs of the same
//! layout into the same tables at the same time; two processes sharing a
//! node ID can issue the same ID.
//!
//! ```
//! use flakeid_core::{global, layout::presets, Generator};
//!
//! let generator = global::init(Generator::builder(presets::twitter(), 17))?;
//! assert_eq!(generator.node(), 17);
//! // Later, anywhere in the process:
//! let id = global::generator()?.next_id()?;
//! assert!(id > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::decimal_id::{AnyGeneratorIds, GeneratorIdSource};
use crate::layout::presets;
use crate::source::{DecodeLayout, GlobalScheme};
use crate::{
    BitLayout, ClockRegression, ConfigError, Generator, GeneratorBuilder, IdSource,
    SequenceExhaustion,
};

/// The environment variable holding the node ID.
pub const NODE_ID_VAR: &str = "FLAKEID_NODE_ID";
/// The environment variable holding the layout's epoch.
pub const EPOCH_VAR: &str = "FLAKEID_EPOCH";
/// The environment variable holding the layout preset's name.
pub const LAYOUT_VAR: &str = "FLAKEID_LAYOUT";
/// The environment variable that turns on development mode.
pub const DEV_MODE_VAR: &str = "FLAKEID_DEV_MODE";

/// The installed configuration: the process-wide generator and the
/// sources built for other schemes from its node ID and policies.
struct Process {
    generator: Generator,
    config: NodeConfig,
    /// Sources of other schemes, built on first use; never removed, so the
    /// references handed out live as long as the process.
    sources: Mutex<Vec<(&'static dyn GlobalScheme, &'static dyn IdSource)>>,
}

static PROCESS: OnceLock<Process> = OnceLock::new();
/// The outcome of configuring from the environment lazily, once.
static LAZY_ERROR: Mutex<Option<ConfigError>> = Mutex::new(None);
/// The counter DecimalId generator IDs come from (see [`init_generator_ids`]).
static GENERATOR_IDS: OnceLock<Box<dyn AnyGeneratorIds>> = OnceLock::new();

/// The process's node ID and generator policies: what every process-wide
/// source is built with (see [`GlobalScheme`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeConfig {
    node: u64,
    exhaustion: SequenceExhaustion,
    regression: ClockRegression,
    catch_up: Duration,
    /// The variable the node ID was read from, to name in errors.
    node_var: Option<&'static str>,
}

impl NodeConfig {
    fn of(generator: &Generator, node_var: Option<&'static str>) -> Self {
        NodeConfig {
            node: generator.node(),
            exhaustion: generator.sequence_exhaustion(),
            regression: generator.clock_regression(),
            catch_up: generator.catch_up_window(),
            node_var,
        }
    }

    /// This process's node ID.
    pub fn node(&self) -> u64 {
        self.node
    }

    /// A generator of `layout` for this node, with these policies. A node ID
    /// beyond the layout's range names the variable it came from.
    ///
    /// # Errors
    /// As [`GeneratorBuilder::build`].
    pub fn generator<L>(&self, layout: L) -> Result<Box<dyn IdSource>, ConfigError>
    where
        L: DecodeLayout,
    {
        let max = layout.max_node();
        let generator = Generator::builder(layout, self.node)
            .sequence_exhaustion(self.exhaustion)
            .clock_regression(self.regression)
            .catch_up_window(self.catch_up)
            .build()
            .map_err(|e| self.node_error(e, max))?;
        Ok(Box::new(generator))
    }

    /// `e`, naming the node ID's variable when the node is out of range.
    pub(crate) fn node_error(&self, e: ConfigError, max: u64) -> ConfigError {
        match (e, self.node_var) {
            (ConfigError::NodeOutOfRange { node, .. }, Some(var)) => invalid(
                var,
                &node.to_string(),
                &format!("out of range: an ID type's scheme allows node IDs 0..={max}"),
            ),
            (e, _) => e,
        }
    }
}

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
/// use flakeid_core::{global, layout::presets, ConfigError, Generator};
///
/// let first = global::init(Generator::builder(presets::twitter(), 3))?;
/// let again = global::init(Generator::builder(presets::twitter(), 3))?;
/// assert!(std::ptr::eq(first, again));
/// assert_eq!(
///     global::init(Generator::builder(presets::twitter(), 4)).unwrap_err(),
///     ConfigError::AlreadyInitialized,
/// );
/// # Ok::<(), ConfigError>(())
/// ```
pub fn init(builder: GeneratorBuilder) -> Result<&'static Generator, ConfigError> {
    let candidate = builder.build()?;
    install(candidate, None)
}

fn install(
    candidate: Generator,
    node_var: Option<&'static str>,
) -> Result<&'static Generator, ConfigError> {
    let config = NodeConfig::of(&candidate, node_var);
    let rejected = PROCESS
        .set(Process {
            generator: candidate,
            config,
            sources: Mutex::new(Vec::new()),
        })
        .err();
    match (PROCESS.get(), rejected) {
        (Some(installed), None) => Ok(&installed.generator),
        (Some(installed), Some(candidate))
            if installed.generator.same_config(&candidate.generator) =>
        {
            Ok(&installed.generator)
        }
        _ => Err(ConfigError::AlreadyInitialized),
    }
}

/// Installs the process-wide generator configured from the environment
/// (see the [module documentation](self)).
///
/// # Errors
/// As [`builder_from_vars`] and [`init`].
pub fn init_from_env() -> Result<&'static Generator, ConfigError> {
    install(build_from_env()?, Some(NODE_ID_VAR))
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
    process().map(|p| &p.generator)
}

/// The process-wide generator if one is installed, without configuring
/// it: no environment is read and nothing is printed.
///
/// ```
/// use flakeid_core::{global, layout::presets, Generator};
///
/// let installed = global::init(Generator::builder(presets::twitter(), 5))?;
/// assert!(global::get().is_some_and(|g| std::ptr::eq(g, installed)));
/// # Ok::<(), flakeid_core::ConfigError>(())
/// ```
pub fn get() -> Option<&'static Generator> {
    PROCESS.get().map(|p| &p.generator)
}

/// The process's node ID and policies (configuring from the environment
/// on first use, as [`generator()`] does).
///
/// # Errors
/// As [`generator()`].
pub fn node_config() -> Result<&'static NodeConfig, ConfigError> {
    process().map(|p| &p.config)
}

/// The process-wide source of `scheme`'s IDs: the process-wide generator
/// when `scheme` is its layout, otherwise a source built once from the
/// process's node ID and policies ([`GlobalScheme::build_source`]) and
/// shared by every caller with an equal scheme.
///
/// ```
/// use flakeid_core::{global, layout::presets, Generator, IdSource};
///
/// global::init(Generator::builder(presets::twitter(), 5))?;
/// static SONYFLAKE: std::sync::LazyLock<flakeid_core::BitLayout> =
///     std::sync::LazyLock::new(presets::sonyflake);
/// let source = global::source_for(&*SONYFLAKE)?;
/// let id = source.next_id()?;
/// assert_eq!(presets::sonyflake().decompose(id).node, 5);
/// assert!(std::ptr::eq(source, global::source_for(&*SONYFLAKE)?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`generator()`], and the scheme's [`GlobalScheme::build_source`]
/// error (a node ID beyond its range names the variable it came from).
pub fn source_for(scheme: &'static dyn GlobalScheme) -> Result<&'static dyn IdSource, ConfigError> {
    let process = process()?;
    if scheme.same_scheme(process.generator.layout()) {
        return Ok(&process.generator);
    }
    if process.generator.is_fenced() {
        // The lease covers one space; another scheme's IDs under this node
        // ID would not be fenced by it.
        return Err(ConfigError::LeasedForOneLayout {
            leased: presets::describe(process.generator.layout()),
        });
    }
    let mut sources = process
        .sources
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some((_, source)) = sources.iter().find(|(s, _)| s.same_scheme(scheme)) {
        return Ok(*source);
    }
    let source: &'static dyn IdSource = Box::leak(scheme.build_source(&process.config)?);
    sources.push((scheme, source));
    Ok(source)
}

/// Installs the counter that DecimalId generator IDs come from for ID
/// types declared with `#[flake_id(scheme = …)]` of a
/// [`DecimalIdScheme`](crate::decimal_id::DecimalIdScheme): a counter shared
/// by the whole system (see [`decimal_id`](crate::decimal_id)).
///
/// # Errors
/// [`ConfigError::AlreadyInitialized`] when one is installed already.
pub fn init_generator_ids(source: impl GeneratorIdSource + 'static) -> Result<(), ConfigError> {
    GENERATOR_IDS
        .set(Box::new(source))
        .map_err(|_| ConfigError::AlreadyInitialized)
}

/// The counter installed by [`init_generator_ids`].
pub(crate) fn generator_ids() -> Option<&'static dyn AnyGeneratorIds> {
    GENERATOR_IDS.get().map(|b| &**b)
}

fn process() -> Result<&'static Process, ConfigError> {
    match PROCESS.get() {
        Some(p) => Ok(p),
        None => lazy_process(),
    }
}

#[cold]
fn lazy_process() -> Result<&'static Process, ConfigError> {
    // The lock makes concurrent first calls configure (and report) once.
    let mut error = LAZY_ERROR.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = PROCESS.get() {
        return Ok(p);
    }
    if let Some(e) = error.as_ref() {
        return Err(e.clone());
    }
    match build_from_env().and_then(|g| install(g, Some(NODE_ID_VAR))) {
        Ok(_) => PROCESS.get().ok_or(ConfigError::AlreadyInitialized),
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
    EnvConfig::read(env_var).map(|config| config.builder)
}

fn env_var(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(v) => Some(v),
        Err(std::env::VarError::NotPresent) => None,
        // Reported as an invalid value by the parser, with the lossy text.
        Err(std::env::VarError::NotUnicode(v)) => Some(v.to_string_lossy().into_owned()),
    }
}

/// Builds the generator configured by the environment. The builder checked
/// the epoch against the wall clock; the generator's own clock may read a
/// little earlier, so its errors are attributed to the variables too.
fn build_from_env() -> Result<Generator, ConfigError> {
    let EnvConfig { builder, sources } = EnvConfig::read(env_var)?;
    builder.build().map_err(|e| match e {
        ConfigError::EpochInFuture {
            epoch_millis,
            now_millis,
        } => match &sources.epoch {
            Some(value) => epoch_in_future(value, epoch_millis, now_millis),
            None => e,
        },
        ConfigError::LayoutExpired {
            end_millis,
            now_millis,
        } => sources.layout_expired(end_millis, now_millis),
        e => e,
    })
}

/// Builds a generator configuration from variables looked up with `lookup`
/// (the process environment for [`builder_from_env`]; a map in tests).
///
/// Everything is checked here, so that each mistake names its variable: the
/// node ID against the layout's range, the epoch against the wall clock
/// (`SystemTime::now`). [`GeneratorBuilder::build`] checks the epoch again
/// with the generator's clock and reports [`ConfigError::EpochInFuture`]
/// should that clock read earlier; [`init_from_env`] and [`generator()`]
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
    EnvConfig::read(lookup).map(|config| config.builder)
}

/// A configuration read from variables, with the values it came from.
struct EnvConfig {
    builder: GeneratorBuilder,
    sources: Sources,
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

impl EnvConfig {
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

    fn read_at(vars: &[(&str, &str)], now: u64) -> Result<EnvConfig, ConfigError> {
        EnvConfig::read_at(
            |name| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            },
            now,
        )
    }

    #[test]
    fn a_preset_that_ran_out_names_the_layout_variable() {
        // Instagram's time field runs out at 2046-06-27T17:00:49.497Z.
        let end = presets::instagram().end_millis();
        let vars = [("FLAKEID_NODE_ID", "1"), ("FLAKEID_LAYOUT", "instagram")];
        assert!(read_at(&vars, end - 1).is_ok());
        let err = read_at(&vars, end).err().unwrap();
        assert_eq!(
            err.to_string(),
            format!(
                "FLAKEID_LAYOUT=\"instagram\" is invalid: the instagram layout's time field ran out \
                 at {end} ms: the clock reads {end} ms since the Unix epoch; set FLAKEID_EPOCH to a \
                 later epoch or choose another layout"
            )
        );
        // The default preset, chosen by no variable, reports the plain error.
        let end = presets::twitter().end_millis();
        let err = read_at(&[("FLAKEID_NODE_ID", "1")], end + 5).err().unwrap();
        assert_eq!(
            err,
            ConfigError::LayoutExpired {
                end_millis: end,
                now_millis: end + 5
            }
        );
    }

    #[test]
    fn an_epoch_whose_end_does_not_fit_names_the_epoch_variable() {
        let err = read_at(
            &[
                ("FLAKEID_NODE_ID", "1"),
                ("FLAKEID_EPOCH", "18446744073709551614"),
            ],
            u64::MAX,
        )
        .err()
        .unwrap();
        assert_eq!(
            err.to_string(),
            "FLAKEID_EPOCH=\"18446744073709551614\" is invalid: does not fit the twitter layout: \
             epoch 18446744073709551614 ms + 2^41 ticks of 1 ms is past the last representable time"
        );
    }

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
