//! Following a lease's changes of status. Also compiled into
//! `global_process.rs`, a binary of its own, with `#[path]`.

/// The next change a `LeaseChanges` (`$changes`) receives, which must match
/// `$pattern`; panics naming `$what` if none comes within 30 s (a bound on a
/// hang, not a timing assertion).
macro_rules! next_change {
    ($changes:expr, $what:expr, $pattern:pat) => {{
        let what: &str = $what;
        let status = $changes
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|| panic!("not told: {what}"));
        assert!(matches!(status, $pattern), "{what}: {status}");
        status
    }};
}

pub(crate) use next_change;
