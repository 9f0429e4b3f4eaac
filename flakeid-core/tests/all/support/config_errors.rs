//! Checks of the configuration errors the process-wide generator's variables
//! produce. Also compiled into `global_process.rs`, a binary of its own, with
//! `#[path]`.

use flakeid_core::ConfigError;

/// The variable and value an `InvalidEnv` error names; panics on any other error.
pub(crate) fn invalid_var(err: ConfigError) -> (&'static str, String) {
    match err {
        ConfigError::InvalidEnv { var, value, .. } => (var, value),
        other => panic!("expected InvalidEnv, got {other:?}"),
    }
}

/// Runs `fail`, whose error's message must be `expected(now)` for a clock
/// reading `now` (Unix ms) taken during the call, and returns the error.
pub(crate) fn fails_with_clock(
    fail: impl FnOnce() -> ConfigError,
    expected: impl Fn(u64) -> String,
) -> ConfigError {
    let before = unix_millis();
    let err = fail();
    let after = unix_millis();
    let msg = err.to_string();
    let ok = (before..=after).any(|now| msg == expected(now));
    assert!(ok, "{msg}\nexpected: {}", expected(before));
    err
}

fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}
