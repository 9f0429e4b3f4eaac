//! Helpers that several modules of this binary use. Also compiled into
//! `global_process.rs` (a binary of its own) with `#[path]`, for
//! `next_change!`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use flakeid_core::ManualClock;
use flakeid_lease::MemoryLeaseStore;

/// 2023-11-14T22:13:20Z in Unix ms: where the manual clocks of most tests start.
pub(crate) const T0: u64 = 1_700_000_000_000;

/// A manual clock reading `millis`, and an in-memory lease store that keeps
/// time by it (the database's clock).
pub(crate) fn store_on_clock(millis: u64) -> (Arc<ManualClock>, MemoryLeaseStore) {
    let clock = Arc::new(ManualClock::new(millis));
    let store = MemoryLeaseStore::with_clock(clock.clone());
    (clock, store)
}

/// Waits (generously: the machine is shared) until `cond` holds.
pub(crate) fn eventually(what: &str, cond: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(Instant::now() < until, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

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
