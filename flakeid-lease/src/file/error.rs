//! [`HighWaterFileError`]: what opening, writing or releasing a local
//! high-water file can fail with.

use thiserror::Error;

use flakeid_core::ConfigError;

/// A local high-water file could not be read, written or locked.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{HighWaterFileError, HighWaterFileOptions};
///
/// let dir = std::env::temp_dir().join(format!("flakeid-doc-hw-error-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("node-3.hw");
/// let first = HighWaterFileOptions::new(&path).open(presets::twitter(), 3)?;
/// // A second user of the file, in this process or another, is refused.
/// let e = HighWaterFileOptions::new(&path).open(presets::twitter(), 3).unwrap_err();
/// assert!(matches!(e, HighWaterFileError::Locked { .. }));
/// // Written less often than its lead, the ceiling would be reached between writes.
/// let slow = HighWaterFileOptions::new(&path).every(Duration::from_secs(1));
/// let e = slow.open(presets::twitter(), 3).unwrap_err();
/// assert!(matches!(e, HighWaterFileError::InvalidOption { option: "every", .. }));
/// drop(first);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HighWaterFileError {
    /// The file or its lock could not be opened, read or written.
    #[error("high-water file {path}: cannot {action}: {message}")]
    Io {
        /// The path.
        path: String,
        /// What was being done (`"read"`, `"write"`, `"lock"` …).
        action: &'static str,
        /// The operating system's message.
        message: String,
    },
    /// The file does not hold a high-water mark.
    #[error(
        "high-water file {path} holds {content:?}, not a high-water mark (Unix milliseconds, digits only)"
    )]
    Parse {
        /// The path.
        path: String,
        /// The content (shortened to its first 64 characters).
        content: String,
    },
    /// Another process holds the file's lock: two processes with one file
    /// (one node ID) would issue the same IDs.
    #[error(
        "high-water file {path} is in use by another process (it holds {lock_path}); give each \
         process its own node ID and file"
    )]
    Locked {
        /// The path.
        path: String,
        /// The lock file.
        lock_path: String,
    },
    /// An option has a value that cannot work.
    #[error("high-water file option `{option}` = {value} is invalid: {reason}")]
    InvalidOption {
        /// The option (the method's name).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `release` was given a generator built from another file node.
    #[error(
        "the high-water file {path} cannot be released with a generator built from another node source"
    )]
    NotThisNode {
        /// The path.
        path: String,
    },
    /// The generator could not be configured.
    #[error(transparent)]
    Config(#[from] ConfigError),
}
