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
//! variable and its value, from [`GeneratorBuilder::from_vars`],
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
//!     flakeid_core::GeneratorBuilder::from_vars(vars).unwrap_err().to_string(),
//!     r#"FLAKEID_NODE_ID="5000" is invalid: out of range: the twitter layout allows node IDs 0..=1023"#,
//! );
//! ```
//!
//! A node ID must be unique among all processes writing IDs of the same
//! layout into the same tables at the same time; two processes sharing a
//! node ID can issue the same ID.
//!
//! ```
//! use flakeid_core::{global, Generator};
//! use flakeid_core::layout::presets;
//!
//! let generator = global::init(Generator::builder(presets::twitter(), 17))?;
//! assert_eq!(generator.node(), 17);
//! // Later, anywhere in the process:
//! let id = global::generator()?.next_id()?;
//! assert!(id > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod process;

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

pub use process::ProcessGenerator;

use crate::clock::Clock;
use crate::error::ConfigError;
use crate::generator::{EnvConfig, GeneratorBuilder, NODE_ID_VAR};
use crate::layout::{BitLayout, presets};
use crate::source::{GlobalScheme, IdSource, NodeConfig};

/// Installs the process-wide generator built from `builder`, with any
/// clock (a [`ManualClock`](crate::ManualClock) lets tests drive the IDs of
/// `#[flake_id]` types).
///
/// A builder from a node lease (a lease's `generator_builder`, in the
/// `flakeid-lease` crate)
/// makes the generator the lease's: when the lease is lost, the lease
/// moves it to a new node (see [`ProcessGenerator`]).
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
/// use flakeid_core::{global, ConfigError, Generator};
/// use flakeid_core::layout::presets;
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
pub fn init<C: Clock>(
    builder: GeneratorBuilder<BitLayout, C>,
) -> Result<&'static ProcessGenerator, ConfigError> {
    install(ProcessGenerator::build(builder)?, None)
}

/// Installs the process-wide generator configured from the environment
/// (see the [module documentation](self)).
///
/// # Errors
/// As [`GeneratorBuilder::from_vars`] and [`init`].
///
/// ```
/// use flakeid_core::global;
///
/// // SAFETY: no other thread reads or writes the environment here.
/// unsafe {
///     std::env::set_var("FLAKEID_NODE_ID", "42");
///     std::env::set_var("FLAKEID_LAYOUT", "discord");
///     std::env::remove_var("FLAKEID_EPOCH"); // the preset's epoch
///     # std::env::remove_var("FLAKEID_DEV_MODE");
/// }
/// let generator = global::init_from_env()?;
/// assert_eq!(generator.node(), 42);
/// assert_eq!(*generator.layout(), flakeid_core::layout::presets::discord());
/// # Ok::<(), flakeid_core::ConfigError>(())
/// ```
pub fn init_from_env() -> Result<&'static ProcessGenerator, ConfigError> {
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
///
/// ```
/// use flakeid_core::global;
///
/// // SAFETY: no other thread reads or writes the environment here.
/// unsafe {
///     std::env::set_var("FLAKEID_NODE_ID", "7");
///     # for var in ["FLAKEID_LAYOUT", "FLAKEID_EPOCH", "FLAKEID_DEV_MODE"] { std::env::remove_var(var) }
/// }
/// // Neither `init` nor `init_from_env` ran: the first call reads the environment.
/// let generator = global::generator()?;
/// assert_eq!(generator.node(), 7);
/// assert!(std::ptr::eq(generator, global::generator()?)); // configured once
/// assert!(generator.next_id()? > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generator() -> Result<&'static ProcessGenerator, ConfigError> {
    process().map(|p| &*p.generator)
}

/// The process-wide generator if one is installed, without configuring
/// it: no environment is read and nothing is printed.
///
/// ```
/// use flakeid_core::{global, Generator};
/// use flakeid_core::layout::presets;
///
/// let installed = global::init(Generator::builder(presets::twitter(), 5))?;
/// assert!(global::get().is_some_and(|g| std::ptr::eq(g, installed)));
/// # Ok::<(), flakeid_core::ConfigError>(())
/// ```
pub fn get() -> Option<&'static ProcessGenerator> {
    PROCESS.get().map(|p| &*p.generator)
}

/// The process-wide source of `scheme`'s IDs: the process-wide generator
/// when `scheme` is its layout, otherwise a source built once from the
/// process's node ID and policies (see [`GlobalScheme`]) and
/// shared by every caller with an equal scheme.
///
/// ```
/// use flakeid_core::{global, Generator, IdSource};
/// use flakeid_core::layout::presets;
///
/// global::init(Generator::builder(presets::twitter(), 5))?;
/// static SONYFLAKE: std::sync::LazyLock<flakeid_core::layout::BitLayout> =
///     std::sync::LazyLock::new(presets::sonyflake);
/// let source = global::source_for(&*SONYFLAKE)?;
/// let id = source.next_id()?;
/// assert_eq!(presets::sonyflake().decompose(id).node, 5);
/// assert!(std::ptr::eq(source, global::source_for(&*SONYFLAKE)?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`generator()`], and the scheme's
/// error (a node ID beyond its range names the variable it came from).
pub fn source_for(scheme: &'static dyn GlobalScheme) -> Result<&'static dyn IdSource, ConfigError> {
    let process = process()?;
    if scheme.same_scheme(process.generator.layout()) {
        return Ok(&*process.generator);
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

/// The installed configuration: the process-wide generator and the
/// sources built for other schemes from its node ID and policies.
struct Process {
    generator: Arc<ProcessGenerator>,
    config: NodeConfig,
    /// Sources of other schemes, built on first use; never removed, so the
    /// references handed out live as long as the process.
    sources: Mutex<Vec<(&'static dyn GlobalScheme, &'static dyn IdSource)>>,
}

static PROCESS: OnceLock<Process> = OnceLock::new();
/// The outcome of configuring from the environment lazily, once.
static LAZY_ERROR: Mutex<Option<ConfigError>> = Mutex::new(None);

fn install(
    candidate: ProcessGenerator,
    node_var: Option<&'static str>,
) -> Result<&'static ProcessGenerator, ConfigError> {
    let config = candidate.node_config(node_var);
    let rejected = PROCESS
        .set(Process {
            generator: Arc::new(candidate),
            config,
            sources: Mutex::new(Vec::new()),
        })
        .err();
    match (PROCESS.get(), rejected) {
        (Some(installed), None) => {
            installed.generator.attach_source();
            Ok(&*installed.generator)
        }
        (Some(installed), Some(candidate))
            if installed.generator.same_config(&candidate.generator) =>
        {
            Ok(&*installed.generator)
        }
        _ => Err(ConfigError::AlreadyInitialized),
    }
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

/// The process-wide generator configured by the environment, its errors
/// naming the variables at fault.
fn build_from_env() -> Result<ProcessGenerator, ConfigError> {
    let config = EnvConfig::from_env()?;
    ProcessGenerator::build(config.builder.clone()).map_err(|e| config.attribute(e))
}
